"""Run-time shape contracts: what kernels and views rely on, checked on real extents.

A dynamic dim is only a symbol at compile time, so a graph that no static check
rejects can still be fed extents its ops cannot take (`Reshape(X[n], [-1, 5])`
with n = 7, a broadcast of [3] with [4], a matmul of [2, 3] by [4, 5]). Every
such contract is checked here, in the host plan, on the runtime extents, before
the launch or the view: every backend runs the same plan, so a GPU backend gets
the same one-line errors as the reference one. Errors name the op and its ONNX
node (`xhip.diagnostics.op_location`).

A compute op's contract is its result-shape rule in `xhip.shapes` (through the
dialect's `REIFIERS`, the one implementation the converter and the verifier
use) evaluated on the operands' concrete extents: a rule failure, or outs whose
extents differ from what the rule computes, is an error. Expand's target shape
is host index values that no longer reach the op, so only "the input broadcasts
to the out" is checked for it: the converter sizes the out from the target
(the input's extent only where the target's is 1), so an input extent the target
does not take fails here. Gather indices in range
are data, not extents: the reference kernel checks them (a GPU kernel needs a
device-side error flag read back at the next sync).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects.builtin import DYNAMIC_INDEX
from xdsl.ir import Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint

from xhip import shapes
from xhip.diagnostics import XhipError, op_location
from xhip.dialects.hip import DPSOp, ExpandOp
from xhip.dialects.hip.reify import REIFIERS, RULE_PHRASES, ShapeRule
from xhip.runtime.translate.base import Registers
from xhip.shapes import IndexEmitter

Check = Callable[[Registers], None]


def _extents(value: object) -> list[int]:
    return [int(d) for d in value.shape]  # type: ignore[attr-defined]


def dps_contract(op: DPSOp, slot: Callable[[SSAValue], int]) -> Check | None:
    """The check that `op`'s operands fit its shape rule and its outs have the rule's extents."""
    rule = op.SHAPE_RULE
    if isinstance(op, ExpandOp):
        return _expand_contract(op, slot)
    if rule is ShapeRule.FROM_INIT:
        return None  # the outs define the extents: nothing to contradict
    reifier, phrase, location = REIFIERS[rule], RULE_PHRASES[rule], op_location(op)
    slots = [slot(value) for value in (*op.inputs, *op.outputs)]
    # Only static extents reach the rule, so it folds completely: nothing is built
    # (an op it might still create lands in a detached block).
    emitter = IndexEmitter(InsertPoint.at_end(Block()))
    # Extents repeat from run to run: each distinct operand shape is checked once.
    passed: set[tuple[tuple[int, ...], ...]] = set()

    def check(regs: Registers) -> None:
        extents = tuple(tuple(_extents(regs[s])) for s in slots)
        if extents in passed:
            return
        given = dict(zip((*op.inputs, *op.outputs), extents))
        computed = reifier(op, emitter, lambda value: list(given[value]))
        if isinstance(computed, shapes.ShapeFailure):
            raise XhipError(f"run-time shapes do not fit the op: {computed.message}", location)
        for index, (out, dims) in enumerate(zip(op.outputs, computed)):
            actual = list(given[out])
            if all(isinstance(d, int) for d in dims) and actual != dims:
                raise XhipError(
                    f"out #{index} has run-time shape {shapes.format_shape(actual)} but "
                    f"{phrase} {shapes.format_shape(dims)}",
                    location,
                )
        passed.add(extents)

    return check


def _expand_contract(op: ExpandOp, slot: Callable[[SSAValue], int]) -> Check:
    """Expand's out comes from its shape operand, gone by now: the input must broadcast to it."""
    source, out, location = slot(op.inputs[0]), slot(op.outputs[0]), op_location(op)

    def check(regs: Registers) -> None:
        extents, target = _extents(regs[source]), _extents(regs[out])
        padded = [1] * (len(target) - len(extents)) + extents
        if len(padded) != len(target) or any(e not in (1, t) for e, t in zip(padded, target)):
            raise XhipError(
                f"input of run-time shape {shapes.format_shape(extents)} does not broadcast to "
                f"{shapes.format_shape(target)}",
                location,
            )

    return check


def _count(shape: Sequence[int]) -> int:
    return int(np.prod(shape, dtype=np.int64))


def require_same_count(op: Operation, source: Sequence[int], result: Sequence[int]) -> None:
    """A reshape keeps every element: Reshape's -1 of a count that does not divide, a
    Squeeze of a dim that is not 1, an Unsqueeze/Flatten of a view of the wrong size."""
    if _count(source) != _count(result):
        raise XhipError(
            f"cannot reshape {_count(source)} elements of shape {shapes.format_shape(list(source))} "
            f"into shape {shapes.format_shape(list(result))} ({_count(result)} elements)",
            op_location(op),
        )


def require_static_extents(op: Operation, extents: Sequence[int], declared: Sequence[int]) -> None:
    """A cast to a type with static extents holds only if the runtime extents are those."""
    for axis, (extent, static) in enumerate(zip(extents, declared)):
        if static != DYNAMIC_INDEX and extent != static:
            raise XhipError(
                f"run-time shape {shapes.format_shape(list(extents))} does not match the declared "
                f"{_declared_text(declared)} at dim {axis}",
                op_location(op),
            )


def _declared_text(declared: Sequence[int]) -> str:
    return "[" + ", ".join("?" if d == DYNAMIC_INDEX else str(d) for d in declared) + "]"


def require_within(op: Operation, extents: Sequence[int], offsets: Sequence[int], sizes: Sequence[int], strides: Sequence[int]) -> None:
    """A slice (subview) stays inside its source on every axis."""
    for axis, (extent, offset, size, stride) in enumerate(zip(extents, offsets, sizes, strides)):
        last = offset + (size - 1) * stride
        if size < 0 or (size > 0 and not (0 <= offset < extent and 0 <= last < extent)):
            raise XhipError(
                f"slice of axis {axis} (offset {offset}, size {size}, stride {stride}) "
                f"is out of bounds of extent {extent}",
                op_location(op),
            )
