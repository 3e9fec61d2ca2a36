"""Traced runs: a launch program turned, once per class of shapes, into one Python function.

Interpreting a program costs every step its closure's work at every new shape: views build
memrefs, launchers derive argument values from extents. But a program's launches, their
grids and argument bytes are functions of a few numbers: the inputs' extents and addresses,
and what its pool plans and allocations return. A trace runs the program once over those
numbers as `xhip.index.symbolic` values: view steps run unchanged, each launcher says what
it would launch (`GpuLauncher.launches`), and the steps that decide at run time become
atoms read back in each run: the pool planner runs for real at the trace's extents, an
allocation (an output, a pool) is stood in for by a buffer that exists nowhere (a trace
allocates nothing). What comes out is straight-line code: read the atoms, check the
guards (the answers the trace's questions got), plan the pools, then pack and launch every
kernel at fixed buffers. A run whose inputs fail a guard is another class: it is traced
anew (up to `LIMIT` classes) or interpreted.

Since a trace needs no buffers, an executable traces its common classes at compile time
(`TracedClasses.trace_ahead`, over operands that exist nowhere either): a first run at a
new shape of such a class is already a traced run.

Only what a trace can follow is traced: launchers, device copies, views and host index
arithmetic, pools, pool plans, allocations and KV cache appends. A program with any other
step (host reads and writes of device data, tensor-stage ops) is interpreted.
"""

from __future__ import annotations

import functools
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from xhip.diagnostics import XhipError
from xhip.index.symbolic import Sym, Tracer
from xhip.kernels.abi import LibraryCall
from xhip.runtime.backends.gpu.driver import DriverError, PackedArgs, PreparedCall
from xhip.runtime.backends.gpu.kernels import GpuLauncher, LibraryLaunch
from xhip.runtime.buffers import KvCache, MemRef, Owner, contiguous_strides, forget_strides, host_view
from xhip.runtime.program import DEVICE, PURE, Layouts, Program

LIMIT = 8
"""Classes traced per program before a run at a shape of no traced class is interpreted."""
INTERPRETED_FIRST = 1
"""Runs of no traced class interpreted before one is traced: a trace costs tens of
interpreted runs, which a program run once (a check) never pays back. (Graphs across
shapes key their segments by the order of the work, in which a traced run puts its
allocations' fills first: a later first trace is a later first graph.)"""

AHEAD_OWNER = Owner("an operand traced ahead")
"""What the operands of a trace ahead of any run are, had anything to name them."""

OPAQUE = frozenset({"hip.get_pool", "hip.plan_pool", "hip.alloc_output", "hip.alloc", "memref.alloc", "memref.alloca"})
"""Ops whose steps a traced run calls as they are (on this run's values): what they return
decides, at run time, what later steps compute."""


class Untraceable(Exception):
    """The program has a step a trace cannot follow (the message says which)."""


class NotNow(Exception):
    """This run is not one to trace (a later run of no class is)."""


class Code:
    """An object a traced run reads afresh each run (a buffer, an owner): its expression, and
    what it is in the run being traced."""

    __slots__ = ("code", "real", "address")

    def __init__(self, code: str, real: object, address: object = None):
        self.code, self.real, self.address = code, real, address


@dataclass
class TracedRun:
    """One class of shapes of a program, as a function of the run's arguments."""

    function: Callable[..., tuple[list[object], tuple[object, ...]] | None]
    source: str
    guards: int
    specialized: int
    launches: int
    registers: Callable[[int], str | None]
    """The expression of a register a report may read back (a pooled view) over the
    function's `kept` locals, written when first asked (None: the trace does not name it)."""
    kept: tuple[str, ...]
    """The locals a run returns beside its results (its atoms and what they are read from)."""
    constants: list[object] = field(repr=False, default_factory=list)


