"""Shape ops and the reshape family: Shape, Constant, NoValue, Reshape, Flatten,
Squeeze, Unsqueeze, ConstantOfShape, Range, NonZero.

Shape subgraphs stay on the host: Shape's elements are its operand's dims,
small integer constants are host elements, and the reshape family passes host
elements through, so `Shape -> Gather -> Concat -> Reshape` becomes index
arithmetic feeding a `tensor.expand_shape`, not device work.

A Reshape lowers to the cheapest view it can prove (`views.reshape_value`):
nothing when every dim is unchanged, `tensor.expand_shape` / `collapse_shape`
when the dims group into equal products, `tensor.reshape` otherwise.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from ml_dtypes import bfloat16
from xdsl.dialects import arith, tensor
from xdsl.dialects import math as math_dialect
from xdsl.dialects.builtin import (
    AnyFloat,
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    NoneType,
    TensorType,
    f16,
    f32,
    f64,
    i1,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue

from xhip import shapes
from xhip.dialects import hip
from xhip.dialects.onnx import is_none
from xhip.onnx_nodes import constant_scalar
from xhip.rewrite_rules.onnx_to_hip.registry import converts
from xhip.rewrite_rules.onnx_to_hip.state import (
    MAX_HOST_ELEMENTS,
    ConversionState,
    Lowered,
    tensor_type,
)
from xhip.rewrite_rules.onnx_to_hip.views import reshape_through_ones, reshape_value
from xhip.shapes import Dim

# --------------------------------------------------------------------------------------
# Constants and absent values
# --------------------------------------------------------------------------------------


def _host_constant(value: Attribute, result_type: TensorType) -> list[Dim] | None:
    """The elements of a small integer vector constant, which shape code reads on the host."""
    element_type = result_type.element_type
    if not isinstance(value, DenseIntOrFPElementsAttr) or not isinstance(element_type, IntegerType):
        return None
    if result_type.get_num_dims() > 1 or len(value) > MAX_HOST_ELEMENTS:
        return None
    elements = [int(v) for v in value.get_values()]
    # i1 elements read back as -1 for true; host elements of a bool are 0 or 1.
    is_bool = element_type.width.data == 1
    return [e & 1 if is_bool else e for e in elements]


@converts("Constant")
def convert_constant(op: Operation, state: ConversionState) -> list[Lowered]:
    result_type = op.results[0].type
    assert isinstance(result_type, TensorType)
    dims: list[Dim] = list(result_type.get_shape())
    value = op.value  # type: ignore[attr-defined]
    host = _host_constant(value, result_type)
    if host is not None:
        # The tensor is built only if a device op consumes it (state.tensor).
        return [Lowered(dims, result_type.element_type, host=host)]
    # The dense attribute is reused as is: weights are never copied element-wise.
    constant = state.insert(arith.ConstantOp(value, result_type))
    return [Lowered(dims, result_type.element_type, constant.results[0])]


@converts("NoValue")
def convert_no_value(op: Operation, state: ConversionState) -> list[Lowered]:
    # Consumers test the ONNX operand with `is_none` and never read this value.
    return [Lowered([], NoneType())]


# --------------------------------------------------------------------------------------
# Shape
# --------------------------------------------------------------------------------------


@converts("Shape")
def convert_shape(op: Operation, state: ConversionState) -> list[Lowered]:
    dims = state.dims(op.data)  # type: ignore[attr-defined]
    start = op.start.value.data  # type: ignore[attr-defined]
    end = None if op.end is None else op.end.value.data  # type: ignore[attr-defined]
    length = state.check(shapes.shape_of(state.emitter, dims, start, end))
    # Python slicing clamps negative and out-of-range bounds exactly as ONNX does.
    elements = dims[start:end]
    assert [len(elements)] == length
    return [Lowered(length, i64, host=elements)]


# --------------------------------------------------------------------------------------
# Reshape and friends
# --------------------------------------------------------------------------------------


@converts("Reshape")
def convert_reshape(op: Operation, state: ConversionState) -> list[Lowered]:
    data = op.data  # type: ignore[attr-defined]
    target = state.elements(op.shape)  # type: ignore[attr-defined]
    allowzero = bool(op.allowzero.value.data)  # type: ignore[attr-defined]
    dims = state.check(shapes.reshape(state.emitter, state.dims(data), target, allowzero))
    return [reshaped(op, state, dims)]


@converts("Flatten")
def convert_flatten(op: Operation, state: ConversionState) -> list[Lowered]:
    axis = op.axis.value.data  # type: ignore[attr-defined]
    dims = state.check(shapes.flatten(state.emitter, state.dims(op.operands[0]), axis))
    return [reshaped(op, state, dims)]


@converts("Squeeze")
def convert_squeeze(op: Operation, state: ConversionState) -> list[Lowered]:
    axes_value = op.axes  # type: ignore[attr-defined]
    axes = None if is_none(axes_value) else state.static_ints(axes_value, "Squeeze axes")
    dims = state.check(shapes.squeeze(state.emitter, state.dims(op.operands[0]), axes))
    return [reshaped(op, state, dims)]


@converts("Unsqueeze")
def convert_unsqueeze(op: Operation, state: ConversionState) -> list[Lowered]:
    axes = state.static_ints(op.axes, "Unsqueeze axes")  # type: ignore[attr-defined]
    dims = state.check(shapes.unsqueeze(state.emitter, state.dims(op.operands[0]), axes))
    return [reshaped(op, state, dims)]


@converts("Tile")
def convert_tile(op: Operation, state: ConversionState) -> list[Lowered]:
    """x [d0, d1, ..] viewed as [1, d0, 1, d1, ..], expanded to [r0, d0, r1, d1, ..] (one
    copy kernel) and viewed as [r0 d0, r1 d1, ..]: out[.., j, ..] = x[.., j % d, ..]. A repeat
    count may be a run-time dim (BLOOM tiles its ALiBi slopes by the batch)."""
    x, repeats_value = op.operands
    repeats = state.elements(repeats_value)
    source = state.lowered(x)
    dims = state.check(shapes.tile(state.emitter, source.dims, repeats))
    fitted = state.fit_to_declared(dims, op.results[0].type)
    if all(r == 1 for r in repeats):
        return [source]
    spread = [d for extent in source.dims for d in (1, extent)]
    value, spread = reshape_value(state, state.tensor(x), source.dims, spread, spread)
    target = [d for r, extent in zip(repeats, source.dims) for d in (r, extent)]
    rule_dims = state.check(shapes.expand(state.emitter, spread, target))
    (expanded,) = state.compute(hip.ExpandOp, [value], [(rule_dims, source.element_type)])
    assert expanded.value is not None
    tiled, final_dims = reshape_value(state, expanded.value, rule_dims, dims, fitted)
    return [Lowered(final_dims, source.element_type, tiled)]


def reshaped(op: Operation, state: ConversionState, dims: list[Dim]) -> Lowered:
    """Operand 0 of a reshape-like `op` viewed with the rule's `dims`."""
    source = state.lowered(op.operands[0])
    fitted = state.fit_to_declared(dims, op.results[0].type)
    if source.host is not None and all(isinstance(d, int) for d in fitted):
        # Row-major elements do not move: a host vector stays a host vector.
        return Lowered(fitted, source.element_type, host=list(source.host))
    value, final_dims = reshape_value(state, state.tensor(op.operands[0]), source.dims, dims, fitted)
    return Lowered(final_dims, source.element_type, value)


