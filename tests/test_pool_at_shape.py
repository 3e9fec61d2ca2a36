"""`pool_bytes_at`: the pool a run would request, evaluated from the IR alone, equals
what the run requested, for every model of the test set at its three shapes and
under every shipped pipeline (the memory benchmark evaluates shapes too large to run)."""

from __future__ import annotations

import numpy as np
import pytest

import xhip
from xhip.analysis.pool_at_shape import pool_bytes_at
from xhip.runtime.bind import entry_function
from xhip.shipped import shipped_pipelines
from xhip.testing.models import MODELS, SHAPE_VARIANTS, feeds_at

PIPELINES = ["default", "seed-003", "grouped-packing"]


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize("name", sorted(MODELS))
def test_the_evaluated_pool_is_the_requested_pool(name, pipeline):
    executable = None
    for shapes in SHAPE_VARIANTS[name]:
        model, feeds = feeds_at(name, shapes, np.random.default_rng(0))
        if executable is None:
            executable = xhip.compile(model, shipped_pipelines()[pipeline], backend="reference")
        executable.run(feeds)
        function = entry_function(executable.module)
        at_shape = pool_bytes_at(executable.module, function, {k: v.shape for k, v in feeds.items()})
        assert at_shape == executable.report.pool_bytes, shapes


def test_a_pool_sized_by_device_data_is_not_evaluated():
    """A size read from the input's data (a host load) is not known from the shapes."""
    from helpers import parse_verified

    from xhip.context import make_context
    from xhip.passes.pool_allocs import PoolAllocsPass

    module = parse_verified(
        """
func.func @main_graph(%ctx: !hip.context, %x: memref<?xf32> {onnx.name = "x"}, %count: memref<1xindex> {onnx.name = "count"}) {
  %c0 = arith.constant 0 : index
  %m = memref.load %count[%c0] : memref<1xindex>
  %b = memref.alloc(%m) : memref<?xf32>
  hip.relu(%ctx) ins(%x : memref<?xf32>) outs(%b : memref<?xf32>)
  func.return
}
"""
    )
    PoolAllocsPass(planner="run-time").apply(make_context(), module)
    assert pool_bytes_at(module, entry_function(module), {"x": (8,), "count": (1,)}) is None