class TracedRegisters(Sequence[object]):
    """The register file a traced run leaves, as reports read it: each register computed
    when first asked (from the run's kept locals), None for one the trace does not name."""

    def __init__(self, traced: TracedRun, kept: tuple[object, ...], count: int):
        self._traced, self._kept, self._count = traced, kept, count
        self._values: dict[int, object] = {}
        self._env: dict[str, object] | None = None

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, slot: int) -> object:  # type: ignore[override]
        if slot not in self._values:
            code = self._traced.registers(slot)
            if self._env is None:
                self._env = dict(zip(self._traced.kept, self._kept))
            self._values[slot] = None if code is None else eval(code, {"K": self._traced.constants, "_M": MemRef}, self._env)  # noqa: S307 -- our own expressions
        return self._values[slot]


class _Trace:
    """Builds one traced run while it walks the program's steps."""

    def __init__(self, program: Program):
        self.program = program
        self.tracer = Tracer()
        self.constants: list[object] = []
        self._constant_index: dict[int, int] = {}
        self.launch_lines: list[str] = []
        self.launch_count = 0
        """Launches of GPU launchers (whose count the traced run adds to the stats)."""
        self.launches = 0
        self._materialized: dict[int, tuple[object, str]] = {}
        self._arrays: dict[int, tuple[object, str]] = {}
        self.stream: object = None
        self._names = 0
        self._library_calls: dict[tuple[object, ...], tuple[str, str]] = {}
        """The locals holding each distinct library call's prepared run and call."""
        self.read_backs: list[str] = []
        """The locals that hold what opaque steps left (atoms and views are read from them)."""
        self.symbols: dict[str, object] = {}
        """The atom of each named symbolic dim of the arguments: the signature check has made
        every dim of one name equal before a traced run starts, so one atom stands for them
        all (an attention mask's batch is the ids' batch, not a value to ask about)."""

    # -- values as code ----------------------------------------------------------------

    def const(self, value: object) -> str:
        index = self._constant_index.get(id(value))
        if index is None:
            index = self._constant_index[id(value)] = len(self.constants)
            self.constants.append(value)
        return f"K[{index}]"

    def code(self, value: object) -> str:
        if isinstance(value, Sym) or type(value) in (int, bool, float):
            return self.tracer.code(value)
        if isinstance(value, Code):
            return value.code
        if isinstance(value, MemRef):
            return self.memref_code(value)
        if isinstance(value, tuple):
            return "(" + "".join(f"{self.code(v)}, " for v in value) + ")"
        return self.const(value)

    def inline(self, value: object) -> str:
        """`code` with every polynomial written out over atoms (it adds no line)."""
        if isinstance(value, Sym):
            return self.tracer.inline(value.terms)
        if isinstance(value, MemRef):
            return self.memref_code(value, self.inline)
        if isinstance(value, tuple):
            return "(" + "".join(f"{self.inline(v)}, " for v in value) + ")"
        return self.code(value)

    def memref_code(self, view: MemRef, code: Callable[[object], str] | None = None) -> str:
        """A memref as an expression: a constant where nothing of it changes between runs."""
        if not _is_traced(view):
            return self.const(view)
        code = code or self.code
        return (
            f"_M({code(view.buffer)}, {code(view.offset)}, {code(tuple(view.shape))}, "
            f"{code(tuple(view.strides))}, {self.const(view.dtype)}, {code(view.owner)}, {code(view.base)})"
        )

    def name(self, prefix: str) -> str:
        self._names += 1
        return f"{prefix}{self._names}"

    def read_back_local(self, code: str) -> str:
        """A new local holding `code` (a register an opaque step wrote)."""
        local = self.name("r")
        self.read_backs.append(local)
        self.tracer.lines.append(f"{local} = {code}")
        return local

    # -- values read each run ----------------------------------------------------------

    def traced_memref(self, code: str, real: MemRef, static: Sequence[object] | None = None) -> MemRef:
        """A memref read each run at `code`: its address, offset, extents and strides are
        atoms, but for the extents `static` gives: per dim an int (fixed), a symbolic dim's
        name (one atom per name) or a traced value (that value)."""
        atom = self.tracer.atom
        buffer = Code(f"{code}.buffer", real.buffer, atom(f"{code}.buffer.address", real.buffer.address))

        def extent_at(d: int, extent: int) -> object:
            declared = None if static is None else static[d]
            if isinstance(declared, int):
                return extent
            if isinstance(declared, str):
                known = self.symbols.get(declared)
                if known is None:
                    known = self.symbols[declared] = atom(f"{code}.shape[{d}]", extent)
                return known
            if isinstance(declared, Sym):
                return declared
            return atom(f"{code}.shape[{d}]", extent)

        shape = tuple(extent_at(d, extent) for d, extent in enumerate(real.shape))
        strides = tuple(atom(f"{code}.strides[{d}]", stride) for d, stride in enumerate(real.strides))
        return MemRef(
            buffer, atom(f"{code}.offset", real.offset), shape, strides, real.dtype,  # type: ignore[arg-type]
            Code(f"{code}.owner", real.owner), atom(f"{code}.base", real.base),  # type: ignore[arg-type]
        )  # fmt: skip

    def read_back(self, code: str, value: object, extents: Sequence[object] | None = None) -> object:
        """What an opaque step left at `code` (a register of `R`), as later steps read it; a
        memref's `extents`, where given, are `traced_memref`'s `static`."""
        if value is None:
            return None
        local = self.read_back_local(code)
        if type(value) is int:
            return self.tracer.atom(local, value)
        if isinstance(value, MemRef):
            return self.traced_memref(local, value, extents)
        raise Untraceable(f"a step returns a {type(value).__name__}")

    # -- steps -------------------------------------------------------------------------

    def opaque(
        self, index: int, regs: list[object], step: Callable[[list[object]], None] | None = None,
        extents: dict[int, Sequence[object]] | None = None,
    ) -> None:  # fmt: skip
        """Run step `index` (or `step`, a part of it) on this run's values; later steps read
        what it returns as atoms. KV caches it extends are left as they were: the traced
        run itself appends."""
        program = self.program
        reads, writes = program.reads[index], program.writes[index]
        step = step or program.steps[index]
        allocated = getattr(step, "allocated", None)
        concrete: list[object] = [None] * len(regs)
        for slot in reads:
            concrete[slot] = hint_of(regs[slot])
        if allocated is not None:
            # A buffer (an output, an alloc, a session's pool) is not allocated now: the
            # traced run allocates it (or finds the pool large enough). Its address stands in
            # for any other, far from every real one: a trace allocates nothing.
            (out,) = writes
            concrete[out] = MemRef(_Unallocated(), 0, (), (), allocated.dtype, None, 0)  # type: ignore[arg-type]
        else:
            caches = [v.buffer.cache for v in concrete if isinstance(v, MemRef) and v.buffer.cache is not None]
            kept = [(cache, cache.length, cache.written) for cache in caches]
            step(concrete)
            for cache, length, written in kept:
                cache.length, cache.written = length, written
        assigns = "".join(f"R[{slot}] = {self.code(regs[slot])}; " for slot in dict.fromkeys(reads))
        self.tracer.lines.append(f"{assigns}{self.const(step)}(R)")
        for slot in writes:
            value = concrete[slot]
            if allocated is not None and isinstance(value, MemRef):
                # A buffer of its own: only its address is new; its extents are the traced ones.
                local = self.read_back_local(f"R[{slot}]")
                dims = tuple(allocated.shape(regs))
                buffer = Code(f"{local}.buffer", value.buffer, self.tracer.atom(f"{local}.buffer.address", value.buffer.address))
                owner = Code(f"{local}.owner", value.owner)
                regs[slot] = MemRef(buffer, 0, dims, contiguous_strides(dims), allocated.dtype, owner, 0)  # type: ignore[arg-type]
                continue
            regs[slot] = self.read_back(f"R[{slot}]", value, (extents or {}).get(slot))
        # The scratch registers keep nothing alive between runs (an output buffer the caller dropped).
        self.tracer.lines.append("; ".join(f"R[{slot}] = None" for slot in dict.fromkeys((*reads, *writes))) or "pass")

    def materialized(self, value: object) -> str:
        """`value` as launches and copies read it: a traced memref built once per run, as a
        local of the launch section (the reference backend's kernels take memrefs)."""
        if not isinstance(value, MemRef):
            return self.code(value)
        if not _is_traced(value):
            return self.const(value)
        return self._launch_local(self._materialized, value, "v", self.memref_code)

    def array(self, view: MemRef) -> str:
        """The NumPy array of `view` (`MemRef.array`) as a local of the launch section, built
        once per run over its buffer's host bytes (a view beyond its buffer raises there:
        the run is interpreted and fails located)."""
        if not _is_traced(view):
            return self.const(view.array())

        def host_view_code(view: MemRef) -> str:
            byte_strides = tuple(stride * view.dtype.itemsize for stride in view.strides)
            return (
                f"_ND({self.code(view.buffer)}.host, {self.code(view.offset)}, {self.code(tuple(view.shape))}, "
                f"{self.code(byte_strides)}, {self.const(view.dtype)})"
            )

        return self._launch_local(self._arrays, view, "n", host_view_code)

    def _launch_local(self, made: dict[int, tuple[object, str]], view: MemRef, prefix: str, code: Callable[[MemRef], str]) -> str:
        """The local of the launch section that holds `code(view)`, assigned the first time
        `view` is asked for (`made` remembers it, and keeps the view: ids stay unique)."""
        known = made.get(id(view))
        if known is None:
            known = made[id(view)] = (view, self.name(prefix))
            self.launch_lines.append(f"{known[1]} = {code(view)}")
        return known[1]

    def device_copy(self, index: int, regs: list[object], step: Callable[[list[object]], None] | None = None) -> None:
        """Step `index` (or `step`, a part of it) among the launches, on this run's memrefs."""
        program = self.program
        slots = (*program.reads[index], *(s for s in program.writes[index] if step is not None))
        assigns = "".join(f"R[{slot}] = {self.materialized(regs[slot])}; " for slot in slots)
        self.launch_lines.append(f"{assigns}{self.const(step or program.steps[index])}(R)")

    def cache_append(self, index: int, regs: list[object]) -> None:
        """Where the rows go, before the launches (a past that moves is a graph input: no
        launch writes it); the copy of the new rows among them, after what computes them.
        A run whose rows do not go into past's own cache is not traced: placing them then
        allocates and copies, which the trace would do once more than the run."""
        step = self.program.steps[index]
        if not step.in_place([hint_of(value) for value in regs]):  # type: ignore[attr-defined]
            raise NotNow("a KV cache moves at this run")
        # The rows' extents are past's with the axis grown by new's (place checks exactly
        # that), not values read back: a question about them (batch 1?) is then one of the
        # inputs, asked before anything with effects, and a run of another class never
        # places its rows first and fails a guard after (its interpreted rerun would find
        # the cache extended and move it).
        past_slot, new_slot, out, axis = step.operands  # type: ignore[attr-defined]
        past, new = regs[past_slot], regs[new_slot]
        assert isinstance(past, MemRef) and isinstance(new, MemRef)
        rows = tuple(p + n if d == axis else p for d, (p, n) in enumerate(zip(past.shape, new.shape)))
        self.opaque(index, regs, step.place, {out: rows})  # type: ignore[attr-defined]
        self.device_copy(index, regs, step.write)  # type: ignore[attr-defined]

    def launch(self, index: int, regs: list[object]) -> None:
        parts = self.program.steps[index].launch  # type: ignore[attr-defined]
        launcher = parts.launcher
        contract = parts.contract
        if contract is not None:
            # The contract's rule runs on plain extents: at this run's here, at each run's
            # in the traced function (a run that does not fit fails there, located).
            extents = tuple(tuple(regs[s].shape) for s in contract.slots)  # type: ignore[attr-defined]
            contract.extents(hint_of(extents))
            self.tracer.lines.append(f"{self.const(contract.extents)}({self.code(extents)})")
        ins, outs, scalars = parts.inputs(regs), parts.outputs(regs), parts.scalars(regs)
        for operand in (*ins, *outs):
            if not isinstance(operand, MemRef):
                raise Untraceable(f"'{self.program.names[index]}' launches over a {type(operand).__name__}")
        at = f"_at = {index}; "
        if not isinstance(launcher, GpuLauncher):
            # A launcher of memrefs (the reference backend's NumPy kernels): called as it is,
            # on this run's memrefs, or on their arrays where it takes them; it counts its
            # own launches.
            on_arrays = getattr(launcher, "on_arrays", None)
            view = self.materialized if on_arrays is None else self.array
            operands = [f"({''.join(f'{view(v)}, ' for v in group)})" for group in (ins, outs)]
            operands.append(f"({''.join(f'{self.code(v)}, ' for v in scalars)})")
            self.launch_lines.append(f"{at}{self.const(on_arrays or launcher)}({', '.join(operands)})")
            self.launches += 1
            return
        # Whether a vendor library takes a call is asked of this run's values (the drivers
        # decide by its types); each run prepares its own shape (`_PreparedCalls`).
        launches = launcher.launches(ins, outs, scalars, lambda call: launcher.prepare_call(hint_of(call)))  # type: ignore[arg-type]
        self.stream = launcher.stream
        if isinstance(launches, LibraryLaunch):
            call = launches.call
            shape = call._replace(a=0, b=0, c=0)
            # A field varies when it is a traced value or holds one (a convolution's shapes).
            varying = [name for name, value in zip(shape._fields, shape) if isinstance(value, Sym) or (isinstance(value, tuple) and any(isinstance(v, Sym) for v in value))]
            values = "".join(f"{self.code(getattr(shape, name))}, " for name in varying)
            # Sites of one call in every run (GPT-2's twelve layers' projections) share what
            # is prepared: a new shape prepares each distinct call once.
            hinted = hint_of(shape)
            key = (launcher.prepare_call, hinted, tuple(varying), values)
            prepared = self._library_calls.get(key)
            if prepared is None:
                prepared = self._library_calls[key] = self.name("g"), self.name("c")
                prepare = _PreparedCalls(launcher.prepare_call, hinted, varying)  # type: ignore[arg-type]
                self.tracer.lines.append(f"{prepared[0]}, {prepared[1]} = {self.const(prepare)}(({values}))")
                self.tracer.lines.append(f"if {prepared[0]} is None: return None")
            run, prepared_call = prepared
            self.launch_lines.append(f"{at}G({run}, {prepared_call}, {self.code(call.a)}, {self.code(call.b)}, {self.code(call.c)})")
            self.launch_count += 1
            self.launches += 1
            return
        form, kernels = launches
        for _position, kernel, grid, flat in kernels:
            args, pack = PackedArgs.for_abi(kernel.abi)
            values = ", ".join(self.code(v) for v in flat)
            self.launch_lines.append(
                f"{at}{self.const(pack)}({values}); "
                f"L({self.const(kernel.function)}, {self.code(tuple(grid))}, {self.const(kernel.block)}, {self.const(args)})"
            )
            self.launch_count += 1
            self.launches += 1

    # -- the function ------------------------------------------------------------------

    def kept(self) -> tuple[str, ...]:
        """The locals a run returns for its registers to be read from (`TracedRun.kept`)."""
        return ("A", *self.tracer.atom_names(), *self.read_backs)

    def source(self, results: Sequence[int], regs: list[object]) -> str:
        returned = ", ".join(self.code(regs[slot]) for slot in results)
        # Where launches go is asked once the steps with effects are done (a pool that grows
        # ends a recording): the driver, or the run's recording (graphs across shapes).
        sink = ["L, G = SINK()"] if self.launch_count else []
        body = [*_hoisted(self.tracer.lines), *sink, "try:", *(f"    {line}" for line in self.launch_lines or ["pass"])]
        body += ["except _DriverError as err:", "    raise _XhipError(err.message, LOCATIONS[_at]) from None"]
        if self.launch_count:
            body.append(f"{self.const(self.stream)}.queued = True")
            body.append(f"{self.const(self.stream)}.stats.kernel_launches += {self.launch_count}")
        body.append(f"return [{returned}], ({''.join(f'{name}, ' for name in self.kept())})")
        return "def traced(A, R, SINK):\n" + "".join(f"    {line}\n" for line in body)


