"""The launch program: what `xhip.runtime.bind` makes of a function, run without its IR.

A program is a list of steps over a register file. Every SSA value has a register;
constants are in the registers before the first step; a step is a closure that reads
and writes registers (host index arithmetic, a view, a pool, a launch through the
launcher its backend loaded at bind time). Running it is one loop: no IR is touched,
nothing is looked up by name, and an error names the op the step came from.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from xhip.constants_file import ConstantsData
from xhip.diagnostics import XhipError
from xhip.runtime.backends.base import Backend, Recording
from xhip.runtime.backends.stats import DeviceStats
from xhip.runtime.buffers import DeviceBuffer, MemRef
from xhip.runtime.limits import AllocationCap

Registers = list[object]
Step = Callable[[Registers], None]

StepKind = int
ALWAYS: StepKind = 0
"""A step with effects beyond its results (an allocation, a pool, host access): it always runs."""
PURE: StepKind = 1
"""A step whose results follow from its operands alone (index arithmetic, a view)."""
DEVICE: StepKind = 2
"""A step that queues device work over its operands (a launch, a copy) and writes no register."""

RUN_TIME_ERRORS = (ValueError, IndexError, TypeError, ZeroDivisionError, OverflowError)
"""What a step may raise on values it cannot take; the program names the op."""


@dataclass
class RunState:
    """What one run produces besides registers: outputs, requested pool bytes."""

    outputs: dict[int, MemRef] = field(default_factory=dict)
    pool_bytes: int = 0
    """The bytes the run's pools need: per pool, the largest request of its domains, summed."""
    scratch_bytes: int = 0
    pool_requests: dict[int, int] = field(default_factory=dict)
    caches: dict[str, int] = field(default_factory=dict)
    """The bytes at capacity of each KV cache buffer the run's outputs live in, by its label
    (hip.cache_append: the caller's memory, outside the pools)."""

    def request_pool(self, pool: int, nbytes: int) -> None:
        """A domain asks pool `pool` for `nbytes` (domains that share a pool ask in turn)."""
        self.pool_requests[pool] = max(self.pool_requests.get(pool, 0), nbytes)
        self.pool_bytes = sum(self.pool_requests.values())


class Layouts:
    """View layouts derived by earlier view steps, shared by the steps of one configuration:
    the equal views of a model's layers over sources of equal layout derive theirs once per
    shape (each step still makes its own memref: its source's buffer and offset are its own).
    A layout's checks (bounds, element counts) depend only on what its key holds, so a
    layout found here passed them."""

    LIMIT = 1 << 15
    """Entries kept before the table starts over (a run at a new shape adds one per view)."""

    def __init__(self) -> None:
        self.table: dict[tuple[object, ...], object] = {}
        self._configs: dict[object, int] = {}

    def config(self, description: object) -> int:
        """A small number naming a view configuration (its op's name, types, attributes)."""
        return self._configs.setdefault(description, len(self._configs))

    def remember(self, key: tuple[object, ...], layout: object) -> None:
        if len(self.table) >= self.LIMIT:
            self.table.clear()
        self.table[key] = layout


@dataclass
class Session:
    """State that outlives a run: pools, host scratch and uploaded constants."""

    backend: Backend
    constants_file: ConstantsData | None
    """The bytes of the module's constants file, checked against the IR (None: it names none)."""
    pools: dict[int, DeviceBuffer] = field(default_factory=dict)
    scratch: DeviceBuffer | None = None
    constants: dict[object, MemRef] = field(default_factory=dict)
    run: RunState = field(default_factory=RunState)
    cap: AllocationCap = field(default_factory=AllocationCap.resolve)
    layouts: Layouts = field(default_factory=Layouts)
    generation: int = 0
    """Bumped whenever a session buffer (pool, host scratch) is allocated or grown: graphs
    captured before name the old one (`xhip.runtime.replay`)."""


