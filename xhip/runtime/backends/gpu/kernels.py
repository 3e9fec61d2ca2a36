"""The GPU kernel library: launch sites loaded once into launchers, kernels compiled once.

A site (`xhip.kernels.family.Site`) names its kernels; `KernelLibrary.launcher` queues
those not loaded yet and returns a `GpuLauncher` whose kernels get their function handles
when the queue is compiled (`load_queued`, at the end of a program's bind). A launch then
computes the family's argument values, writes them into each kernel's argument buffer
(allocated once, written at fixed offsets by a generated writer) and calls the driver; a
launch whose site has a vendor library that takes it (a float matmul on BLAS, a Conv on
cuDNN: the site's `LibraryRule`) goes to that library instead.

Compiling goes through the per-kernel compile cache: each kernel is keyed by its own
source, the misses of one queue compile as one unit, and a unit that fails is compiled
kernel by kernel so that the error names the kernel (and the op) that fails and every
other kernel is compiled and kept. Nothing of a failed queue stays queued: the next
program compiles only what it needs.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

import numpy as np

from xhip.diagnostics import XhipError
from xhip.kernels.abi import KernelABI
from xhip.kernels.cache import CompileCache, cache_key
from xhip.kernels.family import Site
from xhip.kernels.abi import GemmCall, LibraryCall
from xhip.kernels.matmul import warmup_calls
from xhip.kernels.render import Target, render, render_unit
from xhip.kernels.spec_types import KernelSpec
from xhip.runtime.backends.gpu.driver import Driver, DriverError, PackedArgs, PreparedCall
from xhip.runtime.backends.gpu.graph_updates import Recording
from xhip.runtime.backends.gpu.launch_plans import CallPlan, Plan, PlanGroup, Planner, QueuedCall, fill
from xhip.runtime.backends.stats import DeviceStats
from xhip.runtime.buffers import MemRef


@dataclass(frozen=True)
class RuntimeCompiler:
    """The driver's runtime compiler, as the compile cache sees a compiler."""

    driver: Driver

    @property
    def target(self) -> str:
        return self.driver.target

    @property
    def version(self) -> str:
        return self.driver.compiler_version()

    def compile(self, source: str) -> bytes:
        return self.driver.compile(source, "xhip_kernels")


class LoadedKernel:
    """One kernel of a launcher: its function (once compiled) and grid rule."""

    __slots__ = ("spec", "abi", "grid", "flatten", "function", "block", "status")

    def __init__(self, spec: KernelSpec):
        self.spec = spec
        self.abi: KernelABI = spec.abi
        self.grid = spec.abi.grid_rule
        self.flatten = spec.abi.flatten
        # What a plan reads of the ABI, worked out now (at bind) rather than in a first run.
        spec.abi.flat_slots, spec.abi.pointer_slots  # noqa: B018
        self.function: object = None
        self.block = spec.abi.block_shape()
        self.status = spec.abi.reports_status


