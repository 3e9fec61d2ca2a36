"""xhip-compare end to end on the reference backend: the test set under the shipped pipelines.

Pool numbers are never written here: each row's pool bytes are checked against
what xhip-run reports for the same model, shape and pipeline in the same test
(the default pipeline and the memory passes change under these tests).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import onnx
import pytest

from xhip.compare.cli import main
from xhip.compare.measure import model_source
from xhip.compare.suite import load_suite
from xhip.pipeline import load_pipeline
from xhip.tools.run import run as xhip_run

REPO = Path(__file__).resolve().parents[1]
PIPELINES = REPO / "pipelines"
DEFAULT = PIPELINES / "default.yaml"
SHIPPED = [DEFAULT, PIPELINES / "experiments" / "seed-003.yaml", PIPELINES / "experiments" / "grouped-packing.yaml"]
TEST_SET_SUITE = REPO / "benchmarks" / "suites" / "test-set.yaml"
NO_OP_OPTION = "hip-materialize-host-scalars.max-elements: 32"
"""An option value that changes no IR of the test set (the run checks that it does not)."""


def compare(capsys, *argv: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return exit_info.value.code, out, err


def experiment(folder: Path, name: str, body: str) -> Path:
    path = folder / f"{name}.yaml"
    path.write_text(f"extends: {DEFAULT}\nname: {name}\n{body}\n")
    return path


def table_rows(text: str) -> list[dict[str, str]]:
    """The table's rows as header -> cell (cells are separated by two or more spaces)."""
    lines = text.split("\n\n")[1].splitlines()
    header = re.split(r"\s{2,}", lines[0])
    return [dict(zip(header, re.split(r"\s{2,}", line))) for line in lines[1:]]


