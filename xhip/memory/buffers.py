"""What a planner is given (buffers with sizes and live intervals) and what it answers."""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field

from xhip.memory.size_expr import SizeExpr


@dataclass(frozen=True)
class Buffer:
    """One allocation to place in a pool.

    `first` and `last` are the program points (op positions) where it is live,
    both inclusive, so a kernel that reads one buffer and writes another makes
    them overlap. `group` is the identity of its dynamic size operands: the
    `grouped` planner shares slabs only within a group.
    """

    id: Hashable
    size: SizeExpr  # bytes (an int is accepted as a constant)
    first: int
    last: int
    group: Hashable | None = None

    def __post_init__(self):
        object.__setattr__(self, "size", SizeExpr.lift(self.size))
        if self.first > self.last:
            raise ValueError(f"buffer {self.id!r}: live interval [{self.first}, {self.last}] is empty")

    @property
    def static_size(self) -> int | None:
        return self.size.static_value

    def footprint(self, alignment: int) -> SizeExpr:
        """The bytes it takes in a pool: its size rounded up to the alignment."""
        return self.size.align_up(alignment)

    def overlaps(self, other: Buffer) -> bool:
        return self.first <= other.last and other.first <= self.last


@dataclass(frozen=True)
class Region:
    """A band of the pool that reports can name, with the buffers placed in it.

    `kind` says what made it: "static" (the constant-offset prefix), "slab" (buffers
    or groups that are never live together, width = the largest), "stack" (one
    buffer, no reuse), "band" (one subtree of the `tree` planner).
    """

    kind: str
    offset: SizeExpr
    width: SizeExpr
    members: tuple[Hashable, ...]


@dataclass(frozen=True)
class Placement:
    """A planner's answer: where each buffer starts, and how large the pool must be."""

    offsets: dict[Hashable, SizeExpr]
    total: SizeExpr
    slabs: list[Region] = field(default_factory=list)


def check_alignment(alignment: int) -> None:
    if not isinstance(alignment, int) or alignment <= 0 or alignment & (alignment - 1):
        raise ValueError(f"alignment must be a positive power of 2, got {alignment}")


def checked_buffers(buffers: Iterable[Buffer], alignment: int) -> list[Buffer]:
    """`buffers` as a list, after checking the alignment and that ids are unique."""
    check_alignment(alignment)
    listed = list(buffers)
    seen: set[Hashable] = set()
    for buffer in listed:
        if buffer.id in seen:
            raise ValueError(f"two buffers have the id {buffer.id!r}")
        seen.add(buffer.id)
    return listed
