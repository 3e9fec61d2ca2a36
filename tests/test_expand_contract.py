"""Expand to a target whose extents are known only at run time (Shape of another input).

The out takes the target's extents (the input's only where the target is 1), so an
input extent that is neither 1 nor the target's is refused by the runtime's Expand
contract, as onnxruntime refuses it, instead of returning the input unchanged.
"""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

import xhip
from xhip.diagnostics import XhipError
from xhip.runtime.check import onnxruntime_outputs
from xhip.testing.models import graph_model, value

F = TensorProto.FLOAT
MODES = [{}, {"deferred": True}, {"sanitize": True}]


def _expand_to_shape_of(x_dims: list) -> object:
    """y = Expand(x, Shape(t)) with t[m]: the target extent is a run-time value."""
    return graph_model(
        [
            helper.make_node("Shape", ["t"], ["target"], name="target_of_t"),
            helper.make_node("Expand", ["x", "target"], ["y"], name="widen"),
        ],
        [value("x", F, x_dims), value("t", F, ["m"])], [value("y", F, None)],
    )


def _feeds(x: int, t: int) -> dict[str, np.ndarray]:
    return {"x": np.arange(x, dtype=np.float32) + 1, "t": np.zeros(t, np.float32)}


@pytest.mark.parametrize("mode", MODES, ids=["plain", "deferred", "sanitize"])
@pytest.mark.parametrize("x_dims", [["n"], [3]], ids=["dynamic-input", "static-input"])
def test_an_input_extent_the_target_does_not_take_is_an_error(x_dims, mode):
    model, feeds = _expand_to_shape_of(x_dims), _feeds(3, 4)
    with pytest.raises(Exception):
        onnxruntime_outputs(model, feeds)
    executable = xhip.compile(model, **mode)
    with pytest.raises(XhipError, match=r"onnx node \"widen\".*\[3\] does not broadcast to \[4\]"):
        executable.run(feeds)


BROADCASTING = {
    "dynamic-equal": (["n"], 3, 3), "dynamic-stretch": (["n"], 1, 4), "dynamic-target-one": (["n"], 3, 1),
    "dynamic-to-zero": (["n"], 1, 0), "static-equal": ([3], 3, 3), "static-target-one": ([3], 3, 1),
}  # fmt: skip
"""(input dims, input extent, target extent) that onnxruntime accepts."""


@pytest.mark.parametrize("case", sorted(BROADCASTING))
def test_extents_that_broadcast_match_onnxruntime(case):
    x_dims, x, t = BROADCASTING[case]
    model, feeds = _expand_to_shape_of(x_dims), _feeds(x, t)
    expected = onnxruntime_outputs(model, feeds)
    outputs = xhip.compile(model, sanitize=True).run(feeds)
    np.testing.assert_array_equal(outputs["y"], expected["y"])
