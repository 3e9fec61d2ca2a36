"""A module's pool plan as a memory report: symbolic, then evaluated at one shape.

`MemoryReport.from_module` reads what the memory passes wrote on the module
(names and formats: xhip/dialects/hip/attributes.py and
xhip/analysis/model_buffers.py): per function, from `hip.pool_buffers`, each
pooled buffer's byte size, offset (printed `SizeExpr`s), live interval (op
positions in the body at hip-pool-allocs time) and domain; each domain's pool
size from `hip.pool_sizes`; and the model's two honest bounds from
`hip.model_buffers` (the max-live bound of the model's own buffers and the bound
with in-place writes), as `lower_bound_expr`s.

`at(symbols)` evaluates all of it at the graph inputs' symbols (`batch=4`):
dims that are SSA names (`%select`, a Reshape target) are computed the way the
runtime computes them, by the recorded `dims` rules; a value that still cannot be
evaluated stays None and is shown as its expression. A run may add what it
observed (each pooled view's offset and size, which win over the evaluation,
and each pool's bytes, which stand in where the shape does not determine them).
`FunctionAt.rectangles()` is the layout as data, one rectangle per buffer, for the
plot and for `xhip.memory.check_layout`.

`as_dict` / `from_dict` are the JSON form; reading one back rebuilds the report,
so a saved report can be evaluated again at other shapes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from xhip.analysis.model_buffers import evaluate_dim_rules, recorded_model_buffers
from xhip.diagnostics import XhipError, op_error
from xhip.dialects.hip import pool_alignment
from xhip.dialects.hip.attributes import (
    POOL_ALIGNMENT_ATTR,
    POOL_BUFFERS_ATTR,
    PoolBuffers,
    domain_pools,
    pool_buffers,
    pool_sizes,
)
from xhip.memory import SizeExpr, lower_bound_expr
from xhip.memory.greedy import plan_at_sizes
from xhip.memory.model_bound import parse_size

RUN_TIME = "run-time"
"""How the record spells a size or offset that hip.plan_pool decides at run time."""

if TYPE_CHECKING:
    from xhip.runtime.executable import Executable


@dataclass(frozen=True)
class Observed:
    """What one run used: per buffer index its (offset, size) in its pool, per domain the pool's bytes."""

    buffers: dict[int, tuple[int, int]] = field(default_factory=dict)
    pools: dict[int, int] = field(default_factory=dict)
    caches: dict[str, int] = field(default_factory=dict)
    """Per KV cache buffer the outputs lived in (by label), its bytes at capacity."""


def _value(expr: SizeExpr | None, dims: Mapping[str, int]) -> int | None:
    """`expr` at `dims`, None when it needs a dim they do not give."""
    if expr is None or not expr.dims <= dims.keys():
        return None
    return expr.evaluate(dims)


def _dims(symbols: Mapping[str, int], rules: str | None) -> dict[str, int]:
    """The symbols, and every dim the rules compute from them."""
    dims = dict(symbols)
    if rules is not None:
        dims.update(evaluate_dim_rules(rules, symbols))
    return dims


def _missing(expr: SizeExpr, dims: Mapping[str, int]) -> str:
    return ", ".join(sorted(str(d) for d in expr.dims - dims.keys()))


@dataclass(frozen=True)
class ReportBuffer:
    """One pooled buffer as hip-pool-allocs placed it."""

    index: int
    size: SizeExpr
    offset: SizeExpr | None
    """None: planned at run time, from the sizes at the shape (`xhip.memory.greedy`)."""
    first: int
    last: int
    domain: int


@dataclass(frozen=True)
class Rectangle:
    """One buffer in the plot: ops `first..last` (inclusive) by bytes `[offset, offset + size)` of its domain's pool."""

    function: str
    buffer: int
    domain: int
    first: int
    last: int
    offset: int
    size: int