@pytest.fixture(scope="module")
def test_set_run(tmp_path_factory):
    """One xhip-compare of the test set under the shipped pipelines and a no-op option (D)."""
    folder = tmp_path_factory.mktemp("compare")
    no_op = experiment(folder, "no-op-option", f"set:\n  {NO_OP_OPTION}")
    report = folder / "report.json"
    result = subprocess.run(
        [sys.executable, "-m", "xhip.compare.cli", "--pipelines", *map(str, SHIPPED), str(no_op),
         "--suite", str(TEST_SET_SUITE), "--backend", "reference", "--jobs", "2", "--report", str(report)],
        capture_output=True, text=True, cwd=folder,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout, result.stderr, json.loads(report.read_text())


def suite_rows() -> list[tuple[str, str, dict]]:
    suite = load_suite(str(TEST_SET_SUITE))
    return [(m.label, m.source, shape) for m in suite.models for shape in m.shapes]


@pytest.mark.parametrize("label, source, shape", suite_rows(), ids=lambda v: v if isinstance(v, str) else None)
def test_pool_column_is_what_xhip_run_reports(test_set_run, tmp_path, label, source, shape):
    stdout, _, _ = test_set_run
    from xhip.compare.suite import SuiteModel, shape_label

    model_path = tmp_path / f"{label}.onnx"
    onnx.save(model_source(SuiteModel(source)), model_path)
    rows = [row for row in table_rows(stdout) if row["model"] == label and row["shape"] == shape_label(shape)]
    assert len(rows) == 1
    shape_flags = [f"--shape={name}={'x'.join(map(str, dims))}" for name, dims in shape.items()]
    for letter, pipeline in zip("ABC", SHIPPED):
        report = tmp_path / f"{letter}.json"
        argv = [str(model_path), "--pipeline", str(pipeline), "--backend", "reference", *shape_flags, "--report", str(report)]
        assert xhip_run(argv) == 0
        assert rows[0][f"{letter} pool"] == str(json.loads(report.read_text())["pool_bytes"])


def test_progress_verdicts_and_every_model_in_the_report(test_set_run):
    stdout, stderr, report = test_set_run
    assert "[9/9]" in stderr
    assert len(report["rows"]) == len(suite_rows())
    for letter, pipeline in zip("BCD", [*SHIPPED[1:], "no-op-option"]):
        assert re.search(rf"^{letter} \S+ vs A: memory \S+.*, latency \S+.*, numerics same", stdout, re.M), letter
    # seed-003 changes the IR from its first pass on: it has no onnx-fold-constants.
    assert re.search(r"^B seed-003, attention: IR first differs at pass 1: 'onnx-fold-constants' vs", stdout, re.M)


def test_an_option_that_changes_no_ir_is_same_on_every_row(test_set_run):
    stdout, _, report = test_set_run
    assert "D no-op-option vs A: memory same, latency same, numerics same" in stdout
    assert all(divergence is None for divergence in report["divergences"]["no-op-option"].values())
    for row in report["rows"]:
        assert row["pipelines"][3]["changes"] == {"memory": "same", "latency": "same", "numerics": "same"}, row


def test_removing_cse_names_the_first_diverging_pass(capsys, tmp_path):
    no_cse = experiment(tmp_path, "no-cse", "remove: ['cse#1', 'cse#2']")
    passes = ["import", *(entry.name for entry in load_pipeline(DEFAULT).passes)]
    index = passes.index("cse")
    code, out, _ = compare(
        capsys, "--pipelines", DEFAULT, no_cse, "--models", "testset:attention", "--shapes", "X=1x128x64",
        "--backend", "reference", "--repeat", "2",
    )
    assert code == 0
    assert f"B no-cse, attention: IR first differs at pass {index}: 'cse' vs '{passes[index + 1]}'" in out
    assert "--- A after cse" in out and f"+++ B after {passes[index + 1]}" in out


def test_fail_on_regression_exits_1_only_when_a_pipeline_is_worse(capsys, tmp_path):
    common = ["--models", "testset:attention", "--shapes", "X=1x128x64", "--backend", "reference", "--repeat", "2"]
    # seed-003 (out-parameters, no in-place writes) needs more pool than the default there.
    worse = SHIPPED[1]
    code, out, err = compare(capsys, "--pipelines", DEFAULT, worse, *common, "--fail-on-regression")
    assert code == 1
    assert "memory worse (1 of 1 rows)" in out
    assert "regression(s) against A, first: B seed-003: attention X=1x128x64 memory" in err
    code, out, _ = compare(capsys, "--pipelines", worse, DEFAULT, *common, "--fail-on-regression")
    assert code == 0 and "memory better (1 of 1 rows)" in out
    code, _, _ = compare(capsys, "--pipelines", DEFAULT, worse, *common)
    assert code == 0


def test_reports_as_json_markdown_and_png(capsys, tmp_path):
    paths = [tmp_path / "r.json", tmp_path / "r.md", tmp_path / "r.png"]
    code, out, _ = compare(
        capsys, "--pipelines", DEFAULT, SHIPPED[1], "--models", "testset:nonzero", "--shapes", "x=5x6;x=1x1",
        "--backend", "reference", "--repeat", "2", *[f"--report={p}" for p in paths],
    )
    assert code == 0
    data = json.loads(paths[0].read_text())
    assert [row["shape"] for row in data["rows"]] == ["x=5x6", "x=1x1"]
    baseline, candidate = data["rows"][0]["pipelines"]
    assert candidate["pool_ratio"] == candidate["pool_bytes"] / baseline["pool_bytes"]
    assert len(baseline["latency_ms"]) == 2 and baseline["check_passed"]
    markdown = paths[1].read_text()
    assert "| model | shape | A pool |" in markdown and "## Verdicts" in markdown
    assert paths[2].read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    for row in table_rows(out):
        assert row["B pool"] == str(data["rows"][[r["shape"] for r in data["rows"]].index(row["shape"])]["pipelines"][1]["pool_bytes"])


def test_models_run_at_dim_parameters_on_the_same_inputs(capsys, tmp_path):
    code, out, _ = compare(
        capsys, "--pipelines", DEFAULT, DEFAULT, "--models", REPO / "examples" / "attention.onnx",
        "--shapes", "batch=2,seq=16", "--backend", "reference", "--repeat", "1", "--report", tmp_path / "r.json",
    )
    assert code == 0
    row = json.loads((tmp_path / "r.json").read_text())["rows"][0]
    assert row["shape"] == "batch=2,seq=16"
    assert row["pipelines"][1]["identical_to_baseline"] and row["pipelines"][1]["max_abs_err_vs_baseline"] == 0.0


@pytest.mark.parametrize(
    "argv, expected",
    [
        (["--pipelines", DEFAULT, "--models", "testset:nonzero"], "error: --pipelines takes 2 to 26 pipelines"),
        (["--pipelines", DEFAULT, DEFAULT, "--suite", TEST_SET_SUITE, "--shapes", "x=1"], "error: --shapes goes with --models"),
        (["--pipelines", DEFAULT, DEFAULT, "--models", "testset:nonzero", "--report", "r.txt"],
         "r.txt: error: --report: cannot tell the format"),
        (["--pipelines", DEFAULT, "nosuch", "--models", "testset:nonzero"], "error: no pipeline file or shipped pipeline named 'nosuch'"),
        (["--pipelines", DEFAULT, DEFAULT, "--models", "testset:nonzero", "--shapes", "r=2,k=3"],
         "error: nonzero: shape 'r=2,k=3' names 'k', which is neither an input nor a dim parameter"),
        (["--pipelines", DEFAULT, DEFAULT, "--models", "testset:nonzero", "--jobs", "0"], "error: argument --jobs: '0' is not at least 1"),
    ],
)
def test_a_bad_command_line_is_one_line_and_exit_1(capsys, tmp_path, monkeypatch, argv, expected):
    monkeypatch.chdir(tmp_path)
    code, out, err = compare(capsys, *argv)
    assert code == 1 and out == ""
    assert err.strip() == err.strip().splitlines()[0] and err.startswith(expected), err
    assert list(tmp_path.iterdir()) == []


def test_help_explains_the_noise_rule_and_the_suite_format(capsys):
    code, out, _ = compare(capsys, "--help")
    assert code == 0
    for fact in ("A B C, C B A", "interquartile range", "testset:NAME", "--fail-on-regression", "pool_bytes"):
        assert fact in out


def test_a_suite_entry_with_an_npz_runs_those_inputs(capsys, tmp_path):
    import numpy as np

    inputs = tmp_path / "x.npz"
    np.savez(inputs, X=np.random.default_rng(3).standard_normal((2, 8, 64)).astype(np.float32))
    model = REPO / "examples" / "attention.onnx"
    suite = tmp_path / "suite.yaml"
    suite.write_text(f"models:\n  - {{model: {model}, inputs: x.npz}}\n")
    code, out, _ = compare(capsys, "--pipelines", DEFAULT, SHIPPED[2], "--suite", suite, "--backend", "reference",
                           "--repeat", "1", "--report", tmp_path / "r.json")
    assert code == 0
    [row] = json.loads((tmp_path / "r.json").read_text())["rows"]
    assert row["shape"] == f"inputs={inputs}"
    report = tmp_path / "run.json"
    argv = [str(model), "--pipeline", str(SHIPPED[2]), "--backend", "reference", "--inputs", str(inputs), "--report", str(report)]
    assert xhip_run(argv) == 0
    assert row["pipelines"][1]["pool_bytes"] == json.loads(report.read_text())["pool_bytes"]
