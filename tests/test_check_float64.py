"""--check against a float64 run: what fp32 can do on a model sets the tolerance.

Before: every float output had to be within rtol 1e-4 / atol 1e-6 of onnxruntime
fp32, which a deep fp32 model misses although nothing is wrong (onnxruntime's own
fp32 result is as far from the exact one as xhip's). Now xhip's error against the
model run in float64 may be K times onnxruntime fp32's own error (plus a few ulps);
a real bug (outputs off by a relative 1e-3) still fails, under the GPU's tolerance too.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import xhip
from xhip.runtime.check import (
    REFERENCE_TOLERANCE, Float64Outputs, check_outputs, compare, float64_outputs, onnxruntime_outputs, references,
    rule_text, to_float64,
)  # fmt: skip
from xhip.testing.models import EXAMPLES, MODELS, SHAPE_VARIANTS, graph_model, value

DEPTH, WIDTH, BATCH = 48, 64, 8


def deep_chain(layers: int = DEPTH, width: int = WIDTH, seed: int = 0) -> onnx.ModelProto:
    """`layers` x (MatMul, Add, LayerNormalization, Tanh), then a MatMul head: random weights."""
    rng = np.random.default_rng(seed)
    nodes, weights, x = [], [], "x"
    for i in range(layers):
        layer = {
            f"w{i}": rng.standard_normal((width, width)) / np.sqrt(width),
            f"b{i}": 0.1 * rng.standard_normal(width),
            f"g{i}": 1 + 0.1 * rng.standard_normal(width),
            f"beta{i}": 0.1 * rng.standard_normal(width),
        }
        weights += [numpy_helper.from_array(a.astype(np.float32), name) for name, a in layer.items()]
        nodes += [
            helper.make_node("MatMul", [x, f"w{i}"], [f"mm{i}"]),
            helper.make_node("Add", [f"mm{i}", f"b{i}"], [f"add{i}"]),
            helper.make_node("LayerNormalization", [f"add{i}", f"g{i}", f"beta{i}"], [f"ln{i}"], axis=-1, epsilon=1e-5),
            helper.make_node("Tanh", [f"ln{i}"], [f"t{i}"]),
        ]
        x = f"t{i}"
    head = (rng.standard_normal((width, width)) / np.sqrt(width)).astype(np.float32)
    weights.append(numpy_helper.from_array(head, "head"))
    nodes.append(helper.make_node("MatMul", [x, "head"], ["y"]))
    return graph_model(nodes, [value("x", TensorProto.FLOAT, ["batch", width])], [value("y", TensorProto.FLOAT, ["batch", width])], weights)


@pytest.fixture(scope="module")
def deep_run():
    """The deep chain run by xhip (reference backend), with both references of the same inputs."""
    model = deep_chain()
    feeds = {"x": np.random.default_rng(1).standard_normal((BATCH, WIDTH)).astype(np.float32)}
    outputs = xhip.compile(model, backend="reference").run(feeds)
    return model, feeds, outputs, references(model, feeds)


def test_deep_fp32_model_fails_the_fixed_rule_and_passes_against_float64(deep_run):
    _, _, outputs, refs = deep_run
    fixed = compare(outputs, refs.onnxruntime)  # the rule before: rtol 1e-4, atol 1e-6 against onnxruntime fp32
    assert not fixed.passed and fixed.problems[0].startswith("output 'y' differs: max abs error ")
    result = check_outputs(outputs, refs, "reference")
    assert result.passed, result.problems
    (y,) = result.outputs
    assert (y.rule, refs.float64.engine, y.within_fixed_tolerance) == ("float64", "onnxruntime-cpu", False)
    # fp32 itself is this far from the exact result after 48 layers, onnxruntime's kernels as much as xhip's.
    assert y.onnxruntime_err_vs_float64 > 1e-6 and y.err_vs_float64 > 1e-6
    assert y.err_vs_float64 <= REFERENCE_TOLERANCE.factor * y.onnxruntime_err_vs_float64 + 1e-5 * y.scale
    assert y.err_vs_onnxruntime == fixed.max_abs_err == result.max_abs_err


@pytest.mark.parametrize("backend", ["reference", "cuda"])
def test_outputs_off_by_a_relative_1e_3_fail_on_every_backends_tolerance(deep_run, backend):
    _, _, outputs, refs = deep_run
    signs = np.random.default_rng(2).choice(np.array([-1, 1], np.float32), outputs["y"].shape)
    wrong = {"y": outputs["y"] * (1 + np.float32(1e-3) * signs)}
    result = check_outputs(wrong, refs, backend)
    assert not result.passed
    (problem,) = result.problems
    assert re.fullmatch(r"output 'y' differs: max abs error \S+ against float64, over the bound \S+ "
                        r"\(onnxruntime fp32's own error \S+\)", problem)  # fmt: skip


def test_the_bound_has_a_floor_of_a_few_ulps_where_onnxruntime_is_exact():
    expected = np.array([1.0, -2.0, 0.5], np.float32)
    exact = Float64Outputs({"y": expected.astype(np.float64)}, "onnxruntime-cpu")
    eps = float(np.finfo(np.float32).eps)
    near = {"y": expected + np.float32(2 * eps)}  # 2 ulps of 1.0, 1 of 2.0: onnxruntime is exact here
    far = {"y": expected + np.float32(64 * eps)}
    assert compare(near, {"y": expected}, exact).passed
    result = compare(far, {"y": expected}, exact)
    assert not result.passed and result.outputs[0].bound == pytest.approx(REFERENCE_TOLERANCE.ulps * eps * 2.0)


def test_without_a_float64_run_the_fixed_rule_decides_and_says_why():
    expected = np.array([1.0, 2.0], np.float32)
    missing = Float64Outputs(None, None, "onnxruntime: no kernel; onnx.reference: no kernel")
    result = compare({"y": expected * np.float32(1 + 1e-5)}, {"y": expected}, missing)
    assert result.passed and result.outputs[0].rule == "fixed"
    assert result.summary().startswith("passed (fixed rule rtol 1e-4 atol 1e-6, no float64 run: onnxruntime: no kernel;")
    assert not compare({"y": expected * np.float32(1 + 1e-3)}, {"y": expected}, missing).passed


def test_integer_outputs_stay_exact_against_onnxruntime():
    expected = np.array([1, 2, 3], np.int64)
    wide = Float64Outputs({"y": expected}, "onnxruntime-cpu")
    result = compare({"y": np.array([1, 2, 4], np.int64)}, {"y": expected}, wide)
    assert result.problems == ("output 'y' differs in 1 of 3 elements",)


# --------------------------------------------------------------------------- the float64 model


def casts_and_constants() -> onnx.ModelProto:
    """Float constants four ways (initializer, ConstantOfShape with and without a value, Constant
    value_float), a Cast to float, and int shape code: y = (x * third + Cast(k) + tenth + zeros) * seventh,
    z = Shape(y) (int64, untouched)."""
    nodes = [
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("ConstantOfShape", ["shape"], ["thirds"], value=helper.make_tensor("v", TensorProto.FLOAT, [1], [1 / 3])),
        helper.make_node("Mul", ["x", "thirds"], ["scaled"]),
        helper.make_node("Cast", ["k"], ["k_float"], to=TensorProto.FLOAT),
        helper.make_node("Add", ["scaled", "k_float"], ["sum"]),
        helper.make_node("Constant", [], ["tenth"], value_float=0.1),
        helper.make_node("Add", ["sum", "tenth"], ["y0"]),
        helper.make_node("ConstantOfShape", ["shape"], ["zeros"]),
        helper.make_node("Add", ["y0", "zeros"], ["y1"]),
        helper.make_node("Mul", ["y1", "seventh"], ["y"]),
        helper.make_node("Shape", ["y"], ["z"]),
    ]
    seventh = helper.make_tensor("seventh", TensorProto.FLOAT, [], [1 / 7])
    return graph_model(
        nodes,
        [value("x", TensorProto.FLOAT, ["n"]), value("k", TensorProto.INT64, ["n"])],
        [value("y", TensorProto.FLOAT, ["n"]), value("z", TensorProto.INT64, [1])],
        [seventh],
    )


def test_to_float64_widens_every_float_and_leaves_int_code_alone():
    wide = to_float64(casts_and_constants())
    onnx.checker.check_model(wide, full_check=True)
    types = {info.name: info.type.tensor_type.elem_type for info in [*wide.graph.input, *wide.graph.output]}
    assert types == {"x": TensorProto.DOUBLE, "k": TensorProto.INT64, "y": TensorProto.DOUBLE, "z": TensorProto.INT64}
    nodes = {node.output[0]: node for node in wide.graph.node}
    assert helper.get_node_attr_value(nodes["k_float"], "to") == TensorProto.DOUBLE
    assert helper.get_node_attr_value(nodes["thirds"], "value").data_type == TensorProto.DOUBLE
    assert numpy_helper.to_array(helper.get_node_attr_value(nodes["zeros"], "value")).dtype == np.float64
    (tenth,) = nodes["tenth"].attribute
    assert tenth.name == "value" and tenth.t.data_type == TensorProto.DOUBLE
    (seventh,) = wide.graph.initializer
    assert numpy_helper.to_array(seventh) == np.float64(np.float32(1 / 7))  # the same value, only wider


def test_the_float64_run_computes_in_float64_on_the_same_values():
    x = np.random.default_rng(3).standard_normal(16).astype(np.float32)
    k = np.arange(16, dtype=np.int64)
    model = casts_and_constants()
    wide = float64_outputs(model, {"x": x, "k": k})
    assert wide.engine == "onnxruntime-cpu"
    f32 = [np.float64(np.float32(c)) for c in (1 / 3, 0.1, 1 / 7)]
    exact = ((x.astype(np.float64) * f32[0] + k) + f32[1]) * f32[2]
    np.testing.assert_array_equal(wide.outputs["y"], exact)
    np.testing.assert_array_equal(wide.outputs["z"], [16])
    fp32 = onnxruntime_outputs(model, {"x": x, "k": k})["y"]
    assert np.max(np.abs(fp32 - exact)) > 0  # the fp32 run rounds where the float64 one does not


ROWS = 100
"""More than the 64 rows np.choose takes, which onnx.reference's own GatherElements is built on."""