@dataclass(frozen=True)
class FunctionMemory:
    """One function's pooled buffers, pools and honest bounds, symbolically."""

    name: str
    alignment: int
    buffers: tuple[ReportBuffer, ...]
    pools: dict[int, SizeExpr | None]
    """Domain id -> pool size (None: planned at run time)."""
    dim_rules: str | None = None
    """The pool record's `dims` rules (dims of the sizes that are not symbols)."""
    lower_bound: SizeExpr | None = None
    in_place_lower_bound: SizeExpr | None = None
    bound_dim_rules: str | None = None
    """The model record's `dims` rules: its names are its own, not the pool's."""
    pool_of: dict[int, int] = field(default_factory=dict)
    """Domain id -> the pool it draws from (domains that share one ask for it in turn)."""

    @property
    def pool_size(self) -> SizeExpr | None:
        """All pools together: each the largest of its domains; None if one is planned at run time."""
        per_pool: dict[int, list[SizeExpr]] = {}
        for domain, size in self.pools.items():
            if size is None:
                return None
            per_pool.setdefault(self.pool_of.get(domain, domain), []).append(size)
        return sum((SizeExpr.max_of(sizes) for sizes in per_pool.values()), SizeExpr.const(0))

    def _planned_at_run_time(self, dims: Mapping[str, int]) -> tuple[dict[int, int], dict[int, int]]:
        """Offsets (by buffer index) and pool sizes (by domain) of the domains planned at run
        time, planned at `dims` as the runtime plans them; a domain with an unknown size is left out."""
        offsets: dict[int, int] = {}
        totals: dict[int, int] = {}
        for domain, size in self.pools.items():
            if size is not None:
                continue
            members = [b for b in self.buffers if b.domain == domain]
            sizes = [_value(b.size, dims) for b in members]
            if None in sizes:
                continue
            placed, totals[domain] = plan_at_sizes(sizes, [(b.first, b.last) for b in members], self.alignment)  # type: ignore[arg-type]
            offsets.update((b.index, o) for b, o in zip(members, placed))
        return offsets, totals

    def at(self, symbols: Mapping[str, int], observed: Observed | None = None) -> FunctionAt:
        """Evaluated at the graph inputs' `symbols`, with what a run at them `observed`."""
        dims, seen = _dims(symbols, self.dim_rules), observed or Observed()
        run_time_offsets, run_time_totals = self._planned_at_run_time(dims)
        pools = {d: run_time_totals.get(d) if expr is None else _value(expr, dims) for d, expr in self.pools.items()}
        pools = {d: seen.pools.get(d) if value is None else value for d, value in pools.items()}
        bound_dims = _dims(symbols, self.bound_dim_rules)
        lower, in_place = _value(self.lower_bound, bound_dims), _value(self.in_place_lower_bound, bound_dims)
        return FunctionAt(self, dims, pools, seen, lower, in_place, run_time_offsets)


@dataclass(frozen=True)
class FunctionAt:
    """A function's report evaluated at one shape: None wherever a value is not known."""

    function: FunctionMemory
    dims: dict[str, int]
    pool_bytes_of: dict[int, int | None]
    observed: Observed
    lower_bound_bytes: int | None
    in_place_lower_bound_bytes: int | None
    run_time_offsets: dict[int, int] = field(default_factory=dict)
    """Offsets the run-time planner gives at these dims, by buffer index."""

    def size_bytes(self, buffer: ReportBuffer) -> int | None:
        if buffer.index in self.observed.buffers:
            return self.observed.buffers[buffer.index][1]
        return _value(buffer.size, self.dims)

    def offset_bytes(self, buffer: ReportBuffer) -> int | None:
        if buffer.index in self.observed.buffers:
            return self.observed.buffers[buffer.index][0]
        if buffer.offset is None:
            return self.run_time_offsets.get(buffer.index)
        return _value(buffer.offset, self.dims)

    @property
    def pool_bytes(self) -> int | None:
        """All pools together, each the largest request of the domains that draw from it."""
        per_pool: dict[int, int] = {}
        for domain, nbytes in self.pool_bytes_of.items():
            if nbytes is None:
                return None
            pool = self.function.pool_of.get(domain, domain)
            per_pool[pool] = max(per_pool.get(pool, 0), nbytes)
        return sum(per_pool.values())

    @property
    def pool_over_bound(self) -> float | None:
        pool, bound = self.pool_bytes, self.lower_bound_bytes
        return pool / bound if pool is not None and bound else None

    def _not_determined(self, buffer: ReportBuffer, what: str, expr: SizeExpr) -> XhipError:
        return XhipError(
            f"memory report: @{self.function.name} buffer #{buffer.index}: its {what} {expr} "
            f"needs {_missing(expr, self.dims)}, which the report shape does not determine"
        )

    def rectangles(self) -> list[Rectangle]:
        """Every buffer's rectangle; an XhipError names the first value that is not known."""
        rectangles = []
        for buffer in self.function.buffers:
            offset, size = self.offset_bytes(buffer), self.size_bytes(buffer)
            if size is None:
                raise self._not_determined(buffer, "size", buffer.size)
            if offset is None:
                raise self._not_determined(buffer, "offset", buffer.offset or buffer.size)
            rectangles.append(
                Rectangle(self.function.name, buffer.index, buffer.domain, buffer.first, buffer.last, offset, size)
            )
        return rectangles


