"""Offline compilers of rendered kernels: nvcc (sm_90, through the CUDA prelude) and
hipcc (gfx90a, HIP_PLATFORM=amd). CI has both and no GPU, so every template
specialization is compiled before any GPU sees it.

A failed compile raises `CompileError` with the compiler's own messages, which name
lines of the rendered source (kept in the error for reading).
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from xhip.kernels.render import Target


class CompileError(Exception):
    def __init__(self, compiler: str, messages: str, source: str):
        super().__init__(f"{compiler} failed:\n{messages.strip()}")
        self.source = source


@dataclass(frozen=True)
class OfflineCompiler:
    """One command line: `{tool} {flags} -o OUT SOURCE`."""

    kind: Target
    tool: str
    target: str
    flags: tuple[str, ...]
    suffix: str
    env: tuple[tuple[str, str], ...] = ()

    @property
    def available(self) -> bool:
        return self.executable is not None

    @property
    def executable(self) -> str | None:
        return shutil.which(self.tool) or next(
            (p for p in (f"/usr/local/cuda/bin/{self.tool}", f"/opt/rocm/bin/{self.tool}") if os.access(p, os.X_OK)), None
        )

    @property
    def version(self) -> str:
        """The tool's own version and the flags: either changing changes the code."""
        return _version(self.executable or self.tool, self.env) + "\n" + " ".join(self.flags)

    def compile(self, source: str) -> bytes:
        if self.executable is None:
            raise CompileError(self.tool, f"{self.tool} is not installed", source)
        with tempfile.TemporaryDirectory(prefix="xhip-compile-") as scratch:
            src, out = Path(scratch) / f"kernels{self.suffix}", Path(scratch) / "kernels.bin"
            src.write_text(source)
            command = [self.executable, *self.flags, "-o", str(out), str(src)]
            done = subprocess.run(command, capture_output=True, text=True, env={**os.environ, **dict(self.env)})
            if done.returncode != 0:
                raise CompileError(f"{self.tool} ({self.target})", done.stderr + done.stdout, source)
            return out.read_bytes()


@functools.cache
def _version(executable: str, env: tuple[tuple[str, str], ...]) -> str:
    done = subprocess.run([executable, "--version"], capture_output=True, text=True, env={**os.environ, **dict(env)})
    return (done.stdout + done.stderr).strip()


def nvcc(arch: str = "sm_90") -> OfflineCompiler:
    return OfflineCompiler("cuda", "nvcc", arch, (f"-arch={arch}", "-cubin", "-x", "cu"), ".cu")


def hipcc(arch: str = "gfx90a") -> OfflineCompiler:
    return OfflineCompiler(
        "hip", "hipcc", arch, (f"--offload-arch={arch}", "--genco", "-x", "hip"), ".hip", (("HIP_PLATFORM", "amd"),)
    )


def offline_compilers() -> list[OfflineCompiler]:
    return [nvcc(), hipcc()]
