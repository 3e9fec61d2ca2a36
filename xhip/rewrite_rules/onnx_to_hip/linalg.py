"""Linear algebra, normalization and reductions: MatMul, Gemm, Softmax,
LayerNormalization, ReduceMean/ReduceSum/ReduceMax.

Each destination is sized by the `xhip.shapes` rule that the hip op's
`reify_result_shapes` also calls (matmul, gemm, same_shape_on_axis, reduce), so
MatMul's batch dims are broadcast and rank-1 operands promoted, and Gemm's M
and N follow transA/transB, in the converter and the reifier alike. The hip
ops take the ONNX operands unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, i64
from xdsl.ir import Attribute, Operation, SSAValue

from xhip import shapes
from xhip.dialects import hip
from xhip.dialects.onnx import is_none
from xhip.rewrite_rules.onnx_to_hip.registry import converts
from xhip.rewrite_rules.onnx_to_hip.state import ConversionState, Lowered
from xhip.shapes import Dim

REDUCTIONS: dict[str, type[hip.DPSOp]] = {
    "onnx.ReduceMean": hip.ReduceMeanOp,
    "onnx.ReduceSum": hip.ReduceSumOp,
    "onnx.ReduceMax": hip.ReduceMaxOp,
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
    dims = state.check(shapes.matmul(state.emitter, state.dims(a), state.dims(b)))
    return _compute_one(op, state, hip.MatmulOp, [a, b], dims)


@converts("Gemm")
def convert_gemm(op: Operation, state: ConversionState) -> list[Lowered]:
    a, b, c = op.operands
    trans_a, trans_b = _flag(op.trans_a), _flag(op.trans_b)  # type: ignore[attr-defined]
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
    y, *stats = op.results
    for name, result in zip(("Mean", "InvStdDev"), stats):
        if result.uses:
            raise state.error(
                f"LayerNormalization output {name} is used; only the normalized output Y is supported"
            )
    axis = _int(op.axis)  # type: ignore[attr-defined]
    x_dims = state.dims(x)
    dims = state.check(shapes.same_shape_on_axis(state.emitter, x_dims, axis, "LayerNormalization"))
    inputs = [x, scale] if is_none(bias) else [x, scale, bias]
    properties = {"axis": IntegerAttr(axis, i64), "epsilon": op.epsilon}  # type: ignore[attr-defined]
    (normalized,) = _compute_one(op, state, hip.LayerNormOp, inputs, dims, properties)
    # Unused statistics outputs get no tensor; their shape is still the rule's.
    stats_dims = state.check(shapes.layer_norm_stats(state.emitter, x_dims, axis))
    unused = [Lowered(stats_dims, state.element_type(x)) for _ in stats]
    return [normalized, *unused]


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
    return _compute_one(op, state, REDUCTIONS[op.name], [data], dims, properties)
