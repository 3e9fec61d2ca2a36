"""Facts about host index values that their defining `arith` ops prove.

The shape rules' emitter (`xhip.shapes.IndexEmitter`) folds an expression when
such a fact decides it, so that one extent stays one SSA value through the
shape code exporters write:

* `lower_bound`: a value is at least some integer. Extents (`tensor.dim`) are
  >= 0, `seq + 1` is >= 1, so `seq + 1 < 0` is false and `min(1, seq + 1)` is 1.
* `offset`: `b` is `a + k` for a static k, so `min(seq, seq + 1)` is `seq` and
  `(seq + 1) - 1` is `seq`.
* `value_when`: the value an expression takes when one of its leaves takes a
  given value, whatever the others are (`batch * 2 * seq` is 0 when batch is 0).
  Reshape's "0 copies the input dim" gives `select(batch == 0, input_dim, batch)`,
  which is `batch` itself whenever `input_dim` is 0 for batch = 0.

Each fact follows only the ops that create index arithmetic; anything else (an
argument, a `tensor.extract`) is an unknown about which nothing is claimed. The
walks are bounded in depth, so their cost stays small on long shape chains.
"""

from __future__ import annotations

from collections.abc import Collection

from xdsl.dialects import arith, memref, tensor
from xdsl.ir import Operation, SSAValue

from xhip.index.host_eval import (
    compare,
    constant_int,
    fold_binary,
    is_binary_supported,
)

Dim = int | SSAValue

_EQ = 0
"""The `arith.cmpi` predicate `eq`."""

MAX_DEPTH = 24
"""How many defining ops a fact looks through before giving up (answering 'unknown')."""

_DIVISIONS = (arith.DivSIOp, arith.CeilDivSIOp, arith.FloorDivSIOp, arith.DivUIOp, arith.CeilDivUIOp)
_BOUNDED_OPS = (*_DIVISIONS, arith.AddiOp, arith.SubiOp, arith.MuliOp, arith.MaxSIOp, arith.MinSIOp, arith.SelectOp)
"""The ops whose result a lower bound follows through."""


def _defining(value: Dim) -> Operation | None:
    if isinstance(value, int) or not isinstance(value.owner, Operation):
        return None
    return value.owner


# --------------------------------------------------------------------------------------
# Lower bounds
# --------------------------------------------------------------------------------------


class _LowerBounds:
    """Lower bounds of the values one question looks at, each computed once."""

    def __init__(self, extents: Collection[SSAValue]):
        self.extents = extents
        self.known: dict[SSAValue, int | None] = {}

    def of(self, value: Dim, depth: int = MAX_DEPTH) -> int | None:
        if isinstance(value, int):
            return value
        if value not in self.known:
            found = self._of_op(value, depth)
            self.known[value] = max(found or 0, 0) if value in self.extents else found
        return self.known[value]

    def _of_op(self, value: SSAValue, depth: int) -> int | None:
        op = _defining(value)
        if op is None or depth == 0:
            return None
        if isinstance(op, tensor.DimOp | memref.DimOp):
            return 0
        if isinstance(op, arith.ConstantOp):
            return constant_int(value)
        if not isinstance(op, _BOUNDED_OPS):
            return None
        # The two operands that bound the result (a select's arms, not its condition).
        lhs, rhs = (self.of(operand, depth - 1) for operand in op.operands[-2:])
        if isinstance(op, _DIVISIONS):
            return _division_bound(op, lhs, rhs)
        if isinstance(op, arith.SubiOp):
            subtrahend = constant_int(op.rhs)
            return None if lhs is None or subtrahend is None else lhs - subtrahend
        if isinstance(op, arith.MaxSIOp):
            # max(x, y) >= x whatever y is.
            return max((b for b in (lhs, rhs) if b is not None), default=None)
        if lhs is None or rhs is None:
            return None
        if isinstance(op, arith.AddiOp):
            return lhs + rhs
        if isinstance(op, arith.MuliOp):
            return lhs * rhs if lhs >= 0 and rhs >= 0 else None
        return min(lhs, rhs)  # minsi, or either arm of a select


