"""hip-use-output-allocator: graph outputs are allocated by the runtime's output allocator.

Every buffer that reaches `func.return` of a public function becomes
`hip.alloc_output(%ctx, dims) {out_idx = i}`, sized by the graph output's
external dims: the dims of the returned value, not of the buffer behind it. A
buffer `[b*s]` expanded to `[b, s]` for return becomes `alloc_output(%b, %s)` of
the 2-D type, and the producer writes it through a `collapse_shape` view: two
runtime dims are never rebuilt from their product (seed 002).

A returned value reaches its buffer (an allocation) through a chain of
`memref.cast`, `expand_shape` and `collapse_shape`; the allocation is replaced
by the output and the chain inverted for its other users. Everything else is
copied into an output right before the return: function arguments, globals,
run-time sized buffers behind a cast that makes a dynamic extent static (the
cast's run-time check stays),
strided views (a NonZero result is the valid part of a capacity buffer), a
buffer already returned at a lower position, and outputs whose dims are only
computed after the buffer is first used.

All returned values are analysed before any IR changes (an output's analysis
must never see another output's half-done rewrite). Private functions are left
alone; a public one must take `!hip.context` first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin, func, memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    MemRefType,
    TensorType,
    UnrankedMemRefType,
)
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xhip.diagnostics import op_error
from xhip.dialects.hip import AllocOutputOp, CacheAppendOp
from xhip.passes.contracts import erase_deallocs, function_body, require_bufferized_results, require_context
from xhip.rewrite_rules.bufferize.extents import Factors, extents
from xhip.rewrite_rules.bufferize.types import Dim, collapse, expand, is_identity
from xhip.shapes import IndexEmitter

PASS = "hip-use-output-allocator"

VIEW_CHAIN = (memref.CastOp, memref.ExpandShapeOp, memref.CollapseShapeOp)
"""Views an output can be seen through by its producer: they keep the buffer contiguous."""


@dataclass
class OutputPlan:
    """How graph output `index` gets its buffer."""

    index: int
    value: SSAValue
    """The returned value."""
    chain: list[Operation]
    """The view ops from the returned value back to `root`, returned side first."""
    root: SSAValue
    dims: list[Factors | None]
    """The external extents (of `value`); None where only `memref.dim` can tell."""
    at: Operation | None = None
    """Where the output replaces the root allocation; None: copy at the return."""


def _dominates(value: SSAValue, op: Operation) -> bool:
    """Whether `value` is defined before `op` (single-block functions)."""
    if isinstance(value, BlockArgument):
        return value.block is op.parent_block()
    owner = value.owner
    assert isinstance(owner, Operation)
    return owner.is_before_in_block(op)


def _factors_dominate(dims: Sequence[Factors | None], op: Operation) -> bool:
    return all(
        factors is not None and all(isinstance(f, int) or _dominates(f, op) for f in factors) for factors in dims
    )


def _view_chain(value: SSAValue) -> tuple[list[Operation], SSAValue]:
    chain: list[Operation] = []
    while isinstance(value.owner, VIEW_CHAIN):
        chain.append(value.owner)
        value = value.owner.operands[0]
    return chain, value


def _asserts_extents(op: Operation) -> bool:
    """A `memref.cast` that makes a dynamic extent static: a claim checked at run time."""
    if not isinstance(op, memref.CastOp):
        return False
    source, result = op.source.type, op.dest.type
    if not (isinstance(source, MemRefType) and isinstance(result, MemRefType)):
        return False
    return any(s == DYNAMIC_INDEX and r != DYNAMIC_INDEX for s, r in zip(source.get_shape(), result.get_shape()))


def _first_user(value: SSAValue) -> Operation:
    users = [use.operation for use in value.uses]
    first = users[0]
    for user in users[1:]:
        if user.is_before_in_block(first):
            first = user
    return first


def _placement(plan: OutputPlan, claimed: set[SSAValue]) -> Operation | None:
    """Where the output can replace the root allocation, or None (copy instead)."""
    root_op = plan.root.owner
    if not isinstance(root_op, memref.AllocOp) or plan.root in claimed:
        return None
    if not all(is_identity(op.results[0].type) for op in plan.chain):
        return None
    if root_op.dynamic_sizes and any(_asserts_extents(op) for op in plan.chain):
        # The output would take the cast's static extents instead of the run-time
        # sizes of the buffer, and the cast's check (an Expand's target against the
        # model's declared extent) would be lost.
        return None
    # The output's dims may be computed after the allocation (an expand's output shape):
    # then it goes before the buffer's first use, if they are known by then.
    for candidate in (root_op, _first_user(plan.root)):
        if _factors_dominate(plan.dims, candidate):
            return candidate
    return None


def _analyse(ret: func.ReturnOp) -> list[OutputPlan]:
    plans = []
    claimed: set[SSAValue] = set()
    for index, value in enumerate(ret.arguments):
        if _is_scalar(value):
            continue  # returned as it is
        if _is_runtime_output(value, index):
            continue  # already the output's own buffer (the pass ran before)
        chain, root = _view_chain(value)
        plan = OutputPlan(index, value, chain, root, extents(value))
        plan.at = _placement(plan, claimed)
        if plan.at is not None:
            claimed.add(root)
        plans.append(plan)
    return plans


class _Emitter:
    """Builds at one point: the output's sizes and the views between output and buffer."""

    def __init__(self, at: Operation):
        self.index = IndexEmitter(InsertPoint.before(at))
        self.at = at

    def insert(self, op: Operation) -> Operation:
        op.location = self.at.location
        return self.index.builder.insert(op)

    def value(self, op: Operation) -> SSAValue:
        return self.insert(op).results[0]

    def extent(self, value: SSAValue, axis: int, factors: Factors | None) -> Dim:
        if factors is None:
            return self.value(memref.DimOp(value, self.index.constant(axis)))
        return self.index.product(factors)

    def output(self, ctx: SSAValue, returned: SSAValue, plan: OutputPlan) -> SSAValue:
        """The output buffer, of the returned value's type and external dims."""
        value_type = returned.type
        assert isinstance(value_type, MemRefType)
        sizes = [
            self.index.materialize(self.extent(returned, axis, factors))
            for axis, (factors, static) in enumerate(zip(plan.dims, value_type.get_shape(), strict=True))
            if static == DYNAMIC_INDEX
        ]
        return self.value(AllocOutputOp(ctx, value_type, plan.index, sizes))

    def inverse(self, output: SSAValue, chain: Sequence[Operation], root_type: Attribute) -> SSAValue:
        """The root buffer's view of `output`: the chain's reshapes undone, in reverse.

        Casts only change static information: one cast to the root's type at the end."""
        current = output
        for op in chain:
            if isinstance(op, memref.ExpandShapeOp):
                current = self.value(collapse(current, op.reassociation))
            elif isinstance(op, memref.CollapseShapeOp):
                source = op.src
                dims = [self.extent(source, axis, f) for axis, f in enumerate(extents(source))]
                current = self.value(expand(current, op.reassociation, dims))
        if current.type == root_type:
            return current
        return self.value(memref.CastOp.get(current, root_type))  # type: ignore[arg-type]


