"""The fp16 and bf16 pipelines (onnx-convert-precision) on a float32 export, end to end:
the same interface, half the pool bytes, and outputs within the float64 rule counted in
ulps of the precision the model computed in (and outside it when counted in float32's)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import xhip
from xhip.runtime.check import check_outputs, references

GPT2 = Path(__file__).resolve().parent.parent / "examples" / "gpt2_2layer.onnx"
IDS = np.random.default_rng(7).integers(0, 256, (2, 24)).astype(np.int64)


@pytest.fixture(scope="module")
def float32_run():
    exe = xhip.compile(GPT2, backend="reference")
    return exe, exe.run({"input_ids": IDS}), references(GPT2, {"input_ids": IDS})


@pytest.mark.parametrize("pipeline, precision", [("fp16", "float16"), ("bf16", "bfloat16")])
def test_half_pipeline_halves_the_pool_and_passes_the_half_precision_rule(float32_run, pipeline, precision):
    fp32, fp32_outputs, refs = float32_run
    exe = xhip.compile(GPT2, pipeline, backend="reference")
    outputs = exe.run({"input_ids": IDS})
    # The interface is the export's: int64 ids in, float32 logits out.
    assert [(s.name, s.dtype) for s in exe.inputs] == [(s.name, s.dtype) for s in fp32.inputs]
    assert outputs["logits"].dtype == np.float32 and outputs["logits"].shape == fp32_outputs["logits"].shape
    assert exe.report.compute_precision == precision and fp32.report.compute_precision == ""
    assert exe.compute_dtype is not None and exe.compute_dtype.name == precision
    # Every pooled intermediate is half precision: the pool takes half the bytes (the
    # alignment of each slot to 256 bytes keeps it from being exactly half).
    ratio = exe.report.pool_bytes / fp32.report.pool_bytes
    assert 0.45 <= ratio <= 0.55, ratio
    assert np.all(np.isfinite(outputs["logits"]))
    result = check_outputs(outputs, refs, "reference", exe.compute_dtype)
    assert result.passed, result.summary()
    assert result.computed_in == precision and f"ulps of {precision}" in result.summary()
    # The same outputs judged as float32 computation fail: the rule's ulp term is what
    # admits half precision's rounding, nothing looser.
    assert not check_outputs(outputs, refs, "reference").passed
    # The float32 model itself still passes the float32 rule.
    assert check_outputs(fp32_outputs, refs, "reference").passed
