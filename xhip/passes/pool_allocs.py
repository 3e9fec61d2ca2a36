"""hip-pool-allocs: every transient buffer becomes a view into a runtime pool.

For each function (a single block with `!hip.context` as argument #0):

1. Candidates are the `memref.alloc`s of the entry block with an identity layout
   whose bytes do not leave the function (a returned buffer belongs to the caller
   and is left to hip-lower-allocs). Their `memref.dealloc`s go: the pool owns
   the bytes; an allocation used by nothing else goes with them.
2. Live intervals come from `xhip.analysis.liveness`: from the allocation to the
   last use of any view of it.
3. Dominance domains: a pool's size is computed once, before its first buffer,
   so every size of the domain must be computable there. Pure size arithmetic can
   move up; what cannot (a `memref.load`, a readback, a call: anything that is not
   speculatable) pins it. An allocation whose size depends on such a value defined
   at or after the current domain's first allocation opens a new domain, with its
   own `hip.get_pool {domain_id = k}` after that value. Domain ids are numbered
   across the module, so two functions never share a pool. A domain that starts
   after the last use of every buffer of an earlier pool draws from that pool
   (`hip.get_pool {domain_id}` names the pool): the runtime gives both the same
   bytes, grown to the larger, instead of a second pool.
4. Per domain, the buffers (size = element bytes x static dims x dynamic size
   operands, grouped by their dynamic size operands) go to a planner of
   `xhip.memory`: `planner` names one, else `lifetime-only` picks between
   "lifetime-only" (the default, seed 001) and "grouped" (`lifetime-only=false`).
   `planner = "run-time"` plans at each run's sizes instead
   (`xhip.memory.greedy`): at compile time for a domain whose sizes are all
   static, else through a `hip.plan_pool` of the sizes, which the runtime plans
   once per distinct set of sizes.
5. `xhip.rewrite_rules.pool_emission` writes the placement down.

Module attributes record the result for reports and the runtime (names and
format: xhip/dialects/hip/attributes.py): the alignment, the pool sizes as
printed `SizeExpr`s ("run-time" for a domain planned at run time), the pool each
domain draws from, per pooled buffer its offset and domain, and per function
(`hip.pool_buffers`, for memory reports) each buffer's size, symbolic offset,
live interval and domain, with the rules that compute the dims of those sizes
that are not graph-input symbols.
`emit-fragmentation-report` prints, per domain, the pool size against the
max-live lower bound to stderr.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from xdsl.context import Context
from xdsl.dialects import builtin, func, memref
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xhip.analysis.liveness import Interval, live_intervals
from xhip.analysis.model_buffers import dim_rules
from xhip.analysis.pool_sizes import DimNames, byte_size, is_poolable, symbolic_dim
from xhip.diagnostics import op_error
from xhip.dialects.hip import RUNTIME_OFFSET, pool_attributes
from xhip.dialects.hip.attributes import PoolBuffers
from xhip.memory import PLANNERS, Buffer, Placement, Planner, SizeExpr, lower_bound_expr
from xhip.memory.greedy import plan_at_sizes
from xhip.passes.contracts import erase_deallocs, escapes, is_pure, require_context
from xhip.rewrite_rules.pool_emission import PooledBuffer, emit_pool, emit_run_time_pool


# -- what can be pooled -------------------------------------------------------------------


def _drop_deallocs(allocs: Iterable[memref.AllocOp]) -> list[memref.AllocOp]:
    """Erase the deallocs of `allocs` (the pool owns their bytes); the allocs still used."""
    kept = []
    for alloc in allocs:
        erase_deallocs(alloc.memref)
        if alloc.memref.uses:
            kept.append(alloc)
        else:
            Rewriter.erase_op(alloc)
    return kept


# -- dominance domains ----------------------------------------------------------------------


class _Pins:
    """Where each size value becomes computable, if its pure arithmetic moves up:
    the position of the latest op in its producer cone that cannot move (-1: none)."""

    def __init__(self, positions: dict[Operation, int]):
        self.positions = positions
        self._memo: dict[SSAValue, int] = {}
        self.hoisted: set[Operation] = set()
        """Ops already moved above an earlier domain's start, so above any later one."""

    def of(self, value: SSAValue) -> int:
        if value not in self._memo:
            owner = value.owner
            if not isinstance(owner, Operation) or owner not in self.positions:
                pin = -1
            elif not is_pure(owner):
                pin = self.positions[owner]
            else:
                pin = max((self.of(operand) for operand in owner.operands), default=-1)
            self._memo[value] = pin
        return self._memo[value]

    def movable_cone(self, value: SSAValue, after: int, found: set[Operation]) -> None:
        """Add to `found` the pure ops at or after position `after` that `value` needs."""
        owner = value.owner
        if (
            isinstance(owner, Operation)
            and self.positions.get(owner, -1) >= after
            and owner not in found
            and owner not in self.hoisted
        ):
            assert is_pure(owner), "a pinned value cannot be in a domain that starts before it"
            found.add(owner)
            for operand in owner.operands:
                self.movable_cone(operand, after, found)


