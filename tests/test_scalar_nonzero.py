"""NonZero of a rank-0 tensor: ONNX's reference and onnxruntime read the scalar as a
1-element vector and give one index row, [1, n]; ONNX shape inference says [0, n].

xhip follows onnxruntime whatever the model declares for the result, and so do the
values computed from it.
"""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

import xhip
from xhip.runtime.check import onnxruntime_outputs
from xhip.testing.models import graph_model, value

F, I64 = TensorProto.FLOAT, TensorProto.INT64


@pytest.mark.parametrize("declared", [None, [0, "n"], [1, "n"]], ids=["undeclared", "onnx-inference", "onnxruntime"])
@pytest.mark.parametrize("x", [2.0, 0.0], ids=["nonzero", "zero"])
def test_nonzero_of_a_scalar_has_one_index_row(declared, x):
    model = graph_model([helper.make_node("NonZero", ["x"], ["y"])], [value("x", F, [])], [value("y", I64, declared)])
    feeds = {"x": np.asarray(x, np.float32)}
    expected = onnxruntime_outputs(model, feeds)["y"]
    assert expected.shape == (1, int(x != 0))
    got = xhip.compile(model, sanitize=True).run(feeds)["y"]
    assert got.shape == expected.shape and (got == expected).all()


def test_values_computed_from_it_follow():
    """Transpose and Shape of the indices see [1, n], as onnxruntime does."""
    model = graph_model(
        [helper.make_node("NonZero", ["x"], ["indices"]), helper.make_node("Transpose", ["indices"], ["t"]),
         helper.make_node("Shape", ["t"], ["shape"])],
        [value("x", F, [])], [value("t", I64, None), value("shape", I64, None)],
    )  # fmt: skip
    feeds = {"x": np.asarray(3.0, np.float32)}
    expected = onnxruntime_outputs(model, feeds)
    got = xhip.compile(model, sanitize=True).run(feeds)
    assert got["shape"].tolist() == expected["shape"].tolist() == [1, 1]
    assert got["t"].tolist() == expected["t"].tolist()
