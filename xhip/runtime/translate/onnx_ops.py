"""onnx ops (the imported stage): each node runs on ONNX's own reference evaluator.

Running the imported IR shows whether import kept the model's meaning; the
later stages run our kernels. Each op becomes a one-node ONNX model, built
once at plan time, so a run only feeds arrays through it.
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import helper, numpy_helper
from onnx.reference import ReferenceEvaluator
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    NoneType,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute, Operation, TypeAttribute

from xhip.diagnostics import op_error
from xhip.dialects.onnx import ONNX_OPS, IntsAttr
from xhip.runtime.buffers import numpy_dtype
from xhip.runtime.translate.base import PlanBuilder, Registers, Step, translates

EVALUATOR_OPSET = 21
"""Every op form the importer produces means the same at this opset (Gelu needs 20)."""


def _tensor_proto_type(element_type: Attribute) -> int:
    return helper.np_dtype_to_tensor_dtype(numpy_dtype(element_type))


def dense_array(attr: DenseIntOrFPElementsAttr) -> np.ndarray:
    """The elements of a dense attribute as a read-only NumPy array of its shape."""
    dtype = numpy_dtype(attr.get_element_type())
    return np.frombuffer(attr.data.data, dtype=dtype).reshape(attr.get_shape())


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
        element = value_type.element_type if isinstance(value_type, TensorType) else None  # type: ignore[attr-defined]
        return helper.make_tensor_value_info(name, _tensor_proto_type(element) if element else 0, None)

    graph = helper.make_graph(
        [node],
        "node",
        [info(n, v.type) for n, v in zip(inputs, op.operands) if n],
        [info(n, r.type) for n, r in zip(outputs, op.results)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", EVALUATOR_OPSET)])


def _translate_onnx(op: Operation, plan: PlanBuilder) -> Step:
    try:
        evaluator = ReferenceEvaluator(node_model(op))
    except Exception as err:  # onnx raises many kinds for a node it cannot build
        raise op_error(op, f"cannot run '{op.name}' on the ONNX reference evaluator: {err}") from None
    feeds = [(f"in{i}", plan.slot(v)) for i, v in enumerate(op.operands) if not isinstance(v.type, NoneType)]
    results = plan.slots(op.results)
    dtypes = [numpy_dtype(r.type.element_type) if isinstance(r.type, TensorType) else None for r in op.results]

    def step(regs: Registers) -> None:
        values = evaluator.run(None, {name: np.asarray(regs[slot]) for name, slot in feeds})
        for slot, value, dtype in zip(results, values, dtypes):
            regs[slot] = np.asarray(value, dtype=dtype) if dtype is not None else value

    return step


@translates("onnx.Constant")
def translate_constant(op: Operation, plan: PlanBuilder) -> Step:
    value = op.attributes["value"]
    if not isinstance(value, DenseIntOrFPElementsAttr):
        raise op_error(op, "onnx.Constant without a dense value cannot run")
    array, out = dense_array(value).copy(), plan.slot(op.results[0])

    def step(regs: Registers) -> None:
        regs[out] = array

    return step


@translates("onnx.NoValue")
def translate_no_value(op: Operation, plan: PlanBuilder) -> None:
    return None


for _op_type in ONNX_OPS:
    if _op_type != "Constant":
        translates(f"onnx.{_op_type}")(_translate_onnx)
