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

from xhip.constants_file import ConstantsData
from xhip.diagnostics import XhipError
from xhip.runtime.backends.base import Backend
from xhip.runtime.buffers import DeviceBuffer, MemRef
from xhip.runtime.limits import AllocationCap

Registers = list[object]
Step = Callable[[Registers], None]

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
