"""A command's output files: checked before the work, all written at its end, or none.

What is at an output path decides how it is written, as with any Unix tool:

- a regular file, or nothing yet: the bytes go to a temp file beside it that is
  renamed onto the path, so a reader never sees half a file. A new file's mode
  follows the umask (0666 & ~umask); a replaced file keeps its mode.
- a symlink: the file it points to is written (as above), the link stays.
- anything else (/dev/null, a FIFO, a terminal): written through, in place.
- a directory: an error, before any work.

`OutputFiles.add` checks a path at once (so an unwritable `--report` fails before
a long run) and keeps the bytes; `commit` writes everything, in the order added,
after every temp file is complete; on failure it leaves no temp file behind.
With `early`, the temp file is written from now on, by a background thread
(`xhip.background`; file writes release the GIL: xhip-opt writes GPT-2's 500 MB
of constants while the later passes run); `commit` waits for it, and `discard`
(a command that failed) waits and removes it.
"""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from xhip import background
from xhip.constants_file import FileParts, checksum, chunks
from xhip.diagnostics import XhipError

NEW_FILE_MODE = 0o666


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def writes_through(path: Path) -> bool:
    """Whether `path` exists as something other than a regular file (or a link to one)."""
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except FileNotFoundError:
        return False


def check_writable(path: Path, what: str) -> None:
    """One located line if `path` cannot become an output file."""

    def fail(reason: str) -> XhipError:
        return XhipError(f"cannot write {what}: {reason}", str(path))

    if path.is_dir():
        raise fail("is a directory")
    if writes_through(path):
        if not os.access(path, os.W_OK):
            raise fail("permission denied")
        return
    directory = Path(os.path.realpath(path)).parent
    if not directory.is_dir():
        raise fail(f"no such directory '{directory}'")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise fail(f"permission denied in directory '{directory}'")


@dataclass
class _Staged:
    path: Path
    data: bytes | FileParts
    what: str
    temp: str | None = None
    writer: Future[str | None] | None = None
    """The background job writing the temp file early, until `wait` has seen it end."""
    error: XhipError | None = None
    digest: hashlib._Hash | None = None
    """Hashes the bytes as they are written (`add(..., hashed=True)`)."""

    def write_temp(self) -> str | None:
        """Write the temp file; the SHA-256 of the bytes if `digest` hashes them."""
        try:
            self.temp = _write_temp(self)
        except XhipError as err:
            self.error = err  # `wait` raises it; the checksum is still asked for before that
            return checksum(self.data) if self.digest is not None else None
        return self.digest.hexdigest() if self.digest is not None else None

    def wait(self) -> None:
        """The temp file complete (written now, unless a thread did it already); raise its error."""
        if self.writer is not None:
            self.writer.result()
            self.writer = None
        elif self.temp is None and self.error is None and not writes_through(self.path):
            self.write_temp()
        if self.error is not None:
            raise self.error


@dataclass
class OutputFiles:
    """The files one command writes, kept in memory until `commit`."""

    staged: list[_Staged] = field(default_factory=list)

    def add(
        self,
        path: str | os.PathLike[str],
        data: bytes | str | FileParts,
        what: str = "output",
        early: bool = False,
        hashed: bool = False,
    ) -> Future[str | None] | None:
        """Check `path` now and write `data` there at `commit`.

        `early`: write its temp file from now on, on a background thread. `hashed`: also the
        SHA-256 of `data`, returned as a future; an early write computes it in the same pass
        over the bytes (each is read once: GPT-2's 500 MB of constants)."""
        target = Path(path)
        check_writable(target, what)
        entry = _Staged(target, data.encode() if isinstance(data, str) else data, what)
        self.staged.append(entry)
        if early and not writes_through(target):
            entry.digest = hashlib.sha256() if hashed else None
            entry.writer = background.submit(entry.write_temp)
            return entry.writer if hashed else None
        return background.submit(checksum, entry.data) if hashed else None

    def commit(self) -> None:
        """Write every file: temp files first, then renames (and write-throughs) in order."""
        try:
            for entry in self.staged:
                entry.wait()
            for entry in self.staged:
                _put_in_place(entry)
        finally:
            self.discard()

    def discard(self) -> None:
        """Write nothing more: wait for early writes and remove every temp file not yet in place."""
        for entry in self.staged:
            if entry.writer is not None:
                entry.writer.result()
            if entry.temp is not None:
                Path(entry.temp).unlink(missing_ok=True)
        self.staged.clear()


def _write_temp(entry: _Staged) -> str:
    """A complete temp file beside the (symlink-resolved) target, with the target's mode."""
    target = Path(os.path.realpath(entry.path))
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = NEW_FILE_MODE & ~_current_umask()
    try:
        fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    except OSError as err:
        raise XhipError(f"cannot write {entry.what}: {err.strerror}", str(entry.path)) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), mode)
            _write(handle, entry.data, entry.digest)
    except OSError as err:
        Path(temp).unlink(missing_ok=True)
        raise XhipError(f"cannot write {entry.what}: {err.strerror}", str(entry.path)) from None
    return temp


def _write(handle: BinaryIO, data: bytes | FileParts, digest: hashlib._Hash | None = None) -> None:
    for chunk in chunks(data):
        if digest is not None:
            digest.update(chunk)
        handle.write(chunk)


def _put_in_place(entry: _Staged) -> None:
    try:
        if entry.temp is None:
            with open(entry.path, "wb") as handle:
                _write(handle, entry.data)
            return
        os.replace(entry.temp, os.path.realpath(entry.path))
        entry.temp = None
    except OSError as err:
        raise XhipError(f"cannot write {entry.what}: {err.strerror}", str(entry.path)) from None
