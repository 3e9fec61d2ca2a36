"""Weights read transposed: MatMul(x, Transpose(W)) and Gemm on Transpose(W) keep W once.

A tied lm_head (GPT-2: logits = MatMul(h, Transpose(wte)), wte also the token
embedding) used to fold into a transposed copy of wte: 154 MB more constants
for GPT-2 124M to evaluate, hash, write and hold. Now the hip op reads wte
itself with a trans flag. Each model runs on the reference backend under the
default pipeline and without onnx-fold-constants (the converter reads through
either way) against onnxruntime, and the constants file holds each weight once.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import xhip
from xhip.dialects import hip
from xhip.dialects.hip.attributes import CONSTANTS_SIZE_ATTR
from xhip.kernels.matmul import gemm_call
from xhip.runtime.check import compare, onnxruntime_outputs
from xhip.rewrite_rules.transposed_weights import is_last_two_swap
from xhip.kernels.families import launch_values
from xhip.kernels.family import View
from xhip.testing.models import graph_model, value

REPO = Path(__file__).resolve().parents[1]
DEFAULT = REPO / "pipelines" / "default.yaml"
VOCAB, HIDDEN = 40, 16


@pytest.fixture(scope="module")
def unfolded(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("pipelines") / "unfolded.yaml"
    path.write_text(f"extends: {DEFAULT}\nname: unfolded\ndescription: no folding\nremove: [onnx-fold-constants]\n")
    return path


def _weight(rng: np.random.Generator, name: str, *shape: int):
    return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)


def tied_lm_head(rng: np.random.Generator):
    """GPT-2's tail: embed ids with wte, logits = MatMul(h, Transpose(wte)) on [batch, seq, hidden]."""
    nodes = [
        helper.make_node("Gather", ["wte", "ids"], ["h"], axis=0),
        helper.make_node("Tanh", ["h"], ["t"]),
        helper.make_node("Transpose", ["wte"], ["wte_t"], perm=[1, 0]),
        helper.make_node("MatMul", ["t", "wte_t"], ["logits"]),
    ]
    model = graph_model(
        nodes, [value("ids", TensorProto.INT64, ["batch", "seq"])],
        [value("logits", TensorProto.FLOAT, ["batch", "seq", VOCAB])], [_weight(rng, "wte", VOCAB, HIDDEN)],
    )  # fmt: skip
    return model, {"ids": rng.integers(0, VOCAB, (3, 5), dtype=np.int64)}


def gemm_on_transposed(rng: np.random.Generator):
    """Gemm reading Transpose(W) as B (no transB) and as A (with transA): each flag flips."""
    nodes = [
        helper.make_node("Transpose", ["w"], ["w_t"], perm=[1, 0]),
        helper.make_node("Gemm", ["x", "w_t", "bias"], ["y"]),
        helper.make_node("Gemm", ["w_t", "z", ""], ["u"], transA=1, alpha=0.5),
    ]
    model = graph_model(
        nodes, [value("x", TensorProto.FLOAT, ["m", HIDDEN]), value("z", TensorProto.FLOAT, [HIDDEN, "n"])],
        [value("y", TensorProto.FLOAT, ["m", VOCAB]), value("u", TensorProto.FLOAT, [VOCAB, "n"])],
        [_weight(rng, "w", VOCAB, HIDDEN), _weight(rng, "bias", VOCAB)],
    )  # fmt: skip
    feeds = {"x": rng.standard_normal((7, HIDDEN)).astype(np.float32),
             "z": rng.standard_normal((HIDDEN, 3)).astype(np.float32)}  # fmt: skip
    return model, feeds


