"""NVRTC, the cuda backend's runtime compiler, with the CUDA headers found for it.

NVRTC searches no folder by itself: a kernel that includes `cuda_fp16.h` or `cuda_bf16.h`
(every half-precision specialization, through the CUDA prelude) compiles only when told
where they are. The include folders, in order:

1. the headers of pip's `nvidia-cuda-runtime` (what `xhip[cuda]` installs), found by
   cuda-pathfinder the way the CUDA Python packages find their libraries;
2. `$CUDA_HOME` / `$CUDA_PATH`, then `/usr/local/cuda`: a CUDA toolkit's `include/`.

A folder counts when it holds `cuda_fp16.h`. With none, a kernel that needs the headers
fails with one line saying which package provides them; kernels that need none compile.
NVRTC needs no GPU: `NvrtcCompiler` is the same path as an offline compiler, for CI.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from pathlib import Path

from cuda.bindings import nvrtc

from xhip.kernels.compilers import CompileError
from xhip.runtime.backends.gpu.driver import DriverError

HEADER = "cuda_fp16.h"
"""The header a folder must hold to be taken (cuda_bf16.h sits beside it)."""

MISSING_HEADERS = (
    "NVRTC found no CUDA headers (cuda_fp16.h, cuda_bf16.h) for half-precision kernels: "
    "pip install nvidia-cuda-runtime (or 'xhip[cuda]'), or set CUDA_HOME to a CUDA toolkit"
)


def _pip_headers() -> list[Path]:
    try:
        from cuda import pathfinder
    except ImportError:
        return []
    try:
        found = pathfinder.find_nvidia_header_directory("cudart")
    except Exception:  # noqa: BLE001 -- pathfinder raises its own errors for an odd install
        return []
    return [Path(found)] if found else []


def _toolkit_headers() -> list[Path]:
    homes = [os.environ.get(name) for name in ("CUDA_HOME", "CUDA_PATH")]
    return [Path(home) / "include" for home in homes if home] + [Path("/usr/local/cuda/include")]


@functools.cache
def include_dirs() -> tuple[str, ...]:
    """The folders NVRTC is given (`--include-path`), first match first; () when none holds
    the headers. Worked out once per process."""
    found: list[str] = []
    for folder in (*_pip_headers(), *_toolkit_headers()):
        if (folder / HEADER).is_file() and str(folder) not in found:
            found.append(str(folder))
    return tuple(found)


def version() -> str:
    """NVRTC's version and the header folder: either changing can change the code."""
    status, major, minor = nvrtc.nvrtcVersion()
    _check(status, "nvrtcVersion")
    headers = include_dirs()
    return f"nvrtc-{major}.{minor}" + (f"+{headers[0]}" if headers else "")


def compile_cubin(source: str, name: str, arch: str, options: Sequence[str] = ()) -> bytes:
    """The cubin of `source` for `arch` (e.g. sm_90); DriverError with NVRTC's first error
    lines, or with MISSING_HEADERS when the CUDA headers it needs were not found."""
    status, program = nvrtc.nvrtcCreateProgram(source.encode(), f"{name}.cu".encode(), 0, [], [])
    _check(status, "nvrtcCreateProgram")
    flags = [f"--gpu-architecture={arch}", "--std=c++17", "-default-device", *options]
    flags += [f"--include-path={folder}" for folder in include_dirs()]
    encoded = [flag.encode() for flag in flags]
    try:
        (status,) = nvrtc.nvrtcCompileProgram(program, len(encoded), encoded)
        if status != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            log = _log(program)
            if not include_dirs() and "open source file" in log:
                raise DriverError(f"NVRTC could not compile '{name}': {MISSING_HEADERS}")
            raise DriverError(f"NVRTC could not compile '{name}': {_errors(log)}")
        status, size = nvrtc.nvrtcGetCUBINSize(program)
        _check(status, "nvrtcGetCUBINSize")
        image = b" " * size
        (status,) = nvrtc.nvrtcGetCUBIN(program, image)
        _check(status, "nvrtcGetCUBIN")
        return image
    finally:
        nvrtc.nvrtcDestroyProgram(program)


def _log(program: object) -> str:
    status, size = nvrtc.nvrtcGetProgramLogSize(program)
    log = b" " * size
    nvrtc.nvrtcGetProgramLog(program, log)
    return log.decode(errors="replace")


def _errors(log: str) -> str:
    lines = [line for line in log.splitlines() if "error" in line]
    return "; ".join(lines[:3]) or log.strip()[:400]


def _check(status: object, call: str) -> None:
    if status != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        raise DriverError(f"{call} failed: {status}")


class NvrtcCompiler:
    """The runtime's NVRTC path as an offline compiler (`xhip.kernels.compilers`' shape):
    CI compiles every specialization through it, with no GPU."""

    kind = "cuda"
    tool = "nvrtc"

    def __init__(self, arch: str = "sm_90"):
        self.target = arch

    @property
    def available(self) -> bool:
        return True

    @property
    def version(self) -> str:
        return version()

    def compile(self, source: str) -> bytes:
        try:
            return compile_cubin(source, "xhip_kernels", self.target)
        except DriverError as err:
            raise CompileError(f"nvrtc ({self.target})", err.message, source) from None
