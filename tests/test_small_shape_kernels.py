"""Fewer kernels for the launch-bound shapes: onnx-merge-sibling-matmuls (Q, K and V
projections become one GEMM and a Split into views) and hip-fold-transpose-into-matmul
(Q Kᵀ reads K transposed) in the default pipeline, on the seed attention model, BERT and a
model built here, against onnxruntime with the reference backend's sanitizer on."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import xhip
from tests.conftest import REPO_ROOT
from tests.test_transformer_exports import token_feeds
from xhip.dialects.hip import DPSOp, GetConstantOp
from xhip.runtime.check import compare, onnxruntime_outputs
from xhip.testing.models import EXAMPLES, TRANSFORMER_EXPORTS

BASE = REPO_ROOT / "pipelines" / "experiments" / "unfused-attention.yaml"
"""The default without attention fusion: these passes' effect on the unfused attention
(the default fuses the seed attention whole, after the merged projection)."""
NEW_PASSES = ("onnx-merge-sibling-matmuls", "hip-fold-transpose-into-matmul")


def _without_new_passes(tmp_path) -> str:
    """BASE without the two passes, as an experiment file would remove them."""
    path = tmp_path / "without.yaml"
    path.write_text(f"extends: {BASE}\nname: without\ndescription: d\nremove: [{', '.join(NEW_PASSES)}]\n")
    return str(path)


def _device_ops(executable: xhip.Executable) -> list[str]:
    return [op.name + (" {trans_b}" if getattr(op, "trans_b", None) and op.trans_b.value.data else "")
            for op in executable.module.walk() if isinstance(op, DPSOp)]  # fmt: skip


def _matches_onnxruntime(model: onnx.ModelProto, executable: xhip.Executable, feeds) -> None:
    result = compare(executable.run(feeds), onnxruntime_outputs(model, feeds))
    assert result.passed, result.problems


def test_the_seed_attention_runs_four_device_ops(tmp_path):
    """7 without the passes (3 projections, the transpose of K, Q Kᵀ, the softmax, P V)."""
    model = onnx.load(EXAMPLES / "attention.onnx")
    assert len(_device_ops(xhip.compile(model, _without_new_passes(tmp_path), backend="reference"))) == 7
    executable = xhip.compile(model, str(BASE), backend="reference", verify_each=True)
    assert _device_ops(executable) == ["hip.matmul", "hip.matmul {trans_b}", "hip.softmax", "hip.matmul"]
    # The default fuses the attention too: the merged projection and one kernel.
    assert _device_ops(xhip.compile(model, backend="reference")) == ["hip.matmul", "hip.attention"]


def test_only_the_merged_weight_is_in_the_constants_file():
    executable = xhip.compile(onnx.load(EXAMPLES / "attention.onnx"), backend="reference")
    constants = [op.results[0].type.get_shape() for op in executable.module.walk() if isinstance(op, GetConstantOp)]
    assert constants == [(64, 192)]
    assert executable.module.attributes["hip.constants_size"].value.data == 64 * 192 * 4


@pytest.mark.parametrize("batch, seq", [(1, 1), (2, 33), (3, 130)])
def test_the_seed_attention_matches_onnxruntime(batch, seq):
    model = onnx.load(EXAMPLES / "attention.onnx")
    executable = xhip.compile(model, backend="reference", sanitize=True)
    feeds = {"X": np.random.default_rng(seq).standard_normal((batch, seq, 64)).astype(np.float32)}
    _matches_onnxruntime(model, executable, feeds)


def test_bert_projections_merge_with_their_biases(tmp_path):
    """Each layer's Q, K and V MatMuls and their bias Adds become one MatMul and one Add
    (each sum is split into heads: a view of its window): 16 -> 12 matmuls and 4 Adds
    fewer in two layers; the outputs still match onnxruntime."""
    model = onnx.load(EXAMPLES / "bert_tiny_64.onnx")
    before = _device_ops(xhip.compile(model, _without_new_passes(tmp_path), backend="reference"))
    executable = xhip.compile(model, str(BASE), backend="reference", sanitize=True)
    after = _device_ops(executable)
    assert (before.count("hip.matmul"), after.count("hip.matmul")) == (16, 12)
    assert before.count("hip.add") - after.count("hip.add") == 4
    assert len(before) - len(after) == 8
    _matches_onnxruntime(model, executable, token_feeds(model, TRANSFORMER_EXPORTS["bert_tiny_64"], 3, 17))


def _launches(executable: xhip.Executable) -> int:
    """Device ops and buffer copies (a copy of a strided window is a kernel too)."""
    return len(_device_ops(executable)) + sum(op.name == "memref.copy" for op in executable.module.walk())


@pytest.mark.parametrize("name, saved", [("bert_tiny_64", 8), ("roberta_tiny", 8), ("llama_tiny", 6), ("gpt2_2layer", 0)])
def test_the_exports_launch_fewer_kernels_and_copy_no_window(tmp_path, name, saved):
    """Llama's Q, K and V are split into heads, a view of each part of a merged product:
    they merge (two matmuls fewer a layer), and so do its gate and up projections. GPT-2's
    QKV is one Gemm already, and its Kᵀ reaches the matmul through reshapes and a scale:
    unchanged. A copy of a window would count as a launch."""
    model = onnx.load(EXAMPLES / f"{name}.onnx")
    before = _launches(xhip.compile(model, _without_new_passes(tmp_path), backend="reference"))
    assert before - _launches(xhip.compile(model, str(BASE), backend="reference")) == saved


def _projected_scores() -> onnx.ModelProto:
    """x [b, s, 8] projected four times: a and b (with a bias) merge; c's weight is also
    read by another MatMul too, so it stays; Transpose(b) is read by two MatMuls as B, Transpose(a)
    also by a Relu, so it stays."""
    f = TensorProto.FLOAT
    rng = np.random.default_rng(3)
    weights = [numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)
               for name, shape in (("wa", (8, 8)), ("wb", (8, 8)), ("wc", (8, 8)), ("bias", (8,)))]  # fmt: skip
    nodes = [
        helper.make_node("MatMul", ["x", "wa"], ["a"]),
        helper.make_node("MatMul", ["x", "wb"], ["b0"]),
        helper.make_node("Add", ["b0", "bias"], ["b"]),
        helper.make_node("MatMul", ["x", "wc"], ["c"]),
        helper.make_node("Transpose", ["b"], ["bt"], perm=[0, 2, 1]),
        helper.make_node("MatMul", ["a", "bt"], ["ab"]),
        helper.make_node("MatMul", ["c", "bt"], ["cb"]),
        helper.make_node("Transpose", ["a"], ["at"], perm=[0, 2, 1]),
        helper.make_node("MatMul", ["b", "at"], ["ba"]),
        helper.make_node("Relu", ["at"], ["at_relu"]),
        helper.make_node("Add", ["ab", "cb"], ["scores"]),
        helper.make_node("MatMul", ["b", "wc"], ["bw"]),
    ]
    s = ["batch", "seq", "seq"]
    graph = helper.make_graph(
        nodes, "projected_scores", [helper.make_tensor_value_info("x", f, ["batch", "seq", 8])],
        [helper.make_tensor_value_info("scores", f, s), helper.make_tensor_value_info("ba", f, s),
         helper.make_tensor_value_info("at_relu", f, ["batch", 8, "seq"]),
         helper.make_tensor_value_info("bw", f, ["batch", "seq", 8])],
        weights,
    )  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


@pytest.mark.parametrize("batch, seq", [(1, 1), (2, 5), (3, 8)])
def test_what_merges_and_reads_through_matches_onnxruntime(batch, seq):
    model = _projected_scores()
    executable = xhip.compile(model, backend="reference", sanitize=True, verify_each=True)
    ops = _device_ops(executable)
    # wa and wb: one GEMM of 16 columns; wc alone. Transpose(b) read through by both matmuls.
    widths = [op.inputs[1].type.get_shape()[-1] for op in executable.module.walk() if op.name == "hip.matmul"]
    assert widths.count(16) == 1 and ops.count("hip.transpose") == 1 and ops.count("hip.matmul {trans_b}") == 2
    feeds = {"x": np.random.default_rng(seq).standard_normal((batch, seq, 8)).astype(np.float32)}
    _matches_onnxruntime(model, executable, feeds)


def test_the_merged_projection_keeps_pool_bytes(tmp_path):
    """One [b, s, 3 * 64] buffer instead of three [b, s, 64] ones and Kᵀ's: the pool is no larger."""
    model = onnx.load(EXAMPLES / "attention.onnx")
    feeds = {"X": np.random.default_rng(0).standard_normal((2, 96, 64)).astype(np.float32)}
    pools = []
    for pipeline in (_without_new_passes(tmp_path), str(BASE)):
        executable = xhip.compile(model, pipeline, backend="reference")
        executable.run(feeds)
        pools.append(executable.report.pool_bytes)
    assert pools[1] <= pools[0]
    assert pools[1] >= 2 * 96 * (3 * 64 * 4 + 96 * 4)  # the projection and the scores, at least
