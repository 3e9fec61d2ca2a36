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
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol


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
    explicit = os.environ.get("XHIP_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "xhip"


def cache_key(source: str, target: str, compiler_version: str) -> str:
    text = "\0".join((hashlib.sha256(source.encode()).hexdigest(), target, compiler_version))
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass
class CompileCache:
    directory: Path = field(default_factory=default_cache_dir)
    hits: int = 0
    misses: int = 0

    def path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.bin"

    def get(self, key: str) -> bytes | None:
        try:
            return self.path(key).read_bytes()
        except FileNotFoundError:
            return None

    def put(self, key: str, blob: bytes) -> Path:
        return self._write(self.path(key), blob)

    def kernel_image(self, key: str) -> bytes | None:
        """The code object of the unit that holds the kernel `key` names, if intact."""
        try:
            digest = (self.directory / "kernels" / key[:2] / key).read_text().strip()
            image = (self.directory / "units" / f"{digest}.bin").read_bytes()
        except (FileNotFoundError, UnicodeDecodeError):
            return None
        if hashlib.sha256(image).hexdigest() != digest:
            return None
        return image

    def put_kernels(self, keys: list[str], image: bytes) -> None:
        """Stores a unit's code object, and an entry naming it for each kernel it holds."""
        digest = hashlib.sha256(image).hexdigest()
        self._write(self.directory / "units" / f"{digest}.bin", image)
        for key in keys:
            self._write(self.directory / "kernels" / key[:2] / key, digest.encode())

    def _write(self, target: Path, blob: bytes) -> Path:
        """Writes atomically: a temporary file beside the entry, then a rename."""
        key = target.name
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{key[:8]}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(blob)
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        return target

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
