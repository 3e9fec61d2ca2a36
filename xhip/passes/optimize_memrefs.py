"""hip-optimize-memrefs: later allocations take the buffers of dying ones.

Device work on one stream runs in program order, so once every use of a buffer
(through every view of it) is behind us, a later allocation can take its bytes.
Two modes (`reuse`):

`in-place` (the default pipeline's): an op's output takes the buffer of an input
that dies at that op, where the kernel may write over its input (the contract of
`xhip.analysis.in_place`: same type and extents, no host access). Only those
merges: they never lengthen a lifetime, so the planner (hip-pool-allocs) sees a
program whose max-live is the model's in-place bound, and does the rest of the
reuse itself. Merging any dead buffer instead ties same-type buffers of every
layer into one slot live across all of them, which the planner cannot undo.

`liveness` (the seed's pass, seed 003's pipeline): allocations are visited in
program order; one takes the slot of an earlier buffer whose last use comes
strictly before the new allocation:

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
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xhip.analysis.host_access import host_accessed_roots
from xhip.analysis.in_place import in_place_pairs
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


def _liveness_owners(block: Block, allocs: list[memref.AllocOp]) -> dict[memref.AllocOp, memref.AllocOp]:
    """The seed's reuse: each allocation takes the best-fitting slot that died before it."""
    intervals = live_intervals(block, [alloc.memref for alloc in allocs])
    slots: list[_Slot] = []
    owner_of: dict[memref.AllocOp, memref.AllocOp] = {}
    for alloc in allocs:
        interval = intervals[alloc.memref]
        slot = _best_slot(slots, alloc, interval.first)
        if slot is None:
            slots.append(_Slot(alloc, interval.last))
            continue
        slot.last_use = max(slot.last_use, interval.last)
        owner_of[alloc] = slot.owner
    return owner_of


def _same_extents(lhs: memref.AllocOp, rhs: memref.AllocOp) -> bool:
    pairs = zip(lhs.dynamic_sizes, rhs.dynamic_sizes, strict=True)
    return all(same_extent(a, b) for a, b in pairs)


def _in_place_owners(block: Block, allocs: list[memref.AllocOp]) -> dict[memref.AllocOp, memref.AllocOp]:
    """In-place writes only: an op's output takes the buffer of an input that dies at
    that op (`xhip.analysis.in_place`); chains of them share the first buffer."""
    alloc_of: dict[SSAValue, memref.AllocOp] = {alloc.memref: alloc for alloc in allocs}
    intervals = live_intervals(block, list(alloc_of))
    pairs = in_place_pairs(block, alloc_of, intervals, lambda a, b: _same_extents(alloc_of[a], alloc_of[b]))
    owner_of: dict[memref.AllocOp, memref.AllocOp] = {}
    for alloc in allocs:  # program order: an input's owner is known before its output's
        source = pairs.get(alloc.memref)
        if source is not None:
            source_alloc = alloc_of[source]
            owner_of[alloc] = owner_of.get(source_alloc, source_alloc)
    return owner_of


def _take_slot(alloc: memref.AllocOp, owner: memref.AllocOp) -> None:
    """Make `alloc`'s users read the owner's bytes, and drop `alloc`."""
    new_type, value = alloc.memref.type, owner.memref
    if new_type != owner.memref.type:
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


REUSE_MODES = {"liveness": _liveness_owners, "in-place": _in_place_owners}


def optimize(function: func.FuncOp, exclude_host_accessed: bool, reuse: str = "liveness") -> None:
    """Reuse dead buffers for later allocations in `function` (`reuse`: one of REUSE_MODES)."""
    block = function_body(function, "hip-optimize-memrefs")
    if block is None:
        return
    allocs = _candidates(block, exclude_host_accessed)
    # Deallocations are not uses: take them out, and put one back per slot at its end.
    freed = {alloc for alloc in allocs if erase_deallocs(alloc.memref)}
    owner_of = REUSE_MODES[reuse](block, allocs)
    for alloc, owner in owner_of.items():
        if alloc in freed:
            freed.add(owner)
        _take_slot(alloc, owner)
    _place_deallocs(block, [alloc for alloc in allocs if alloc not in owner_of and alloc in freed])


@dataclass(frozen=True)
class OptimizeMemrefsPass(ModulePass):
    """Later allocations reuse the buffers of dead earlier ones (liveness through views)."""

    name = "hip-optimize-memrefs"

    exclude_host_accessed: bool = True
    """Keep buffers that host code loads or stores out of reuse; false reproduces seed 004's race."""

    reuse: str = "liveness"
    """"liveness": any buffer dead before an allocation may be taken (the seed's pass);
    "in-place": only an input that dies at the op writing the allocation, when the
    op's kernel may alias (`xhip.analysis.in_place`); the rest is left to hip-pool-allocs."""

    def __post_init__(self):
        if self.reuse not in REUSE_MODES:
            raise ValueError(f"reuse must be one of {', '.join(map(repr, REUSE_MODES))}, not {self.reuse!r}")

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for function in [f for f in op.walk() if isinstance(f, func.FuncOp)]:
            optimize(function, self.exclude_host_accessed, self.reuse)
