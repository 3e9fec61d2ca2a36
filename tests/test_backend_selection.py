"""Which backend runs: `auto` falls back to the reference backend without a GPU, and a
GPU backend asked for by name on a machine without one says in one line what is missing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from xhip.runtime.backends import make_backend
from xhip.runtime.backends.gpu.driver import DriverUnavailable

REPO = Path(__file__).resolve().parents[1]


def _usable(name: str) -> bool:
    try:
        make_backend(name)
        return True
    except DriverUnavailable:
        return False


def _xhip_run(*args: str) -> subprocess.CompletedProcess[str]:
    tool = Path(sys.executable).parent / "xhip-run"
    return subprocess.run([str(tool), *args], capture_output=True, text=True, cwd=REPO)


@pytest.mark.parametrize("name", ["cuda", "hip"])
def test_a_missing_gpu_backend_is_one_line(name):
    if _usable(name):
        pytest.skip(f"a {name} GPU is usable here")
    result = _xhip_run("examples/attention.onnx", "--shape", "X=1x8", "--backend", name)
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: backend '{name}': "), result.stderr
    assert "Traceback" not in result.stderr


def test_auto_without_a_gpu_runs_on_reference():
    if _usable("cuda") or _usable("hip"):
        pytest.skip("a GPU is usable here")
    assert make_backend("auto").name == "reference"
    result = _xhip_run("examples/attention.onnx", "--shape", "X=1x8", "--backend", "auto", "--check")
    assert result.returncode == 0, result.stderr
    assert "backend                  reference: NumPy reference" in result.stdout


def test_sanitize_is_a_reference_mode():
    with pytest.raises(Exception, match="modes of the reference backend"):
        make_backend("cuda", sanitize=True)
    assert make_backend("auto", sanitize=True).name == "reference"


def test_every_backend_implements_the_whole_protocol():
    import inspect

    from xhip.runtime.backends.base import Backend
    from xhip.runtime.backends.gpu.backend import GpuBackend
    from xhip.runtime.backends.reference import ReferenceBackend

    methods = {name: member for name, member in vars(Backend).items() if callable(member) and not name.startswith("_")}
    assert {"allocate", "upload", "download", "load", "finish_loading", "sync", "to_host", "check_written"} <= set(methods)
    for backend in (ReferenceBackend, GpuBackend):
        for name, declared in methods.items():
            implemented = getattr(backend, name, None)
            assert implemented is not None, f"{backend.__name__} lacks {name}"
            wanted = list(inspect.signature(declared).parameters)
            assert list(inspect.signature(implemented).parameters)[: len(wanted)] == wanted, (backend.__name__, name)