@dataclass
class Program:
    """The steps of one function, the registers they use, and where each step came from."""

    steps: list[Step]
    initial: Registers
    """The register file before the first step: constants filled in, the rest None."""
    arguments: list[int]
    results: list[int]
    names: list[str]
    """Per step: the name of the op it runs (for errors)."""
    locations: list[str]
    """Per step: the op's location."""
    reads: list[tuple[int, ...]]
    """Per step: the registers it reads (its op's operands)."""
    writes: list[tuple[int, ...]]
    """Per step: the registers it writes (its op's results)."""
    kinds: list[StepKind]
    _memo: Memo | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        # Per step what `execute_recorded` asks, in one tuple (a device step that writes
        # registers, a tensor-stage compute, always runs). The steps themselves stay in
        # `steps`, which both ways of running read (benchmarks/host_cost.py times them there).
        self._incremental = [
            (ALWAYS if kind == DEVICE and out else kind, frozenset(read), out)
            for kind, read, out in zip(self.kinds, self.reads, self.writes)
        ]

    def execute(self, arguments: Iterable[object]) -> tuple[list[object], Registers]:
        """The function's results, and the final register file (what reports read back)."""
        regs = list(self.initial)
        for slot, value in zip(self.arguments, arguments):
            regs[slot] = value
        index = 0
        try:
            for index, step in enumerate(self.steps):
                step(regs)
        except XhipError:
            raise
        except RUN_TIME_ERRORS as err:
            raise XhipError(f"'{self.names[index]}' failed at run time: {err}", self.locations[index]) from None
        return [regs[slot] for slot in self.results], regs

    def execute_recorded(self, arguments: Iterable[object], recording: Recording, stats: DeviceStats) -> tuple[list[object], Registers]:
        """`execute` while the backend records the run's device work (`recording`), re-running
        only what this run changes. Against the last such run (`Memo`): a pure step whose
        operands are the same objects or equal values is not run (its results stand), a
        device step over the same operands queues the very work it recorded then (the same
        kernels, grids and argument bytes), and the rest runs. A decoder step at one more
        token changes its inputs, outputs and the kernels that touch them: most of its
        launches and views are not run again."""
        memo, self._memo = self._memo, None
        regs = list(self.initial if memo is None else memo.registers)
        count = len(self.steps)
        dirty: set[int] = set(range(len(regs))) if memo is None else set()
        entries: list[list[tuple] | None] = [None] * count if memo is None else list(memo.entries)  # type: ignore[type-arg]
        counts = [(0, 0)] * count if memo is None else list(memo.counts)
        for slot, value in zip(self.arguments, arguments):
            if not _same(regs[slot], value):
                dirty.add(slot)
            regs[slot] = value
        index = 0
        try:
            for index, (step, (kind, reads, writes)) in enumerate(zip(self.steps, self._incremental)):
                if kind == PURE and dirty.isdisjoint(reads):
                    continue
                if kind == DEVICE:
                    kept = entries[index]
                    if kept is not None and dirty.isdisjoint(reads) and not recording.stopped:
                        recording.reissue(kept)
                        launched, copied = counts[index]
                        stats.kernel_launches += launched
                        stats.device_copies += copied
                        continue
                    before, recording.tap = (stats.kernel_launches, stats.device_copies), []
                    step(regs)
                    entries[index] = None if recording.stopped else recording.tap
                    recording.tap = None
                    counts[index] = (stats.kernel_launches - before[0], stats.device_copies - before[1])
                    continue
                old = [regs[slot] for slot in writes]
                step(regs)
                for slot, previous in zip(writes, old):
                    if not _same(regs[slot], previous):
                        dirty.add(slot)
        except XhipError:
            raise
        except RUN_TIME_ERRORS as err:
            raise XhipError(f"'{self.names[index]}' failed at run time: {err}", self.locations[index]) from None
        finally:
            recording.tap = None
        if not recording.stopped:  # work queued as it went (a stopped recording) was not kept
            self._memo = Memo(regs, entries, counts)
        return [regs[slot] for slot in self.results], regs


@dataclass
class Memo:
    """What the last recorded run left (`Program.execute_recorded`): its registers, and per
    device step the work it recorded and how many kernel launches and device copies that was
    (what the stats count again when the step is not run)."""

    registers: Registers
    entries: list[list[tuple] | None]  # type: ignore[type-arg]
    counts: list[tuple[int, int]]


def _same(value: object, previous: object) -> bool:
    """Whether a register holds what it held: the same object, or an equal number."""
    if value is previous:
        return True
    return type(value) is type(previous) and isinstance(value, int | float | np.generic) and bool(value == previous)
