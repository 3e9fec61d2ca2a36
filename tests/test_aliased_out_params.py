"""Aliased graph outputs under buffer-results-to-out-params (the seed 003 pipeline).

Every output must be written into the caller's buffer, whatever it aliases: a
graph input that is also an output, two outputs that are one value, the same
value returned with different declared dims. Each graph runs against
onnxruntime, with the sanitizer on (it fails on an output nothing wrote).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from onnx import TensorProto, helper

import xhip
from xhip.runtime.check import compare, onnxruntime_outputs
from xhip.testing.models import graph_model, value

SEED_003 = Path(__file__).resolve().parents[1] / "pipelines" / "experiments" / "seed-003.yaml"
F = TensorProto.FLOAT
X = np.array([[-1.0, 2.0, 0.5], [3.0, -4.0, 1.5]], np.float32)


def _relu_and_identity(r_dims, i_dims):
    return graph_model(
        [helper.make_node("Relu", ["X"], ["r"], name="relu"), helper.make_node("Identity", ["r"], ["i"], name="identity")],
        [value("X", F, ["n", "m"])],
        [value("r", F, r_dims), value("i", F, i_dims)],
    )


MODELS = {
    "input_is_an_output": graph_model(
        [helper.make_node("Relu", ["X"], ["r"], name="relu")],
        [value("X", F, ["n", "m"])],
        [value("X", F, ["n", "m"]), value("r", F, ["n", "m"])],
    ),
    "two_outputs_one_buffer": _relu_and_identity(["n", "m"], ["n", "m"]),
    "one_value_with_different_declared_dims": _relu_and_identity(["n", "m"], ["n", 3]),
    "one_value_kept_and_promoted": _relu_and_identity(["n", "m"], ["n", "q"]),
}


@pytest.mark.parametrize("sanitize", [False, True], ids=["plain", "sanitize"])
@pytest.mark.parametrize("name", sorted(MODELS))
def test_aliased_outputs_match_onnxruntime(name, sanitize):
    model, feeds = MODELS[name], {"X": X}
    outputs = xhip.compile(model, SEED_003, sanitize=sanitize).run(feeds)
    result = compare(outputs, onnxruntime_outputs(model, feeds))
    assert result.passed, result.problems