class _Unallocated:
    """The buffer an allocation (or an operand traced ahead) stands for while a trace runs:
    an address of its own, above every real one (the traced run allocates the real buffer)."""

    _next = 1 << 62
    nbytes = 0
    """What a cache append tells the report it holds (of a trace's caches: nothing)."""

    def __init__(self) -> None:
        _Unallocated._next += 1 << 40
        self.address = _Unallocated._next
        self.cache: KvCache | None = None


@dataclass(frozen=True)
class AheadOperand:
    """An argument of a trace ahead of any run: a row-major array, or (`cache_axis`) the
    written rows of a KV cache with room for as many again along that axis, as a decode
    loop feeds (`Executable.cache_buffers`)."""

    shape: tuple[int, ...]
    dtype: np.dtype
    cache_axis: int | None = None

    def memref(self) -> MemRef:
        buffer = _Unallocated()
        axis = self.cache_axis
        if axis is None:
            return MemRef.contiguous(buffer, self.shape, self.dtype, AHEAD_OWNER)  # type: ignore[arg-type]
        room = list(self.shape)
        room[axis] *= 2
        cache = KvCache(axis, room[axis], self.shape[axis], MemRef.contiguous(buffer, room, self.dtype, AHEAD_OWNER))  # type: ignore[arg-type]
        cache.written = cache.rows(0, self.shape[axis])
        buffer.cache = cache
        return cache.written