def gather_erf_model() -> onnx.ModelProto:
    """y = Erf(GatherElements(x, idx, axis=0)): Erf has no double kernel in onnxruntime (BERT's Gelu)."""
    nodes = [helper.make_node("GatherElements", ["x", "idx"], ["g"], axis=0), helper.make_node("Erf", ["g"], ["y"])]
    inputs = [value("x", TensorProto.FLOAT, [ROWS, 3]), value("idx", TensorProto.INT64, [ROWS, 3])]
    return graph_model(nodes, inputs, [value("y", TensorProto.FLOAT, [ROWS, 3])])


def test_an_op_without_a_double_kernel_in_onnxruntime_runs_in_onnx_reference_in_float64():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((ROWS, 3)).astype(np.float32)
    idx = rng.integers(-ROWS, ROWS, (ROWS, 3))
    wide = float64_outputs(gather_erf_model(), {"x": x, "idx": idx})
    assert wide.engine == "onnx.reference", wide.reason
    from math import erf

    gathered = np.take_along_axis(x.astype(np.float64), idx % ROWS, axis=0)
    np.testing.assert_array_equal(wide.outputs["y"], np.vectorize(erf)(gathered))  # not rounded to float32


def test_a_model_no_engine_runs_in_float64_says_why():
    node = helper.make_node("Frobnicate", ["x"], ["y"], domain="example.custom")
    model = graph_model([node], [value("x", TensorProto.FLOAT, [2])], [value("y", TensorProto.FLOAT, [2])])
    model.opset_import.append(helper.make_opsetid("example.custom", 1))
    wide = float64_outputs(model, {"x": np.ones(2, np.float32)})
    assert wide.outputs is None and wide.engine is None
    assert wide.reason.startswith("onnxruntime: ") and "; onnx.reference: " in wide.reason