def _division_bound(op: Operation, lhs: int | None, rhs: int | None) -> int | None:
    """A quotient of a non-negative value by a positive one is non-negative; by a
    static positive divisor, the bound divides too (rounding as the op does)."""
    divisor = constant_int(op.operands[1])
    if lhs is None or lhs < 0:
        return None
    if divisor is not None and divisor > 0:
        return -(-lhs // divisor) if isinstance(op, arith.CeilDivSIOp) else lhs // divisor
    return 0 if rhs is not None and rhs >= 1 else None


def lower_bound(value: Dim, extents: Collection[SSAValue] = ()) -> int | None:
    """An integer `value` is never below, or None when nothing is known.

    `extents`: values the caller knows to be extents (>= 0), beyond `tensor.dim`
    and `memref.dim` results. Sums of index extents are assumed not to wrap.
    """
    return _LowerBounds(extents).of(value)


# --------------------------------------------------------------------------------------
# Offsets
# --------------------------------------------------------------------------------------


def _offset_from(base: SSAValue, value: SSAValue) -> int | None:
    """k when `value` is `base + k` or `base - k` built by one addi/subi."""
    op = _defining(value)
    if isinstance(op, arith.AddiOp):
        if op.lhs is base and (k := constant_int(op.rhs)) is not None:
            return k
        if op.rhs is base and (k := constant_int(op.lhs)) is not None:
            return k
    if isinstance(op, arith.SubiOp) and op.lhs is base and (k := constant_int(op.rhs)) is not None:
        return -k
    return None


def offset(a: Dim, b: Dim) -> int | None:
    """k such that b == a + k for every run, when one addi/subi shows it."""
    if a is b:
        return 0
    if isinstance(a, int) and isinstance(b, int):
        return b - a
    if isinstance(a, int) or isinstance(b, int):
        return None
    forward = _offset_from(a, b)
    if forward is not None:
        return forward
    backward = _offset_from(b, a)
    return None if backward is None else -backward


def difference(lhs: Dim, rhs: Dim) -> Dim | None:
    """`lhs - rhs` when one addi/subi shows it without new IR: `(a + k) - a` is k,
    `(a + b) - b` is a."""
    k = offset(rhs, lhs)
    if k is not None:
        return k
    op = _defining(lhs)
    if not isinstance(op, arith.AddiOp):
        return None
    for kept, cancelled in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
        if cancelled is rhs or (isinstance(rhs, int) and constant_int(cancelled) == rhs):
            return kept
    return None


def at_most(a: Dim, b: Dim, extents: Collection[SSAValue] = ()) -> bool:
    """Whether a <= b for every run, as far as offsets and lower bounds show."""
    if a is b:
        return True
    if isinstance(a, int) and isinstance(b, int):
        return a <= b
    k = offset(a, b)
    if k is not None:
        return k >= 0
    if isinstance(a, int):
        low = lower_bound(b, extents)
        return low is not None and low >= a
    return False


# --------------------------------------------------------------------------------------
# Values under one substitution
# --------------------------------------------------------------------------------------


def _absorbed(op: Operation, operands: list[int | None]) -> int | None:
    """The result decided by one operand alone: x * 0, 0 / x, select of a known
    condition or of two equal arms."""
    if isinstance(op, arith.MuliOp) and 0 in operands:
        return 0
    if isinstance(op, _DIVISIONS) and operands[0] == 0:
        # 0 divided by anything is 0 (a zero divisor is undefined, so any value will do).
        return 0
    if isinstance(op, arith.SelectOp):
        condition, if_true, if_false = operands
        if condition is not None:
            return if_true if condition else if_false
        if if_true is not None and if_true == if_false:
            return if_true
    return None


def value_when(value: Dim, leaf: SSAValue, leaf_value: int) -> int | None:
    """The integer `value` takes when `leaf` is `leaf_value`, for every value of its
    other leaves; None when it depends on them or cannot be followed."""
    known: dict[SSAValue, int | None] = {leaf: leaf_value}

    def evaluate(value: Dim, depth: int) -> int | None:
        if isinstance(value, int):
            return value
        if value not in known:
            known[value] = _op_value(value, depth)
        return known[value]

    def _op_value(value: SSAValue, depth: int) -> int | None:
        op = _defining(value)
        if op is None or depth == 0:
            return None
        if isinstance(op, arith.ConstantOp):
            return constant_int(value)
        if not (is_binary_supported(type(op)) or isinstance(op, arith.CmpiOp | arith.SelectOp)):
            return None
        operands = [evaluate(o, depth - 1) for o in op.operands]
        absorbed = _absorbed(op, operands)
        if absorbed is not None or None in operands or isinstance(op, arith.SelectOp):
            return absorbed
        if isinstance(op, arith.CmpiOp):
            return int(compare(op.predicate.value.data, *operands))  # type: ignore[arg-type]
        try:
            return fold_binary(type(op), *operands)  # type: ignore[arg-type]
        except ZeroDivisionError:
            return None

    return evaluate(value, MAX_DEPTH)


def select_fold(condition: SSAValue, if_true: Dim, if_false: Dim) -> Dim | None:
    """`select(x == c, t, x)` is x when t is c wherever x is c (and symmetrically
    `select(x == c, x, f)` is f); None when that is not shown.

    Reshape's "0 copies the input dim" builds `select(batch == 0, input_dim, batch)`;
    when input_dim is 0 for batch 0, the select is `batch` for every run.
    """
    op = _defining(condition)
    if not isinstance(op, arith.CmpiOp) or op.predicate.value.data != _EQ:
        return None
    for x, c in ((op.lhs, constant_int(op.rhs)), (op.rhs, constant_int(op.lhs))):
        if c is None:
            continue
        if if_false is x and value_when(if_true, x, c) == c:
            return x
        if if_true is x and value_when(if_false, x, c) == c:
            return if_false
    return None
