"""Buffer aliasing and live intervals in single-block functions.

xDSL has no view-flow analysis: here a memref value's *root* is the value that
owns its bytes. Views (`subview`, `expand_shape`, `collapse_shape`, `cast`,
`reinterpret_cast`) alias their source, so their root is the source's root; a
`memref.view` into a pool starts a new buffer and is its own root. A root is
live from its definition to the last use of any of its aliases (a use inside
an op's regions counts at that op; a dealloc is no use); a buffer returned by
the function lives to the end.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from xdsl.dialects import func, memref
from xdsl.ir import Block, Operation, SSAValue

from xhip.dialects.hip import FreeOp

ALIASING_VIEWS: tuple[type[Operation], ...] = (
    memref.SubviewOp,
    memref.ExpandShapeOp,
    memref.CollapseShapeOp,
    memref.CastOp,
    memref.ReinterpretCastOp,
)


RELEASES: tuple[type[Operation], ...] = (memref.DeallocOp, FreeOp)
"""Ops that end a buffer's life rather than use its contents."""


@dataclass(frozen=True)
class Interval:
    """Program points (op positions in the block) where a buffer is live, inclusive."""

    first: int
    last: int

    def overlaps(self, other: Interval) -> bool:
        return self.first <= other.last and other.first <= self.last


def alias_roots(block: Block) -> dict[SSAValue, SSAValue]:
    """Every memref value defined in `block` (and its arguments) mapped to its root."""
    roots: dict[SSAValue, SSAValue] = {arg: arg for arg in block.args}
    for op in block.ops:
        for result in op.results:
            source = op.operands[0] if isinstance(op, ALIASING_VIEWS) else None
            roots[result] = roots.get(source, source) if source is not None else result
    return roots


def live_intervals(block: Block, roots: Iterable[SSAValue] | None = None) -> dict[SSAValue, Interval]:
    """The live interval of each root (all roots defined by ops when `roots` is None)."""
    alias = alias_roots(block)
    positions = {op: index for index, op in enumerate(block.ops)}
    end = len(positions) - 1
    wanted = set(roots) if roots is not None else {v for v in alias.values() if isinstance(v.owner, Operation)}
    intervals: dict[SSAValue, Interval] = {}
    for root in wanted:
        owner = root.owner
        first = positions[owner] if isinstance(owner, Operation) and owner in positions else 0
        intervals[root] = Interval(first, first)
    for op, index in positions.items():
        # Uses inside an op's regions count at the op itself.
        for user in op.walk():
            if isinstance(user, RELEASES):
                continue
            for operand in user.operands:
                used = alias.get(operand)
                if used is not None and used in intervals:
                    last = end if isinstance(user, func.ReturnOp) and user.parent_block() is block else index
                    intervals[used] = Interval(intervals[used].first, max(intervals[used].last, last))
    return intervals


def max_live_sum(intervals: Mapping[object, Interval], sizes: Mapping[object, int]) -> int:
    """The largest total size of buffers live at one program point."""
    events: list[tuple[int, int]] = []
    for key, interval in intervals.items():
        events.append((interval.first, sizes[key]))
        events.append((interval.last + 1, -sizes[key]))
    live = best = 0
    for _, delta in sorted(events, key=lambda e: (e[0], e[1])):
        live += delta
        best = max(best, live)
    return best
