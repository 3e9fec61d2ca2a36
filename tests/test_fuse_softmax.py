"""hip-fuse-softmax end to end: an ONNX attention block's Div and mask Add go into the
softmax, and the result matches onnxruntime (random data, masks with -1e9 and -inf,
every element written: the reference backend's sanitizer is on)."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import xhip
from xhip.runtime.check import onnxruntime_outputs

UNFUSED_ATTENTION = "pipelines/experiments/unfused-attention.yaml"
"""The softmax fusion on its own: the default pipeline fuses these attentions whole."""
RNG = np.random.default_rng(41)


def _masked_attention(nan_guard: bool = False) -> onnx.ModelProto:
    """softmax(Q Kᵀ / 8 + mask) V with the mask broadcast over the heads; with `nan_guard`
    the torch exports' Where(IsNaN(p), 0, p) between the softmax and the last MatMul."""
    f = TensorProto.FLOAT
    guard = [
        helper.make_node("IsNaN", ["probs"], ["nan"]),
        helper.make_node("Where", ["nan", "zero", "probs"], ["guarded"]),
    ]
    nodes = [
        helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]),
        helper.make_node("MatMul", ["q", "kt"], ["scores"]),
        helper.make_node("Div", ["scores", "eight"], ["scaled"]),
        helper.make_node("Add", ["scaled", "mask"], ["masked"]),
        helper.make_node("Softmax", ["masked"], ["probs"], axis=-1),
        *(guard if nan_guard else []),
        helper.make_node("MatMul", ["guarded" if nan_guard else "probs", "v"], ["out"]),
    ]
    inputs = [
        helper.make_tensor_value_info("q", f, ["b", 2, "s", 16]),
        helper.make_tensor_value_info("k", f, ["b", 2, "s", 16]),
        helper.make_tensor_value_info("v", f, ["b", 2, "s", 16]),
        helper.make_tensor_value_info("mask", f, ["b", 1, "s", "s"]),
    ]
    graph = helper.make_graph(
        nodes, "masked_attention", inputs, [helper.make_tensor_value_info("out", f, ["b", 2, "s", 16])],
        [helper.make_tensor("eight", f, [], [8.0]), helper.make_tensor("zero", f, [], [0.0])],
    )  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def _feeds(batch: int, seq: int, masked_value: float) -> dict[str, np.ndarray]:
    feeds = {name: RNG.standard_normal((batch, 2, seq, 16)).astype(np.float32) for name in "qkv"}
    causal = np.triu(np.ones((seq, seq), bool), k=1)
    feeds["mask"] = np.broadcast_to(np.where(causal, masked_value, 0.0), (batch, 1, seq, seq)).astype(np.float32).copy()
    return feeds


@pytest.mark.parametrize("masked_value", [-1e9, -np.inf])
def test_masked_softmax_fuses_and_matches_onnxruntime(masked_value):
    model = _masked_attention()
    fused = xhip.compile(model, UNFUSED_ATTENTION, sanitize=True)  # the default would fuse the whole attention
    plain = xhip.compile(model, "pipelines/experiments/no-fusion.yaml", sanitize=True)
    softmaxes = [op for op in fused.module.walk() if op.name == "hip.softmax"]
    assert len(softmaxes) == 1 and len(softmaxes[0].inputs) == 2
    assert softmaxes[0].scale.value.data == pytest.approx(0.125)
    assert not [op for op in fused.module.walk() if op.name in ("hip.add", "hip.div")]
    for batch, seq in ((1, 1), (2, 7), (3, 40)):
        feeds = _feeds(batch, seq, masked_value)
        expected = onnxruntime_outputs(model, feeds)["out"]
        np.testing.assert_allclose(fused.run(feeds)["out"], expected, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(plain.run(feeds)["out"], expected, rtol=1e-5, atol=1e-6)
        assert fused.report.kernel_launches == plain.report.kernel_launches - 2
        assert fused.report.pool_bytes <= plain.report.pool_bytes


def test_nan_guard_fuses_and_zeroes_fully_masked_rows():
    """A query row whose keys are all masked (-inf) is NaN after the softmax; the guard
    makes it 0, in the fused softmax as in onnxruntime."""
    model = _masked_attention(nan_guard=True)
    fused = xhip.compile(model, UNFUSED_ATTENTION, sanitize=True)
    (softmax,) = [op for op in fused.module.walk() if op.name == "hip.softmax"]
    assert softmax.zero_nan.value.data
    assert not [op for op in fused.module.walk() if op.name in ("hip.isnan", "hip.where")]
    feeds = _feeds(2, 9, -np.inf)
    feeds["mask"][:, :, 4, :] = -np.inf  # row 4 of every batch sees no key at all
    expected = onnxruntime_outputs(model, feeds)["out"]
    assert np.all(expected[:, :, 4, :] == 0) and not np.isnan(expected).any()
    np.testing.assert_allclose(fused.run(feeds)["out"], expected, rtol=1e-5, atol=1e-6)
