"""The bad-input corpus: every way a user can hand xhip-opt / xhip-run something wrong.

Each case is data (`Case`): an id, a group (onnx, mlir, yaml, set-and-p, feeds,
paths), the command line of one tool, the files to create in an empty folder
before it runs, and the expected outcome:

- an error: exit status 1, stderr exactly one line matching `stderr` (a regex), no
  "Traceback", and afterwards the folder holds exactly the files it held before;
- a success: exit status 0, no traceback, and afterwards the folder holds the input
  files plus exactly `produces` (and `kinds` says what sort of file a path must be:
  a symlink stays a symlink, a FIFO a FIFO, a device a device; `stdout` what the
  tool must print).

Every tool runs with a private, empty TMPDIR; `no_temp_left` cases check that it is
still empty afterwards.

No input is committed as a binary: `write_inputs` makes them at test time from the
builders in `models.py` (ONNX via onnx.helper), and `python tests/bad_inputs/generate.py
DIR` writes the whole corpus into DIR, one folder per case, with a `command` file each,
for reproducing a case by hand.

A case that fails today because of an open item of issue 8 names it in `xfail`;
tests/test_bad_inputs.py marks it `xfail(strict=True)`, so the fix flips it to XPASS
and the mark must go.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

GROUPS = ("onnx", "mlir", "yaml", "set-and-p", "feeds", "paths")


@dataclass(frozen=True)
class Symlink:
    target: str


@dataclass(frozen=True)
class Fifo:
    """A named pipe; the test holds a reader open while the tool runs."""


@dataclass(frozen=True)
class NullDevice:
    """A character device with /dev/null's numbers, made in the case folder (needs root)."""


@dataclass(frozen=True)
class Directory:
    mode: int = 0o755


FileSpec = bytes | str | Symlink | Fifo | NullDevice | Directory | Callable[[], bytes]


@dataclass(frozen=True)
class Case:
    id: str
    group: str
    argv: tuple[str, ...]
    """The tool (xhip-opt or xhip-run) and its arguments, run in the case folder."""
    files: Mapping[str, FileSpec] = field(default_factory=dict)
    exit_code: int = 1
    stderr: str = ""
    """A regex that the single stderr line of an error must contain."""
    produces: tuple[str, ...] = ()
    kinds: Mapping[str, str] = field(default_factory=dict)
    """path -> 'file', 'symlink', 'fifo', 'chardev' or 'dir' ('missing' if absent), checked afterwards."""
    stdout: str = ""
    """A regex that stdout must contain (for a success that must say something)."""
    no_temp_left: bool = False
    """The tool's private TMPDIR must be empty afterwards (nothing leaked there either)."""
    stdin: bytes = b""
    xfail: str | None = None
    """`issue 8 item N: ...` where an open item makes the case fail today."""
    needs_non_root: bool = False
    """Permission bits stop only non-root users."""

    @property
    def fails(self) -> bool:
        return self.exit_code != 0


def write_inputs(case: Case, folder: Path) -> None:
    """Create the case's files in `folder` (parents first, in the order given)."""
    for name, spec in case.files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(spec, Directory):
            path.mkdir(exist_ok=True)
            path.chmod(spec.mode)
        elif isinstance(spec, Symlink):
            path.symlink_to(spec.target)
        elif isinstance(spec, Fifo):
            os.mkfifo(path)
        elif isinstance(spec, NullDevice):
            os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        elif isinstance(spec, str):
            path.write_text(spec)
        elif isinstance(spec, bytes):
            path.write_bytes(spec)
        else:
            path.write_bytes(spec())


def kind_of(path: Path) -> str:
    if not os.path.lexists(path):
        return "missing"
    mode = path.lstat().st_mode
    for kind, test in (("symlink", stat.S_ISLNK), ("fifo", stat.S_ISFIFO), ("chardev", stat.S_ISCHR), ("dir", stat.S_ISDIR)):
        if test(mode):
            return kind
    return "file"


def listing(folder: Path) -> set[str]:
    """Every path under `folder`, relative, symlinks not followed."""
    found: set[str] = set()
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            found.add(os.path.relpath(os.path.join(root, name), folder))
    return found


def all_cases() -> list[Case]:
    from bad_inputs import cases_io, cases_onnx, cases_text

    return [*cases_onnx.CASES, *cases_text.CASES, *cases_io.CASES]
