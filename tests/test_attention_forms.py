"""Which attention kernel each precision gets, and the multi-head forms of
xhip.testing.attention_models on the reference backend against onnxruntime (the GPU side
of the same forms is tests/gpu/test_attention_mma.py)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import xhip
from xhip.api import compile_stages
from xhip.runtime.bind import module_kernels
from xhip.runtime.check import check_outputs, references
from xhip.testing.attention_models import FORMS, attention_feeds, multi_head_attention


def _attention_families(model, pipeline) -> set[str]:
    *_, (_, module, _) = compile_stages(model, pipeline)
    return {spec.family for spec in module_kernels(module) if spec.family.startswith("attention")}


@pytest.mark.parametrize("form", FORMS)
def test_half_precision_attention_runs_on_matrix_instructions(form):
    model = multi_head_attention(form, 2, 64)
    assert _attention_families(model, None) == {"attention_tiled"}
    assert _attention_families(model, "fp16") == {"attention_mma"}
    assert _attention_families(model, "bf16") == {"attention_mma"}
    assert _attention_families(multi_head_attention(form, 2, 64, dtype=np.float16), None) == {"attention_mma"}


def test_head_dims_the_matrix_kernel_does_not_take_stay_tiled():
    # A head dim of 8 is below one m16n8k16 step: the register-tiled kernel, in fp16.
    assert _attention_families(multi_head_attention("plain", 2, 8, 32), "fp16") == {"attention_tiled"}


@pytest.mark.parametrize("pipeline", [None, "fp16", "bf16"])
@pytest.mark.parametrize("form", FORMS)
def test_attention_forms_match_onnxruntime(form, pipeline):
    model = multi_head_attention(form, 2, 32)
    executable = xhip.compile(model, pipeline, backend="reference")
    sq, sk = 9, (9 if form == "keep" else 13)
    feeds = attention_feeds(model, 2, sq, sk, np.random.default_rng(3))
    result = check_outputs(executable.run(feeds), references(model, feeds), "reference", executable.compute_dtype)
    assert result.passed, result.problems


@pytest.mark.parametrize("pipeline", ["fp16", "bf16"])
def test_a_fully_masked_row_stays_finite_in_half_precision(pipeline):
    # float32's min as the mask value saturates to the half type's lowest finite value (not
    # -inf), so a query whose every key is masked gets finite weights instead of NaN: float32
    # absorbs the scores into its min (a uniform softmax), float32 arithmetic on the half
    # type's min keeps their differences; every other row matches onnxruntime.
    model = multi_head_attention("keep", 2, 32)
    feeds = attention_feeds(model, 1, 5, 5, np.random.default_rng(4))
    feeds["cond"][0, 0, 2, :] = False
    executable = xhip.compile(model, pipeline, backend="reference")
    (name, output), = executable.run(feeds).items()
    assert np.isfinite(output).all()
    expected = references(model, feeds)
    rows = [0, 1, 3, 4]  # every query but the masked one

    def others(values):
        return {key: value[:, :, rows] for key, value in values.items()}

    wide = dataclasses.replace(expected.float64, outputs=others(expected.float64.outputs))
    result = check_outputs(others({name: output}), dataclasses.replace(expected, onnxruntime=others(expected.onnxruntime), float64=wide), "reference", executable.compute_dtype)
    assert result.passed, result.problems