def batched_weight(rng: np.random.Generator):
    """A stack of weights [2, N, K] read as [2, K, N] (perm [0, 2, 1]) by a batched MatMul."""
    nodes = [
        helper.make_node("Transpose", ["w"], ["w_t"], perm=[0, 2, 1]),
        helper.make_node("MatMul", ["x", "w_t"], ["y"]),
    ]
    model = graph_model(
        nodes, [value("x", TensorProto.FLOAT, [2, "m", HIDDEN])], [value("y", TensorProto.FLOAT, [2, "m", VOCAB])],
        [_weight(rng, "w", 2, VOCAB, HIDDEN)],
    )  # fmt: skip
    return model, {"x": rng.standard_normal((2, 6, HIDDEN)).astype(np.float32)}


CASES = {"tied_lm_head": tied_lm_head, "gemm_on_transposed": gemm_on_transposed, "batched_weight": batched_weight}


@pytest.mark.parametrize("folded", [True, False], ids=["default", "unfolded"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_reads_the_weight_transposed_and_matches_onnxruntime(name, folded, unfolded):
    model, feeds = CASES[name](np.random.default_rng(7))
    executable = xhip.compile(model, DEFAULT if folded else unfolded, backend="reference")
    result = compare(executable.run(feeds), onnxruntime_outputs(model, feeds))
    assert result.passed, result.problems
    assert not [op for op in executable.module.walk() if isinstance(op, hip.TransposeOp)]
    # The weight once: a transposed copy in the constants file would double it.
    weight_bytes = max(len(t.raw_data) for t in model.graph.initializer)
    assert weight_bytes <= executable.module.attributes[CONSTANTS_SIZE_ATTR].value.data < 2 * weight_bytes


def test_the_lm_head_matmul_reads_wte_with_trans_b():
    model, _ = tied_lm_head(np.random.default_rng(7))
    executable = xhip.compile(model, DEFAULT, backend="reference")
    (matmul,) = [op for op in executable.module.walk() if isinstance(op, hip.MatmulOp)]
    (gather,) = [op for op in executable.module.walk() if isinstance(op, hip.GatherOp)]
    assert matmul.trans_b.value.data
    assert matmul.inputs[1].owner is gather.inputs[0].owner  # the one constant wte


def test_gpu_launch_reads_b_transposed_through_its_strides():
    """The GPU path: trans_b swaps B's row and column strides, and BLAS gets op(B) = B^T (ldb = K)."""
    f32 = np.dtype(np.float32)
    x = View(0x1000, f32, (2, 3, HIDDEN), (3 * HIDDEN, HIDDEN, 1))
    w = View(0x8000, f32, (VOCAB, HIDDEN), (HIDDEN, 1))
    out = View(0x20000, f32, (2, 3, VOCAB), (3 * VOCAB, VOCAB, 1))
    (values,) = launch_values(hip.MatmulOp, {"trans_b": True}, (), [x, w], [out])
    assert (values["m"], values["n"], values["k"]) == (3, VOCAB, HIDDEN)
    assert (values["b_row_stride"], values["b_col_stride"]) == (1, HIDDEN)
    call = gemm_call(values, f32)
    assert call is not None and call.trans_b and not call.trans_a
    # The weight broadcasts over a row-contiguous batch: one GEMM of 2 * 3 rows.
    assert (call.ldb, call.stride_b, call.batch, call.m) == (HIDDEN, 0, 1, 6)


@pytest.mark.parametrize(
    "perm, rank, swaps",
    [
        ([1, 0], 2, True),
        ([0, 2, 1], 3, True),
        ([0, 1, 3, 2], 4, True),
        (None, 2, True),  # ONNX's default reverses every dim: a swap at rank 2 only
        (None, 3, False),
        ([0, 2, 1, 3], 4, False),  # the heads transpose of attention
        ([0], 1, False),
        ([1, 0, 2], 3, False),
        ([0, 1], 2, False),
    ],
)
def test_is_last_two_swap(perm, rank, swaps):
    """The one rule of which transposes a matmul reads through: the ONNX weights'
    (`swaps_last_two`) and hip-fold-transpose-into-matmul's."""
    assert is_last_two_swap(perm, rank) is swaps
