"""The constants file of a compiled module: how its IR names it and where its bytes are.

`hip-externalize-constants` moves large weights out of the IR. The bytes go to
the `ConstantsStore` of the compile (in memory); the module records

    hip.constants_file   = "out.constants.bin"   path relative to the IR file's directory
    hip.constants_size   = 8256 : i64            the file's size in bytes
    hip.constants_sha256 = "9f86d0..."           SHA-256 of the file's bytes

Who runs the compile decides what happens to the bytes: `xhip-opt -o out.mlir`
writes them to `out.constants.bin` beside the IR (together with it, at the end);
`xhip-opt` to stdout writes `<input stem>.<checksum prefix>.constants.bin` in the
current directory (named by content, so two different models never share one and
a rewrite never changes a file's bytes); `xhip-run` and `xhip.compile()` keep
them in memory and write nothing.

The runtime reads a recorded name from the compile's store, else from the file
beside the IR, and refuses a file whose size or checksum is not the recorded one:
weights of another compile would run silently wrong. `xhip-opt -o` commits the IR
and its constants file as one (`xhip.output_files`): for the moment between the
IR's rename and the constants file's own, the new file is `pending_path(path,
checksum)` (`.out.constants.bin.sha256-<16 hex digits>`), where `read_recorded`
looks when the file at the recorded name is not the recorded one. SHA-256 because hashlib has
it everywhere, no accident makes two files agree, and with SHA-NI it is the
fastest stdlib hash (measured on a loaded 2-core dev machine: 400 MB/s, blake2b
255 MB/s): the file is hashed once per Executable, 0.1 ms for the attention
example's 48 KiB, about 1 s for GPT-2's 500 MB, small beside compiling it.

At compile time the file is hashed on a background thread (hashlib releases
the GIL; `xhip.background`): `ConstantsStore.record` names the file in the
module at once and its checksum when `settle` is called, which the pass runner
does before anyone sees the IR (a dump, the end of a run), so the passes in
between run meanwhile on the other core (GPT-2 124M: 0.25 s of hashing off the
main thread).
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path

from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr, i64

from xhip import background
from xhip.diagnostics import XhipError
from xhip.dialects.hip.attributes import CONSTANTS_FILE_ATTR, CONSTANTS_SHA256_ATTR, CONSTANTS_SIZE_ATTR
from xhip.onnx_wire import release_mapped_pages

CONSTANTS_SUFFIX = ".constants.bin"
CONTENT_NAME_DIGITS = 16
"""Hex digits of the checksum in a content-named file (64 bits: no two models meet)."""
PENDING_MARK = "sha256-"
"""`.NAME.sha256-<CONTENT_NAME_DIGITS hex digits>`: a constants file that its IR names at NAME
while the commit that puts it there is under way (`pending_path`)."""
CHUNK_BYTES = 1 << 22
"""Small parts (biases, padding) are hashed and written joined into chunks of about this size:
each call on a part hands the GIL over twice, which costs up to a switch interval while
another thread runs Python."""
SLICE_BYTES = 1 << 25
"""Large parts are hashed and written in views of at most this size (not copied), so that a
mapped weight leaves the resident set as it goes (GPT-2's embedding is one 154 MB part)."""


class FileParts:
    """A file's bytes as the consecutive parts it is made of, never joined into one object.

    The constants file of GPT-2 124M is 650 MB of weights that the IR's dense
    attributes already hold: joining them would copy every byte once more (half
    a second, and as much memory again as the model) before it is hashed and
    written part by part. Slicing within one part (one constant) copies only it.
    """

    def __init__(self, parts: Sequence[bytes]):
        self.parts = tuple(parts)
        self._starts = [0, *itertools.accumulate(len(part) for part in self.parts)]

    def __len__(self) -> int:
        return self._starts[-1]

    def __getitem__(self, span: slice) -> bytes:
        start, stop, _ = span.indices(len(self))
        first = bisect.bisect_right(self._starts, start) - 1
        if first < len(self.parts) and stop <= self._starts[first + 1]:
            return self.parts[first][start - self._starts[first] : stop - self._starts[first]]
        return b"".join(self.parts)[start:stop]  # spans parts: never asked for by one constant

    def __bytes__(self) -> bytes:
        return b"".join(self.parts)


ConstantsBytes = bytes | FileParts


def chunks(data: ConstantsBytes) -> Iterator[bytes | memoryview]:
    """`data` in order: its large parts as views of up to SLICE_BYTES (never copied), its small
    parts joined up to CHUNK_BYTES.

    A large part that views a mapped model file (xhip-opt's weights) leaves the resident set
    once the caller asks for the next chunk: hashing and writing read each weight once."""
    small: list[bytes] = []
    size = 0
    for part in data.parts if isinstance(data, FileParts) else (data,):
        if len(part) < CHUNK_BYTES:
            small.append(part)
            size += len(part)
            if size < CHUNK_BYTES:
                continue
        if small:
            yield b"".join(small)
            small, size = [], 0
        if len(part) >= CHUNK_BYTES:
            whole = memoryview(part)
            for start in range(0, len(part), SLICE_BYTES):
                piece = whole[start : start + SLICE_BYTES]
                yield piece
                release_mapped_pages(piece)
    if small:
        yield b"".join(small)


def checksum(data: ConstantsBytes) -> str:
    digest = hashlib.sha256()
    for chunk in chunks(data):
        digest.update(chunk)
    return digest.hexdigest()


class BackgroundChecksum:
    """The checksum of `data`: already known (`digest`), computed by a job already under way
    (`job`: xhip-opt's early write hashes what it writes), or on a background thread
    (`xhip.background`) from the moment this is made."""

    def __init__(self, data: ConstantsBytes, digest: str | None = None, job: Future[str | None] | None = None):
        self._digest = digest
        if digest is None and job is None:
            job = background.submit(checksum, data)
        self._job = job if digest is None else None

    def result(self) -> str:
        if self._job is not None:
            self._digest, self._job = self._job.result(), None
        assert self._digest is not None, "a job that hashes returns the digest"
        return self._digest

    def __getstate__(self) -> dict[str, object]:
        """A store crosses processes (xhip-compare's workers) as its finished checksums."""
        return {"_digest": self.result(), "_job": None}


@dataclass(frozen=True)
class ConstantsData:
    """The bytes of one module's constants file, and how errors name it."""

    data: ConstantsBytes
    where: str

    def read(self, offset: int, size: int) -> bytes:
        raw = self.data[offset : offset + size]
        if len(raw) != size:
            raise XhipError(f"constants file ends after {len(raw)} of {size} bytes at offset {offset}", self.where)
        return raw


@dataclass
class ConstantsStore:
    """The constants files one compile made (by recorded name), and where the others are.

    `directory` is the IR file's directory: recorded names are relative to it.
    """

    stem: str = "model"
    directory: Path = Path(".")
    content_named: bool = False
    files: dict[str, ConstantsBytes] = field(default_factory=dict)
    on_add: Callable[[Path, ConstantsBytes], Future[str | None] | None] | None = None
    """Called with each new file's path and bytes (xhip-opt starts writing it then); a future it
    returns is the file's checksum, computed as the bytes are written."""
    _checksums: dict[str, BackgroundChecksum] = field(default_factory=dict, repr=False)
    _unsettled: list[tuple[ModuleOp, str]] = field(default_factory=list, repr=False)

    def add(self, data: ConstantsBytes, into: str = "") -> str:
        """Keep `data` as a new constants file and start hashing it; the name the IR records for it.

        `into` (a directory, relative to the current one) overrides "beside the IR".
        """
        digest = checksum(data) if self.content_named else None  # a content name needs it now
        if digest is not None:
            base = f"{self.stem}.{digest[:CONTENT_NAME_DIGITS]}"
        else:
            base = self.stem if not self.files else f"{self.stem}.{len(self.files) + 1}"
        name = base + CONSTANTS_SUFFIX
        if into:
            target = Path(into) / name
            name = str(target) if target.is_absolute() else os.path.relpath(target, self.directory)
        self.files[name] = data
        job = self.on_add(self.directory / name, data) if self.on_add is not None else None
        self._checksums[name] = BackgroundChecksum(data, digest, job)
        return name

    def record(self, module: ModuleOp, name: str) -> None:
        """Name the file `name` in `module` with its size now, and its checksum at the next `settle`."""
        module.attributes[CONSTANTS_FILE_ATTR] = StringAttr(name)
        module.attributes[CONSTANTS_SIZE_ATTR] = IntegerAttr(len(self.files[name]), i64)
        self._unsettled.append((module, name))

    def settle(self) -> None:
        """Record in each module the checksum of the file it names (waiting for the hashing to end)."""
        for module, name in self._unsettled:
            module.attributes[CONSTANTS_SHA256_ATTR] = StringAttr(self._checksums[name].result())
        self._unsettled.clear()

    def data_of(self, module: ModuleOp) -> ConstantsData | None:
        """The constants file `module` names, checked against what it records; None if it names none."""
        self.settle()
        name = module.attributes.get(CONSTANTS_FILE_ATTR)
        if not isinstance(name, StringAttr):
            return None
        if name.data in self.files:
            return ConstantsData(self.files[name.data], name.data)
        path = self.directory / name.data
        size = module.attributes.get(CONSTANTS_SIZE_ATTR)
        digest = module.attributes.get(CONSTANTS_SHA256_ATTR)
        data = read_recorded(
            path,
            size.value.data if isinstance(size, IntegerAttr) else None,
            digest.data if isinstance(digest, StringAttr) else None,
        )
        return ConstantsData(data, str(path))


def pending_path(path: Path, sha256: str) -> Path:
    """Where the constants file with checksum `sha256` waits, beside the file `path` resolves to,
    while the commit that puts it at `path` is under way (`xhip.output_files`)."""
    real = Path(os.path.realpath(path))
    return real.with_name(f".{real.name}.{PENDING_MARK}{sha256[:CONTENT_NAME_DIGITS]}")


def read_recorded(path: Path, size: int | None, sha256: str | None) -> bytes:
    """The bytes of the constants file `path`, refused unless they have the `size` and `sha256` the
    IR records (hand-written IR may omit them).

    A file at `path` that is not the recorded one may be the old pair's while xhip-opt commits
    a new pair (or was killed between its renames): the recorded file is then at `pending_path`."""
    data, problem, seen = _read(path, size, sha256)
    if problem is None:
        return data
    del data  # not two large files in memory at once
    if sha256 is not None:
        pending, pending_problem, _ = _read(pending_path(path, sha256), size, sha256)
        if pending_problem is None:
            return pending
        del pending
        try:
            moved = seen is None or not _same_file(seen, os.stat(path))
        except OSError:
            moved = False
        if moved:  # the commit's last rename has just put the pending file at `path`
            again, again_problem, _ = _read(path, size, sha256)
            if again_problem is None:
                return again
    raise XhipError(problem, str(path))


def _read(path: Path, size: int | None, sha256: str | None) -> tuple[bytes, str | None, os.stat_result | None]:
    """The file's bytes, why they are not the recorded ones (or None), and the file's status."""
    try:
        with open(path, "rb") as handle:
            seen = os.fstat(handle.fileno())
            data = handle.read()
    except OSError as err:
        return b"", f"cannot read constants file: {err.strerror}", None
    return data, _mismatch(data, size, sha256), seen


def _same_file(a: os.stat_result, b: os.stat_result) -> bool:
    return (a.st_dev, a.st_ino, a.st_size, a.st_mtime_ns) == (b.st_dev, b.st_ino, b.st_size, b.st_mtime_ns)


def _mismatch(data: bytes, size: int | None, sha256: str | None) -> str | None:
    """Why `data` is not the file the IR was compiled with, or None."""
    advice = "it is not the file this IR was compiled with (recompile, or use the file written with it)"
    if size is not None and size != len(data):
        return f"constants file has {len(data)} bytes, the IR records {size}: {advice}"
    if sha256 is not None and sha256 != checksum(data):
        return f"constants file's sha256 is not the one the IR records: {advice}"
    return None
