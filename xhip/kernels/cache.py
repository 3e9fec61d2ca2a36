"""The on-disk compile cache: code objects keyed by source hash, target and compiler.

    cache = CompileCache()                       # $XHIP_CACHE_DIR, else the user cache dir
    blob, hit = cache.compile(source, compiler)  # a whole unit (CI's offline compiles)
    image = cache.kernel_image(key)              # the code object holding one kernel
    cache.put_kernels(keys, image)               # a unit compiled for these kernels

The runtime keys each kernel by its own source (`cache_key`), whatever batch it was
compiled in: a kernel compiled once, by any model in any process, is a hit for every
later one. A unit's code object is stored once under its own digest (`units/`), and
each kernel it holds names that digest (`kernels/`); a unit whose bytes do not match
its digest is a miss, never a module to load.

The directory is `$XHIP_CACHE_DIR` when set, else `$XDG_CACHE_HOME/xhip`, else
`~/.cache/xhip`. An entry is written to a temporary file in the same directory and
renamed into place, so a reader sees a whole code object or none, even when several
processes compile the same kernel at once.

Entries are checked before use, never trusted: a unit's bytes must match the digest it
is stored under, and a whole-unit entry (`get`) carries its own length and digest in a
header. A truncated, empty or garbage entry is a miss: the code is compiled again and
the entry replaced (atomically, as above). A cache folder that cannot be used (read-only,
a file, any OS error) means compiling without the cache, after one warning line on
stderr per folder and process.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from xhip import environment


class Compiler(Protocol):
    """What the cache needs of a compiler (offline ones in `compilers`, NVRTC/hiprtc in
    the GPU drivers)."""

    @property
    def target(self) -> str:
        """The code's target, e.g. `sm_90` or `gfx90a`."""

    @property
    def version(self) -> str:
        """Changes whenever the compiler could produce different code."""

    def compile(self, source: str) -> bytes: ...


def default_cache_dir() -> Path:
    explicit = os.environ.get(environment.CACHE_DIR)
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "xhip"


def cache_key(source: str, target: str, compiler_version: str) -> str:
    text = "\0".join((hashlib.sha256(source.encode()).hexdigest(), target, compiler_version))
    return hashlib.sha256(text.encode()).hexdigest()


ENTRY_MAGIC = b"xhip-cache-entry\n"
"""A whole-unit entry: this, the blob's sha256 (32 bytes), its length (8 bytes), the blob."""
_DIGEST = 32
_HEADER = len(ENTRY_MAGIC) + _DIGEST + 8

_warned: set[Path] = set()
"""Cache folders already warned about in this process (one line each)."""


def _entry(blob: bytes) -> bytes:
    return ENTRY_MAGIC + hashlib.sha256(blob).digest() + len(blob).to_bytes(8, "little") + blob


def _blob_of(entry: bytes) -> bytes | None:
    """The blob of an intact entry; None for a truncated, empty or garbage one."""
    if len(entry) < _HEADER or not entry.startswith(ENTRY_MAGIC):
        return None
    digest = entry[len(ENTRY_MAGIC) : len(ENTRY_MAGIC) + _DIGEST]
    length = int.from_bytes(entry[_HEADER - 8 : _HEADER], "little")
    blob = entry[_HEADER:]
    if len(blob) != length or hashlib.sha256(blob).digest() != digest:
        return None
    return blob


@dataclass
class CompileCache:
    directory: Path = field(default_factory=default_cache_dir)
    hits: int = 0
    misses: int = 0
    usable: bool = True
    """False once the folder failed a read or write other than a missing entry: from then
    on every lookup misses and nothing is written."""

    def path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.bin"

    def get(self, key: str) -> bytes | None:
        """The blob stored under `key`, if its entry is intact."""
        entry = self._read(self.path(key))
        return None if entry is None else _blob_of(entry)

    def put(self, key: str, blob: bytes) -> Path:
        target = self.path(key)
        self._write(target, _entry(blob))
        return target

    def kernel_image(self, key: str) -> bytes | None:
        """The code object of the unit that holds the kernel `key` names, if intact."""
        named = self._read(self.directory / "kernels" / key[:2] / key)
        try:
            digest = (named or b"").decode("ascii").strip()
        except UnicodeDecodeError:
            return None
        if len(digest) != 2 * _DIGEST or not all(c in "0123456789abcdef" for c in digest):
            return None
        image = self._read(self.directory / "units" / f"{digest}.bin")
        if image is None or hashlib.sha256(image).hexdigest() != digest:
            return None
        return image

    def put_kernels(self, keys: list[str], image: bytes) -> None:
        """Stores a unit's code object, and an entry naming it for each kernel it holds."""
        digest = hashlib.sha256(image).hexdigest()
        self._write(self.directory / "units" / f"{digest}.bin", image)
        for key in keys:
            self._write(self.directory / "kernels" / key[:2] / key, digest.encode())

    def _read(self, path: Path) -> bytes | None:
        if not self.usable:
            return None
        try:
            return path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as err:
            self._unusable(err)
            return None

    def _write(self, target: Path, blob: bytes) -> None:
        """Writes atomically: a temporary file beside the entry, then a rename."""
        if not self.usable:
            return
        key = target.name
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{key[:8]}.", suffix=".tmp")
        except OSError as err:
            self._unusable(err)
            return
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(blob)
            os.replace(temporary, target)
        except OSError as err:
            Path(temporary).unlink(missing_ok=True)
            self._unusable(err)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise

    def _unusable(self, err: OSError) -> None:
        self.usable = False
        if self.directory not in _warned:
            _warned.add(self.directory)
            reason = err.strerror or type(err).__name__
            print(f"xhip: warning: kernel cache {self.directory} is unusable ({reason}): compiling without it", file=sys.stderr)

    def compile(self, source: str, compiler: Compiler) -> tuple[bytes, bool]:
        """The code object of `source` for the compiler's target, and whether it was
        already cached."""
        key = cache_key(source, compiler.target, compiler.version)
        blob = self.get(key)
        if blob is not None:
            self.hits += 1
            return blob, True
        self.misses += 1
        blob = compiler.compile(source)
        self.put(key, blob)
        return blob, False