def _rewrite(plan: OutputPlan, ctx: SSAValue, ret: func.ReturnOp) -> None:
    if plan.at is None:
        # The value as returned now: an earlier output may have replaced its buffer.
        returned = ret.operands[plan.index]
        emitter = _Emitter(ret)
        output = emitter.output(ctx, returned, plan)
        emitter.insert(memref.CopyOp(returned, output))
    else:
        emitter = _Emitter(plan.at)
        output = emitter.output(ctx, plan.value, plan)
        view = emitter.inverse(output, plan.chain, plan.root.type)
        erase_deallocs(plan.root)  # the runtime owns outputs
        plan.root.replace_all_uses_with(view)
        assert isinstance(plan.root.owner, Operation)
        Rewriter.erase_op(plan.root.owner)
    ret.operands = [output if i == plan.index else v for i, v in enumerate(ret.operands)]
    for op in plan.chain:
        if op.parent is not None and not op.results[0].uses:
            Rewriter.erase_op(op)


def _is_scalar(value: SSAValue) -> bool:
    return not isinstance(value.type, MemRefType | UnrankedMemRefType | TensorType)


def _is_runtime_output(value: SSAValue, index: int) -> bool:
    """Whether `value` is output `index` as the runtime makes it already (the pass ran before):
    its own `hip.alloc_output`, or a KV cache's append (hip-append-kv-caches), whose strided
    view into the caller's cache is the output."""
    owner = value.owner
    return isinstance(owner, AllocOutputOp | CacheAppendOp) and owner.out_idx.value.data == index


def _check_results(fn: func.FuncOp, ret: func.ReturnOp) -> None:
    require_bufferized_results(fn, ret, PASS)
    name = fn.sym_name.data
    for index, value in enumerate(ret.arguments):
        if isinstance(value.type, UnrankedMemRefType):
            raise op_error(ret, f"{PASS}: result #{index} of '@{name}' is an unranked memref ({value.type})")
        if isinstance(value.type, MemRefType) and not is_identity(value.type) and not _is_runtime_output(value, index):
            raise op_error(
                ret, f"{PASS}: result #{index} of '@{name}' has a layout ({value.type}); graph outputs are contiguous"
            )


def _allocate_outputs(fn: func.FuncOp) -> None:
    if fn.sym_visibility is not None and fn.sym_visibility.data == "private":
        return
    block = function_body(fn, PASS)
    if block is None:
        return
    ret = block.last_op
    if not isinstance(ret, func.ReturnOp) or all(_is_scalar(v) for v in ret.arguments):
        return
    context = require_context(fn, PASS, "allocating graph outputs")
    _check_results(fn, ret)
    plans = _analyse(ret)
    for plan in plans:
        _rewrite(plan, context, ret)


@dataclass(frozen=True)
class UseOutputAllocatorPass(ModulePass):
    """Returned buffers become `hip.alloc_output` sized by the graph outputs' external dims."""

    name = PASS

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for fn in [f for f in op.walk() if isinstance(f, func.FuncOp)]:
            _allocate_outputs(fn)
