"""The run-time planner: offsets for buffers whose sizes are known numbers.

A symbolic plan fixes one layout for every shape, and no single layout is tight at
every shape when the buffer that dominates changes with the dims (activations at
short sequences, attention scores at long ones). `plan_at_sizes` plans for the
sizes of one run instead; `hip.plan_pool` calls it at run time (once per distinct
set of sizes: the runtime caches the answer), and hip-pool-allocs calls it at
compile time for a domain whose sizes are all static.

Greedy by size: the largest footprint first, each at the lowest aligned offset
where it overlaps, in bytes, no placed buffer that is live with it. Pure Python,
no IR; `check_layout` and the sanitizer validate what it returns.
"""

from __future__ import annotations

from collections.abc import Sequence


def plan_at_sizes(
    sizes: Sequence[int], intervals: Sequence[tuple[int, int]], alignment: int
) -> tuple[list[int], int]:
    """Per buffer its byte offset, and the pool size: every offset a multiple of `alignment`."""
    if len(sizes) != len(intervals):
        raise ValueError(f"{len(sizes)} sizes but {len(intervals)} intervals")
    footprints = [-(-size // alignment) * alignment for size in sizes]
    order = sorted(range(len(sizes)), key=lambda i: (-footprints[i], intervals[i][0], i))
    offsets = [0] * len(sizes)
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
