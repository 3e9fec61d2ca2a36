"""A float64 run of a float model: the yardstick that says how far fp32 (or fp16, bf16) can be
from the exact result.

`to_float64(model)` rewrites every float32, float16 and bfloat16 in the model to float64
(the half-precision types too: a half model's yardstick is the exact result, not its own
type run by another engine): initializers
(dense and sparse), graph inputs, outputs and value_info, tensor attributes
(Constant, ConstantOfShape's value), `Constant`'s value_float(s), Cast targets
and the `dtype` of the ops that create floats (EyeLike, Random*, Bernoulli),
inside subgraphs and model-local functions too. Integer and boolean tensors and
ops on them stay as they are, so shape code computes the same extents, and a
float32 value cast to an integer is rounded to float32 before the Cast, so
integer results (T5's position buckets) are the fp32 model's (a half value is rounded
to its own type likewise).
LayerNormalization's `stash_type` stays float: both engines compute a double
LayerNormalization's statistics in double anyway, and onnx.reference refuses
any other stash type.

`float64_outputs(model, feeds)` runs the rewritten model with onnxruntime (CPU,
graph optimizations off, so no fused kernel computes in float32 behind the
model's back) on the same feeds widened exactly to float64; where onnxruntime
has no double kernel for an op it falls back to `onnx.reference`'s evaluator.
Nothing is cached on disk.
"""

from __future__ import annotations

import copy
import math
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import numpy as np
import onnx
from onnx import AttributeProto, TensorProto, numpy_helper

from xhip.runtime.check.onnxruntime_reference import onnxruntime_reason, onnxruntime_session, run_session

FLOAT, DOUBLE = TensorProto.FLOAT, TensorProto.DOUBLE
WIDENED = (TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.BFLOAT16)
"""The element types the float64 run widens."""
DTYPE_ATTRIBUTES = {"Cast": "to", "EyeLike": "dtype", "Bernoulli": "dtype", "RandomNormal": "dtype",
                    "RandomUniform": "dtype", "RandomNormalLike": "dtype", "RandomUniformLike": "dtype"}  # fmt: skip
"""Ops whose integer attribute names the float type they create."""


@dataclass(frozen=True)
class Float64Outputs:
    """The float64 run's outputs and what computed them (`engine`), or why there is none (`reason`)."""

    outputs: dict[str, np.ndarray] | None
    engine: str | None
    reason: str | None = None


INTEGER_TYPES = {TensorProto.INT8, TensorProto.INT16, TensorProto.INT32, TensorProto.INT64,
                 TensorProto.UINT8, TensorProto.UINT16, TensorProto.UINT32, TensorProto.UINT64}  # fmt: skip


def _float_values(model: onnx.ModelProto) -> dict[str, int]:
    """The graph's float32 / float16 / bfloat16 values and their element types, by ONNX shape
    inference (empty if it fails)."""
    try:
        inferred = onnx.shape_inference.infer_shapes(model)
    except Exception:  # noqa: BLE001 -- a model shape inference cannot take keeps every Cast as it is
        return {}
    graph = inferred.graph
    infos = (*graph.input, *graph.output, *graph.value_info)
    found = {i.name: i.type.tensor_type.elem_type for i in infos if i.type.tensor_type.elem_type in WIDENED}
    return found | {t.name: t.data_type for t in graph.initializer if t.data_type in WIDENED}


def _round_before_integer_casts(graph: onnx.GraphProto, float_values: dict[str, int]) -> None:
    """A float32 value cast to an integer is rounded to float32 first, in the widened model too:
    the integers an fp32 model computes are part of its definition, not of its rounding error
    (T5's relative-position buckets: log ratios that are exactly 2.0 in fp32 are 1.9999999 in
    float64 and truncate to another bucket)."""
    nodes = []
    for node in graph.node:
        to = next((a.i for a in node.attribute if a.name == "to"), None)
        if node.op_type == "Cast" and to in INTEGER_TYPES and node.input[0] in float_values:
            rounded = f"{node.input[0]}__as_float32_for_{node.output[0]}"
            nodes.append(onnx.helper.make_node("Cast", [node.input[0]], [rounded], to=float_values[node.input[0]]))
            node.input[0] = rounded
        nodes.append(node)
    del graph.node[:]
    graph.node.extend(nodes)


def to_float64(model: onnx.ModelProto, in_place: bool = False) -> onnx.ModelProto:
    """`model` (a copy unless `in_place`) with every float32 tensor, type and float-creating attribute
    widened to float64; a float32 value cast to an integer is still rounded to float32 first."""
    float_values = _float_values(model)
    wide = model if in_place else copy.deepcopy(model)
    _widen_graph(wide.graph)
    _round_before_integer_casts(wide.graph, float_values)
    for function in wide.functions:
        for node in function.node:
            _widen_node(node)
        for info in function.value_info:
            _widen_type(info.type)
    return wide


def _widen_graph(graph: onnx.GraphProto) -> None:
    for tensor in graph.initializer:
        _widen_tensor(tensor)
    for sparse in graph.sparse_initializer:
        _widen_tensor(sparse.values)
    for info in (*graph.input, *graph.output, *graph.value_info):
        _widen_type(info.type)
    for node in graph.node:
        _widen_node(node)


def _widen_tensor(tensor: TensorProto) -> None:
    """In place, as little-endian raw bytes (no second message: GPT-2 124M's weights are 1 GB widened)."""
    if tensor.data_type not in WIDENED:
        return
    wide = numpy_helper.to_array(tensor).astype("<f8")
    tensor.ClearField("float_data")
    tensor.data_type = DOUBLE
    tensor.raw_data = wide.tobytes()


