"""hip-hoist-alloc-size-arith: compute allocation sizes before the first allocation.

`hip-pool-allocs` emits the pool size, which depends on every allocation's size,
once, at the first allocation. A size computed later (`arith.muli` of dims emitted
next to the op that needs it) would force a new dominance domain and a second
pool. This pass moves the pure index arithmetic that computes the dynamic sizes
of the function's `memref.alloc`s above its first `memref.alloc`.

A size's producer cone moves whole or not at all: every op in it must be pure
(no memory effect and speculatable: a `memref.load`, a call, a readback or a
division by a runtime value stays where it is) and have no regions, and its
operands must be defined above the first allocation or be moved with it. Moved
ops keep their relative order. Nothing is folded or duplicated, so a second run
finds nothing to move.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin, func, memref
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass

from xhip.passes.contracts import function_body, is_pure


class _Hoister:
    """Moves size cones of one block above its first allocation."""

    def __init__(self, block: Block, first: Operation):
        self.first = first
        self.above: set[Operation] = set()
        for op in block.ops:
            if op is first:
                break
            self.above.add(op)
        self.block = block

    def cone(self, value: SSAValue, memo: dict[SSAValue, list[Operation] | None]) -> list[Operation] | None:
        """The ops to move (in program order) so that `value` is available above the first allocation."""
        if value in memo:
            return memo[value]
        owner = value.owner
        if isinstance(owner, Block) or owner in self.above:
            memo[value] = []
            return []
        memo[value] = None  # until proven movable
        if owner.parent_block() is not self.block or not is_pure(owner):
            return None
        moved: list[Operation] = []
        for operand in owner.operands:
            inner = self.cone(operand, memo)
            if inner is None:
                return None
            moved += [op for op in inner if op not in moved]
        memo[value] = [*moved, owner]
        return memo[value]

    def hoist(self, value: SSAValue) -> None:
        cone = self.cone(value, {})
        for op in sorted(cone or (), key=self.block.get_operation_index):
            op.detach()
            self.block.insert_op_before(op, self.first)
            self.above.add(op)


def hoist_sizes(function: func.FuncOp) -> None:
    """Hoist the size arithmetic of every used entry-block `memref.alloc` of `function`."""
    block = function_body(function, "hip-hoist-alloc-size-arith")
    if block is None:
        return
    allocs = [op for op in block.ops if isinstance(op, memref.AllocOp) and op.memref.uses]
    if not allocs:
        return
    hoister = _Hoister(block, allocs[0])
    for alloc in allocs:
        for size in alloc.dynamic_sizes:
            hoister.hoist(size)


@dataclass(frozen=True)
class HoistAllocSizeArithPass(ModulePass):
    """Pure index arithmetic of allocation sizes -> above the function's first memref.alloc."""

    name = "hip-hoist-alloc-size-arith"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for function in [f for f in op.walk() if isinstance(f, func.FuncOp)]:
            hoist_sizes(function)
