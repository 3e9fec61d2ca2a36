"""Module verification that reports the failing operation's location.

xDSL's `Operation.verify` dumps the whole module with a marker on failure; a
user wants one line pointing at the op, so every op is verified on its own.

Two modes, like mlir-opt's `--verify-each`:

- `verify_module`: every op, every time (the thorough mode, and the check of
  parsed or imported IR).
- `ChangedOpsVerifier`: between passes, only the ops a pass may have changed.
  Most passes touch a few ops of a large model; verifying all of them after
  every pass re-derived every hip op's result shapes 18 times and cost more
  than the passes themselves on GPT-2. An op is verified again when it is new
  or when anything its own verifier reads changed: its operand and result
  types, attributes, properties, successors, its block, or the argument types
  and terminators of its regions (an operand replaced by another value of the
  same type, as cse does, changes nothing an op verifier reads; a symbol
  table's signature also has the ops inside it). Ops whose verifier reads
  beyond themselves (terminators check their parent's signature, symbol users
  and top-level ops that define no symbol look symbols up, like
  `onnx.EntryPoint`) are verified every time, and the pass runner verifies
  the whole module once at the end. A top-level symbol (`memref.global`,
  `func.func`) reads only itself: GPT-2's 62 weight globals re-verified after
  every pass cost 0.15 s.
"""

from __future__ import annotations

import os
from functools import cache

from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType, ModuleOp, TensorType
from xdsl.ir import Block, Operation
from xdsl.traits import IsTerminator, OpTrait, SymbolOpInterface, SymbolTable, SymbolUserOpInterface
from xdsl.utils.exceptions import VerifyException

from xhip import environment
from xhip.diagnostics import XhipError, op_error, shorten


INT64_MAX = 2**63 - 1

CONTEXT_READING_TRAITS = (IsTerminator, SymbolUserOpInterface)
"""Traits whose ops' verifiers read other ops, so a change elsewhere can break them."""


def verify_module(module: ModuleOp) -> None:
    """Verify `module`; raise an XhipError at the first op that does not verify."""
    for op in module.walk():
        verify_op(op)


def verify_op(op: Operation) -> None:
    """Verify `op` alone (not its nested ops); raise an XhipError located at it."""
    _check_static_dims(op)
    try:
        op.verify(verify_nested_ops=False)
    except XhipError:
        raise
    except VerifyException as err:
        raise op_error(op, _first_message(err)) from None
    except Exception as err:  # upstream verifiers raise plain exceptions too
        if os.environ.get(environment.DEBUG):
            raise
        raise op_error(op, f"{op.name} does not verify: {_first_message(err)}") from None


class ChangedOpsVerifier:
    """Verifies the ops of a module that changed since its last call (all of them the first time)."""

    def __init__(self) -> None:
        self._verified: dict[Operation, tuple[object, ...]] = {}
        self.ops_verified = 0
        """How many op verifications ran (for tests and the timing report)."""

    def trust(self, module: ModuleOp) -> None:
        """Take `module` as verified as it is (it was checked when it was imported or parsed)."""
        self._verified = {op: _signature(op) for op in module.walk()}

    def verify(self, module: ModuleOp) -> None:
        verified: dict[Operation, tuple[object, ...]] = {}
        top_level = module.body.block  # once: each irdl region access costs tens of microseconds
        for op in module.walk():
            signature = _signature(op)
            if self._verified.get(op) != signature or _reads_context(op, top_level):
                verify_op(op)
                self.ops_verified += 1
            verified[op] = signature
        self._verified = verified


def _signature(op: Operation) -> tuple[object, ...]:
    """Everything `op`'s own verifier reads; equal signatures verify alike.

    Attributes compare by identity first (tuples do), so an unchanged op costs
    no attribute comparison, however large its constant.
    """
    regions = tuple(
        (block.last_op, *(arg.type for arg in block.args)) for region in op.regions for block in region.blocks
    )
    if _has_trait(type(op), SymbolTable):  # its verifier compares the names of the ops directly inside it
        regions += tuple(tuple(block.ops) for region in op.regions for block in region.blocks)
    return (
        op.parent,
        tuple(operand.type for operand in op.operands),
        tuple(result.type for result in op.results),
        tuple(op.attributes.items()),
        tuple(op.properties.items()),
        tuple(op.successors),
        regions,
    )


def _reads_context(op: Operation, top_level: Block) -> bool:
    """Whether `op`'s verifier may read other ops: a trait that says so, or a top-level op that
    defines no symbol (it may look one up)."""
    kind = type(op)
    if any(_has_trait(kind, trait) for trait in CONTEXT_READING_TRAITS):
        return True
    return op.parent is top_level and not _has_trait(kind, SymbolOpInterface)


@cache
def _has_trait(kind: type[Operation], trait: type[OpTrait]) -> bool:
    """`kind.has_trait(trait)`, asked once per op class instead of per op and pass."""
    return kind.has_trait(trait)


def _check_static_dims(op: Operation) -> None:
    """Static dims must be int64s (xDSL's parser takes any integer, MLIR's does not)."""
    values = [(f"result #{i}", r) for i, r in enumerate(op.results)]
    for region in op.regions:
        values += [(f"block argument #{i}", arg) for block in region.blocks for i, arg in enumerate(block.args)]
    for what, value in values:
        if isinstance(value.type, TensorType | MemRefType):
            shape = value.type.get_shape()
            if any(d > INT64_MAX or d < DYNAMIC_INDEX for d in shape):
                dims = "x".join("?" if d == DYNAMIC_INDEX else str(d) for d in shape)
                raise op_error(op, f"{what} has a static dim outside int64 ({shorten(dims)})")


def _first_message(err: Exception) -> str:
    """The error's own text, without the module dump xDSL's diagnostics append."""
    text = str(err)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for prefix in ("Operation does not verify: ",):
        lines = [line.removeprefix(prefix) for line in lines]
    return " ".join(lines[:3]) if lines else type(err).__name__
