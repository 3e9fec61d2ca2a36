"""The command lines under faults (issue 21, the CLI part): kills, full devices, signals, hostile input.

A generated fault suite: every model is made here with onnx.helper, in tmp_path.

- pair: `xhip-opt -o out.mlir` commits the IR and its constants file as one: SIGKILL at
  seeded random points of a compile with a 200 MB constants file, and at each rename of
  the commit, leaves the old pair or the new one (xhip-run accepts it), and the next
  successful run leaves no temp file of that output (and touches no one else's file);
- full: stdout and -o on /dev/full, a full 1 MiB tmpfs for -o, constants and reports:
  one located line, exit 1, nothing left behind;
- signals: SIGINT and SIGTERM during start-up, compile and run of xhip-opt and xhip-run:
  one line, status 130 / 143, no traceback, no temp file;
- compare: Ctrl-C to xhip-compare --jobs 2 (the process group, and the parent alone)
  stops everything within seconds, with one line and no traceback;
- pipeline: an `extends` chain 1200 files deep, bidi overrides and NULs in pass names;
- api: `from xhip import XhipError`.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import random
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from test_opt_cli import VALID, run_opt
from xhip.testing.models import graph_model, value

REPO = Path(__file__).resolve().parents[1]
ATTENTION = REPO / "examples" / "attention.onnx"
BIN = Path(sys.executable).parent
XHIP_OPT, XHIP_RUN, XHIP_COMPARE = (str(BIN / name) for name in ("xhip-opt", "xhip-run", "xhip-compare"))

BIG_ROWS = 48_828
"""Rows of the large model's [BIG_ROWS, 1024] float32 weight: a 200 MB constants file."""
SMALL_ROWS = 128
"""A [128, 128] weight: 64 KiB, externalized by the default pipeline."""
PAIR = ["out.constants.bin", "out.mlir"]


def matmul_model(path: Path, rows: int, seed: int, columns: int | None = None) -> Path:
    """Y[batch, columns] = X[batch, rows] @ W, W random from `seed` (one externalized constant)."""
    columns = rows if columns is None else columns
    weight = np.random.default_rng(seed).random((rows, columns), dtype=np.float32)
    model = graph_model(
        [helper.make_node("MatMul", ["X", "W"], ["Y"], name="matmul")],
        [value("X", TensorProto.FLOAT, ["batch", rows])],
        [value("Y", TensorProto.FLOAT, ["batch", columns])],
        [numpy_helper.from_array(weight, "W")],
    )
    onnx.save(model, path)
    return path


def wait_until(condition: Callable[[], bool], timeout: float, step: float = 0.002) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return condition()


def catches_sigterm(pid: int) -> bool:
    """Whether the process has installed its own SIGTERM handler (the tools do it first thing)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    caught = re.search(r"^SigCgt:\s*([0-9a-f]+)$", status, re.M)
    return caught is not None and bool(int(caught[1], 16) >> (signal.SIGTERM - 1) & 1)


def hidden(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def one_line(stderr: str) -> str:
    assert "Traceback" not in stderr, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    return lines[0]


RECORDED = re.compile(r'hip\.constants_size = (\d+) : i64.*hip\.constants_sha256 = "([0-9a-f]{64})"')


def recorded_constants(ir: str) -> tuple[int, str]:
    found = RECORDED.search(ir.partition("\n")[0])
    assert found is not None, ir[:300]
    return int(found[1]), found[2]


# -- pair: the IR and its constants file commit as one ----------------------------------------


@pytest.fixture(scope="module")
def big_models(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("big")
    return {name: matmul_model(folder / f"{name}.onnx", BIG_ROWS, seed, 1024) for seed, name in enumerate("ab")}


def compile_command(model: Path, output: Path) -> list[str]:
    return [XHIP_OPT, str(model), "--pipeline", "default", "-o", str(output)]


def pair_of(folder: Path, references: dict[str, str]) -> str:
    """Which model's pair `folder` holds ('a' or 'b'), checked the way xhip-run checks it."""
    from xhip.constants_file import read_recorded

    ir = (folder / "out.mlir").read_text()
    [name] = [name for name, text in references.items() if text == ir] or ["neither"]
    assert name != "neither", f"out.mlir is neither the old nor the new IR: {ir[:200]}"
    size, sha256 = recorded_constants(ir)
    data = read_recorded(folder / "out.constants.bin", size, sha256)  # raises on another compile's file
    assert hashlib.sha256(data).hexdigest() == sha256
    return name


