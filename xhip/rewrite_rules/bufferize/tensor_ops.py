"""Bufferization rules of the tensor-level ops the converter emits, one per op type.

Each rule builds the memref form of one op (before it) and binds its tensor
result to a buffer. Views stay views (`extract_slice` is a `subview`, reshapes are
`expand_shape`/`collapse_shape`); a copy is made only where a view cannot be
expressed: reshaping a strided view. Results with content of their own
(`insert_slice`, `from_elements`) get fresh buffers, so no buffer is ever
written that another value still reads.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import product
from typing import Any, TypeVar

from xdsl.builder import Builder
from xdsl.dialects import arith, bufferization, memref, tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    TensorType,
)
from xdsl.ir import Attribute, Operation, SSAValue

from xhip.diagnostics import op_error
from xhip.rewrite_rules.bufferize.extents import mixed_dims
from xhip.rewrite_rules.bufferize.state import BufferizationState
from xhip.rewrite_rules.bufferize.types import (
    Dim,
    collapse,
    collapsed_layout,
    expand,
    groups_of,
    is_identity,
    memref_of,
    subview_type,
    whole_buffer,
    with_shape,
)

OpT = TypeVar("OpT", bound=Operation)

Rule = Callable[[Any, BufferizationState], None]
"""Bufferizes one op of the type it is registered for: new IR before it, results bound."""

RULES: dict[type[Operation], Rule] = {}


def bufferizes(op_type: type[OpT]) -> Callable[[Callable[[OpT, BufferizationState], None]], Rule]:
    def register(rule: Callable[[OpT, BufferizationState], None]) -> Rule:
        RULES[op_type] = rule
        return rule

    return register


def _tensor_type(value: SSAValue) -> TensorType[Attribute]:
    assert isinstance(value.type, TensorType)
    return value.type


def _empty_dims(op: tensor.EmptyOp) -> list[Dim]:
    return mixed_dims(_tensor_type(op.tensor).get_shape(), op.dynamic_sizes)


def fresh_buffer(init: SSAValue, state: BufferizationState, builder: Builder | None = None) -> SSAValue:
    """A new buffer for a destination: an empty's shape, or a copy of a value with content."""
    owner = init.owner
    if isinstance(owner, tensor.EmptyOp):
        return state.alloc(memref_of(_tensor_type(init)), _empty_dims(owner), builder)
    return state.copy_of(state.buffer(init))


@bufferizes(tensor.EmptyOp)
def _empty(op: tensor.EmptyOp, state: BufferizationState) -> None:
    # Every destination use makes its own buffer (cse may have merged the empties of
    # several ops); reading an empty's undefined contents shares one buffer.
    state.bind_lazily(op.tensor, lambda builder: fresh_buffer(op.tensor, state, builder))


@bufferizes(tensor.DimOp)
def _dim(op: tensor.DimOp, state: BufferizationState) -> None:
    source = op.source
    axis = op.index.owner
    if (
        isinstance(source.owner, tensor.EmptyOp)
        and isinstance(axis, arith.ConstantOp)
        and isinstance(axis.value, IntegerAttr)
    ):
        # The extent is known without a buffer: don't make one just to ask it.
        extent = _empty_dims(source.owner)[axis.value.value.data]
        op.result.replace_all_uses_with(state.index(extent) if isinstance(extent, int) else extent)
        return
    dim = state.insert(memref.DimOp(state.buffer(source), op.index))
    op.result.replace_all_uses_with(dim.results[0])


@bufferizes(tensor.ExtractOp)
def _extract(op: tensor.ExtractOp, state: BufferizationState) -> None:
    load = state.insert(memref.LoadOp.get(state.buffer(op.tensor), op.indices))
    op.result.replace_all_uses_with(load.results[0])


@bufferizes(tensor.FromElementsOp)
def _from_elements(op: tensor.FromElementsOp, state: BufferizationState) -> None:
    tensor_type = _tensor_type(op.result)

    def build(builder: Builder) -> SSAValue:
        buffer = state.alloc(memref_of(tensor_type), tensor_type.get_shape(), builder)
        positions = product(*(range(extent) for extent in tensor_type.get_shape()))
        for element, position in zip(op.elements, positions, strict=True):
            builder.insert(memref.StoreOp.get(element, buffer, [state.index(i) for i in position]))
        return buffer

    state.bind_lazily(op.result, build)


def _subview(
    state: BufferizationState, buffer: SSAValue, op: tensor.ExtractSliceOp | tensor.InsertSliceOp, shape: Sequence[int]
) -> SSAValue:
    """The window of slice op `op` into `buffer`, a strided view of static shape `shape`."""
    offsets = mixed_dims(op.static_offsets.get_values(), op.offsets)
    sizes = mixed_dims(op.static_sizes.get_values(), op.sizes)
    strides = mixed_dims(op.static_strides.get_values(), op.strides)
    assert isinstance(buffer.type, MemRefType)
    view_type = subview_type(buffer.type, offsets, sizes, strides, shape)
    return state.insert(memref.SubviewOp.get(buffer, offsets, sizes, strides, view_type)).results[0]


