"""Executable: a compiled function bound once, its session state, and a report per run.

`Executable(module, backend)` binds the module's function into a launch program
(`xhip.runtime.bind`: kernels chosen, loaded and compiled, constants uploaded); `run(feeds)`
checks the inputs against the signature (`xhip.runtime.signature`), runs the program or
replays a captured graph (`xhip.runtime.replay`) and returns the graph outputs by name
(host arrays, or with `on_device=True` `DeviceArray`s, which `run` also takes as feeds:
`xhip.runtime.device_array`). Pools, host scratch and constants live as long as the
Executable. `max_device_bytes` (with `XHIP_MAX_DEVICE_BYTES` and the physical memory)
caps every single allocation (`xhip.runtime.limits`).

Threads: one Executable may be shared by many threads. Its runs share the session (pools,
host scratch, captured graphs), so `run` holds the executable's lock from the feeds' check
to the outputs' delivery: runs of one Executable are serialized (on a GPU their device
work goes to one stream), runs of different Executables are not. What a run leaves behind
(`report`, `run_symbols`, `pooled_views`) is per thread: each thread reads its own last
run's. A `DeviceArray` a run returns is read under the same lock, so a replay in another
thread either finishes before the read or marks the array stale first (reading it then
raises): never another run's values.
"""

from __future__ import annotations

import dataclasses
import functools
import gc
import math
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import SSAValue

from xhip.constants_file import ConstantsStore
from xhip.diagnostics import XhipError
from xhip.dialects.hip.attributes import COMPUTE_PRECISION_ATTR
from xhip.dtypes import HALF_DTYPES
from xhip.memory.model_bound import HonestBounds
from xhip.runtime.backends import Backend, make_backend
from xhip.runtime import kv_cache
from xhip.runtime.bind import bind
from xhip.runtime.buffers import MemRef, Owner
from xhip.runtime.device_array import DeviceArray
from xhip.runtime.limits import AllocationCap
from xhip.runtime.program import RunState, Session
from xhip.runtime.replay import Captured, GraphReplays
from xhip.runtime.report import MemoryFigures, Report
from xhip.runtime.signature import Bound, TensorSpec, out_param_dims
from xhip.runtime.trace import AheadOperand, TracedClasses, TracedRegisters

__all__ = ["Executable", "Report", "TensorSpec", "compute_dtype"]


AHEAD_EXTENTS = (2, 16)
"""The classes traced at compile time: every symbolic dim of the inputs at 2, then at 16.
The questions a trace asks by size split shapes into few classes (the fused attention's
few-tiles form splits GPT-2's and BERT's at about 66 tiles), and these two land on either
side: every (batch, seq) from 1x1 to 8x512 of either model runs traced from its first run.
Each costs one trace at compile time (GPT-2 124M: 50-70 ms on a 2-core VM, against 4-6 s of
compile)."""


def compute_dtype(module: ModuleOp) -> np.dtype | None:
    """The half dtype named by the module's compute-precision attribute (None: as declared)."""
    named = module.attributes.get(COMPUTE_PRECISION_ATTR)
    if not isinstance(named, StringAttr):
        return None
    for dtype in HALF_DTYPES:
        if dtype.name == named.data:
            return dtype
    raise XhipError(f"module attribute {COMPUTE_PRECISION_ATTR} = '{named.data}' names no half-precision type (float16, bfloat16)")