def test_sigkill_at_random_points_of_a_200mb_compile_leaves_the_old_or_the_new_pair(big_models, tmp_path):
    references: dict[str, str] = {}
    durations = []
    work = tmp_path / "work"
    for name, folder in (("b", tmp_path / "reference-b"), ("a", work)):  # the old pair (a) is the first state
        folder.mkdir()
        started = time.monotonic()
        subprocess.run(compile_command(big_models[name], folder / "out.mlir"), check=True, capture_output=True, cwd=folder)
        durations.append(time.monotonic() - started)
        references[name] = (folder / "out.mlir").read_text()
    (tmp_path / "reference-b" / "out.constants.bin").unlink()  # 200 MB less on disk; the IR records its checksum
    duration = max(durations)
    state = pair_of(work, references)
    assert state == "a"
    rng = random.Random(21)
    # Three kills over the compile (from its start), three from the moment the constants file's temp
    # appears (it is written and hashed, then the pair commits, about 0.5 s later here): each drawn
    # in its own third of the span, so that early, middle and late points are all there.
    kills = [("start", rng.uniform(0.2 + 0.3 * i, 0.5 + 0.3 * i) * duration) for i in range(3)]
    kills += [("constants", rng.uniform(0.3 * i, 0.3 * (i + 1))) for i in range(3)]
    outcomes = []
    for since, delay in kills:
        target = "b" if state == "a" else "a"
        process = subprocess.Popen(compile_command(big_models[target], work / "out.mlir"), cwd=work,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
        if since == "constants":
            wait_until(lambda: process.poll() is not None or any(n.startswith(".out.constants.bin.") for n in os.listdir(work)), 60)
        time.sleep(delay)
        process.kill()
        process.wait()
        after = pair_of(work, references)
        assert after in (state, target)
        outcomes.append((since, round(delay, 2), "new" if after == target else "old"))
        state = after
    target = "b" if state == "a" else "a"
    done = subprocess.run(compile_command(big_models[target], work / "out.mlir"), capture_output=True, text=True, cwd=work)
    assert done.returncode == 0, done.stderr
    assert pair_of(work, references) == target
    assert sorted(os.listdir(work)) == PAIR, f"left after a successful run (kills: {outcomes})"
    print(f"compile {duration:.2f} s; kills (s, pair left): {outcomes}")


KILL_AT_RENAME = """\
import os, signal, sys
real_replace, calls = os.replace, []
def replace(source, target):
    calls.append(target)
    if len(calls) == int(sys.argv[1]):
        os.kill(os.getpid(), signal.SIGKILL)
    return real_replace(source, target)
os.replace = replace
from xhip.tools.opt import main
main(sys.argv[2:])
"""


@pytest.fixture
def small_models(tmp_path: Path) -> dict[str, Path]:
    folder = tmp_path / "models"
    folder.mkdir()
    return {name: matmul_model(folder / f"{name}.onnx", SMALL_ROWS, seed) for seed, name in enumerate("ab", 1)}


@pytest.mark.parametrize("rename", [1, 2, 3, 4])
def test_a_kill_at_each_rename_of_the_commit_leaves_a_pair_xhip_run_accepts(capsys, tmp_path, small_models, rename):
    from xhip.tools.run import main as run_main

    work = tmp_path / "work"
    work.mkdir()
    code, _, err = run_opt(capsys, str(small_models["a"]), "--pipeline", "default", "-o", str(work / "out.mlir"))
    assert code == 0, err
    old = (work / "out.mlir").read_text()
    killed = subprocess.run(
        [sys.executable, "-c", KILL_AT_RENAME, str(rename), str(small_models["b"]), "--pipeline", "default", "-o", str(work / "out.mlir")],
        capture_output=True, text=True, cwd=work,
    )  # fmt: skip
    assert killed.returncode in (0, -signal.SIGKILL), killed.stderr
    ir = (work / "out.mlir").read_text()
    with pytest.raises(SystemExit) as exit_info:
        run_main([str(work / "out.mlir"), "--backend", "reference", "--shape", f"X=2x{SMALL_ROWS}"])
    _, err = capsys.readouterr()
    assert exit_info.value.code == 0, f"after a kill at rename {rename} ({'old' if ir == old else 'new'} IR): {err}"
    code, _, err = run_opt(capsys, str(small_models["a"]), "--pipeline", "default", "-o", str(work / "out.mlir"))
    assert code == 0, err
    assert sorted(os.listdir(work)) == PAIR and (work / "out.mlir").read_text() == old


def test_a_successful_run_removes_stale_temps_of_its_output_and_nothing_else(capsys, tmp_path, small_models):
    work = tmp_path / "work"
    work.mkdir()
    stale = [".out.mlir.a1b2c3d4", ".out.constants.bin.k9_2mmq1", ".out.constants.bin.sha256-0123456789abcdef"]
    kept = [
        ".out.mlir.keep", ".other.mlir.a1b2c3d4", "out.mlir.a1b2c3d4", ".out.mlir.a1b2c3d4.bak",
        ".out.mlirx.a1b2c3d4", ".out.constants.bin.sha256-0123", "notes.txt",
    ]  # fmt: skip
    for name in [*stale, *kept, ".out.mlir.inuse_42"]:
        (work / name).write_bytes(b"x" * 10)
    os.symlink("notes.txt", work / ".out.mlir.link_123")  # a link, even with our name, is not our temp file
    # A temp file of a run still under way is locked by it: left alone.
    in_use = open(work / ".out.mlir.inuse_42", "rb")
    fcntl.flock(in_use, fcntl.LOCK_EX)
    try:
        code, _, err = run_opt(capsys, str(small_models["a"]), "--pipeline", "default", "-o", str(work / "out.mlir"))
    finally:
        in_use.close()
    assert code == 0, err
    assert sorted(os.listdir(work)) == sorted([*PAIR, *kept, ".out.mlir.inuse_42", ".out.mlir.link_123"])


# -- full devices ------------------------------------------------------------------------------


@pytest.mark.parametrize("where", ["stdout", "-o"])
def test_a_full_device_is_one_line_and_leaves_nothing(tmp_path, where):
    output = ["-o", "/dev/full"] if where == "-o" else []
    with open("/dev/full", "w") as full:
        done = subprocess.run([XHIP_OPT, str(ATTENTION), "--pipeline", "default", *output],
                              stdout=full, stderr=subprocess.PIPE, text=True, cwd=tmp_path)  # fmt: skip
    assert done.returncode == 1
    location = "/dev/full" if where == "-o" else "<stdout>"
    assert one_line(done.stderr) == f"{location}: error: cannot write output: No space left on device"
    assert os.listdir(tmp_path) == []  # no content-named constants file in the current directory


@pytest.mark.parametrize("old_pair", [True, False], ids=["replacing a pair", "new pair"])
def test_a_failing_write_after_the_commit_point_keeps_a_whole_pair(tmp_path, old_pair):
    """The IR (which names its constants file) is in place when a later output (here a report on a
    full device) fails: a replaced pair stays the new one, whole; a new pair goes again."""
    from xhip.constants_file import read_recorded
    from xhip.diagnostics import XhipError
    from xhip.output_files import OutputFiles

    constants, ir = tmp_path / "out.constants.bin", tmp_path / "out.mlir"
    if old_pair:
        constants.write_bytes(b"old constants")
        ir.write_text("old ir\n")
    data = b"new constants" * 1000
    files = OutputFiles()
    files.add(constants, data, "constants file", early=True, hashed=True, referenced=True)
    files.add(ir, "new ir\n")
    files.add("/dev/full", "{}", "report")
    with pytest.raises(XhipError, match="/dev/full: error: cannot write report: No space left on device"):
        files.commit()
    if old_pair:
        assert sorted(os.listdir(tmp_path)) == PAIR and ir.read_text() == "new ir\n"
        assert read_recorded(constants, len(data), hashlib.sha256(data).hexdigest()) == data
    else:
        assert os.listdir(tmp_path) == []


@pytest.fixture
def full_tmpfs(tmp_path: Path) -> Iterator[Path]:
    """A 1 MiB tmpfs (mounting one needs root with CAP_SYS_ADMIN)."""
    folder = tmp_path / "tmpfs"
    folder.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a 1 MiB tmpfs needs root")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(folder)], capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"mount -t tmpfs is not permitted here: {mounted.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def fill(folder: Path) -> None:
    """Write into `folder` until its file system is full."""
    with open(folder / "filler", "wb", buffering=0) as handle:
        for size in (1 << 16, 1 << 12, 1):
            try:
                while True:
                    handle.write(b"\0" * size)
            except OSError:
                pass


def test_constants_larger_than_the_free_space_leave_the_old_pair(capsys, tmp_path, full_tmpfs):
    model = matmul_model(tmp_path / "m.onnx", 512, 1, 1024)  # 2 MiB of constants
    (full_tmpfs / "out.mlir").write_text("old ir\n")
    (full_tmpfs / "out.constants.bin").write_bytes(b"old constants")
    code, out, err = run_opt(capsys, str(model), "--pipeline", "default", "-o", str(full_tmpfs / "out.mlir"))
    assert code == 1 and out == ""
    assert one_line(err) == f"{full_tmpfs / 'out.constants.bin'}: error: cannot write constants file: No space left on device"
    assert sorted(os.listdir(full_tmpfs)) == PAIR
    assert (full_tmpfs / "out.mlir").read_text() == "old ir\n"


@pytest.mark.parametrize("what", ["-o", "--memory-report", "xhip-run --report", "xhip-run --save-outputs"])
def test_a_full_file_system_is_one_line_exit_1_and_no_temp_file(capsys, tmp_path, full_tmpfs, what):
    from xhip.tools.run import main as run_main

    fill(full_tmpfs)
    if what.startswith("xhip-run"):
        flag, path = what.split()[1], full_tmpfs / ("r.json" if "report" in what else "o.npz")
        with pytest.raises(SystemExit) as exit_info:
            run_main([str(ATTENTION), "--backend", "reference", "--shape", "X=1x8", flag, str(path)])
        code, (_, err) = exit_info.value.code, capsys.readouterr()
        kind = "report" if flag == "--report" else "outputs"
    else:
        valid = tmp_path / "valid.mlir"
        valid.write_text(VALID)
        path = full_tmpfs / ("out.mlir" if what == "-o" else "m.json")
        extra = ["-o", str(path)] if what == "-o" else ["--memory-report", str(path), "--report-shape", "batch=1,seq=8", "-o", str(tmp_path / "o.mlir")]
        model = valid if what == "-o" else ATTENTION
        code, _, err = run_opt(capsys, str(model), "--pipeline", "default", *extra)
        kind = "output" if what == "-o" else "memory report"
    assert code == 1
    assert one_line(err) == f"{path}: error: cannot write {kind}: No space left on device"
    assert os.listdir(full_tmpfs) == ["filler"]
    assert not (tmp_path / "o.mlir").exists()


# -- signals -----------------------------------------------------------------------------------

PHASE_HOOK = """\
import importlib.abc, importlib.util, os, sys
MARK, PHASE = os.environ["FAULT_MARK"], os.environ["FAULT_PHASE"]
WRAP = {"xhip.api": ("compile", None), "xhip.runtime.executable": ("run", "Executable")}

class Marker(importlib.abc.MetaPathFinder):
    # Writes MARK/<function> when xhip-run enters api.compile or Executable.run (PHASE's runs 100 times).
    def find_spec(self, name, path, target=None):
        if name not in WRAP:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        sys.meta_path.insert(0, self)
        loaded = spec.loader.exec_module
        def exec_module(module, loaded=loaded, name=name):
            loaded(module)
            attribute, owner = WRAP[name]
            holder = getattr(module, owner) if owner else module
            function = getattr(holder, attribute)
            def marked(*args, **kwargs):
                # The phase signalled in is long whatever the machine: its real work, many times over.
                open(os.path.join(MARK, attribute), "w").close()
                for _ in range(100 if attribute == PHASE else 1):
                    result = function(*args, **kwargs)
                return result
            setattr(holder, attribute, marked)
        spec.loader.exec_module = exec_module
        return spec

sys.meta_path.insert(0, Marker())
from xhip.tools.run import main
main()
"""

SIGNALS = {"INT": (signal.SIGINT, "interrupted"), "TERM": (signal.SIGTERM, "terminated")}


def interrupt(command: list[str], cwd: Path, signum: int, ready: Callable[[int], bool], delay: float = 0.0,
              env: dict[str, str] | None = None) -> tuple[subprocess.CompletedProcess, bool]:  # fmt: skip
    """Start `command`, wait until `ready(pid)` (at most 60 s), wait `delay`, send `signum`.

    A command still running 60 s after the signal fails the test with every thread's stack
    (faulthandler, dumped at a SIGABRT): where it hangs is what such a failure must say."""
    env = {**(os.environ if env is None else env), "PYTHONFAULTHANDLER": "1"}
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    reached = wait_until(lambda: ready(process.pid) or process.poll() is not None, 60)
    reached = reached and process.poll() is None
    time.sleep(delay)
    process.send_signal(signum)
    try:
        out, err = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGABRT)
        out, err = process.communicate(timeout=60)
        raise AssertionError(f"{command[0]} still ran 60 s after signal {signum}; its threads:\n{err}") from None
    return subprocess.CompletedProcess(command, process.returncode, out, err), reached


def check_interrupted(done: subprocess.CompletedProcess, tool: str, signum: int, word: str) -> None:
    assert done.returncode == 128 + signum, done.stderr
    assert one_line(done.stderr) == f"{tool}: {word}"


@pytest.mark.parametrize("signame", SIGNALS)
@pytest.mark.parametrize("phase", ["start-up", "compile"])
def test_xhip_opt_interrupted_leaves_the_old_pair_and_no_temp(big_models, tmp_path, phase, signame):
    signum, word = SIGNALS[signame]
    (tmp_path / "out.mlir").write_text("old ir\n")
    (tmp_path / "out.constants.bin").write_bytes(b"old constants")

    def ready(pid: int) -> bool:
        if phase == "start-up":  # the handlers are installed first thing, before the imports
            return catches_sigterm(pid)
        return any(name.startswith(".out.constants.bin.") for name in os.listdir(tmp_path))  # the constants are being written

    done, reached = interrupt(compile_command(big_models["a"], tmp_path / "out.mlir"), tmp_path, signum, ready)
    check_interrupted(done, "xhip-opt", signum, word)
    assert reached, f"the signal came after {phase}"
    assert sorted(os.listdir(tmp_path)) == PAIR
    assert (tmp_path / "out.mlir").read_text() == "old ir\n"
    assert (tmp_path / "out.constants.bin").read_bytes() == b"old constants"


SIGNAL_AS_A_WORKER_STARTS = """\
import signal, sys, threading
from xhip import background
from xhip.tools import cli

cli.handle_signals()
start = threading.Thread.start


def start_then_signal(self):  # the signal lands just after a worker starts, before it is registered
    start(self)
    signal.raise_signal(signal.SIGINT)


threading.Thread.start = start_then_signal
try:
    background.submit(sum, [1, 2])
except cli.Interrupted:
    print("interrupted")
    sys.exit(130)
"""


def test_a_signal_as_a_background_worker_starts_still_lets_the_process_exit():
    """ThreadPoolExecutor registers a worker only after starting it; a signal raised in
    between (the handler raises in the main thread) used to leave an idle worker nothing
    tells to stop, and the exit waited for it forever (seen as an interrupted xhip-opt that
    never ended). The signal now waits until the job is queued: the process exits at once."""
    done = subprocess.run([sys.executable, "-c", SIGNAL_AS_A_WORKER_STARTS], capture_output=True, text=True, timeout=60)
    assert done.returncode == 130, done.stderr
    assert done.stdout == "interrupted\n"


@pytest.mark.parametrize("signame", SIGNALS)
@pytest.mark.parametrize("phase", ["start-up", "compile", "run"])
def test_xhip_run_interrupted_writes_nothing(big_models, tmp_path, phase, signame):
    signum, word = SIGNALS[signame]
    marks = tmp_path / "marks"
    marks.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    arguments = [str(big_models["a"]), "--backend", "reference", "--shape", f"X=64x{BIG_ROWS}",
                 "--report", "r.json", "--save-outputs", "o.npz"]  # fmt: skip
    if phase == "start-up":
        command, ready, delay = [XHIP_RUN, *arguments], catches_sigterm, 0.0
    else:
        command, delay = [sys.executable, "-c", PHASE_HOOK, *arguments], 0.2
        mark = marks / ("compile" if phase == "compile" else "run")
        ready = lambda pid: mark.exists()  # noqa: E731
    done, reached = interrupt(command, work, signum, ready, delay, env={**os.environ, "FAULT_MARK": str(marks), "FAULT_PHASE": phase})
    check_interrupted(done, "xhip-run", signum, word)
    assert reached, f"the signal came after {phase}"
    assert os.listdir(work) == []


# -- xhip-compare ------------------------------------------------------------------------------


def children(pid: int) -> list[int]:
    try:
        return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def group_alive(pgid: int) -> bool:
    """Whether a live (not zombie) process is left in process group `pgid`."""
    for stat_file in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat_file.read_text().rpartition(")")[2].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False


@pytest.mark.parametrize("target", ["process group", "parent alone"])
def test_ctrl_c_stops_xhip_compare_with_jobs_within_seconds(tmp_path, target):
    command = [XHIP_COMPARE, "--pipelines", "default", "seed-003", "--models", str(ATTENTION),
               "--shapes", "batch=8,seq=512", "--backend", "reference", "--jobs", "2", "--repeat", "1000"]  # fmt: skip
    process = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)  # fmt: skip
    try:
        assert wait_until(lambda: len(children(process.pid)) >= 2, 60), "no workers started"
        time.sleep(1.5)  # the workers are importing and warming up
        if target == "process group":
            os.killpg(process.pid, signal.SIGINT)
        else:
            process.send_signal(signal.SIGINT)
        sent = time.monotonic()
        out, err = process.communicate(timeout=60)  # until every worker has closed stderr too
        stopped = time.monotonic() - sent
        assert wait_until(lambda: not group_alive(process.pid), 3, 0.05), "processes of the group are still alive"
    finally:
        if group_alive(process.pid):
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 130, (out, err)
    assert one_line(err) == "xhip-compare: interrupted"
    assert stopped < 4, f"{stopped:.1f} s to stop"


