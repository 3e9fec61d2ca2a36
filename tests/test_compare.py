"""xhip-compare's pieces: the suite format and its errors, the noise rule, the divergence, input shapes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from xhip.compare.diverge import END, first_divergence
from xhip.compare.measure import _input_shapes
from xhip.compare.stats import latency_change, overall
from xhip.compare.suite import SuiteModel, load_suite, parse_shapes, suite_from_command_line
from xhip.diagnostics import XhipError
from xhip.runtime.executable import TensorSpec

REPO = Path(__file__).resolve().parents[1]
TEST_SET_SUITE = REPO / "benchmarks" / "suites" / "test-set.yaml"


def suite_error(tmp_path: Path, text: str) -> str:
    path = tmp_path / "suite.yaml"
    path.write_text(text)
    with pytest.raises(XhipError) as info:
        load_suite(str(path))
    message = str(info.value)
    assert "\n" not in message
    return message.replace(str(path), "suite.yaml")


# --------------------------------------------------------------------------- suites


def test_the_test_set_suite_lists_every_model_at_its_shape_variants():
    from xhip.testing.models import MODELS, SHAPE_VARIANTS

    suite = load_suite(str(TEST_SET_SUITE))
    assert [m.source for m in suite.models] == [f"testset:{name}" for name in MODELS]
    for model in suite.models:
        assert list(model.shapes) == list(SHAPE_VARIANTS[model.label])


def test_suite_paths_are_relative_to_the_suite_file(tmp_path):
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "m.onnx").write_bytes(b"")
    (tmp_path / "models" / "m.npz").write_bytes(b"")
    (tmp_path / "suites").mkdir()
    path = tmp_path / "suites" / "s.yaml"
    path.write_text(
        "tolerance: {rtol: 1.0e-3}\nseed: 7\nmodels:\n"
        "  - {model: ../models/m.onnx, shapes: [{batch: 2, X: [2, 3]}]}\n"
        "  - {model: ../models/m.onnx, inputs: ../models/m.npz}\n"
    )
    suite = load_suite(str(path))
    assert suite.models[0] == SuiteModel(str(tmp_path / "models" / "m.onnx"), ({"batch": 2, "X": (2, 3)},))
    assert suite.models[1].inputs == str(tmp_path / "models" / "m.npz")
    assert (suite.tolerance.rtol, suite.tolerance.atol, suite.seed) == (1e-3, None, 7)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("models: [\n", "suite.yaml:2:1: error: malformed YAML"),
        ("modles: []\n", "suite.yaml:1:1: error: unknown suite key 'modles'; did you mean 'models'?"),
        ("models:\n  - shapes: [{a: 1}]\n", "suite.yaml:2:5: error: a model entry needs 'model'"),
        ("models:\n  - model: testset:atention\n    shapes: [{X: [1]}]\n",
         "suite.yaml:2:12: error: 'testset:atention' is not a test-set model; did you mean 'attention'?"),
        ("models:\n  - model: testset:gemm_trans_a_b\n    shapes: [{m: -1}]\n",
         "suite.yaml:3:18: error: the extent of 'm' (or an input's shape, a list) must be a non-negative integer"),
        ("models:\n  - model: testset:nonzero\n    shapes: [{x: [5, six]}]\n",
         "suite.yaml:3:22: error: an extent of 'x' must be a non-negative integer"),
        ("models:\n  - model: nothere.onnx\n    shapes: [{x: 1}]\n", "suite.yaml:2:12: error: no such model file"),
        ("models:\n  - model: testset:nonzero\n", "suite.yaml:2:5: error: a model entry needs 'shapes'"),
        ("models: []\n", "suite.yaml:1:9: error: 'models' must list at least one model"),
        ("tolerance: {rtol: big}\nmodels: [{model: testset:nonzero, shapes: [{x: [1, 1]}]}]\n", "suite.yaml:1:19: error: 'rtol' must be a non-negative number"),
        ("models:\n  - model: testset:nonzero\n    shapes: [{x: 1}]\n    shape: []\n",
         "suite.yaml:4:5: error: unknown a model entry key 'shape'; did you mean 'shapes'?"),
    ],
)
def test_a_bad_suite_is_one_located_line(tmp_path, text, expected):
    assert suite_error(tmp_path, text).startswith(expected)


def test_command_line_shapes_bind_dim_parameters_or_whole_inputs():
    assert parse_shapes("batch=1,seq=128;X=4x512x64;s=") == ({"batch": 1, "seq": 128}, {"X": (4, 512, 64)}, {"s": ()})
    with pytest.raises(XhipError, match="'seq' is not NAME=EXTENT"):
        parse_shapes("batch=1,seq")
    # A test-set model without --shapes runs at its SHAPE_VARIANTS, another model at its static shape.
    from xhip.testing.models import SHAPE_VARIANTS

    suite = suite_from_command_line(["testset:attention", str(REPO / "examples" / "attention.onnx")], None)
    assert suite.models[0] == SuiteModel("testset:attention", SHAPE_VARIANTS["attention"])
    assert suite.models[1].shapes == ({},)


# --------------------------------------------------------------------------- inputs


SPECS = [
    TensorSpec("X", np.dtype(np.float32), ("batch", "seq", 64), True),
    TensorSpec("mask", np.dtype(np.int64), ("batch", "seq"), True),
]


def test_dim_parameters_and_input_shapes_fix_every_input():
    assert _input_shapes(SPECS, {"batch": 2, "seq": 5}) == {"X": (2, 5, 64), "mask": (2, 5)}
    # An input's whole shape binds its dim parameters for the other inputs.
    assert _input_shapes(SPECS, {"X": (3, 7, 64)}) == {"X": (3, 7, 64), "mask": (3, 7)}


def test_a_shape_that_names_nothing_or_leaves_a_dim_open_is_an_error():
    with pytest.raises(XhipError, match="names 'bacth', which is neither an input nor a dim parameter"):
        _input_shapes(SPECS, {"bacth": 2, "seq": 5})
    with pytest.raises(XhipError, match="does not fix dim 'seq' of input X"):
        _input_shapes(SPECS, {"batch": 2})
    with pytest.raises(XhipError, match="no shape \\(see --shapes\\) does not fix dim 'batch'"):
        _input_shapes(SPECS, {})


# --------------------------------------------------------------------------- noise


def test_latency_is_worse_only_beyond_the_spread_of_the_repetitions():
    fast = [1.00, 1.02, 0.98, 1.01, 0.99]
    assert latency_change(fast, [2.0, 2.1, 1.9, 2.05, 1.95]) == "worse"
    assert latency_change([2.0, 2.1, 1.9, 2.05, 1.95], fast) == "better"
    # Ranges overlap: one slow outlier of A is enough to call it noise.
    assert latency_change([1.0, 1.0, 1.0, 1.0, 2.5], [2.0, 2.1, 1.9, 2.05, 1.95]) == "same"
    # Separated ranges, but the gap (0.05) is smaller than B's interquartile range (0.5).
    assert latency_change(fast, [1.07, 1.5, 2.0, 2.5, 3.0]) == "same"


def test_equal_timings_give_no_false_alarm_over_a_suite_of_rows():
    rng = np.random.default_rng(0)
    alarms = sum(
        latency_change(list(rng.lognormal(0, 0.2, 5)), list(rng.lognormal(0, 0.2, 5))) != "same" for _ in range(2000)
    )
    # The rule's rate is about 1 in 2000 rows (a range test alone: 1 in 125, about 16 here).
    assert alarms <= 4


def test_a_pipeline_that_compiles_to_the_same_ir_has_the_same_latency_whatever_its_samples():
    """A pipeline whose IR is A's after every pass runs A's program: its latency change is
    "same" by construction, not by a noise test that a loaded machine can fail."""
    from xhip.compare.measure import CompiledModel, MeasuredModel, Measurement, Row, model_result
    from xhip.compare.report import row_changes

    def measured(latencies):
        return Measurement(pool_bytes=64, lower_bound_bytes=None, in_place_lower_bound_bytes=None, launches=1, readbacks=0,
                           syncs=0, compile_s=0.1, latency_ms=latencies, check_passed=True)  # fmt: skip

    fast, slow = [1.0, 1.01, 0.99, 1.0, 1.02], [2.0, 2.1, 1.9, 2.05, 1.95]
    stages = (("import", "x\n"), ("cse", "y\n"))
    compiled = [CompiledModel("", None, 0.1, stages), CompiledModel("", None, 0.1, stages), CompiledModel("", None, 0.1, (*stages[:1], ("cse", "z\n")))]
    row = Row("m", "x=1", [measured(fast), measured(slow), measured(slow)])
    result = model_result(SuiteModel("m.onnx"), compiled, MeasuredModel("reference", [row]))
    assert result.divergences[0] is None and result.divergences[1] is not None
    assert row_changes(row, 1)["latency"] == "same"
    assert row_changes(row, 2)["latency"] == "worse"


def test_verdict_words():
    assert overall(["same", "same"]) == "same"
    assert overall(["same", "worse"]) == "worse (1 of 2 rows)"
    assert overall(["better", "worse", "better"]) == "mixed (2 better, 1 worse)"


# --------------------------------------------------------------------------- divergence


def test_the_first_differing_stage_is_named_with_a_diff():
    a = [("import", "x\n"), ("cse", "y\nz\n"), ("dce", "w\n")]
    b = [("import", "x\n"), ("cse", "y\nZ\n"), ("dce", "w\n")]
    divergence = first_divergence(a, b, ("A", "C"))
    assert divergence is not None and divergence.index == 1 and divergence.where == "after pass 1 'cse'"
    assert "--- A after cse" in divergence.diff and "+++ C after cse" in divergence.diff
    assert "-z" in divergence.diff and "+Z" in divergence.diff
    assert first_divergence(a, list(a)) is None


def test_a_removed_pass_diverges_where_the_names_part():
    a = [("import", "x\n"), ("canonicalize", "x\n"), ("cse", "x\n"), ("dce", "x\n")]
    b = [("import", "x\n"), ("canonicalize", "x\n"), ("dce", "x\n")]
    divergence = first_divergence(a, b)
    assert divergence is not None and divergence.where == "at pass 2: 'cse' vs 'dce'"
    shorter = first_divergence(a, a[:3])
    assert shorter is not None and (shorter.index, shorter.candidate_pass) == (3, END)


def test_a_long_changed_line_is_shown_where_it_changes():
    attributes = "x" * 1000
    a = [("import", f"module {{{attributes} size = 256}}\n")]
    b = [("import", f"module {{{attributes} size = 1024}}\n")]
    divergence = first_divergence(a, b)
    assert divergence is not None
    removed = next(line for line in divergence.diff if line.startswith("-") and not line.startswith("---"))
    added = next(line for line in divergence.diff if line.startswith("+") and not line.startswith("+++"))
    assert "size = 256}" in removed and "size = 1024}" in added
    assert len(removed) < 200 and removed.startswith("-...")