def _host_fill(dims: Sequence[Dim], element_type: Attribute) -> int | None:
    """The element count when a generated integer vector can live on the host."""
    if not isinstance(element_type, IntegerType) or len(dims) > 1:
        return None
    if not all(isinstance(d, int) for d in dims):
        return None
    count = math.prod(dims)  # type: ignore[arg-type]
    return count if count <= MAX_HOST_ELEMENTS else None


def _scalar_attr(value: float, element_type: Attribute) -> IntegerAttr | FloatAttr:
    if isinstance(element_type, IntegerType):
        return IntegerAttr(int(value), element_type)
    assert isinstance(element_type, AnyFloat)
    return FloatAttr(float(value), element_type)


@converts("ConstantOfShape")
def convert_constant_of_shape(op: Operation, state: ConversionState) -> list[Lowered]:
    dims = state.elements(op.input)  # type: ignore[attr-defined]
    if any(isinstance(d, int) and d < 0 for d in dims):
        raise state.error(f"ConstantOfShape shape {shapes.format_shape(dims)} has a negative extent")
    dims = state.fit_to_declared(dims, op.results[0].type)
    value: DenseIntOrFPElementsAttr = op.value  # type: ignore[attr-defined]
    element_type = value.get_element_type()
    (fill,) = value.get_values()
    assert isinstance(fill, int | float)  # ConstantOfShape fills with a real number
    if isinstance(fill, int) and element_type == i1:
        fill = fill & 1  # a true i1 element reads back as -1
    count = _host_fill(dims, element_type)
    if count is not None:
        return [Lowered(dims, element_type, host=[int(fill)] * count)]
    scalar = state.insert(arith.ConstantOp(_scalar_attr(fill, element_type)))
    return state.compute(hip.FillOp, [], [(dims, element_type)], scalars=[scalar.results[0]])


