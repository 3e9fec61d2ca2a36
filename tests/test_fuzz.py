"""The random-graph fuzzer in CI: 30 hypothesis-drawn graphs (fixed seed) under every pipeline.

Each graph runs at three bindings of its dims (nominal, all ones, a zero extent)
with the sanitizer, against onnxruntime. The shipping pipelines must give no wrong
value and no error; the race experiments must never let a wrong value through
without a sanitizer report, and every wrong value they give in the racy order without
the sanitizer must be reported when it runs. `python benchmarks/fuzz.py --graphs 300`
is the long run.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import onnx
import pytest
from onnx import TensorProto, helper

from xhip.testing.fuzz_runs import (
    RACE_PIPELINES, Campaign, check_graph, cut_at, is_new_finding, known_finding, minimize, regression_record,
    run_campaign, same_failure, unreported_races,
)
from xhip.testing.models import graph_model, value

REPO = Path(__file__).resolve().parents[1]
PIPELINES = sorted(str(p) for p in (REPO / "pipelines").rglob("*.yaml"))
SHIPPING = ("default.yaml", "grouped-packing.yaml")
CI_GRAPHS = 30
CI_SEED = 2
"""A seed whose 30 graphs include item 11's rank-0 reshapes and races that both race
experiments reproduce (3 runs each that the sanitizer reports)."""


@pytest.fixture(scope="module")
def campaign() -> Campaign:
    return run_campaign(CI_GRAPHS, PIPELINES, seed=CI_SEED)


def _lines(failures) -> str:
    return "\n".join(f"{o.pipeline} {dict(o.bindings)} {o.kind}: {o.message} [{g.describe()}]" for g, o in failures[:10])


def test_the_campaign_ran_every_pipeline(campaign):
    summary = campaign.summary()
    assert {Path(p).name for p in PIPELINES} == set(summary)
    assert all(row["graphs"] >= CI_GRAPHS // 2 for row in summary.values()), summary


def _unknown(failures):
    return [(g, o) for g, o in failures if known_finding(o) is None]


@pytest.mark.parametrize("pipeline", SHIPPING)
def test_shipping_pipelines_fail_only_in_known_ways(campaign, pipeline):
    """No wrong value, error or sanitizer report beyond the classes KNOWN_FINDINGS lists."""
    unknown = _unknown(campaign.failures(pipeline))
    assert not unknown, _lines(unknown)


@pytest.mark.parametrize("pipeline", SHIPPING)
def test_shipping_pipelines_give_no_sanitizer_report(campaign, pipeline):
    reports = [(g, o) for g, o in campaign.failures(pipeline) if o.kind == "sanitizer"]
    assert not reports, _lines(reports)


@pytest.mark.parametrize("pipeline", SHIPPING)
def test_shipping_pipelines_new_findings(campaign, pipeline):
    """Failures of classes no item of issue 8 covers: reported as a skip until triaged (not xfailed)."""
    new = [(g, o) for g, o in campaign.failures(pipeline) if is_new_finding(o)]
    if new:
        pytest.skip(f"{len(new)} runs hit untriaged findings: " + "; ".join(sorted({known_finding(o) for _, o in new})))


@pytest.mark.parametrize("pipeline", RACE_PIPELINES)
def test_race_experiments_never_pass_a_wrong_value_silently(campaign, pipeline):
    silent = [(g, o) for g, o in campaign.failures(pipeline) if o.kind == "wrong-value" and not is_new_finding(o)]
    assert not silent, _lines(silent)


def test_race_experiments_report_every_race_that_gives_a_wrong_value(campaign):
    """Run in the racy order without the sanitizer, a graph whose value comes out wrong
    must get a sanitizer report when the sanitizer runs at that shape."""
    assert not campaign.unreported, _lines(campaign.unreported)


def test_a_racy_wrong_value_without_a_report_is_caught():
    """The item 12 race (a host store into bytes a queued Cast has yet to read): its racy
    run is wrong; paired with a sanitized run that reported it, nothing is unreported;
    paired with one that passed (a sanitizer blind to it), the wrong value is."""
    model = onnx.load(REPO / "tests" / "regressions" / "reuse-before-host-scalars-wrong-value-4d4bf758.onnx")
    pipeline = str(REPO / "pipelines" / "experiments" / "reuse-before-host-scalars.yaml")
    dims = [regression_record(model)["dims"]]
    sanitized = check_graph(model, [pipeline], dims)
    assert [o.kind for o in sanitized] == ["sanitizer"]
    assert unreported_races(model, pipeline, sanitized, dims) == []
    blind = [dataclasses.replace(o, kind="pass", message="") for o in sanitized]
    assert [o.kind for o in unreported_races(model, pipeline, blind, dims)] == ["wrong-value"]


def test_check_graph_discards_what_onnxruntime_refuses():
    shape = helper.make_tensor("s", TensorProto.INT64, [2], [4, -1])
    refused = graph_model([helper.make_node("Reshape", ["x", "s"], ["y"])], [value("x", TensorProto.FLOAT, ["n"])],
                          [value("y", TensorProto.FLOAT, None)], [shape])  # fmt: skip
    assert check_graph(refused, PIPELINES[:1], [{"n": 7}]) is None


def test_check_graph_discards_what_onnxruntime_answers_two_ways():
    """Shape of a value computed from NonZero of a scalar: onnxruntime's kernels give
    [1, 1], its Shape folding (from ONNX inference's [0, n]) gives [0, 1]: no reference."""
    zero, axes = helper.make_tensor("zero", TensorProto.FLOAT, [], [0.0]), helper.make_tensor("axes", TensorProto.INT64, [1], [1])
    model = graph_model(
        [helper.make_node("Greater", ["x", "zero"], ["mask"]), helper.make_node("NonZero", ["mask"], ["indices"]),
         helper.make_node("Cast", ["indices"], ["f"], to=TensorProto.FLOAT),
         helper.make_node("ReduceSum", ["f", "axes"], ["sums"], keepdims=1), helper.make_node("Shape", ["sums"], ["shape"])],
        [value("x", TensorProto.FLOAT, [])], [value("shape", TensorProto.INT64, None)], [zero, axes],
    )  # fmt: skip
    assert check_graph(model, PIPELINES[:1], [{}]) is None


def test_minimize_keeps_the_failing_part():
    """A relu chain after the failing squeeze is cut away: the minimum is the one Squeeze node."""
    model = graph_model(
        [helper.make_node("Squeeze", ["A"], ["s"]), helper.make_node("Relu", ["s"], ["r"]), helper.make_node("Neg", ["r"], ["y"])],
        [value("A", TensorProto.FLOAT, [1])], [value("y", TensorProto.FLOAT, None)],
    )
    squeeze_fails = lambda m: any(n.op_type == "Squeeze" for n in m.graph.node)  # noqa: E731 - a predicate, not our compiler
    smallest = minimize(model, squeeze_fails)
    assert [n.op_type for n in smallest.graph.node] == ["Squeeze"]
    assert cut_at(model, "nowhere") is None
    assert not same_failure(str(REPO / "pipelines" / "default.yaml"), {}, "crash")(smallest)
