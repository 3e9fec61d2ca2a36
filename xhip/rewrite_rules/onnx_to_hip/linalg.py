"""Linear algebra, normalization, reductions and scans: MatMul, Gemm, Softmax,
LayerNormalization, ReduceMean/ReduceSum/ReduceMax, CumSum.

Each destination is sized by the `xhip.shapes` rule that the hip op's
`reify_result_shapes` also calls (matmul, gemm, same_shape_on_axis, reduce), so
MatMul's batch dims are broadcast and rank-1 operands promoted, and Gemm's M
and N follow transA/transB, in the converter and the reifier alike. The hip
ops take the ONNX operands unchanged, except a Transpose of a weight, which
MatMul (B) and Gemm (A, B) read through with a trans flag
(xhip.rewrite_rules.transposed_weights).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    AnyFloat,
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    Signedness,
    TensorType,
    i1,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue

from xhip import shapes
from xhip.dialects import hip
from xhip.dialects.onnx import is_none
from xhip.rewrite_rules.onnx_to_hip.registry import converts
from xhip.rewrite_rules.onnx_to_hip.state import ConversionState, Lowered
from xhip.rewrite_rules.onnx_to_hip.statistics import moments
from xhip.rewrite_rules.transposed_weights import transposed_constant
from xhip.shapes import Dim

UI8 = IntegerType(8, Signedness.UNSIGNED)

REDUCTIONS: dict[str, type[hip.DPSOp]] = {
    "onnx.ReduceMean": hip.ReduceMeanOp,
    "onnx.ReduceSum": hip.ReduceSumOp,
    "onnx.ReduceMax": hip.ReduceMaxOp,
    "onnx.ReduceMin": hip.ReduceMinOp,
    "onnx.ReduceProd": hip.ReduceProdOp,
    "onnx.ReduceL1": hip.ReduceL1Op,
    "onnx.ReduceL2": hip.ReduceL2Op,
    "onnx.ReduceSumSquare": hip.ReduceSumSquareOp,
    "onnx.ReduceLogSumExp": hip.ReduceLogSumExpOp,
}


def _int(attr: Attribute) -> int:
    assert isinstance(attr, IntegerAttr)
    return attr.value.data


def _flag(attr: Attribute) -> bool:
    return _int(attr) != 0


def _compute_one(
    op: Operation,
    state: ConversionState,
    hip_op: type[hip.DPSOp],
    inputs: Sequence[SSAValue],
    dims: Sequence[Dim],
    properties: dict[str, Attribute] | None = None,
) -> list[Lowered]:
    """`hip_op` on the converted `inputs`, into a destination of `dims` (refined by the model)."""
    dims = state.fit_to_declared(dims, op.results[0].type)
    element_type = state.element_type(inputs[0])
    tensors = [state.tensor(v) for v in inputs]
    return state.compute(hip_op, tensors, [(dims, element_type)], properties=properties)


@converts("MatMul")
def convert_matmul(op: Operation, state: ConversionState) -> list[Lowered]:
    a, b = op.operands
    # MatMul(x, Transpose(W)) of a weight reads W transposed: no transposed copy.
    weight = transposed_constant(b)
    if weight is None:
        dims = state.check(shapes.matmul(state.emitter, state.dims(a), state.dims(b)))
        return _compute_one(op, state, hip.MatmulOp, [a, b], dims)
    dims = state.check(shapes.matmul(state.emitter, state.dims(a), state.dims(weight), trans_b=True))
    return _compute_one(op, state, hip.MatmulOp, [a, weight], dims, {"trans_b": IntegerAttr.from_bool(True)})


def _read_through(value: SSAValue, transposed: bool) -> tuple[SSAValue, bool]:
    """A Gemm operand and its trans flag, with a Transpose of a weight read as a flipped flag."""
    weight = transposed_constant(value)
    return (value, transposed) if weight is None else (weight, not transposed)


@converts("Gemm")
def convert_gemm(op: Operation, state: ConversionState) -> list[Lowered]:
    a, b, c = op.operands
    a, trans_a = _read_through(a, _flag(op.trans_a))  # type: ignore[attr-defined]
    b, trans_b = _read_through(b, _flag(op.trans_b))  # type: ignore[attr-defined]
    inputs = [a, b] if is_none(c) else [a, b, c]
    c_dims = None if is_none(c) else state.dims(c)
    rule = shapes.gemm(state.emitter, state.dims(a), state.dims(b), c_dims, trans_a=trans_a, trans_b=trans_b)
    properties: dict[str, Attribute] = {
        "alpha": op.alpha,  # type: ignore[attr-defined]
        "beta": op.beta,  # type: ignore[attr-defined]
        "trans_a": IntegerAttr.from_bool(trans_a),
        "trans_b": IntegerAttr.from_bool(trans_b),
    }
    return _compute_one(op, state, hip.GemmOp, inputs, state.check(rule), properties)


@converts("Softmax")
def convert_softmax(op: Operation, state: ConversionState) -> list[Lowered]:
    (x,) = op.operands
    axis = _int(op.axis)  # type: ignore[attr-defined]
    dims = state.check(shapes.same_shape_on_axis(state.emitter, state.dims(x), axis, "Softmax"))
    return _compute_one(op, state, hip.SoftmaxOp, [x], dims, {"axis": IntegerAttr(axis, i64)})


@converts("LayerNormalization")
def convert_layer_norm(op: Operation, state: ConversionState) -> list[Lowered]:
    x, scale, bias = op.operands
    _, *stats = op.results
    axis = _int(op.axis)  # type: ignore[attr-defined]
    x_dims = state.dims(x)
    dims = state.check(shapes.same_shape_on_axis(state.emitter, x_dims, axis, "LayerNormalization"))
    inputs = [x, scale] if is_none(bias) else [x, scale, bias]
    properties = {"axis": IntegerAttr(axis, i64), "epsilon": op.epsilon}  # type: ignore[attr-defined]
    (normalized,) = _compute_one(op, state, hip.LayerNormOp, inputs, dims, properties)
    stats_dims = state.check(shapes.layer_norm_stats(state.emitter, x_dims, axis))
    if not any(result.uses for result in stats):
        # Unused statistics outputs get no tensor; their shape is still the rule's.
        return [normalized, *(Lowered(stats_dims, state.element_type(x)) for _ in stats)]
    # Mean and InvStdDev share the stash type; an omitted one is typed `none`.
    element_type = next(r.type.element_type for r in stats if isinstance(r.type, TensorType))
    return [normalized, *_layer_norm_stats(state, x, x_dims, axis, stats_dims, element_type, op.epsilon)]  # type: ignore[attr-defined]


def _layer_norm_stats(
    state: ConversionState,
    x: SSAValue,
    x_dims: list[Dim],
    axis: int,
    stats_dims: list[Dim],
    element_type: Attribute,
    epsilon: FloatAttr,
) -> list[Lowered]:
    """Mean and InvStdDev as ONNX's function body computes them, in the stash type.

    Only models that use the statistics (training graphs, the backend tests) pay
    for these launches: mean, x - mean, its square, their mean, + epsilon, sqrt, 1/.
    """
    assert isinstance(element_type, AnyFloat)  # ONNX's stash types are float types
    rank = len(x_dims)
    source = state.tensor(x)
    if state.element_type(x) != element_type:
        source = state.compute_value(hip.CastOp, [source], x_dims, element_type)
    stats = moments(state, source, x_dims, axis + rank if axis < 0 else axis, stats_dims, element_type, epsilon.value.data)
    mean, inv_std_dev = stats.mean, state.compute_value(hip.ReciprocalOp, [stats.std_dev], stats_dims, element_type)
    return [Lowered(list(stats_dims), element_type, value) for value in (mean, inv_std_dev)]


@converts(*(name.removeprefix("onnx.") for name in REDUCTIONS))
def convert_reduce(op: Operation, state: ConversionState) -> list[Lowered]:
    data, axes_value = op.operands
    # Axes become an attribute of the hip op: an initializer or a host-folded shape value.
    axes = [] if is_none(axes_value) else state.static_ints(axes_value, f"{op.name} axes")
    keepdims = _flag(op.keepdims)  # type: ignore[attr-defined]
    noop = _flag(op.noop_with_empty_axes)  # type: ignore[attr-defined]
    if not axes and noop:
        return [state.lowered(data)]
    data_dims = state.dims(data)
    dims = state.check(shapes.reduce(state.emitter, data_dims, axes, keepdims, noop))
    # The rule accepted the axes; hip wants each axis once (ONNX tolerates repeats).
    rank = len(data_dims)
    unique = sorted({a + rank if a < 0 else a for a in axes})
    properties: dict[str, Attribute] = {
        "axes": DenseArrayBase.from_list(i64, unique),
        "keepdims": IntegerAttr.from_bool(keepdims),
    }
    if op.name in ("onnx.ReduceMax", "onnx.ReduceMin") and state.element_type(data) == i1:
        return _reduce_bools(op, state, data, dims, properties)
    return _compute_one(op, state, REDUCTIONS[op.name], [data], dims, properties)


ARG_REDUCTIONS: dict[str, type[hip.DPSOp]] = {"onnx.ArgMax": hip.ArgMaxOp, "onnx.ArgMin": hip.ArgMinOp}


@converts("ArgMax", "ArgMin")
def convert_arg_reduce(op: Operation, state: ConversionState) -> list[Lowered]:
    (data,) = op.operands
    axis, keepdims = _int(op.axis), _flag(op.keepdims)  # type: ignore[attr-defined]
    data_dims = state.dims(data)
    dims = state.fit_to_declared(state.check(shapes.reduce(state.emitter, data_dims, [axis], keepdims)), op.results[0].type)
    properties: dict[str, Attribute] = {
        "axes": DenseArrayBase.from_list(i64, [axis + len(data_dims) if axis < 0 else axis]),
        "keepdims": IntegerAttr.from_bool(keepdims),
        "select_last_index": IntegerAttr.from_bool(_flag(op.select_last_index)),  # type: ignore[attr-defined]
    }
    return state.compute(ARG_REDUCTIONS[op.name], [state.tensor(data)], [(dims, i64)], properties=properties)


def _reduce_bools(
    op: Operation, state: ConversionState, data: SSAValue, dims: list[Dim], properties: dict[str, Attribute]
) -> list[Lowered]:
    """ReduceMax of bools (opset 20) is "any": the max of 0/1 bytes, whose empty max is 0
    (false); ReduceMin is "all": their min, whose empty min is 255 (true once cast back).

    hip reductions are numeric, so the bools travel as ui8 both ways.
    """
    dims = state.fit_to_declared(dims, op.results[0].type)
    (as_bytes,) = state.compute(hip.CastOp, [state.tensor(data)], [(state.dims(data), UI8)])
    assert as_bytes.value is not None
    (reduced,) = state.compute(REDUCTIONS[op.name], [as_bytes.value], [(dims, UI8)], properties=properties)
    assert reduced.value is not None
    return state.compute(hip.CastOp, [reduced.value], [(dims, i1)])


@converts("CumSum")
def convert_cumsum(op: Operation, state: ConversionState) -> list[Lowered]:
    x, axis_value = op.operands
    # The axis becomes a property of the hip op, so it must be known when compiling.
    axes = state.static_ints(axis_value, "CumSum axis")
    if len(axes) != 1:
        raise state.error(f"CumSum axis must hold one element, got {len(axes)}")
    (axis,) = axes
    dims = state.check(shapes.same_shape_on_axis(state.emitter, state.dims(x), axis, "CumSum"))
    properties: dict[str, Attribute] = {
        "axis": IntegerAttr(axis, i64),
        "exclusive": IntegerAttr.from_bool(_flag(op.exclusive)),  # type: ignore[attr-defined]
        "reverse": IntegerAttr.from_bool(_flag(op.reverse)),  # type: ignore[attr-defined]
    }
    return _compute_one(op, state, hip.CumSumOp, [x], dims, properties)
