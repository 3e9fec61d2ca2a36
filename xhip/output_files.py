"""A command's output files: checked before the work, all written at its end, or none.

What is at an output path decides how it is written, as with any Unix tool:

- a regular file, or nothing yet: the bytes go to a temp file beside it
  (`.NAME.XXXXXXXX`, `tempfile.mkstemp`'s pattern) that is renamed onto the path,
  so a reader never sees half a file. A new file's mode follows the umask
  (0666 & ~umask); a replaced file keeps its mode.
- a symlink: the file it points to is written (as above), the link stays.
- anything else (/dev/null, a FIFO, a terminal): written through, in place.
- a directory: an error, before any work.

`OutputFiles.add` checks a path at once (so an unwritable `--report` fails before
a long run) and keeps the bytes; `commit` writes everything after every temp file
is complete: the renames first (in the order added), then the write-throughs (in
order), then its `then` (xhip-opt's stdout). With `early`, the temp file is written
from now on, by a background thread (`xhip.background`; file writes release the
GIL: xhip-opt writes GPT-2's 500 MB of constants while the later passes run);
`commit` waits for it, and `discard` (a command that failed) stops it and removes it.

Guarantees:

- A pair commits as one. A file added with `referenced` is one whose SHA-256 a later
  output records (xhip-opt's constants file, named by its IR). Its temp file is first
  renamed to `.NAME.sha256-<16 hex digits>` beside its path (a name no old IR uses),
  then the other files are renamed into place, the IR among them: that rename is the
  single commit point; then the pending file is renamed onto its own path. A kill at
  any moment (SIGKILL included) leaves the old pair (before the commit point) or the
  new one (after it: until the last rename its constants file is the pending one,
  which the runtime finds by the checksum the IR records,
  `xhip.constants_file.read_recorded`), never an IR beside another compile's constants.
- The renames of a commit are not interrupted: SIGINT and SIGTERM, as the tools
  handle them (`xhip.tools.cli`), wait until they are done (`xhip.deferred_signals`).
- Nothing is left behind by a command that fails or is interrupted: its temp and
  pending files are removed, and a file this commit created (nothing was at its
  path) is removed again when a later output fails (a write-through to a full
  device, stdout). A replaced file cannot come back (a replaced pair stays a pair).
- What a SIGKILL leaves (temp and pending files) the next successful commit to the
  same path removes: files named by our own patterns for that path, that are regular
  files, older than this command, and not locked by a command still under way (each
  holds an flock on its temp files until they are in place). Nothing else is touched.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import stat
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from xhip import background
from xhip.constants_file import CONTENT_NAME_DIGITS, PENDING_MARK, FileParts, checksum, chunks, pending_path
from xhip.deferred_signals import uninterrupted
from xhip.diagnostics import XhipError

NEW_FILE_MODE = 0o666
TEMP_SUFFIX = re.compile(r"[a-z0-9_]{8}")
"""The random part of `tempfile.mkstemp`'s names: `.NAME.` + 8 of [a-z0-9_]."""
PENDING_SUFFIX = re.compile(re.escape(PENDING_MARK) + f"[0-9a-f]{{{CONTENT_NAME_DIGITS}}}")


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


def is_own_temp(name: str, output: str) -> bool:
    """Whether the file name `name` is one of our temp or pending files of the output named `output`."""
    prefix = f".{output}."
    if not name.startswith(prefix):
        return False
    rest = name[len(prefix) :]
    return TEMP_SUFFIX.fullmatch(rest) is not None or PENDING_SUFFIX.fullmatch(rest) is not None


# -- one output file ------------------------------------------------------------------------


