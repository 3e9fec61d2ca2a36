"""Run every case of the bad-input corpus (tests/bad_inputs/) through the real tools.

Each case runs `xhip-opt` or `xhip-run` as a subprocess in its own empty folder
(the tree's code on PYTHONPATH, a private TMPDIR). An error case must exit 1 with
exactly one stderr line that matches its pattern and no traceback, and leave the
folder as it found it; a success case must exit 0 and leave exactly the files it
intends, each of the kind it should be (a symlink, FIFO or device written through).
"""

from __future__ import annotations

import collections
import os
import re
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from bad_inputs import GROUPS, Case, Fifo, all_cases, kind_of, listing, write_inputs

REPO = Path(__file__).resolve().parents[1]
TOOLS = Path(sys.executable).parent
CASES = all_cases()
MEMORY_LIMIT = 8 << 30
"""Address space of one tool run: a tool that tries to allocate what no machine has fails
here (a MemoryError traceback) instead of waking the OOM killer on a shared machine."""


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def _param(case: Case):
    marks = []
    if case.xfail:
        marks.append(pytest.mark.xfail(strict=True, reason=case.xfail))
    if case.needs_non_root and os.geteuid() == 0:
        marks.append(pytest.mark.skip(reason="root ignores permission bits"))
    return pytest.param(case, id=case.id, marks=marks)


def _open_fifo_readers(case: Case, folder: Path) -> dict[str, int]:
    """A non-blocking reader on each FIFO, so the tool can open it for writing."""
    return {name: os.open(folder / name, os.O_RDONLY | os.O_NONBLOCK) for name, spec in case.files.items() if isinstance(spec, Fifo)}


def _drain(fd: int) -> bytes:
    chunks = []
    try:
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
    except BlockingIOError:
        pass
    os.close(fd)
    return b"".join(chunks)


def run_case(case: Case, folder: Path, tmpdir: Path) -> tuple[subprocess.CompletedProcess, dict[str, bytes]]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "TMPDIR": str(tmpdir)}
    readers = _open_fifo_readers(case, folder)
    try:
        done = subprocess.run(
            [str(TOOLS / case.argv[0]), *case.argv[1:]], cwd=folder, env=env, input=case.stdin,
            capture_output=True, timeout=120, preexec_fn=_limit_memory,
        )
    finally:
        received = {name: _drain(fd) for name, fd in readers.items()}
    return done, received


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_bad_input(case: Case, tmp_path: Path):
    folder, tmpdir = tmp_path / "case", tmp_path / "tmp"
    folder.mkdir()
    tmpdir.mkdir()
    write_inputs(case, folder)
    before = listing(folder)
    done, received = run_case(case, folder, tmpdir)
    stderr = done.stderr.decode(errors="replace")
    assert "Traceback" not in stderr, stderr[-3000:]
    assert done.returncode == case.exit_code, f"exit {done.returncode}: {stderr[-2000:]}"
    if case.fails:
        lines = stderr.splitlines()
        assert len(lines) == 1, f"{len(lines)} stderr lines: {stderr[:2000]}"
        assert re.search(case.stderr, lines[0]), lines[0][:2000]
    assert listing(folder) == before | set(case.produces), "files left or missing"
    for name in case.produces:
        assert (folder / name).stat().st_size > 0, f"{name} is empty"
    for name, kind in case.kinds.items():
        assert kind_of(folder / name) == kind, f"{name} is now a {kind_of(folder / name)}"
    if case.stdout:
        assert re.search(case.stdout, done.stdout.decode(errors="replace")), done.stdout[-2000:]
    if case.no_temp_left:
        assert not listing(tmpdir), f"left in TMPDIR: {sorted(listing(tmpdir))[:5]}"
    for name, data in received.items():
        assert data, f"the reader of FIFO {name} got nothing"


def test_corpus_covers_every_group():
    counts = collections.Counter(case.group for case in CASES)
    print("bad-input cases per group: " + ", ".join(f"{g} {counts[g]}" for g in GROUPS) + f"; total {len(CASES)}")
    assert len(CASES) >= 150
    assert set(counts) == set(GROUPS)
    assert len({case.id for case in CASES}) == len(CASES), "case ids must be unique"
