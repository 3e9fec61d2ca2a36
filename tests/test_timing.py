"""xhip-opt --timing: every stage is a row, in order, and the rows add up to the wall time; what compiling costs."""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

from xhip.api import compile_stages, pipeline_passes
from xhip.constants_file import FileParts, checksum
from xhip.pass_runner import VERIFY_CHANGED_ROW, VERIFY_END_ROW
from xhip.timing import CHECKSUM_WAIT_ROW
from xhip.timing import STARTUP_ROW, Timings
from xhip.tools.opt import main

REPO = Path(__file__).resolve().parents[1]
ATTENTION = REPO / "examples" / "attention.onnx"
ROW = re.compile(r"^\s*(?P<ms>\d+\.\d\d)\s+(?P<percent>-?\d+\.\d)\s+(?P<name>.+)$")

VALID = """\
func.func @f(%a: index) -> index {
  %0 = arith.addi %a, %a : index
  func.return %0 : index
}
"""


def _rows(stderr: str) -> list[tuple[str, float]]:
    """(name, ms) of each row of the table, total last."""
    rows = [ROW.match(line) for line in stderr.splitlines()]
    return [(m["name"], float(m["ms"])) for m in rows if m]


def _opt_timing(capsys: pytest.CaptureFixture[str], *argv: str) -> list[tuple[str, float]]:
    with pytest.raises(SystemExit) as exit_info:
        main([*argv, "--timing"])
    err = capsys.readouterr().err
    assert exit_info.value.code == 0, err
    return _rows(err)


def _adds_up(rows: list[tuple[str, float]]) -> bool:
    *parts, (total_name, total) = rows
    return total_name == "total (wall)" and abs(sum(ms for _, ms in parts) - total) <= 0.01 * len(parts)


def test_onnx_rows_are_import_each_pass_verification_output_and_other(capsys, tmp_path):
    rows = _opt_timing(capsys, str(ATTENTION), "--pipeline", "default", "-o", str(tmp_path / "out.mlir"))
    names = [name for name, _ in rows]
    passes = [p.name for p in pipeline_passes(None)]
    assert names == [
        "load pipeline", "import", passes[0], VERIFY_CHANGED_ROW, *passes[1:],
        CHECKSUM_WAIT_ROW, VERIFY_END_ROW, "print", "write output", "other", "total (wall)",
    ]
    assert names.count("cse") == passes.count("cse") == 2  # a repeated pass is a row each time
    assert _adds_up(rows)


def test_mlir_input_rows_are_parse_and_its_verification(capsys, tmp_path):
    source = tmp_path / "in.mlir"
    source.write_text(VALID)
    rows = _opt_timing(capsys, str(source), "-p", "hip-add-context-arg,cse")
    assert [name for name, _ in rows] == [
        "load pipeline", "parse", "verify (parsed input)", "hip-add-context-arg", VERIFY_CHANGED_ROW, "cse",
        VERIFY_END_ROW, "print", "write output", "other", "total (wall)",
    ]
    assert _adds_up(rows)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="start-up time comes from /proc")
def test_a_command_counts_its_start_up(tmp_path):
    source = tmp_path / "in.mlir"
    source.write_text(VALID)
    done = subprocess.run(
        [sys.executable, "-m", "xhip.tools.opt", str(source), "--timing"], capture_output=True, text=True, check=True
    )
    rows = _rows(done.stderr)
    assert rows[0][0] == STARTUP_ROW
    assert rows[0][1] > 0  # the interpreter and xhip's imports ran before main
    assert _adds_up(rows)


PROCESS_COMMAND = """\
import gc, sys
from xhip.tools.opt import COMPILE_GC_THRESHOLD, main
default = gc.get_threshold()
try:
    main(["--list-passes"])
except SystemExit:
    pass
assert gc.get_threshold() == default and gc.get_freeze_count() == 0, "a call with argv leaves the collector alone"
sys.argv = ["xhip-opt", "--list-passes"]
try:
    main()
except SystemExit:
    pass
assert gc.get_threshold() == COMPILE_GC_THRESHOLD
assert gc.get_freeze_count() > 0, "what is left goes with the process, not through the exit-time collection"
"""


def test_only_the_process_command_tunes_the_garbage_collector():
    subprocess.run([sys.executable, "-c", PROCESS_COMMAND], check=True, capture_output=True)


def test_merged_rows_accumulate_in_place():
    timings = Timings()
    timings.add("a", 1.0)
    timings.add("verify", 0.5, merge=True)
    timings.add("b", 2.0)
    timings.add("verify", 0.25, merge=True)
    assert [(row.name, row.seconds) for row in timings.rows] == [("a", 1.0), ("verify", 0.75), ("b", 2.0)]



def test_the_constants_file_keeps_the_weights_own_bytes(tmp_path):
    """No joined copy of the weights: the store holds the dense attributes' bytes; hash and slices see the file."""
    # The seed's three weights as three parts: without onnx-merge-sibling-matmuls, which
    # would store them as one new constant, side by side.
    pipeline = tmp_path / "unmerged.yaml"
    pipeline.write_text(f"extends: {REPO / 'pipelines' / 'default.yaml'}\nname: unmerged\ndescription: d\nremove: [onnx-merge-sibling-matmuls]\n")
    stages = compile_stages(ATTENTION, str(pipeline), stop_after="hip-externalize-constants")
    _, imported, _ = next(stages)
    weights = [op.attributes["value"].data.data for op in imported.walk() if op.name == "onnx.Constant"]
    *_, (_, _, store) = stages
    (data,) = store.files.values()
    assert isinstance(data, FileParts)
    assert any(part is weight for part in data.parts for weight in weights)
    joined = bytes(data)
    assert checksum(data) == hashlib.sha256(joined).hexdigest()
    start = len(data.parts[0]) + len(data.parts[1]) + len(data.parts[2])  # the second constant's offset
    assert data[start : start + len(data.parts[3])] == data.parts[3]
    assert data[1 : len(joined) - 1] == joined[1:-1]  # across parts too
