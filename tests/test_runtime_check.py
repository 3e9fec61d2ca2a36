"""xhip.runtime.check: random feeds, the onnxruntime reference, and the comparison.

Before: a NaN in onnxruntime's own output failed every check (Sqrt of random
inputs could not pass), feeds were drawn as float64 first (a float32 input asked for twice its size
again, and a huge `--shape` started allocating), and onnxruntime's refusal was
a traceback.
"""

from __future__ import annotations

import re
import tracemalloc
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from xhip.diagnostics import XhipError
from xhip.runtime.check import compare, onnxruntime_outputs, random_feeds
from xhip.runtime.executable import TensorSpec


def spec(name: str, dtype, shape) -> TensorSpec:
    return TensorSpec(name, np.dtype(dtype), tuple(shape), False)


# --------------------------------------------------------------------------- compare


def test_nan_where_the_reference_is_nan_passes_and_is_counted():
    expected = np.array([np.nan, 1.0, np.nan, 2.0], np.float32)
    result = compare({"y": expected.copy()}, {"y": expected})
    assert result.passed and result.problems == ()
    (output,) = result.outputs
    assert output.matched_nan == 2 and output.err_vs_onnxruntime == 0.0
    assert "NaN where ort32 is NaN in 2 of 4" in output.describe()


def test_nan_moved_to_another_position_fails():
    expected = np.array([np.nan, 1.0], np.float32)
    got = np.array([1.0, np.nan], np.float32)
    result = compare({"y": got}, {"y": expected})
    assert result.problems == (
        "output 'y' is NaN in 1 of 2 elements where onnxruntime is not",
        "output 'y' is not NaN in 1 of 2 elements where onnxruntime is",
    )


def test_nan_where_the_reference_is_finite_fails():
    expected = np.ones(4, np.float32)
    got = expected.copy()
    got[1] = np.nan
    result = compare({"y": got}, {"y": expected})
    assert result.problems == ("output 'y' is NaN in 1 of 4 elements where onnxruntime is not",)


@pytest.mark.parametrize(("ours", "label"), [(-np.inf, "+Inf"), (1.0, "+Inf")])
def test_infinities_must_match_exactly(ours: float, label: str):
    expected = np.array([np.inf, 2.0], np.float32)
    got = np.array([ours, 2.0], np.float32)
    result = compare({"y": got}, {"y": expected})
    assert not result.passed
    assert f"output 'y' is not {label} in 1 of 2 elements where onnxruntime is" in result.problems


def test_matching_infinities_pass_and_are_not_counted_as_error():
    values = np.array([np.inf, -np.inf, 1.5], np.float32)
    result = compare({"y": values.copy()}, {"y": values})
    assert result.passed and result.max_abs_err == 0.0


def test_finite_difference_is_still_measured():
    result = compare({"y": np.array([1.0, 2.5], np.float32)}, {"y": np.array([1.0, 2.0], np.float32)})
    assert not result.passed and result.max_abs_err == pytest.approx(0.5)


# --------------------------------------------------------------------------- random feeds


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.bool_, np.int8, np.int64, np.uint32])
def test_random_feeds_are_drawn_in_the_inputs_dtype(dtype):
    feeds = random_feeds([spec("x", dtype, (64, 32))], {}, seed=1)
    x = feeds["x"]
    assert x.dtype == np.dtype(dtype) and x.shape == (64, 32)
    if np.issubdtype(x.dtype, np.integer):
        assert x.min() >= 1 and x.max() <= 7
    if x.dtype == np.bool_:
        assert 0 < x.sum() < x.size


def test_random_float32_feed_needs_no_float64_copy():
    shape = (1024, 1024)
    tracemalloc.start()
    try:
        feeds = random_feeds([spec("x", np.float32, shape)], {}, seed=0)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert feeds["x"].nbytes == 4 << 20
    assert peak < 1.1 * feeds["x"].nbytes  # drawing as float64 first peaked at 3x


def test_input_larger_than_memory_is_refused_before_allocation():
    with pytest.raises(XhipError) as info:
        random_feeds([spec("x", np.float32, ("n", 1024))], {"x": (2**31, 1024)}, seed=0)
    message = str(info.value)
    assert message.startswith("error: random input x [2147483648, 1024] float32 needs 8 TiB, more than the ")
    assert message.endswith(" of memory available")


