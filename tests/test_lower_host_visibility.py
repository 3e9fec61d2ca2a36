"""Host reads of device data: unsafe before hip-lower-host-visibility, safe after."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import EXECUTION_MODES

from xhip.context import make_context
from xhip.diagnostics import XhipError
from xhip.parsing import parse_module
from xhip.pass_runner import run_passes
from xhip.passes.lower_host_visibility import LowerHostVisibilityPass
from xhip.runtime.executable import Executable

COUNT = """
func.func @main_graph(%ctx: !hip.context, %x: memref<8xf32>) -> i64 {
  %indices = memref.alloc() : memref<1x8xi64>
  %count = memref.alloc() : memref<i64>
  hip.nonzero(%ctx) ins(%x : memref<8xf32>) outs(%indices, %count : memref<1x8xi64>, memref<i64>)
  %n = memref.load %count[] : memref<i64>
  func.return %n : i64
}
"""
X = np.array([0, 1.5, 0, -2, 3, 0, 0, 7], np.float32)


def _module():
    return parse_module(make_context(), COUNT, "count.mlir")


def test_unlowered_read_races_the_kernel():
    with pytest.raises(XhipError, match=r"sanitizer: host read of '%count .*' bytes \[0, 8\) that queued"):
        Executable(_module(), sanitize=True).run({"arg0": X})


def test_lowered_read_is_a_readback_and_correct_in_every_mode():
    module = _module()
    run_passes(make_context(), module, [LowerHostVisibilityPass()])
    for mode in EXECUTION_MODES:
        executable = Executable(module, **mode)
        assert executable.run({"arg0": X})["result0"] == 4
        assert executable.report.readbacks == 1


COUNT_THEN_MORE_WORK = """
func.func @main_graph(%ctx: !hip.context, %x: memref<8xf32>, %big: memref<64x64xf32>) -> (i64, memref<64x64xf32>) {
  %indices = memref.alloc() : memref<1x8xi64>
  %count = memref.alloc() : memref<i64>
  hip.nonzero(%ctx) ins(%x : memref<8xf32>) outs(%indices, %count : memref<1x8xi64>, memref<i64>)
  %later = memref.alloc() : memref<64x64xf32>
  hip.matmul(%ctx) ins(%big, %big : memref<64x64xf32>, memref<64x64xf32>) outs(%later : memref<64x64xf32>)
  %n = memref.load %count[] : memref<i64>
  func.return %n, %later : i64, memref<64x64xf32>
}
"""


@pytest.mark.parametrize("strategy, syncs, event_waits", [("readback", 1, 0), ("event", 1, 1)])
def test_event_strategy_waits_for_the_producer_only(strategy, syncs, event_waits):
    """`readback` drains the matmul queued after the count; `event` leaves it queued."""
    module = parse_module(make_context(), COUNT_THEN_MORE_WORK, "event.mlir")
    run_passes(make_context(), module, [LowerHostVisibilityPass(strategy=strategy)])
    big = np.random.default_rng(3).standard_normal((64, 64)).astype(np.float32)
    for mode in ({"deferred": True}, {"sanitize": True}):
        executable = Executable(module, **mode)
        outputs = executable.run({"arg0": X, "arg1": big})
        assert outputs["result0"] == 4
        np.testing.assert_allclose(outputs["result1"], big @ big, rtol=1e-4)
        report = executable.report
        # With `readback` the readback is the one full drain; with `event` the
        # matmul is still queued at the readback and the end of the run drains it.
        assert (report.readbacks, report.syncs, report.event_waits) == (1, syncs, event_waits)
