"""The sanitizer is honest both ways: clean on correct programs, loud on racy ones.

- Views of a buffer (a reshape to or from rank 0 lowered to
  `memref.reinterpret_cast`) are the same logical buffer: reading through one is
  not a "foreign writer".
- A host store into bytes that a queued kernel has yet to read is a race
  (DESIGN.md section 6): it is reported naming both sides.
- A graph output with elements nothing wrote does not pass as valid.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helpers import EXECUTION_MODE_IDS, EXECUTION_MODES
from onnx import TensorProto, helper

import xhip
from xhip.context import make_context
from xhip.diagnostics import XhipError
from xhip.parsing import parse_module
from xhip.runtime.check import onnxruntime_outputs
from xhip.runtime.executable import Executable
from xhip.testing.models import graph_model, value

REPO = Path(__file__).resolve().parents[1]
RACY = REPO / "pipelines" / "experiments" / "reuse-before-host-scalars.yaml"
DEFAULT = REPO / "pipelines" / "default.yaml"
F, I64 = TensorProto.FLOAT, TensorProto.INT64


def _squeeze_to_rank_0():
    model = graph_model([helper.make_node("Squeeze", ["a"], ["y"], name="squeeze")], [value("a", F, [1])], [value("y", F, None)])
    return model, {"a": np.array([3.5], np.float32)}


def _sum_unsqueeze_relu():
    axes = helper.make_tensor("axes", I64, [2], [0, 1])
    model = graph_model(
        [
            helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0, name="sum"),
            helper.make_node("Unsqueeze", ["s", "axes"], ["u"], name="unsqueeze"),
            helper.make_node("Relu", ["u"], ["y"], name="relu"),
        ],
        [value("x", F, ["n"])], [value("y", F, None)], [axes],
    )
    return model, {"x": np.array([1.0, -2.0, 4.5, 0.25], np.float32)}


@pytest.mark.parametrize("case", [_squeeze_to_rank_0, _sum_unsqueeze_relu], ids=["squeeze", "sum_unsqueeze_relu"])
def test_rank_0_reshapes_run_clean_under_the_sanitizer(case):
    model, feeds = case()
    outputs = xhip.compile(model, sanitize=True).run(feeds)
    reference = onnxruntime_outputs(model, feeds)
    np.testing.assert_allclose(outputs["y"], reference["y"], rtol=1e-6)
    assert outputs["y"].shape == reference["y"].shape


def _ratio_of_host_scalars():
    """`Cast(Gather(I, 3)) / Cast(Gather(Shape(X), -3))`: two host-fed scalars, one kernel each."""
    model = graph_model(
        [
            helper.make_node("Gather", ["I", "three"], ["i3"], axis=0, name="pick_i"),
            helper.make_node("Shape", ["X"], ["shape"], name="shape"),
            helper.make_node("Gather", ["shape", "minus_three"], ["d"], axis=0, name="pick_dim"),
            helper.make_node("Cast", ["i3"], ["numerator"], to=F, name="cast_i"),
            helper.make_node("Cast", ["d"], ["denominator"], to=F, name="cast_dim"),
            helper.make_node("Div", ["numerator", "denominator"], ["y"], name="ratio"),
        ],
        [value("I", I64, ["k"]), value("X", F, ["a", "b", "c"])],
        [value("y", F, None)],
        [helper.make_tensor("three", I64, [], [3]), helper.make_tensor("minus_three", I64, [], [-3])],
    )
    return model, {"I": np.array([1, 2, 3, 7], np.int64), "X": np.ones((3, 4, 5), np.float32)}


def test_the_racy_pipeline_really_races_when_work_is_queued():
    model, feeds = _ratio_of_host_scalars()
    assert onnxruntime_outputs(model, feeds)["y"] == pytest.approx(7 / 3)
    assert xhip.compile(model, RACY, deferred=True).run(feeds)["y"] != pytest.approx(7 / 3)


def test_a_host_store_into_bytes_a_queued_kernel_still_reads_is_reported():
    model, feeds = _ratio_of_host_scalars()
    with pytest.raises(XhipError) as raised:
        xhip.compile(model, RACY, sanitize=True).run(feeds)
    message = str(raised.value)
    assert "\n" not in message
    assert "sanitizer: host write into" in message
    assert "that queued ''hip.cast' (onnx node \"cast_i\")' has yet to read" in message


@pytest.mark.parametrize("mode", EXECUTION_MODES, ids=EXECUTION_MODE_IDS)
def test_the_default_pipeline_keeps_the_host_scalars_apart(mode):
    model, feeds = _ratio_of_host_scalars()
    assert xhip.compile(model, DEFAULT, **mode).run(feeds)["y"] == pytest.approx(7 / 3)


NEVER_WRITTEN_OUTPUT = """
func.func @main_graph(%ctx: !hip.context, %x: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>) {
  %written = hip.alloc_output(%ctx) {out_idx = 0 : i64} : memref<4xf32>
  hip.relu(%ctx) ins(%x : memref<4xf32>) outs(%written : memref<4xf32>)
  %forgotten = hip.alloc_output(%ctx) {out_idx = 1 : i64} : memref<4xf32>
  func.return %written, %forgotten : memref<4xf32>, memref<4xf32>
}
"""


def test_an_output_nothing_wrote_is_reported_under_the_sanitizer():
    module = parse_module(make_context(), NEVER_WRITTEN_OUTPUT, "never_written.mlir")
    feeds = {"arg0": np.ones(4, np.float32)}
    Executable(module.clone()).run(feeds)  # without the sanitizer the poison is all it can return
    with pytest.raises(XhipError, match=r"^error: sanitizer: output 'result1' has bytes \[0, 16\) of its 16 that nothing wrote$"):
        Executable(module, sanitize=True).run(feeds)


STALE_READ_OF_A_REUSED_SLOT = """
func.func @main_graph(%ctx: !hip.context, %x: memref<4xf32>, %y: memref<2xf32>) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %bytes = arith.constant 256 : index
  %pool = hip.get_pool(%ctx, %bytes) : memref<?xi8>
  %first = memref.view %pool[%c0][] : memref<?xi8> to memref<4xf32>
  hip.relu(%ctx) ins(%x : memref<4xf32>) outs(%first : memref<4xf32>)
  %second = memref.reinterpret_cast %first to offset: [0], sizes: [2], strides: [1] : memref<4xf32> to memref<2xf32>
  hip.relu(%ctx) ins(%y : memref<2xf32>) outs(%second : memref<2xf32>)
  %out = hip.alloc_output(%ctx) {out_idx = 0 : i64} : memref<4xf32>
  hip.copy(%ctx) ins(%first : memref<4xf32>) outs(%out : memref<4xf32>)
  func.return %out : memref<4xf32>
}
"""


def test_a_slot_taken_over_in_place_is_a_new_logical_buffer():
    # hip-optimize-memrefs reads a dead static slot as another shape through a
    # reinterpret_cast: a read of the old buffer after that is a real conflict.
    module = parse_module(make_context(), STALE_READ_OF_A_REUSED_SLOT, "reuse.mlir")
    feeds = {"arg0": np.ones(4, np.float32), "arg1": np.ones(2, np.float32)}
    with pytest.raises(XhipError, match=r"^reuse.mlir:11:3: error: sanitizer: reading '%first \(reuse.mlir:6:3\)' sees bytes \[0, 8\) of pool .* last written through '%second \(reuse.mlir:8:3\)'$"):
        Executable(module, sanitize=True).run(feeds)
