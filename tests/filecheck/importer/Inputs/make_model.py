"""Write one small ONNX test model for the importer's lit tests.

    python make_model.py NAME OUTPUT.onnx

NAME picks the model (see MODELS). Weights come from a fixed seed, so the IR the
tests check is stable.
"""

from __future__ import annotations

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

RNG = np.random.default_rng(0)


def model(nodes, inputs, outputs, initializers=(), opset=18, domains=()) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "test", inputs, outputs, list(initializers))
    opsets = [helper.make_opsetid("", opset), *(helper.make_opsetid(d, 1) for d in domains)]
    return helper.make_model(graph, opset_imports=opsets)


def value(name, shape, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, shape)


def weight(name, *shape):
    return numpy_helper.from_array(RNG.uniform(0.5, 1.5, shape).astype(np.float32), name)


def mlp():
    nodes = [
        helper.make_node("Gemm", ["x", "w1", "b1"], ["h"], name="fc1", transB=1),
        helper.make_node("Relu", ["h"], ["a"], name="relu"),
        helper.make_node("MatMul", ["a", "w2"], ["y"], name="fc2"),
    ]
    inits = [weight("w1", 8, 4), weight("b1", 8), weight("w2", 8, 2)]
    return model(nodes, [value("x", ["batch", 4])], [value("y", ["batch", 2])], inits)


def reduce_opset13():
    nodes = [
        helper.make_node("ReduceMean", ["x"], ["m"], name="mean", axes=[-1]),
        helper.make_node("Sub", ["x", "m"], ["y"], name="center"),
    ]
    return model(nodes, [value("x", ["n", 16])], [value("y", ["n", 16])], opset=13)


def depth_to_space():
    nodes = [helper.make_node("DepthToSpace", ["x"], ["y"], name="d2s", blocksize=2)]
    return model(nodes, [value("x", [1, 4, 4, 4])], [value("y", None)])


def custom_domain():
    nodes = [helper.make_node("FusedMatMul", ["x", "x"], ["y"], name="fused", domain="com.microsoft")]
    return model(nodes, [value("x", [2, 2])], [value("y", None)], domains=["com.microsoft"])


def opset12():
    return model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [value("x", [2])], [value("y", [2])], opset=12)


def concat_empty_input():
    nodes = [helper.make_node("Concat", ["x", ""], ["y"], name="n3", axis=0)]
    return model(nodes, [value("x", [2])], [value("y", None)])


def two_writers():
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="a"), helper.make_node("Neg", ["x"], ["y"], name="b")]
    return model(nodes, [value("x", [2])], [value("y", [2])])


def negative_dim():
    return model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [value("x", [-3])], [value("y", None)])


MODELS = {
    "mlp": mlp,
    "reduce-opset13": reduce_opset13,
    "depth-to-space": depth_to_space,
    "custom-domain": custom_domain,
    "opset12": opset12,
    "concat-empty-input": concat_empty_input,
    "two-writers": two_writers,
    "negative-dim": negative_dim,
}


def main() -> None:
    name, output = sys.argv[1], sys.argv[2]
    onnx.save(MODELS[name](), output)


if __name__ == "__main__":
    main()
