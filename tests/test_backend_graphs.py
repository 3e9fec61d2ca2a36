"""Graph capture and replay through the backend protocol: captured work does not run until
replayed, and a replay reads the buffers' current contents (new inputs, same graph)."""

from __future__ import annotations

import numpy as np
import pytest

from xhip.runtime.backends import make_backend
from xhip.runtime.backends.gpu.driver import DriverUnavailable
from xhip.dialects.hip import ReluOp
from xhip.runtime.buffers import POISON_BYTE, MemRef, Owner
from xhip.kernels.families import facts_for, site_of
from xhip.kernels.spec_types import Operand


def _backend(name: str):
    try:
        return make_backend(name)
    except DriverUnavailable as err:
        pytest.skip(str(err))


@pytest.mark.parametrize(
    "name", ["reference", pytest.param("cuda", marks=pytest.mark.gpu), pytest.param("hip", marks=pytest.mark.gpu)]
)
def test_a_captured_relu_runs_only_when_replayed(name):
    backend = _backend(name)
    shape, dtype = (3, 5), np.dtype(np.float32)
    views = []
    for label in ("x", "y"):
        buffer = backend.allocate(15 * 4, label, "alloc")
        views.append(MemRef.contiguous(buffer, shape, dtype, Owner(label)))
    x, y = views
    first = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    backend.upload(x, first)
    facts = Operand.at_launch(dtype, shape, x.strides)
    relu = backend.load(site_of(facts_for(ReluOp, {}, [facts], [facts])), "test")
    backend.finish_loading()
    backend.begin_capture()
    relu([x], [y], [])
    graph = backend.end_capture()
    untouched = backend.to_host(y)
    assert (untouched.view(np.uint8) == POISON_BYTE).all()
    backend.replay(graph)
    np.testing.assert_array_equal(backend.to_host(y), np.maximum(first, 0))
    second = -first
    backend.upload(x, second)
    backend.replay(graph)
    np.testing.assert_array_equal(backend.to_host(y), np.maximum(second, 0))