class _PreparedCalls:
    """A library site's prepared calls (and the calls, addresses 0) by the values of the
    fields its class leaves open, as its traced runs ask for them (a bounded number: serving
    at many shapes keeps the latest)."""

    LIMIT = 64

    def __init__(self, prepare: Callable[[LibraryCall], PreparedCall | None], traced: LibraryCall, varying: Sequence[str]):
        self._prepare, self._traced, self._varying = prepare, traced, tuple(varying)
        self._prepared: dict[tuple[object, ...], tuple[PreparedCall | None, LibraryCall]] = {}

    def __call__(self, values: tuple[object, ...]) -> tuple[PreparedCall | None, LibraryCall]:
        known = self._prepared.get(values)
        if known is None:
            if len(self._prepared) >= self.LIMIT:
                self._prepared.clear()
            call = self._traced._replace(**dict(zip(self._varying, values)))  # type: ignore[arg-type]  # the open fields are ints
            known = self._prepared[values] = (self._prepare(call), call)
        return known


_NAME = re.compile(r"\b[a-z]\d+\b")
_PURE_LINE = re.compile(r"^(?:[at]\d+ = (?!.*\b(?:R|K)\[)|if )")


def _hoisted(lines: Sequence[str]) -> list[str]:
    """`lines` with every pure line (an atom or subexpression of earlier values, a guard)
    moved before the steps with effects (opaque calls, contract checks) that it does not
    depend on: a run of another class fails its guards before it allocates or plans."""
    epochs: dict[str, int] = {}
    groups: list[list[str]] = [[]]
    barriers: list[str] = []
    for line in lines:
        names = _NAME.findall(line)
        if _PURE_LINE.match(line):
            defined = line.split(" = ", 1)[0] if not line.startswith("if ") else None
            epoch = max((epochs.get(name, 0) for name in names if name != defined), default=0)
            groups[epoch].append(line)
            if defined is not None:
                epochs[defined] = epoch
            continue
        barriers.append(line)
        groups.append([])
        for name in names:  # what a line with effects defines is there after it
            epochs.setdefault(name, len(barriers))
    ordered = list(groups[0])
    for barrier, group in zip(barriers, groups[1:]):
        ordered += [barrier, *group]
    return ordered


