"""Einsum in the forms exporters and users write, with run-time dims, on the reference
backend against onnxruntime at two shapes each (the ONNX backend node tests have static
shapes only), through the default and the fp16 pipeline; and the forms xhip refuses."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

import xhip
from xhip.diagnostics import XhipError
from xhip.runtime.check import check_outputs, references
from xhip.testing.models import graph_model, value

CASES = [
    # equation, symbolic input shapes, concrete shapes at two runs (dims by symbol)
    ("bhid,bhjd->bhij", [["b", 2, "s", 8], ["b", 2, "t", 8]]),  # attention scores
    ("bhij,bhjd->bhid", [["b", 2, "s", "t"], ["b", 2, "t", 8]]),
    ("...ij,...jk->...ik", [["b", "s", 4], [1, 4, 3]]),  # "..." broadcast: b against 1
    ("bi,bj->bij", [["b", "s"], ["b", 5]]),  # outer product per batch row
    ("ij,jk,kl->il", [["s", 4], [4, 6], [6, "t"]]),  # three operands
    ("bij->bj", [["b", "s", 3]]),
    ("bnd,d", [["b", "s", 6], [6]]),  # implicit output: bn
    ("ij->", [["s", 3]]),
    ("ii->i", [["s", "s"]]),  # a diagonal at a run-time extent (the slice kernel)
    ("...ii->...i", [["b", 4, 4]]),  # a static one (a strided view)
    ("bii->b", [["b", 3, 3]]),  # a trace per batch row
    ("iji,jk->ik", [[3, "s", 3], ["s", 2]]),  # a diagonal, then a contraction
]
SIZES = ({"b": 2, "s": 5, "t": 7}, {"b": 1, "s": 3, "t": 2})


def _model(equation: str, shapes: list[list[object]]):
    names = [f"x{i}" for i in range(len(shapes))]
    return graph_model(
        [helper.make_node("Einsum", names, ["y"], equation=equation)],
        [value(name, TensorProto.FLOAT, shape) for name, shape in zip(names, shapes)],
        [value("y", TensorProto.FLOAT, None)],
        opset=18,
    )


@pytest.mark.parametrize("pipeline", [None, "fp16"])
@pytest.mark.parametrize("equation, shapes", CASES, ids=[c[0] for c in CASES])
def test_einsum_with_runtime_dims_matches_onnxruntime(equation, shapes, pipeline):
    model = _model(equation, shapes)
    executable = xhip.compile(model, pipeline, backend="reference")
    rng = np.random.default_rng(len(equation))
    for sizes in SIZES:
        feeds = {f"x{i}": rng.standard_normal([sizes.get(d, d) for d in shape]).astype(np.float32) for i, shape in enumerate(shapes)}
        result = check_outputs(executable.run(feeds), references(model, feeds), "reference", executable.compute_dtype)
        assert result.passed, result.problems


def test_einsum_becomes_transposes_a_matmul_and_views():
    ops = {op.name for op in xhip.compile(_model("bhid,bhjd->bhij", CASES[0][1]), backend="reference").module.walk()}
    assert "hip.matmul" in ops and not any("einsum" in name for name in ops)


@pytest.mark.parametrize(
    "equation, shapes, message",
    [
        ("ii->i", [[4, 5]], "is repeated in one term over extents [4, 5], which are not known to be equal"),
        # ONNX's shape inference finds these first (xhip's own checks: tests/filecheck).
        ("ij,jk", [[2, 3]], "does not match the operands in the equation"),
        ("ij->k", [[2, 3]], "contains a label missing from the inputs"),
    ],
)
def test_unsupported_einsum_forms_are_one_located_line(equation, shapes, message):
    with pytest.raises(XhipError) as caught:
        xhip.compile(_model(equation, shapes), backend="reference")
    text = str(caught.value)
    assert message in text and "\n" not in text