@dataclass(eq=False)
class _Staged:
    path: Path
    data: bytes | FileParts
    what: str
    referenced: bool = False
    """Another output records this file's SHA-256: it commits with it (the module docstring)."""
    temp: str | None = None
    handle: BinaryIO | None = None
    """The temp file, open and flock-ed until it is in place: the mark of a command under way."""
    pending: Path | None = None
    """Where a referenced file waits for the commit point (`xhip.constants_file.pending_path`)."""
    placed: Path | None = None
    """Where this commit put the file; `created`: nothing was there before."""
    created: bool = False
    writer: Future[str | None] | None = None
    """The background job writing the temp file early, until `wait` has seen it end."""
    error: XhipError | None = None
    digest: hashlib._Hash | None = None
    """Hashes the bytes as they are written (`add(..., hashed=True)`)."""
    sha256: str | None = None
    cancelled: bool = False
    """Set by `discard`: an early write stops at its next chunk."""

    def write_temp(self) -> str | None:
        """Write the temp file; the SHA-256 of the bytes if `digest` hashes them."""
        try:
            _write_temp(self)
        except XhipError as err:
            self.error = err  # `wait` raises it; the checksum is still asked for before that
            return checksum(self.data) if self.digest is not None else None
        if self.digest is not None and not self.cancelled:
            self.sha256 = self.digest.hexdigest()
        return self.sha256

    def wait(self) -> None:
        """The temp file complete (written now, unless a thread did it already); raise its error."""
        if self.writer is not None:
            self.writer.result()
            self.writer = None
        elif self.temp is None and self.error is None and not writes_through(self.path):
            self.write_temp()
        if self.error is not None:
            raise self.error
        if self.referenced and self.temp is not None and self.sha256 is None:
            self.sha256 = checksum(self.data)

    @property
    def target(self) -> Path:
        """The file the bytes go to: the path, a symlink resolved."""
        return Path(os.path.realpath(self.path))

    def rename(self, source: str | Path, target: Path) -> None:
        try:
            os.replace(source, target)
        except OSError as err:
            raise XhipError(f"cannot write {self.what}: {err.strerror}", str(self.path)) from None

    def close(self) -> None:
        if self.handle is not None:
            self.handle.close()  # its lock goes with it
            self.handle = None


@dataclass
class OutputFiles:
    """The files one command writes, kept in memory until `commit`."""

    staged: list[_Staged] = field(default_factory=list)
    started: float = field(default_factory=time.time)
    """When the command began: a temp file of ours older than this, and unlocked, is a leftover."""
    _commit_point: _Staged | None = field(default=None, repr=False)
    """The first file renamed into place while referenced files are pending: the one naming them."""

    def add(
        self,
        path: str | os.PathLike[str],
        data: bytes | str | FileParts,
        what: str = "output",
        early: bool = False,
        hashed: bool = False,
        referenced: bool = False,
    ) -> Future[str | None] | None:
        """Check `path` now and write `data` there at `commit`.

        `early`: write its temp file from now on, on a background thread. `hashed`: also the
        SHA-256 of `data`, returned as a future; an early write computes it in the same pass
        over the bytes (each is read once: GPT-2's 500 MB of constants). `referenced`: a file
        added later records this one's SHA-256 (xhip-opt's IR names its constants file): the
        two commit as one (see the module docstring)."""
        target = Path(path)
        check_writable(target, what)
        entry = _Staged(target, data.encode() if isinstance(data, str) else data, what, referenced)
        self.staged.append(entry)
        if early and not writes_through(target):
            entry.digest = hashlib.sha256() if hashed else None
            with uninterrupted():  # a writer the entry does not know of would outlive `discard`
                entry.writer = background.submit(entry.write_temp)
            return entry.writer if hashed else None
        return background.submit(checksum, entry.data) if hashed else None

    def commit(self, then: Callable[[], None] | None = None) -> None:
        """Write every file: temp files first, then the renames, then the write-throughs, then `then`
        (what else the command outputs: stdout). When anything fails, what this commit created goes."""
        try:
            for entry in self.staged:
                entry.wait()
            with uninterrupted():
                self._rename_all()
            for entry in self.staged:
                if entry.placed is None and entry.pending is None:
                    _write_through(entry)
            if then is not None:
                then()
            written = [entry.placed for entry in self.staged if entry.placed is not None]
        except BaseException:
            with uninterrupted():
                self._roll_back()
            raise
        finally:
            self.discard()
        for target in written:
            remove_leftovers(target, self.started)

    def _rename_all(self) -> None:
        """The referenced files to their pending names, the others into place (the first of them, the
        file that names the referenced ones, is the commit point), then the pending files into place."""
        referenced = [e for e in self.staged if e.referenced and e.temp is not None and e.sha256 is not None]
        for entry in referenced:
            entry.pending = pending_path(entry.path, entry.sha256 or "")
            entry.rename(entry.temp or "", entry.pending)
            entry.temp = None
        for entry in self.staged:
            if entry.temp is not None:  # (the referenced ones are pending by now)
                target = entry.target
                created = not os.path.lexists(target)
                entry.rename(entry.temp, target)
                entry.temp, entry.placed, entry.created = None, target, created
                if referenced and self._commit_point is None:
                    self._commit_point = entry
        for entry in referenced:  # past the commit point: the IR that names them is in place
            _finish(entry)

    def _roll_back(self) -> None:
        """Remove what this commit created, except the pair of an IR that replaced another (it stays:
        the old one cannot come back), whose pending files are put in place instead."""
        point = self._commit_point
        keep_pair = point is not None and point.placed is not None and not point.created
        for entry in self.staged:
            if entry.referenced and keep_pair:
                _finish(entry)
            elif entry.placed is not None and entry.created:
                entry.placed.unlink(missing_ok=True)

    def discard(self) -> None:
        """Write nothing more: stop early writes and remove every temp or pending file not in place."""
        for entry in self.staged:
            entry.cancelled = True
        for entry in self.staged:
            if entry.writer is not None:
                try:
                    entry.writer.result()
                except Exception:  # noqa: BLE001 - an error of a write that is given up
                    pass
                entry.writer = None
            entry.close()
            if entry.temp is not None:
                Path(entry.temp).unlink(missing_ok=True)
                entry.temp = None
            if entry.pending is not None:
                entry.pending.unlink(missing_ok=True)
                entry.pending = None
        self.staged.clear()
        self._commit_point = None


