"""A real torch.onnx export of an image classifier, compiled and run against the float64 rule.

examples/resnet_tiny.onnx is written by `benchmarks/export_models.py --small`: a
ResNet-18-shaped network at width 8 (stem conv, max pool, a basic block and a strided block
with a 1x1 downsample, the spatial mean, a linear head), random weights and batch-norm
statistics, which the dynamo exporter folds into the convolutions; dynamic batch, height and
width. It reaches Conv (with bias), MaxPool, Relu, Add, ReduceMean and Gemm.

It compiles once per pipeline and runs at three input shapes (odd and non-square spatial
extents among them), on the reference backend, every output element checked against
float64 by onnx.reference (the rule of `xhip-run --check`).
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest

import xhip
from xhip.runtime.check import check_outputs, references
from xhip.testing.models import EXAMPLES

MODEL = EXAMPLES / "resnet_tiny.onnx"
SHAPES = [(2, 3, 32, 32), (1, 3, 24, 40), (3, 3, 17, 9)]


@pytest.mark.parametrize("pipeline", [None, "fp16"])
def test_the_resnet_export_matches_float64_at_run_time_image_sizes(pipeline):
    model = onnx.load(MODEL)
    executable = xhip.compile(model, pipeline, backend="reference")
    ops = {op.name for op in executable.module.walk()}
    assert {"hip.conv", "hip.pool"} <= ops
    for shape in SHAPES:
        feeds = {"images": np.random.default_rng(sum(shape)).standard_normal(shape).astype(np.float32)}
        outputs = executable.run(feeds)
        assert outputs["logits"].shape == (shape[0], 10)
        result = check_outputs(outputs, references(model, feeds), "reference", executable.compute_dtype)
        assert result.passed, result.summary()