@bufferizes(tensor.ExtractSliceOp)
def _extract_slice(op: tensor.ExtractSliceOp, state: BufferizationState) -> None:
    view = _subview(state, state.buffer(op.source), op, _tensor_type(op.result).get_shape())
    state.bind(op.result, view)


@bufferizes(tensor.InsertSliceOp)
def _insert_slice(op: tensor.InsertSliceOp, state: BufferizationState) -> None:
    result = fresh_buffer(op.dest, state)
    source = state.buffer(op.source)
    window = _subview(state, result, op, _tensor_type(op.source).get_shape())
    state.insert(memref.CopyOp(source, window))
    state.bind(op.result, result)


@bufferizes(tensor.ExpandShapeOp)
def _expand_shape(op: tensor.ExpandShapeOp, state: BufferizationState) -> None:
    # Splitting dims of a strided view is a view (a slice of GPT-2's fused QKV split into
    # heads reads the projection's buffer): no copy.
    source = state.buffer(op.src)
    output_shape = mixed_dims(op.static_output_shape.get_values(), op.dynamic_output_shape)
    static = _tensor_type(op.result).get_shape()
    view = state.insert(expand(source, op.reassociation, output_shape)).results[0]
    assert isinstance(view.type, MemRefType)
    state.bind(op.result, state.cast(view, with_shape(view.type, static)))


@bufferizes(tensor.CollapseShapeOp)
def _collapse_shape(op: tensor.CollapseShapeOp, state: BufferizationState) -> None:
    # Collapsing a strided view is a view where each group's dims lie end to end; else copy first.
    source = state.buffer(op.src)
    assert isinstance(source.type, MemRefType)
    if not is_identity(source.type) and collapsed_layout(source.type, groups_of(op.reassociation)) is None:
        source = state.copy_of(source)
    view = state.insert(collapse(source, op.reassociation)).results[0]
    assert isinstance(view.type, MemRefType)
    state.bind(op.result, state.cast(view, with_shape(view.type, _tensor_type(op.result).get_shape())))


def _reshape_dims(op: tensor.ReshapeOp, state: BufferizationState) -> list[Dim]:
    """The target extents: static ones from the result type, the others from the shape operand."""
    shape_owner = op.shape.owner
    dims: list[Dim] = []
    for position, extent in enumerate(_tensor_type(op.result).get_shape()):
        if extent != DYNAMIC_INDEX:
            dims.append(extent)
            continue
        if isinstance(shape_owner, tensor.FromElementsOp):
            element = shape_owner.elements[position]  # known on the host: no buffer, no load
        else:
            shape = state.buffer(op.shape)
            element = state.insert(memref.LoadOp.get(shape, [state.index(position)])).results[0]
        if not isinstance(element.type, IndexType):
            element = state.insert(arith.IndexCastOp(element, IndexType())).results[0]
        dims.append(element)
    return dims


@bufferizes(tensor.ReshapeOp)
def _reshape(op: tensor.ReshapeOp, state: BufferizationState) -> None:
    # A reshape of a contiguous buffer is a view: collapse to 1-D, expand to the target.
    dims = _reshape_dims(op, state)
    source = state.contiguous(state.buffer(op.source))
    assert isinstance(source.type, MemRefType)
    result_type = memref_of(_tensor_type(op.result))
    if source.type.get_num_dims() == 0 or not dims:
        # Rank 0 on either side: one element, any strides.
        view = memref.ReinterpretCastOp.from_dynamic(source, [0], dims, [1] * len(dims), result_type)
        state.bind(op.result, state.insert(view).results[0])
        return
    flat = source
    if source.type.get_num_dims() != 1:
        flat = state.insert(collapse(source, whole_buffer(source.type.get_num_dims()))).results[0]
    if len(dims) != 1:
        flat = state.insert(expand(flat, whole_buffer(len(dims)), dims)).results[0]
    state.bind(op.result, state.cast(flat, result_type))


@bufferizes(tensor.CastOp)
def _cast(op: tensor.CastOp, state: BufferizationState) -> None:
    source = state.buffer(op.source)
    assert isinstance(source.type, MemRefType)
    target = with_shape(source.type, _tensor_type(op.dest).get_shape())
    state.bind(op.dest, state.cast(source, target))


@bufferizes(bufferization.ToTensorOp)
def _to_tensor(op: bufferization.ToTensorOp, state: BufferizationState) -> None:
    # The memref itself. Nothing ever writes into a buffer it did not allocate, so a
    # global stays read-only: destinations with content are copied first.
    state.bind(op.tensor, op.memref)


@bufferizes(arith.ConstantOp)
def _constant(op: arith.ConstantOp, state: BufferizationState) -> None:
    value = op.value
    if not isinstance(value, DenseIntOrFPElementsAttr):
        raise op_error(op, f"one-shot-bufferize: cannot bufferize a tensor constant of {value}")
    symbol = state.constants.symbol_for(value)
    get_global = state.insert(memref.GetGlobalOp(symbol, memref_of(_tensor_type(op.result))))
    state.bind(op.result, get_global.results[0])
