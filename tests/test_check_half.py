"""The check of half-precision models: the yardstick is the model run in float64, half types
included, and a bfloat16 model, which onnxruntime's CPU provider cannot run, is checked
against the float64 run rounded to its outputs' type.

Before, a float16 model's "float64" run was the float16 model itself (only float32 was
widened), and a bfloat16 model could not be checked at all (`Could not find an implementation
for Add(14)`).
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import xhip
from xhip.dtypes import float_info
from xhip.runtime.check import check_outputs, references
from xhip.runtime.check.float64 import to_float64

ml_dtypes = pytest.importorskip("ml_dtypes")
HALF = {"float16": (TensorProto.FLOAT16, np.dtype(np.float16)), "bfloat16": (TensorProto.BFLOAT16, np.dtype(ml_dtypes.bfloat16))}


def _model(element: int, dtype: np.dtype) -> onnx.ModelProto:
    """x [n, 32] @ w [32, 16], + x's row sum, tanh: a GEMM, a reduction and elementwise work."""
    rng = np.random.default_rng(7)
    w = helper.make_tensor("w", element, (32, 16), rng.standard_normal((32, 16)).astype(dtype).tobytes(), raw=True)
    x = helper.make_tensor_value_info("x", element, ["n", 32])
    y = helper.make_tensor_value_info("y", element, ["n", 16])
    axes = helper.make_tensor("axes", TensorProto.INT64, (1,), [1])
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["p"]),
        helper.make_node("ReduceSum", ["x", "axes"], ["s"], keepdims=1),
        helper.make_node("Add", ["p", "s"], ["q"]),
        helper.make_node("Tanh", ["q"], ["y"]),
    ]
    graph = helper.make_graph(nodes, "half", [x], [y], [w, axes])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=10)


@pytest.mark.parametrize("name", sorted(HALF))
def test_the_float64_run_widens_half_types(name):
    element, _ = HALF[name]
    wide = to_float64(_model(element, HALF[name][1]))
    assert wide.graph.initializer[0].data_type == TensorProto.DOUBLE
    assert wide.graph.input[0].type.tensor_type.elem_type == TensorProto.DOUBLE
    assert wide.graph.output[0].type.tensor_type.elem_type == TensorProto.DOUBLE


@pytest.mark.parametrize("name", sorted(HALF))
def test_a_half_model_passes_the_float64_rule_and_a_wrong_one_fails(name):
    element, dtype = HALF[name]
    model = _model(element, dtype)
    feeds = {"x": (np.random.default_rng(1).standard_normal((6, 32)) * 0.2).astype(dtype)}
    refs = references(model, feeds)
    assert refs.float64.outputs is not None and refs.float64.outputs["y"].dtype == np.float64
    outputs = xhip.compile(model, backend="reference").run(feeds)
    assert outputs["y"].dtype == dtype
    result = check_outputs(outputs, refs, "reference")
    assert result.passed, result.summary()
    assert "float64 rule" in result.summary()
    if name == "bfloat16":  # onnxruntime's CPU provider has no bfloat16 Add: the rounded float64 run stands in
        assert "ort32 stands for float64 rounded to the output types" in result.summary()
    # Teeth: 40 ulps of the output's type off in one element fails.
    wrong = outputs["y"].astype(np.float64)
    wrong[0, 0] += 40 * float(float_info(dtype).eps) * max(abs(wrong[0, 0]), 0.5)
    assert not check_outputs({"y": wrong.astype(dtype)}, refs, "reference").passed


def test_xhip_run_checks_a_bfloat16_model(tmp_path, capsys):
    """`xhip-run --check` on a bfloat16 model: before, onnxruntime's refusal ended the run
    (`Could not find an implementation for Add(14)`); now it passes the float64 rule."""
    from xhip.tools.run import main

    path = tmp_path / "bf16.onnx"
    onnx.save(_model(*HALF["bfloat16"]), path)
    with pytest.raises(SystemExit) as done:
        main([str(path), "--backend", "reference", "--shape", "x=5x32", "--check"])
    out = capsys.readouterr().out
    assert done.value.code == 0, out
    assert "check against the float64 run: passed (float64 rule" in out
    assert "ort32 stands for float64 rounded to the output types" in out
