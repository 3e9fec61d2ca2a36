"""MaxPool, AveragePool, LpPool, Conv (a pointwise one as a matmul, one of one group as im2col
and a matmul, or with the direct-conv experiment the direct kernel) and ConvTranspose with
run-time dims, on the reference backend against onnxruntime at two shapes each (the ONNX
backend node tests have static shapes only), through the default and the fp16 pipeline; and
the forms xhip refuses, as one located line."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import xhip
from xhip.diagnostics import XhipError
from xhip.runtime.check import check_outputs, references
from xhip.testing.models import graph_model, value

CASES = [
    ("MaxPool", {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}),
    ("MaxPool", {"kernel_shape": [2, 2], "dilations": [2, 2], "ceil_mode": 1}),
    ("MaxPool", {"kernel_shape": [3, 2], "auto_pad": "SAME_LOWER"}),
    ("AveragePool", {"kernel_shape": [3, 2], "strides": [2, 1], "pads": [1, 0, 1, 1], "count_include_pad": 1, "ceil_mode": 1}),
    ("AveragePool", {"kernel_shape": [2, 3], "auto_pad": "SAME_UPPER", "strides": [2, 3]}),
    ("AveragePool", {"kernel_shape": [3, 3], "auto_pad": "VALID", "strides": [1, 2]}),
    ("LpPool", {"kernel_shape": [2, 3], "p": 3, "pads": [1, 0, 0, 1], "strides": [2, 2]}),
]


def _pool_model(op: str, attributes: dict, spatial: list[object] | None = None, outputs: int = 1):
    names = ["y", "indices"][:outputs]
    return graph_model(
        [helper.make_node(op, ["x"], names, **attributes)],
        [value("x", TensorProto.FLOAT, ["n", 3, *(spatial or [9, 11])])],
        [value(name, TensorProto.FLOAT if name == "y" else TensorProto.INT64, None) for name in names],
        opset=19,
    )


@pytest.mark.parametrize("pipeline", [None, "fp16"])
@pytest.mark.parametrize("op, attributes", CASES, ids=[f"{op}-{i}" for i, (op, _) in enumerate(CASES)])
def test_pooling_with_a_runtime_batch_matches_onnxruntime(op, attributes, pipeline):
    model = _pool_model(op, attributes)
    executable = xhip.compile(model, pipeline, backend="reference")
    rng = np.random.default_rng(len(attributes))
    for batch in (2, 1):
        feeds = {"x": rng.standard_normal((batch, 3, 9, 11)).astype(np.float32)}
        result = check_outputs(executable.run(feeds), references(model, feeds), "reference", executable.compute_dtype)
        assert result.passed, result.problems


def test_pooling_with_runtime_spatial_dims_matches_onnxruntime():
    model = _pool_model("AveragePool", {"kernel_shape": [3, 2], "strides": [2, 2], "pads": [1, 0, 0, 1]}, ["h", "w"])
    executable = xhip.compile(model, backend="reference")
    rng = np.random.default_rng(5)
    for shape in ((2, 3, 9, 11), (1, 3, 4, 6)):
        feeds = {"x": rng.standard_normal(shape).astype(np.float32)}
        outputs = executable.run(feeds)
        assert outputs["y"].shape == (shape[0], 3, (shape[2] + 1 - 3) // 2 + 1, (shape[3] + 1 - 2) // 2 + 1)
        result = check_outputs(outputs, references(model, feeds), "reference")
        assert result.passed, result.problems


@pytest.mark.parametrize(
    "op, attributes, spatial, outputs, message",
    [
        ("MaxPool", {"kernel_shape": [2, 2]}, None, 2, "MaxPool's Indices output is not supported"),
        ("AveragePool", {"kernel_shape": [2, 2], "auto_pad": "SAME_UPPER", "dilations": [2, 1]}, None, 1, "with dilations [2, 1] is not supported"),
        ("AveragePool", {"kernel_shape": [2, 2], "auto_pad": "SAME_UPPER"}, ["h", 11], 1, "needs static spatial extents"),
        ("MaxPool", {"kernel_shape": [2, 2], "ceil_mode": 1}, ["h", 11], 1, "ceil_mode needs static spatial extents"),
        ("AveragePool", {"kernel_shape": [2, 2], "count_include_pad": 2}, None, 1, "count_include_pad must be 0 or 1"),
    ],
)
def test_unsupported_pooling_forms_are_one_located_line(op, attributes, spatial, outputs, message):
    with pytest.raises(XhipError) as caught:
        xhip.compile(_pool_model(op, attributes, spatial, outputs), backend="reference")
    text = str(caught.value)
    assert message in text and "\n" not in text


CONVS = [
    ({"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}, (4, 3, 3, 3), True, 1),
    ({"strides": [2, 1], "pads": [1, 0, 0, 1], "dilations": [1, 2]}, (6, 1, 3, 2), False, 3),  # depthwise
    ({"auto_pad": "SAME_UPPER", "strides": [2, 2]}, (4, 3, 3, 3), True, 1),
]


def _conv_model(attributes: dict, w_shape: tuple[int, ...], bias: bool, group: int, spatial: list[object] | None = None):
    rng = np.random.default_rng(sum(w_shape))
    initializers = [numpy_helper.from_array(rng.standard_normal(w_shape).astype(np.float32), "w")]
    if bias:
        initializers.append(numpy_helper.from_array(rng.standard_normal(w_shape[0]).astype(np.float32), "b"))
    return graph_model(
        [helper.make_node("Conv", ["x", "w", *(["b"] if bias else [])], ["y"], group=group, **attributes)],
        [value("x", TensorProto.FLOAT, ["n", 3, *(spatial or [9, 11])])],
        [value("y", TensorProto.FLOAT, None)],
        initializers,
        opset=19,
    )


def _lowered_as(executable, group: int, pipeline: str | None) -> None:
    """A Conv of one group is hip.im2col and a matmul unless the pipeline is direct-conv; a
    grouped one is always hip.conv."""
    ops = {op.name for op in executable.module.walk()}
    as_matmul = group == 1 and pipeline != "direct-conv"
    assert ("hip.im2col" in ops and "hip.matmul" in ops) == as_matmul
    assert ("hip.conv" in ops) != as_matmul


@pytest.mark.parametrize("pipeline", [None, "fp16", "direct-conv"])
@pytest.mark.parametrize("attributes, w_shape, bias, group", CONVS, ids=["padded-bias", "depthwise-dilated", "same-upper"])
def test_conv_with_a_runtime_batch_matches_onnxruntime(attributes, w_shape, bias, group, pipeline):
    model = _conv_model(attributes, w_shape, bias, group)
    executable = xhip.compile(model, pipeline, backend="reference")
    _lowered_as(executable, group, pipeline)
    rng = np.random.default_rng(group)
    for batch in (2, 1):
        feeds = {"x": rng.standard_normal((batch, 3, 9, 11)).astype(np.float32)}
        result = check_outputs(executable.run(feeds), references(model, feeds), "reference", executable.compute_dtype)
        assert result.passed, result.problems


@pytest.mark.parametrize("pipeline", [None, "direct-conv"])
def test_conv_with_runtime_spatial_dims_matches_onnxruntime(pipeline):
    model = _conv_model({"strides": [1, 2], "pads": [0, 1, 2, 1]}, (2, 3, 2, 3), True, 1, ["h", "w"])
    executable = xhip.compile(model, pipeline, backend="reference")
    _lowered_as(executable, 1, pipeline)
    rng = np.random.default_rng(8)
    for shape in ((2, 3, 9, 11), (1, 3, 3, 4)):
        feeds = {"x": rng.standard_normal(shape).astype(np.float32)}
        outputs = executable.run(feeds)
        assert outputs["y"].shape == (shape[0], 2, shape[2] + 2 - 2 + 1, (shape[3] + 2 - 3) // 2 + 1)
        result = check_outputs(outputs, references(model, feeds), "reference")
        assert result.passed, result.problems


@pytest.mark.parametrize("pipeline", [None, "fp16"])
@pytest.mark.parametrize("bias", [True, False])
def test_a_pointwise_conv_is_a_matmul_and_matches_onnxruntime(bias, pipeline):
    """1x1, stride 1, no padding, one group: W [M, C] times x viewed as [N, C, H * W] (no
    window kernel), at a run-time batch and run-time spatial dims."""
    model = _conv_model({}, (5, 3, 1, 1), bias, 1, ["h", "w"])
    executable = xhip.compile(model, pipeline, backend="reference")
    ops = {op.name for op in executable.module.walk()}
    assert "hip.matmul" in ops and "hip.conv" not in ops
    rng = np.random.default_rng(9)
    for shape in ((2, 3, 9, 11), (1, 3, 4, 1)):
        feeds = {"x": rng.standard_normal(shape).astype(np.float32)}
        outputs = executable.run(feeds)
        assert outputs["y"].shape == (shape[0], 5, *shape[2:])
        result = check_outputs(outputs, references(model, feeds), "reference", executable.compute_dtype)
        assert result.passed, result.problems


def test_conv_whose_channels_do_not_match_its_groups_is_one_located_line():
    model = _conv_model({}, (4, 2, 3, 3), False, 1)  # x has 3 channels, W takes 2 per group of 1
    with pytest.raises(XhipError) as caught:
        xhip.compile(model, backend="reference")
    assert "\n" not in str(caught.value) and "channels" in str(caught.value)


CONV_TRANSPOSES = [
    ({"strides": [2, 2], "pads": [1, 0, 0, 1], "output_padding": [1, 0]}, (3, 4, 3, 2), True, 1),
    ({"strides": [1, 2], "dilations": [2, 1], "group": 3}, (3, 2, 2, 3), False, 3),
    ({"strides": [2, 3], "auto_pad": "SAME_UPPER"}, (3, 2, 3, 3), True, 1),
    ({"strides": [3, 2], "output_shape": [28, 24]}, (3, 2, 3, 3), False, 1),
]


def _conv_transpose_model(attributes: dict, w_shape: tuple[int, ...], bias: bool, spatial: list[object] | None = None):
    rng = np.random.default_rng(sum(w_shape) + 1)
    initializers = [numpy_helper.from_array(rng.standard_normal(w_shape).astype(np.float32), "w")]
    if bias:
        initializers.append(numpy_helper.from_array(rng.standard_normal(w_shape[1] * attributes.get("group", 1)).astype(np.float32), "b"))
    return graph_model(
        [helper.make_node("ConvTranspose", ["x", "w", *(["b"] if bias else [])], ["y"], **attributes)],
        [value("x", TensorProto.FLOAT, ["n", 3, *(spatial or [9, 11])])],
        [value("y", TensorProto.FLOAT, None)],
        initializers,
        opset=19,
    )


@pytest.mark.parametrize("pipeline", [None, "fp16"])
@pytest.mark.parametrize("attributes, w_shape, bias, group", CONV_TRANSPOSES, ids=["cropped-bias", "grouped-dilated", "same-upper", "output-shape"])
def test_conv_transpose_with_a_runtime_batch_matches_onnxruntime(attributes, w_shape, bias, group, pipeline):
    if group > 1 and pipeline is not None:
        # onnx.reference fails on grouped ConvTranspose (a reshape error), so the half rule has
        # no float64 run to measure ulps from; the float32 run is checked against onnxruntime.
        pytest.skip("no float64 reference for grouped ConvTranspose")
    model = _conv_transpose_model(attributes, w_shape, bias)
    executable = xhip.compile(model, pipeline, backend="reference")
    rng = np.random.default_rng(group + 10)
    for batch in (2, 1):
        feeds = {"x": rng.standard_normal((batch, 3, 9, 11)).astype(np.float32)}
        result = check_outputs(executable.run(feeds), references(model, feeds), "reference", executable.compute_dtype)
        assert result.passed, result.problems


def test_conv_transpose_with_runtime_spatial_dims_matches_onnxruntime():
    model = _conv_transpose_model({"strides": [2, 1], "pads": [0, 1, 1, 0]}, (3, 2, 3, 2), True, ["h", "w"])
    executable = xhip.compile(model, backend="reference")
    rng = np.random.default_rng(12)
    for shape in ((2, 3, 9, 11), (1, 3, 3, 4)):
        feeds = {"x": rng.standard_normal(shape).astype(np.float32)}
        outputs = executable.run(feeds)
        assert outputs["y"].shape == (shape[0], 2, 2 * (shape[2] - 1) + 3 - 1, shape[3] - 1 + 2 - 1)
        result = check_outputs(outputs, references(model, feeds), "reference")
        assert result.passed, result.problems
