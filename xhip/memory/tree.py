"""The `tree` planner: temporal and spatial splits, never above `lifetime-only`.

The layout is a tree. A *phases* node puts its children at the same offset: they
are never live together (a program point separates them), so the node is as wide
as the widest child, a symbolic `max`. A *stack* node puts its children one above
the other, so it is as wide as their sum. Leaves are buffers.

How the tree is built, for a set of buffers:

1. if some program point separates them, one phase per part (no loss: the max-live
   lower bound of the set is the max of the parts');
2. else, buffers live over the whole span go to the bottom (no loss either: they
   are live at every point, so they add to the lower bound everywhere);
3. else, one *class* goes to the bottom and the rest above it, and both are built
   the same way. A class is one `lifetime-only` slab's members within the set
   (pairwise never live together, so the class becomes phases), or one
   constant-size buffer. The chosen class is the one that leaves the least for the
   rest: its width plus the rest's max-live lower bound, summed over sample dims
   relative to the set's lower bound (a heuristic: any choice is valid).

Why it is never above `lifetime-only` (LO = static prefix C + sum of slab widths):
the tree's size at given dims is the max, over ways to pick one child at every
phases node, of the footprints picked. Two buffers picked together meet at a stack
node, and no stack node separates two members of one LO slab (step 2: a buffer
live over the whole span overlaps all others, so its slab has no other member in
the set; step 3: a class is a whole slab's share of the set). So the runtime-sized
buffers picked are in distinct slabs and sum to at most the slab widths (this
holds for any partition into slabs, whatever order LO colors in). The constant-size
ones picked sum to at most the tree's `static_max`, so a tree is a candidate only
when that is at most C. The trees that put the constant-size buffers of each phase
of the whole set in a best-fit prefix always are: best fit places the buffers of
one phase exactly as it does in the whole set.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from xhip.memory.buffers import Buffer, Placement, Region, checked_buffers
from xhip.memory.packing import LifetimeLayout, lifetime_layout, split_static
from xhip.memory.size_expr import SizeExpr

SAMPLE_DIMS = (1, 16, 128, 1024)
"""Values every runtime dim takes in turn when the heuristic compares choices."""


@dataclass(frozen=True)
class _Node(ABC):
    total: SizeExpr
    static_max: int  # the most bytes of constant-size buffers that one pick can hold
    has_dynamic: bool

    @abstractmethod
    def place(self, base: SizeExpr, offsets: dict[Hashable, SizeExpr]) -> None:
        """Record the offset of every buffer of the subtree, which starts at `base`."""

    @abstractmethod
    def members(self) -> tuple[Hashable, ...]:
        """The ids of the buffers of the subtree."""


@dataclass(frozen=True)
class _Leaf(_Node):
    buffer: Buffer

    def place(self, base: SizeExpr, offsets: dict[Hashable, SizeExpr]) -> None:
        offsets[self.buffer.id] = base

    def members(self) -> tuple[Hashable, ...]:
        return (self.buffer.id,)


@dataclass(frozen=True)
class _StaticPrefix(_Node):
    """Constant-size buffers best-fit packed at constant offsets (as `lifetime-only` does)."""

    offsets: dict[Hashable, SizeExpr]

    def place(self, base: SizeExpr, offsets: dict[Hashable, SizeExpr]) -> None:
        for key, offset in self.offsets.items():
            offsets[key] = base + offset

    def members(self) -> tuple[Hashable, ...]:
        return tuple(self.offsets)


@dataclass(frozen=True)
class _Phases(_Node):
    children: tuple[_Node, ...]

    def place(self, base: SizeExpr, offsets: dict[Hashable, SizeExpr]) -> None:
        for child in self.children:
            child.place(base, offsets)

    def members(self) -> tuple[Hashable, ...]:
        return tuple(m for child in self.children for m in child.members())


@dataclass(frozen=True)
class _Stack(_Node):
    children: tuple[_Node, ...]

    def place(self, base: SizeExpr, offsets: dict[Hashable, SizeExpr]) -> None:
        for child in self.children:
            child.place(base, offsets)
            base = base + child.total

    def members(self) -> tuple[Hashable, ...]:
        return tuple(m for child in self.children for m in child.members())


def _leaf(buffer: Buffer, alignment: int) -> _Node:
    footprint = buffer.footprint(alignment)
    return _Leaf(footprint, footprint.static_value or 0, buffer.static_size is None, buffer)


def _phases(children: Sequence[_Node]) -> _Node:
    return _Phases(
        SizeExpr.max_of(c.total for c in children),
        max(c.static_max for c in children),
        any(c.has_dynamic for c in children),
        tuple(children),
    )


def _stack(children: Sequence[_Node]) -> _Node:
    # constant-size content at the bottom keeps constant offsets; the total is the same
    ordered = sorted(children, key=lambda c: c.has_dynamic)
    if len(ordered) == 1:
        return ordered[0]
    return _Stack(
        sum((c.total for c in ordered), SizeExpr.const(0)),
        sum(c.static_max for c in ordered),
        any(c.has_dynamic for c in ordered),
        tuple(ordered),
    )


def phases_of(buffers: Sequence[Buffer]) -> list[list[Buffer]]:
    """`buffers` cut at every program point that no live interval crosses, in order."""
    parts: list[list[Buffer]] = []
    end = None
    for buffer in sorted(buffers, key=lambda b: (b.first, b.last)):
        if end is None or buffer.first > end:
            parts.append([])
            end = buffer.last
        parts[-1].append(buffer)
        end = max(end, buffer.last)
    return parts


class _Samples:
    """Footprints at sample dims, to compare choices that symbolic sizes cannot order."""

    def __init__(self, buffers: Sequence[Buffer], alignment: int):
        keys = frozenset().union(*(b.size.dims for b in buffers))
        self.envs = [dict.fromkeys(keys, value) for value in SAMPLE_DIMS]
        self.row = {b.id: i for i, b in enumerate(buffers)}
        self.first = np.array([b.first for b in buffers])
        self.last = np.array([b.last for b in buffers])
        self.footprint = np.array(
            [[float(b.footprint(alignment).evaluate(env)) for env in self.envs] for b in buffers]
        ).reshape(len(buffers), len(self.envs))

    def rows(self, buffers: Iterable[Buffer]) -> np.ndarray:
        return np.array([self.row[b.id] for b in buffers], dtype=int)

    def peak(self, rows: np.ndarray) -> np.ndarray:
        """The max-live lower bound of the buffers in `rows` at each sample (an event sweep)."""
        if rows.size == 0:
            return np.zeros(len(self.envs))
        points = np.concatenate([self.first[rows], self.last[rows] + 1])
        is_start = np.concatenate([np.ones(rows.size), np.zeros(rows.size)])
        deltas = np.concatenate([self.footprint[rows], -self.footprint[rows]])
        order = np.lexsort((is_start, points))  # at one point, ends before starts
        return np.cumsum(deltas[order], axis=0).max(axis=0)

    def width(self, rows: np.ndarray) -> np.ndarray:
        return self.footprint[rows].max(axis=0)

    def ratio(self, sizes: np.ndarray, bound: np.ndarray) -> float:
        return float((sizes / np.maximum(bound, 1.0)).sum())

    def evaluate(self, size: SizeExpr) -> np.ndarray:
        return np.array([float(size.evaluate(env)) for env in self.envs])


def _without(buffers: Sequence[Buffer], removed: Sequence[Buffer]) -> list[Buffer]:
    ids = {b.id for b in removed}
    return [b for b in buffers if b.id not in ids]


class _TreeBuilder:
    def __init__(self, layout: LifetimeLayout, samples: _Samples):
        self.alignment = layout.alignment
        self.slab_of = layout.slab_index()
        self.samples = samples

    def build(self, buffers: Sequence[Buffer]) -> _Node:
        """The tree of a non-empty set: a stack of what steps 2 and 3 put at the bottom,
        under the phases (step 1) or the single buffer that is left (a loop, so a long
        chain of steps does not nest calls)."""
        bottom: list[_Node] = []
        rest = list(buffers)
        while rest:
            parts = phases_of(rest)
            if len(parts) > 1:
                bottom.append(_phases([self.build(part) for part in parts]))
                break
            if len(rest) == 1:
                bottom.append(_leaf(rest[0], self.alignment))
                break
            start = min(b.first for b in rest)
            end = max(b.last for b in rest)
            spanning = [b for b in rest if b.first == start and b.last == end]
            if spanning:
                bottom += [_leaf(b, self.alignment) for b in spanning]
                rest = _without(rest, spanning)
                continue
            chosen = self._bottom_class(rest)
            bottom.append(self.build(chosen))  # never live together: phases of leaves
            rest = _without(rest, chosen)
        return _stack(bottom)

    def _bottom_class(self, buffers: Sequence[Buffer]) -> list[Buffer]:
        classes: dict[Hashable, list[Buffer]] = {}
        for buffer in sorted(buffers, key=lambda b: b.first):
            key = ("slab", self.slab_of[buffer.id]) if buffer.id in self.slab_of else ("static", buffer.id)
            classes.setdefault(key, []).append(buffer)
        samples = self.samples
        rows = samples.rows(buffers)
        bound = samples.peak(rows)

        def cost(members: list[Buffer]) -> float:
            bottom = samples.rows(members)
            rest = rows[~np.isin(rows, bottom)]
            return samples.ratio(samples.width(bottom) + samples.peak(rest), bound)

        return min(classes.values(), key=cost)  # ties: the class used first

    def with_static_prefix(self, buffers: Sequence[Buffer]) -> _Node:
        """The constant-size buffers best-fit packed at the bottom, a tree of the others above.

        Best fit places the buffers of one phase exactly as it does within the whole
        set (they only meet each other), so the prefix is never above LO's.
        """
        static, dynamic = split_static(buffers)
        offsets, _, _, peak = LifetimeLayout(static, [], self.alignment).place()
        children = [_StaticPrefix(SizeExpr.const(peak), peak, False, offsets)]
        return _stack([*children, self.build(dynamic)] if dynamic else children)


def plan_tree(buffers: Iterable[Buffer], alignment: int) -> Placement:
    """Temporal and spatial splits with symbolic max (see the module docstring).

    Three trees compete, all within `lifetime-only` at every dims: constant-size
    buffers as leaves like the others; a best-fit static prefix at the bottom of
    each phase of the whole set; one static prefix under everything (LO's own).
    The first is kept only if its constant-size picks fit in LO's prefix; the
    smallest over the sample dims wins.
    """
    listed = checked_buffers(buffers, alignment)
    if not listed:
        return Placement({}, SizeExpr.const(0), [])
    layout = lifetime_layout(listed, alignment)
    _, _, _, prefix = layout.place()
    samples = _Samples(listed, alignment)
    builder = _TreeBuilder(layout, samples)
    candidates = [builder.build(listed)]
    if any(b.static_size is not None for b in listed):
        parts = phases_of(listed)
        if len(parts) > 1:
            candidates.append(_phases([builder.with_static_prefix(part) for part in parts]))
        candidates.append(builder.with_static_prefix(listed))
    # without constant-size buffers the first qualifies (static_max 0); with them the
    # last does (its prefix is LO's own)
    candidates = [node for node in candidates if node.static_max <= prefix]
    bound = samples.peak(samples.rows(listed))
    root = min(candidates, key=lambda node: samples.ratio(samples.evaluate(node.total), bound))
    offsets: dict[Hashable, SizeExpr] = {}
    root.place(SizeExpr.const(0), offsets)
    return Placement(offsets, root.total, _regions(root))


def _regions(root: _Node) -> list[Region]:
    """One region per child of the root stack (or the root itself)."""
    children = root.children if isinstance(root, _Stack) else (root,)
    regions: list[Region] = []
    base = SizeExpr.const(0)
    for child in children:
        members = child.members()
        if members:
            regions.append(Region("band", base, child.total, members))
        base = base + child.total
    return regions
