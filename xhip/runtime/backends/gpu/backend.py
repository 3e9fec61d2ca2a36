"""The GPU backend: one vendor-free implementation over a thin driver (cuda or hip).

What it owns: device memory (a caching allocator; pinned, device-mapped host
memory for host scratch), stream-ordered uploads, copies and kernel launches,
downloads that wait exactly as the host-visibility strategy in the IR says,
and the kernel library (templates rendered, compiled through the on-disk
cache, loaded once). It never looks at IR: bind hands it launch sites to load,
and a run hands their launchers memrefs, as it does the reference backend.

Ordering: everything runs on the driver's one stream. A launch returns at
once; a host load of device memory, a download and a readback wait for the
stream (a download of host-mapped scratch waits, then reads the host view).
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence

import numpy as np

from xhip import environment
from xhip.diagnostics import XhipError
from xhip.kernels.copy import copy_site
from xhip.kernels.family import Site
from xhip.kernels.spec_types import Operand
from xhip.runtime.backends.base import Launcher
from xhip.runtime.backends.gpu.driver import Driver
from xhip.runtime.backends.gpu.graph_updates import ClassGraphs, Recording
from xhip.runtime.backends.gpu.memory import POISON_BYTE, DeviceMemory
from xhip.runtime.backends.stats import DeviceStats
from xhip.runtime.buffers import DeviceBuffer, MemRef

SPARSE_VIEW_RATIO = 2
"""A host copy of a view spanning more than this many times its own bytes is gathered on the
device first (`to_host`)."""
COPY_LAYOUTS_KEPT = 4096
"""Exact view layouts remembered with their copy kernel (beyond it, each copy derives its key)."""
PINNED_DOWNLOAD_BYTES = 64 << 10
"""Outputs of at least this size are downloaded into pinned memory (`DeviceMemory.pinned_host`):
BERT-base's hidden states of a serving request (3.6 MB) took 1.1 ms into pageable memory."""


def _device_limit(driver: Driver) -> int:
    free, _ = driver.memory_info()
    cap = os.environ.get(environment.MAX_DEVICE_BYTES)
    return min(free, int(cap)) if cap else free


