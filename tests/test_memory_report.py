"""The memory report (`--memory-report FILE.json|.md|.png`, `--report-shape`) of xhip-opt and xhip-run.

The layout a report draws is checked against the independent layout checker
(`xhip.memory.check_layout`) and against what a run on the reference backend
actually used: every pooled view's offset and size.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from xdsl.dialects.builtin import DenseArrayBase, DictionaryAttr, i64

from xhip.api import compile
from xhip.context import make_context
from xhip.diagnostics import XhipError
from xhip.dialects.hip.attributes import PoolBuffers, format_pool_buffers, parse_pool_buffers
from xhip.memory import Buffer, Placement, SizeExpr, check_layout
from xhip.parsing import parse_module
from xhip.passes.pool_allocs import PoolAllocsPass
from xhip.report.formats import report_dict, report_from_dict
from xhip.report.memory import MemoryReport, observed_layout
from xhip.report.plot import report_png
from xhip.runtime.check import random_feeds
from xhip.runtime.buffers import MemRef
from xhip.runtime.executable import Executable
from xhip.tools.opt import main as opt_main
from xhip.tools.run import main as run_main

REPO = Path(__file__).resolve().parents[1]
ATTENTION = REPO / "examples" / "attention.onnx"
GPT2 = REPO / "examples" / "gpt2_2layer.onnx"
SHAPE = {"batch": 4, "seq": 512}
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

# A size the host reads from device data: no report shape determines it.
LOADED_SIZE = """
func.func @main_graph(%ctx: !hip.context,
    %x: memref<?xf32> {onnx.dim_params = "0:n", onnx.name = "X"},
    %count: memref<1xi64> {onnx.name = "count"}) -> (memref<?xf32> {onnx.name = "Y"}) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %a = memref.alloc(%n) : memref<?xf32>
  hip.neg(%ctx) ins(%x : memref<?xf32>) outs(%a : memref<?xf32>)
  %raw = memref.load %count[%c0] : memref<1xi64>
  %k = arith.index_cast %raw : i64 to index
  %b = memref.alloc(%k) : memref<?xf32>
  %head = memref.subview %a[0] [%k] [1] : memref<?xf32> to memref<?xf32, strided<[1]>>
  hip.copy(%ctx) ins(%head : memref<?xf32, strided<[1]>>) outs(%b : memref<?xf32>)
  %y = hip.alloc_output(%ctx, %k) {out_idx = 0 : i64} : memref<?xf32>
  hip.relu(%ctx) ins(%b : memref<?xf32>) outs(%y : memref<?xf32>)
  func.return %y : memref<?xf32>
}
"""


def run_tool(main, capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return exit_info.value.code, out, err


UNFUSED = str(REPO / "pipelines" / "experiments" / "unfused-attention.yaml")
"""The report's fixtures need several buffers: the default fuses the seed attention down to
one (its Q|K|V projection), this keeps the scores."""


def opt(capsys, *argv: object) -> tuple[int, str, str]:
    return run_tool(opt_main, capsys, ATTENTION, "--pipeline", UNFUSED, *argv)


@pytest.fixture(scope="module")
def attention_run():
    """The seed attention compiled without attention fusion and run at batch=4, seq=512."""
    executable = compile(str(ATTENTION), UNFUSED, "reference")
    executable.run(random_feeds(executable.inputs, {"X": (4, 512, 64)}, 0))
    return executable


def _layout_problems(report_at) -> list[str]:
    """check_layout of the report's rectangles, one pool per domain."""
    problems = []
    rectangles = report_at.rectangles()
    for domain, pool in report_at.pool_bytes_of.items():
        mine = [r for r in rectangles if r.domain == domain]
        buffers = [Buffer(r.buffer, r.size, r.first, r.last) for r in mine]
        placement = Placement({r.buffer: SizeExpr.const(r.offset) for r in mine}, SizeExpr.const(pool))
        problems += check_layout(buffers, placement, {}, report_at.function.alignment)
    return problems


def _run_layout(executable) -> list[tuple[int, int]]:
    """(offset, size) of every pooled view of the last run, in program order."""
    views = list(executable.pooled_views.values())
    assert views and all(isinstance(v, MemRef) for v in views)
    return [(v.offset, v.nbytes_spanned) for v in views]


# -- the layout -------------------------------------------------------------------------


def test_seed_attention_rectangles_pass_check_layout_and_are_what_the_run_used(attention_run):
    report = MemoryReport.from_module(attention_run.module)
    (at,) = report.at(SHAPE)  # from the IR's record alone: nothing observed
    png = report_png([at], SHAPE)
    assert png.startswith(PNG_MAGIC)
    rectangles = at.rectangles()
    assert rectangles == report.rectangles(SHAPE)
    assert _layout_problems(at) == []
    assert [(r.offset, r.size) for r in rectangles] == _run_layout(attention_run)
    assert at.pool_bytes == attention_run.report.pool_bytes
    assert at.lower_bound_bytes == attention_run.report.lower_bound_bytes
    assert at.in_place_lower_bound_bytes == attention_run.report.in_place_lower_bound_bytes