# --------------------------------------------------------------------------- through xhip-run


def xhip_run(capsys, *argv: str) -> tuple[int, str]:
    from xhip.tools.run import main

    with pytest.raises(SystemExit) as exit_info:
        main(list(argv))
    out, _ = capsys.readouterr()
    return exit_info.value.code, out


def test_help_states_the_rule(capsys):
    code, out = xhip_run(capsys, "--help")
    assert code == 0
    assert " ".join(rule_text().split()) in " ".join(out.split())


def test_xhip_run_check_of_the_deep_model_passes_and_shows_both_errors(capsys, tmp_path: Path):
    path = tmp_path / "deep.onnx"
    path.write_bytes(deep_chain().SerializeToString())
    code, out = xhip_run(capsys, str(path), "--shape", f"x={BATCH}x{WIDTH}", "--backend", "reference", "--check",
                         "--report", str(tmp_path / "r.json"))  # fmt: skip
    assert code == 0, out
    line = out.splitlines()[0]
    assert re.fullmatch(
        r"check against onnxruntime: passed \(float64 rule, float64 by onnxruntime-cpu; worst output 'y': "
        r"xhip \S+ and ort32 \S+ from float64, bound \S+; xhip vs ort32 \S+ \(outside rtol/atol\)\)", line
    )
    check = json.loads((tmp_path / "r.json").read_text())["check"]
    y = check["outputs"]["y"]
    assert check["passed"] and check["float64_reference"] == "onnxruntime-cpu" and check["rule"] == rule_text()
    assert y["rule"] == "float64" and not y["within_fixed_tolerance"]
    assert 0 < y["err_vs_float64"] <= y["bound"] and y["onnxruntime_err_vs_float64"] > 0 and y["err_vs_onnxruntime"] > 0


