"""The backend protocol: what the host plan asks of device execution.

The launch program (xhip.runtime.bind, xhip.runtime.program) is typed against
`Backend`, never against one backend. Buffers are neutral handles (`DeviceBuffer`:
a device address, a size, a label; host bytes only where the host may touch
them); views into them are `MemRef`s. Device work is bound once: at bind time
each hip compute op's launch site (`xhip.kernels.family.Site`: its kernels, the
form a launch takes, its argument values, its reference) is `load`ed into a
`Launcher`, and a run calls the launcher with its operands. The reference
backend's launcher runs the family's NumPy kernel, a GPU backend's the compiled
kernels (or vendor BLAS) with arguments packed at fixed offsets.

Ordering follows a GPU stream: `launch` and `copy` queue work; `upload`,
`download`, `host_load` and `host_store` act for the host and are ordered with
the queue as their docstrings say; `sync` drains the queue.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from xhip.kernels.family import Site
from xhip.runtime.backends.stats import DeviceStats
from xhip.runtime.buffers import DeviceBuffer, MemRef


class Launcher(Protocol):
    """One op's device work, loaded: a run hands it the operands' views and host scalars."""

    def __call__(self, inputs: Sequence[MemRef], outputs: Sequence[MemRef], scalars: Sequence[int | float]) -> None:
        """Queue the op's kernels over these views."""
        ...


class Recording(Protocol):
    """A run's device work as it is recorded (a GPU backend's `begin_recording`): what the
    launch program may ask of it (`Program.execute_recorded`)."""

    stopped: bool
    """Whether something the host had to see done (a sync, a download) queued the work
    recorded so far and ended the recording: the rest of the run queues as it goes."""
    tap: list | None  # type: ignore[type-arg]
    """Where the entries recorded from now on are copied as well (None: nowhere)."""

    def reissue(self, entries: list) -> None:  # type: ignore[type-arg]
        """Record again entries an earlier run's tap took (the same work)."""
        ...


class Backend(Protocol):
    name: str
    """The `--backend` spelling: reference, cuda or hip."""
    stats: DeviceStats

    @property
    def recording(self) -> Recording | None:
        """The run's recording while one is on (`begin_recording`), else None."""
        ...

    def describe(self) -> str:
        """What runs the work, for the report (the device, or the reference modes)."""
        ...

    def enter_thread(self) -> None:
        """Make the backend's device current in the calling thread (a CUDA context and a HIP
        device are per thread): called by an Executable before it uses the backend from a
        thread, so that one built in one thread runs in any."""
        ...

    # -- memory ----------------------------------------------------------------------------
    def allocate(self, nbytes: int, label: str, kind: str) -> DeviceBuffer:
        """Fresh memory filled with the poison byte; `kind` "scratch" is host-mapped."""
        ...

    def grow(self, buffer: DeviceBuffer, nbytes: int) -> DeviceBuffer:
        """A larger buffer holding `buffer`'s bytes, after the queued work is done."""
        ...

    def upload(self, target: MemRef, values: np.ndarray) -> None:
        """Host data into a dense view (inputs, constants); complete on return."""
        ...

    def download(self, source: MemRef, location: str, producer_only: bool = False) -> np.ndarray:
        """A host copy of `source` after the work that writes it (all queued work, or
        with `producer_only` as an event after its producer would wait)."""
        ...

    def to_host(self, source: MemRef) -> np.ndarray:
        """A host copy of `source` after all queued work (graph outputs; not a readback)."""
        ...

    def check_written(self, view: MemRef, what: str) -> None:
        """Fail when the backend can tell that some element of `view` was never written."""
        ...

    # -- host access -----------------------------------------------------------------------
    def host_load(self, source: MemRef, index: Sequence[int], location: str) -> object:
        """One element, read now (the IR proved it ready, or read it back first)."""
        ...

    def host_store(self, target: MemRef, index: Sequence[int], value: object, location: str) -> None:
        """One element, written now."""
        ...

    # -- device work -----------------------------------------------------------------------
    def load(self, site: Site, location: str) -> Launcher:
        """At bind time, once per op: the launcher of its site. A GPU backend queues the
        site's kernels; `finish_loading` compiles what the queue misses."""
        ...

    def finish_loading(self) -> None:
        """After the last `load` of a program: compile (through the per-kernel cache) and load
        every queued kernel. A kernel that does not compile fails with the location of the
        first op that needs it, and nothing of it stays queued for the next program."""
        ...

    def copy(self, source: MemRef, target: MemRef, location: str) -> None:
        """Queue an element copy between two views of one shape."""
        ...

    def wait_for_writes_of(self, source: MemRef) -> None:
        """Block until the queued work writing `source` is done (an event wait)."""
        ...

    def sync(self) -> None:
        """Block until all queued work is done."""
        ...

    def record_event(self) -> object:
        """A marker queued after the work so far (for timing)."""
        ...

    def elapsed_ms(self, start: object, end: object) -> float:
        """Milliseconds between two recorded markers, once `end` is reached."""
        ...

    # -- graphs ----------------------------------------------------------------------------
    def begin_capture(self) -> None:
        """Record the device work queued from now on instead of running it."""
        ...

    def end_capture(self) -> object:
        """The recorded work, as a graph `replay` runs again over the same buffers."""
        ...

    def replay(self, graph: object) -> None:
        """Queue a captured graph's work again."""
        ...

    def begin_recording(self) -> None:
        """A run at a new input shape starts: record its device work for `end_recording`
        (a GPU backend: `xhip.runtime.backends.gpu.graph_updates`; others queue as usual)."""
        ...

    def end_recording(self) -> tuple[str, int]:
        """Queue the run's recorded work: ("updated", nodes updated) through a graph captured
        at another shape, ("captured", 0) into a new graph, or ("", 0) as it stands."""
        ...

    def drop_recording(self) -> None:
        """Forget the recorded work of a run that failed."""
        ...