class Executable:
    """A module ready to run: bind once, run many times."""

    def __init__(
        self,
        module: ModuleOp,
        backend: str | Backend = "reference",
        *,
        deferred: bool = False,
        sanitize: bool = False,
        constants: ConstantsStore | None = None,
        max_device_bytes: int | None = None,
        graphs: bool | None = None,
        trace_ahead: bool | None = None,
    ):
        self.module = module
        self.backend = make_backend(backend, deferred=deferred, sanitize=sanitize)
        # `constants`: the compile's store, which also knows the IR file's directory;
        # without one, a constants file the module names is read from the current directory.
        self.session = Session(self.backend, (constants or ConstantsStore()).data_of(module))
        self.session.cap = AllocationCap.resolve(max_device_bytes)
        # Graphs (`xhip.runtime.replay`): on by default on a GPU, where a run's host work is
        # the cost; the reference backend takes them when asked (tests).
        wanted = self.backend.name != "reference" if graphs is None else graphs
        compiles = self.backend.stats.kernel_compiles
        self.backend.enter_thread()
        self.bound = bind(module, self.session, graphs=wanted)
        signature = self.signature = self.bound.signature
        self.inputs, self.outputs, self.out_params = list(signature.inputs), list(signature.outputs), signature.out_params
        self.model_buffers = self.bound.model_buffers
        why_not = self.bound.why_not_replayable if wanted else "graphs are off"
        self._replays = GraphReplays(why_not)
        self._records = wanted and self.bound.why_not_recorded is None
        """Whether runs at shapes not captured are recorded (graphs across shapes)."""
        self.compute_dtype = compute_dtype(module)
        """The float the module computes in where narrower than it declares (onnx-convert-precision), else None."""
        self._built = Report(
            backend=f"{self.backend.name}: {self.backend.describe()}",
            compute_precision="" if self.compute_dtype is None else self.compute_dtype.name,
            kernel_compiles=self.backend.stats.kernel_compiles - compiles,
            replay=why_not if wanted and why_not else "",
        )
        """The report before any run (what compile figures are written into); each run's
        report starts as a copy of it."""
        self._dtype_names = {spec.dtype: str(spec.dtype) for spec in (*self.outputs, *self.out_params)}
        """The report's spelling of each output dtype (str(dtype) costs microseconds)."""
        self._lock = threading.RLock()
        self._last = threading.local()
        """Per thread: `report`, `registers` (the final register file) and `run_symbols` of
        that thread's last run."""
        self.traced_runs = TracedClasses(
            self.bound.program, self.session.layouts,
            [None] * signature.takes_context + [spec.shape if spec.is_memref else None for spec, _ in signature.arguments],
            list(self.bound.pooled.values()), self.backend,
            "deferred and sanitized runs are interpreted" if getattr(self.backend, "deferred", False) else None,
        )  # fmt: skip
        """Runs that neither capture nor record a graph go through a traced run per class of
        shapes (`xhip.runtime.trace`): `why_not` says why they are interpreted instead."""
        # A first run at a new shape is what a GPU user waits on longest: its class is traced
        # now, at compile time, rather than its runs interpreted (the reference backend's
        # tests compare both: there only when asked).
        ahead = self.backend.name != "reference" if trace_ahead is None else trace_ahead
        if ahead:
            for extent in AHEAD_EXTENTS:
                self._trace_ahead(extent)
        # The bound program and the IR behind it live as long as the executable and are never
        # garbage: keep the collector's passes off them (they were a tenth of a run's host time).
        gc.freeze()

    def _trace_ahead(self, extent: int) -> None:
        """Trace the class of inputs whose symbolic dims are all `extent`, each past a KV
        cache append extends being a cache's written rows (a program that takes host
        scalars is traced at run time)."""
        symbols = {name: extent for spec in self.inputs for name in spec.shape if isinstance(name, str)}
        operands: list[AheadOperand | None] = [None] * self.signature.takes_context
        for spec, _ in self.signature.arguments:
            if not spec.is_memref or any(d is None or (isinstance(d, str) and d not in symbols) for d in spec.shape):
                return
            shape = tuple(d if isinstance(d, int) else symbols[d] for d in spec.shape)  # type: ignore[index]
            cache = self.bound.caches.get(spec.name)
            operands.append(AheadOperand(shape, spec.dtype, None if cache is None else cache[0]))
        self.traced_runs.trace_ahead(operands)

    # -- what the calling thread's last run left ----------------------------------------

    @property
    def report(self) -> Report:
        """The calling thread's last run's report (before any run: the compile's)."""
        return getattr(self._last, "report", self._built)

    @property
    def run_symbols(self) -> dict[str, int]:
        """The calling thread's last run's value of each symbolic dim of the inputs."""
        return getattr(self._last, "run_symbols", {})

    @property
    def _registers(self) -> Sequence[object]:
        return getattr(self._last, "registers", [])

    def _remember(self, report: Report, registers: Sequence[object], run_symbols: dict[str, int]) -> None:
        self._last.report, self._last.registers, self._last.run_symbols = report, registers, run_symbols

    # -- inputs --------------------------------------------------------------------------

    def check_feeds(self, feeds: Mapping[str, Any]) -> None:
        """Every input present, nothing extra, ranks, dtypes and dims consistent."""
        self.signature.check(feeds)

    def _out_param(self, spec: TensorSpec, bound: Bound) -> MemRef:
        """A buffer for a `bufferize.result` argument, sized by the inputs' symbolic dims."""
        dims = out_param_dims(spec, bound)
        owner = Owner(f"output '{spec.name}'")
        nbytes = math.prod(dims) * spec.dtype.itemsize
        expression = f"size = {' * '.join(map(str, [*spec.shape, spec.dtype.itemsize]))} bytes"
        self.session.cap.require(nbytes, f"output parameter '{spec.name}'", expression, dims)
        buffer = self.backend.allocate(nbytes, owner.label, "output")
        return MemRef.contiguous(buffer, dims, spec.dtype, owner)

    def _argument(self, spec: TensorSpec, value: np.ndarray | DeviceArray, capture: bool) -> object:
        if not spec.is_memref:
            return np.asarray(value)
        if isinstance(value, DeviceArray):
            # A device array is read in place: the program never writes a function argument
            # (they take no part in buffer reuse). This executable's own (`to_device`) always:
            # a replay that is fed another array copies it into this one's buffer, marking
            # it stale. Any other only by a run that is not captured: a captured graph keeps
            # reading its input buffers, which must be the executable's, not the caller's
            # (a decoder's caches, fed back each step, are not copied).
            if value.staged_by is self:
                return value.memref(self.backend)
            if not capture:
                memref = value.memref(self.backend)
                if spec.takes_view(memref) or memref.is_dense:
                    return memref
        return self._holding(value, f"input '{spec.name}'", "input")

    def _holding(self, value: np.ndarray | DeviceArray | MemRef, label: str, kind: str) -> MemRef:
        """A fresh dense buffer of `kind` holding `value`: uploaded, or copied on the device."""
        on_host = not isinstance(value, DeviceArray | MemRef)
        if on_host:
            value = np.asarray(value)  # a view, never a copy, of an array
        nbytes = math.prod(value.shape) * value.dtype.itemsize
        # Before any copy: a stride-0 view of a few bytes can stand for gigabytes.
        expression = f"size = {' * '.join(map(str, [*value.shape, value.dtype.itemsize]))} bytes"
        self.session.cap.require(nbytes, label, expression, value.shape)
        if on_host:
            value = np.require(value, requirements="C")  # not ascontiguousarray: it makes rank 0 [1]
        memref = MemRef.contiguous(self.backend.allocate(nbytes, label, kind), value.shape, value.dtype, Owner(label))
        self._feed_into(memref, value, label)
        return memref

    def _feed_into(self, memref: MemRef, value: np.ndarray | DeviceArray | MemRef, what: str) -> None:
        if isinstance(value, DeviceArray):
            value = value.memref(self.backend)
        if isinstance(value, MemRef):
            self.backend.copy(value, memref, what)
        else:
            self.backend.upload(memref, np.require(value, requirements="C"))

    def to_device(self, values: np.ndarray, name: str = "input") -> DeviceArray:
        """Host data in this executable's device memory, to feed `run` without an upload per
        run: its runs read the array in place (no copy). A graph captured over it keeps it as
        its input buffer, so a replay fed a different array copies that one over it, and it
        goes stale (reading or feeding it again raises)."""
        with self._lock:
            self.backend.enter_thread()
            memref = self._holding(values, f"device array '{name}'", "input")
        return DeviceArray(memref, self.backend, memref.owner.label, staged_by=self, lock=self._lock)

    # -- KV caches -----------------------------------------------------------------------

    @property
    def cache_inputs(self) -> dict[str, str]:
        """Each input that a KV cache append extends in place (hip-append-kv-caches) and the
        output to feed back into it: `{"past_key_0": "present_key_0", ...}`."""
        return {past: present for past, (_, present) in self.bound.caches.items()}

    def cache_buffers(self, pasts: Mapping[str, np.ndarray | DeviceArray], capacity: int) -> dict[str, DeviceArray]:
        """A cache buffer of `capacity` rows along its cache axis for each named input of
        `cache_inputs`, holding the rows given (zero rows start an empty cache): feed the
        arrays as those inputs, then each run's `present` outputs (`on_device`) in their place,
        and every step writes its new rows alone, into these buffers. A run past `capacity`
        moves the cache once into a buffer of twice the capacity."""
        with self._lock:
            self.backend.enter_thread()
            caches = {}
            for name, values in pasts.items():
                if name not in self.bound.caches:
                    expected = ", ".join(self.bound.caches) or "none"
                    raise XhipError(f"cache_buffers: '{name}' is not an input a KV cache append extends (those are: {expected})")
                axis = self.bound.caches[name][0]
                spec = next(spec for spec in self.inputs if spec.name == name)
                if values.dtype != spec.dtype or len(values.shape) != len(spec.shape):
                    raise XhipError(f"cache_buffers: '{name}' is {list(values.shape)} {values.dtype}, expected {spec.describe()}")
                rows = values.shape[axis]
                if capacity < rows:
                    raise XhipError(f"cache_buffers: '{name}' holds {rows} rows along axis {axis}, more than the capacity {capacity}")
                label = f"cache of input '{name}'"
                cache = kv_cache.allocate_cache(self.session, values.shape, spec.dtype, axis, capacity, label)
                if rows:  # through a dense buffer: an upload lands in contiguous bytes
                    self.backend.copy(self._holding(values, label, "input"), cache.rows(0, rows), label)
                cache.length = rows
                caches[name] = DeviceArray(cache.rows(0, rows), self.backend, label, lock=self._lock)
            return caches

    # -- running -------------------------------------------------------------------------

    def run(self, feeds: Mapping[str, np.ndarray | DeviceArray], *, on_device: bool = False) -> dict[str, Any]:
        """Run on `feeds` (host arrays or `DeviceArray`s); host copies of the outputs, or with
        `on_device` `DeviceArray`s valid until a later run of the same input shapes.
        Safe from many threads (serialized: see the module's docstring)."""
        if not isinstance(feeds, Mapping):
            expected = ", ".join(spec.describe() for spec in self.inputs) or "none"
            raise XhipError(f"run takes a mapping of input name -> array, not {type(feeds).__name__} (inputs: {expected})")
        with self._lock:
            self.backend.enter_thread()
            return self._run(feeds, on_device)

    def _run(self, feeds: Mapping[str, np.ndarray | DeviceArray], on_device: bool) -> dict[str, Any]:
        signature = self.signature.key(feeds)
        # A captured signature passed the checks when it was first seen: the same names,
        # shapes and dtypes pass again (the replay's host work is what small models wait on).
        captured = None if signature is None else self._replays.replayable(signature, self.session.generation)
        if captured is not None:
            return self._replay(captured, feeds, on_device)
        bound = self.signature.check(feeds)
        capture = self._replays.should_capture(signature)
        # A run on_device may have left work in flight; this one's host writes (host scratch)
        # must not overtake it. (A replay does no host writes, only stream-ordered copies.)
        self.backend.sync()
        stats = self.backend.stats
        before = (stats.kernel_launches, stats.readbacks, stats.syncs, stats.event_waits)
        start = time.perf_counter()
        self.session.run = RunState()
        # By position, not name: a graph input may also be an output of the same name.
        out_params = [(spec, self._out_param(spec, bound)) for spec, is_result in self.signature.arguments if is_result]
        filled = iter(buffer for _, buffer in out_params)
        arguments: list[object] = [None] if self.signature.takes_context else []
        inputs: list[tuple[str, MemRef]] = []
        staged: dict[str, DeviceArray] = {}
        for spec, is_result in self.signature.arguments:
            argument = next(filled) if is_result else self._argument(spec, feeds[spec.name], capture)
            if not is_result and isinstance(argument, MemRef):
                inputs.append((spec.name, argument))
                feed = feeds[spec.name]
                if isinstance(feed, DeviceArray) and feed.holds(argument):
                    staged[spec.name] = feed
            arguments.append(argument)
        # At a shape not captured, the work is recorded: it may run through a graph captured at
        # another shape, its changed nodes updated (xhip.runtime.backends.gpu.graph_updates).
        record = not capture and self._records
        if capture:
            self.backend.begin_capture()
        elif record:
            self.backend.begin_recording()
        try:
            recording = self.backend.recording
            registers: Sequence[object]
            if capture:
                results, registers = self.bound.program.execute(arguments)
            elif recording is None:
                results, registers = self.traced_runs.execute(arguments)
            else:
                recorded = functools.partial(self.bound.program.execute_recorded, recording=recording, stats=stats)
                results, registers = self.traced_runs.execute(arguments, recorded)
        except BaseException:
            if record:
                self.backend.drop_recording()
            raise
        class_graph, nodes_updated = self.backend.end_recording() if record else ("", 0)
        produced = [*zip(self.outputs, results), *out_params]
        run_symbols = {symbol: extent for symbol, (extent, _) in bound.items()}
        if capture:
            graph = self.backend.end_capture()
            self.backend.replay(graph)
            captured = Captured(
                graph, inputs, produced, registers, run_symbols, self.session.run, self.session.generation,
                staged=staged,
            )
            self._replays.graphs[signature] = captured
        self._finish(on_device)
        for spec, value in produced:
            if isinstance(value, MemRef):
                self.backend.check_written(value, f"output '{spec.name}'")
        outputs = self._deliver(produced, on_device, captured)
        report = dataclasses.replace(self._built)
        report.run_ms = (time.perf_counter() - start) * 1e3
        report.kernel_launches = stats.kernel_launches - before[0]
        report.readbacks = stats.readbacks - before[1]
        report.syncs = stats.syncs - before[2]
        report.event_waits = stats.event_waits - before[3]
        report.class_graph, report.graph_nodes_updated = class_graph, nodes_updated
        report.traced = isinstance(registers, TracedRegisters)
        report.pool_bytes = self.session.run.pool_bytes
        report.host_scratch_bytes = self.session.run.scratch_bytes
        report.cache_bytes = sum(self.session.run.caches.values())
        report.memory = MemoryFigures(
            self.model_buffers, run_symbols, self.bound.alignment, registers, self.bound.pooled, self.bound.intervals
        )
        report.outputs = {name: {"shape": list(np.shape(value)), "dtype": self._dtype_names.get(value.dtype) or str(value.dtype)} for name, value in outputs.items()}
        if captured is not None:
            captured.report = dataclasses.replace(report)
        self._remember(report, registers, run_symbols)
        return outputs

    def _replay(self, captured: Captured, feeds: Mapping[str, np.ndarray | DeviceArray], on_device: bool) -> dict[str, Any]:
        """New inputs into the captured graph's buffers, the graph, the outputs back."""
        stats = self.backend.stats
        syncs = stats.syncs
        start = time.perf_counter()
        for name, buffer in captured.inputs:
            feed = feeds[name]
            if isinstance(feed, DeviceArray) and feed.holds(buffer):
                continue  # the array the graph was captured over: read in place
            self._feed_into(buffer, feed, f"input '{name}'")
            if name in captured.staged:
                captured.staged.pop(name).mark_stale("overwritten by another array's values (a graph replay reads its input buffer in place)")
        for earlier in captured.handed_out:
            earlier.mark_stale("overwritten by a later run of the same input shapes (a graph replay)")
        captured.handed_out.clear()
        self.backend.replay(captured.graph)
        self._finish(on_device)
        outputs = self._deliver(captured.produced, on_device, captured)
        self.session.run = captured.run
        # What the capturing run measured (memory, launches, outputs' shapes: the same signature,
        # and no readbacks), with this run's time and syncs.
        assert captured.report is not None  # the capturing run left it
        report = dataclasses.replace(captured.report)
        report.replayed = True
        report.run_ms = (time.perf_counter() - start) * 1e3
        report.syncs = stats.syncs - syncs
        self._remember(report, captured.registers, captured.run_symbols)
        return outputs

    @property
    def pooled_views(self) -> dict[SSAValue, object]:
        """The last run's value of each pooled `memref.view` (program order): where its bytes were."""
        return {view: self._registers[slot] for view, slot in self.bound.pooled.items()} if self._registers else {}

    def bounds_at(self, shapes: Mapping[str, Sequence[int]]) -> HonestBounds | None:
        """The model's two bounds for inputs of these shapes (by input name), without a run."""
        symbols = self.signature.symbols_at(shapes)
        return self.model_buffers.bounds(symbols, self.bound.alignment) if self.model_buffers else None

    def _finish(self, on_device: bool) -> None:
        """Wait for the run's device work, except where its outputs stay on the device: a
        reader of a DeviceArray waits then (numpy(), __cuda_array_interface__)."""
        if not on_device:
            self.backend.sync()

    def _deliver(self, produced: Sequence[tuple[Any, object]], on_device: bool, captured: Captured | None) -> dict[str, Any]:
        """The outputs as the caller asked: host copies, or device arrays (remembered by the
        graph whose replays will overwrite them)."""
        if not on_device:
            return {spec.name: self._host_copy(value) for spec, value in produced}
        outputs: dict[str, Any] = {}
        for spec, value in produced:
            if not isinstance(value, MemRef):
                outputs[spec.name] = np.array(value)
                continue
            if value.buffer.kind in ("pool", "scratch"):  # the next run reuses these bytes
                value = self._holding(value, f"output '{spec.name}'", "output")
            outputs[spec.name] = array = DeviceArray(value, self.backend, f"output '{spec.name}'", lock=self._lock)
            if captured is not None:
                captured.handed_out.append(array)
        return outputs

    def _host_copy(self, value: object) -> np.ndarray:
        if isinstance(value, MemRef):
            return self.backend.to_host(value)
        return np.array(value)
