"""Convolutions on a real GPU: a Conv of one group as hip.im2col and a vendor GEMM (the
default pipeline), on the direct kernel (the direct-conv experiment, cuDNN turned off), and
on cuDNN (the direct-conv experiment where cuDNN is installed).

examples/resnet_tiny.onnx (3x3 Convs, strided, max pooling, a Gemm head) and
examples/unet_tiny.onnx (strided Convs, bilinear and nearest Resize, skip Concats) at two
image sizes each, fp32 and through the fp16 pipeline, against onnxruntime on the same random
images under the float64 rule with the GPU tolerance (ulps of the compute precision for
fp16): every output element checked (the pools start poisoned). Both of im2col's bodies run:
the 32-bit one these sizes take, and the 64-bit one with the narrow bound lowered to 0.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest

import xhip
from xhip.kernels import conv
from xhip.runtime.backends.gpu import cudnn
from xhip.runtime.check import check_outputs, references

pytestmark = pytest.mark.gpu
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SHAPES = ((2, 3, 32, 32), (1, 3, 24, 40))


def _check(backend_name: str, name: str, pipeline: str | None) -> xhip.Executable:
    model = onnx.load(EXAMPLES / f"{name}.onnx")
    executable = xhip.compile(model, pipeline, backend=backend_name)
    ops = {op.name for op in executable.module.walk()}
    direct = str(pipeline).startswith("direct-conv")
    assert ("hip.im2col" in ops) != direct and ("hip.conv" in ops) == direct
    rng = np.random.default_rng(5)
    for shape in SHAPES:
        feeds = {"images": rng.standard_normal(shape).astype(np.float32)}
        result = check_outputs(executable.run(feeds), references(model, feeds), backend_name, executable.compute_dtype)
        assert result.passed, f"{name} {pipeline} {shape}: {result.problems}"
    return executable


@pytest.mark.parametrize("pipeline", [None, "fp16", "direct-conv"])
@pytest.mark.parametrize("name", ["resnet_tiny", "unet_tiny"])
def test_convolution_models_match_onnxruntime(backend_name, name, pipeline, monkeypatch):
    monkeypatch.setenv(cudnn.DISABLE, "0")  # the kernels (grouped Convs too); cuDNN's test is below
    _check(backend_name, name, pipeline)


@pytest.mark.parametrize("precision", ["fp32", "fp16"])
def test_convolutions_on_cudnn_match_onnxruntime(backend_name, precision, monkeypatch):
    """Every hip.conv of the direct pipeline (and of the fp16 one with Convs kept whole) runs
    on cuDNN where it is installed (and not turned off)."""
    monkeypatch.delenv(cudnn.DISABLE, raising=False)
    if backend_name != "cuda" or cudnn.load_library() is None:
        pytest.skip("cuDNN runs on the cuda backend, with nvidia-cudnn installed")
    pipeline = "direct-conv" if precision == "fp32" else "direct-conv-fp16"
    for name in ("resnet_tiny", "unet_tiny"):
        executable = _check(backend_name, name, pipeline)
        dnn = executable.backend.driver.dnn  # type: ignore[attr-defined]
        assert dnn is not None and dnn.taken > 0, name


def test_im2col_in_64_bit_index_arithmetic_matches_onnxruntime(backend_name, monkeypatch):
    monkeypatch.setattr(conv, "NARROW", 0)
    _check(backend_name, "resnet_tiny", None)