class GpuBackend:
    """Runs a plan's device work on one GPU through `driver`."""

    def __init__(self, driver: Driver):
        from xhip.runtime.backends.gpu.kernels import KernelLibrary

        self.driver = driver
        self.name = driver.name
        self.stats = DeviceStats()
        self.memory = DeviceMemory(driver, _device_limit(driver))
        self.kernels = KernelLibrary.for_driver(driver)
        self.queued = False
        self._copies: dict[tuple[object, ...], Launcher] = {}
        self.recording: Recording | None = None
        """While a run is recorded (`begin_recording`): its device work, not yet queued."""
        self._recorded: Recording | None = None
        """The run's recording, also after something stopped it early."""
        self._class_graphs = ClassGraphs(driver)

    def describe(self) -> str:
        return self.driver.describe()

    @property
    def graphs_refused(self) -> str:
        """Why runs at new shapes are never recorded into graphs across shapes: the driver's
        refusal of a capture's node query ("" while it has refused none)."""
        return self._class_graphs.refused

    # -- memory --------------------------------------------------------------------------

    def allocate(self, nbytes: int, label: str, kind: str) -> DeviceBuffer:
        if kind == "scratch":
            return self.memory.allocate_host_mapped(nbytes, label, kind)
        self.queued = True  # the poison fill is stream work
        buffer = self.memory.allocate(nbytes, label, kind)
        # An input's buffer is written whole (upload or copy) before anything reads it: no fill.
        if kind != "input" and nbytes:
            if self.recording is not None:
                self.recording.fill(buffer.address, POISON_BYTE, int(nbytes))
            else:
                self.driver.fill(buffer.address, POISON_BYTE, int(nbytes))
        return buffer

    def grow(self, buffer: DeviceBuffer, nbytes: int) -> DeviceBuffer:
        """A larger buffer with the old contents (after the queued work is done)."""
        self._stop_recording()
        self.sync()
        grown = self.allocate(nbytes, buffer.label, buffer.kind)
        if buffer.host is not None and grown.host is not None:
            grown.host[: buffer.nbytes] = buffer.host
        else:
            self.driver.copy(grown.address, buffer.address, buffer.nbytes)
        return grown

    def upload(self, target: MemRef, values: np.ndarray) -> None:
        """Host data into device memory (inputs, constants): complete on return."""
        data = np.ascontiguousarray(values, dtype=target.dtype)
        if target.buffer.kind == "scratch":
            # Host-mapped: the device reads these very bytes. (A constant's host bytes are
            # only a copy, so a constant always goes to the device too.)
            target.array()[...] = data
            return
        self._require_dense(target, "upload into")
        self._stop_recording()
        self.driver.upload(target.buffer.address + target.offset, data)
        if target.buffer.kind == "constant":
            # Constants never change: the host keeps their bytes for direct host loads.
            target.buffer.keep_host_copy(data.view(np.uint8).reshape(-1), target.offset)

    # -- host access ---------------------------------------------------------------------

    def host_load(self, source: MemRef, index: Sequence[int], location: str) -> object:
        if source.buffer.host is not None:
            return source.array()[tuple(index)].item()
        self._stop_recording()
        element = np.empty(1, source.dtype)
        self._download_bytes(element.view(np.uint8), source.buffer.address + source.element_offset(index))
        return element[0].item()

    def host_store(self, target: MemRef, index: Sequence[int], value: object, location: str) -> None:
        if target.buffer.host is not None:
            target.array()[tuple(index)] = value
            return
        element = np.array([value], target.dtype)
        self._stop_recording()
        self.driver.upload(target.buffer.address + target.element_offset(index), element)

    def download(self, source: MemRef, location: str, producer_only: bool = False) -> np.ndarray:
        """A host copy of `source` once the work writing it is done.

        With one in-order stream, waiting for the producer (`producer_only`, the
        event strategy) is waiting for an event recorded after the copy, which the
        stream orders after the producer; a full readback synchronizes the stream.
        """
        self.stats.readbacks += 1
        self._stop_recording()
        if producer_only:
            self.stats.event_waits += 1
        if source.buffer.host is not None:
            if producer_only:
                self.driver.wait_event(self.driver.record_event())
            else:
                self.sync()
            return np.array(source.array())
        span = np.empty(source.nbytes_spanned, np.uint8)
        self._download_bytes(span, source.buffer.address + source.offset, counted=not producer_only)
        return np.array(source.rebased(span).array())

    def to_host(self, source: MemRef) -> np.ndarray:
        """A host copy of finished device data (the outputs, after the run's sync). A large
        dense one of a size seen before lands in pinned memory and is handed out there."""
        self._stop_recording()
        if source.buffer.host is not None:
            self.sync()
            return np.array(source.array())
        nbytes = math.prod(source.shape) * source.dtype.itemsize
        if source.nbytes_spanned > SPARSE_VIEW_RATIO * nbytes:
            # A view whose bytes are spread out (a KV cache's written rows of its capacity):
            # gathered on the device first, so only its own bytes cross the bus.
            dense = MemRef.contiguous(self.allocate(nbytes, source.buffer.label, "output"), source.shape, source.dtype, source.owner)
            self.copy(source, dense, source.buffer.label)
            source = dense
        spanned = source.nbytes_spanned
        pinned = self.memory.pinned_host(spanned) if spanned >= PINNED_DOWNLOAD_BYTES else None
        span = np.empty(spanned, np.uint8) if pinned is None else pinned
        self._download_bytes(span, source.buffer.address + source.offset, counted=False)
        host = source.rebased(span).array()
        # A dense view is all of its span, pinned or fresh: handed out as it is. A copy of a
        # fresh span would cost a pass over every byte (about 3 ms for BERT-base's 8x512
        # output) for nothing; a strided one is compacted, which also frees a pinned block.
        return host if source.is_dense else np.array(host)

    def check_written(self, view: MemRef, what: str) -> None:
        """Byte ownership is the reference sanitizer's: a GPU run has no shadow memory to ask
        (`--check` still sees the poison byte of an element nothing wrote)."""

    def wait_for_writes_of(self, source: MemRef) -> None:
        self._stop_recording()
        self.stats.event_waits += 1
        self.driver.wait_event(self.driver.record_event())

    def _download_bytes(self, out: np.ndarray, address: int, counted: bool = True) -> None:
        """A stream-ordered copy to the host (it waits for all queued work)."""
        if counted and self.queued:
            self.stats.syncs += 1
        self.driver.download(out, address)
        self.queued = False
        self.kernels.status.check()

    # -- device work ---------------------------------------------------------------------

    def enter_thread(self) -> None:
        self.driver.enter_thread()

    def load(self, site: Site, location: str) -> Launcher:
        return self.kernels.launcher(site, location, self)

    def finish_loading(self) -> None:
        compiled = self.kernels.compiled_units
        self.kernels.load_queued()
        self.stats.kernel_compiles += self.kernels.compiled_units - compiled

    def record_event(self) -> object:
        self._stop_recording()
        return self.driver.record_event()

    def elapsed_ms(self, start: object, end: object) -> float:
        self.driver.wait_event(end)
        return self.driver.elapsed_ms(start, end)

    def begin_capture(self) -> None:
        self._stop_recording()
        # Module loads and allocations are not stream work: do them before capturing.
        self.kernels.load_queued()
        self.driver.begin_capture()

    def end_capture(self) -> object:
        return self.driver.end_capture()

    def replay(self, graph: object) -> None:
        self.driver.replay(graph)
        self.queued = True

    def copy(self, source: MemRef, target: MemRef, location: str) -> None:
        self.stats.device_copies += 1
        self.queued = True
        if source.is_dense and target.is_dense and source.shape == target.shape:
            if self.recording is not None:
                self.recording.copy(target.address, source.address, source.nbytes_spanned)
            else:
                self.driver.copy(target.address, source.address, source.nbytes_spanned)
            return
        self._strided_copy(source, target, location)([source], [target], [])

    def _strided_copy(self, source: MemRef, target: MemRef, location: str) -> Launcher:
        """The copy kernel between two views of these layouts (loaded once per layout; found
        by the views' exact layouts first: a KV cache's appends copy one layout every step)."""
        exact = (source.dtype, target.dtype, source.shape, source.strides, target.strides)
        launcher = self._copies.get(exact)
        if launcher is not None:
            return launcher
        facts = [Operand.at_launch(v.dtype, v.shape, v.strides) for v in (source, target)]
        key = (source.dtype, target.dtype, len(source.shape), facts[0].contiguous, facts[1].contiguous)
        launcher = self._copies.get(key)
        if launcher is None:
            unknown = [Operand(f.dtype, (None,) * len(f.shape), f.contiguous) for f in facts]
            launcher = self._copies[key] = self.load(copy_site(*unknown), location)
            self.finish_loading()
        if len(self._copies) < COPY_LAYOUTS_KEPT:
            self._copies[exact] = launcher
        return launcher

    # -- graphs across shapes (`graph_updates`) -------------------------------------------------

    def begin_recording(self) -> None:
        """Record the device work queued from now on instead of queuing it: `end_recording`
        queues it, through a graph captured at another shape where one fits. Host access to
        device memory, a sync or a capture in between queues what was recorded first and
        ends the recording (the host must see that work done)."""
        self._recorded = None
        if self._class_graphs.wants_recording():
            self.recording = self._recorded = Recording(self._class_graphs)

    def end_recording(self) -> tuple[str, int]:
        """Queue the rest of the recorded work; how the run's work went (`Recording.summary`:
        "" where some of it was launched as it stood, or the recording stopped early) and
        how many graph nodes were updated."""
        recording, self.recording = self.recording, None
        recorded, self._recorded = self._recorded, None
        if recorded is None:  # not recorded (a pause, a refusal)
            return "", 0
        if recording is not None:
            recording.flush()
        summary = recorded.summary() if recording is not None else ""  # a stopped recording launched the rest
        self._class_graphs.note(summary)
        return summary, recorded.updated

    def drop_recording(self) -> None:
        """Forget what is being recorded (a run that failed queues no more of it)."""
        self.recording = self._recorded = None

    def _stop_recording(self) -> None:
        recording, self.recording = self.recording, None
        if recording is not None:
            recording.flush()
            recording.stopped = True

    def sync(self) -> None:
        self._stop_recording()
        if not self.queued:
            return
        self.stats.syncs += 1
        self.driver.synchronize()
        self.queued = False
        self.kernels.status.check()

    @staticmethod
    def _require_dense(view: MemRef, what: str) -> None:
        if not view.is_dense:
            raise XhipError(f"cannot {what} a strided view of '{view.buffer.label}'")