_FLOAT_DTYPES: dict[Attribute, type] = {f16: np.float16, f32: np.float32, f64: np.float64, BFloat16Type(): bfloat16}


def _float_range(op: Operation, state: ConversionState, element_type: Attribute) -> tuple[list[Dim], list[SSAValue]]:
    """Length and (start, delta) scalars of a Range over float bounds."""
    dtype = _FLOAT_DTYPES.get(element_type)
    if dtype is None:
        raise state.error(f"Range of {element_type} elements is not supported")
    bounds = [constant_scalar(v) for v in op.operands]
    if any(b is None for b in bounds):
        return _runtime_float_range(op, state, element_type)
    start, limit, delta = (dtype(b) for b in bounds)
    if delta == 0:
        raise state.error("Range delta must not be 0")
    # onnxruntime subtracts in the element type, then divides in double.
    length = max(math.ceil(float(limit - start) / float(delta)), 0)
    scalars: list[SSAValue] = [
        state.insert(arith.ConstantOp(_scalar_attr(b, element_type))).results[0] for b in (start, delta)
    ]
    return [length], scalars


def _runtime_float_range(op: Operation, state: ConversionState, element_type: Attribute) -> tuple[list[Dim], list[SSAValue]]:
    """`max(ceil((limit - start) / delta), 0)` on the host, as onnxruntime computes it."""
    start, limit, delta = (
        state.insert(tensor.ExtractOp(state.tensor(v), [], element_type)).results[0] for v in op.operands
    )
    difference = state.insert(arith.SubfOp(limit, start)).results[0]
    numerator, denominator = (
        d if element_type == f64 else state.insert(arith.ExtFOp(d, f64)).results[0] for d in (difference, delta)
    )
    quotient = state.insert(arith.DivfOp(numerator, denominator)).results[0]
    rounded = state.insert(math_dialect.CeilOp(quotient)).results[0]
    count = state.insert(arith.FPToSIOp(rounded, i64)).results[0]
    length = state.emitter.max(state.to_index(count), 0)
    scalars: list[SSAValue] = [start, delta]
    return [length], scalars


def _int_scalar(state: ConversionState, onnx_value: SSAValue, element: Dim, element_type: Attribute) -> SSAValue:
    """A host scalar of `element_type` holding an integer element read by `state.elements`."""
    if isinstance(element, int):
        return state.insert(arith.ConstantOp(_scalar_attr(element, element_type))).results[0]
    return state.insert(arith.IndexCastOp(element, element_type)).results[0]


@converts("Range")
def convert_range(op: Operation, state: ConversionState) -> list[Lowered]:
    element_type = state.element_type(op.operands[0])
    if not isinstance(element_type, IntegerType):
        dims, scalars = _float_range(op, state, element_type)
        dims = state.fit_to_declared(dims, op.results[0].type)
        return state.compute(hip.RangeOp, [], [(dims, element_type)], scalars=scalars)
    start, limit, delta = (state.elements(v)[0] for v in op.operands)
    dims = state.fit_to_declared(state.check(shapes.range_(state.emitter, start, limit, delta)), op.results[0].type)
    count = _host_fill(dims, element_type)
    if count is not None and all(isinstance(b, int) for b in (start, delta)):
        return [Lowered(dims, element_type, host=[start + i * delta for i in range(count)])]  # type: ignore[operator]
    scalars = [_int_scalar(state, v, b, element_type) for v, b in ((op.operands[0], start), (op.operands[2], delta))]
    return state.compute(hip.RangeOp, [], [(dims, element_type)], scalars=scalars)


@converts("NonZero")
def convert_nonzero(op: Operation, state: ConversionState) -> list[Lowered]:
    """Capacity-sized indices plus a count, trimmed by the count the host reads.

    `tensor.extract` says which value the host needs; a later pass decides how
    it becomes visible (seed RFC, Problem 3).
    """
    x = op.operands[0]
    dims = state.dims(x)
    source = state.tensor(x)
    if not dims:
        # ONNX's reference (and onnxruntime) read a scalar as a 1-element vector:
        # one index row, [1, count] (the importer types it so).
        dims = [1]
        source = reshape_through_ones(state, source, 1)
    capacity = state.check(shapes.nonzero_capacity(state.emitter, dims))
    indices, count = state.compute(hip.NonZeroOp, [source], [(capacity, i64), ([], i64)])
    assert count.value is not None and indices.value is not None
    read = state.insert(tensor.ExtractOp(count.value, [], i64)).results[0]
    valid = state.fit_to_declared([len(dims), state.to_index(read)], op.results[0].type)
    trimmed = tensor.ExtractSliceOp(indices.value, [0, 0], valid, [1, 1], tensor_type(valid, i64))
    return [Lowered(valid, i64, state.insert(trimmed).results[0])]
