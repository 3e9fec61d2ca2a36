"""Host index arithmetic for runtime extents: the emitter the shape rules write with.

`IndexEmitter` creates `arith` ops on `index` values at one insertion point and
folds whatever it can decide: static operands, identities (`x + 0`, `x * 1`,
`select(c, x, x)`) and facts proven about the values (xhip.index.facts),
so one extent stays one SSA value. Asking twice for the same expression returns
the same value.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeAlias

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint

from xhip.index import facts as index_facts
from xhip.index.host_eval import compare, fold_binary

Dim: TypeAlias = int | SSAValue
"""A static extent or a runtime `index` value."""

Cond: TypeAlias = bool | SSAValue
"""A static truth value or a runtime `i1` value."""

Shape: TypeAlias = Sequence[Dim]

INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)




# `x <predicate> c` for a static c, decided by a lower bound of x:
# predicate -> (whether (bound, c) decides it, the answer).
_BOUNDED_COMPARISONS: dict[str, tuple[Callable[[int, int], bool], bool]] = {
    "eq": (lambda low, c: low > c, False),
    "ne": (lambda low, c: low > c, True),
    "slt": (lambda low, c: low >= c, False),
    "sle": (lambda low, c: low > c, False),
    "sgt": (lambda low, c: low > c, True),
    "sge": (lambda low, c: low >= c, True),
}


_COMMUTATIVE = frozenset({arith.AddiOp, arith.MuliOp, arith.MaxSIOp, arith.MinSIOp})


class IndexEmitter:
    """Creates host `arith` ops on `index` values at one insertion point.

    Every method folds when its inputs are static, so static shapes produce no
    IR, and applies the identities that keep forwarded dims as the operand's
    own SSA value (`x + 0`, `x * 1`, `select(c, x, x)`, ...). Ops it creates are
    remembered: asking twice for the same expression returns the same value,
    so equal extents reach the pool planner as one SSA value.

    The emitter also knows which values are extents (>= 0): operand dims the
    rules register with `mark_extents`, and whatever `xhip.index.facts`
    proves from the defining ops (`tensor.dim` results, sums, products, selects
    and maxima of extents, `seq + 1 >= 1`). That lets `x == -1` fold for an extent
    (Reshape) without emitting a comparison, and `min(seq, seq + 1)` be `seq`.
    """

    def __init__(self, insertion_point: InsertPoint):
        self.builder = Builder(insertion_point)
        self._constants: dict[int, SSAValue] = {}
        self._created: dict[tuple[object, ...], SSAValue] = {}
        self._extents: set[SSAValue] = set()

    def moved_to(self, insertion_point: InsertPoint) -> IndexEmitter:
        """An emitter at a later point of the same block that reuses what this one built.

        Everything built so far dominates the new point, so a walk in program order
        (the ONNX-to-HIP conversion) defines each expression once for the whole
        function, whichever op asks for it first.
        """
        moved = IndexEmitter(insertion_point)
        moved._constants, moved._created, moved._extents = self._constants, self._created, self._extents
        return moved

    # -- values -------------------------------------------------------------------------

    def constant(self, value: int) -> SSAValue:
        if value not in self._constants:
            op = arith.ConstantOp.from_int_and_width(value, IndexType())
            self._constants[value] = self.builder.insert(op).result
        return self._constants[value]

    def materialize(self, dim: Dim) -> SSAValue:
        """`dim` as an SSA value (a constant for a static dim)."""
        return self.constant(dim) if isinstance(dim, int) else dim

    def mark_extents(self, dims: Shape) -> None:
        """Record that the runtime dims of an operand shape are extents (>= 0)."""
        self._extents.update(d for d in dims if not isinstance(d, int))

    def lower_bound(self, dim: Dim) -> int | None:
        return index_facts.lower_bound(dim, self._extents)

    def is_extent(self, dim: Dim) -> bool:
        low = self.lower_bound(dim)
        return low is not None and low >= 0

    def at_most(self, lhs: Dim, rhs: Dim) -> bool:
        """Whether lhs <= rhs is known for every run."""
        return lhs == INT64_MIN or rhs == INT64_MAX or index_facts.at_most(lhs, rhs, self._extents)

    def _create(
        self, op_type: Callable[..., Operation], *operands: Dim, extent: bool = False, **kw: object
    ) -> SSAValue:
        """The result of `op_type(*operands, **kw)`, built once per emitter.

        `op_type` is an op class, typed by what it is called as: each op class has its own
        constructor, not `Operation`'s.
        """
        values = tuple(self.materialize(d) for d in operands)
        key = (op_type, *values, *sorted(kw.items()))
        if op_type in _COMMUTATIVE:
            # `seq + 1` and `1 + seq` are one extent.
            swapped = (op_type, *reversed(values))
            key = swapped if swapped in self._created else key
        if key not in self._created:
            op = op_type(*values, **kw) if kw else op_type(*values)
            result = self.builder.insert(op).results[0]
            self._created[key] = result
            if extent:
                self._extents.add(result)
        return self._created[key]

    def _binary(self, op_type: type[Operation], lhs: Dim, rhs: Dim, extent: bool = False) -> Dim:
        if isinstance(lhs, int) and isinstance(rhs, int):
            return fold_binary(op_type, lhs, rhs)
        return self._create(op_type, lhs, rhs, extent=extent)

    # -- arithmetic ---------------------------------------------------------------------

    def add(self, lhs: Dim, rhs: Dim) -> Dim:
        if lhs == 0:
            return rhs
        if rhs == 0:
            return lhs
        both = self.is_extent(lhs) and self.is_extent(rhs)
        return self._binary(arith.AddiOp, lhs, rhs, extent=both)

    def sub(self, lhs: Dim, rhs: Dim) -> Dim:
        if rhs == 0:
            return lhs
        known = index_facts.difference(lhs, rhs)
        if known is not None:
            return known
        return self._binary(arith.SubiOp, lhs, rhs)

    def mul(self, lhs: Dim, rhs: Dim) -> Dim:
        if lhs == 1 or rhs == 0:
            return rhs
        if rhs == 1 or lhs == 0:
            return lhs
        both = self.is_extent(lhs) and self.is_extent(rhs)
        return self._binary(arith.MuliOp, lhs, rhs, extent=both)

    def div(self, lhs: Dim, rhs: Dim) -> Dim:
        """Signed division rounding toward zero (`arith.divsi`)."""
        if rhs == 1:
            return lhs
        return self._binary(arith.DivSIOp, lhs, rhs)

    def ceildiv(self, lhs: Dim, rhs: Dim) -> Dim:
        """Signed division rounding up (`arith.ceildivsi`)."""
        if rhs == 1:
            return lhs
        extent = self.is_extent(lhs) and isinstance(rhs, int) and rhs > 0
        return self._binary(arith.CeilDivSIOp, lhs, rhs, extent=extent)

    def max(self, lhs: Dim, rhs: Dim) -> Dim:
        if isinstance(lhs, int) and isinstance(rhs, int):
            return max(lhs, rhs)
        if self.at_most(rhs, lhs):
            return lhs
        if self.at_most(lhs, rhs):
            return rhs
        either = self.is_extent(lhs) or self.is_extent(rhs)
        return self._binary(arith.MaxSIOp, lhs, rhs, extent=either)

    def min(self, lhs: Dim, rhs: Dim) -> Dim:
        # Every index value is at most INT64_MAX, ONNX's "to the end" bound.
        if isinstance(lhs, int) and isinstance(rhs, int):
            return min(lhs, rhs)
        if self.at_most(lhs, rhs):
            return lhs
        if self.at_most(rhs, lhs):
            return rhs
        both = self.is_extent(lhs) and self.is_extent(rhs)
        return self._binary(arith.MinSIOp, lhs, rhs, extent=both)

    def sum(self, dims: Shape) -> Dim:
        total: Dim = 0
        for d in dims:
            total = self.add(total, d)
        return total

    def product(self, dims: Shape) -> Dim:
        total: Dim = 1
        for d in dims:
            total = self.mul(total, d)
        return total

    # -- comparisons and selection ------------------------------------------------------

    def cmp(self, predicate: str, lhs: Dim, rhs: Dim) -> Cond:
        """`arith.cmpi predicate` (eq, ne, slt, sle, sgt, sge, ...), folded when possible."""
        if isinstance(lhs, int) and isinstance(rhs, int):
            return compare(predicate, lhs, rhs)
        signed = predicate in _BOUNDED_COMPARISONS
        # a against a + k: the sign of k decides (index arithmetic does not wrap).
        k = index_facts.offset(lhs, rhs)
        if signed and k is not None:
            return compare(predicate, 0, k)
        if signed and isinstance(rhs, int) and (low := self.lower_bound(lhs)) is not None:
            decides, answer = _BOUNDED_COMPARISONS[predicate]
            if decides(low, rhs):
                return answer
        return self._create(arith.CmpiOp, lhs, rhs, arg=predicate)

    def eq(self, lhs: Dim, rhs: Dim) -> Cond:
        return self.cmp("eq", lhs, rhs)

    def lt(self, lhs: Dim, rhs: Dim) -> Cond:
        return self.cmp("slt", lhs, rhs)

    def select_lazy(self, condition: Cond, if_true: Callable[[], Dim], if_false: Callable[[], Dim]) -> Dim:
        """`select` that builds only the chosen side when the condition is static."""
        if isinstance(condition, bool):
            return if_true() if condition else if_false()
        return self.select(condition, if_true(), if_false())

    def select(self, condition: Cond, if_true: Dim, if_false: Dim) -> Dim:
        if isinstance(condition, bool):
            return if_true if condition else if_false
        if if_true is if_false or (isinstance(if_true, int) and if_true == if_false):
            return if_true
        folded = index_facts.select_fold(condition, if_true, if_false)
        if folded is not None:
            return folded
        extent = self.is_extent(if_true) and self.is_extent(if_false)
        return self._create(arith.SelectOp, condition, if_true, if_false, extent=extent)
