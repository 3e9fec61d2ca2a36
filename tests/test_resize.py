"""Resize with run-time dims, on the reference backend against onnxruntime at two shapes each
(the ONNX backend node tests have static shapes only), through the default and the fp16
pipeline; the resize to another tensor's shape that exporters emit; and the forms xhip
refuses, as one located line."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import xhip
from xhip.diagnostics import XhipError
from xhip.runtime.check import check_outputs, references
from xhip.testing.models import graph_model, value

SCALED = [
    ({"mode": "nearest"}, [1.0, 1.0, 2.0, 2.0]),
    ({"mode": "nearest", "coordinate_transformation_mode": "asymmetric", "nearest_mode": "floor"}, [1.0, 1.0, 2.0, 3.0]),
    ({"mode": "linear"}, [1.0, 1.0, 0.5, 0.25]),
    ({"mode": "linear", "coordinate_transformation_mode": "align_corners"}, [1.0, 1.0, 2.0, 2.0]),
    ({"mode": "linear", "coordinate_transformation_mode": "pytorch_half_pixel"}, [1.0, 1.0, 4.0, 0.5]),
    ({"mode": "cubic", "cubic_coeff_a": -0.5, "exclude_outside": 1}, [1.0, 1.0, 2.0, 0.5]),
]


def _scaled_model(attributes: dict, scales: list[float], spatial: list[object]):
    return graph_model(
        [helper.make_node("Resize", ["x", "", "scales"], ["y"], **attributes)],
        [value("x", TensorProto.FLOAT, ["n", 3, *spatial])],
        [value("y", TensorProto.FLOAT, None)],
        initializers=[numpy_helper.from_array(np.array(scales, np.float32), "scales")],
        opset=19,
    )


def _check(model, executable, shapes, seed: int) -> None:
    rng = np.random.default_rng(seed)
    for shape in shapes:
        feeds = {"x": rng.standard_normal(shape).astype(np.float32)}
        result = check_outputs(executable.run(feeds), references(model, feeds), "reference", executable.compute_dtype)
        assert result.passed, result.problems


@pytest.mark.parametrize("pipeline", [None, "fp16"])
@pytest.mark.parametrize("attributes, scales", SCALED, ids=[f"{a['mode']}-{i}" for i, (a, _) in enumerate(SCALED)])
def test_resize_by_scales_with_runtime_dims_matches_onnxruntime(attributes, scales, pipeline):
    model = _scaled_model(attributes, scales, ["h", "w"])
    executable = xhip.compile(model, pipeline, backend="reference")
    _check(model, executable, [(2, 3, 8, 12), (1, 3, 4, 8)], len(attributes))


def test_resize_to_another_tensors_shape_matches_onnxruntime():
    """sizes = Shape(like): the form torch.onnx gives F.interpolate(x, size=like.shape[2:])."""
    model = graph_model(
        [
            helper.make_node("Shape", ["like"], ["sizes"]),
            helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], mode="linear", coordinate_transformation_mode="pytorch_half_pixel"),
        ],
        [value("x", TensorProto.FLOAT, ["n", 3, "h", "w"]), value("like", TensorProto.FLOAT, ["n", 3, "h2", "w2"])],
        [value("y", TensorProto.FLOAT, None)],
        opset=19,
    )
    executable = xhip.compile(model, backend="reference")
    rng = np.random.default_rng(3)
    for x_shape, like_shape in (((2, 3, 5, 7), (2, 3, 9, 4)), ((1, 3, 8, 8), (1, 3, 8, 13))):
        feeds = {"x": rng.standard_normal(x_shape).astype(np.float32), "like": np.zeros(like_shape, np.float32)}
        outputs = executable.run(feeds)
        assert outputs["y"].shape == like_shape
        result = check_outputs(outputs, references(model, feeds), "reference")
        assert result.passed, result.problems


def test_resize_keeping_the_aspect_ratio_and_cropping_match_onnxruntime():
    sizes = numpy_helper.from_array(np.array([7, 7], np.int64), "sizes")
    roi = numpy_helper.from_array(np.array([0.1, -0.2, 0.8, 1.1], np.float32), "roi")
    model = graph_model(
        [
            helper.make_node("Resize", ["x", "", "", "sizes"], ["a"], axes=[2, 3], keep_aspect_ratio_policy="not_larger"),
            helper.make_node("Resize", ["x", "roi", "", "sizes"], ["b"], axes=[2, 3], mode="linear",
                             coordinate_transformation_mode="tf_crop_and_resize", extrapolation_value=-3.0),
        ],
        [value("x", TensorProto.FLOAT, [2, 3, 4, 6])],
        [value("a", TensorProto.FLOAT, None), value("b", TensorProto.FLOAT, None)],
        initializers=[sizes, roi],
        opset=19,
    )
    executable = xhip.compile(model, backend="reference")
    feeds = {"x": np.random.default_rng(4).standard_normal((2, 3, 4, 6)).astype(np.float32)}
    outputs = executable.run(feeds)
    assert outputs["a"].shape == (2, 3, 5, 7) and outputs["b"].shape == (2, 3, 7, 7)
    assert (outputs["b"] == -3.0).any()  # the crop reaches past x
    result = check_outputs(outputs, references(model, feeds), "reference")
    assert result.passed, result.problems


@pytest.mark.parametrize(
    "attributes, scales",
    [
        ({"mode": "linear", "antialias": 1}, [1.0, 1.0, 0.5, 0.3]),  # 4 and 8 taps
        ({"mode": "linear", "antialias": 1, "coordinate_transformation_mode": "align_corners"}, [1.0, 1.0, 0.6, 2.0]),  # widened, and not
        ({"mode": "cubic", "antialias": 1}, [1.0, 1.0, 0.5, 0.75]),
        ({"mode": "cubic", "antialias": 1, "exclude_outside": 1, "cubic_coeff_a": -0.5}, [1.0, 1.0, 0.4, 1.0]),
    ],
)
def test_antialiased_downscales_match_onnxruntime(attributes, scales):
    """antialias widens a downscaled dim's filter by 1 / scale (its taps follow from the
    scale, compiled in): against onnxruntime at a run-time batch, two batches."""
    model = _scaled_model(attributes, scales, [20, 15])
    executable = xhip.compile(model, backend="reference")
    _check(model, executable, [(2, 3, 20, 15), (1, 3, 20, 15)], seed=len(attributes))


@pytest.mark.parametrize(
    "attributes, scales, spatial, message",
    [
        ({"mode": "nearest"}, [1.0, 1.0, 0.6, 1.0], ["h", 8], "known only at run time"),
        ({"mode": "area"}, [1.0, 1.0, 2.0, 2.0], [8, 8], "Resize mode \"area\" is not one of nearest, linear, cubic"),
        ({"mode": "nearest", "axes": [2, 2]}, [2.0, 2.0], [8, 8], "referred to more than once"),
    ],
)
def test_unsupported_resize_forms_are_one_located_line(attributes, scales, spatial, message):
    with pytest.raises(XhipError) as caught:
        xhip.compile(_scaled_model(attributes, scales, spatial), backend="reference")
    text = str(caught.value)
    assert message in text and "\n" not in text


def test_antialias_to_sizes_over_runtime_extents_is_one_located_line():
    """The taps of an antialiased dim follow from its scale: sizes over a run-time extent leave
    it to run time, so that is refused."""
    model = graph_model(
        [helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], mode="linear", antialias=1)],
        [value("x", TensorProto.FLOAT, ["n", 3, "h", 8])],
        [value("y", TensorProto.FLOAT, None)],
        initializers=[numpy_helper.from_array(np.array([2, 3, 4, 4], np.int64), "sizes")],
        opset=19,
    )
    with pytest.raises(XhipError) as caught:
        xhip.compile(model, backend="reference")
    text = str(caught.value)
    assert "Resize antialias needs each resized dim's scale when compiling" in text and "\n" not in text


def test_resize_with_scales_known_only_at_run_time_is_one_located_line():
    model = graph_model(
        [helper.make_node("Resize", ["x", "", "scales"], ["y"])],
        [value("x", TensorProto.FLOAT, [1, 3, 8, 8]), value("scales", TensorProto.FLOAT, [4])],
        [value("y", TensorProto.FLOAT, None)],
        opset=19,
    )
    with pytest.raises(XhipError) as caught:
        xhip.compile(model, backend="reference")
    assert "Resize scales must be constant" in str(caught.value) and "\n" not in str(caught.value)