def test_layout_check_catches_an_overlap_the_report_would_draw(attention_run):
    """The check above can fail: two co-live buffers moved onto the same bytes."""
    (at,) = MemoryReport.from_module(attention_run.module).at(SHAPE)
    first, second = at.function.buffers[0], at.function.buffers[1]  # the Q|K|V projection, the scores
    assert first.first <= second.last and second.first <= first.last
    at.observed.buffers[second.index] = (at.offset_bytes(first), at.size_bytes(second))
    assert any("overlap" in p for p in _layout_problems(at))


def test_gpt2_ssa_named_dims_are_evaluated_like_the_runtime():
    """gpt2's sizes use %select / %divsi (Reshape targets): the recorded dims rules give
    the sizes and offsets the run used, and the pool it requested."""
    executable = compile(str(GPT2), UNFUSED, "reference")  # the default's views leave no such size
    feeds = random_feeds(executable.inputs, {"input_ids": (2, 16)}, 0)
    executable.run(feeds)
    (at,) = MemoryReport.from_module(executable.module).at(executable.run_symbols)
    assert any(name.startswith("%") for name in at.dims)
    assert [(r.offset, r.size) for r in at.rectangles()] == _run_layout(executable)
    assert at.pool_bytes == executable.report.pool_bytes
    assert at.lower_bound_bytes == executable.report.lower_bound_bytes
    assert _layout_problems(at) == []


def test_a_size_no_shape_determines_stays_an_expression_and_the_png_refuses(tmp_path, capsys):
    source = tmp_path / "loaded.mlir"
    source.write_text(LOADED_SIZE)
    report = tmp_path / "r.json"
    code, _, err = run_tool(opt_main, capsys, source, "-p", "hip-pool-allocs", "-o", tmp_path / "o.mlir",
                            "--memory-report", report, "--report-shape", "n=8")  # fmt: skip
    assert code == 0, err
    buffers = json.loads(report.read_text())["functions"][0]["buffers"]
    assert [b["size_bytes"] for b in buffers] == [32, None]
    assert buffers[1]["size"].startswith("4*%")
    png = tmp_path / "r.png"
    code, _, err = run_tool(opt_main, capsys, source, "-p", "hip-pool-allocs", "-o", tmp_path / "p.mlir",
                            "--memory-report", png, "--report-shape", "n=8")  # fmt: skip
    assert code == 1
    (line,) = err.splitlines()
    assert "buffer #1: its size 4*%" in line and "report shape does not determine" in line
    assert not png.exists() and not (tmp_path / "p.mlir").exists()


def test_a_run_fills_in_what_no_shape_determines(tmp_path):
    """A size the host reads from device data: the run knows it, and the PNG draws it."""
    module = parse_module(make_context(), LOADED_SIZE, "loaded.mlir")
    PoolAllocsPass().apply(make_context(), module)
    executable = Executable(module)
    executable.run({"X": np.arange(8, dtype=np.float32), "count": np.array([3], dtype=np.int64)})
    report = MemoryReport.from_module(module)
    with pytest.raises(XhipError, match="buffer #1: its size 4\\*%"):
        report.rectangles(executable.run_symbols)
    (at,) = report.at(executable.run_symbols, observed_layout(executable))
    assert [(r.domain, r.offset, r.size) for r in at.rectangles()] == [(0, 0, 32), (1, 0, 12)]
    assert at.pool_bytes_of == {0: 256, 1: 256}
    assert _layout_problems(at) == []
    assert report_png([at], executable.run_symbols).startswith(PNG_MAGIC)


# -- formats ------------------------------------------------------------------------------


def test_json_round_trips_and_evaluates_again_at_another_shape(tmp_path, capsys):
    path = tmp_path / "report.json"
    code, _, err = opt(capsys, "-o", tmp_path / "out.mlir", "--memory-report", path, "--report-shape", "batch=4,seq=512")
    assert code == 0, err
    written = json.loads(path.read_text())
    rebuilt = report_from_dict(written)
    assert report_dict(rebuilt, SHAPE) == written
    module = parse_module(make_context(), (tmp_path / "out.mlir").read_text(), "out.mlir")
    other = {"batch": 3, "seq": 7}
    assert report_dict(rebuilt, other) == report_dict(MemoryReport.from_module(module), other)
    (function,) = written["functions"]
    # In-place writes and the run-time planner: the pool is the in-place bound.
    assert function["pool_bytes"] == function["in_place_lower_bound_bytes"] == 5767168
    assert function["pool_over_bound"] == 5767168 / 9961472
    assert function["in_place_lower_bound"] == "768*batch*seq + align_up(4*batch*seq^2, 256)"