@dataclass(frozen=True)
class MemoryReport:
    """Every function with pooled buffers, in module order."""

    functions: tuple[FunctionMemory, ...]

    @staticmethod
    def from_module(module: ModuleOp) -> MemoryReport:
        """The report of a module after hip-pool-allocs; an XhipError if it has no pool plan."""
        try:
            records, totals = pool_buffers(module), pool_sizes(module)
            functions = tuple(
                _function_memory(module, f.sym_name.data, records[f.sym_name.data], totals)
                for f in module.walk()
                if isinstance(f, func.FuncOp) and f.sym_name.data in records
            )
        except ValueError as err:
            raise op_error(module, f"memory report: {err}") from None
        if not functions:
            raise XhipError(f"memory report: the IR has no {POOL_BUFFERS_ATTR} (hip-pool-allocs has not run on it)")
        return MemoryReport(functions)

    def at(self, symbols: Mapping[str, int], observed: Mapping[str, Observed] | None = None) -> list[FunctionAt]:
        return [f.at(symbols, (observed or {}).get(f.name)) for f in self.functions]

    def rectangles(self, symbols: Mapping[str, int]) -> list[Rectangle]:
        """The layout at `symbols`, as evaluated from the IR's record alone."""
        return [r for f in self.at(symbols) for r in f.rectangles()]


def _function_memory(module: ModuleOp, name: str, record: PoolBuffers, totals: list[str]) -> FunctionMemory:
    """One function's report from its records; a ValueError says what is malformed."""
    alignment = pool_alignment(module)
    if alignment is None:
        raise ValueError(f"{POOL_BUFFERS_ATTR} without {POOL_ALIGNMENT_ATTR}")
    buffers = tuple(
        ReportBuffer(i, parse_size(size), None if offset == RUN_TIME else parse_size(offset), first, last, domain)
        for i, (size, offset, (first, last), domain) in enumerate(
            zip(record.sizes, record.offsets, record.intervals, record.domains)
        )
    )
    if any(not 0 <= b.domain < len(totals) for b in buffers):
        raise ValueError(f"{POOL_BUFFERS_ATTR}: a domain id has no entry in hip.pool_sizes")
    pools = {
        d: None if totals[d] == RUN_TIME else parse_size(totals[d]) for d in sorted({b.domain for b in buffers})
    }
    shared = domain_pools(module)
    pool_of = {d: shared[d] for d in pools if d < len(shared)}
    model = recorded_model_buffers(module, name)
    if model is None:
        return FunctionMemory(name, alignment, buffers, pools, record.dim_rules, pool_of=pool_of)
    lower = lower_bound_expr(model.buffers.buffers(), alignment)
    in_place = lower_bound_expr(model.buffers.in_place_buffers(), alignment)
    return FunctionMemory(
        name, alignment, buffers, pools, record.dim_rules, lower, in_place, model.dim_rules, pool_of
    )


def observed_layout(executable: Executable) -> dict[str, Observed]:
    """Where the last run of `executable` put each pooled buffer of its function, by buffer
    index, and each domain's pool bytes (as allocated: a session's pool only grows).

    The final IR keeps one `memref.view` per pooled buffer, in the program order
    hip-pool-allocs recorded them in; empty if the counts disagree (IR edited since)."""
    from xhip.runtime.buffers import MemRef
    from xhip.runtime.bind import entry_function

    name = entry_function(executable.module).sym_name.data
    records = pool_buffers(executable.module)
    views = [v for v in executable.pooled_views.values() if isinstance(v, MemRef)]
    if name not in records or len(views) != len(records[name].sizes):
        return {}
    buffers = {i: (view.offset, view.nbytes_spanned) for i, view in enumerate(views)}
    pools = {domain: view.buffer.nbytes for domain, view in zip(records[name].domains, views)}
    return {name: Observed(buffers, pools, dict(executable.session.run.caches))}
