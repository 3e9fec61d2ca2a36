"""Every model of the test set under every pipeline YAML shipped in pipelines/, against onnxruntime.

Each (pipeline, model) pair is compiled once and run twice: normally, and with
the sanitizer (deferred device work plus byte ownership), so a pipeline that
races or aliases wrongly fails here even when the numbers happen to agree.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import xhip
from xhip.runtime.check import References, check_outputs, compare, onnxruntime_outputs, references as model_references
from xhip.testing.models import MODELS

REPO = Path(__file__).resolve().parents[1]
PIPELINES = sorted(str(p.relative_to(REPO)) for p in (REPO / "pipelines").rglob("*.yaml"))


@pytest.fixture(scope="module")
def references() -> dict[str, tuple]:
    cases = {}
    for name, build in MODELS.items():
        model, feeds = build(np.random.default_rng(sum(map(ord, name))))
        cases[name] = (model, feeds, onnxruntime_outputs(model, feeds))
    return cases


def test_the_shipped_pipelines_are_all_here():
    assert "pipelines/default.yaml" in PIPELINES
    assert {"pipelines/experiments/seed-003.yaml", "pipelines/experiments/grouped-packing.yaml",
            "pipelines/experiments/reuse-before-host-scalars.yaml"} <= set(PIPELINES)  # fmt: skip


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize("model_name", sorted(MODELS))
def test_model_matches_onnxruntime(references, pipeline, model_name):
    model, feeds, expected = references[model_name]
    for mode in ({}, {"sanitize": True}):
        executable = xhip.compile(model, REPO / pipeline, **mode)
        outputs = executable.run(feeds)
        if executable.compute_dtype is None:
            result = compare(outputs, expected)
        else:  # fp16 / bf16: the float64 rule in ulps of the precision it computed in
            refs = _FLOAT64.get(model_name) or _FLOAT64.setdefault(model_name, model_references(model, feeds))
            result = check_outputs(outputs, refs, "reference", executable.compute_dtype)
        assert result.passed, f"{model_name} under {pipeline} {mode}: {result.problems}"


_FLOAT64: dict[str, References] = {}
"""Per model, onnxruntime's and the float64 run's outputs (for the half-precision pipelines)."""