def _is_traced(view: MemRef) -> bool:
    """Whether anything of a memref is read afresh each run."""
    return isinstance(view.buffer, Code) or isinstance(view.owner, Code) or any(
        isinstance(f, Sym) for f in (view.offset, *view.shape, *view.strides, view.base)
    )


def hint_of(value: object) -> object:
    """What a traced value is in the run being traced."""
    if isinstance(value, Sym):
        return value.hint
    if isinstance(value, Code):
        return value.real
    if isinstance(value, MemRef) and _is_traced(value):
        return MemRef(
            hint_of(value.buffer), hint_of(value.offset), tuple(map(hint_of, value.shape)), tuple(map(hint_of, value.strides)),  # type: ignore[arg-type]
            value.dtype, hint_of(value.owner), hint_of(value.base),  # type: ignore[arg-type]
        )  # fmt: skip
    if isinstance(value, tuple):
        items = [hint_of(v) for v in value]
        if hasattr(value, "_fields"):  # a NamedTuple (a library call) stays one
            return type(value)(*items)  # type: ignore[arg-type]
        return tuple(items)
    return value


def trace(program: Program, layouts: Layouts, arguments: Sequence[object], static_shapes: Sequence[Sequence[object] | None], pooled: Sequence[int]) -> TracedRun:
    """The traced run of the class of `arguments` (module doc); raises Untraceable.

    `static_shapes`: per argument, its declared extents (an int is fixed for every run), or
    None; `pooled`: the registers a report reads back."""
    state = _Trace(program)
    regs: list[object] = list(program.initial)
    for position, (slot, value, static) in enumerate(zip(program.arguments, arguments, static_shapes)):
        if isinstance(value, MemRef):
            regs[slot] = state.traced_memref(f"A[{position}]", value, static)
        elif value is None:
            regs[slot] = None
        else:
            raise Untraceable("an argument is a host scalar")
    # View steps share the layouts they derive (`Layouts`): the trace's, keyed by traced
    # extents, are its own and go when it ends.
    saved = dict(layouts.table)
    try:
        for index, step in enumerate(program.steps):
            name, kind = program.names[index], program.kinds[index]
            if name in OPAQUE:
                state.opaque(index, regs)
            elif hasattr(step, "place"):
                state.cache_append(index, regs)
            elif hasattr(step, "launch"):
                state.launch(index, regs)
            elif kind == PURE:
                step(regs)  # type: ignore[arg-type]
            elif kind == DEVICE and name == "memref.copy":
                state.device_copy(index, regs)
            else:
                raise Untraceable(f"'{name}' is a step a trace cannot follow")
    finally:
        layouts.table.clear()
        layouts.table.update(saved)
        forget_strides()
    source = state.source(program.results, regs)
    # A report's registers are computed when read, from the run's locals: no temporaries.
    pooled_values = {slot: regs[slot] for slot in pooled if isinstance(regs[slot], MemRef)}

    @functools.cache
    def register_code(slot: int) -> str | None:
        return state.inline(pooled_values[slot]) if slot in pooled_values else None

    namespace: dict[str, object] = {
        "K": state.constants, "_M": MemRef, "_ND": host_view, "_EMPTY": [], "_DriverError": DriverError, "_XhipError": XhipError,
        "LOCATIONS": program.locations,
    }  # fmt: skip
    exec(compile(source, "<traced run>", "exec"), namespace)  # noqa: S102 -- code of our own making
    return TracedRun(
        namespace["traced"], source, state.tracer.guards, state.tracer.specialized, state.launches,  # type: ignore[arg-type]
        register_code, state.kept(), state.constants,
    )  # fmt: skip