class GpuLauncher:
    """A site's launches on one driver: values, packed arguments, the driver's launch.

    A launch with the same operands as the launcher's last re-queues what it prepared
    then; other operands take the plan of their shape class (`launch_plans`, shared by
    the launchers of equal sites), filled with their addresses."""

    __slots__ = ("_driver", "_stream", "_forms", "_form", "_values", "_library", "_status", "_location",
                 "_last", "_queued", "_buffers", "_plans", "_plan_sites", "_planner")  # fmt: skip

    def __init__(self, library: KernelLibrary, site: Site, location: str, stream: StreamState):
        self._driver = library.driver
        self._stream = stream
        kernels = {spec.name: library.kernel(spec, location) for spec in site.kernels}
        self._forms = tuple(tuple(kernels[spec.name] for spec in form) for form in site.forms)
        self._form = site.form
        self._values = site.values
        self._library = None if site.library is None else site.library.call
        """The vendor-library call of a launch's values (None: the site has none)."""
        if site.library is not None:
            library.driver.load_library(site.library.kind)
            if site.library.kind == "blas":
                library.warm_up(site)
        self._status = library.status.word_for(location) if any(k.status for k in kernels.values()) else 0
        self._location = location
        self._last: tuple[object, ...] | None = None
        """The operands of the last launch (memrefs by identity, scalars by value)."""
        self._queued: list[tuple[LoadedKernel, tuple[int, int, int], PackedArgs]] | QueuedCall = []
        """What the last launch queued: its kernels, grids and argument buffers (which still
        hold its values), or its library call."""
        self._buffers: dict[tuple[int, int], tuple[PackedArgs, Callable[..., None]]] = {
            (index, position): PackedArgs.for_abi(kernel.abi)  # made at bind: a first run allocates none
            for index, form in enumerate(self._forms)
            for position, kernel in enumerate(form)
        }
        """An argument buffer per (form, position in it): a form may launch one kernel several
        times (a concat's pieces), each with values of its own."""
        self._plans: PlanGroup | None = library.plans_for(site)
        """The plans of this site's shape classes, shared with equal sites (None: planning off)."""
        self._plan_sites = library.plan_sites or 0
        self._planner = Planner(
            site.values, site.form, [[k.abi for k in form] for form in self._forms],
            [[k.grid for k in form] for form in self._forms], self._library,
            library.driver.prepare_call,
        )  # fmt: skip

    def __call__(self, inputs: Sequence[MemRef], outputs: Sequence[MemRef], scalars: Sequence[int | float]) -> None:
        stream = self._stream
        stream.queued = True
        operands = (inputs, outputs, scalars)
        if operands != self._last:
            self._prepare(inputs, outputs, scalars)
            self._last = operands
        # The same operands as last time (a repeated shape: the views steps hand back the
        # same memrefs) launch what was prepared then, values and packing skipped.
        queued, driver = self._queued, self._driver
        recording = stream.recording
        try:
            if isinstance(queued, QueuedCall):
                if recording is not None:
                    recording.library(queued.run, queued.shape, queued.a, queued.b, queued.c)
                else:
                    queued()
                stream.stats.kernel_launches += 1
                return
            for kernel, grid, args in queued:
                if recording is not None:
                    recording.kernel(kernel.function, grid, kernel.block, args)
                else:
                    driver.launch(kernel.function, grid, kernel.block, 0, args)
        except DriverError as err:
            raise XhipError(err.message, self._location) from None
        stream.stats.kernel_launches += len(queued)

    def _prepare(self, inputs: Sequence[MemRef], outputs: Sequence[MemRef], scalars: Sequence[int | float]) -> None:
        """The launch of these operands, its arguments packed into the kernels' buffers."""
        self._last = None  # until the buffers hold these operands' values
        group = self._plans
        if group is not None and group.sites >= self._plan_sites:
            # Equal sites take as many inputs, outputs and scalars: one flat tuple is unambiguous.
            key = (*map(_LAYOUT, inputs), *map(_LAYOUT, outputs), *scalars)
            plan = group.plans.get(key, _UNPLANNED)
            if plan is _UNPLANNED:
                if group.affine is None:  # the group's first plan: checked against the real values
                    plan = self._planner.plan(inputs, outputs, scalars, check=True)
                    group.affine = plan is not None
                else:  # none where the site's values are not affine in the addresses
                    plan = self._planner.plan(inputs, outputs, scalars, check=False) if group.affine else None
                group.plans[key] = plan
            if plan is not None:
                self._queue_plan(plan, [*map(_ADDRESS, inputs), *map(_ADDRESS, outputs)])  # type: ignore[arg-type]
                return
        launches = self.launches(inputs, outputs, scalars)
        if isinstance(launches, LibraryLaunch):
            call, run = launches
            self._queued = QueuedCall(run, call._replace(a=0, b=0, c=0), call.a, call.b, call.c)
            return
        index, kernels = launches
        queued = []
        for position, kernel, grid, flat in kernels:
            args, pack = self._buffers[index, position]
            pack(*flat)
            queued.append((kernel, grid, args))
        self._queued = queued

    def launches(
        self, inputs: Sequence[MemRef], outputs: Sequence[MemRef], scalars: Sequence[int | float],
        prepare_call: Callable[[LibraryCall], PreparedCall | None] | None = None,
    ) -> LibraryLaunch | tuple[int, list[KernelLaunch]]:
        """What a launch of these operands runs: a vendor library call, or its form and each
        kernel's (position in the form, kernel, grid, flat arguments). A trace asks it of
        operands whose extents and addresses are `xhip.index.symbolic` values, with its own
        `prepare_call` (the driver's by default)."""
        all_values = self._values(inputs, outputs, scalars)
        if self._library is not None:
            call = self._library(all_values[0])
            run = None if call is None else (prepare_call or self._driver.prepare_call)(call)
            if run is not None:
                return LibraryLaunch(call, run)  # type: ignore[arg-type]
        index = self._form(inputs, outputs) if self._form is not None else 0
        kernels = []
        for position, (kernel, values) in enumerate(zip(self._forms[index], all_values)):
            grid = kernel.grid(values)
            if 0 in grid:
                continue
            if kernel.status:
                values["status"] = self._status
            kernels.append((position, kernel, grid, kernel.flatten(values)))
        return index, kernels

    @property
    def prepare_call(self) -> Callable[[LibraryCall], PreparedCall | None]:
        return self._driver.prepare_call

    @property
    def stream(self) -> StreamState:
        return self._stream

    def _queue_plan(self, plan: Plan, addresses: list[int]) -> None:
        if isinstance(plan, CallPlan):
            self._queued = plan.at(addresses)
            return
        form, queued = self._forms[plan.form], []
        for kernel in plan.kernels:
            args, pack = self._buffers[plan.form, kernel.position]
            pack(*fill(kernel, addresses, self._status))
            queued.append((form[kernel.position], kernel.grid, args))
        self._queued = queued


