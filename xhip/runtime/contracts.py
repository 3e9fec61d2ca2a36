"""Run-time shape contracts: what kernels and views rely on, proved at bind time where
the IR decides it, checked on real extents where it does not.

A dynamic dim is only a symbol at compile time, so a graph that no static check
rejects can still be fed extents its ops cannot take (`Reshape(X[n], [-1, 5])`
with n = 7, a broadcast of [3] with [4], a matmul of [2, 3] by [4, 5]). Every
such contract is the host plan's: every backend runs the same program, so a GPU
backend gets the same one-line errors as the reference one. Errors name the op and
its ONNX node (`xhip.diagnostics.op_location`).

A compute op's contract is its result-shape rule in `xhip.shapes` (through the
dialect's `REIFIERS`, the one implementation the converter and the verifier use)
evaluated on the operands' extents: a rule failure, or outs whose extents differ from
what the rule computes, is an error. Expand's target shape is host index values that
no longer reach the op, so only "the input broadcasts to the out" is checked for it.

Proved per shape class: each operand extent is, by the extent analysis
(`xhip.analysis.memref_extents`), a product of factors (constants, dims of the
function's inputs, host values), and a host value is the `arith` expression that
computes it, down to leaves (input dims, named by their `onnx.dim_params` where they
have one, and values no arith op computes, such as a readback). A contract that
holds with the leaves drawn at random, in ascending and in descending order, and all
at 1 (where broadcasts and selects take their other branch), holds because the extents it compares are the same expressions: the rule's
result is those values whatever they are (a relation that only some values satisfy
fails a draw: two independent extents being equal fails the random one, one being at
most another fails one of the ordered ones). Such an op is never checked at run time. Any other op is checked at run time, once per distinct set of its
operands' extents. Gather indices in range are data, not extents: the reference
kernel checks them (a GPU kernel reports them through a device-side status word).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType
from xdsl.ir import Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint

from xhip import shapes
from xhip.analysis.memref_extents import RootDim, buffer_extent, size_extent
from xhip.diagnostics import XhipError, op_location
from xhip.dialects.hip import DPSOp, ExpandOp
from xhip.dialects.hip.reify import REIFIERS, RULE_PHRASES, ShapeRule
from xhip.index.host_eval import compare, constant_int, fold_binary, is_binary_supported
from xhip.runtime.program import Registers
from xhip.shapes import IndexEmitter

Check = Callable[[Registers], None]
Extents = tuple[tuple[int, ...], ...]
Fits = Callable[[Extents], str | None]
"""The contract on the extents of (inputs, outputs): None, or what does not fit."""

PROOF_SPACING = 1009
"""The gap between consecutive leaves in the ordered draws (a prime: no leaf is another's multiple)."""

MAX_EXPRESSION_VALUES = 256
"""How many host values a proof evaluates before it gives up (and leaves the op to a check)."""


def dps_contract(op: DPSOp, slot: Callable[[SSAValue], int], symbols: Mapping[RootDim, str]) -> ShapeCheck | None:
    """The run-time check of `op`'s operands against its shape rule, or None when the rule
    needs none (the outs define the extents) or it holds for every shape (module doc).
    `symbols` names the dims of function inputs that share an `onnx.dim_params` symbol."""
    fits = _expand_fits(op) if isinstance(op, ExpandOp) else _rule_fits(op)
    if fits is None or _proved(op, fits, symbols):
        return None
    return ShapeCheck([slot(value) for value in (*op.inputs, *op.outputs)], fits, op_location(op))


class ShapeCheck:
    """An op's contract checked at run time, on its operands' extents (each set of extents
    once: the set that passed is remembered)."""

    __slots__ = ("slots", "_fits", "_location", "_passed")

    def __init__(self, slots: Sequence[int], fits: Fits, location: str):
        self.slots = tuple(slots)
        """The registers of the op's operands (inputs, then outputs)."""
        self._fits, self._location = fits, location
        self._passed: set[Extents] = set()

    def __call__(self, regs: Registers) -> None:
        self.extents(tuple([tuple(regs[s].shape) for s in self.slots]))  # type: ignore[attr-defined]

    def extents(self, extents: Extents) -> None:
        """Raises the located error of operands of these extents that do not fit."""
        if extents in self._passed:
            return
        message = self._fits(extents)
        if message is not None:
            raise XhipError(message, self._location)
        self._passed.add(extents)


def _rule_fits(op: DPSOp) -> Fits | None:
    rule = op.SHAPE_RULE
    if rule is ShapeRule.FROM_INIT:
        return None  # the outs define the extents: nothing to contradict
    reifier, phrase = REIFIERS[rule], RULE_PHRASES[rule]
    values = (*op.inputs, *op.outputs)
    # Only static extents reach the rule, so it folds completely: nothing is built
    # (an op it might still create lands in a detached block).
    emitter = IndexEmitter(InsertPoint.at_end(Block()))

    def fits(extents: Extents) -> str | None:
        given = dict(zip(values, extents))
        computed = reifier(op, emitter, lambda value: list(given[value]))
        if isinstance(computed, shapes.ShapeFailure):
            return f"run-time shapes do not fit the op: {computed.message}"
        for index, (out, dims) in enumerate(zip(op.outputs, computed)):
            actual = list(given[out])
            if all(isinstance(d, int) for d in dims) and actual != dims:
                return (
                    f"out #{index} has run-time shape {shapes.format_shape(actual)} but "
                    f"{phrase} {shapes.format_shape(dims)}"
                )
        return None

    return fits


def _expand_fits(op: ExpandOp) -> Fits:
    """Expand's out comes from its shape operand, gone by now: the input must broadcast to it."""

    def fits(extents: Extents) -> str | None:
        source, target = list(extents[0]), list(extents[1])
        padded = [1] * (len(target) - len(source)) + source
        if len(padded) != len(target) or any(e not in (1, t) for e, t in zip(padded, target)):
            return (
                f"input of run-time shape {shapes.format_shape(source)} does not broadcast to "
                f"{shapes.format_shape(target)}"
            )
        return None

    return fits


def _proved(op: DPSOp, fits: Fits, symbols: Mapping[RootDim, str]) -> bool:
    """Whether the contract holds at random values of the leaves its extents are made of."""
    values = (*op.inputs, *op.outputs)
    if not all(isinstance(value.type, MemRefType) for value in values):
        return False  # tensor mode: no extent analysis, every run is checked
    products = [[buffer_extent(value, axis) for axis in range(value.type.get_num_dims())] for value in values]  # type: ignore[attr-defined]
    rng = random.Random(op.name)
    for order in ("random", "ascending", "descending", "ones"):
        draw = _Draw(symbols, order, rng)
        try:
            extents = tuple(tuple(math.prod(draw.factor(f) for f in extent) for extent in operand) for operand in products)
        except (ZeroDivisionError, _Undecided):
            return False
        if fits(extents) is not None:
            return False
    return True


class _Undecided(Exception):
    """An extent whose value the draw cannot take (a leaf of an unbounded expression)."""


class _Draw:
    """One assignment of values to the leaves of extents: input dims (one value per dim_params
    symbol), and host values no arith op defines (a readback, a block argument); arith ops
    on them are evaluated as the runtime evaluates them."""

    def __init__(self, symbols: Mapping[RootDim, str], order: str, rng: random.Random):
        self._symbols, self._order, self._rng = symbols, order, rng
        self._leaves: dict[object, int] = {}
        self._values: dict[SSAValue, int] = {}

    def factor(self, factor: object) -> int:
        if isinstance(factor, int):
            return factor
        if isinstance(factor, RootDim):
            return self._leaf(self._symbols.get(factor, factor))
        return self.value(factor)  # type: ignore[arg-type]

    def value(self, value: SSAValue) -> int:
        if value not in self._values:
            if len(self._values) > MAX_EXPRESSION_VALUES:
                raise _Undecided()
            self._values[value] = self._evaluate(value)
        return self._values[value]

    def _evaluate(self, value: SSAValue) -> int:
        constant = constant_int(value)
        if constant is not None:
            return constant
        op = value.owner
        if isinstance(op, Operation) and is_binary_supported(type(op)):
            return fold_binary(type(op), self.value(op.operands[0]), self.value(op.operands[1]))
        if isinstance(op, arith.IndexCastOp | arith.ExtSIOp | arith.ExtUIOp | arith.TruncIOp):
            return self.value(op.operands[0])
        if isinstance(op, arith.CmpiOp):
            return int(compare(op.predicate.value.data, self.value(op.lhs), self.value(op.rhs)))
        if isinstance(op, arith.SelectOp):
            return self.value(op.lhs) if self.value(op.cond) else self.value(op.rhs)
        if isinstance(op, memref.DimOp):
            return math.prod(self.factor(f) for f in size_extent(value))
        return self._leaf(value)

    def _leaf(self, key: object) -> int:
        if key not in self._leaves:
            count = len(self._leaves)
            if self._order == "ones":
                self._leaves[key] = 1
            elif self._order == "random":
                self._leaves[key] = self._rng.randrange(2, 1 << 12)
            else:
                rank = count if self._order == "ascending" else MAX_EXPRESSION_VALUES - count
                self._leaves[key] = 2 + PROOF_SPACING * rank
        return self._leaves[key]


# ---- view and reshape contracts (checked by the steps that make the views) ----------------


def _count(shape: Sequence[int]) -> int:
    return math.prod(shape)


def same_count(location: str) -> Callable[[Sequence[int], Sequence[int]], None]:
    """A reshape keeps every element: Reshape's -1 of a count that does not divide, a
    Squeeze of a dim that is not 1, an Unsqueeze/Flatten of a view of the wrong size."""

    def require(source: Sequence[int], result: Sequence[int]) -> None:
        if _count(source) != _count(result):
            raise XhipError(
                f"cannot reshape {_count(source)} elements of shape {shapes.format_shape(list(source))} "
                f"into shape {shapes.format_shape(list(result))} ({_count(result)} elements)",
                location,
            )

    return require


def static_extents(location: str, declared: Sequence[int]) -> Callable[[Sequence[int]], None]:
    """A cast to a type with static extents holds only if the runtime extents are those."""

    def require(extents: Sequence[int]) -> None:
        for axis, (extent, static) in enumerate(zip(extents, declared)):
            if static != DYNAMIC_INDEX and extent != static:
                raise XhipError(
                    f"run-time shape {shapes.format_shape(list(extents))} does not match the declared "
                    f"{_declared_text(declared)} at dim {axis}",
                    location,
                )

    return require


def _declared_text(declared: Sequence[int]) -> str:
    return "[" + ", ".join("?" if d == DYNAMIC_INDEX else str(d) for d in declared) + "]"


def within(location: str) -> Callable[[Sequence[int], Sequence[int], Sequence[int], Sequence[int]], None]:
    """A slice (subview) stays inside its source on every axis."""

    def require(extents: Sequence[int], offsets: Sequence[int], sizes: Sequence[int], strides: Sequence[int]) -> None:
        for axis, (extent, offset, size, stride) in enumerate(zip(extents, offsets, sizes, strides)):
            if size > 0 and 0 <= offset < extent and 0 <= offset + (size - 1) * stride < extent:
                continue  # on every view's path: the common case first
            if size < 0 or size > 0:
                raise XhipError(
                    f"slice of axis {axis} (offset {offset}, size {size}, stride {stride}) "
                    f"is out of bounds of extent {extent}",
                    location,
                )

    return require
