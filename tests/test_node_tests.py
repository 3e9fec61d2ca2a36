"""The ONNX backend node tests of every supported op, through xhip on the reference backend.

The exact list of passing cases is in node_tests_passing.txt, so a regression and a
newly passing case both fail here; every other case must be a documented exception
(xhip.testing.node_tests.KNOWN_EXCEPTIONS) or skipped for using unsupported ops.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from xhip.testing.node_tests import (
    ACCUMULATING,
    ELEMENTWISE,
    EXACT,
    KNOWN_EXCEPTIONS,
    CaseResult,
    NodeTest,
    collect_node_tests,
    explain,
    mismatch,
    run_node_test,
    run_node_tests,
    summarize,
    supported_ops,
)

PASSING_FILE = Path(__file__).with_name("node_tests_passing.txt")


def _expected_passing() -> list[str]:
    lines = PASSING_FILE.read_text().splitlines()
    return [line for line in lines if line and not line.startswith("#")]


@pytest.fixture(scope="module")
def results() -> dict[str, CaseResult]:
    """Every case of every supported op, compiled once (a few seconds)."""
    return {result.name: result for result in run_node_tests()}


def test_the_passing_list_is_exact(results):
    expected = _expected_passing()
    assert expected == sorted(expected), "keep node_tests_passing.txt sorted"
    passing = sorted(name for name, result in results.items() if result.status == "pass")
    regressed = [f"{n}: {results[n].status}: {results[n].reason}" if n in results else f"{n}: not collected" for n in sorted(set(expected) - set(passing))]
    newly_passing = sorted(set(passing) - set(expected))
    assert not regressed and not newly_passing, (
        f"regressed: {regressed}; newly passing (add them to {PASSING_FILE.name}): {newly_passing}"
    )


def test_every_supported_op_has_a_passing_case(results):
    rows = summarize(results.values())
    assert [row.op_type for row in rows] == list(supported_ops())
    assert [row.op_type for row in rows if row.counts["pass"] == 0] == []


def test_every_other_case_is_a_documented_exception(results):
    unexplained = [f"{r.name}: {r.status}: {r.reason}" for r in results.values() if r.status != "pass" and explain(r) is None]
    assert unexplained == []
    # An exception that no longer matches any failing case is stale.
    failing = [r.name for r in results.values() if r.status in ("fail", "error")]
    stale = [pattern for pattern, _ in KNOWN_EXCEPTIONS if not any(re.fullmatch(pattern, name) for name in failing)]
    assert stale == []


def test_errors_are_one_line_diagnostics(results):
    """No case crashes xhip: every error is an XhipError with a one-line message."""
    crashes = [f"{r.name}: {r.reason}" for r in results.values() if r.internal]
    assert crashes == []
    assert all("\n" not in r.reason and r.reason for r in results.values() if r.status == "error")


def test_cases_using_unsupported_ops_are_skipped(results):
    gelu = results["test_gelu_tanh_1_expanded"]
    assert (gelu.status, gelu.reason) == ("skipped", "uses CastLike, Sum")
    assert results["test_range_int32_type_negative_delta_expanded"].reason == "uses Loop"


def test_axes_inputs_become_constants(results):
    """Reduce/Squeeze/Unsqueeze/Slice axes and CumSum's axis fed as graph inputs are folded."""
    assert results["test_reduce_sum_keepdims_example"].constant_inputs == ("axes",)
    assert results["test_unsqueeze_two_axes"].constant_inputs == ("axes",)
    assert results["test_cumsum_1d"].constant_inputs == ("axis",)
    # Inputs xhip reads at run time stay inputs: Slice bounds, Reshape's shape.
    assert results["test_slice"].constant_inputs == ("axes",)
    assert results["test_reshape_reordered_all_dims"].constant_inputs == ()


def test_expanded_cases_belong_to_their_op():
    cases = {case.name: case for case in collect_node_tests(["Softmax", "LayerNormalization"])}
    assert cases["test_softmax_axis_0_expanded"].op_type == "Softmax"
    assert cases["test_layer_normalization_2d_axis0_expanded_ver18"].op_type == "LayerNormalization"
    assert all(case.op_type in ("Softmax", "LayerNormalization") for case in cases.values())


# ---------------------------------------------------------------------------------
# The comparison can fail
# ---------------------------------------------------------------------------------


def _with_expected(case: NodeTest, transform) -> NodeTest:
    inputs, outputs = case.data_sets[0]
    return NodeTest(case.name, case.op_type, case.model, [(inputs, [transform(np.asarray(o)) for o in outputs])])


@pytest.mark.parametrize(
    "name, transform, reason",
    [
        ("test_add", lambda y: y + np.float32(1e-3), "differs in 60 of 60 elements"),
        ("test_add", lambda y: y.astype(np.float64), "is [3, 4, 5] float32, expected [3, 4, 5] float64"),
        ("test_add_bcast", lambda y: y[:1], "is [3, 4, 5] float32, expected [1, 4, 5] float32"),
        ("test_equal", lambda y: ~y, "differs in 60 of 60 elements"),
        ("test_matmul_2d", lambda y: y * np.float32(1 + 1e-3), "differs in 9 of 9 elements"),
    ],
)
def test_a_wrong_expected_output_fails(name, transform, reason):
    (case,) = [c for c in collect_node_tests() if c.name == name]
    assert run_node_test(case).status == "pass"
    result = run_node_test(_with_expected(case, transform))
    assert result.status == "fail" and reason in result.reason, result.reason


def test_tolerances():
    y = np.array([1.0, -2.0, 3.0], np.float32)
    off_by_ulp = np.nextafter(y, np.float32(np.inf))
    assert mismatch("y", off_by_ulp, y, EXACT) is not None
    assert mismatch("y", off_by_ulp, y, ELEMENTWISE) is None
    assert mismatch("y", y * np.float32(1 + 5e-6), y, ELEMENTWISE) is not None
    assert mismatch("y", y * np.float32(1 + 5e-5), y, ACCUMULATING) is None
    assert mismatch("y", y * np.float32(1 + 5e-4), y, ACCUMULATING) is not None
    nan = np.array([np.nan, 1.0], np.float32)
    assert mismatch("y", nan, nan, EXACT) is None
    assert mismatch("y", np.array([1.0, 1.0], np.float32), nan, ACCUMULATING) is not None
    ints = np.array([1, 2], np.int64)
    assert "differs in 1 of 2" in mismatch("y", np.array([1, 3], np.int64), ints, ACCUMULATING)