class LibraryLaunch(NamedTuple):
    """A launch on a vendor library: the call and the driver's prepared run of its shape."""

    call: LibraryCall
    run: PreparedCall


KernelLaunch = tuple[int, LoadedKernel, tuple[int, int, int], list[int | float]]
"""(position in its form, kernel, grid, flat arguments) of one kernel of a launch."""

_UNPLANNED = object()
_LAYOUT = operator.attrgetter("shape", "strides")
"""What a plan's shape class reads of an operand."""
_ADDRESS = operator.attrgetter("address")


WARMUP_SCRATCH_BYTES = 256 << 20
"""Device memory the BLAS warm-ups borrow while a program binds (the calls that do not fit
are left out: a GPT-2-size LM head fits up to 1024 rows)."""


class StreamState(Protocol):
    """What a launcher tells its backend: that work is queued, and how many launches; and
    what it asks: whether the run's work is being recorded (`graph_updates`) instead."""

    queued: bool
    stats: DeviceStats
    recording: Recording | None


@dataclass
class _Queued:
    spec: KernelSpec
    location: str
    """The first op that needs the kernel (what a compile error names)."""
    kernels: list[LoadedKernel] = field(default_factory=list)


class KernelLibrary:
    """Kernel functions by spec name, compiled on first need (through the cache).

    One library serves every backend on a driver (`for_driver`): a kernel compiled and
    loaded for one Executable is there for the next.
    """

    @staticmethod
    def for_driver(driver: Driver) -> KernelLibrary:
        library = _LIBRARIES.get(id(driver))
        if library is None:
            library = _LIBRARIES[id(driver)] = KernelLibrary(driver)
        return library

    def __init__(self, driver: Driver, cache: CompileCache | None = None):
        self.driver = driver
        self._compiler = RuntimeCompiler(driver)
        self._cache = cache if cache is not None else CompileCache()
        self._functions: dict[str, object] = {}
        self._queue: dict[str, _Queued] = {}
        self.compiled_units = 0
        self.cached_kernels = 0
        self.status = StatusWords(driver)
        self._warm_sites: list[Site] = []
        self._warmed: set[GemmCall] = set()
        """The BLAS calls run once already, by shape and layout (addresses 0)."""
        self.warmup_gemms = 0
        self.plan_sites: int | None = 2
        """Launch plans by shape class (`launch_plans`) for groups of at least this many equal
        sites (a single site's plan costs more than the values it saves); None: off, every
        new operand computes its values."""
        self._plans: dict[str, PlanGroup] = {}

    @property
    def target(self) -> Target:
        return "cuda" if self.driver.name == "cuda" else "hip"

    @property
    def plan_groups(self) -> list[PlanGroup]:
        """The plan group of each distinct site loaded so far."""
        return list(self._plans.values())

    def plans_for(self, site: Site) -> PlanGroup | None:
        """The shape-class plans of sites equal to `site` (the same op facts decide the same
        values), or None when planning is off."""
        if self.plan_sites is None:
            return None
        group = self._plans.setdefault(repr(site.facts), PlanGroup())
        group.sites += 1
        return group

    def launcher(self, site: Site, location: str, stream: StreamState) -> GpuLauncher:
        return GpuLauncher(self, site, location, stream)

    def kernel(self, spec: KernelSpec, location: str) -> LoadedKernel:
        """A kernel for the launcher of the op at `location`: its function now if loaded, else
        once the queue is (a compile error names the first op that queued it)."""
        loaded = LoadedKernel(spec)
        function = self._functions.get(spec.name)
        if function is not None:
            loaded.function = function
        else:
            self._queue.setdefault(spec.name, _Queued(spec, location)).kernels.append(loaded)
        return loaded

    def warm_up(self, site: Site) -> None:
        """Queue the site's BLAS warm-up calls (run by `load_queued`, once per process each)."""
        self._warm_sites.append(site)

    def _run_warmups(self) -> None:
        """The queued sites' GEMMs at `WARM_ROWS`, on scratch memory (zeroed: the numbers do
        not matter, only that the library has loaded its kernels before a run needs them)."""
        sites, self._warm_sites = self._warm_sites, []
        if not sites:
            return
        scratch = self.driver.malloc(WARMUP_SCRATCH_BYTES)
        try:
            self.driver.fill(scratch, 0, WARMUP_SCRATCH_BYTES)
            for site in sites:
                for call in warmup_calls(site, scratch, WARMUP_SCRATCH_BYTES):
                    shape = call._replace(a=0, b=0, c=0)
                    if shape in self._warmed:
                        continue
                    self._warmed.add(shape)
                    run = self.driver.prepare_call(shape)
                    if run is None:
                        continue
                    run(call.a, call.b, call.c)
                    self.warmup_gemms += 1
            self.driver.synchronize()
        except Exception:  # noqa: BLE001 -- DriverError or the BLAS bindings' own error type
            pass  # a warm-up is a convenience: a GEMM that fails fails again, located, in a run
        finally:
            self.driver.free(scratch)

    def load_queued(self) -> None:
        """Compile (through the per-kernel cache) and load every queued kernel, then run the
        BLAS warm-ups queued with them. The queue is empty afterwards, whether it compiled or not."""
        try:
            self._load_queued()
        except BaseException:
            self._warm_sites = []  # nothing of a failed queue stays queued
            raise
        self._run_warmups()

    def _load_queued(self) -> None:
        queue, self._queue = self._queue, {}
        if not queue:
            return
        keys = {name: self._key(entry.spec) for name, entry in queue.items()}
        hits: dict[bytes, list[str]] = {}  # several kernels of one cached unit load one module
        missing = []
        for name, key in keys.items():
            image = self._cache.kernel_image(key)
            if image is None:
                missing.append(name)
            else:
                hits.setdefault(image, []).append(name)
                self.cached_kernels += 1
        for image, names in hits.items():
            self._load(image, names, queue)
        if missing:
            self._compile([queue[name] for name in missing], keys, queue)

    def _key(self, spec: KernelSpec) -> str:
        return cache_key(render(spec).source_for(self.target), self._compiler.target, self._compiler.version)

    def _compile(self, entries: list[_Queued], keys: Mapping[str, str], queue: Mapping[str, _Queued]) -> None:
        """One unit for all of `entries`; after a failure, one unit per kernel, so that every
        kernel that compiles is kept and the error names the first that does not."""
        try:
            self._compile_unit(entries, keys, queue)
            return
        except DriverError as err:
            if len(entries) == 1:
                raise XhipError(f"{err.message} (kernel {entries[0].spec.name})", entries[0].location) from None
        failures: list[tuple[_Queued, DriverError]] = []
        for entry in entries:
            try:
                self._compile_unit([entry], keys, queue)
            except DriverError as err:
                failures.append((entry, err))
        if failures:
            failed, first = failures[0]
            others = f" (and {len(failures) - 1} more kernels)" if len(failures) > 1 else ""
            raise XhipError(f"{first.message} (kernel {failed.spec.name}){others}", failed.location)

    def _compile_unit(self, entries: list[_Queued], keys: Mapping[str, str], queue: Mapping[str, _Queued]) -> None:
        source = render_unit([entry.spec for entry in entries], self.target)
        image = self._compiler.compile(source)
        self.compiled_units += 1
        names = [entry.spec.name for entry in entries]
        self._cache.put_kernels([keys[name] for name in names], image)
        self._load(image, names, queue)

    def _load(self, image: bytes, names: list[str], queue: Mapping[str, _Queued]) -> None:
        module = self.driver.load_module(image)
        for name in names:
            function = self._functions[name] = self.driver.function(module, name)
            for kernel in queue[name].kernels:
                kernel.function = function


