"""onnx-dialect ops as ONNX protos: one op as a one-node model, a dense attribute as an
array. The imported stage runs on ONNX's reference evaluator through these (the runtime's
onnx translator), and onnx-fold-constants evaluates constant ops with them at compile time.
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import helper, numpy_helper
from xdsl.dialects.builtin import (
    AnyDenseElement,
    BytesAttr,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    NoneType,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute, Operation, SSAValue, TypeAttribute

from xhip.dialects.onnx import ConstantOp, IntsAttr
from xhip.dtypes import numpy_dtype

EVALUATOR_OPSET = 21
"""Every op form the importer produces means the same at this opset (Gelu needs 20)."""


def _tensor_proto_type(element_type: Attribute) -> int:
    return helper.np_dtype_to_tensor_dtype(numpy_dtype(element_type))


def dense_array(attr: DenseIntOrFPElementsAttr) -> np.ndarray:
    """The elements of a dense attribute as a read-only NumPy array of its shape."""
    dtype = numpy_dtype(attr.get_element_type())
    return np.frombuffer(attr.data.data, dtype=dtype).reshape(attr.get_shape())


def constant_value(value: SSAValue) -> DenseIntOrFPElementsAttr | None:
    """The dense tensor `value` always holds, if an `onnx.Constant` (an initializer) defines it."""
    owner = value.owner
    if isinstance(owner, ConstantOp) and isinstance(owner.value, DenseIntOrFPElementsAttr):
        return owner.value
    return None


def constant_op(value: DenseIntOrFPElementsAttr) -> ConstantOp:
    """An `onnx.Constant` holding `value` (not inserted anywhere)."""
    return ConstantOp.create(result_types=[value.type], attributes={"value": value})


def constant_scalar(value: SSAValue) -> float | None:
    """The element of a one-element `onnx.Constant`, if `value` is one, as a float."""
    dense = constant_value(value)
    if dense is None or len(dense) != 1:
        return None
    return float(dense_array(dense).reshape(-1)[0])


def dense_attr(values: np.ndarray, element_type: Attribute) -> DenseIntOrFPElementsAttr:
    """`values` converted to `element_type` (NumPy's conversion: floats round to nearest) as a
    dense attribute of their shape; the inverse of `dense_array`."""
    assert isinstance(element_type, AnyDenseElement), f"no dense attribute of {element_type} elements"
    shape = np.shape(values)  # ascontiguousarray makes a rank-0 array rank 1
    data = np.ascontiguousarray(values, dtype=numpy_dtype(element_type))
    return DenseIntOrFPElementsAttr(TensorType(element_type, shape), BytesAttr(data.tobytes()))


def onnx_attribute(name: str, value: Attribute) -> onnx.AttributeProto:
    """An onnx-dialect property as the ONNX attribute it was imported from."""
    if isinstance(value, IntsAttr):
        return helper.make_attribute(name, list(value.data))
    if isinstance(value, IntegerAttr):
        return helper.make_attribute(name, int(value.value.data))
    if isinstance(value, FloatAttr):
        return helper.make_attribute(name, float(value.value.data))
    if isinstance(value, StringAttr):
        return helper.make_attribute(name, value.data)
    if isinstance(value, DenseIntOrFPElementsAttr):
        return helper.make_attribute(name, numpy_helper.from_array(dense_array(value)))
    if isinstance(value, TypeAttribute):
        return helper.make_attribute(name, _tensor_proto_type(value))
    raise ValueError(f"attribute {name} = {value} has no ONNX form")


def node_model(op: Operation) -> onnx.ModelProto:
    """`op` as a one-node ONNX model with inputs in0.. and outputs out0.. (absent inputs stay '')."""
    inputs = ["" if isinstance(v.type, NoneType) else f"in{i}" for i, v in enumerate(op.operands)]
    outputs = [f"out{i}" for i in range(len(op.results))]
    attributes = [onnx_attribute(name, value) for name, value in op.properties.items()]
    node = helper.make_node(op.name.removeprefix("onnx."), inputs, outputs)
    node.attribute.extend(attributes)

    def info(name: str, value_type: Attribute) -> onnx.ValueInfoProto:
        element = value_type.element_type if isinstance(value_type, TensorType) else None
        return helper.make_tensor_value_info(name, _tensor_proto_type(element) if element else 0, None)

    graph = helper.make_graph(
        [node],
        "node",
        [info(n, v.type) for n, v in zip(inputs, op.operands) if n],
        [info(n, r.type) for n, r in zip(outputs, op.results)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", EVALUATOR_OPSET)])
