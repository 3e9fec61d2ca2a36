"""Loading an ONNX file with its large weights left in the file."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.external_data_helper import ExternalDataInfo

from xhip.importer import import_model
from xhip.onnx_wire import MIN_EXTERNALIZED_BYTES, WireFormatError, model_bytes_without_weights


def _model(tmp_path):
    rng = np.random.default_rng(7)
    big = rng.standard_normal((64, 64)).astype(np.float32)  # 16 KiB: goes external
    small = np.arange(1, 5, dtype=np.int64)  # 32 bytes: stays inline
    graph = helper.make_graph(
        [
            helper.make_node("MatMul", ["x", "w"], ["y"], name="mm"),
            helper.make_node("Reshape", ["y", "shape"], ["z"], name="reshape"),
        ],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 64])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(big, "w"), numpy_helper.from_array(small, "shape")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], doc_string="kept")
    path = tmp_path / "m.onnx"
    onnx.save(model, path)
    return path, big, small


def test_large_weights_become_references_to_their_own_bytes(tmp_path):
    path, big, small = _model(tmp_path)
    stripped = onnx.ModelProto()
    stripped.ParseFromString(model_bytes_without_weights(str(path)))
    original = onnx.load(path)
    assert len(stripped.SerializeToString()) < MIN_EXTERNALIZED_BYTES
    weight, shape = stripped.graph.initializer
    assert weight.data_location == TensorProto.EXTERNAL and not weight.HasField("raw_data")
    info = ExternalDataInfo(weight)
    assert info.location == "m.onnx"
    data = path.read_bytes()[int(info.offset) : int(info.offset) + int(info.length)]
    assert np.array_equal(np.frombuffer(data, np.float32).reshape(64, 64), big)
    assert shape.data_location == TensorProto.DEFAULT
    assert np.array_equal(numpy_helper.to_array(shape), small)
    # Everything but the weight bytes is untouched.
    assert stripped.graph.node == original.graph.node
    assert stripped.doc_string == "kept" and stripped.opset_import == original.opset_import


def test_import_from_path_equals_import_of_loaded_proto(tmp_path):
    path, _, _ = _model(tmp_path)
    from xhip.printing import print_ir

    assert print_ir(import_model(path)) == print_ir(import_model(onnx.load(path)))


def test_truncated_file_is_a_one_line_error(tmp_path):
    path, _, _ = _model(tmp_path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(WireFormatError):
        model_bytes_without_weights(str(path))
    from xhip.diagnostics import XhipError

    with pytest.raises(XhipError) as raised:
        import_model(path)
    assert str(raised.value) == f"{path}: error: cannot read ONNX model: not a valid ONNX protobuf file"
