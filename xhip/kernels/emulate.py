"""Runs rendered kernels on the CPU: g++ compiles the HIP source behind
templates/host_emulation.h (instead of the CUDA prelude or <hip/hip_runtime.h>), with
one launcher per kernel, and `launch` runs a kernel's grid with one host thread per GPU
thread. Device addresses are host addresses (NumPy arrays' `ctypes.data`).

For checking kernels against the NumPy reference where no GPU is: slow, but the same
source text. Imports only `abi`, so it runs without xdsl (benchmarks/gpu_kernel_check.py
loads it by path). Half-float kernels are not emulated.
"""

from __future__ import annotations

import ctypes
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

from xhip.kernels.abi import ArgValue, KernelABI, Launch

EMULATION_HEADER = Path(__file__).resolve().parents[2] / "templates" / "host_emulation.h"


def available() -> bool:
    return shutil.which("g++") is not None


def _launcher(abi: KernelABI) -> str:
    args = ", ".join(f"*({p.c_type()}*)args[{i}]" for i, p in enumerate(abi.params))
    # Grid-stride element kernels never synchronize: their threads may run in turn.
    cooperative = "false" if abi.launch is Launch.ELEMENTS else "true"
    return (
        f'extern "C" void xhip_emu_launch_{abi.name}(unsigned gx, unsigned gy, unsigned gz, '
        f"unsigned bx, unsigned by, unsigned bz, void** args) {{\n"
        f"  xhip_emu_launch(dim3{{gx, gy, gz}}, dim3{{bx, by, bz}}, {cooperative}, [=] {{ {abi.name}({args}); }});\n}}\n"
    )


class HostEmulator:
    """The kernels of one HIP source (rendered for target "hip"), compiled for the host."""

    def __init__(self, hip_source: str, abis: Iterable[KernelABI]):
        self.abis = {abi.name: abi for abi in abis}
        self._scratch = tempfile.TemporaryDirectory(prefix="xhip-emulate-")
        source = Path(self._scratch.name) / "kernels.cpp"
        library = Path(self._scratch.name) / "kernels.so"
        source.write_text(EMULATION_HEADER.read_text() + hip_source + "".join(_launcher(a) for a in self.abis.values()))
        command = ["g++", "-std=c++20", "-O1", "-w", "-shared", "-fPIC", "-pthread", "-o", str(library), str(source)]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"g++ (host emulation) failed:\n{done.stderr}")
        self._library = ctypes.CDLL(str(library))

    def launch(self, name: str, values: Mapping[str, ArgValue]) -> None:
        abi = self.abis[name]
        grid = abi.grid(values)
        if grid[0] == 0:
            return
        pointers, _buffer = abi.argument_pointers(abi.pack(values))
        getattr(self._library, f"xhip_emu_launch_{name}")(*grid, *abi.block_shape(), pointers)
