"""Data movement: Transpose, Concat, Split, Slice, Gather, GatherElements, GatherND, Trilu,
Expand.

Destinations come from the `xhip.shapes` rules. On host vectors (shape
subgraphs) Concat, Split, Slice, Gather and Expand compute the elements on the
host instead; everything else becomes a hip op, or `tensor.extract_slice` views:
a Slice whose steps are all positive at compile time, and each part of a Split.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import tensor
from xdsl.dialects.builtin import DenseArrayBase, FloatAttr, IntegerAttr, StringAttr, f64, i64
from xdsl.ir import Attribute, Operation

from xhip import shapes
from xhip.dialects import hip
from xhip.dialects.hip.movement import PAD_MODES
from xhip.dialects.onnx import is_none
from xhip.onnx_nodes import constant_scalar
from xhip.rewrite_rules.onnx_to_hip.registry import converts
from xhip.rewrite_rules.onnx_to_hip.state import ConversionState, Lowered, tensor_type
from xhip.rewrite_rules.onnx_to_hip.views import strided_window
from xhip.shapes import Dim


def _host_vector(lowered: Lowered) -> list[Dim] | None:
    """The host elements of a rank <= 1 value, the only host values we index into."""
    if lowered.host is None or len(lowered.dims) > 1:
        return None
    return lowered.host


def _all_static(dims: Sequence[Dim]) -> bool:
    return all(isinstance(d, int) for d in dims)


def _axis_attr(axis: int, rank: int) -> IntegerAttr:
    """An ONNX axis the shape rule accepted, as a non-negative `i64` property."""
    return IntegerAttr(axis + rank if axis < 0 else axis, i64)


def _result_dims(op: Operation, state: ConversionState, dims: list[Dim], index: int = 0) -> list[Dim]:
    return state.fit_to_declared(dims, op.results[index].type)


def _same_dims(a: Sequence[Dim], b: Sequence[Dim]) -> bool:
    return len(a) == len(b) and all(x is y or (isinstance(x, int) and x == y) for x, y in zip(a, b))


@converts("Transpose")
def convert_transpose(op: Operation, state: ConversionState) -> list[Lowered]:
    x = op.operands[0]
    rank = len(state.dims(x))
    perm_attr = op.perm  # type: ignore[attr-defined]
    perm = list(perm_attr.data) if perm_attr is not None else list(reversed(range(rank)))
    dims = _result_dims(op, state, state.check(shapes.transpose(state.emitter, state.dims(x), perm)))
    if perm == list(range(rank)):
        return [state.lowered(x)]
    properties = {"perm": DenseArrayBase.from_list(i64, perm)}
    return state.compute(hip.TransposeOp, [state.tensor(x)], [(dims, state.element_type(x))], properties=properties)


@converts("Concat")
def convert_concat(op: Operation, state: ConversionState) -> list[Lowered]:
    inputs = list(op.operands)
    axis = op.axis.value.data  # type: ignore[attr-defined]
    lowered = [state.lowered(v) for v in inputs]
    dims = state.check(shapes.concat(state.emitter, [v.dims for v in lowered], axis))
    dims = _result_dims(op, state, dims)
    if len(inputs) == 1:
        return [lowered[0]]
    host = [_host_vector(v) for v in lowered]
    if len(dims) == 1 and all(h is not None for h in host):
        return [Lowered(dims, lowered[0].element_type, host=[e for h in host for e in h])]  # type: ignore[union-attr]
    properties = {"axis": _axis_attr(axis, len(dims))}
    element_type = lowered[0].element_type
    return state.compute(hip.ConcatOp, [state.tensor(v) for v in inputs], [(dims, element_type)], properties=properties)


@converts("Split")
def convert_split(op: Operation, state: ConversionState) -> list[Lowered]:
    x = op.operands[0]
    split = op.split  # type: ignore[attr-defined]
    axis = op.axis.value.data  # type: ignore[attr-defined]
    sizes = None if is_none(split) else state.elements(split)
    count = len(op.results) if op.num_outputs is None else op.num_outputs.value.data  # type: ignore[attr-defined]
    chunks = state.check(shapes.split(state.emitter, state.dims(x), axis, sizes, count))
    if len(chunks) != len(op.results):
        raise state.error(f"Split makes {len(chunks)} parts but the op has {len(op.results)} results")
    outputs = [_result_dims(op, state, dims, i) for i, dims in enumerate(chunks)]
    source = state.lowered(x)
    element_type = source.element_type
    host = _host_vector(source)
    if host is not None and all(_all_static(dims) for dims in outputs):
        parts, cursor = [], 0
        for (extent,) in outputs:
            assert isinstance(extent, int)  # all static
            parts.append(Lowered([extent], element_type, host=host[cursor : cursor + extent]))
            cursor += extent
        return parts
    # Each part is a window of x: a view, no copy and no buffer of its own (GPT-2's fused
    # QKV projection splits into Q, K and V, which the head transposes read strided).
    rank, data = len(source.dims), state.tensor(x)
    along = axis % rank
    parts = []
    start: Dim = 0
    for dims in outputs:
        first = [start if d == along else 0 for d in range(rank)]
        view = tensor.ExtractSliceOp(data, first, dims, [1] * rank, tensor_type(dims, element_type))
        parts.append(Lowered(dims, element_type, state.insert(view).results[0]))
        start = state.emitter.add(start, dims[along])
    return parts


@converts("Slice")
def convert_slice(op: Operation, state: ConversionState) -> list[Lowered]:
    """Bounds are host values when known (Shape of another input) and `tensor.extract`s otherwise."""
    data, starts, ends, axes, steps = op.operands
    source = state.lowered(data)
    window = shapes.slice_window(
        state.emitter,
        source.dims,
        state.elements(starts),
        state.elements(ends),
        None if is_none(axes) else state.static_ints(axes, "Slice axes"),
        None if is_none(steps) else state.elements(steps),
    )
    first, strides, extents = state.check(window)
    dims = _result_dims(op, state, extents)
    host = _host_vector(source)
    if host is not None and _all_static([*first, *strides, *dims]):
        begin, stride, extent = first[0], strides[0], dims[0]
        assert isinstance(begin, int) and isinstance(stride, int) and isinstance(extent, int)  # all static
        picked = [host[begin + i * stride] for i in range(extent)]
        return [Lowered(dims, source.element_type, host=picked)]
    return [strided_window(state, state.tensor(data), first, dims, strides, source.element_type)]


def _gather_on_host(data: Lowered, indices: Lowered) -> list[Dim] | None:
    """Gather of a host vector at constant indices (a Shape element picked by position)."""
    vector = _host_vector(data)
    if vector is None or len(data.dims) != 1 or indices.host is None:
        return None
    if not _all_static(indices.host) or not _all_static(indices.dims):
        return None
    extent = len(vector)
    if any(not -extent <= i < extent for i in indices.host):  # type: ignore[operator]
        return None
    return [vector[i] for i in indices.host]  # type: ignore[index]


@converts("Gather")
def convert_gather(op: Operation, state: ConversionState) -> list[Lowered]:
    data, indices = (state.lowered(v) for v in op.operands)
    axis = op.axis.value.data  # type: ignore[attr-defined]
    dims = state.check(shapes.gather(state.emitter, data.dims, indices.dims, axis))
    dims = _result_dims(op, state, dims)
    picked = _gather_on_host(data, indices)
    if picked is not None:
        return [Lowered(dims, data.element_type, host=picked)]
    inputs = [state.tensor(v) for v in op.operands]
    properties = {"axis": _axis_attr(axis, len(data.dims))}
    return state.compute(hip.GatherOp, inputs, [(dims, data.element_type)], properties=properties)


@converts("GatherElements")
def convert_gather_elements(op: Operation, state: ConversionState) -> list[Lowered]:
    data, indices = op.operands
    axis = op.axis.value.data  # type: ignore[attr-defined]
    rank = len(state.dims(data))
    dims = state.check(shapes.gather_elements(state.emitter, state.dims(data), state.dims(indices), axis))
    dims = _result_dims(op, state, dims)
    properties = {"axis": _axis_attr(axis, rank)}
    inputs = [state.tensor(data), state.tensor(indices)]
    return state.compute(hip.GatherElementsOp, inputs, [(dims, state.element_type(data))], properties=properties)


@converts("GatherND")
def convert_gather_nd(op: Operation, state: ConversionState) -> list[Lowered]:
    data, indices = op.operands
    batch_dims = op.batch_dims.value.data  # type: ignore[attr-defined]
    dims = state.check(shapes.gather_nd(state.emitter, state.dims(data), state.dims(indices), batch_dims))
    dims = _result_dims(op, state, dims)
    properties = {"batch_dims": IntegerAttr(batch_dims, i64)}
    inputs = [state.tensor(data), state.tensor(indices)]
    return state.compute(hip.GatherNDOp, inputs, [(dims, state.element_type(data))], properties=properties)


@converts("Trilu")
def convert_trilu(op: Operation, state: ConversionState) -> list[Lowered]:
    """The diagonal offset `k` is a host scalar (0 when absent); ranks below 2 are refused."""
    x, k = op.operands
    dims = state.dims(x)
    if len(dims) < 2:
        raise state.error(f"Trilu needs rank >= 2, got rank {len(dims)}")
    offset = 0 if is_none(k) else state.elements(k)[0]
    properties = {"upper": IntegerAttr(op.upper.value.data, i64)}  # type: ignore[attr-defined]
    scalars = [state.emitter.materialize(offset)]
    return state.compute(
        hip.TriluOp, [state.tensor(x)], [(_result_dims(op, state, list(dims)), state.element_type(x))],
        scalars=scalars, properties=properties,
    )


@converts("Pad")
def convert_pad(op: Operation, state: ConversionState) -> list[Lowered]:
    data, pads_value, constant, axes_value = op.operands
    mode = op.mode.data  # type: ignore[attr-defined]
    if mode not in PAD_MODES:
        raise state.error(f"Pad mode \"{mode}\" is not one of {', '.join(PAD_MODES)}")
    source = state.lowered(data)
    rank = len(source.dims)
    pads = state.static_ints(pads_value, "Pad pads")
    if not is_none(axes_value):  # pads for these axes only; the others get none
        axes = [a + rank if a < 0 else a for a in state.static_ints(axes_value, "Pad axes")]
        if len(pads) != 2 * len(axes) or any(not 0 <= a < rank for a in axes):
            raise state.error(f"Pad pads {pads} and axes {axes} do not match an input of rank {rank}")
        full = [0] * (2 * rank)
        for i, axis in enumerate(axes):
            full[axis], full[rank + axis] = pads[i], pads[len(axes) + i]
        pads = full
    fill = 0.0
    if not is_none(constant) and mode == "constant":
        host = state.host(constant)  # an integer fill known on the host (shape arithmetic) counts too
        given = host[0] if host is not None and len(host) == 1 and isinstance(host[0], int) else constant_scalar(constant)
        if given is None:
            raise state.error("Pad constant_value must be a constant scalar")
        fill = float(given)
    dims = _result_dims(op, state, state.check(shapes.pad(state.emitter, source.dims, pads)))
    if not any(pads):
        return [source]
    properties: dict[str, Attribute] = {
        "pads": DenseArrayBase.from_list(i64, pads), "mode": StringAttr(mode), "value": FloatAttr(fill, f64),
    }
    return state.compute(hip.PadOp, [state.tensor(data)], [(dims, source.element_type)], properties=properties)


@converts("Expand")
def convert_expand(op: Operation, state: ConversionState) -> list[Lowered]:
    x, shape = op.operands
    source = state.lowered(x)
    rule_dims = state.check(shapes.expand(state.emitter, source.dims, state.elements(shape)))
    dims = _result_dims(op, state, rule_dims)
    if _same_dims(rule_dims, source.dims):
        return [source]
    host = _host_vector(source)
    if host is not None and len(dims) == 1 and _all_static(dims):
        # A host vector broadcasts by repeating its single element.
        return [Lowered(dims, source.element_type, host=host * dims[0] if len(host) == 1 else list(host))]  # type: ignore[operator]
    # The out takes the target's extents, not the declared ones: ONNX inference may
    # declare the input's static extent where the target is known only at run time,
    # and the runtime's Expand contract must see the target to refuse a mismatch.
    (expanded,) = state.compute(hip.ExpandOp, [state.tensor(x)], [(rule_dims, source.element_type)])
    assert expanded.value is not None
    return [Lowered(dims, source.element_type, state.cast(expanded.value, dims))]
