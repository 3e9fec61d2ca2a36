"""The run-time planner: offsets for buffers whose sizes are known numbers.

A symbolic plan fixes one layout for every shape, and no single layout is tight at
every shape when the buffer that dominates changes with the dims (activations at
short sequences, attention scores at long ones). `plan_at_sizes` plans for the
sizes of one run instead; `hip.plan_pool` calls it at run time (once per distinct
set of sizes: the runtime caches the answer), and hip-pool-allocs calls it at
compile time for a domain whose sizes are all static.

Greedy: buffers one by one, each at the lowest aligned offset where it overlaps,
in bytes, no placed buffer that is live with it, in three orders (largest first;
those at the peak of live bytes first; longest-lived first), keeping the smallest
pool. Pure Python, no IR; `check_layout` and the sanitizer validate what it returns.
"""

from __future__ import annotations

from collections.abc import Sequence


def _place_in_order(
    footprints: Sequence[int], intervals: Sequence[tuple[int, int]], order: Sequence[int]
) -> tuple[list[int], int]:
    """Each buffer in `order` at the lowest offset clear of every placed buffer live with it."""
    offsets = [0] * len(footprints)
    placed: list[int] = []
    total = 0
    for index in order:
        first, last = intervals[index]
        # The byte ranges of placed buffers live with this one, sorted by start.
        busy = sorted(
            (offsets[other], offsets[other] + footprints[other])
            for other in placed
            if intervals[other][0] <= last and first <= intervals[other][1]
        )
        offset = 0
        for start, end in busy:
            if offset + footprints[index] <= start:
                break
            offset = max(offset, end)
        offsets[index] = offset
        placed.append(index)
        total = max(total, offset + footprints[index])
    return offsets, total


def _breadths(footprints: Sequence[int], intervals: Sequence[tuple[int, int]]) -> list[int]:
    """Per buffer, the most bytes live at any point of its interval (itself included)."""
    events: dict[int, int] = {}
    for footprint, (first, last) in zip(footprints, intervals):
        events[first] = events.get(first, 0) + footprint
        events[last + 1] = events.get(last + 1, 0) - footprint
    live, at = 0, {}
    for point in sorted(events):
        live += events[point]
        at[point] = live
    points = sorted(at)
    return [max(at[p] for p in points if first <= p <= last) for first, last in intervals]


def plan_at_sizes(
    sizes: Sequence[int], intervals: Sequence[tuple[int, int]], alignment: int
) -> tuple[list[int], int]:
    """Per buffer its byte offset, and the pool size: every offset a multiple of `alignment`.

    Three greedy orders, the smallest pool wins (ties: the first): by size; by
    breadth (buffers at the peak first); by interval length."""
    if len(sizes) != len(intervals):
        raise ValueError(f"{len(sizes)} sizes but {len(intervals)} intervals")
    footprints = [-(-size // alignment) * alignment for size in sizes]
    indices = range(len(sizes))
    breadths = _breadths(footprints, intervals) if sizes else []
    orders = (
        sorted(indices, key=lambda i: (-footprints[i], intervals[i][0], i)),
        sorted(indices, key=lambda i: (-breadths[i], -footprints[i], intervals[i][0], i)),
        sorted(indices, key=lambda i: (intervals[i][0] - intervals[i][1], -footprints[i], i)),
    )
    best: tuple[list[int], int] | None = None
    for order in orders:
        planned = _place_in_order(footprints, intervals, order)
        if best is None or planned[1] < best[1]:
            best = planned
    assert best is not None
    return best