def test_inputs_over_an_explicit_cap_count_together():
    specs = [spec("a", np.int64, (4,)), spec("b", np.float32, (1024,))]
    with pytest.raises(XhipError) as info:
        random_feeds(specs, {}, seed=0, max_bytes=4096)
    assert str(info.value) == (
        "error: random input b [1024] float32 needs 4 KiB (4.03 KiB with the inputs before it), more than the limit of 4 KiB"
    )


# --------------------------------------------------------------------------- onnxruntime


def relu_model() -> onnx.ModelProto:
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def test_onnxruntime_refusing_the_model_is_one_line(tmp_path: Path):
    model = relu_model()
    model.ir_version = 99
    path = tmp_path / "future.onnx"
    path.write_bytes(model.SerializeToString())
    with pytest.raises(XhipError) as info:
        onnxruntime_outputs(path, {"x": np.ones(2, np.float32)})
    message = str(info.value)
    assert message.startswith(f"{path}: error: onnxruntime cannot load the model: ")
    assert "failed: Unsupported model IR version: 99" in message
    assert "\n" not in message and "[ONNXRuntimeError]" not in message and ".cc:" not in message


def test_onnxruntime_refusing_the_inputs_is_one_line():
    with pytest.raises(XhipError) as info:
        onnxruntime_outputs(relu_model(), {"x": np.ones(2, np.float64)})
    message = str(info.value)
    assert message.startswith("error: onnxruntime cannot run the model on these inputs: ")
    assert "\n" not in message


# --------------------------------------------------------------------------- through xhip-run


def unary_model(op_type: str, path: Path, ir_version: int | None = None) -> Path:
    graph = helper.make_graph(
        [helper.make_node(op_type, ["x"], ["y"], name="op")],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 4])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    if ir_version is not None:
        model.ir_version = ir_version
    path.write_bytes(model.SerializeToString())
    return path


def xhip_run(capsys, *argv: str) -> tuple[int, str, str]:
    from xhip.tools.run import main

    with pytest.raises(SystemExit) as exit_info:
        main(list(argv))
    out, err = capsys.readouterr()
    return exit_info.value.code, out, err


def test_check_of_a_model_whose_reference_has_nan_passes_and_says_where(capsys, tmp_path: Path):
    # Sqrt of normal random inputs: onnxruntime itself gives NaN for the negative ones, and so does xhip.
    code, out, _ = xhip_run(capsys, str(unary_model("Sqrt", tmp_path / "sqrt.onnx")), "--shape", "x=8x4", "--check")
    assert code == 0
    assert out.startswith("check against onnxruntime: passed (float64 rule, float64 by onnxruntime-cpu; worst output 'y': ")
    assert re.search(r"; NaN where ort32 is NaN in \d+ of 32\)\n", out)


def test_random_input_beyond_memory_is_one_line_before_anything_is_allocated(capsys, tmp_path: Path):
    model = unary_model("Relu", tmp_path / "relu.onnx")
    code, _, err = xhip_run(capsys, str(model), "--shape", f"x={2**60}x4")
    assert code == 1
    assert err.startswith(f"error: random input x [{2**60}, 4] float32 needs 16 EiB, more than the ")
    assert err.count("\n") == 1


def test_onnxruntime_refusal_under_check_is_one_line(capsys, tmp_path: Path):
    model = unary_model("Relu", tmp_path / "future.onnx", ir_version=99)
    code, _, err = xhip_run(capsys, str(model), "--shape", "x=2x4", "--check")
    assert code == 1
    assert err.startswith(f"{model}: error: onnxruntime cannot load the model: ")
    assert err.count("\n") == 1 and "Traceback" not in err


def test_shape_flag_text_is_shortened_in_its_error():
    from xhip.runtime.check import parse_shape

    with pytest.raises(XhipError) as info:
        parse_shape("x=" + "9" * 300 + "y")
    assert len(str(info.value)) < 300 and "... (303 characters)" in str(info.value)