class StatusWords:
    """Device words where kernels report a broken runtime contract (a gather index out of
    range): two int64 per launch site, the flag and the offending value, zeroed, read at
    each synchronization and named by the site's IR location."""

    SLOTS = 1024

    def __init__(self, driver: Driver):
        self._driver = driver
        self._address = 0
        self._sites: dict[str, int] = {}
        self.armed = False

    def word_for(self, location: str) -> int:
        if not self._address:
            self._address = self._driver.malloc(16 * self.SLOTS)
            self._driver.fill(self._address, 0, 16 * self.SLOTS)
        slot = self._sites.setdefault(location, len(self._sites) % self.SLOTS)
        self.armed = True
        return self._address + 16 * slot

    def check(self) -> None:
        """After a synchronization: raise for the first site that reported, then re-arm."""
        if not self.armed:
            return
        words = np.empty(2 * min(len(self._sites), self.SLOTS), np.int64)  # slots wrap past SLOTS sites
        self._driver.download(words.view(np.uint8), self._address)
        for location, slot in self._sites.items():
            if words[2 * slot]:
                self._driver.fill(self._address, 0, 16 * self.SLOTS)
                raise XhipError(f"index {int(words[2 * slot + 1])} is out of range for the gathered axis", location)


_LIBRARIES: dict[int, KernelLibrary] = {}
