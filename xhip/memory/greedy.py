"""The run-time planner: offsets for buffers whose sizes are known numbers.

A symbolic plan fixes one layout for every shape, and no single layout is tight at
every shape when the buffer that dominates changes with the dims (activations at
short sequences, attention scores at long ones). `plan_at_sizes` plans for the
sizes of one run instead; `hip.plan_pool` calls it at run time (once per distinct
set of sizes: the runtime caches the answer), and hip-pool-allocs calls it at
compile time for a domain whose sizes are all static.

Greedy: buffers one by one, each at the lowest aligned offset where it overlaps,
in bytes, no placed buffer that is live with it, in three orders (largest first;
those at the peak of live bytes first; longest-lived first). A greedy pool above
max-live is too high only because of the buffers that reach its top: each order is
tried again with those buffers moved to the front (where the buffers around them
make room for them instead of the other way round), round after round, while that
gives orders not tried yet. The smallest pool wins; max-live (the most bytes live
at one point) is a floor no plan goes below, so the search ends when a plan reaches
it. Pure Python, no IR, deterministic; `check_layout` and the sanitizer validate
what it returns. `PoolPlanner` is the runtime's form: the same plans at new sizes,
with what does not depend on the sizes worked out once.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import islice

from xhip.memory.packing import align

PROMOTION_ROUNDS = 150
"""At most this many re-plans with top buffers in front, the orders taking turns (T5-small
at 1x64 and 1x129 reaches max-live in the longest-lived order's second: the sixth in all)."""

PROMOTION_WORK = 500_000
"""At most this many (buffer, live neighbour) visits in all promotion rounds of one plan:
a round visits every buffer and each of its neighbours once, so dense lifetimes get
fewer rounds and a plan stays well under 0.2 s in CPython even when no round reaches
max-live (600 random buffers, each live with 130 others: about 60 ms)."""

Plan = tuple[list[int], int]
"""Per buffer its offset, and the pool size."""


def _live_with(intervals: Sequence[tuple[int, int]]) -> list[list[int]]:
    """Per buffer, the other buffers live at some point of its interval."""
    by_start = sorted(range(len(intervals)), key=lambda i: intervals[i])
    neighbours: list[list[int]] = [[] for _ in intervals]
    open_: list[int] = []  # buffers started so far, still live at the current start
    for index in by_start:
        first = intervals[index][0]
        open_ = [other for other in open_ if intervals[other][1] >= first]
        for other in open_:
            neighbours[index].append(other)
            neighbours[other].append(index)
        open_.append(index)
    return neighbours


def _place_in_order(footprints: Sequence[int], live_with: Sequence[Sequence[int]], order: Sequence[int]) -> Plan:
    """Each buffer in `order` at the lowest offset clear of every placed buffer live with it."""
    return _place_after(footprints, order, _placed_before(live_with, order))


def _promotions(
    footprints: Sequence[int], live_with: Sequence[Sequence[int]], order: Sequence[int], plan: Plan
) -> Iterator[tuple[Plan, list[int]]]:
    """Plans of `order` (whose plan is `plan`) with the buffers that reach the previous
    plan's top moved to the front, round after round, while those orders are new."""
    tried = {tuple(order)}
    current = list(order)
    while True:
        offsets, total = plan
        top = [i for i in current if offsets[i] + footprints[i] == total]
        on_top = set(top)
        current = top + [i for i in current if i not in on_top]
        if tuple(current) in tried:
            return
        tried.add(tuple(current))
        plan = _place_in_order(footprints, live_with, current)
        yield plan, list(current)


def _round_robin(searches: Sequence[Iterator[tuple[Plan, list[int]]]]) -> Iterator[tuple[Plan, list[int]]]:
    """One plan of each search in turn, so that the search that reaches max-live soonest ends all."""
    running = list(searches)
    while running:
        for search in list(running):
            plan = next(search, None)
            if plan is None:
                running.remove(search)
            else:
                yield plan


def _breadths(footprints: Sequence[int], intervals: Sequence[tuple[int, int]]) -> list[int]:
    """Per buffer, the most bytes live at any point of its interval (itself included)."""
    events: dict[int, int] = {}
    for footprint, (first, last) in zip(footprints, intervals):
        events[first] = events.get(first, 0) + footprint
        events[last + 1] = events.get(last + 1, 0) - footprint
    points = sorted(events)
    live, at = 0, []
    for point in points:
        live += events[point]
        at.append(live)
    # Live bytes change only at event points, and every interval starts at one.
    position = {point: k for k, point in enumerate(points)}
    return [max(at[position[first] : position[last + 1]]) for first, last in intervals]


def plan_at_sizes(sizes: Sequence[int], intervals: Sequence[tuple[int, int]], alignment: int) -> Plan:
    """Per buffer its byte offset, and the pool size: every offset a multiple of `alignment`.

    Three greedy orders, each also with its top buffers promoted (see the module
    docstring); the smallest pool wins (ties: the first): by size; by breadth
    (buffers at the peak first); by interval length."""
    if len(sizes) != len(intervals):
        raise ValueError(f"{len(sizes)} sizes but {len(intervals)} intervals")
    if not sizes:
        return [], 0
    footprints = [align(size, alignment) for size in sizes]
    breadths = _breadths(footprints, intervals)
    return _search(footprints, intervals, _live_with(intervals), breadths)[0]


class PoolPlanner:
    """`plan_at_sizes` for one set of intervals, planned again and again at new sizes (the
    runtime's `hip.plan_pool`): who is live with whom is worked out once, and the order of
    the last plans that reached max-live is tried first at new sizes. When it reaches
    max-live again the plan is as small as any (max-live is the floor), found with one
    greedy pass instead of the search; otherwise the search runs as `plan_at_sizes` does."""

    REMEMBERED = 2
    """Winning orders kept (the most recent first)."""

    def __init__(self, intervals: Sequence[tuple[int, int]], alignment: int):
        self._intervals = list(intervals)
        self._alignment = alignment
        self._live_with = _live_with(self._intervals)
        self._orders: list[tuple[list[int], list[list[int]]]] = []
        """Winning orders, each with every buffer's live neighbours placed before it."""
        points = sorted({p for first, last in self._intervals for p in (first, last + 1)})
        at = {point: k for k, point in enumerate(points)}
        self._events = [(at[first], at[last + 1]) for first, last in self._intervals]
        """Per buffer, where its interval starts and ends among the sorted event points."""

    def plan(self, sizes: Sequence[int]) -> Plan:
        if len(sizes) != len(self._intervals):
            raise ValueError(f"{len(sizes)} sizes but {len(self._intervals)} intervals")
        if not sizes:
            return [], 0
        footprints = [align(size, self._alignment) for size in sizes]
        if self._orders:
            max_live = self._max_live(footprints)
            for order, earlier in self._orders:
                plan = _place_after(footprints, order, earlier)
                if plan[1] <= max_live:
                    return plan
        breadths = _breadths(footprints, self._intervals)
        max_live = max(breadths)
        plan, order = _search(footprints, self._intervals, self._live_with, breadths)
        if plan[1] <= max_live:
            self._orders = [(order, _placed_before(self._live_with, order)), *self._orders][: self.REMEMBERED]
        return plan


    def _max_live(self, footprints: Sequence[int]) -> int:
        """The most bytes live at one point (what `_breadths` gives as its max), by one sweep
        over event points whose order the intervals fix."""
        deltas = [0] * (len(self._events) * 2 + 1)
        for footprint, (start, end) in zip(footprints, self._events):
            deltas[start] += footprint
            deltas[end] -= footprint
        live = best = 0
        for delta in deltas:
            live += delta
            if live > best:
                best = live
        return best


def _placed_before(live_with: Sequence[Sequence[int]], order: Sequence[int]) -> list[list[int]]:
    """Per buffer, its live neighbours that `order` places before it (sizes do not change it)."""
    position = {index: rank for rank, index in enumerate(order)}
    return [[other for other in live_with[index] if position[other] < position[index]] for index in range(len(order))]


def _place_after(footprints: Sequence[int], order: Sequence[int], earlier: Sequence[Sequence[int]]) -> Plan:
    """Each buffer in `order` at the lowest offset clear of its `earlier` neighbours (the live
    ones placed before it), those taken from the lowest offset up."""
    offsets = [0] * len(footprints)
    total = 0
    for index in order:
        footprint = footprints[index]
        offset = 0
        for other in sorted(earlier[index], key=offsets.__getitem__):
            start = offsets[other]
            if offset + footprint <= start:
                break
            end = start + footprints[other]
            if end > offset:
                offset = end
        offsets[index] = offset
        if offset + footprint > total:
            total = offset + footprint
    return offsets, total


def _search(
    footprints: Sequence[int], intervals: Sequence[tuple[int, int]], live_with: Sequence[Sequence[int]], breadths: Sequence[int]
) -> tuple[Plan, list[int]]:
    """The best plan of the three orders and their promotions, and its order."""
    max_live = max(breadths)
    indices = range(len(footprints))
    keys = (
        lambda i: (-footprints[i], intervals[i][0], i),
        lambda i: (-breadths[i], -footprints[i], intervals[i][0], i),
        lambda i: (intervals[i][0] - intervals[i][1], -footprints[i], i),
    )
    orders: list[list[int]] = []
    plans: list[Plan] = []
    for key in keys:
        order = sorted(indices, key=key)
        plan = _place_in_order(footprints, live_with, order)
        if plan[1] <= max_live:  # the floor: no later order does better (and ties go to the first)
            return plan, order
        orders.append(order)
        plans.append(plan)
    best_index = min(range(len(plans)), key=lambda i: plans[i][1])
    best, best_order = plans[best_index], list(orders[best_index])
    rounds = min(PROMOTION_ROUNDS, PROMOTION_WORK // (len(footprints) + sum(map(len, live_with))))
    searches = [_promotions(footprints, live_with, order, plan) for order, plan in zip(orders, plans)]
    for plan, order in islice(_round_robin(searches), rounds):
        if plan[1] < best[1]:
            best, best_order = plan, order
            if best[1] <= max_live:
                break
    return best, best_order
