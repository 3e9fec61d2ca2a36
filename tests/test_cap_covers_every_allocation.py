"""The allocation cap covers what a run allocates beyond its pools: input copies, and the
reference kernels' own temporaries, which attention and softmax keep to tiles.

Before, the seed attention at 1 x 8000 planned a 6 MB pool and peaked at 0.83 GB of host
memory (its NumPy kernel built the whole 8000 x 8000 score tensor, and softmax's temporaries
beside it), and a 23.8 GiB stride-0 input view met NumPy's MemoryError in the input copy.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import xhip
from xhip.diagnostics import XhipError
from xhip.kernels import reference
from xhip.kernels.families import run_kernel

REPO = Path(__file__).resolve().parents[1]
ATTENTION = REPO / "examples" / "attention.onnx"

PEAK_RSS_SCRIPT = """
import json, sys
import numpy as np
import xhip
from xhip.diagnostics import XhipError
exe = xhip.compile(sys.argv[1], backend="reference")
x = np.random.default_rng(0).standard_normal((1, 8000, 64)).astype(np.float32)
try:
    out = exe.run({"X": x})["out"]
    result = {"ran": True, "written": bool(np.isfinite(out).all()), "pool": exe.report.pool_bytes}
except XhipError as err:
    result = {"ran": False, "error": str(err)}
# VmHWM, the peak of this process image: ru_maxrss would carry over the RSS of the pytest
# process this one was forked from (Linux keeps the larger of the two across exec).
hwm = next(line for line in open("/proc/self/status") if line.startswith("VmHWM:"))
result["peak_rss"] = int(hwm.split()[1]) * 1024
print(json.dumps(result))
"""


def test_seed_attention_at_8000_keeps_to_its_tiles_under_a_100_mb_cap():
    """Under XHIP_MAX_DEVICE_BYTES=1e8 the run either fits (peak RSS under 0.3 GB: the
    interpreter, the compiler and the model take about 0.1 GB) or fails with the cap's line."""
    env = {**os.environ, "XHIP_MAX_DEVICE_BYTES": "100000000"}
    done = subprocess.run([sys.executable, "-c", PEAK_RSS_SCRIPT, str(ATTENTION)], capture_output=True, text=True, env=env, cwd=REPO, timeout=300)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    if result["ran"]:
        assert result["written"] and result["peak_rss"] < 0.3e9, result
    else:
        assert "exceeds the cap" in result["error"] and "\n" not in result["error"], result


def test_a_huge_stride_zero_input_meets_the_cap_not_a_memory_error():
    exe = xhip.compile(ATTENTION, backend="reference", max_device_bytes=10**9)
    huge = np.broadcast_to(np.float32(1.0), (1, 100_000_000, 64))  # 23.8 GiB through 4 bytes
    with pytest.raises(XhipError) as failure:
        exe.run({"X": huge})
    message = str(failure.value)
    assert message.startswith("input 'X': error: allocation of 25600000000 bytes (23.8 GiB) exceeds the cap")
    assert "size = 1 * 100000000 * 64 * 4 bytes" in message and "\n" not in message
    with pytest.raises(XhipError, match="device array 'X'.*exceeds the cap"):
        exe.to_device(huge, "X")


def _tiles_of_one_row(monkeypatch) -> None:
    monkeypatch.setattr(reference, "TILE_BYTES", 1)


def test_softmax_tiles_compute_what_one_tile_does(monkeypatch):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 5, 7)).astype(np.float32)
    bias = rng.standard_normal((5, 1)).astype(np.float32)
    cases = [({"axis": -1}, [x]), ({"axis": 0, "scale": 0.5}, [x]), ({"axis": 1, "zero_nan": True}, [x, bias])]
    for attributes, inputs in cases:
        whole = np.full(x.shape, np.nan, np.float32)
        run_kernel("softmax", inputs, [whole], attributes, [])
        with monkeypatch.context() as patch:
            _tiles_of_one_row(patch)
            tiled = np.full(x.shape, np.nan, np.float32)
            run_kernel("softmax", inputs, [tiled], attributes, [])
        assert np.isfinite(tiled).all()  # every element written
        np.testing.assert_allclose(tiled, whole, rtol=1e-6, atol=1e-7)
