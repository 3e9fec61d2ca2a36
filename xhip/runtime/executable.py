"""Executable: a compiled function, its host plan, its session state and a report.

`Executable(module, backend)` builds the plan once; `run(feeds)` checks the
inputs against the signature (names, ranks, dtypes, static dims and symbolic
dims shared between inputs), executes the plan and returns the graph outputs
by name (host arrays, or with `on_device=True` `DeviceArray`s, which `run` also
takes as feeds: `xhip.runtime.device_array`). Pools, host scratch and constants live as long as the Executable.
`max_device_bytes` (with `XHIP_MAX_DEVICE_BYTES` and the physical memory) caps
every single allocation (`xhip.runtime.limits`).
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    MemRefType,
    ModuleOp,
    TensorType,
)
from xdsl.ir import Attribute, SSAValue

from xhip.analysis.liveness import live_intervals, max_live_sum
from xhip.analysis.model_buffers import recorded_model_buffers
from xhip.memory.model_bound import HonestBounds
from xhip.constants_file import ConstantsStore
from xhip.diagnostics import XhipError, op_error
from xhip.dialects.hip import OUT_PARAM_ATTR, ContextType, GetPoolOp, pool_alignment
from xhip.dialects.onnx.signature import entry_attributes, parse_dim_params, value_name
from xhip.runtime.backends import make_backend
from xhip.runtime.buffers import MemRef, Owner, numpy_dtype
from xhip.runtime.device_array import DeviceArray
from xhip.runtime.limits import AllocationCap
from xhip.runtime.plan import build_plan
from xhip.runtime.replay import Captured, GraphReplays, why_not_replayable
from xhip.runtime.translate.base import RunState, Session

DEFAULT_POOL_ALIGNMENT = 256


@dataclass(frozen=True)
class TensorSpec:
    """One graph input or output as the function declares it."""

    name: str
    dtype: np.dtype
    shape: tuple[int | str | None, ...]
    """Static extent, symbolic name (from onnx.dim_params), or None for an unnamed `?`."""
    is_memref: bool

    def describe(self) -> str:
        dims = ["?" if d is None else str(d) for d in self.shape]
        return f"{self.name}: [{', '.join(dims)}] {self.dtype}"


def _spec(function: func.FuncOp, value_type: Attribute, attrs: dict[str, Attribute], fallback: str) -> TensorSpec:
    named = value_name(attrs)
    name = fallback if named is None else named
    try:
        symbols = parse_dim_params(attrs)
    except ValueError as err:
        raise op_error(function, f"{name}: {err}") from None
    if not isinstance(value_type, TensorType | MemRefType):
        # A host scalar (a result of stage IR written by hand): rank 0.
        return TensorSpec(name, numpy_dtype(value_type), (), False)
    shape = tuple(
        symbols.get(axis) if extent == DYNAMIC_INDEX else extent
        for axis, extent in enumerate(value_type.get_shape())
    )
    return TensorSpec(name, numpy_dtype(value_type.element_type), shape, isinstance(value_type, MemRefType))


def _pooled_buffers(function: func.FuncOp, slots: Mapping[SSAValue, int]) -> dict[SSAValue, int]:
    """`memref.view`s into a `hip.get_pool`, with their registers."""
    pooled = {}
    for op in function.walk():
        if isinstance(op, memref.ViewOp) and isinstance(op.source.owner, GetPoolOp):
            pooled[op.result] = slots[op.result]
    return pooled


def _shape_and_dtype(value: Any) -> tuple[tuple[int, ...], np.dtype]:
    if not hasattr(value, "dtype"):  # a list or a Python number
        value = np.asarray(value)
    return np.shape(value), value.dtype


def _pool_alignment(module: ModuleOp) -> int:
    alignment = pool_alignment(module)
    return DEFAULT_POOL_ALIGNMENT if alignment is None else alignment


@dataclass
class Report:
    """What a run did, for tables and JSON (`xhip-run --report`)."""

    backend: str = ""
    """What ran the device work (`auto` resolved): e.g. 'cuda: NVIDIA H200 (sm_90)'."""
    pool_bytes: int = 0
    lower_bound_bytes: int | None = None
    """The model's own max-live bound: every intermediate its own buffer, before any reuse
    pass (hip-record-model-buffers), 256-byte aligned like the pool. Intermediates that
    hip-fuse-elementwise keeps in registers inside one kernel are no buffers and not counted
    (pipelines/experiments/no-fusion.yaml gives the bound with every ONNX intermediate).
    None when the module records no model buffers or a size needs a dim the inputs do not bind."""
    in_place_lower_bound_bytes: int | None = None
    """The same bound if every op that may write over its dying input (MAY_ALIAS_INPUT) did."""
    merged_lower_bound_bytes: int | None = None
    """Max-live of the pooled buffers of the final IR: the bound of the already-merged
    program (after hip-optimize-memrefs), not of the model."""
    pool_over_bound: float | None = None
    """pool_bytes / lower_bound_bytes: what reports, tests and benchmarks quote."""
    host_scratch_bytes: int = 0
    kernel_launches: int = 0
    readbacks: int = 0
    syncs: int = 0
    event_waits: int = 0
    kernel_compiles: int = 0
    """Translation units the runtime compiler built in this run (0 once the compile cache has them)."""
    outputs: dict[str, dict[str, object]] = field(default_factory=dict)
    check: dict[str, object] | None = None
    compile_s: float = 0.0
    run_ms: float = 0.0
    replayed: bool = False
    """Whether the run replayed a captured graph (the same input shapes ran twice before)."""
    replay: str = ""
    """Why runs of this executable never replay ("" when they can, or graphs are off)."""

    def as_dict(self) -> dict[str, object]:
        return dict(vars(self))


class Executable:
    """A module ready to run: build once, run many times."""

    def __init__(
        self,
        module: ModuleOp,
        backend: str = "reference",
        *,
        deferred: bool = False,
        sanitize: bool = False,
        constants: ConstantsStore | None = None,
        max_device_bytes: int | None = None,
        graphs: bool | None = None,
    ):
        self.module = module
        self.backend = make_backend(backend, deferred=deferred, sanitize=sanitize)
        # `constants`: the compile's store, which also knows the IR file's directory;
        # without one, a constants file the module names is read from the current directory.
        self.session = Session(self.backend, (constants or ConstantsStore()).data_of(module))
        self.session.cap = AllocationCap.resolve(max_device_bytes)
        self.plan, function = build_plan(module, self.session)
        arg_types = function.function_type.inputs.data
        self._takes_context = bool(arg_types) and isinstance(arg_types[0], ContextType)
        first = 1 if self._takes_context else 0
        arguments = [
            (_spec(function, t, entry_attributes(function.arg_attrs, i), f"arg{i - first}"), OUT_PARAM_ATTR in entry_attributes(function.arg_attrs, i))
            for i, t in enumerate(arg_types)
            if i >= first
        ]
        self.inputs = [spec for spec, is_result in arguments if not is_result]
        self.out_params = [spec for spec, is_result in arguments if is_result]
        self._arguments = arguments
        self.outputs = [
            _spec(function, t, entry_attributes(function.res_attrs, i), f"result{i}")
            for i, t in enumerate(function.function_type.outputs.data)
        ]
        self.report = Report(backend=f"{self.backend.name}: {self.backend.describe()}")
        self._pooled = _pooled_buffers(function, self.plan.slots)
        self.pooled_views: dict[SSAValue, object] = {}
        """The last run's value of each pooled `memref.view` (program order): where its bytes were."""
        self.run_symbols: dict[str, int] = {}
        """The last run's value of each symbolic dim of the inputs."""
        block = function.body.blocks.first
        self._intervals = live_intervals(block, self._pooled) if self._pooled and block is not None else {}
        self._alignment = _pool_alignment(module)
        # Graphs (`xhip.runtime.replay`): on by default on a GPU, where a run's host work is
        # the cost; the reference backend takes them when asked (tests).
        wanted = self.backend.name != "reference" if graphs is None else graphs
        scalar_inputs = any(not spec.is_memref for spec in self.inputs)
        why_not = why_not_replayable(function, scalar_inputs) if wanted else "graphs are off"
        self._replays = GraphReplays(why_not)
        self.report.replay = why_not if wanted and why_not else ""
        try:
            # What hip-record-model-buffers wrote for this function (None: nothing recorded).
            self.model_buffers = recorded_model_buffers(module, function.sym_name.data)
        except ValueError as err:
            raise op_error(module, str(err)) from None

    # -- inputs --------------------------------------------------------------------------

    def check_feeds(self, feeds: Mapping[str, np.ndarray]) -> None:
        """Every input present, nothing extra, ranks, dtypes and dims consistent."""
        expected = {spec.name for spec in self.inputs}
        missing = [spec.name for spec in self.inputs if spec.name not in feeds]
        if missing:
            raise XhipError(f"missing input '{missing[0]}' (expected {', '.join(s.describe() for s in self.inputs)})")
        extra = sorted(set(feeds) - expected)
        if extra:
            raise XhipError(f"unexpected input '{extra[0]}' (the model takes {', '.join(sorted(expected)) or 'none'})")
        self._bound_symbols(feeds)

    def _bound_symbols(self, feeds: Mapping[str, np.ndarray]) -> dict[str, tuple[int, str]]:
        """Symbolic dim -> (extent, where it was bound); checks the inputs on the way."""
        bound: dict[str, tuple[int, str]] = {}
        for spec in self.inputs:
            feed = feeds[spec.name]
            value = feed if isinstance(feed, DeviceArray) else np.asarray(feed)
            if value.dtype != spec.dtype:
                raise XhipError(f"input '{spec.name}' has dtype {value.dtype}, expected {spec.dtype}")
            if value.ndim != len(spec.shape):
                raise XhipError(f"input '{spec.name}' has rank {value.ndim} {list(value.shape)}, expected {spec.describe()}")
            for axis, (extent, declared) in enumerate(zip(value.shape, spec.shape)):
                if isinstance(declared, int) and extent != declared:
                    raise XhipError(f"input '{spec.name}' dim {axis} is {extent}, expected {declared}")
                if isinstance(declared, str):
                    previous = bound.setdefault(declared, (extent, f"'{spec.name}' dim {axis}"))
                    if previous[0] != extent:
                        raise XhipError(
                            f"input '{spec.name}' dim {axis} is {extent} but {previous[1]} gives "
                            f"'{declared}' = {previous[0]}"
                        )
        return bound

    def _out_param(self, spec: TensorSpec, bound: Mapping[str, tuple[int, str]]) -> MemRef:
        """A buffer for a `bufferize.result` argument, sized by the inputs' symbolic dims."""
        dims = []
        for declared in spec.shape:
            if isinstance(declared, int):
                dims.append(declared)
            elif isinstance(declared, str) and declared in bound:
                dims.append(bound[declared][0])
            else:
                raise XhipError(f"cannot size output parameter {spec.describe()}: no input binds its dynamic dims")
        owner = Owner(f"output '{spec.name}'")
        nbytes = math.prod(dims) * spec.dtype.itemsize
        expression = f"size = {' * '.join(map(str, [*spec.shape, spec.dtype.itemsize]))} bytes"
        self.session.cap.require(nbytes, f"output parameter '{spec.name}'", expression, dims)
        buffer = self.backend.allocate(nbytes, owner.label, "output")
        return MemRef.contiguous(buffer, dims, spec.dtype, owner)

    def _argument(self, spec: TensorSpec, value: np.ndarray | DeviceArray) -> object:
        if not spec.is_memref:
            return np.asarray(value)
        if isinstance(value, DeviceArray) and value.staged_by is self:
            # This executable's own device array is read in place: the plan never writes
            # a function argument (they take no part in buffer reuse), and a replay that
            # is fed another array copies it into this one's buffer, marking it stale.
            return value.memref(self.backend)
        # Any other device feed is copied: a captured graph keeps reading its input
        # buffers, which must be the executable's, not the caller's.
        return self._holding(value, f"input '{spec.name}'", "input")

    def _holding(self, value: np.ndarray | DeviceArray | MemRef, label: str, kind: str) -> MemRef:
        """A fresh dense buffer of `kind` holding `value`: uploaded, or copied on the device."""
        if not isinstance(value, DeviceArray | MemRef):
            value = np.require(value, requirements="C")  # not ascontiguousarray: it makes rank 0 [1]
        nbytes = math.prod(value.shape) * value.dtype.itemsize
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
        memref = self._holding(values, f"device array '{name}'", "input")
        return DeviceArray(memref, self.backend, memref.owner.label, staged_by=self)

    # -- running -------------------------------------------------------------------------

    def _signature(self, feeds: Mapping[str, np.ndarray]) -> tuple[object, ...] | None:
        """The feeds' names, shapes and dtypes, in input order; None when one is missing."""
        if len(feeds) != len(self.inputs):
            return None
        try:
            return tuple(_shape_and_dtype(feeds[spec.name]) for spec in self.inputs)
        except KeyError:
            return None

    def run(self, feeds: Mapping[str, np.ndarray | DeviceArray], *, on_device: bool = False) -> dict[str, Any]:
        """Run on `feeds` (host arrays or `DeviceArray`s); host copies of the outputs, or with
        `on_device` `DeviceArray`s valid until a later run of the same input shapes."""
        signature = self._signature(feeds)
        # A captured signature passed check_feeds when it was first seen: the same names,
        # shapes and dtypes pass again (the replay's host work is what small models wait on).
        captured = None if signature is None else self._replays.replayable(signature, self.session.generation)
        if captured is not None:
            return self._replay(captured, feeds, on_device)
        self.check_feeds(feeds)
        capture = self._replays.should_capture(signature)
        # A run on_device may have left work in flight; this one's host writes (host scratch)
        # must not overtake it. (A replay does no host writes, only stream-ordered copies.)
        self.backend.sync()
        stats = self.backend.stats
        before = (stats.kernel_launches, stats.readbacks, stats.syncs, stats.event_waits, stats.kernel_compiles)
        start = time.perf_counter()
        self.session.run = RunState()
        bound = self._bound_symbols(feeds)
        # By position, not name: a graph input may also be an output of the same name.
        out_params = [(spec, self._out_param(spec, bound)) for spec, is_result in self._arguments if is_result]
        filled = iter(buffer for _, buffer in out_params)
        arguments: list[object] = [None] if self._takes_context else []
        inputs: list[tuple[str, MemRef]] = []
        staged: dict[str, DeviceArray] = {}
        for spec, is_result in self._arguments:
            argument = next(filled) if is_result else self._argument(spec, feeds[spec.name])
            if not is_result and isinstance(argument, MemRef):
                inputs.append((spec.name, argument))
                if isinstance(feeds[spec.name], DeviceArray) and feeds[spec.name].holds(argument):  # type: ignore[union-attr]
                    staged[spec.name] = feeds[spec.name]  # type: ignore[assignment]
            arguments.append(argument)
        if capture:
            self.backend.begin_capture()
        results, pooled = self.plan.execute(arguments, self._pooled.values())
        produced = [*zip(self.outputs, results), *out_params]
        self.pooled_views = {view: pooled[slot] for view, slot in self._pooled.items()}
        self.run_symbols = {symbol: extent for symbol, (extent, _) in bound.items()}
        if capture:
            graph = self.backend.end_capture()
            self.backend.replay(graph)
            captured = Captured(
                graph, inputs, produced, self.pooled_views, self.run_symbols, self.session.run, self.session.generation,
                staged=staged,
            )
            self._replays.graphs[signature] = captured
        self._finish(on_device)
        for spec, value in produced:
            if isinstance(value, MemRef):
                self.backend.check_written(value, f"output '{spec.name}'")
        outputs = self._deliver(produced, on_device, captured)
        self.report.replayed = False
        self.report.run_ms = (time.perf_counter() - start) * 1e3
        self.report.kernel_launches = stats.kernel_launches - before[0]
        self.report.readbacks = stats.readbacks - before[1]
        self.report.syncs = stats.syncs - before[2]
        self.report.event_waits = stats.event_waits - before[3]
        self.report.kernel_compiles = stats.kernel_compiles - before[4]
        self.report.pool_bytes = self.session.run.pool_bytes
        self.report.merged_lower_bound_bytes = self._merged_lower_bound(pooled)
        self._honest_bounds(self.run_symbols)
        self.report.host_scratch_bytes = self.session.run.scratch_bytes
        self.report.outputs = {
            name: {"shape": list(np.shape(value)), "dtype": str(value.dtype)} for name, value in outputs.items()
        }
        if captured is not None:
            captured.report = dataclasses.replace(self.report)
        return outputs

    def _replay(self, captured: Captured, feeds: Mapping[str, np.ndarray | DeviceArray], on_device: bool) -> dict[str, Any]:
        """New inputs into the captured graph's buffers, the graph, the outputs back."""
        stats = self.backend.stats
        before = (stats.syncs, stats.kernel_compiles)
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
        self.pooled_views, self.run_symbols = captured.pooled_views, captured.run_symbols
        # What the capturing run measured (memory, launches, outputs' shapes: the same signature,
        # and no readbacks), with this run's time, syncs and compiles.
        self.report = dataclasses.replace(captured.report)
        self.report.replayed = True
        self.report.run_ms = (time.perf_counter() - start) * 1e3
        self.report.syncs = stats.syncs - before[0]
        self.report.kernel_compiles = stats.kernel_compiles - before[1]
        return outputs

    def bounds_at(self, shapes: Mapping[str, Sequence[int]]) -> HonestBounds | None:
        """The model's two bounds for inputs of these shapes (by input name), without a run."""
        symbols: dict[str, int] = {}
        for spec in self.inputs:
            for declared, extent in zip(spec.shape, shapes.get(spec.name, ())):
                if isinstance(declared, str):
                    symbols.setdefault(declared, int(extent))
        return self.model_buffers.bounds(symbols, self._alignment) if self.model_buffers else None

    def _honest_bounds(self, dims: Mapping[str, int]) -> None:
        """The model's bounds at this run's dims, and pool / bound."""
        bounds = self.model_buffers.bounds(dims, self._alignment) if self.model_buffers else None
        self.report.lower_bound_bytes = bounds.lower if bounds else None
        self.report.in_place_lower_bound_bytes = bounds.in_place if bounds else None
        self.report.pool_over_bound = (
            self.report.pool_bytes / bounds.lower if bounds and bounds.lower else None
        )

    def _merged_lower_bound(self, pooled: dict[int, object]) -> int | None:
        """The most aligned pooled bytes of the final IR live at one program point."""
        if not self._pooled:
            return None
        sizes = {}
        for root, slot in self._pooled.items():
            nbytes = pooled[slot].nbytes_spanned if isinstance(pooled[slot], MemRef) else 0  # type: ignore[union-attr]
            sizes[root] = -(-nbytes // self._alignment) * self._alignment
        return max_live_sum(self._intervals, sizes)

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
            outputs[spec.name] = array = DeviceArray(value, self.backend, f"output '{spec.name}'")
            if captured is not None:
                captured.handed_out.append(array)
        return outputs

    def _host_copy(self, value: object) -> np.ndarray:
        if isinstance(value, MemRef):
            return self.backend.to_host(value)
        return np.array(value)
