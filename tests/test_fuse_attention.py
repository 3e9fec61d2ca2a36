"""hip-fuse-attention on real models: which attentions of the seed model and the torch
exports (GPT-2, BERT, RoBERTa, Llama) it fuses, that they still match onnxruntime under
the default pipeline (padded masks included), and that the
[batch, heads, seq, seq] buffers leave the pool."""

from __future__ import annotations

import functools

import numpy as np
import onnx
import pytest

import xhip
from tests.conftest import REPO_ROOT
from tests.test_transformer_exports import token_feeds
from xhip.dialects.hip.attention import LAYOUTS
from xhip.runtime.check import compare, onnxruntime_outputs
from xhip.testing.models import EXAMPLES, TRANSFORMER_EXPORTS

FUSED = REPO_ROOT / "pipelines" / "default.yaml"
UNFUSED = REPO_ROOT / "pipelines" / "experiments" / "unfused-attention.yaml"
VOCABULARIES = {**TRANSFORMER_EXPORTS, "gpt2_2layer": 256}
EXPORTS = sorted(VOCABULARIES)


@functools.cache
def _compiled(name: str, pipeline=FUSED) -> tuple[onnx.ModelProto, xhip.Executable]:
    model = onnx.load(EXAMPLES / f"{name}.onnx")
    return model, xhip.compile(model, pipeline, backend="reference")


def _op_names(executable) -> list[str]:
    return [op.name for op in executable.module.walk()]


@pytest.mark.parametrize("name", ["attention", *EXPORTS])
def test_every_attention_of_the_model_is_fused(name):
    """One hip.attention per softmax of the unfused model; no softmax and no [.., s, s]
    IsNaN guard is left."""
    softmaxes = _op_names(_compiled(name, UNFUSED)[1]).count("hip.softmax")
    names = _op_names(_compiled(name)[1])
    assert softmaxes >= 1
    assert names.count("hip.attention") == softmaxes
    assert "hip.softmax" not in names and "hip.isnan" not in names


def test_the_exports_fuse_with_their_mask_scale_and_nan_guard():
    assert "hip.where" not in _op_names(_compiled("gpt2_2layer")[1])
    attention = next(op for op in _compiled("gpt2_2layer")[1].module.walk() if op.name == "hip.attention")
    # Where(cond, 0, min), read by both layers, became their keep mask: the i1 cond.
    assert attention.mask_kind.data == "keep" and len(attention.inputs) == 4
    assert attention.kept_value.value.data == 0 and attention.masked_value.value.data == pytest.approx(-3.4028234663852886e38)
    assert attention.zero_nan_rows.value.data
    # The head split and merge around it are layouts: q, k, v read as strided views of
    # c_attn's output [b, s, 12, 64] (K with its head dim last: not k_transposed), y written
    # as [b, s, 12, 64] for c_proj.
    assert not attention.k_transposed.value.data
    assert [attention.layout(name) for name in LAYOUTS] == [(0, 2, 1, 3)] * 4
    assert attention.scale.value.data == pytest.approx(32**-0.5)


@pytest.mark.parametrize("batch, seq", [(1, 1), (3, 17), (2, 70)])
@pytest.mark.parametrize("name", EXPORTS)
def test_fused_export_matches_onnxruntime(name, batch, seq):
    model, executable = _compiled(name)
    feeds = token_feeds(model, VOCABULARIES[name], batch, seq)
    result = compare(executable.run(feeds), onnxruntime_outputs(model, feeds))
    assert result.passed, f"{name} at batch {batch}, seq {seq}: {result.problems}"


@pytest.mark.parametrize("batch, seq", [(2, 96), (1, 130)])
def test_fused_seed_model_keeps_no_scores_in_the_pool(batch, seq):
    """Unfused, the pool holds the [batch, seq, seq] scores; fused, only q, k, v (and the
    output's producers): at most 3 * batch * seq * 64 floats, aligned."""
    feeds = {"X": np.random.default_rng(seq).standard_normal((batch, seq, 64)).astype(np.float32)}
    pools = {}
    for pipeline in (UNFUSED, FUSED):
        model, executable = _compiled("attention", pipeline)
        result = compare(executable.run(feeds), onnxruntime_outputs(model, feeds))
        assert result.passed, result.problems
        pools[pipeline] = executable.report.pool_bytes
    scores = batch * seq * seq * 4
    assert pools[UNFUSED] >= scores
    assert pools[FUSED] <= 3 * (batch * seq * 64 * 4 + 256)
