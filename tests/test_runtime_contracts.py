"""Run-time shape contracts: extents a graph accepts symbolically but its ops cannot take.

Each graph is valid with symbolic dims; the feeds make it invalid. onnxruntime
rejects every one of them; xhip must too, with one line naming the ONNX node,
under every mode, never with a truncated or garbage output.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import EXECUTION_MODE_IDS, EXECUTION_MODES
from onnx import TensorProto, helper

import xhip
from xhip.context import make_context
from xhip.diagnostics import XhipError
from xhip.parsing import parse_module
from xhip.runtime.check import onnxruntime_outputs
from xhip.runtime.executable import Executable
from xhip.testing.models import graph_model, value

F, I64 = TensorProto.FLOAT, TensorProto.INT64


def _floats(*shape: int) -> np.ndarray:
    return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape) - 3


def _vector_op(op_type: str, node: str, constant: list[int]):
    """`op_type(x[n], constant)`: one node named `node` with an int64 vector operand."""
    operand = helper.make_tensor("operand", I64, [len(constant)], constant)
    return graph_model(
        [helper.make_node(op_type, ["x", "operand"], ["y"], name=node)],
        [value("x", F, ["n"])], [value("y", F, None)], [operand],
    )


def _reshape_minus_one():
    model = _vector_op("Reshape", "to_rows_of_5", [-1, 5])
    return model, {"x": _floats(7)}, r"onnx node \"to_rows_of_5\".*cannot reshape 7 elements"


def _squeeze_of_not_one():
    model = _vector_op("Squeeze", "drop_axis", [0])
    return model, {"x": _floats(3)}, r"onnx node \"drop_axis\".*run-time shape \[3\] does not match the declared \[1\]"


def _binary(op_type: str, a_dims, b_dims, a_shape, b_shape, message: str):
    model = graph_model(
        [helper.make_node(op_type, ["a", "b"], ["y"], name="the_node")],
        [value("a", F, a_dims), value("b", F, b_dims)], [value("y", F, None)],
    )
    return model, {"a": _floats(*a_shape), "b": _floats(*b_shape)}, r"onnx node \"the_node\".*" + message


def _concat():
    model = graph_model(
        [helper.make_node("Concat", ["a", "b"], ["y"], axis=0, name="stack")],
        [value("a", F, ["n", "k"]), value("b", F, ["m", "j"])], [value("y", F, None)],
    )
    return model, {"a": _floats(2, 3), "b": _floats(4, 5)}, r"onnx node \"stack\".*Concat operand 1 has extent 5"


def _gather_out_of_range():
    model = graph_model(
        [helper.make_node("Gather", ["data", "indices"], ["y"], axis=0, name="pick_rows")],
        [value("data", F, ["n", "k"]), value("indices", I64, ["m"])], [value("y", F, None)],
    )
    feeds = {"data": _floats(2, 3), "indices": np.array([0, 5], np.int64)}
    return model, feeds, r"onnx node \"pick_rows\".*index 5 is out of range for axis 0 of extent 2"


def _gather_elements(data_shape, indices, message: str):
    model = graph_model(
        [helper.make_node("GatherElements", ["data", "indices"], ["y"], axis=1, name="pick_elements")],
        [value("data", F, ["n", "k"]), value("indices", I64, ["m", "j"])], [value("y", F, None)],
    )
    feeds = {"data": _floats(*data_shape), "indices": np.array(indices, np.int64)}
    return model, feeds, r"onnx node \"pick_elements\".*" + message


def _expand_to_a_wider_static_shape():
    model = _vector_op("Expand", "widen", [4])
    return model, {"x": _floats(3)}, r"onnx node \"widen\".*input of run-time shape \[3\] does not broadcast to \[4\]"


CASES = {
    "reshape_minus_one": _reshape_minus_one,
    "squeeze_of_not_one": _squeeze_of_not_one,
    "broadcast": lambda: _binary("Add", ["n"], ["m"], [3], [4], "cannot broadcast \\[3\\] with \\[4\\]"),
    "matmul_inner_dims": lambda: _binary("MatMul", ["m", "k"], ["j", "n"], [2, 3], [4, 5], "contraction dims differ: 3 vs 4"),
    "concat": _concat,
    "gather_index": _gather_out_of_range,
    # An index past its axis, and more index rows than data rows (off the axis).
    "gather_elements_index": lambda: _gather_elements((2, 3), [[0, 3]], "index 3 is out of range for axis 1 of extent 3"),
    "gather_elements_rows": lambda: _gather_elements((2, 3), [[0], [1], [2]], r"indices \[3, 1\] exceed data \[2, 3\] in dim 0"),
    "expand": _expand_to_a_wider_static_shape,
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_onnxruntime_rejects_the_feeds(case):
    model, feeds, _ = CASES[case]()
    with pytest.raises(Exception):
        onnxruntime_outputs(model, feeds)


@pytest.mark.parametrize("mode", EXECUTION_MODES, ids=EXECUTION_MODE_IDS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_a_broken_runtime_contract_is_a_one_line_error_naming_the_node(case, mode):
    model, feeds, message = CASES[case]()
    executable = xhip.compile(model, **mode)
    with pytest.raises(XhipError, match=message) as raised:
        executable.run(feeds)
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize("case", sorted(CASES))
def test_feeds_that_keep_the_contract_match_onnxruntime(case):
    model, _, _ = CASES[case]()
    good = {
        "reshape_minus_one": {"x": _floats(10)},
        "squeeze_of_not_one": {"x": _floats(1)},
        "broadcast": {"a": _floats(4), "b": _floats(1)},
        "matmul_inner_dims": {"a": _floats(2, 3), "b": _floats(3, 5)},
        "concat": {"a": _floats(2, 3), "b": _floats(4, 3)},
        "gather_index": {"data": _floats(2, 3), "indices": np.array([1, 0], np.int64)},
        "gather_elements_index": {"data": _floats(2, 3), "indices": np.array([[0, -1, 2, 2]], np.int64)},
        "gather_elements_rows": {"data": _floats(2, 3), "indices": np.array([[0], [2]], np.int64)},
        "expand": {"x": _floats(1)},
    }[case]
    reference = onnxruntime_outputs(model, good)
    outputs = xhip.compile(model, sanitize=True).run(good)
    assert set(outputs) == set(reference)
    for name, expected in reference.items():
        np.testing.assert_allclose(outputs[name], expected, rtol=1e-6)


SLICE_AT_RUNTIME_OFFSET = """
func.func @main_graph(%ctx: !hip.context, %x: memref<?xf32>, %start: memref<1xi64>) -> memref<2xf32, strided<[1], offset: ?>> {
  %c0 = arith.constant 0 : index
  %raw = memref.load %start[%c0] : memref<1xi64>
  %offset = arith.index_cast %raw : i64 to index
  %window = memref.subview %x[%offset] [2] [1] : memref<?xf32> to memref<2xf32, strided<[1], offset: ?>>
  func.return %window : memref<2xf32, strided<[1], offset: ?>>
}
"""


def test_a_slice_past_the_end_of_its_source_is_an_error():
    module = parse_module(make_context(), SLICE_AT_RUNTIME_OFFSET, "slice.mlir")
    x = _floats(5)
    assert list(Executable(module.clone()).run({"arg0": x, "arg1": np.array([3], np.int64)})["result0"]) == [0, 1]
    with pytest.raises(XhipError, match=r"^slice.mlir:6:3: error: slice of axis 0 \(offset 4, size 2, stride 1\) is out of bounds of extent 5$"):
        Executable(module).run({"arg0": x, "arg1": np.array([4], np.int64)})


TENSOR_SLICE_AT_RUNTIME_OFFSET = """
func.func @main_graph(%ctx: !hip.context, %x: tensor<?xf32>, %offset: index) -> tensor<2xf32> {
  %window = tensor.extract_slice %x[%offset] [2] [1] : tensor<?xf32> to tensor<2xf32>
  func.return %window : tensor<2xf32>
}
"""


def test_a_tensor_slice_past_the_end_is_an_error_not_a_short_result():
    module = parse_module(make_context(), TENSOR_SLICE_AT_RUNTIME_OFFSET, "slice.mlir")
    x = _floats(5)
    assert list(Executable(module.clone()).run({"arg0": x, "arg1": np.array(3)})["result0"]) == [0, 1]
    with pytest.raises(XhipError, match=r"^slice.mlir:3:3: error: slice of axis 0 \(offset 4, size 2, stride 1\) is out of bounds of extent 5$"):
        Executable(module).run({"arg0": x, "arg1": np.array(4)})
