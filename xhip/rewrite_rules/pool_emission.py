"""IR for a pool plan: size arithmetic, `hip.get_pool`, one `memref.view` per buffer.

`hip-pool-allocs` decides everything (domains, the planner, the placement); this
module only writes the decision down. Sizes and offsets are `xhip.memory.SizeExpr`s
and are emitted through `ArithSizeEmitter`, the `SizeEmitter` of `index` arithmetic:
`arith.addi`/`muli`, `arith.maxui` for a slab as wide as the widest member, and
align-up as `(x + a - 1) / a * a` (`addi`, `divui`, `muli`), the spelling of the
seed. One memo per pool defines every shared subexpression once.

A domain planned at run time (`emit_run_time_pool`) gets its buffers' byte sizes
the same way, a `hip.plan_pool` of them, and the pool and views at its results.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import IndexType, MemRefType
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xhip.dialects.hip import GetPoolOp, PlanPoolOp
from xhip.memory import SizeExpr


class ArithSizeEmitter:
    """`SizeEmitter` over `index` values: creates `arith` ops at one insertion point.

    `SizeExpr.emit` folds constant subexpressions before calling it; this class
    only makes sure each constant is created once."""

    def __init__(self, insertion_point: InsertPoint):
        self.builder = Builder(insertion_point)
        self._constants: dict[int, SSAValue] = {}

    def _insert(self, op: Operation) -> SSAValue:
        return self.builder.insert(op).results[0]

    def constant(self, value: int) -> SSAValue:
        if value not in self._constants:
            self._constants[value] = self._insert(arith.ConstantOp.from_int_and_width(value, IndexType()))
        return self._constants[value]

    def add(self, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        return self._insert(arith.AddiOp(lhs, rhs))

    def mul(self, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        return self._insert(arith.MuliOp(lhs, rhs))

    def max_unsigned(self, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        return self._insert(arith.MaxUIOp(lhs, rhs))

    def align_up(self, value: SSAValue, alignment: int) -> SSAValue:
        bumped = self.add(value, self.constant(alignment - 1))
        blocks = self._insert(arith.DivUIOp(bumped, self.constant(alignment)))
        return self.mul(blocks, self.constant(alignment))

    def value(self, size: SizeExpr, memo: dict[Any, Any]) -> SSAValue:
        """`size` as an SSA value (a constant when it is static)."""
        emitted = size.emit(self, memo)
        return self.constant(emitted) if isinstance(emitted, int) else emitted


@dataclass(frozen=True)
class PooledBuffer:
    """An allocation and where its bytes start in the pool."""

    alloc: memref.AllocOp
    offset: SizeExpr


def emit_pool(
    context: SSAValue,
    domain_id: int,
    total: SizeExpr,
    members: Sequence[PooledBuffer],
    insert_before: Operation,
) -> GetPoolOp:
    """`hip.get_pool(%ctx, total) {domain_id}` before `insert_before`, and every member
    allocation replaced by a `memref.view` of the pool at its offset (in its place).

    The sizes must be computable at `insert_before`: their dims defined above it."""
    emitter = ArithSizeEmitter(InsertPoint.before(insert_before))
    memo: dict[Any, Any] = {}
    pool = GetPoolOp(context, emitter.value(total, memo), domain_id)
    Rewriter.insert_op(pool, InsertPoint.before(insert_before))
    # Every offset before any replacement: the insertion point is the first member.
    offsets = [emitter.value(member.offset, memo) for member in members]
    for member, offset in zip(members, offsets, strict=True):
        _replace_by_view(member.alloc, pool, offset)
    return pool


def _replace_by_view(alloc: memref.AllocOp, pool: GetPoolOp, offset: SSAValue) -> None:
    result_type = alloc.memref.type
    assert isinstance(result_type, MemRefType)
    Rewriter.replace_op(alloc, memref.ViewOp(pool.result, offset, list(alloc.dynamic_sizes), result_type))


def emit_run_time_pool(
    context: SSAValue,
    domain_id: int,
    sizes: Sequence[SizeExpr],
    intervals: Sequence[tuple[int, int]],
    alignment: int,
    members: Sequence[memref.AllocOp],
    insert_before: Operation,
) -> GetPoolOp:
    """The byte sizes of `members`, `hip.plan_pool` of them before `insert_before`, the
    pool at its total and every member replaced by a view at its offset."""
    emitter = ArithSizeEmitter(InsertPoint.before(insert_before))
    memo: dict[Any, Any] = {}
    values = [emitter.value(size, memo) for size in sizes]
    plan = PlanPoolOp(values, intervals, alignment)
    Rewriter.insert_op(plan, InsertPoint.before(insert_before))
    pool = GetPoolOp(context, plan.total, domain_id)
    Rewriter.insert_op(pool, InsertPoint.before(insert_before))
    for alloc, offset in zip(members, plan.offsets, strict=True):
        _replace_by_view(alloc, pool, offset)
    return pool