def _finish(entry: _Staged) -> None:
    """Rename a referenced file from its pending name onto its path (the pair's last step)."""
    if entry.pending is None:
        return
    target = entry.target
    created = not os.path.lexists(target)
    try:
        os.replace(entry.pending, target)
    except OSError:
        entry.pending = None  # stays: the IR that names it finds it there by its checksum
        return
    entry.pending, entry.placed, entry.created = None, target, created
    entry.close()


def _write_temp(entry: _Staged) -> None:
    """A complete temp file beside the (symlink-resolved) target, with the target's mode, kept open
    and locked until it is in place (`remove_leftovers` leaves a locked one alone)."""
    target = entry.target
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = NEW_FILE_MODE & ~_current_umask()
    try:
        fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    except OSError as err:
        raise XhipError(f"cannot write {entry.what}: {err.strerror}", str(entry.path)) from None
    handle = os.fdopen(fd, "wb")
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.fchmod(fd, mode)
        _write(handle, entry.data, entry.digest, entry)
        handle.flush()
    except OSError as err:
        try:
            handle.close()
        except OSError:
            pass  # the same full device, flushing what the failed write left
        Path(temp).unlink(missing_ok=True)
        raise XhipError(f"cannot write {entry.what}: {err.strerror}", str(entry.path)) from None
    entry.temp, entry.handle = temp, handle


def _write(
    handle: BinaryIO, data: bytes | FileParts, digest: hashlib._Hash | None = None, entry: _Staged | None = None
) -> None:
    for chunk in chunks(data):
        if entry is not None and entry.cancelled:
            return  # discarded: the temp file goes anyway
        if digest is not None:
            digest.update(chunk)
        handle.write(chunk)


def _write_through(entry: _Staged) -> None:
    try:
        with open(entry.path, "wb") as handle:
            _write(handle, entry.data)
    except OSError as err:
        raise XhipError(f"cannot write {entry.what}: {err.strerror}", str(entry.path)) from None


def remove_leftovers(target: Path, started: float) -> None:
    """Remove the temp and pending files of `target` that a killed command left (the module docstring)."""
    folder = target.parent
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        if is_own_temp(name, target.name):
            _remove_if_left_over(folder / name, started)


def _remove_if_left_over(path: Path, started: float) -> None:
    try:
        status = os.lstat(path)
        if not stat.S_ISREG(status.st_mode) or max(status.st_mtime, status.st_ctime) >= started:
            return
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # held by a command under way: not a leftover
        if os.path.samestat(os.fstat(fd), os.lstat(path)):
            os.unlink(path)
    except OSError:
        pass
    finally:
        os.close(fd)