class TracedClasses:
    """A program's traced runs, tried in turn: those traced ahead of any run (`trace_ahead`),
    then those runs traced. A run that fits none is interpreted the first
    `INTERPRETED_FIRST` times, then traced (a class of its own, up to `LIMIT`), and
    interpreted again once the limit is reached or the program proves untraceable (`why_not`)."""

    def __init__(
        self, program: Program, layouts: Layouts, static_shapes: Sequence[Sequence[object] | None], pooled: Sequence[int],
        backend: object, why_not: str | None,
    ):  # fmt: skip
        self.program, self.layouts, self.static_shapes, self.pooled = program, layouts, static_shapes, pooled
        self.backend = backend
        self.runs: list[TracedRun] = []
        self.why_not = why_not
        """Why runs are interpreted (None: they are traced)."""
        self.traced = self.interpreted = 0
        """Runs of each kind so far."""
        self.ahead_seconds: list[float] = []
        """What each class traced ahead of any run took (`trace_ahead`)."""
        self.enabled = True
        """False: every run is interpreted (what benchmarks and tests compare traced runs with)."""
        self._scratch: list[object] = [None] * len(program.initial)
        self._misses = 0
        driver_launch = getattr(getattr(backend, "driver", None), "launch", None)

        def launch(function: object, grid: tuple[int, int, int], block: tuple[int, int, int], args: object) -> None:
            driver_launch(function, grid, block, 0, args)  # type: ignore[misc]

        def sink() -> tuple[Callable[..., None], Callable[..., None]]:
            recording = getattr(backend, "recording", None)
            return (launch, _run_library) if recording is None else (recording.kernel, recording.library)

        self._sink = sink

    def execute(self, arguments: Sequence[object], interpret: Callable[[Sequence[object]], tuple[list[object], Sequence[object]]] | None = None) -> tuple[list[object], Sequence[object]]:
        """`interpret(arguments)` (`Program.execute` by default), through a traced run where
        one fits. Launches go to the backend's recording where a run is recorded."""
        interpret = interpret or self.program.execute
        if not self.enabled:
            self.interpreted += 1
            return interpret(arguments)
        scratch, sink = self._scratch, self._sink
        for run in self.runs:
            try:
                done = run.function(arguments, scratch, sink)
            except XhipError:
                raise  # the run's own error (a contract, a driver error), located
            except Exception as err:  # noqa: BLE001 -- a traced run that breaks is not used again
                self.why_not, self.runs = f"a traced run failed ({type(err).__name__}: {err})", []
                break
            if done is not None:
                self.traced += 1
                return done[0], TracedRegisters(run, done[1], len(self._scratch))
        if self.why_not is None and len(self.runs) < LIMIT:
            if self._misses >= INTERPRETED_FIRST:
                done_run = self._trace(arguments)
                if done_run is not None:
                    return done_run
            self._misses += 1
        self.interpreted += 1
        return interpret(arguments)

    def trace_ahead(self, operands: Sequence[AheadOperand | None]) -> None:
        """Trace the class of arguments like these (None: the context), before any run:
        operands over no buffers, their addresses far from every real one, so that a first
        run of that class is already a traced run. Whatever stops the trace leaves the
        classes as they were; runs trace theirs as they come."""
        if self.why_not is not None or len(self.runs) >= LIMIT:
            return
        arguments = [None if operand is None else operand.memref() for operand in operands]
        start = time.perf_counter()
        try:
            run = trace(self.program, self.layouts, arguments, self.static_shapes, self.pooled)
        except Exception:  # noqa: BLE001 -- a class not traced ahead is traced (or interpreted) at run time
            return
        self.ahead_seconds.append(time.perf_counter() - start)
        self.runs.append(run)

    def _trace(self, arguments: Sequence[object]) -> tuple[list[object], Sequence[object]] | None:
        # What the trace's own steps queue (an allocation's fill) goes to the stream, not into
        # a recording of the run.
        recording = getattr(self.backend, "recording", None)
        if recording is not None:
            self.backend.recording = None  # type: ignore[attr-defined]
        try:
            run = trace(self.program, self.layouts, arguments, self.static_shapes, self.pooled)
        except Untraceable as err:
            self.why_not = str(err)
            return None
        except NotNow:
            return None
        except XhipError:
            return None  # the interpreter says it, located
        except Exception as err:  # noqa: BLE001 -- a trace never fails a run: it is interpreted
            self.why_not = f"the trace failed ({type(err).__name__}: {err})"
            return None
        finally:
            if recording is not None and not recording.stopped:
                self.backend.recording = recording  # type: ignore[attr-defined]
        done = run.function(arguments, self._scratch, self._sink)
        if done is None:
            self.why_not = "a traced run failed its own guards"
            return None
        self.runs.append(run)
        self.traced += 1
        return done[0], TracedRegisters(run, done[1], len(self._scratch))


def _run_library(run: PreparedCall, call: LibraryCall, a: int, b: int, c: int) -> None:
    run(a, b, c)
