"""Checks of a placement at concrete dims, and the max-live lower bound reports divide by."""

from __future__ import annotations

from collections.abc import Iterable

from xhip.memory.buffers import Buffer, Placement, check_alignment
from xhip.memory.size_expr import DimValues, SizeExpr


def check_layout(
    buffers: Iterable[Buffer], placement: Placement, dims: DimValues, alignment: int
) -> list[str]:
    """What is wrong with `placement` at `dims` (an empty list when it is valid).

    Valid means: every buffer has an offset, every offset is a multiple of
    `alignment`, every buffer lies inside the pool, and no two buffers that are live
    at the same program point share a byte.
    """
    check_alignment(alignment)
    listed = list(buffers)
    unknown = placement.offsets.keys() - {b.id for b in listed}
    problems = [f"offset for unknown buffer {key!r}" for key in unknown]
    total = placement.total.evaluate(dims)
    extents: list[tuple[Buffer, int, int]] = []  # buffer, start, end
    for buffer in listed:
        offset = placement.offsets.get(buffer.id)
        if offset is None:
            problems.append(f"buffer {buffer.id!r} has no offset")
            continue
        start = offset.evaluate(dims)
        end = start + buffer.size.evaluate(dims)
        if start % alignment:
            problems.append(f"buffer {buffer.id!r} at offset {start} is not aligned to {alignment}")
        if end > total:
            problems.append(f"buffer {buffer.id!r} ends at {end}, past the pool size {total}")
        extents.append((buffer, start, end))
    for index, (a, a_start, a_end) in enumerate(extents):
        for b, b_start, b_end in extents[index + 1 :]:
            if a.overlaps(b) and a_start < b_end and b_start < a_end:
                problems.append(
                    f"buffers {a.id!r} [{a_start}, {a_end}) and {b.id!r} [{b_start}, {b_end}) "
                    f"are live together at points {max(a.first, b.first)}..{min(a.last, b.last)} and overlap"
                )
    return problems


def lower_bound(buffers: Iterable[Buffer], dims: DimValues, alignment: int) -> int:
    """The largest sum of aligned sizes live at one program point (no plan can do better)."""
    check_alignment(alignment)
    events: list[tuple[int, int]] = []
    for buffer in buffers:
        size = buffer.footprint(alignment).evaluate(dims)
        events += [(buffer.first, size), (buffer.last + 1, -size)]
    live = best = 0
    for _, delta in sorted(events):  # at one point, ends (negative) come before starts
        live += delta
        best = max(best, live)
    return best


def lower_bound_expr(buffers: Iterable[Buffer], alignment: int) -> SizeExpr:
    """`lower_bound` for every dims at once: the max over program points of the live sum.

    Only points where a buffer starts can hold the most, and a point whose live set is
    contained in another's adds nothing to the max.
    """
    check_alignment(alignment)
    listed = list(buffers)
    live_sets = {
        frozenset(b.id for b in listed if b.first <= point <= b.last) for point in {b.first for b in listed}
    }
    maximal = [s for s in live_sets if not any(s < other for other in live_sets)]
    footprint = {b.id: b.footprint(alignment) for b in listed}
    sums = [sum((footprint[key] for key in live), SizeExpr.const(0)) for live in maximal]
    ordered = sorted(sums, key=lambda e: e.order)
    return SizeExpr.max_of(ordered)
