"""Graph replay: a run's device work captured once per input-shape signature, then replayed.

A run's host work is mostly the same for the same input shapes: index arithmetic,
pool views, kernel arguments. After the first run at a signature (kernels compiled,
pools sized, constants uploaded), the second run records its device work into a
graph (`Backend.begin_capture` / `end_capture`: a CUDA or HIP graph on a GPU, the
queued work on the reference backend) over buffers kept for that signature; later
runs upload the inputs into those buffers, replay the graph and download the
outputs, and run no plan step at all.

Not every plan can be replayed: one that reads device data on the host (a
readback: the host's answer, e.g. NonZero's count, could differ next time), one
with device buffers outside the pools (they go back to the allocator between
runs), or one with a host-scalar input (its value is used on the host, not read
by the device) runs its plan every time, and `why_not` says why (read at bind time:
`xhip.runtime.bind`). A pool or host
scratch that grows, or a buffer the session allocates anew, bumps
`Session.generation` and drops every graph taken before (they name old buffers).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

from xhip.runtime.buffers import MemRef
from xhip.runtime.program import RunState
from xhip.runtime.report import Report


@dataclass
class Captured:
    """One signature's graph and the buffers it runs over."""

    graph: object
    inputs: list[tuple[str, MemRef]]
    """Graph input name -> the device buffer the graph reads it from."""
    produced: Sequence[tuple[object, object]]
    """(output spec, value) in the order the run returns them."""
    registers: Sequence[object]
    """The capturing run's final registers: where it put each pooled buffer (memory reports
    read them after a replay too)."""
    run_symbols: dict[str, int]
    run: RunState
    generation: int
    report: Report | None = None
    """The capturing run's report: a replay reports the same memory and launches."""
    staged: dict = field(default_factory=dict)
    """Input name -> the executable's own `DeviceArray` whose buffer the graph reads in place
    (a replay fed another array copies it there, and marks this one stale)."""
    handed_out: list = field(default_factory=list)
    """The `DeviceArray`s over `produced` given out since the last replay (the next one
    overwrites them, and marks them stale)."""


@dataclass
class GraphReplays:
    """Per input-shape signature: seen once, then captured; None `why_not` means enabled."""

    why_not: str | None
    seen: set[Hashable] = field(default_factory=set)
    graphs: dict[Hashable, Captured] = field(default_factory=dict)

    def replayable(self, signature: Hashable, generation: int) -> Captured | None:
        captured = self.graphs.get(signature)
        if captured is not None and captured.generation != generation:
            self.graphs.clear()  # a buffer they name was replaced: recapture as shapes repeat
            return None
        return captured

    def should_capture(self, signature: Hashable) -> bool:
        """Capture on the second run of a signature (the first compiles and sizes everything)."""
        if self.why_not is not None:
            return False
        if signature in self.seen:
            return True
        self.seen.add(signature)
        return False
