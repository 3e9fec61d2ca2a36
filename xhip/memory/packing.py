"""The building blocks the planners share.

- `best_fit`: constant sizes at constant offsets, each in the smallest gap left by
  the blocks it is live with (or on top of them);
- `Unit` and `color_slabs`: buffers (alone, or packed as a group or bin) assigned to
  slabs whose members are pairwise never live together, largest static factor
  first, as the seed does;
- `lifetime_layout`: the seed's default (PR 570) in that vocabulary: constant-size
  buffers best-fit packed into a static prefix, every runtime-sized buffer its own
  unit, slabs stacked above the prefix.
"""

from __future__ import annotations

import bisect
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

from xhip.memory.buffers import Buffer, Region
from xhip.memory.size_expr import SizeExpr


def align(value: int, alignment: int) -> int:
    return -(-value // alignment) * alignment


def best_fit(
    blocks: Iterable[tuple[Hashable, int, int, int]], alignment: int
) -> tuple[dict[Hashable, int], int]:
    """Offsets for `(key, size, first, last)` blocks of constant size, and the peak end.

    Largest first (ties in the given order, so offsets do not depend on a sort's
    whims); each goes into the smallest aligned gap between the blocks already placed
    that it is live with, or above the highest of them. Empty blocks take offset 0
    and no space.
    """
    listed = list(blocks)
    order = sorted(range(len(listed)), key=lambda i: -listed[i][1])
    placed: list[tuple[int, int, int, int]] = []  # offset, end, first, last
    offsets: dict[Hashable, int] = {}
    for index in order:
        key, size, first, last = listed[index]
        if size == 0:
            offsets[key] = 0
            continue
        need = align(size, alignment)
        busy = sorted((o, e) for o, e, live_from, live_to in placed if live_from <= last and first <= live_to)
        best: tuple[int, int] | None = None  # gap width, offset
        cursor = 0
        for offset, end in busy:
            gap = offset - cursor
            if gap >= need and (best is None or gap < best[0]):
                best = (gap, cursor)
            cursor = max(cursor, end)
        start = best[1] if best is not None else cursor
        offsets[key] = start
        placed.append((start, start + need, first, last))
    return offsets, max((end for _, end, _, _ in placed), default=0)


@dataclass(frozen=True)
class Unit:
    """What a slab holds: buffers at fixed offsets inside a footprint, with their lifetimes."""

    members: tuple[tuple[Buffer, SizeExpr], ...]  # buffer, offset inside the unit
    footprint: SizeExpr
    span: int  # the static factor of the footprint (c of c * dims): the order of coloring

    @staticmethod
    def single(buffer: Buffer, alignment: int) -> Unit:
        return Unit(((buffer, SizeExpr.const(0)),), buffer.footprint(alignment), buffer.size.static_factor)

    @cached_property
    def first(self) -> int:
        return min(buffer.first for buffer, _ in self.members)

    @cached_property
    def lifetime(self) -> list[tuple[int, int]]:
        """The points where some member is live, as sorted disjoint inclusive intervals."""
        merged: list[tuple[int, int]] = []
        for first, last in sorted((b.first, b.last) for b, _ in self.members):
            if merged and first <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], last))
            else:
                merged.append((first, last))
        return merged


class _Occupancy:
    """The points where some member of a slab is live: disjoint intervals, sorted."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []

    def is_free(self, first: int, last: int) -> bool:
        # the interval starting last at or before `last` is the only one that can reach it
        index = bisect.bisect_right(self.starts, last) - 1
        return index < 0 or self.ends[index] < first

    def add(self, first: int, last: int) -> None:
        index = bisect.bisect_right(self.starts, first)
        self.starts.insert(index, first)
        self.ends.insert(index, last)


def color_slabs(units: Sequence[Unit]) -> list[list[Unit]]:
    """Each unit into the first slab it conflicts with no member of.

    Largest static factor first, then in order of first use (the seed sorts by span
    only): big buffers open the slabs and smaller ones fill them where they fit, so
    slab members tend to have similar footprints.
    """
    slabs: list[tuple[list[Unit], _Occupancy]] = []
    for unit in sorted(units, key=lambda u: (-u.span, u.first)):  # stable: ties keep the given order
        slab = next((s for s in slabs if all(s[1].is_free(*interval) for interval in unit.lifetime)), None)
        if slab is None:
            slab = ([], _Occupancy())
            slabs.append(slab)
        slab[0].append(unit)
        for first, last in unit.lifetime:
            slab[1].add(first, last)
    return [members for members, _ in slabs]


def stack_slabs(
    slabs: Sequence[Sequence[Unit]],
    base: SizeExpr,
    offsets: dict[Hashable, SizeExpr],
    regions: list[Region],
) -> SizeExpr:
    """Place slabs one above the other from `base`; each is as wide as its widest unit.

    Footprints are aligned, so every slab width and every base stays aligned (a small
    buffer whose size is not a multiple of the alignment rounds its slab up). Returns
    the end of the last slab.
    """
    for slab in slabs:
        width = SizeExpr.max_of(unit.footprint for unit in slab)
        for unit in slab:
            for buffer, inner in unit.members:
                offsets[buffer.id] = base + inner
        regions.append(Region("slab", base, width, tuple(b.id for u in slab for b, _ in u.members)))
        base = base + width
    return base


def split_static(buffers: Iterable[Buffer]) -> tuple[list[Buffer], list[Buffer]]:
    """(buffers of constant size, runtime-sized buffers), each in the given order."""
    static: list[Buffer] = []
    dynamic: list[Buffer] = []
    for buffer in buffers:
        (static if buffer.static_size is not None else dynamic).append(buffer)
    return static, dynamic


def pack_static(
    static: Sequence[Buffer], alignment: int, offsets: dict[Hashable, SizeExpr], regions: list[Region]
) -> int:
    """Best-fit the constant-size buffers into a prefix at constant offsets; its size."""
    placed, peak = best_fit(((b.id, b.static_size or 0, b.first, b.last) for b in static), alignment)
    for key, offset in placed.items():
        offsets[key] = SizeExpr.const(offset)
    if static:
        regions.append(Region("static", SizeExpr.const(0), SizeExpr.const(peak), tuple(placed)))
    return peak


@dataclass(frozen=True)
class LifetimeLayout:
    """The seed's lifetime-only plan before it is turned into offsets."""

    static: list[Buffer]
    slabs: list[list[Unit]]
    alignment: int

    def place(self) -> tuple[dict[Hashable, SizeExpr], SizeExpr, list[Region], int]:
        """(offsets, total, regions, size of the static prefix)."""
        offsets: dict[Hashable, SizeExpr] = {}
        regions: list[Region] = []
        peak = pack_static(self.static, self.alignment, offsets, regions)
        total = stack_slabs(self.slabs, SizeExpr.const(peak), offsets, regions)
        return offsets, total, regions, peak

    def slab_index(self) -> dict[Hashable, int]:
        """The slab of every runtime-sized buffer."""
        return {b.id: i for i, slab in enumerate(self.slabs) for unit in slab for b, _ in unit.members}


def lifetime_layout(buffers: Sequence[Buffer], alignment: int) -> LifetimeLayout:
    static, dynamic = split_static(buffers)
    return LifetimeLayout(static, color_slabs([Unit.single(b, alignment) for b in dynamic]), alignment)
