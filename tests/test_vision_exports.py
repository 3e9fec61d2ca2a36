"""Real torch.onnx exports of an image classifier and a segmenter, compiled and run against
the float64 rule.

Both are written by `benchmarks/export_models.py --small`, random weights, dynamic batch,
height and width:
- examples/resnet_tiny.onnx: a ResNet-18-shaped network at width 8 (stem conv, max pool, a
  basic block and a strided block with a 1x1 downsample, the spatial mean, a linear head),
  batch-norm statistics the dynamo exporter folds into the convolutions. It reaches Conv
  (with bias), MaxPool, Relu, Add, ReduceMean and Gemm.
- examples/unet_tiny.onnx: a strided conv down, bilinear interpolation back to the skip's
  extents (a Resize whose sizes are Concat of Shapes: run-time extents), the skip added, 2x
  nearest upsampling (constant scales) and a 1x1 head. It reaches Conv, Relu, Add, Resize
  (linear half_pixel and nearest asymmetric floor), Shape and Concat.

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

SHAPES = [(2, 3, 32, 32), (1, 3, 24, 40), (3, 3, 17, 9)]
MODELS = {
    "resnet_tiny": ({"hip.im2col", "hip.matmul", "hip.pool"}, lambda n, h, w: (n, 10)),
    "unet_tiny": ({"hip.im2col", "hip.matmul", "hip.resize"}, lambda n, h, w: (n, 4, 2 * h, 2 * w)),
}
"""Per export: hip ops it must reach (its 3x3 Convs as im2col and a matmul), and its output
shape at an image shape."""


@pytest.mark.parametrize("pipeline", [None, "fp16"])
@pytest.mark.parametrize("name", sorted(MODELS))
def test_the_image_exports_match_float64_at_run_time_image_sizes(name, pipeline):
    model = onnx.load(EXAMPLES / f"{name}.onnx")
    reached, output_shape = MODELS[name]
    executable = xhip.compile(model, pipeline, backend="reference")
    ops = {op.name for op in executable.module.walk()}
    assert reached <= ops
    for shape in SHAPES:
        feeds = {"images": np.random.default_rng(sum(shape)).standard_normal(shape).astype(np.float32)}
        outputs = executable.run(feeds)
        assert outputs["logits"].shape == output_shape(shape[0], *shape[2:])
        result = check_outputs(outputs, references(model, feeds), "reference", executable.compute_dtype)
        assert result.passed, result.summary()


@pytest.mark.parametrize("pipeline", [None, "fp16"])
def test_vit_reads_no_attention_mask_and_matches_float64(pipeline):
    """examples/vit_tiny.onnx (export_models.py --small: transformers' ViT at width 32, 2
    layers, dynamic batch) broadcasts an all-true keep mask per batch: hip-fuse-attention
    drops it, so each fused attention reads q, k and v only and nothing expands the mask."""
    model = onnx.load(EXAMPLES / "vit_tiny.onnx")
    executable = xhip.compile(model, pipeline, backend="reference")
    attentions = [op for op in executable.module.walk() if op.name == "hip.attention"]
    assert len(attentions) == 2
    assert all(len(op.inputs) == 3 and op.mask_kind.data == "none" for op in attentions)
    assert not any(op.name in ("hip.where", "hip.expand") and "i1" in str(op.inputs[0].type) for op in executable.module.walk())
    for batch in (2, 1, 3):
        feeds = {"pixel_values": np.random.default_rng(batch).standard_normal((batch, 3, 32, 32)).astype(np.float32)}
        outputs = executable.run(feeds)
        assert outputs["last_hidden_state"].shape == (batch, 17, 32)
        result = check_outputs(outputs, references(model, feeds), "reference", executable.compute_dtype)
        assert result.passed, result.summary()
