"""The cuda backend's NVRTC path on a CPU machine (NVRTC needs no GPU): half-precision
kernels compile with the headers of pip's nvidia-cuda-runtime, and without any headers a
kernel that needs them fails with one line naming the package.

Before, the driver called NVRTC with no include path: every fp16 kernel failed on a GPU with
`could not open source file "cuda_fp16.h" (no directories in search list)`, which CI never
saw (nvcc finds its toolkit's headers by itself).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("cuda.bindings.nvrtc")

from xhip.dialects import hip  # noqa: E402
from xhip.kernels.families import specs_for_launch  # noqa: E402
from xhip.kernels.render import render_unit  # noqa: E402
from xhip.kernels.spec_types import Operand  # noqa: E402
from xhip.runtime.backends.gpu import nvrtc  # noqa: E402
from xhip.runtime.backends.gpu.driver import DriverError  # noqa: E402

ELF = b"\x7fELF"


def _unit(dtype: str) -> str:
    x = Operand(np.dtype(dtype), (None, 8), True)
    return render_unit(specs_for_launch(hip.AddOp, {}, [x, x], [x]), "cuda")


@pytest.fixture
def fresh_search():
    nvrtc.include_dirs.cache_clear()
    yield
    nvrtc.include_dirs.cache_clear()


def test_the_headers_come_from_pip_before_any_toolkit(fresh_search):
    folders = nvrtc.include_dirs()
    assert folders, "nvidia-cuda-runtime (a test dependency) provides cuda_fp16.h"
    first = Path(folders[0]).resolve()
    assert Path(sys.prefix).resolve() in first.parents  # this environment's site-packages
    assert (first / "cuda_fp16.h").is_file() and (first / "cuda_bf16.h").is_file()
    assert nvrtc.version().endswith(f"+{folders[0]}")  # the cache key follows the headers


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_a_kernel_compiles_through_nvrtc(dtype, fresh_search):
    if dtype == "bfloat16":
        pytest.importorskip("ml_dtypes")  # numpy's bfloat16
    source = _unit(dtype)
    if dtype != "float32":
        assert "#define XHIP_NEEDS_" in source
    assert nvrtc.compile_cubin(source, "xhip_kernels", "sm_90").startswith(ELF)


def test_no_headers_is_one_line_naming_the_package(fresh_search, monkeypatch):
    monkeypatch.setattr(nvrtc, "_pip_headers", lambda: [])
    monkeypatch.setattr(nvrtc, "_toolkit_headers", lambda: [])
    with pytest.raises(DriverError) as failure:
        nvrtc.compile_cubin(_unit("float16"), "xhip_kernels", "sm_90")
    message = str(failure.value)
    assert "\n" not in message
    assert "pip install nvidia-cuda-runtime" in message and "CUDA_HOME" in message
    # A kernel that needs no header still compiles.
    assert nvrtc.compile_cubin(_unit("float32"), "xhip_kernels", "sm_90").startswith(ELF)