@dataclass
class Domain:
    """Allocations that share one pool; its size is computed before `members[0]`."""

    members: list[memref.AllocOp]

    @property
    def first(self) -> memref.AllocOp:
        return self.members[0]


def partition_domains(allocs: Sequence[memref.AllocOp], pins: _Pins) -> list[Domain]:
    """Allocations in program order; each joins the newest domain if its sizes are
    computable before that domain's first allocation, else opens a new domain.

    (An older domain starts earlier still, so it cannot take what the newest cannot.)"""
    domains: list[Domain] = []
    for alloc in allocs:
        pin = max((pins.of(size) for size in alloc.dynamic_sizes), default=-1)
        if domains and pin < pins.positions[domains[-1].first]:
            domains[-1].members.append(alloc)
        else:
            domains.append(Domain([alloc]))
    return domains


def _hoist_size_arithmetic(domain: Domain, pins: _Pins) -> None:
    """Move the pure ops the domain's sizes need above its first allocation, in order."""
    needed: set[Operation] = set()
    start = pins.positions[domain.first]
    for alloc in domain.members:
        for size in alloc.dynamic_sizes:
            pins.movable_cone(size, start, needed)
    for op in sorted(needed, key=pins.positions.__getitem__):
        op.detach()
        Rewriter.insert_op(op, InsertPoint.before(domain.first))
    pins.hoisted |= needed


# -- records --------------------------------------------------------------------------------

RUN_TIME = "run-time"
"""The planner choice that plans at each run's sizes (and the size / offset text it records)."""



@dataclass
class PoolRecord:
    """What the pass did, for the module attributes: per domain, per pooled buffer."""

    totals: list[SizeExpr | None] = field(default_factory=list)
    """Per domain its pool size; None when it is planned at run time."""
    pools: list[int] = field(default_factory=list)
    """Per domain the pool it draws from."""
    offsets: list[int] = field(default_factory=list)
    domains: list[int] = field(default_factory=list)
    functions: dict[str, PoolBuffers] = field(default_factory=dict)

    def module_attributes(self, alignment: int) -> dict[str, Attribute]:
        per_pool: dict[int, list[SizeExpr | None]] = {}
        for pool, total in zip(self.pools, self.totals):
            per_pool.setdefault(pool, []).append(total)
        known = [SizeExpr.max_of(t) for t in per_pool.values() if None not in t]  # type: ignore[arg-type]
        whole = RUN_TIME if len(known) < len(per_pool) else str(sum(known, SizeExpr.const(0)))
        totals = [RUN_TIME if t is None else str(t) for t in self.totals]
        return pool_attributes(alignment, whole, totals, self.offsets, self.domains, self.pools, self.functions)


@dataclass(frozen=True)
class _Placed:
    """One pooled buffer as the reports see it (recorded before its alloc becomes a view)."""

    size: SizeExpr
    offset: SizeExpr | None
    """None: planned at run time (`hip.plan_pool`)."""
    interval: Interval
    domain: int


