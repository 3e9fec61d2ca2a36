"""The reference runtime: every stage against onnxruntime, deferred/sanitize, input checks."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers import EXECUTION_MODE_IDS, EXECUTION_MODES
from onnx import TensorProto, helper

import xhip
from xhip.api import DEFAULT_PIPELINE, compile_stages, pipeline_passes
from xhip.context import make_context
from xhip.diagnostics import XhipError
from xhip.parsing import parse_module
from xhip.runtime.check import compare, onnxruntime_outputs
from xhip.runtime.executable import Executable
from xhip.testing.models import MODELS, gemm, graph_model, nonzero, value
from xhip.verify import verify_module

REPO = Path(__file__).resolve().parents[1]
ATTENTION = REPO / "examples" / "attention.onnx"
RACE = REPO / "tests" / "runtime_inputs" / "host_scalar_race.mlir"
RNG = np.random.default_rng(1234)


def _check_every_stage(model, feeds) -> None:
    reference = onnxruntime_outputs(model, feeds)
    for name, module, constants in compile_stages(model):
        outputs = Executable(module.clone(), constants=constants).run(feeds)
        result = compare(outputs, reference)
        assert result.passed, f"after {name}: {result.problems}"


@pytest.mark.parametrize(
    "name", ["attention", "attention_batch_zero", "max_4x1_4x8", "nonzero", "slice_from_shape"]
)
def test_every_stage_matches_onnxruntime(name):
    _check_every_stage(*MODELS[name](RNG))


@pytest.mark.parametrize("trans_a, trans_b", [(0, 0), (1, 0), (0, 1), (1, 1)])
def test_gemm_transposes(trans_a, trans_b):
    _check_every_stage(*gemm(RNG, trans_a, trans_b))


def test_data_dependent_and_broadcast_output_shapes():
    model, feeds = nonzero(RNG)
    assert xhip.compile(model).run(feeds)["y"].shape == (2, int(np.sum(feeds["x"] > 0)))
    model, feeds = MODELS["max_4x1_4x8"](RNG)
    assert xhip.compile(model).run(feeds)["y"].shape == (4, 8)


# -- deferred and sanitize: the seed 004 race at the IR level ---------------------------------


def _race(second_offset: int) -> Executable:
    text = RACE.read_text().replace("SECOND_OFFSET", str(second_offset))
    module = parse_module(make_context(), text, "race.mlir")
    verify_module(module)
    return module


RACE_FEEDS = {"arg0": RNG.standard_normal((32, 32)).astype(np.float32), "arg1": RNG.standard_normal((32, 32)).astype(np.float32)}


def _race_outputs(module, **mode) -> tuple[int, int]:
    outputs = Executable(module, **mode).run(RACE_FEEDS)
    return int(outputs["result0"][0]), int(outputs["result1"][0])


def test_shared_slot_is_correct_only_if_work_runs_in_program_order():
    assert _race_outputs(_race(0)) == (7, 9)


def test_deferred_execution_reproduces_the_race():
    # The first kernel runs at the final sync and sees the second store's value.
    assert _race_outputs(_race(0), deferred=True) == (9, 9)


def test_sanitizer_names_both_buffers_of_the_race():
    # Reported where it happens: the second host store lands before the queued copy read the slot.
    with pytest.raises(XhipError) as raised:
        _race_outputs(_race(0), sanitize=True)
    assert str(raised.value) == (
        "race.mlir:21:3: error: sanitizer: host write into '%second (race.mlir:20:3)' bytes [0, 8) "
        "that queued 'race.mlir:17:3' has yet to read through '%first (race.mlir:14:3)' (not synchronized)"
    )


@pytest.mark.parametrize("mode", EXECUTION_MODES, ids=EXECUTION_MODE_IDS)
def test_buffers_kept_apart_pass_in_every_mode(mode):
    assert _race_outputs(_race(256), **mode) == (7, 9)


def test_sanitizer_catches_a_host_read_before_synchronization():
    text = """
    func.func @main_graph(%ctx: !hip.context, %x: memref<1xf32>) -> f32 {
      %c0 = arith.constant 0 : index
      %y = memref.alloc() : memref<1xf32>
      hip.relu(%ctx) ins(%x : memref<1xf32>) outs(%y : memref<1xf32>)
      %v = memref.load %y[%c0] : memref<1xf32>
      func.return %v : f32
    }
    """
    feeds = {"arg0": np.full(1, 3.0, np.float32)}
    module = parse_module(make_context(), text, "early.mlir")
    with pytest.raises(XhipError, match=r"early.mlir:6:\d+: error: sanitizer: host read of '%y .*' bytes \[0, 4\) that queued"):
        Executable(module, sanitize=True).run(feeds)
    # Deferred without the sanitizer: the load sees the poison, not the result.
    assert Executable(parse_module(make_context(), text, "early.mlir"), deferred=True).run(feeds)["result0"] != 3.0
    # A readback synchronizes first, so reading through it is correct in every mode.
    synced = text.replace("memref.load %y[%c0] : memref<1xf32>", "hip.readback_scalar(%ctx, %y) : memref<1xf32> -> f32")
    module = parse_module(make_context(), synced, "synced.mlir")
    assert Executable(module, sanitize=True).run(feeds)["result0"] == 3.0


# -- input validation -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def attention() -> Executable:
    return xhip.compile(ATTENTION)


@pytest.mark.parametrize(
    "feeds, message",
    [
        ({}, "missing input 'X' (expected X: [batch, seq, 64] float32)"),
        ({"X": np.ones((1, 2, 64), np.float32), "Y": np.ones(1)}, "unexpected input 'Y' (the model takes X)"),
        ({"X": np.ones((2, 64), np.float32)}, "input 'X' has rank 2 [2, 64], expected X: [batch, seq, 64] float32"),
        ({"X": np.ones((1, 2, 32), np.float32)}, "input 'X' dim 2 is 32, expected 64"),
        ({"X": np.ones((1, 2, 64), np.float64)}, "input 'X' has dtype float64, expected float32"),
    ],
)
def test_bad_inputs_are_one_line_errors(attention, feeds, message):
    launches = attention.backend.stats.kernel_launches
    with pytest.raises(XhipError) as raised:
        attention.run(feeds)
    assert str(raised.value) == f"error: {message}"
    assert attention.backend.stats.kernel_launches == launches, "nothing may run"


def test_symbolic_dims_must_agree_between_inputs():
    model = graph_model(
        [helper.make_node("Add", ["a", "b"], ["y"])],
        [value("a", TensorProto.FLOAT, ["n"]), value("b", TensorProto.FLOAT, ["n"])],
        [value("y", TensorProto.FLOAT, ["n"])],
    )
    with pytest.raises(XhipError) as raised:
        xhip.compile(model).run({"a": np.ones(3, np.float32), "b": np.ones(4, np.float32)})
    assert str(raised.value) == "error: input 'b' dim 0 is 4 but 'a' dim 0 gives 'n' = 3"


# -- the command line -----------------------------------------------------------------------------


def _xhip_run(*args: str) -> subprocess.CompletedProcess[str]:
    tool = Path(sys.executable).parent / "xhip-run"
    return subprocess.run([str(tool), *args], capture_output=True, text=True, cwd=REPO)


def test_xhip_run_check_passes_on_attention(tmp_path):
    report = tmp_path / "report.json"
    result = _xhip_run(str(ATTENTION), "--shape", "X=2x128", "--check", "--report", str(report))
    assert result.returncode == 0, result.stderr
    assert "check against onnxruntime: passed" in result.stdout
    import json

    data = json.loads(report.read_text())
    assert data["check"]["passed"] is True
    assert data["outputs"] == {"out": {"shape": [2, 128, 64], "dtype": "float32"}}
    assert data["kernel_launches"] == 2  # the Q|K|V projection and the fused attention


def test_xhip_run_check_each_pass_has_a_passing_row_per_pass():
    result = _xhip_run(str(ATTENTION), "--shape", "X=2x128", "--check-each-pass")
    assert result.returncode == 0, result.stdout + result.stderr
    rows = [line.split() for line in result.stdout.splitlines()[1:]]
    assert [row[0] for row in rows] == ["import"] + [p.name for p in pipeline_passes(DEFAULT_PIPELINE)]
    assert all(row[-1] == "pass" for row in rows)


def test_xhip_run_reports_a_bad_shape_in_one_line():
    result = _xhip_run(str(ATTENTION), "--shape", "X=2x3x4x5")
    assert result.returncode == 1
    assert result.stderr.strip() == (
        "error: --shape X=2x3x4x5 fits neither X: [batch, seq, 64] float32 nor its 2 dynamic dims"
    )


def test_report_counts_pool_bytes_and_the_liveness_lower_bound():
    executable = Executable(_race(256))
    executable.run(RACE_FEEDS)
    report = executable.report
    assert report.pool_bytes == 512  # what the IR asked the pool for
    # The two scalars are never live together: one aligned 256-byte slot suffices.
    assert report.merged_lower_bound_bytes == 256
    assert report.kernel_launches == 4 and report.readbacks == 0
    assert report.outputs == {"result0": {"shape": [1], "dtype": "int64"}, "result1": {"shape": [1], "dtype": "int64"}}


def test_out_params_are_sized_from_the_inputs_symbolic_dims():
    from xhip.api import load_module

    executable = Executable(load_module(REPO / "tests" / "runtime_inputs" / "out_param.mlir"))
    assert [s.name for s in executable.inputs] == ["X"] and [s.name for s in executable.out_params] == ["Y"]
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    assert np.array_equal(executable.run({"X": x})["Y"], np.maximum(x, 0))


def _run_main(capsys, *argv: str) -> tuple[int, str, str]:
    from xhip.tools.run import main

    with pytest.raises(SystemExit) as exit_info:
        main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return exit_info.value.code, out, err


def test_xhip_run_save_outputs_writes_exactly_the_path_given(capsys, tmp_path):
    target = tmp_path / "outputs.bin"
    code, _, err = _run_main(capsys, ATTENTION, "--shape", "X=1x4", "--save-outputs", target)
    assert code == 0, err
    assert os.listdir(tmp_path) == ["outputs.bin"]
    with np.load(target) as data:
        assert data["out"].shape == (1, 4, 64)


def test_xhip_run_checks_output_paths_before_running(capsys, tmp_path):
    report, missing = tmp_path / "r.json", tmp_path / "no" / "out.npz"
    code, out, err = _run_main(capsys, ATTENTION, "--shape", "X=1x4", "--report", report, "--save-outputs", missing)
    assert code == 1 and out == ""  # no report table: the run never started
    assert err.strip() == f"{missing}: error: cannot write outputs: no such directory '{missing.parent}'"
    assert os.listdir(tmp_path) == []


def test_xhip_run_writes_no_report_when_saving_outputs_fails(capsys, tmp_path):
    folder = tmp_path / "folder"
    folder.mkdir()
    code, _, err = _run_main(capsys, ATTENTION, "--shape", "X=1x4", "--report", tmp_path / "r.json", "--save-outputs", folder)
    assert code == 1 and err.strip() == f"{folder}: error: cannot write outputs: is a directory"
    assert os.listdir(tmp_path) == ["folder"] and os.listdir(folder) == []


@pytest.mark.parametrize(
    "content, reason",
    [
        (b"X = 1, 2, 3\n", "not an .npz file (numpy.savez writes one)"),
        (None, "damaged .npz file"),
    ],
    ids=["text", "truncated"],
)
def test_xhip_run_bad_inputs_file_is_one_line(capsys, tmp_path, content, reason):
    path = tmp_path / "in.npz"
    if content is None:
        np.savez(path, X=np.zeros((1, 4, 64), np.float32))
        content = path.read_bytes()[:-40]
    path.write_bytes(content)
    code, _, err = _run_main(capsys, ATTENTION, "--inputs", path)
    assert code == 1
    assert err.startswith(f"{path}: error: cannot read inputs: {reason}") and len(err.splitlines()) == 1
    assert "allow_pickle" not in err and "Traceback" not in err


def test_xhip_run_says_a_directory_model_is_a_directory(capsys, tmp_path):
    code, _, err = _run_main(capsys, tmp_path)
    assert code == 1
    assert err.strip() == f"{tmp_path}: error: cannot read input: is a directory, not an .onnx or .mlir file"


def test_xhip_run_version(capsys):
    code, out, _ = _run_main(capsys, "--version")
    assert code == 0 and out.strip() == f"xhip-run {xhip.__version__}"


def test_xhip_run_sanitize_says_it_ran_clean(capsys):
    code, out, err = _run_main(capsys, ATTENTION, "--shape", "X=1x4", "--sanitize")
    assert code == 0, err
    assert "sanitizer: clean" in out.splitlines()


def test_xhip_run_finishes_its_work_when_stdout_closes_early(tmp_path):
    """`xhip-run ... | head -1`: the exit status and the files do not depend on the reader."""
    tool = Path(sys.executable).parent / "xhip-run"
    report, saved = tmp_path / "r.json", tmp_path / "o.npz"
    argv = [str(tool), str(ATTENTION), "--shape", "X=1x4", "--check", "--report", str(report), "--save-outputs", str(saved)]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    process.stdout.close()  # the reader is gone before the tool prints anything
    stderr = process.stderr.read().decode()
    assert process.wait() == 0, stderr
    assert stderr == ""
    assert report.is_file() and saved.is_file()
