"""BatchNormalization (inference), InstanceNormalization, GroupNormalization, GlobalAveragePool and
GlobalMaxPool with run-time batch and spatial dims, on the reference backend against
onnxruntime at two shapes, in float32 and through the fp16 pipeline (the ONNX backend node
tests have static shapes only)."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import runs_like_onnxruntime
from onnx import TensorProto, helper, numpy_helper

import xhip
from xhip.diagnostics import XhipError
from xhip.testing.models import graph_model, value

CHANNELS = 3


def _model(constant_mean: bool = True):
    rng = np.random.default_rng(0)
    per_channel = {
        name: numpy_helper.from_array(values.astype(np.float32), name)
        for name, values in (
            ("scale", rng.uniform(0.5, 2.0, CHANNELS)), ("bias", rng.standard_normal(CHANNELS)),
            ("mean", rng.standard_normal(CHANNELS)), ("var", rng.uniform(0.5, 2.0, CHANNELS)),
        )
    }  # fmt: skip
    inputs = [value("x", TensorProto.FLOAT, ["n", CHANNELS, "h", "w"]), value("x6", TensorProto.FLOAT, ["n", 2 * CHANNELS, "h", "w"])]
    per_channel.update(
        (name, numpy_helper.from_array(values.astype(np.float32), name))
        for name, values in (("scale6", rng.uniform(0.5, 2.0, 2 * CHANNELS)), ("bias6", rng.standard_normal(2 * CHANNELS)))
    )
    if not constant_mean:
        del per_channel["mean"]
        inputs.append(value("mean", TensorProto.FLOAT, [CHANNELS]))
    nodes = [
        helper.make_node("BatchNormalization", ["x", "scale", "bias", "mean", "var"], ["bn"], epsilon=1e-3),
        helper.make_node("InstanceNormalization", ["x", "scale", "bias"], ["inorm"], epsilon=1e-4),
        helper.make_node("GroupNormalization", ["x6", "scale6", "bias6"], ["gnorm"], num_groups=2, epsilon=1e-4),
        helper.make_node("GlobalAveragePool", ["bn"], ["avg"]),
        helper.make_node("GlobalMaxPool", ["inorm"], ["max"]),
    ]
    outputs = [value(name, TensorProto.FLOAT, None) for name in ("bn", "inorm", "avg", "max", "gnorm")]
    model = graph_model(nodes, inputs, outputs, per_channel.values())
    model.opset_import[0].version = 21  # GroupNormalization's scale per channel
    return model


@pytest.mark.parametrize("pipeline", [None, "fp16"])
def test_normalization_and_global_pools_match_onnxruntime(pipeline):
    rng = np.random.default_rng(1)
    shapes = ((2, CHANNELS, 5, 7), (1, CHANNELS, 16, 3))
    feeds_list = [
        {"x": rng.standard_normal(shape).astype(np.float32), "x6": rng.standard_normal((shape[0], 2 * CHANNELS, *shape[2:])).astype(np.float32)}
        for shape in shapes
    ]
    for shape, outputs in zip(shapes, runs_like_onnxruntime(_model(), pipeline, feeds_list), strict=True):
        assert outputs["avg"].shape == (shape[0], CHANNELS, 1, 1)


def test_batch_norm_statistics_computed_at_run_time_are_one_located_error():
    with pytest.raises(XhipError, match="BatchNormalization's input_mean must be an initializer") as caught:
        xhip.compile(_model(constant_mean=False), backend="reference")
    assert "\n" not in str(caught.value)
