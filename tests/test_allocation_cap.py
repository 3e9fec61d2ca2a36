"""No allocation larger than the machine, or than a configured cap, is ever attempted.

A garbage extent (read from a raced slot) must be a one-line error naming the op,
its size expression and its size, not a multi-GiB request the kernel kills.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from xhip.api import compile_stages
from xhip.context import make_context
from xhip.diagnostics import XhipError
from xhip.parsing import parse_module
from xhip.runtime.executable import Executable
from xhip.runtime.limits import MAX_BYTES_ENV, physical_memory

ATTENTION = Path(__file__).resolve().parents[1] / "examples" / "attention.onnx"
FEEDS = {"X": np.random.default_rng(0).standard_normal((2, 16, 64)).astype(np.float32)}
POOL_BYTES = 2 * 16 * 768  # this model's pool at batch 2, seq 16: the Q|K|V projection (the fused attention stores no scores)


@pytest.fixture(scope="module")
def attention():
    *_, (_, module, constants) = compile_stages(ATTENTION)
    return module, constants


@pytest.fixture(autouse=True)
def no_cap_from_the_environment(monkeypatch):
    monkeypatch.delenv(MAX_BYTES_ENV, raising=False)


def _run(attention, **options):
    module, constants = attention
    return Executable(module.clone(), constants=constants, **options).run(FEEDS)


def test_a_pool_above_the_option_cap_is_a_one_line_error(attention):
    with pytest.raises(XhipError) as raised:
        _run(attention, max_device_bytes=POOL_BYTES - 1)
    message = str(raised.value)
    assert message.startswith(
        f"'hip.get_pool': error: allocation of {POOL_BYTES} bytes exceeds the cap of {POOL_BYTES - 1} bytes "
        "(max_device_bytes): size = "
    )
    assert "dim(%arg0, 0) * dim(%arg0, 1)" in message and "\n" not in message
    assert _run(attention, max_device_bytes=POOL_BYTES)["out"].shape == (2, 16, 64)


def test_the_environment_variable_caps_too(attention, monkeypatch):
    monkeypatch.setenv(MAX_BYTES_ENV, str(POOL_BYTES - 1))
    with pytest.raises(XhipError, match=rf"exceeds the cap of {POOL_BYTES - 1} bytes \({MAX_BYTES_ENV}\)"):
        _run(attention)
    with pytest.raises(XhipError, match=r"cap of 100 bytes \(max_device_bytes\)"):
        _run(attention, max_device_bytes=100)  # the smaller of the two wins


def test_a_bad_environment_variable_is_an_error(attention, monkeypatch):
    monkeypatch.setenv(MAX_BYTES_ENV, "lots")
    with pytest.raises(XhipError, match=rf"^error: {MAX_BYTES_ENV}='lots' is not a number of bytes$"):
        _run(attention)


GARBAGE_EXTENT = """
func.func @main_graph(%ctx: !hip.context, %x: memref<1xi64>) -> memref<?x1024xf32> {
  %c0 = arith.constant 0 : index
  %raw = memref.load %x[%c0] : memref<1xi64>
  %rows = arith.index_cast %raw : i64 to index
  %y = hip.alloc_output(%ctx, %rows) {out_idx = 0 : i64} : memref<?x1024xf32>
  func.return %y : memref<?x1024xf32>
}
"""


def test_an_allocation_larger_than_the_machine_is_never_attempted():
    module = parse_module(make_context(), GARBAGE_EXTENT, "garbage.mlir")
    rows = physical_memory() // 4096 + 1  # one row more than the machine holds
    with pytest.raises(XhipError) as raised:
        Executable(module).run({"arg0": np.array([rows], np.int64)})
    assert str(raised.value) == (
        f"garbage.mlir:6:3: error: allocation of {rows * 4096} bytes ({rows * 4096 / 2**30:.1f} GiB) exceeds the cap "
        f"of {physical_memory()} bytes ({physical_memory() / 2**30:.1f} GiB) (the machine's physical memory): "
        "size = %rows * 1024 * 4 bytes"
    )


def test_a_negative_extent_is_an_error():
    module = parse_module(make_context(), GARBAGE_EXTENT, "garbage.mlir")
    with pytest.raises(XhipError, match=r"^garbage.mlir:6:3: error: allocation with a negative extent -3: size = %rows \* 1024 \* 4 bytes$"):
        Executable(module).run({"arg0": np.array([-3], np.int64)})
