"""One SSA value per extent: graph inputs that declare the same dim_param share one symbol.

A masked embedding as exporters write it (input_ids and attention_mask, both
[batch, seq]): after convert-onnx-to-hip, canonicalize and cse the two symbols are
read once each, from the first input, so every destination and the pool size are
expressions of `batch` and `seq` alone. The runtime rejects feeds whose dims
disagree with a shared symbol, and the compiled model matches onnxruntime.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from xdsl.dialects import arith, func, tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DictionaryAttr,
    IndexType,
    MemRefType,
    StringAttr,
    TensorType,
    f32,
)

import xhip
from helpers import after_passes, ops_of
from xhip.diagnostics import XhipError
from xhip.dialects.onnx import DIM_PARAMS_ATTR, format_dim_params, shared_symbol_dims
from xhip.importer import import_model
from xhip.runtime.check import compare, onnxruntime_outputs
from xhip.testing.models import graph_model, value

HIDDEN = 16
VOCABULARY = 32
CONVERTED = "hip-add-context-arg,convert-onnx-to-hip,canonicalize,cse"


def masked_embedding() -> onnx.ModelProto:
    """Gather(table, input_ids) * Unsqueeze(attention_mask, -1), then a projection and Relu."""
    rng = np.random.default_rng(5)
    table = numpy_helper.from_array(rng.standard_normal((VOCABULARY, HIDDEN)).astype(np.float32), "table")
    weight = numpy_helper.from_array(rng.standard_normal((HIDDEN, HIDDEN)).astype(np.float32), "weight")
    axes = numpy_helper.from_array(np.array([-1], np.int64), "axes")
    nodes = [
        helper.make_node("Gather", ["table", "input_ids"], ["embedded"]),
        helper.make_node("Unsqueeze", ["attention_mask", "axes"], ["mask"]),
        helper.make_node("Mul", ["embedded", "mask"], ["masked"]),
        helper.make_node("MatMul", ["masked", "weight"], ["projected"]),
        helper.make_node("Relu", ["projected"], ["y"]),
    ]
    inputs = [
        value("input_ids", TensorProto.INT64, ["batch", "seq"]),
        value("attention_mask", TensorProto.FLOAT, ["batch", "seq"]),
    ]
    return graph_model(nodes, inputs, [value("y", TensorProto.FLOAT, ["batch", "seq", HIDDEN])], [table, weight, axes])


def feeds(batch: int, seq: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(batch * 100 + seq)
    return {
        "input_ids": rng.integers(0, VOCABULARY, (batch, seq)).astype(np.int64),
        "attention_mask": (rng.random((batch, seq)) > 0.3).astype(np.float32),
    }


@pytest.fixture(scope="module")
def converted():
    return after_passes(import_model(masked_embedding()), CONVERTED)


def test_each_symbol_is_read_once_from_the_first_input(converted):
    (function,) = ops_of(converted, func.FuncOp)
    input_ids = function.body.blocks.first.args[1]
    dims = ops_of(converted, tensor.DimOp)
    assert [dim.source for dim in dims] == [input_ids, input_ids]
    extents = {dim.result for dim in dims}
    for empty in ops_of(converted, tensor.EmptyOp):
        assert set(empty.dynamic_sizes) <= extents, empty
    # Equal extents need no broadcast arithmetic (no select between the two inputs' dims).
    assert not ops_of(converted, arith.SelectOp)


def test_pool_size_is_an_expression_of_the_symbols_alone():
    """No opaque `%select` leaf: the planner sees the mask's extents as the ids' extents."""
    from xhip.dialects.hip.attributes import pool_buffers

    executable = xhip.compile(masked_embedding(), backend="reference")
    (record,) = pool_buffers(executable.module).values()
    sizes = " + ".join(record.sizes)  # the pool is planned at run time from these
    assert "%" not in sizes and "batch" in sizes and "seq" in sizes, sizes


@pytest.mark.parametrize("batch, seq", [(1, 1), (2, 5), (3, 17), (0, 4)])
def test_matches_onnxruntime(batch: int, seq: int):
    model = masked_embedding()
    inputs = feeds(batch, seq)
    result = compare(xhip.compile(model, backend="reference").run(inputs), onnxruntime_outputs(model, inputs))
    assert result.passed, result.problems


def test_runtime_rejects_feeds_that_disagree_on_a_shared_symbol():
    executable = xhip.compile(masked_embedding(), backend="reference")
    inputs = feeds(2, 5)
    inputs["attention_mask"] = np.ones((2, 6), np.float32)
    with pytest.raises(XhipError, match="input 'attention_mask' dim 1 is 6 but 'input_ids' dim 1 gives 'seq' = 5"):
        executable.run(inputs)


def _attrs(*symbols: dict[int, str]) -> ArrayAttr:
    return ArrayAttr([DictionaryAttr({DIM_PARAMS_ATTR: format_dim_params(s)} if s else {}) for s in symbols])


def test_shared_symbol_dims_maps_later_declarations_to_the_first():
    types = [
        IndexType(),  # a context or scalar takes no part
        TensorType(f32, [DYNAMIC_INDEX, DYNAMIC_INDEX]),
        MemRefType(f32, [DYNAMIC_INDEX, 4, DYNAMIC_INDEX]),
        TensorType(f32, [DYNAMIC_INDEX, DYNAMIC_INDEX]),
    ]
    attrs = _attrs({}, {0: "n", 1: "n"}, {0: "m", 1: "n", 2: "n"}, {0: "m", 1: "k"})
    # [n, n] shares within one input; a static dim named "n" is not a symbol's dim.
    assert shared_symbol_dims(types, attrs) == {(1, 1): (1, 0), (2, 2): (1, 0), (3, 0): (2, 0)}


def test_shared_symbol_dims_rejects_a_malformed_attribute():
    with pytest.raises(ValueError, match="is not AXIS:NAME"):
        attrs = ArrayAttr([DictionaryAttr({DIM_PARAMS_ATTR: StringAttr("x:n")})])
        shared_symbol_dims([TensorType(f32, [DYNAMIC_INDEX])], attrs)

