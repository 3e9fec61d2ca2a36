"""Minimized graphs the fuzzer (or an issue) found, each under the pipeline it failed with.

Every tests/regressions/*.onnx records in its metadata (key `xhip.fuzz`) the pipeline,
the dims, how it failed, when an item of issue 8 covers it the item, and what it must
give once fixed (`expect`): run clean under the sanitizer and match onnxruntime, or, for
a real race under a race experiment, a sanitizer report. Every graph must give its
`expect` outcome.
Add one with `python benchmarks/fuzz.py --save-regressions tests/regressions`.
"""

from __future__ import annotations

from pathlib import Path

import onnx
import pytest

from xhip.testing.fuzz_runs import check_graph, regression_record

REPO = Path(__file__).resolve().parents[1]
FILES = sorted((REPO / "tests" / "regressions").glob("*.onnx"))


def _pipeline(name: str) -> Path:
    return next(p for p in (REPO / "pipelines").rglob("*.yaml") if p.name == name)


def test_regressions_are_here():
    assert len(FILES) >= 5


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_regression_runs_clean(path: Path):
    model = onnx.load(path)
    record = regression_record(model)
    outcomes = check_graph(model, [_pipeline(record["pipeline"])], [record["dims"]])
    assert outcomes is not None, "onnxruntime refuses the saved graph"
    assert [o.kind for o in outcomes] == [record["expect"]], [f"{o.kind}: {o.message}" for o in outcomes]
