"""Pool planners: where each buffer of a domain goes, as symbolic offsets.

All four answer the same question for the same input and differ only in how much
reuse they find (`hip-pool-allocs {planner = ...}` picks one; the reports compare
them with `xhip.memory.layout.lower_bound`):

- `stacked`: no reuse, every buffer above the previous one (the baseline);
- `grouped`: the seed's `lifetime-only=false`;
- `lifetime-only`: the seed's default since PR 570;
- `tree`: temporal and spatial splits (xhip/memory/tree.py), never above
  `lifetime-only`.

Every footprint is the buffer's size rounded up to the alignment, so every offset
is a multiple of it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable

from xhip.memory.buffers import Buffer, Placement, Region, checked_buffers
from xhip.memory.packing import (
    Unit,
    best_fit,
    color_slabs,
    lifetime_layout,
    pack_static,
    split_static,
    stack_slabs,
)
from xhip.memory.size_expr import SizeExpr
from xhip.memory.tree import plan_tree


def plan_stacked(buffers: Iterable[Buffer], alignment: int) -> Placement:
    """No reuse: each buffer starts where the previous one's footprint ends."""
    offsets: dict[Hashable, SizeExpr] = {}
    regions: list[Region] = []
    base = SizeExpr.const(0)
    for buffer in checked_buffers(buffers, alignment):
        width = buffer.footprint(alignment)
        offsets[buffer.id] = base
        regions.append(Region("stack", base, width, (buffer.id,)))
        base = base + width
    return Placement(offsets, base, regions)


def plan_lifetime_only(buffers: Iterable[Buffer], alignment: int) -> Placement:
    """The seed's default (PR 570).

    Constant-size buffers are best-fit packed into a prefix at constant offsets. Every
    runtime-sized buffer is its own group and goes (largest static factor first, then
    in order of first use) into the first slab whose members are all never live with
    it, whatever their dims; a slab is as wide as the runtime max of its members'
    footprints, and slabs are stacked above the prefix.
    """
    listed = checked_buffers(buffers, alignment)
    offsets, total, regions, _ = lifetime_layout(listed, alignment).place()
    return Placement(offsets, total, regions)


def plan_grouped(buffers: Iterable[Buffer], alignment: int) -> Placement:
    """The seed's `lifetime-only=false`.

    Runtime-sized buffers of size `c * F` with the same group key and product of dims
    `F`, and `c` a multiple of the alignment, form one group: their static factors
    `c` are best-fit packed in units of `F`, so the group is `span * F` wide. Others
    go to per-size bins (same group key and same size) of buffers never live
    together, each bin one aligned footprint wide. Groups and bins are then assigned
    to slabs like single buffers in `lifetime-only`, above the static prefix.
    """
    listed = checked_buffers(buffers, alignment)
    static, dynamic = split_static(listed)
    groups: dict[tuple[Hashable | None, SizeExpr], list[tuple[Buffer, int]]] = defaultdict(list)
    binned: dict[tuple[Hashable | None, SizeExpr], list[Buffer]] = defaultdict(list)
    for buffer in dynamic:
        scaled = buffer.size.as_scaled_product()
        if scaled is not None and scaled[0] % alignment == 0:
            groups[(buffer.group, scaled[1])].append((buffer, scaled[0]))
        else:
            binned[(buffer.group, buffer.size)].append(buffer)
    units = [_group_unit(members, factor, alignment) for (_, factor), members in groups.items()]
    for members in binned.values():
        units += _bins(members, alignment)
    offsets: dict[Hashable, SizeExpr] = {}
    regions: list[Region] = []
    peak = pack_static(static, alignment, offsets, regions)
    total = stack_slabs(color_slabs(units), SizeExpr.const(peak), offsets, regions)
    return Placement(offsets, total, regions)


def _group_unit(members: list[tuple[Buffer, int]], factor: SizeExpr, alignment: int) -> Unit:
    """Members of one group best-fit packed by static factor, in units of `factor`."""
    placed, span = best_fit(((b.id, c, b.first, b.last) for b, c in members), alignment)
    return Unit(tuple((b, factor * placed[b.id]) for b, _ in members), factor * span, span)


def _bins(members: list[Buffer], alignment: int) -> list[Unit]:
    """Buffers of one size, first-fit into bins whose members are never live together."""
    slabs = color_slabs([Unit.single(b, alignment) for b in members])
    return [
        Unit(tuple(m for unit in slab for m in unit.members), slab[0].footprint, slab[0].span) for slab in slabs
    ]


Planner = Callable[[Iterable[Buffer], int], Placement]

PLANNERS: dict[str, Planner] = {
    "stacked": plan_stacked,
    "grouped": plan_grouped,
    "lifetime-only": plan_lifetime_only,
    "tree": plan_tree,
}
