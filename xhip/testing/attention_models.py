"""Multi-head attention graphs as exporters write them, for the fused attention's tests and
benchmarks: `softmax(q @ kᵀ * scale (+ mask)) @ v` over [batch, heads, seq, dim] inputs,
in float32 (the half pipelines take them to fp16 / bf16) or built in float16.

Forms (what hip-fuse-attention turns each into):
- "plain": k given as [b, h, sk, d] and transposed in the graph (a K layout perm);
- "kt-additive": k given already transposed, [b, h, d, sk], and a float mask [b, 1, sq, sk]
  added to the scores (mask_kind "additive", k_transposed);
- "keep": two attentions (the second's q is the first's output) sharing the exports'
  Where(cond, 0, lowest) mask of a bool cond [b, 1, sq, sk] (mask_kind "keep").
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from xhip.testing.models import Feeds, graph_model, value

FORMS = ("plain", "kt-additive", "keep")


def multi_head_attention(form: str, heads: int, head_dim: int, value_dim: int | None = None, dtype: type = np.float32) -> onnx.ModelProto:
    """The graph of `form` (see FORMS) with static heads and dims, dynamic batch and seqs,
    its floats in `dtype` (float32 or float16)."""
    if form not in FORMS:
        raise ValueError(f"unknown attention form {form!r}; expected one of {', '.join(FORMS)}")
    dv = head_dim if value_dim is None else value_dim
    element = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    scale = numpy_helper.from_array(np.array(head_dim**-0.5, dtype), "scale")
    k_dims = ["b", heads, head_dim, "sk"] if form == "kt-additive" else ["b", heads, "sk", head_dim]
    inputs = [
        value("q", element, ["b", heads, "sq", head_dim]),
        value("k", element, k_dims),
        value("v", element, ["b", heads, "sk", dv]),
    ]
    nodes, initializers = [], [scale]

    def attend(q: str, tag: str, mask: str | None) -> str:
        k_t = "k"
        if form != "kt-additive":
            nodes.append(helper.make_node("Transpose", ["k"], [f"kt_{tag}"], perm=[0, 1, 3, 2]))
            k_t = f"kt_{tag}"
        nodes.append(helper.make_node("MatMul", [q, k_t], [f"qk_{tag}"]))
        nodes.append(helper.make_node("Mul", [f"qk_{tag}", "scale"], [f"scores_{tag}"]))
        scores = f"scores_{tag}"
        if mask is not None:
            nodes.append(helper.make_node("Add", [scores, mask], [f"masked_{tag}"]))
            scores = f"masked_{tag}"
        nodes.append(helper.make_node("Softmax", [scores], [f"probs_{tag}"], axis=-1))
        nodes.append(helper.make_node("MatMul", [f"probs_{tag}", "v"], [f"y_{tag}"]))
        return f"y_{tag}"

    if form == "plain":
        y = attend("q", "0", None)
    elif form == "kt-additive":
        inputs.append(value("mask", element, ["b", 1, "sq", "sk"]))
        y = attend("q", "0", "mask")
    else:
        if dv != head_dim:
            raise ValueError("the keep form feeds one attention's output to the next: value_dim must be head_dim")
        inputs.append(value("cond", TensorProto.BOOL, ["b", 1, "sq", "sk"]))
        initializers += [numpy_helper.from_array(np.array(0.0, dtype), "zero"), numpy_helper.from_array(np.array(np.finfo(dtype).min, dtype), "lowest")]
        nodes.append(helper.make_node("Where", ["cond", "zero", "lowest"], ["mask"]))
        y = attend(attend("q", "0", "mask"), "1", "mask")
    outputs = [value(y, element, ["b", heads, "sq", dv])]
    return graph_model(nodes, inputs, outputs, initializers)


def attention_feeds(model: onnx.ModelProto, batch: int, sq: int, sk: int, rng: np.random.Generator) -> Feeds:
    """Random inputs at (batch, sq, sk) in the model's float type: normal q, k, v; an
    additive mask of zeros and lowest values (about a quarter masked); a keep cond, about
    a quarter False."""
    feeds: Feeds = {}
    for spec in model.graph.input:
        dims = [d.dim_value or {"b": batch, "sq": sq, "sk": sk}[d.dim_param] for d in spec.type.tensor_type.shape.dim]
        dtype = helper.tensor_dtype_to_np_dtype(spec.type.tensor_type.elem_type)
        if spec.name == "cond":
            feeds[spec.name] = rng.random(dims) > 0.25
        elif spec.name == "mask":
            feeds[spec.name] = np.where(rng.random(dims) > 0.25, 0.0, np.finfo(dtype).min).astype(dtype)
        else:
            feeds[spec.name] = rng.standard_normal(dims).astype(dtype)
    return feeds
