"""The reference backend: NumPy kernels over real byte buffers.

Device memory is one byte array per allocation, so views into a pool alias
exactly as they would on a GPU. Two optional modes make what a GPU leaves to
timing deterministic:

- `deferred`: kernels and device copies are queued like work on a stream and
  run only at a synchronization (a readback, pool growth, an explicit sync, the
  end of a run); host loads and stores act at once. A host write that a queued
  kernel should have seen first therefore really is lost, as on a GPU.
- `sanitize` (implies deferred): every byte of every buffer remembers which
  logical buffer last wrote it. A kernel reading bytes last written through a
  different logical buffer, a host read of bytes a queued kernel has yet
  to write, and a host write into bytes a queued kernel has yet to read, fail
  with one line naming both sides and the byte range.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from xhip.diagnostics import XhipError
from xhip.kernels.family import Site
from xhip.kernels.families import kernel_of
from xhip.kernels.reference import KernelCall
from xhip.runtime.backends.base import Launcher
from xhip.runtime.backends.stats import DeviceStats
from xhip.runtime.buffers import DeviceBuffer, MemRef

NEVER_WRITTEN = 0


@dataclass
class _Shadow:
    """Per byte of one buffer: the id of the logical buffer that last wrote it."""

    owners: np.ndarray
    names: dict[int, str] = field(default_factory=dict)


@dataclass
class _QueuedWork:
    run: Callable[[], None]
    reads: list[MemRef]
    writes: list[MemRef]
    label: str


def _byte_ranges(addresses: np.ndarray) -> str:
    if addresses.size == 0:
        return "[]"
    low, high = int(addresses.min()), int(addresses.max()) + 1
    return f"[{low}, {high})"


class ReferenceBackend:
    """Allocates byte buffers and runs the NumPy kernels, optionally deferred/sanitized."""

    name = "reference"

    def __init__(self, deferred: bool = False, sanitize: bool = False):
        self.sanitize = sanitize
        self.deferred = deferred or sanitize
        self.stats = DeviceStats()
        self._queue: list[_QueuedWork] = []
        self._shadows: dict[int, _Shadow] = {}
        self._captured: list[_QueuedWork] | None = None

    def describe(self) -> str:
        modes = [m for m, on in (("deferred", self.deferred and not self.sanitize), ("sanitize", self.sanitize)) if on]
        return "NumPy reference" + (f" ({', '.join(modes)})" if modes else "")

    def enter_thread(self) -> None:
        """Host memory is every thread's."""

    # -- memory --------------------------------------------------------------------------

    def allocate(self, nbytes: int, label: str, kind: str) -> DeviceBuffer:
        start = time.perf_counter()
        buffer = DeviceBuffer.in_host_memory(max(int(nbytes), 0), label, kind)
        self.stats.device_seconds += time.perf_counter() - start
        if self.sanitize:
            self._shadows[buffer.id] = _Shadow(np.zeros(buffer.nbytes, np.int64))
        return buffer

    def grow(self, buffer: DeviceBuffer, nbytes: int) -> DeviceBuffer:
        """A larger buffer with the old contents (pools grow after a sync)."""
        self.sync()
        grown = self.allocate(nbytes, buffer.label, buffer.kind)
        grown.data[: buffer.nbytes] = buffer.data
        if self.sanitize:
            self._shadows[grown.id].owners[: buffer.nbytes] = self._shadows[buffer.id].owners
            self._shadows[grown.id].names.update(self._shadows[buffer.id].names)
        return grown

    def upload(self, target: MemRef, values: np.ndarray) -> None:
        """Host data into device memory (inputs, constants): synchronous."""
        target.array()[...] = values
        self._record_write(target)

    # -- host access ---------------------------------------------------------------------

    def host_load(self, source: MemRef, index: Sequence[int], location: str) -> object:
        self._check_host_read(source, index, location)
        return source.array()[tuple(index)].item()

    def host_store(self, target: MemRef, index: Sequence[int], value: object, location: str) -> None:
        self._check_host_write(target, index, location)
        target.array()[tuple(index)] = value
        self._record_write(target, index)

    def download(self, source: MemRef, location: str, producer_only: bool = False) -> np.ndarray:
        """A synchronized copy of device data on the host (readbacks, outputs).

        `producer_only` waits like an event recorded after the last queued write
        of `source`: the work up to it runs, later work stays queued.
        """
        self.stats.readbacks += 1
        if producer_only:
            self.wait_for_writes_of(source)
        else:
            self.sync()
        return np.array(source.array())

    def to_host(self, source: MemRef) -> np.ndarray:
        """A host copy of finished device data (the outputs, after the run's sync)."""
        self.sync()
        return np.array(source.array())

    def wait_for_writes_of(self, source: MemRef) -> None:
        """Run the queue up to and including the last work that writes `source`'s bytes."""
        writers = [position for position, _, _ in self._queued(source.buffer, source.byte_addresses(), "writes")]
        if not writers:
            return
        last = writers[-1]
        self.stats.event_waits += 1
        done, self._queue = self._queue[: last + 1], self._queue[last + 1 :]
        for work in done:
            work.run()

    # -- device work ---------------------------------------------------------------------

    def load(self, site: Site, location: str) -> Launcher:
        """A launcher that runs the family's NumPy kernel (on a stream's terms when deferred).

        Where work runs at once (not deferred), the launcher also takes NumPy arrays as
        they are (`on_arrays`): a traced run builds each view's array itself, once per run,
        and calls the kernel with no memref in between."""
        kernel, props = kernel_of(site.facts.op_class, location), site.facts.props
        stats = self.stats

        def compute(arrays_in: Sequence[np.ndarray], arrays_out: Sequence[np.ndarray], scalars: Sequence[int | float]) -> None:
            start = time.perf_counter()
            try:
                kernel(KernelCall(kernel.name, arrays_in, arrays_out, props, scalars, location))
            except MemoryError:
                raise XhipError(f"'{kernel.name}' ran out of host memory for its temporaries", location) from None
            stats.device_seconds += time.perf_counter() - start

        def compute_views(inputs: Sequence[MemRef], outputs: Sequence[MemRef], scalars: Sequence[int | float]) -> None:
            compute([m.array() for m in inputs], [m.array() for m in outputs], scalars)

        def launch(inputs: Sequence[MemRef], outputs: Sequence[MemRef], scalars: Sequence[int | float]) -> None:
            stats.kernel_launches += 1
            if not self.deferred and self._captured is None:  # at once: nothing to queue or check
                compute_views(inputs, outputs, scalars)
                return

            def run() -> None:
                self._check_reads(inputs, location)
                compute_views(inputs, outputs, scalars)
                for out in outputs:
                    self._record_write(out)

            self._submit(run, list(inputs), list(outputs), location)

        def on_arrays(arrays_in: Sequence[np.ndarray], arrays_out: Sequence[np.ndarray], scalars: Sequence[int | float]) -> None:
            stats.kernel_launches += 1
            if self._captured is None:
                compute(arrays_in, arrays_out, scalars)
            else:  # a graph's work (not deferred: nothing asks which bytes it reads)
                self._submit(lambda: compute(arrays_in, arrays_out, scalars), [], [], location)

        if not self.deferred:
            launch.on_arrays = on_arrays  # type: ignore[attr-defined]
        return launch

    def finish_loading(self) -> None:
        """NumPy kernels need no compiling."""

    def record_event(self) -> object:
        """The time at which all work queued so far is done (it runs the queue)."""
        self.sync()
        return time.perf_counter()

    def elapsed_ms(self, start: object, end: object) -> float:
        return (float(end) - float(start)) * 1e3  # type: ignore[arg-type]

    def copy(self, source: MemRef, target: MemRef, location: str) -> None:
        self.stats.device_copies += 1

        def run() -> None:
            self._check_reads([source], location)
            start = time.perf_counter()
            target.array()[...] = source.array()
            self.stats.device_seconds += time.perf_counter() - start
            self._record_write(target)

        self._submit(run, [source], [target], location)

    def sync(self) -> None:
        if not self._queue:
            return
        self.stats.syncs += 1
        queue, self._queue = self._queue, []
        for work in queue:
            work.run()

    def _submit(self, run: Callable[[], None], reads: list[MemRef], writes: list[MemRef], label: str) -> None:
        work = _QueuedWork(run, reads, writes, label)
        if self._captured is not None:
            self._captured.append(work)
        elif self.deferred:
            self._queue.append(work)
        else:
            run()

    # -- graphs --------------------------------------------------------------------------

    def begin_capture(self) -> None:
        """Device work from now on is recorded, not run, until `end_capture`."""
        self.sync()
        self._captured = []

    def end_capture(self) -> object:
        graph, self._captured = tuple(self._captured or ()), None
        return graph

    def replay(self, graph: object) -> None:
        """Submit the captured work again, in order, over the same buffers."""
        for work in graph:  # type: ignore[attr-defined]
            self._submit(work.run, work.reads, work.writes, work.label)

    # A graph here is the queued work itself: a run at a new shape has nothing to update.
    recording = None

    def begin_recording(self) -> None:
        pass

    def end_recording(self) -> tuple[str, int]:
        return "", 0

    def drop_recording(self) -> None:
        pass

    # -- sanitizer -----------------------------------------------------------------------

    def _record_write(self, target: MemRef, index: Sequence[int] | None = None) -> None:
        if not self.sanitize:
            return
        shadow = self._shadows[target.buffer.id]
        addresses = target.byte_addresses() if index is None else _element_bytes(target, index)
        shadow.owners[addresses] = target.owner.id
        shadow.names[target.owner.id] = target.owner.label

    def _check_reads(self, inputs: Sequence[MemRef], location: str) -> None:
        if not self.sanitize:
            return
        for source in inputs:
            shadow = self._shadows.get(source.buffer.id)
            if shadow is None:
                continue
            addresses = source.byte_addresses()
            foreign = _foreign_writer(shadow, source, addresses)
            if foreign is not None:
                other, bad = foreign
                raise XhipError(
                    f"sanitizer: reading '{source.owner.label}' sees bytes {_byte_ranges(bad)} of "
                    f"{source.buffer.kind} '{source.buffer.label}' last written through '{other}'",
                    location,
                )
            unwritten = shadow.owners[addresses] == NEVER_WRITTEN
            if unwritten.any():
                raise XhipError(
                    f"sanitizer: reading '{source.owner.label}' sees bytes {_byte_ranges(addresses[unwritten])} "
                    f"of {source.buffer.kind} '{source.buffer.label}' that nothing wrote",
                    location,
                )

    def _check_host_read(self, source: MemRef, index: Sequence[int], location: str) -> None:
        if not self.sanitize:
            return
        wanted = _element_bytes(source, index)
        self._refuse_queued(source, wanted, "writes", f"host read of '{source.owner.label}'", "will write", location)
        foreign = _foreign_writer(self._shadows[source.buffer.id], source, wanted)
        if foreign is not None:
            raise XhipError(
                f"sanitizer: host read of '{source.owner.label}' sees bytes {_byte_ranges(wanted)} "
                f"last written through '{foreign[0]}'",
                location,
            )

    def check_written(self, view: MemRef, what: str) -> None:
        """Every element of `view` was written, once the queued work has run."""
        if not self.sanitize:
            return
        self.sync()  # the shadow bytes are written by the work that writes the elements
        addresses = view.byte_addresses()
        unwritten = self._shadows[view.buffer.id].owners[addresses] == NEVER_WRITTEN
        if unwritten.any():
            raise XhipError(
                f"sanitizer: {what} has bytes {_byte_ranges(addresses[unwritten])} of its "
                f"{view.nbytes_spanned} that nothing wrote"
            )

    def _check_host_write(self, target: MemRef, index: Sequence[int], location: str) -> None:
        """A host store happens at once: a queued kernel that reads these bytes would see it."""
        if not self.sanitize:
            return
        wanted = _element_bytes(target, index)
        self._refuse_queued(target, wanted, "reads", f"host write into '{target.owner.label}'", "has yet to read", location)

    def _refuse_queued(
        self, view: MemRef, wanted: np.ndarray, access: Literal["reads", "writes"], host: str, queued: str, location: str
    ) -> None:
        """Fail when queued work `access`es the bytes the host touches now (naming both sides)."""
        for _, work, pending in self._queued(view.buffer, wanted, access):
            raise XhipError(
                f"sanitizer: {host} bytes {_byte_ranges(wanted)} that queued '{work.label}' {queued} "
                f"through '{pending.owner.label}' (not synchronized)",
                location,
            )

    def _queued(
        self, buffer: DeviceBuffer, addresses: np.ndarray, access: Literal["reads", "writes"]
    ) -> Iterator[tuple[int, _QueuedWork, MemRef]]:
        """(queue position, work, view) for queued work that reads (or writes) any of these bytes."""
        for position, work in enumerate(self._queue):
            for pending in getattr(work, access):
                if pending.buffer is buffer and np.isin(addresses, pending.byte_addresses()).any():
                    yield position, work, pending


def _foreign_writer(shadow: _Shadow, reader: MemRef, addresses: np.ndarray) -> tuple[str, np.ndarray] | None:
    """The first other logical buffer that last wrote some of `addresses`, and those bytes."""
    writers = shadow.owners[addresses]
    foreign = (writers != reader.owner.id) & (writers != NEVER_WRITTEN)
    if not foreign.any():
        return None
    other = int(writers[foreign][0])
    return shadow.names.get(other, "?"), addresses[foreign & (writers == other)]


def _element_bytes(view: MemRef, index: Sequence[int]) -> np.ndarray:
    offset = view.offset + sum(i * s for i, s in zip(index, view.strides)) * view.dtype.itemsize
    return np.arange(offset, offset + view.dtype.itemsize, dtype=np.int64)