def test_json_without_report_shape_has_expressions_and_says_so(tmp_path, capsys):
    path = tmp_path / "report.json"
    code, _, err = opt(capsys, "-o", tmp_path / "out.mlir", "--memory-report", path)
    assert code == 0
    assert err.startswith("note: --memory-report without --report-shape gives expressions only")
    (function,) = json.loads(path.read_text())["functions"]
    # The default pipeline plans offsets at each run's sizes: no shape, no offsets.
    assert function["pool_bytes"] is None and function["pool_size"] == "run-time"
    assert {b["offset"] for b in function["buffers"]} == {"run-time"}
    assert {b["offset_bytes"] for b in function["buffers"]} == {None}


def test_markdown_has_a_row_per_buffer_and_a_summary(tmp_path, capsys):
    path = tmp_path / "report.md"
    code, _, err = opt(capsys, "-o", tmp_path / "out.mlir", "--memory-report", path, "--report-shape", "batch=4,seq=512")
    assert code == 0, err
    lines = path.read_text().splitlines()
    rows = [line for line in lines if line.startswith("| #")]
    # The merged Q|K|V projection, then QK^T, over which the softmax (the scale folded in)
    # writes in place.
    assert len(rows) == 2
    assert rows[1] == "| #1 | 0 | 10..14 | `4*batch*seq^2` | 4194304 | `run-time` | 0 |"
    assert "| pool / bound |  | 0.579 |" in lines
    assert any(line.startswith("| lower bound (in place) |") and line.endswith("| 5767168 |") for line in lines)


def test_xhip_opt_draws_the_png(tmp_path, capsys):
    path = tmp_path / "report.png"
    code, _, err = opt(capsys, "-o", tmp_path / "out.mlir", "--memory-report", path, "--report-shape", "batch=4,seq=512")
    assert code == 0, err
    assert path.read_bytes().startswith(PNG_MAGIC)


def test_xhip_run_reports_what_the_run_used(tmp_path, capsys):
    path, run_report = tmp_path / "memory.json", tmp_path / "run.json"
    code, _, err = run_tool(run_main, capsys, ATTENTION, "--backend", "reference", "--shape", "X=2x40x64",
                            "--memory-report", path, "--report", run_report)  # fmt: skip
    assert code == 0, err
    written, run = json.loads(path.read_text()), json.loads(run_report.read_text())
    assert written["report_shape"] == {"batch": 2, "seq": 40}
    (function,) = written["functions"]
    assert function["pool_bytes"] == run["pool_bytes"]
    assert function["lower_bound_bytes"] == run["lower_bound_bytes"]
    assert all(b["size_bytes"] is not None and b["offset_bytes"] is not None for b in function["buffers"])


def test_observed_layout_is_keyed_by_the_run_function(attention_run):
    observed = observed_layout(attention_run)
    assert list(observed) == ["main_graph"]
    assert list(observed["main_graph"].buffers.values()) == _run_layout(attention_run)
    assert observed["main_graph"].pools == {0: attention_run.report.pool_bytes}


# -- the request: one line, exit 1, nothing written ----------------------------------------


def test_unknown_suffix_is_one_line_before_any_work(tmp_path, capsys):
    output = tmp_path / "out.mlir"
    code, out, err = opt(capsys, "-o", output, "--memory-report", tmp_path / "report.txt")
    assert code == 1 and out == ""
    assert err.splitlines() == [f"{tmp_path / 'report.txt'}: error: --memory-report: unknown format '.txt' (use .json, .md, .png)"]
    assert list(tmp_path.iterdir()) == []