def function_record(placed: Sequence[_Placed], names: DimNames) -> PoolBuffers:
    """`hip.pool_buffers` of one function; `dims` computes every dim that is not a graph
    input's symbol printed as itself (`%select`, or `batch_1` for a second value of `batch`)."""
    values = {
        key
        for p in placed
        for key in p.size.dims | (p.offset.dims if p.offset is not None else frozenset())
        if isinstance(key, SSAValue)
    }
    # By name: a set's order would change the printed rules from one compile to the next.
    unnamed = dict(sorted(((names(v), v) for v in values if names(v) != symbolic_dim(v)), key=lambda item: item[0]))
    return PoolBuffers(
        tuple(str(p.size) for p in placed),
        tuple(RUN_TIME if p.offset is None else str(p.offset) for p in placed),
        tuple((p.interval.first, p.interval.last) for p in placed),
        tuple(p.domain for p in placed),
        dim_rules(unnamed) if unnamed else None,
    )


def fragmentation_line(function: str, domain_id: int, total: SizeExpr, bound: SizeExpr) -> str:
    """One domain of the report: what the plan asks for against what is live at most."""
    line = f"hip-pool-allocs fragmentation: @{function} domain {domain_id}: "
    line += f"pool {total} vs max-live lower bound {bound}"
    used, least = total.static_value, bound.static_value
    if used is not None and least is not None:
        excess = f"{100.0 * (used - least) / least:.1f}%" if least else "n/a"
        line += f" = {used}/{least} bytes ({excess} over)"
    return line


def _domain_buffers(domain: Domain, intervals: dict[SSAValue, Interval], names: DimNames) -> list[Buffer]:
    """The domain's members as planner buffers (id = position in the domain), grouped by their dims."""
    buffers = []
    for index, alloc in enumerate(domain.members):
        interval = intervals[alloc.memref]
        group = tuple(alloc.dynamic_sizes) or None
        buffers.append(Buffer(index, byte_size(alloc, names), interval.first, interval.last, group))
    return buffers


def _planned_at_static_sizes(buffers: Sequence[Buffer], alignment: int) -> Placement:
    """The run-time planner's answer for sizes known now, as a placement of constants."""
    sizes = [buffer.static_size for buffer in buffers]
    offsets, total = plan_at_sizes(sizes, [(b.first, b.last) for b in buffers], alignment)  # type: ignore[arg-type]
    return Placement({b.id: SizeExpr.const(o) for b, o in zip(buffers, offsets)}, SizeExpr.const(total), [])


# -- the pass -------------------------------------------------------------------------------

PlannerName = Literal["", "run-time", *PLANNERS]  # type: ignore[valid-type]
"""The `planner` option's choices: xhip.memory's planners by name, "run-time", or ""
(lifetime-only decides).

Built from PLANNERS, so a new planner is a choice (and listed by --list-passes) at once."""


@dataclass
class _PoolEnds:
    """Per pool, the last use of any buffer drawn from it so far (program points)."""

    ends: list[int] = field(default_factory=list)

    def pool_for(self, start: int, last: int) -> int:
        """A pool whose buffers are all dead before `start`, or a new one; it now ends at `last`."""
        for pool, end in enumerate(self.ends):
            if end < start:
                self.ends[pool] = last
                return pool
        self.ends.append(last)
        return len(self.ends) - 1


