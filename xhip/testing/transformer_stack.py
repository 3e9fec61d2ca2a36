"""A pre-LN transformer encoder stack built with onnx.helper: the memory issue's model.

Each layer: x + Attention(LayerNorm(x)), then x + FFN(LayerNorm(x)), with
d_model 256, 4 heads of 64, FFN width 1024 and an erf GELU; X is [batch, seq, 256].
Attention splits heads with Reshape targets [0, 0, 4, 64] and [0, 0, 256] (the
0 entries copy the input's extents), scales the scores by 1/8 and takes Softmax
over the last axis. Weights are drawn with a fixed seed, small and never zero, so
a model is the same for the same layer count.
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from xhip.testing.models import graph_model, value

D_MODEL = 256
HEADS = 4
HEAD_DIM = D_MODEL // HEADS
FF = 1024
SEED = 11


class _Layers:
    """Collects nodes and initializers; names are unique per layer prefix."""

    def __init__(self, rng: np.random.Generator):
        self.rng = rng
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []

    def weight(self, name: str, *shape: int, scale: float = 0.05) -> str:
        data = (self.rng.standard_normal(shape) * scale).astype(np.float32)
        self.initializers.append(numpy_helper.from_array(data, name))
        return name

    def const(self, name: str, data: np.ndarray) -> str:
        self.initializers.append(numpy_helper.from_array(data, name))
        return name

    def node(self, op: str, inputs: list[str], output: str, **attrs) -> str:
        self.nodes.append(helper.make_node(op, inputs, [output], name=output, **attrs))
        return output

    def linear(self, x: str, prefix: str, d_in: int, d_out: int) -> str:
        y = self.node("MatMul", [x, self.weight(f"{prefix}.w", d_in, d_out)], f"{prefix}.mm")
        return self.node("Add", [y, self.weight(f"{prefix}.b", d_out)], f"{prefix}.out")

    def layer_norm(self, x: str, prefix: str) -> str:
        gamma = self.const(f"{prefix}.g", (1.0 + 0.1 * self.rng.standard_normal(D_MODEL)).astype(np.float32))
        beta = self.weight(f"{prefix}.beta", D_MODEL, scale=0.1)
        return self.node("LayerNormalization", [x, gamma, beta], f"{prefix}.out", axis=-1, epsilon=1e-5)

    def attention(self, x: str, p: str) -> str:
        heads = self.const(f"{p}.heads_shape", np.array([0, 0, HEADS, HEAD_DIM], np.int64))
        merged = self.const(f"{p}.merged_shape", np.array([0, 0, D_MODEL], np.int64))
        split = {}
        for name in ("q", "k", "v"):
            projected = self.linear(x, f"{p}.{name}", D_MODEL, D_MODEL)
            shaped = self.node("Reshape", [projected, heads], f"{p}.{name}_heads")
            perm = [0, 2, 3, 1] if name == "k" else [0, 2, 1, 3]
            split[name] = self.node("Transpose", [shaped], f"{p}.{name}_t", perm=perm)
        scores = self.node("MatMul", [split["q"], split["k"]], f"{p}.scores")
        scale = self.const(f"{p}.scale", np.array(1.0 / np.sqrt(HEAD_DIM), np.float32))
        scaled = self.node("Mul", [scores, scale], f"{p}.scaled")
        probs = self.node("Softmax", [scaled], f"{p}.probs", axis=-1)
        context = self.node("MatMul", [probs, split["v"]], f"{p}.context")
        context = self.node("Transpose", [context], f"{p}.context_t", perm=[0, 2, 1, 3])
        context = self.node("Reshape", [context, merged], f"{p}.context_merged")
        return self.linear(context, f"{p}.o", D_MODEL, D_MODEL)

    def gelu(self, x: str, p: str) -> str:
        half = self.const(f"{p}.half", np.array(0.5, np.float32))
        one = self.const(f"{p}.one", np.array(1.0, np.float32))
        rsqrt2 = self.const(f"{p}.rsqrt2", np.array(1.0 / np.sqrt(2.0), np.float32))
        erf = self.node("Erf", [self.node("Mul", [x, rsqrt2], f"{p}.scaled")], f"{p}.erf")
        shifted = self.node("Add", [erf, one], f"{p}.shifted")
        return self.node("Mul", [self.node("Mul", [x, half], f"{p}.half_x"), shifted], f"{p}.out")

    def block(self, x: str, p: str) -> str:
        attended = self.attention(self.layer_norm(x, f"{p}.ln1"), f"{p}.attn")
        x = self.node("Add", [x, attended], f"{p}.res1")
        hidden = self.gelu(self.linear(self.layer_norm(x, f"{p}.ln2"), f"{p}.ff1", D_MODEL, FF), f"{p}.gelu")
        return self.node("Add", [x, self.linear(hidden, f"{p}.ff2", FF, D_MODEL)], f"{p}.res2")


def transformer_stack_model(layers: int = 2) -> onnx.ModelProto:
    """`layers` pre-LN encoder layers on X [batch, seq, 256] -> Y [batch, seq, 256]."""
    builder = _Layers(np.random.default_rng(SEED))
    x = "X"
    for index in range(layers):
        x = builder.block(x, f"l{index}")
    builder.node("Identity", [x], "Y")
    model = graph_model(
        builder.nodes,
        [value("X", TensorProto.FLOAT, ["batch", "seq", D_MODEL])],
        [value("Y", TensorProto.FLOAT, ["batch", "seq", D_MODEL])],
        builder.initializers,
    )
    onnx.checker.check_model(model)
    return model
