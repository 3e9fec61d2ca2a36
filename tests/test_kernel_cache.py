"""The kernel cache checks every entry before use and survives a folder it cannot use.

Per-kernel entries (the runtime's: `kernels/<key>` names a unit, `units/<digest>.bin`
holds it) and whole-unit entries (`CompileCache.compile`, CI's offline compiles) that
are truncated, empty or garbage are misses: the code is compiled again, the entry is
replaced and the next lookup hits. A cache folder that is read-only or a file means
compiling without the cache after one warning line, never an OSError.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from xhip.api import compile_stages
from xhip.kernels import cache as cache_module
from xhip.kernels.cache import CompileCache
from xhip.runtime.backends.gpu.backend import GpuBackend
from xhip.runtime.backends.gpu.kernels import KernelLibrary
from xhip.runtime.executable import Executable
from xhip.testing.null_driver import NullDriver


def _model() -> onnx.ModelProto:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 8])
    nodes = [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Mul", ["r", "x"], ["y"])]
    return helper.make_model(helper.make_graph(nodes, "g", [x], [y]), opset_imports=[helper.make_opsetid("", 18)])


@pytest.fixture(scope="module")
def module():
    *_, (_, module, constants) = compile_stages(_model())
    return module, constants


def _compiles(module, cache_dir: Path) -> int:
    """Units compiled by a fresh library (a new process, as the cache sees it) over `cache_dir`;
    the executable runs either way."""
    ir, constants = module
    driver = NullDriver()
    backend = GpuBackend(driver)
    backend.kernels = KernelLibrary(driver, CompileCache(cache_dir))
    executable = Executable(ir, backend, constants=constants)
    assert executable.run({"x": np.ones((3, 8), np.float32)})["y"].shape == (3, 8)
    return executable.report.kernel_compiles


DAMAGE = {
    "truncated": lambda data: data[: len(data) // 2],
    "empty": lambda data: b"",
    "garbage": lambda data: os.urandom(max(len(data), 16)),
}


@pytest.mark.parametrize("damage", DAMAGE)
@pytest.mark.parametrize("entry", ["unit", "kernel"])
def test_a_damaged_per_kernel_entry_is_compiled_again_and_replaced(module, tmp_path, entry, damage):
    assert _compiles(module, tmp_path) == 1
    assert _compiles(module, tmp_path) == 0
    folder = tmp_path / ("units" if entry == "unit" else "kernels")
    files = [p for p in folder.rglob("*") if p.is_file()]
    assert files
    for path in files:
        path.write_bytes(DAMAGE[damage](path.read_bytes()))
    assert _compiles(module, tmp_path) == 1
    assert _compiles(module, tmp_path) == 0  # the entry was replaced


class Counting:
    target, version = "test-target", "1"

    def __init__(self) -> None:
        self.calls = 0

    def compile(self, source: str) -> bytes:
        self.calls += 1
        return f"object of {source}".encode()


@pytest.mark.parametrize("damage", DAMAGE)
def test_a_damaged_unit_entry_is_a_miss_and_is_replaced(tmp_path, damage):
    compiler = Counting()
    blob, hit = CompileCache(tmp_path).compile("kernel source", compiler)
    path = next(p for p in tmp_path.rglob("*.bin"))
    path.write_bytes(DAMAGE[damage](path.read_bytes()))
    again, hit_again = CompileCache(tmp_path).compile("kernel source", compiler)
    third, hit_third = CompileCache(tmp_path).compile("kernel source", compiler)
    assert (hit, hit_again, hit_third, compiler.calls) == (False, False, True, 2)
    assert blob == again == third == b"object of kernel source"


def _one_warning(stderr: str, folder: Path) -> None:
    lines = [line for line in stderr.splitlines() if line]
    assert len(lines) == 1, stderr
    assert lines[0].startswith(f"xhip: warning: kernel cache {folder} is unusable (")
    assert "compiling without it" in lines[0]


def test_a_cache_folder_that_is_a_file_compiles_without_it(module, tmp_path, capfd, monkeypatch):
    monkeypatch.setattr(cache_module, "_warned", set())
    folder = tmp_path / "cache"
    folder.write_text("not a folder")
    assert _compiles(module, folder) == 1
    assert _compiles(module, folder) == 1  # nothing could be cached
    _one_warning(capfd.readouterr().err, folder)
    assert folder.read_text() == "not a folder"


def test_a_read_only_cache_folder_compiles_without_it(module, tmp_path, capfd, monkeypatch):
    monkeypatch.setattr(cache_module, "_warned", set())
    folder = tmp_path / "cache"
    folder.mkdir()
    if os.geteuid() == 0:  # root writes through permission bits: a read-only mount then
        mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", str(folder)], capture_output=True)
        if mounted.returncode != 0:
            pytest.skip(f"as root a read-only folder needs a read-only mount: {mounted.stderr.decode().strip()}")
    else:
        folder.chmod(0o500)
    try:
        assert _compiles(module, folder) == 1
        assert _compiles(module, folder) == 1
        _one_warning(capfd.readouterr().err, folder)
    finally:
        if os.geteuid() == 0:
            subprocess.run(["umount", str(folder)], check=True)
        else:
            folder.chmod(0o700)