@pytest.mark.parametrize("name", sorted(MODELS))
def test_xhip_run_check_of_every_test_set_model_passes(capsys, tmp_path: Path, name: str):
    model, _ = MODELS[name](np.random.default_rng(0))
    path = tmp_path / f"{name}.onnx"
    path.write_bytes(model.SerializeToString())
    shapes = [f"{input_name}={'x'.join(map(str, dims))}" for input_name, dims in SHAPE_VARIANTS[name][0].items()]
    argv = [str(path), *[arg for shape in shapes for arg in ("--shape", shape)], "--backend", "reference"]
    code, out = xhip_run(capsys, *argv, "--check", "--report", str(tmp_path / "r.json"))
    assert code == 0, out
    check = json.loads((tmp_path / "r.json").read_text())["check"]
    assert check["float64_reference"] == "onnxruntime-cpu"
    assert {o["rule"] for o in check["outputs"].values()} <= {"float64", "exact"}
    if len(check["outputs"]) > 1:  # a summary line names the worst output, then a line per output
        assert [line.split(":")[0] for line in out.splitlines()[1:3]] == [f"  output '{n}'" for n in check["outputs"]][:2]


def test_gpt2_2layer_against_float64(capsys, tmp_path: Path):
    """The real torch.onnx export: xhip's error against float64 is within a small factor of onnxruntime's."""
    code, out = xhip_run(capsys, str(EXAMPLES / "gpt2_2layer.onnx"), "--shape", "input_ids=4x64", "--backend", "reference",
                         "--check", "--report", str(tmp_path / "r.json"))  # fmt: skip
    assert code == 0, out
    logits = json.loads((tmp_path / "r.json").read_text())["check"]["outputs"]["logits"]
    assert logits["rule"] == "float64" and 0 < logits["onnxruntime_err_vs_float64"]
    assert logits["err_vs_float64"] <= REFERENCE_TOLERANCE.factor * logits["onnxruntime_err_vs_float64"]


def test_check_each_pass_shows_the_error_against_float64_and_the_bound_per_pass(capsys, tmp_path: Path):
    path = tmp_path / "deep.onnx"
    path.write_bytes(deep_chain(layers=4).SerializeToString())
    code, out = xhip_run(capsys, str(path), "--shape", f"x=2x{WIDTH}", "--check-each-pass")
    assert code == 0, out
    header, *rows = out.splitlines()
    assert header.split() == ["pass", "vs", "ort", "fp32", "vs", "float64", "bound", "result"]
    for row in rows:
        _, vs_ort, vs_float64, bound, verdict = row.split()
        assert verdict == "pass" and 0 < float(vs_float64) <= float(bound) and float(vs_ort) >= 0


def test_a_float_cast_to_an_integer_is_the_fp32_models_integer():
    """0.7f * 10 is 7.0 in fp32 but 6.99999988 in float64: a Cast to int64 truncates them to 7
    and 6. The widened model rounds to fp32 before the Cast, so its integers (T5's position
    buckets) are the fp32 model's, and only float rounding differs."""
    model = graph_model(
        [helper.make_node("Mul", ["x", "ten"], ["scaled"]), helper.make_node("Cast", ["scaled"], ["bucket"], to=TensorProto.INT64)],
        [value("x", TensorProto.FLOAT, [2])],
        [value("bucket", TensorProto.INT64, [2])],
        [numpy_helper.from_array(np.array(10.0, np.float32), "ten")],
    )
    x = np.array([0.7, 0.3], np.float32)
    fp32 = onnxruntime_outputs(model, {"x": x})["bucket"]
    assert fp32.tolist() == [7, 3]
    wide = float64_outputs(model, {"x": x})
    np.testing.assert_array_equal(wide.outputs["bucket"], fp32)
    assert (x.astype(np.float64) * 10).astype(np.int64).tolist() == [6, 3]  # what plain widening would give