def test_png_without_matplotlib_is_one_line_before_any_work(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # what `import matplotlib` meets where it is not installed
    code, _, err = opt(capsys, "-o", tmp_path / "out.mlir", "--memory-report", tmp_path / "r.png", "--report-shape", "batch=4")
    assert code == 1
    assert err.splitlines() == ["error: a .png memory report needs matplotlib: pip install 'xhip[plot]'"]
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--memory-report", "r.png"], "error: --memory-report r.png needs --report-shape NAME=N,... (e.g. batch=4,seq=512)"),
        (["--memory-report", "r.json", "--report-shape", "batch4"], "error: --report-shape 'batch4' is not NAME=N,... (e.g. batch=4,seq=512)"),
        (["--memory-report", "r.json", "--report-shape", "batch=1,batch=2"], "error: --report-shape gives 'batch' twice"),
        (["--report-shape", "batch=4"], "error: --report-shape goes with --memory-report"),
        (["--memory-report", "r.json", "--report-shape", "batch=4,sqe=8"], "error: --report-shape: 'sqe' is not a symbolic dim of the graph inputs; did you mean 'seq'?"),
        (["--memory-report", "r.json", "--split-input-file"], "error: --memory-report reports one module: it does not apply with --split-input-file"),
    ],
    ids=["png-needs-shape", "bad-shape", "twice", "shape-alone", "unknown-symbol", "split"],
)
def test_request_mistakes_are_one_line(tmp_path, capsys, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    code, out, err = opt(capsys, "-o", "out.mlir", *argv)
    assert code == 1 and out == ""
    assert err.splitlines() == [message]
    assert list(tmp_path.iterdir()) == []


def test_ir_without_a_pool_plan_writes_nothing(tmp_path, capsys):
    code, _, err = run_tool(opt_main, capsys, ATTENTION, "-p", "hip-add-context-arg", "-o", tmp_path / "out.mlir",
                            "--memory-report", tmp_path / "r.md")  # fmt: skip
    assert code == 1
    assert err.splitlines()[-1] == "error: memory report: the IR has no hip.pool_buffers (hip-pool-allocs has not run on it)"
    assert list(tmp_path.iterdir()) == []


def test_xhip_run_checks_the_names_before_the_run(tmp_path, capsys):
    code, out, err = run_tool(run_main, capsys, ATTENTION, "--backend", "reference", "--shape", "X=2x4x64",
                              "--memory-report", tmp_path / "r.json", "--report-shape", "bath=2")  # fmt: skip
    assert code == 1 and out == ""
    assert err.splitlines() == ["error: --report-shape: 'bath' is not a symbolic dim of the graph inputs; did you mean 'batch'?"]
    assert list(tmp_path.iterdir()) == []


def test_report_through_a_symlink_writes_its_target(tmp_path, capsys):
    target = tmp_path / "real.json"
    target.write_text("old\n")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    code, _, err = opt(capsys, "-o", tmp_path / "out.mlir", "--memory-report", link, "--report-shape", "batch=1,seq=2")
    assert code == 0, err
    assert link.is_symlink()
    assert json.loads(target.read_text())["report_shape"] == {"batch": 1, "seq": 2}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.json", "out.constants.bin", "out.mlir", "real.json"]


# -- the record ---------------------------------------------------------------------------


def test_pool_buffers_record_round_trips_and_rejects_what_is_malformed():
    record = PoolBuffers(("256*n", "4"), ("0", "256*n"), ((0, 3), (1, 4)), (0, 0), "builtin.module {}")
    assert parse_pool_buffers(format_pool_buffers(record)) == record
    entries = dict(format_pool_buffers(record).data)
    del entries["offsets"]
    with pytest.raises(ValueError, match="needs sizes and offsets"):
        parse_pool_buffers(DictionaryAttr(entries))
    entries = {**format_pool_buffers(record).data, "intervals": DenseArrayBase.from_list(i64, [0, 3, 1])}
    with pytest.raises(ValueError, match=r"\(first, last\) pairs"):
        parse_pool_buffers(DictionaryAttr(entries))


def test_pool_allocs_records_each_buffer_of_the_plan(attention_run):
    """The record's offsets are the plan's: the static ones read like hip.buffer_offsets."""
    module = parse_module(make_context(), LOADED_SIZE, "loaded.mlir")
    PoolAllocsPass().apply(make_context(), module)
    record = parse_pool_buffers(module.attributes["hip.pool_buffers"].data["main_graph"])  # type: ignore[union-attr]
    assert record.domains == (0, 1) and record.offsets == ("0", "0")
    assert record.sizes[0] == "4*n" and record.dim_rules is None  # %k comes from a load: no rule computes it
    assert list(module.attributes["hip.buffer_domains"].get_values()) == list(record.domains)  # type: ignore[union-attr]
    assert np.all(np.diff([first for first, _ in record.intervals]) > 0)


def test_a_malformed_record_is_one_located_line(tmp_path, capsys):
    compiled = tmp_path / "out.mlir"
    code, _, err = opt(capsys, "-o", compiled)
    assert code == 0, err
    text = compiled.read_text()
    assert text.count('sizes = ["768*batch*seq", ') == 2  # the model's record, then the pool's
    broken = tmp_path / "broken.mlir"
    head, _, tail = text.rpartition('sizes = ["768*batch*seq", ')
    broken.write_text(head + 'sizes = ["256*batch*(seq", ' + tail)
    code, out, err = run_tool(opt_main, capsys, broken, "--memory-report", tmp_path / "r.json", "--report-shape", "seq=1")
    assert code == 1 and out == ""
    (line,) = err.splitlines()
    assert line.startswith(f"{broken}:1:1: error: memory report: bad size expression '256*batch*(seq'")
    assert not (tmp_path / "r.json").exists()
