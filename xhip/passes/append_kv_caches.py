"""hip-append-kv-caches: a KV cache's `present = Concat(past, new)` appends in place.

A decoder step exported with its cache (torch.onnx, transformers, with or without the
legacy tuple layout) takes `past` as a graph input and returns `present`, the concat of
`past` and the step's new keys or values along the sequence axis, which the caller feeds
back as the next step's `past`. Concatenated into a fresh output, every step copies the
whole cache: at 128 tokens of 12 layers that is 48 copies of a cache each step, to add a
row to each.

This pass turns each such concat into `hip.cache_append`: the output is `past` extended
by `new` where `past` lives, when the caller's buffer has room (see the op). It matches

    %out = hip.alloc_output(...) {out_idx = i}
    hip.concat(%ctx) ins(%past, %new) outs(%out) {axis = a}
    func.return ..., %out, ...            (at position i)

where `%past` is a function argument with a dynamic extent along `a`, read by nothing
but this concat and `memref.dim`, and `%out` is read only by hip ops (which take any
strides: attention reads K and V through the cache) and the return. `%past` and the
result take a strided layout: dims after `a` keep their row-major strides, the dims
before `a` step over the cache's capacity (dynamic), the offset is dynamic. Anything else
(a past read by a kernel or a view, a concat of three, a static axis) is left as it is.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin, func, memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType, StridedLayoutAttr
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xhip.diagnostics import node_location
from xhip.dialects.hip import AllocOutputOp, CacheAppendOp, ConcatOp
from xhip.passes.contracts import function_body, function_context

PASS = "hip-append-kv-caches"


@dataclass(frozen=True)
class CacheConcat:
    """One `present = Concat(past, new)` that can append in place."""

    concat: ConcatOp
    output: AllocOutputOp
    past: BlockArgument
    axis: int


def cache_layout(shape: tuple[int, ...], axis: int) -> StridedLayoutAttr:
    """The layout of a view into a cache laid out at its capacity along `axis`: the dims
    after `axis` row-major (static where their extents are), the rest dynamic."""
    strides: list[int | None] = [None] * len(shape)
    step: int | None = 1
    for dim in range(len(shape) - 1, axis - 1, -1):
        strides[dim] = step
        extent = shape[dim]
        step = None if step is None or extent == DYNAMIC_INDEX or dim == axis else step * extent
    return StridedLayoutAttr(strides, None)


def _only_reads_through_hip(value: SSAValue, writer: Operation) -> bool:
    """Whether every use of `value` but `writer` is the return or a hip op that reads it (no
    view of it would survive a change of its layout, and no other op may write the cache)."""
    return all(
        use.operation is writer
        or isinstance(use.operation, func.ReturnOp)
        or (use.operation.name.startswith("hip.") and value not in getattr(use.operation, "outputs", ()))
        for use in value.uses
    )


def _match(ret: func.ReturnOp, index: int, value: SSAValue, block: builtin.Block) -> CacheConcat | None:
    output = value.owner
    if not isinstance(output, AllocOutputOp) or output.out_idx.value.data != index:
        return None
    writers = [use.operation for use in value.uses if isinstance(use.operation, ConcatOp)]
    if len(writers) != 1:
        return None
    concat = writers[0]
    if list(concat.outputs) != [value] or len(concat.inputs) != 2:
        return None
    past = concat.inputs[0]
    if not isinstance(past, BlockArgument) or past.block is not block or not isinstance(past.type, MemRefType):
        return None
    if not isinstance(past.type.layout, builtin.NoneAttr):
        return None
    rank = len(past.type.get_shape())
    axis = concat.axis.value.data
    axis = axis + rank if axis < 0 else axis
    if not 0 <= axis < rank or past.type.get_shape()[axis] != DYNAMIC_INDEX:
        return None
    if any(not isinstance(use.operation, memref.DimOp) and use.operation is not concat for use in past.uses):
        return None
    if sum(1 for operand in ret.operands if operand is value) != 1 or not _only_reads_through_hip(value, concat):
        return None
    return CacheConcat(concat, output, past, axis)


def _strided(value_type: MemRefType, axis: int) -> MemRefType:
    shape = value_type.get_shape()
    return MemRefType(value_type.element_type, shape, cache_layout(shape, axis), value_type.memory_space)


def _private(fn: func.FuncOp) -> bool:
    return fn.sym_visibility is not None and fn.sym_visibility.data == "private"


def append_in_place(fn: func.FuncOp) -> int:
    """Rewrite every cache concat of `fn`; how many there were."""
    block = function_body(fn, PASS)
    ctx = function_context(fn)
    if block is None or ctx is None:
        return 0
    ret = block.last_op
    if not isinstance(ret, func.ReturnOp):
        return 0
    found = [m for i, v in enumerate(ret.operands) if (m := _match(ret, i, v, block)) is not None]
    for match in found:
        past_type = _strided(match.past.type, match.axis)  # type: ignore[arg-type]
        past = Rewriter.replace_value_with_new_type(match.past, past_type)
        result_type = _strided(match.output.result.type, match.axis)
        append = CacheAppendOp(
            ctx, past, match.concat.inputs[1], result_type, match.axis, match.output.out_idx.value.data, match.output.dynamic_sizes
        )
        append.location = node_location(match.concat)
        Rewriter.insert_op(append, InsertPoint.before(match.concat))
        match.output.result.replace_all_uses_with(append.result)
        Rewriter.erase_op(match.concat)
        Rewriter.erase_op(match.output)
    if found:
        fn.function_type = builtin.FunctionType.from_lists([a.type for a in block.args], [v.type for v in ret.operands])
    return len(found)


@dataclass(frozen=True)
class AppendKvCaches(ModulePass):
    """A KV cache's `present = Concat(past, new)` (past an argument, present returned)
    becomes hip.cache_append: new rows written into the caller's cache buffer."""

    name = PASS

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for fn in op.ops:
            if isinstance(fn, func.FuncOp) and not _private(fn):
                append_in_place(fn)
