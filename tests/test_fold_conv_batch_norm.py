"""onnx-fold-conv-batch-norm: a BatchNormalization (inference) of a Conv's result goes into the
Conv's weights and bias. A grouped, padded Conv with a bias and a pointwise one without,
each normalized, fold; a Conv whose result is also read elsewhere keeps its normalization.
On the reference backend against onnxruntime at two run-time shapes, in float32 and
through the fp16 pipeline."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import runs_like_onnxruntime
from onnx import TensorProto, helper, numpy_helper

from xhip.api import compile_stages
from xhip.testing.models import graph_model, value

CHANNELS = 4


def _normalization(rng: np.random.Generator, prefix: str, channels: int) -> list:
    """The four per-channel initializers of a BatchNormalization, named `prefix`_*."""
    return [
        numpy_helper.from_array(values.astype(np.float32), f"{prefix}_{name}")
        for name, values in (
            ("scale", rng.uniform(0.5, 2.0, channels)), ("bias", rng.standard_normal(channels)),
            ("mean", rng.standard_normal(channels)), ("var", rng.uniform(0.5, 2.0, channels)),
        )
    ]  # fmt: skip


def _model():
    rng = np.random.default_rng(0)
    weights = [
        numpy_helper.from_array(rng.standard_normal((6, CHANNELS // 2, 3, 3)).astype(np.float32), "w_grouped"),
        numpy_helper.from_array(rng.standard_normal(6).astype(np.float32), "b_grouped"),
        numpy_helper.from_array(rng.standard_normal((5, CHANNELS, 1, 1)).astype(np.float32), "w_point"),
        numpy_helper.from_array(rng.standard_normal((3, CHANNELS, 1, 1)).astype(np.float32), "w_shared"),
    ]
    norms = _normalization(rng, "n1", 6) + _normalization(rng, "n2", 5) + _normalization(rng, "n3", 3)
    nodes = [
        helper.make_node("Conv", ["x", "w_grouped", "b_grouped"], ["c1"], group=2, pads=[1, 1, 1, 1], strides=[2, 1]),
        helper.make_node("BatchNormalization", ["c1", "n1_scale", "n1_bias", "n1_mean", "n1_var"], ["y1"], epsilon=1e-3),
        helper.make_node("Conv", ["x", "w_point"], ["c2"]),
        helper.make_node("BatchNormalization", ["c2", "n2_scale", "n2_bias", "n2_mean", "n2_var"], ["n2"]),
        helper.make_node("Relu", ["n2"], ["y2"]),
        helper.make_node("Conv", ["x", "w_shared"], ["c3"]),
        helper.make_node("BatchNormalization", ["c3", "n3_scale", "n3_bias", "n3_mean", "n3_var"], ["y3"]),
    ]
    inputs = [value("x", TensorProto.FLOAT, ["n", CHANNELS, "h", "w"])]
    outputs = [value(name, TensorProto.FLOAT, None) for name in ("y1", "y2", "y3", "c3")]
    return graph_model(nodes, inputs, outputs, weights + norms)


def test_the_normalizations_of_convs_read_by_them_alone_fold():
    stages = {name: module for name, module, _ in compile_stages(_model(), stop_after="onnx-fold-conv-batch-norm")}
    ops = [op.name for op in stages["onnx-fold-conv-batch-norm"].walk()]
    assert ops.count("onnx.Conv") == 3
    assert ops.count("onnx.BatchNormalization") == 1  # c3's: c3 is an output too


@pytest.mark.parametrize("pipeline", [None, "fp16"])
def test_folded_convs_match_onnxruntime(pipeline):
    rng = np.random.default_rng(1)
    shapes = ((2, CHANNELS, 9, 7), (1, CHANNELS, 4, 12))
    runs_like_onnxruntime(_model(), pipeline, [{"x": rng.standard_normal(shape).astype(np.float32)} for shape in shapes])
