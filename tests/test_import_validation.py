"""Invalid ONNX graphs and files are refused at import with one located line.

Each model is built with onnx.helper the way a broken exporter would write it;
before these checks the importer let the last writer of a name win, turned an
empty input name into a KeyError, and accepted negative dims.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from helpers import import_error
from onnx import TensorProto, helper, numpy_helper

from xhip.importer import import_model
from xhip.testing.models import graph_model


def tensor(name: str, shape=(2, 3), elem=TensorProto.FLOAT) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, elem, shape)


def saved(model: onnx.ModelProto, folder: Path, name: str = "model.onnx") -> Path:
    path = folder / name
    path.write_bytes(model.SerializeToString())
    return path


def relu(name: str, source: str, target: str) -> onnx.NodeProto:
    return helper.make_node("Relu", [source], [target], name=name)


# --------------------------------------------------------------------------- names


def test_two_nodes_writing_one_name(tmp_path: Path):
    nodes = [relu("a", "x", "y"), helper.make_node("Neg", ["x"], ["y"], name="b")]
    path = saved(graph_model(nodes, [tensor("x")], [tensor("y")]), tmp_path)
    assert import_error(path) == (
        f"{path}: error: onnx node \"b\" (op 'Neg') writes 'y', which onnx node \"a\" (op 'Relu') already "
        "defines (each value name must be written once)"
    )


def test_node_overwriting_an_initializer():
    weight = numpy_helper.from_array(np.ones((2, 3), np.float32), "w")
    model = graph_model([relu("r", "x", "w")], [tensor("x")], [tensor("w")], [weight])
    assert "writes 'w', which initializer 'w' already defines" in import_error(model)


def test_node_overwriting_a_graph_input():
    model = graph_model([relu("r", "x", "x")], [tensor("x")], [tensor("x")])
    assert "onnx node \"r\" (op 'Relu') writes 'x', which graph input 'x' already defines" in import_error(model)


def test_two_graph_inputs_with_one_name():
    model = graph_model([relu("r", "x", "y")], [tensor("x"), tensor("x", [4])], [tensor("y")])
    assert import_error(model) == "error: graph input 'x' is declared twice"


def test_two_initializers_with_one_name():
    weights = [numpy_helper.from_array(np.ones(3, np.float32), "w") for _ in range(2)]
    model = graph_model([helper.make_node("Add", ["x", "w"], ["y"], name="add")], [tensor("x")], [tensor("y")], weights)
    assert import_error(model) == "error: initializer 'w' is defined twice"


def test_initializer_that_is_also_a_graph_input_is_still_accepted():
    weight = numpy_helper.from_array(np.ones(3, np.float32), "w")
    add = helper.make_node("Add", ["x", "w"], ["y"], name="add")
    import_model(graph_model([add], [tensor("x"), tensor("w", [3])], [tensor("y")], [weight]))


@pytest.mark.parametrize(
    ("inputs", "outputs", "message"),
    [
        ([tensor(""), tensor("x")], [tensor("y")], "error: graph input #0 has an empty name"),
        ([tensor("x")], [tensor("")], "error: a graph output has an empty name"),
    ],
)
def test_empty_graph_value_names(inputs, outputs, message):
    model = graph_model([relu("r", "x", "y")], inputs, outputs)
    assert import_error(model) == message


def test_undefined_input_names_the_node_and_position():
    model = graph_model([helper.make_node("Add", ["x", "ghost"], ["y"], name="add")], [tensor("x")], [tensor("y")])
    assert import_error(model) == (
        "error: onnx node \"add\" (op 'Add') input #1 'ghost' is not defined by any node, graph input or initializer"
    )


def test_cycle_is_reported_with_its_nodes():
    nodes = [relu("a", "c", "a_out"), relu("b", "a_out", "b_out"), relu("c", "b_out", "c")]
    model = graph_model(nodes, [tensor("x")], [tensor("b_out")])
    assert import_error(model) == (
        "error: onnx node \"a\" (op 'Relu') is on a cycle: "
        'onnx node "a" -> onnx node "b" -> onnx node "c" -> onnx node "a"'
    )


def test_node_reading_its_own_output_is_a_cycle():
    model = graph_model([helper.make_node("Add", ["x", "y"], ["y"], name="loop")], [tensor("x")], [tensor("y")])
    assert "onnx node \"loop\" (op 'Add') is on a cycle: onnx node \"loop\" -> onnx node \"loop\"" in import_error(model)


# --------------------------------------------------------------------------- empty (omitted) names


def test_empty_name_for_a_required_variadic_input(tmp_path: Path):
    concat = helper.make_node("Concat", ["x", ""], ["y"], name="n3", axis=0)
    path = saved(graph_model([concat], [tensor("x")], [tensor("y", None)]), tmp_path)
    assert import_error(path) == (
        f"{path}: error: onnx node \"n3\" (op 'Concat') input #1 has an empty name (an omitted input), "
        "but the op requires it"
    )


def test_empty_name_for_a_required_single_input():
    add = helper.make_node("Add", ["", "x"], ["y"], name="add")
    model = graph_model([add], [tensor("x")], [tensor("y")])
    assert "onnx node \"add\" (op 'Add') input #0 has an empty name (an omitted input)" in import_error(model)


def test_empty_name_for_a_required_output():
    model = graph_model([relu("r", "x", "")], [tensor("x")], [tensor("y")])
    assert import_error(model) == (
        "error: onnx node \"r\" (op 'Relu') output #0 has an empty name (an omitted output), but the op requires it"
    )


def test_empty_names_for_omitted_optional_inputs_are_accepted():
    starts, ends = (numpy_helper.from_array(np.array([v], np.int64), n) for n, v in (("s", 0), ("e", 1)))
    node = helper.make_node("Slice", ["x", "s", "e", "", ""], ["y"], name="slice")
    module = import_model(graph_model([node], [tensor("x")], [tensor("y", None)], [starts, ends]))
    assert "onnx.NoValue" in str(module)


# --------------------------------------------------------------------------- dims


@pytest.mark.parametrize(
    ("shape", "message"),
    [
        ([-2, 3], "error: graph input 'x': dim 0 is -2; a static dim must not be negative"),
        ([2**62, 2**62], "error: graph input 'x': shape [4611686018427387904, 4611686018427387904] holds more than 2^63 bytes"),
    ],
)
def test_bad_static_dims_of_a_graph_input(shape, message):
    model = graph_model([relu("r", "x", "y")], [tensor("x", shape)], [tensor("y", None)])
    assert import_error(model) == message


def test_negative_dims_of_an_initializer():
    weight = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[3, -1])
    model = graph_model([helper.make_node("Add", ["x", "w"], ["y"], name="add")], [tensor("x")], [tensor("y", None)], [weight])
    assert import_error(model) == "error: initializer 'w': dim 1 is -1; a static dim must not be negative"


# --------------------------------------------------------------------------- opsets and files


def test_ai_onnx_opset_imported_twice():
    model = graph_model([relu("r", "x", "y")], [tensor("x")], [tensor("y")])
    model.opset_import.append(helper.make_opsetid("ai.onnx", 13))
    assert import_error(model) == "error: the model imports the ai.onnx opset 2 times, at different versions (18, 13)"


@pytest.mark.parametrize("keep", [0.5, 0.99])
def test_truncated_protobuf(tmp_path: Path, keep: float):
    weight = numpy_helper.from_array(np.ones((64, 64), np.float32), "w")
    model = graph_model([helper.make_node("Add", ["x", "w"], ["y"], name="add")], [tensor("x", [64, 64])], [tensor("y")], [weight])
    data = model.SerializeToString()
    path = tmp_path / "cut.onnx"
    path.write_bytes(data[: int(len(data) * keep)])
    assert import_error(path) == f"{path}: error: cannot read ONNX model: not a valid ONNX protobuf file"


def external_weight(location: str, **entries: str) -> TensorProto:
    weight = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[2, 3], data_location=TensorProto.EXTERNAL)
    for key, value in {"location": location, **entries}.items():
        entry = weight.external_data.add()
        entry.key, entry.value = key, value
    return weight


def external_model(weight: TensorProto) -> onnx.ModelProto:
    add = helper.make_node("Add", ["x", "w"], ["y"], name="add")
    return graph_model([add], [tensor("x")], [tensor("y", None)], [weight])


@pytest.mark.parametrize("escape", ["../outside.bin", "ABSOLUTE"])
def test_external_data_outside_the_model_folder_is_refused(tmp_path: Path, escape: str):
    outside = tmp_path / "outside.bin"
    outside.write_bytes(bytes(24))
    folder = tmp_path / "model"
    folder.mkdir()
    location = str(outside) if escape == "ABSOLUTE" else escape
    path = saved(external_model(external_weight(location)), folder)
    assert import_error(path) == (
        f"{path}: error: initializer 'w': external data location '{location}' is outside the model's directory"
    )


def test_external_data_length_beyond_the_file(tmp_path: Path):
    (tmp_path / "w.bin").write_bytes(bytes(24))
    path = saved(external_model(external_weight("w.bin", length=str(2**62))), tmp_path)
    assert import_error(path) == (
        f"{path}: error: initializer 'w': external data 'w.bin' has 24 bytes; the tensor needs bytes 0 to {2**62}"
    )


def test_external_data_with_a_malformed_offset(tmp_path: Path):
    (tmp_path / "w.bin").write_bytes(bytes(24))
    path = saved(external_model(external_weight("w.bin", offset="twelve")), tmp_path)
    assert import_error(path) == (
        f"{path}: error: initializer 'w': malformed external data reference (offset and length must be integers)"
    )


def test_long_node_names_are_shortened_in_messages():
    nodes = [relu("a" * 5000, "x", "y"), relu("b", "x", "y")]
    message = import_error(graph_model(nodes, [tensor("x")], [tensor("y")]))
    assert len(message) < 400
    assert "... (5000 characters)" in message


# --------------------------------------------------------------------------- embedded data


def add_with(weight: TensorProto, size: int = 3) -> onnx.ModelProto:
    add = helper.make_node("Add", ["x", "w"], ["y"], name="add")
    return graph_model([add], [tensor("x", [size])], [tensor("y", None)], [weight])


def test_initializer_with_fewer_values_than_its_shape():
    weight = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[3], float_data=[1.0, 2.0])
    assert import_error(add_with(weight)) == "error: initializer 'w' has 2 values, its shape [3] needs 3"


def test_large_initializer_without_data_is_refused_before_shape_inference():
    # Before the check, 2^20 elements ended as a numpy ValueError traceback, and 2^40 as
    # std::bad_alloc inside shape inference (after it had taken all memory).
    weight = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[2**20])
    assert import_error(add_with(weight, 2**20)) == f"error: initializer 'w' has 0 values, its shape [{2**20}] needs {2**20}"


def test_constant_node_with_short_raw_data():
    value = TensorProto(name="", data_type=TensorProto.FLOAT, dims=[3], raw_data=bytes(5))
    nodes = [helper.make_node("Constant", [], ["w"], name="c", value=value), helper.make_node("Add", ["x", "w"], ["y"], name="add")]
    assert import_error(graph_model(nodes, [tensor("x", [3])], [tensor("y", None)])) == (
        "error: onnx node \"c\" (op 'Constant') attribute 'value' has 5 bytes of data, its shape [3] needs 12"
    )


def test_initializer_of_an_unknown_data_type():
    weight = TensorProto(name="w", data_type=999, dims=[3])
    assert import_error(add_with(weight)) == "error: initializer 'w' has element type 999, which xhip does not support"


def test_empty_file_and_directory(tmp_path: Path):
    empty = tmp_path / "empty.onnx"
    empty.write_bytes(b"")
    folder = tmp_path / "folder.onnx"
    folder.mkdir()
    assert import_error(empty) == f"{empty}: error: cannot read ONNX model: the file is empty"
    assert import_error(folder) == f"{folder}: error: cannot read ONNX model: it is a directory"
