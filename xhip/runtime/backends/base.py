"""The backend protocol: what the host plan asks of device execution.

The plan (xhip.runtime.plan and its translators) is typed against `Backend`,
never against one backend. Buffers are neutral handles (`DeviceBuffer`: a
device address, a size, a label; host bytes only where the host may touch
them); views into them are `MemRef`s. Kernels are named by their hip op
(`relu`, `matmul`, ...) with the op's attributes: the reference backend runs its
NumPy kernel, a GPU backend the rendered template (or vendor BLAS) for the
operands' dtypes, ranks and layouts.

Ordering follows a GPU stream: `launch` and `copy` queue work; `upload`,
`download`, `host_load` and `host_store` act for the host and are ordered with
the queue as their docstrings say; `sync` drains the queue.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

import numpy as np

from xhip.runtime.backends.stats import DeviceStats
from xhip.runtime.buffers import DeviceBuffer, MemRef
from xhip.runtime.kernels.specs import Operand


class Backend(Protocol):
    name: str
    """The `--backend` spelling: reference, cuda or hip."""
    stats: DeviceStats

    def describe(self) -> str:
        """What runs the work, for the report (the device, or the reference modes)."""
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

    def host_store(self, target: MemRef, index: Sequence[int], value: object) -> None:
        """One element, written now."""
        ...

    # -- device work -----------------------------------------------------------------------
    def prepare(self, op_class: type, attributes: Mapping[str, object], inputs: Sequence[Operand], outputs: Sequence[Operand]) -> None:
        """At plan-build time, once per op: the kernels its launches will need, chosen from
        what the IR fixes of its operands (a GPU backend renders and queues them, and the first
        launch compiles everything queued as one unit through the compile cache)."""
        ...

    def launch(
        self,
        kernel: str,
        inputs: Sequence[MemRef],
        outputs: Sequence[MemRef],
        attributes: Mapping[str, object],
        scalars: Sequence[int | float],
        location: str,
    ) -> None:
        """Queue the kernel of hip op `kernel` over these views."""
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