# -- pipelines: deep chains, hostile characters ------------------------------------------------


def test_an_extends_chain_1200_files_deep_is_one_located_line(capsys, tmp_path):
    (tmp_path / "p0.yaml").write_text("name: base\npasses: [cse]\n")
    for depth in range(1, 1200):
        (tmp_path / f"p{depth}.yaml").write_text(f"extends: p{depth - 1}.yaml\n")
    valid = tmp_path / "valid.mlir"
    valid.write_text(VALID)
    code, out, err = run_opt(capsys, str(valid), "--pipeline", str(tmp_path / "p1199.yaml"))
    assert code == 1 and out == ""
    line = one_line(err)
    assert re.fullmatch(rf"{re.escape(str(tmp_path))}/p\d+\.yaml:1: error: 'extends' chain is deeper than \d+ files.*", line), line


RTL, NUL = "\u202e", "\x00"


@pytest.mark.parametrize(
    "where",
    ["pipeline file", "pipeline file (NUL)", "extends", "-p", "--set", "--print-ir-after"],
)
def test_bidi_overrides_and_nuls_in_user_text_are_escaped(capsys, tmp_path, where):
    valid = tmp_path / "valid.mlir"
    valid.write_text(VALID)
    pipeline = tmp_path / "p.yaml"
    argv = ["--pipeline", str(pipeline)]
    pipeline.write_text("name: p\npasses: [cse]\n")
    if where == "pipeline file":
        pipeline.write_text(f"name: p\npasses: [cs{RTL}e]\n")
    elif where == "pipeline file (NUL)":
        pipeline.write_text('name: p\npasses: ["cs\\0e"]\n')
    elif where == "extends":
        pipeline.write_text(f"extends: base{RTL}.yaml\n")
    elif where == "-p":  # (a pass name with one is a syntax error that echoes nothing)
        argv = ["-p", f'hip-pool-allocs{{planner="tr{RTL}ee"}}']
    elif where == "--set":
        argv += ["--set", f"cs{RTL}e.x=1"]
    else:
        argv += ["--print-ir-after", f"cs{RTL}e"]
    code, _, err = run_opt(capsys, str(valid), *argv)
    assert code == 1
    line = one_line(err)
    assert RTL not in line and NUL not in line, ascii(line)
    assert ("\\x00" if "NUL" in where else "\\u202e") in line, line


# -- the API's error type ----------------------------------------------------------------------


def test_xhip_error_is_importable_from_the_package_lazily():
    code = (
        "import sys, xhip\n"
        "assert 'xhip.diagnostics' not in sys.modules\n"
        "from xhip import XhipError\n"
        "import xhip.diagnostics\n"
        "assert XhipError is xhip.diagnostics.XhipError and xhip.XhipError is XhipError\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
