"""The test set: small ONNX models that exercise each hard case, with inputs.

Every entry builds `(model, feeds)` from a random generator (inputs are never
all zeros). Tests and benchmarks draw from one set, so "every model of the test
set under every pipeline" means the same models everywhere.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

Feeds = dict[str, np.ndarray]
ModelCase = tuple[onnx.ModelProto, Feeds]


IR_VERSION = 10
"""The ONNX IR version of the test models: what onnx 1.16+ and onnxruntime 1.18+ all read
(onnx 1.23 would stamp 14, which onnxruntime 1.30 refuses)."""


TRANSFORMER_EXPORTS: dict[str, int] = {"bert_tiny_64": 512, "roberta_tiny": 512, "llama_tiny": 256}
"""Tiny torch.onnx exports in examples/ (`benchmarks/export_models.py --small`), by name,
with the vocabulary their token ids must stay within: tests/test_transformer_exports.py
runs them; their kernels are part of the test set's (xhip.testing.kernel_specs)."""


def graph_model(nodes, inputs, outputs, initializers=(), opset: int = 18) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=IR_VERSION)


def value(name: str, element: int, dims) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, element, dims)


def _floats(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def attention(rng: np.random.Generator, batch: int = 2, seq: int = 128) -> ModelCase:
    """The seed 003 model: X[batch, seq, 64], three projections, softmax attention."""
    return onnx.load(EXAMPLES / "attention.onnx"), {"X": _floats(rng, batch, seq, 64)}


def attention_batch_zero(rng: np.random.Generator) -> ModelCase:
    return attention(rng, 0, 16)


def max_4x1_4x8(rng: np.random.Generator) -> ModelCase:
    """The seed RFC's Problem 1: Max of [4, 1] and [4, 8] is [4, 8]."""
    model = graph_model(
        [helper.make_node("Max", ["a", "b"], ["y"])],
        [value("a", TensorProto.FLOAT, ["m", "n"]), value("b", TensorProto.FLOAT, ["p", "q"])],
        [value("y", TensorProto.FLOAT, None)],
    )
    return model, {"a": _floats(rng, 4, 1), "b": _floats(rng, 4, 8)}


def gemm(rng: np.random.Generator, trans_a: int = 1, trans_b: int = 1) -> ModelCase:
    """Gemm with transposed operands, scaling and a broadcast C."""
    a_shape = ["k", "m"] if trans_a else ["m", "k"]
    b_shape = ["n", "k"] if trans_b else ["k", "n"]
    model = graph_model(
        [helper.make_node("Gemm", ["a", "b", "c"], ["y"], transA=trans_a, transB=trans_b, alpha=0.5, beta=2.0)],
        [value("a", TensorProto.FLOAT, a_shape), value("b", TensorProto.FLOAT, b_shape), value("c", TensorProto.FLOAT, ["n"])],
        [value("y", TensorProto.FLOAT, None)],
    )
    dims = {"m": 3, "k": 5, "n": 7}
    return model, {
        "a": _floats(rng, *[dims[d] for d in a_shape]),
        "b": _floats(rng, *[dims[d] for d in b_shape]),
        "c": _floats(rng, dims["n"]),
    }


def nonzero(rng: np.random.Generator) -> ModelCase:
    """An output whose length depends on the data."""
    model = graph_model(
        [helper.make_node("Greater", ["x", "zero"], ["mask"]), helper.make_node("NonZero", ["mask"], ["y"])],
        [value("x", TensorProto.FLOAT, ["r", "c"])],
        [value("y", TensorProto.INT64, None)],
        [helper.make_tensor("zero", TensorProto.FLOAT, [], [0.0])],
    )
    return model, {"x": _floats(rng, 5, 6)}


def slice_from_shape(rng: np.random.Generator) -> ModelCase:
    """y = x[: shape(t)[0] - 1, 1:]: bounds are host arithmetic on another input's dims."""
    nodes = [
        helper.make_node("Shape", ["t"], ["t_shape"]),
        helper.make_node("Gather", ["t_shape", "zero"], ["rows"], axis=0),
        helper.make_node("Sub", ["rows", "one"], ["end0"]),
        helper.make_node("Concat", ["end0", "big"], ["ends"], axis=0),
        helper.make_node("Slice", ["x", "starts", "ends", "axes"], ["y"]),
    ]
    initializers = [
        helper.make_tensor("zero", TensorProto.INT64, [1], [0]),
        helper.make_tensor("one", TensorProto.INT64, [1], [1]),
        helper.make_tensor("big", TensorProto.INT64, [1], [2**62]),
        helper.make_tensor("starts", TensorProto.INT64, [2], [0, 1]),
        helper.make_tensor("axes", TensorProto.INT64, [2], [0, 1]),
    ]
    model = graph_model(
        nodes,
        [value("x", TensorProto.FLOAT, ["a", "b"]), value("t", TensorProto.FLOAT, ["c"])],
        [value("y", TensorProto.FLOAT, None)],
        initializers,
    )
    return model, {"x": _floats(rng, 9, 5), "t": _floats(rng, 6)}


def reshape_flatten(rng: np.random.Generator) -> ModelCase:
    """Reshape with 0 and -1, then Flatten: outputs that are views of other buffers."""
    model = graph_model(
        [
            helper.make_node("Reshape", ["x", "shape"], ["r"]),
            helper.make_node("Flatten", ["r"], ["y"], axis=2),
            helper.make_node("Relu", ["x"], ["rx"]),
            helper.make_node("Flatten", ["rx"], ["z"], axis=1),
        ],
        [value("x", TensorProto.FLOAT, ["a", "b", 6])],
        [value("y", TensorProto.FLOAT, None), value("z", TensorProto.FLOAT, None)],
        [helper.make_tensor("shape", TensorProto.INT64, [3], [0, -1, 3])],
    )
    return model, {"x": _floats(rng, 2, 4, 6)}


def concat_split(rng: np.random.Generator) -> ModelCase:
    model = graph_model(
        [
            helper.make_node("Concat", ["x", "z"], ["c"], axis=1),
            helper.make_node("Split", ["c", "split"], ["y0", "y1"], axis=1),
        ],
        [value("x", TensorProto.FLOAT, ["a", 3]), value("z", TensorProto.FLOAT, ["a", 5])],
        [value("y0", TensorProto.FLOAT, None), value("y1", TensorProto.FLOAT, None)],
        [helper.make_tensor("split", TensorProto.INT64, [2], [2, 6])],
    )
    return model, {"x": _floats(rng, 4, 3), "z": _floats(rng, 4, 5)}


def gpt2(rng: np.random.Generator) -> ModelCase:
    """A real GPT-2 (2 layers) exported by torch.onnx dynamo (examples/export_gpt2.py)."""
    ids = rng.integers(0, 256, (2, 12)).astype(np.int64)
    return onnx.load(EXAMPLES / "gpt2_2layer.onnx"), {"input_ids": ids}


MODELS: dict[str, Callable[[np.random.Generator], ModelCase]] = {
    "attention": attention,
    "attention_batch_zero": attention_batch_zero,
    "max_4x1_4x8": max_4x1_4x8,
    "gemm_trans_a_b": gemm,
    "nonzero": nonzero,
    "slice_from_shape": slice_from_shape,
    "reshape_flatten": reshape_flatten,
    "concat_split": concat_split,
    "gpt2": gpt2,
}


SHAPE_VARIANTS: dict[str, tuple[dict[str, tuple[int, ...]], ...]] = {
    "attention": ({"X": (1, 128, 64)}, {"X": (4, 512, 64)}, {"X": (3, 77, 64)}),
    "attention_batch_zero": ({"X": (0, 16, 64)}, {"X": (0, 1, 64)}, {"X": (0, 128, 64)}),
    "max_4x1_4x8": ({"a": (4, 1), "b": (4, 8)}, {"a": (1, 7), "b": (5, 7)}, {"a": (3, 1), "b": (1, 6)}),
    "gemm_trans_a_b": (
        {"a": (5, 3), "b": (7, 5), "c": (7,)},
        {"a": (64, 33), "b": (17, 64), "c": (17,)},
        {"a": (1, 1), "b": (1, 1), "c": (1,)},
    ),
    "nonzero": ({"x": (5, 6)}, {"x": (1, 1)}, {"x": (64, 129)}),
    "slice_from_shape": ({"x": (9, 5), "t": (6,)}, {"x": (4, 2), "t": (1,)}, {"x": (100, 33), "t": (50,)}),
    "reshape_flatten": ({"x": (2, 4, 6)}, {"x": (1, 1, 6)}, {"x": (7, 3, 6)}),
    "concat_split": ({"x": (4, 3), "z": (4, 5)}, {"x": (1, 3), "z": (1, 5)}, {"x": (33, 3), "z": (33, 5)}),
    "gpt2": ({"input_ids": (2, 12)}, {"input_ids": (1, 1)}, {"input_ids": (4, 64)}),
}
"""Three input shapes for each model of the test set (1 and 0 extents among them)."""


def feeds_at(name: str, shapes: dict[str, tuple[int, ...]], rng: np.random.Generator) -> tuple[onnx.ModelProto, Feeds]:
    """Model `name` with random inputs of these shapes: floats from a normal draw, token ids below 256."""
    model, defaults = MODELS[name](rng)
    feeds = {}
    for input_name, default in defaults.items():
        shape = shapes[input_name]
        if np.issubdtype(default.dtype, np.integer):
            feeds[input_name] = rng.integers(0, 256, shape).astype(default.dtype)
        else:
            feeds[input_name] = rng.standard_normal(shape).astype(default.dtype)
    return model, feeds
