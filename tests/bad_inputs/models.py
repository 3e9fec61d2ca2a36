"""ONNX models (as bytes) and other inputs the corpus cases are made of."""

from __future__ import annotations

import io
from collections.abc import Sequence

import numpy as np
import onnx
from onnx import TensorProto, helper

from xhip.testing.models import graph_model, value

F = TensorProto.FLOAT
I64 = TensorProto.INT64


def serialized(model: onnx.ModelProto) -> bytes:
    return model.SerializeToString()


def model_bytes(nodes, inputs, outputs, initializers=(), opset: int = 18) -> bytes:
    return serialized(graph_model(nodes, inputs, outputs, initializers, opset))


def relu(dims: Sequence = ("n",), opset: int = 18) -> bytes:
    """y = Relu(x), x[n] float: the smallest valid model."""
    return model_bytes([helper.make_node("Relu", ["x"], ["y"], name="r")], [value("x", F, list(dims))], [value("y", F, None)], opset=opset)


def add_two(a_dims: Sequence, b_dims: Sequence) -> bytes:
    return model_bytes(
        [helper.make_node("Add", ["a", "b"], ["y"], name="add")],
        [value("a", F, list(a_dims)), value("b", F, list(b_dims))],
        [value("y", F, None)],
    )


def reshape_to_fives() -> bytes:
    """y = Reshape(x[n], [-1, 5]): valid only when n is a multiple of 5 (issue 8 item 2)."""
    return model_bytes(
        [helper.make_node("Reshape", ["x", "s"], ["y"], name="rs")], [value("x", F, ["n"])], [value("y", F, None)],
        [helper.make_tensor("s", I64, [2], [-1, 5])],
    )


def single_node(op_type: str, inputs: Sequence[str], domain: str = "", opset: int = 18, **attrs) -> bytes:
    """One node over float inputs x0, x1, ... of dims [n]; output y."""
    node = helper.make_node(op_type, list(inputs), ["y"], name="n0", domain=domain, **attrs)
    declared = [value(name, F, ["n"]) for name in dict.fromkeys(i for i in inputs if i)]
    graph = helper.make_graph([node], "g", declared, [value("y", F, None)])
    opsets = [helper.make_opsetid("", opset)] + ([helper.make_opsetid(domain, 1)] if domain else [])
    return serialized(helper.make_model(graph, opset_imports=opsets))


def with_opsets(opsets: Sequence[tuple[str, int]], ir_version: int | None = None) -> bytes:
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="r")], "g", [value("x", F, ["n"])], [value("y", F, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets])
    if ir_version is not None:
        model.ir_version = ir_version
    return serialized(model)


def with_big_constant(elements: int = 300) -> bytes:
    """y = x + w with a constant w of `elements` floats (the default pipeline externalizes it)."""
    weight = helper.make_tensor("w", F, [elements], np.arange(elements, dtype=np.float32))
    return model_bytes(
        [helper.make_node("Add", ["x", "w"], ["y"], name="add")], [value("x", F, ["n", elements])], [value("y", F, None)], [weight]
    )


def external_weight(location: str, offset: int = 0, length: int = 16) -> bytes:
    """y = x + w where w[4] float lives in the external file `location`."""
    weight = TensorProto(name="w", data_type=F, dims=[4], data_location=TensorProto.EXTERNAL)
    for key, entry in (("location", location), ("offset", str(offset)), ("length", str(length))):
        weight.external_data.add(key=key, value=entry)
    return model_bytes([helper.make_node("Add", ["x", "w"], ["y"], name="add")], [value("x", F, [4])], [value("y", F, None)], [weight])


def weight_bytes() -> bytes:
    return np.arange(4, dtype=np.float32).tobytes()


def npz(**arrays: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def floats(*shape: int) -> np.ndarray:
    return np.linspace(-1.0, 1.0, int(np.prod(shape)), dtype=np.float32).reshape(shape)


RELU_MLIR = """\
func.func @main_graph(%arg0: tensor<?xf32> {onnx.name = "x", onnx.dim_params = "0:n"}) -> (tensor<?xf32> {onnx.name = "y"}) {
  %0 = "onnx.Relu"(%arg0) : (tensor<?xf32>) -> tensor<?xf32>
  func.return %0 : tensor<?xf32>
}
"""


def relu_mlir_with(body_line: str) -> str:
    """RELU_MLIR with one more line inside the function, before the return."""
    head, ret = RELU_MLIR.rsplit("  func.return", 1)
    return f"{head}  {body_line}\n  func.return{ret}"