@dataclass(frozen=True)
class PoolAllocsPass(ModulePass):
    """Pack the entry-block memref.allocs of each function into hip.get_pool views."""

    name = "hip-pool-allocs"

    alignment: int = 256
    """Byte alignment of every buffer in a pool (a power of two)."""
    lifetime_only: bool = True
    """Seed 001: true packs each runtime-sized buffer on its own; false groups by dims."""
    planner: PlannerName = ""
    """A planner of xhip.memory by name, or "run-time" (plan at each run's sizes, xhip.memory.greedy);
    overrides lifetime-only. Empty: lifetime-only decides."""
    emit_fragmentation_report: bool = False
    """Print each domain's pool size and max-live lower bound to stderr."""

    def __post_init__(self):
        # Option mistakes are reported where the option was written (the YAML line or -p).
        if self.alignment <= 0 or self.alignment & (self.alignment - 1):
            raise ValueError(f"alignment must be a positive power of 2, got {self.alignment}")

    @property
    def chosen_planner(self) -> Planner:
        """The symbolic planner (the run-time choice uses it for nothing)."""
        name = self.planner if self.planner in PLANNERS else ("lifetime-only" if self.lifetime_only else "grouped")
        return PLANNERS[name]

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        record = PoolRecord()
        names = DimNames()  # one namespace for the module, so the sizes of two functions never read alike
        for function in [f for f in op.walk() if isinstance(f, func.FuncOp)]:
            self._pool_function(function, record, names)
        if record.totals:
            op.attributes.update(record.module_attributes(self.alignment))

    def _pool_function(self, function: func.FuncOp, record: PoolRecord, names: DimNames) -> None:
        block = function.body.blocks.first
        if block is None:
            return
        candidates = [
            a for a in block.ops if isinstance(a, memref.AllocOp) and is_poolable(a) and not escapes(a.memref)
        ]
        if not candidates:
            return
        context = require_context(function, self.name, "pooling memref.alloc")
        for alloc in candidates:
            self._check_alignment(alloc)
        candidates = _drop_deallocs(candidates)
        if not candidates:
            return
        positions = {o: i for i, o in enumerate(block.ops)}
        intervals = live_intervals(block, [a.memref for a in candidates])
        pins = _Pins(positions)
        pool_ends = _PoolEnds()
        pool_base = len(set(record.pools))  # pools are numbered across the module, like domains
        placed: dict[memref.AllocOp, _Placed] = {}
        for domain in partition_domains(candidates, pins):
            domain_id = len(record.totals)
            start = positions[domain.first]
            pool = pool_base + pool_ends.pool_for(start, max(intervals[a.memref].last for a in domain.members))
            _hoist_size_arithmetic(domain, pins)
            buffers = _domain_buffers(domain, intervals, names)
            plan = self._place(domain, domain_id, buffers)
            offsets: list[SizeExpr | None]
            if plan is None:
                sizes, spans = [b.size for b in buffers], [(b.first, b.last) for b in buffers]
                emit_run_time_pool(context, pool, sizes, spans, self.alignment, domain.members, domain.first)
                record.totals.append(None)
                offsets = [None] * len(buffers)
            else:
                members = [PooledBuffer(alloc, plan.offsets[b.id]) for alloc, b in zip(domain.members, buffers)]
                emit_pool(context, pool, plan.total, members, domain.first)
                offsets = [member.offset for member in members]
                record.totals.append(plan.total)
            record.pools.append(pool)
            for alloc, buffer, offset in zip(domain.members, buffers, offsets, strict=True):
                placed[alloc] = _Placed(buffer.size, offset, intervals[alloc.memref], domain_id)
        in_order = [placed[alloc] for alloc in candidates]  # program order
        for entry in in_order:
            static = None if entry.offset is None else entry.offset.static_value
            record.offsets.append(RUNTIME_OFFSET if static is None else static)
            record.domains.append(entry.domain)
        record.functions[function.sym_name.data] = function_record(in_order, names)

    def _check_alignment(self, alloc: memref.AllocOp) -> None:
        """Pool offsets are multiples of `alignment`: an allocation may not ask for more."""
        wanted = alloc.alignment.value.data if alloc.alignment is not None else 1
        if wanted > self.alignment:
            raise op_error(
                alloc,
                f"hip-pool-allocs: the allocation asks for {wanted}-byte alignment, more than the "
                f"pool's {self.alignment} (raise hip-pool-allocs' alignment option)",
            )

    def _place(self, domain: Domain, domain_id: int, buffers: list[Buffer]) -> Placement | None:
        """Where the planner puts the domain's buffers; None when the run-time planner leaves
        a domain with runtime sizes to the run."""
        if self.planner == RUN_TIME:
            if any(buffer.static_size is None for buffer in buffers):
                return None
            placement = _planned_at_static_sizes(buffers, self.alignment)
        else:
            placement = self.chosen_planner(buffers, self.alignment)
        if self.emit_fragmentation_report:
            function = domain.first.parent_op()
            assert isinstance(function, func.FuncOp)
            bound = lower_bound_expr(buffers, self.alignment)
            sys.stderr.write(
                fragmentation_line(function.sym_name.data, domain_id, placement.total, bound) + "\n"
            )
        return placement
