"""hip-optimize-memrefs: in-place reuse of dead buffers (liveness-based).

Device work on one stream runs in program order, so once every use of a buffer
(through every view of it) is behind us, a later allocation can take its bytes.
Allocations are visited in program order; one takes the slot of an earlier buffer
whose last use comes strictly before the new allocation:

- static shapes: the same element type and memory space, enough bytes, the best
  fit (least waste). A different shape reads the slot through a
  `memref.reinterpret_cast` (offset 0, contiguous strides);
- dynamic shapes: the same memref type and the same extents (the same SSA values,
  seen through `memref.dim`s and constants: `xhip.analysis.memref_extents`).
  The allocation is then the slot's buffer itself.

Static and dynamic never mix. Never taking part: buffers that host code loads or
stores, directly or through a view, when `exclude-host-accessed` is set (the
default; a host store happens at once, the kernel before it may not have run yet,
seed 004; false reproduces that race on purpose); buffers that escape what
liveness sees (`xhip.passes.contracts.escapes`: returned or yielded, or turned
into a value that liveness does not follow as a view; a use inside a region
counts at the op holding it); graph outputs (`hip.alloc_output`) and
function arguments, which are not `memref.alloc`s. Deallocations of the buffers
that take part are placed again right after the last use of their slot.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin, func, memref
from xdsl.dialects.builtin import MemRefType, NoneAttr
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xhip.analysis.host_access import host_accessed_roots
from xhip.analysis.liveness import live_intervals
from xhip.analysis.memref_extents import same_extent
from xhip.passes.contracts import erase_deallocs, escapes, function_body


def _contiguous_strides(shape: tuple[int, ...]) -> list[int]:
    strides, step = [], 1
    for extent in reversed(shape):
        strides.append(step)
        step *= extent
    return strides[::-1]


@dataclass
class _Slot:
    """Bytes owned by one allocation, reused by later ones."""

    owner: memref.AllocOp
    last_use: int

    @property
    def type(self) -> MemRefType:
        return self.owner.memref.type

    def waste_for(self, alloc: memref.AllocOp) -> int | None:
        """Elements left over if `alloc` takes this slot, None if it cannot."""
        mine, theirs = self.type, alloc.memref.type
        if mine.element_type != theirs.element_type or mine.memory_space != theirs.memory_space:
            return None
        if mine.has_static_shape() and theirs.has_static_shape():
            # One element type, so elements compare like bytes.
            spare = mine.element_count() - theirs.element_count()
            return spare if spare >= 0 and isinstance(theirs.layout, NoneAttr) else None
        if mine != theirs or len(self.owner.dynamic_sizes) != len(alloc.dynamic_sizes):
            return None
        pairs = zip(self.owner.dynamic_sizes, alloc.dynamic_sizes)
        return 0 if all(same_extent(a, b) for a, b in pairs) else None


def _best_slot(slots: list[_Slot], alloc: memref.AllocOp, first_use: int) -> _Slot | None:
    best, best_waste = None, None
    for slot in slots:
        if slot.last_use >= first_use:
            continue
        waste = slot.waste_for(alloc)
        if waste is not None and (best_waste is None or waste < best_waste):
            best, best_waste = slot, waste
            if waste == 0:
                break
    return best


def _take_slot(alloc: memref.AllocOp, slot: _Slot) -> None:
    """Make `alloc`'s users read the slot's bytes, and drop `alloc`."""
    new_type, value = alloc.memref.type, slot.owner.memref
    if new_type != slot.type:
        shape = new_type.get_shape()
        cast = memref.ReinterpretCastOp.from_dynamic(value, [0], list(shape), _contiguous_strides(shape), new_type)
        cast.result.name_hint = alloc.memref.name_hint
        Rewriter.insert_op(cast, InsertPoint.before(alloc))
        value = cast.result
    alloc.memref.replace_all_uses_with(value)
    Rewriter.erase_op(alloc)


def _candidates(block: Block, exclude_host_accessed: bool) -> list[memref.AllocOp]:
    excluded = host_accessed_roots(block) if exclude_host_accessed else set()
    return [
        op
        for op in block.ops
        if isinstance(op, memref.AllocOp)
        and op.memref.uses
        and op.memref not in excluded
        and not escapes(op.memref)
    ]


def _place_deallocs(block: Block, owners: list[memref.AllocOp]) -> None:
    """One `memref.dealloc` per buffer, right after the last use of any of its views."""
    if not owners:
        return
    intervals = live_intervals(block, [owner.memref for owner in owners])
    ops = list(block.ops)
    for owner in owners:
        last: Operation = ops[intervals[owner.memref].last]
        Rewriter.insert_op(memref.DeallocOp.get(owner.memref), InsertPoint.after(last))


def optimize(function: func.FuncOp, exclude_host_accessed: bool) -> None:
    """Reuse dead buffers for later allocations in `function`."""
    block = function_body(function, "hip-optimize-memrefs")
    if block is None:
        return
    allocs = _candidates(block, exclude_host_accessed)
    # Deallocations are not uses: take them out, and put one back per slot at its end.
    freed = {alloc for alloc in allocs if erase_deallocs(alloc.memref)}
    intervals = live_intervals(block, [alloc.memref for alloc in allocs])
    slots: list[_Slot] = []
    owner_of: dict[memref.AllocOp, _Slot] = {}
    for alloc in allocs:
        interval = intervals[alloc.memref]
        slot = _best_slot(slots, alloc, interval.first)
        if slot is None:
            slots.append(_Slot(alloc, interval.last))
            continue
        slot.last_use = max(slot.last_use, interval.last)
        owner_of[alloc] = slot
    for alloc, slot in owner_of.items():
        if alloc in freed:
            freed.add(slot.owner)
        _take_slot(alloc, slot)
    _place_deallocs(block, [slot.owner for slot in slots if slot.owner in freed])


@dataclass(frozen=True)
class OptimizeMemrefsPass(ModulePass):
    """Later allocations reuse the buffers of dead earlier ones (liveness through views)."""

    name = "hip-optimize-memrefs"

    exclude_host_accessed: bool = True
    """Keep buffers that host code loads or stores out of reuse; false reproduces seed 004's race."""

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for function in [f for f in op.walk() if isinstance(f, func.FuncOp)]:
            optimize(function, self.exclude_host_accessed)
