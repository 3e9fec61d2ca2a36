"""Tile, Clip and Pad with run-time dims, on the reference backend against onnxruntime at two
shapes each (the ONNX backend node tests have static shapes only)."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import xhip
from xhip.diagnostics import XhipError
from xhip.runtime.check import check_outputs, references
from xhip.testing.models import graph_model, value


def _tile_model(repeats: list[int]):
    return graph_model(
        [helper.make_node("Tile", ["x", "repeats"], ["y"])],
        [value("x", TensorProto.FLOAT, ["b", "s", 3])],
        [value("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(np.array(repeats, np.int64), "repeats")],
    )


@pytest.mark.parametrize("repeats", [[2, 1, 3], [1, 3, 1], [1, 1, 1], [3, 2, 0]])
def test_tile_with_runtime_dims_matches_onnxruntime(repeats):
    model = _tile_model(repeats)
    executable = xhip.compile(model, backend="reference")
    rng = np.random.default_rng(sum(repeats))
    for shape in ((2, 5, 3), (1, 7, 3)):
        feeds = {"x": rng.standard_normal(shape).astype(np.float32)}
        outputs = executable.run(feeds)
        assert outputs["y"].shape == tuple(d * r for d, r in zip(shape, repeats))
        result = check_outputs(outputs, references(model, feeds), "reference")
        assert result.passed, result.problems


def test_tile_by_a_runtime_count_matches_onnxruntime():
    """Repeats made from a run-time dim (BLOOM tiles its ALiBi slopes by the batch):
    Tile(slopes [h, 1], [Shape(ids)[0], 1]) at two batches."""
    model = graph_model(
        [
            helper.make_node("Shape", ["ids"], ["shape"], start=0, end=1),
            helper.make_node("Concat", ["shape", "one"], ["repeats"], axis=0),
            helper.make_node("Tile", ["x", "repeats"], ["y"]),
        ],
        [value("x", TensorProto.FLOAT, [4, "s"]), value("ids", TensorProto.INT64, ["b", "s"])],
        [value("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(np.array([1], np.int64), "one")],
    )
    executable = xhip.compile(model, backend="reference")
    rng = np.random.default_rng(3)
    for batch, seq in ((3, 5), (1, 7)):
        feeds = {"x": rng.standard_normal((4, seq)).astype(np.float32), "ids": np.zeros((batch, seq), np.int64)}
        outputs = executable.run(feeds)
        assert outputs["y"].shape == (4 * batch, seq)
        result = check_outputs(outputs, references(model, feeds), "reference")
        assert result.passed, result.problems


def test_tile_repeats_of_another_rank_are_one_line_error():
    # ONNX's shape inference refuses it at import; xhip's own rule (shapes.tile) stands
    # behind it for IR that did not come through the importer.
    with pytest.raises(XhipError, match="(?i)repeats") as caught:
        xhip.compile(_tile_model([2, 2]), backend="reference")
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("bounds", [("lo", "hi"), ("lo", ""), ("", "hi")])
def test_clip_with_runtime_bounds_matches_onnxruntime(bounds):
    model = graph_model(
        [helper.make_node("Clip", ["x", *bounds], ["y"])],
        [value("x", TensorProto.FLOAT, ["n"]), *(value(b, TensorProto.FLOAT, []) for b in bounds if b)],
        [value("y", TensorProto.FLOAT, ["n"])],
    )
    executable = xhip.compile(model, backend="reference")
    rng = np.random.default_rng(len(bounds[0]))
    for n in (5, 64):
        x = rng.standard_normal(n).astype(np.float32)
        x[0] = np.nan  # NaN stays NaN
        feeds = {"x": x, **{b: np.float32(v) for b, v in zip(("lo", "hi"), (-0.5, 0.5)) if b in bounds}}
        feeds = {k: np.asarray(v) for k, v in feeds.items()}
        result = check_outputs(executable.run(feeds), references(model, feeds), "reference")
        assert result.passed, result.problems


@pytest.mark.parametrize("mode, pads", [("constant", [0, 2, -1, 1, 0, 3]), ("reflect", [0, 1, 2, 0, 2, 1]), ("edge", [1, 0, 0, 0, 3, 2]), ("wrap", [0, 4, 1, 0, 1, 1])])
def test_pad_with_runtime_dims_matches_onnxruntime(mode, pads):
    inputs = ["x", "pads"] + (["fill"] if mode == "constant" else [])
    initializers = [numpy_helper.from_array(np.array(pads, np.int64), "pads")]
    initializers += [numpy_helper.from_array(np.array(1.5, np.float32), "fill")] if mode == "constant" else []
    model = graph_model(
        [helper.make_node("Pad", inputs, ["y"], mode=mode)],
        [value("x", TensorProto.FLOAT, ["b", "s", 3])],
        [value("y", TensorProto.FLOAT, None)],
        initializers,
    )
    executable = xhip.compile(model, backend="reference")
    rng = np.random.default_rng(len(mode))
    for shape in ((2, 5, 3), (1, 4, 3)):
        feeds = {"x": rng.standard_normal(shape).astype(np.float32)}
        result = check_outputs(executable.run(feeds), references(model, feeds), "reference")
        assert result.passed, result.problems