def _widen_type(type_proto: onnx.TypeProto) -> None:
    """Tensor types, and the tensor types inside sequence, optional and map types."""
    kind = type_proto.WhichOneof("value")
    if kind in ("tensor_type", "sparse_tensor_type"):
        element = getattr(type_proto, kind)
        if element.elem_type in WIDENED:
            element.elem_type = DOUBLE
    elif kind in ("sequence_type", "optional_type"):
        _widen_type(getattr(type_proto, kind).elem_type)
    elif kind == "map_type":
        _widen_type(type_proto.map_type.value_type)


def _widen_node(node: onnx.NodeProto) -> None:
    if node.domain in ("", "ai.onnx"):
        _widen_float_defaults(node)
    dtype_name = DTYPE_ATTRIBUTES.get(node.op_type)
    for attribute in node.attribute:
        if attribute.name == dtype_name and attribute.i in WIDENED:
            attribute.i = DOUBLE
        for tensor in _attribute_tensors(attribute):
            _widen_tensor(tensor)
        for subgraph in _attribute_graphs(attribute):
            _widen_graph(subgraph)


def _widen_float_defaults(node: onnx.NodeProto) -> None:
    """Attributes that make float32 without saying so: ConstantOfShape without `value` (float32 zeros),
    Constant's `value_float(s)`."""
    if node.op_type == "ConstantOfShape" and not any(a.name == "value" for a in node.attribute):
        node.attribute.append(onnx.helper.make_attribute("value", numpy_helper.from_array(np.zeros(1))))
    elif node.op_type == "Constant":
        _constant_floats_as_tensor(node)


def _constant_floats_as_tensor(node: onnx.NodeProto) -> None:
    """`value_float(s)` always makes a float32 Constant: say the same values as a float64 tensor."""
    for attribute in node.attribute:
        if attribute.name in ("value_float", "value_floats"):
            scalar = attribute.name == "value_float"
            values = np.array(attribute.f if scalar else list(attribute.floats), np.float32).astype(np.float64)
            tensor = onnx.helper.make_attribute("value", numpy_helper.from_array(values))
            attribute.CopyFrom(tensor)
            return


def _attribute_tensors(attribute: AttributeProto) -> Iterator[TensorProto]:
    if attribute.type == AttributeProto.TENSOR:
        yield attribute.t
    elif attribute.type == AttributeProto.TENSORS:
        yield from attribute.tensors
    elif attribute.type == AttributeProto.SPARSE_TENSOR:
        yield attribute.sparse_tensor.values
    elif attribute.type == AttributeProto.SPARSE_TENSORS:
        yield from (sparse.values for sparse in attribute.sparse_tensors)


def _attribute_graphs(attribute: AttributeProto) -> Iterator[onnx.GraphProto]:
    if attribute.type == AttributeProto.GRAPH:
        yield attribute.g
    elif attribute.type == AttributeProto.GRAPHS:
        yield from attribute.graphs


def widen_feeds(feeds: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Float feeds (float32, float16, bfloat16) as float64, exactly: every one of their values
    is a float64; other dtypes as they are."""
    return {name: array.astype(np.float64) if _is_narrow_float(array.dtype) else array for name, array in feeds.items()}


def _is_narrow_float(dtype: np.dtype) -> bool:
    return dtype in (np.float32, np.float16) or dtype.name == "bfloat16"


def float64_outputs(model: str | os.PathLike[str] | onnx.ModelProto, feeds: Mapping[str, np.ndarray]) -> Float64Outputs:
    """The model run in float64: by onnxruntime where it has double kernels, else by onnx.reference."""
    if isinstance(model, onnx.ModelProto):
        wide = to_float64(model).SerializeToString()
    else:  # a model loaded here is ours to widen: no second copy of its weights
        wide = to_float64(onnx.load(os.fspath(model)), in_place=True).SerializeToString()
    # Only the bytes stay alive while onnxruntime builds its own copy of the weights.
    wide_feeds = widen_feeds(feeds)
    try:
        return Float64Outputs(run_session(onnxruntime_session(wide, optimize=False), wide_feeds), "onnxruntime-cpu")
    except Exception as err:  # onnxruntime's pybind errors share no useful base class
        ort_reason = onnxruntime_reason(err)
    try:
        from onnx.reference import ReferenceEvaluator

        evaluator = ReferenceEvaluator(onnx.ModelProto.FromString(wide), new_ops=_evaluator_fixes())
        outputs: list[np.ndarray] = evaluator.run(None, wide_feeds)  # type: ignore[assignment]  # a list when no intermediate names are asked for
        return Float64Outputs(dict(zip(evaluator.output_names, outputs)), "onnx.reference")
    except Exception as err:  # the evaluator raises whatever its op implementations raise
        reason = f"onnxruntime: {ort_reason}; onnx.reference: {onnxruntime_reason(err)}"
        return Float64Outputs(None, None, reason)


def _evaluator_fixes() -> list[type]:
    """Ops of onnx.reference (onnx 1.23) replaced for the float64 run: its Erf rounds every result to
    float32 (and Erf, Gelu's in BERT, is why the fallback exists: onnxruntime has no double Erf); its
    GatherElements fails on more than 64 rows along the axis (np.choose's limit: RoBERTa's position ids)."""
    from onnx.reference.op_run import OpRun
    from onnx.reference.ops._op import OpRunUnaryNum

    class Erf(OpRunUnaryNum):
        op_domain = ""

        def _run(self, x):
            return (np.vectorize(math.erf, otypes=[x.dtype])(x),)

    class GatherElements(OpRun):
        op_domain = ""

        def _run(self, data, indices, axis=None):
            axis = axis or 0
            wrapped = np.where(indices < 0, indices + data.shape[axis], indices)
            return (np.take_along_axis(data, wrapped, axis=axis),)

    return [Erf, GatherElements]
