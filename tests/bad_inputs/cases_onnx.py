"""ONNX files: truncated, corrupt, invalid graphs, unsupported ops/domains/opsets, bad dims, external data."""

from __future__ import annotations

from onnx import TensorProto, helper

from bad_inputs import Case
from bad_inputs import models as m
from bad_inputs.models import F, I64, value

IMPORT = ("xhip-opt", "m.onnx", "-p", "hip-add-context-arg")
"""Import plus the cheapest pass: what every ONNX case needs to reach the importer's checks."""

NOT_PROTOBUF = r"m\.onnx: error: cannot read ONNX model"


def bad_onnx(case_id: str, data, stderr: str) -> Case:
    return Case(case_id, "onnx", IMPORT, {"m.onnx": data}, stderr=stderr)


def good_onnx(case_id: str, data) -> Case:
    return Case(case_id, "onnx", IMPORT + ("-o", "out.mlir"), {"m.onnx": data}, exit_code=0, produces=("out.mlir",))


RELU = m.relu()

TRUNCATED = [bad_onnx(f"onnx-truncated-{n}", RELU[:n], r"m\.onnx: error: ") for n in (1, 2, 7, 20, 40, len(RELU) // 2, len(RELU) - 3, len(RELU) - 1)]

CORRUPT = [
    bad_onnx("onnx-empty-file", b"", r"m\.onnx: error: "),
    bad_onnx("onnx-random-bytes", bytes((i * 37 + 11) % 256 for i in range(512)), NOT_PROTOBUF),
    bad_onnx("onnx-text-file", "this is not a model\n", NOT_PROTOBUF),
    bad_onnx("onnx-all-0xff", b"\xff" * 64, NOT_PROTOBUF),
    bad_onnx("onnx-gzip-header", b"\x1f\x8b\x08\x00" + b"\x00" * 60, NOT_PROTOBUF),
    bad_onnx("onnx-flipped-tag", bytes([RELU[0] ^ 0x07]) + RELU[1:], r"m\.onnx: error: "),
    bad_onnx("onnx-doubled", RELU + RELU[: len(RELU) // 3], r"m\.onnx: error: "),
]

_y = [value("y", F, None)]
_x = [value("x", F, ["n"])]
INVALID_GRAPHS = [
    bad_onnx("onnx-two-writers", m.model_bytes(
        [helper.make_node("Relu", ["x"], ["t"], name="a"), helper.make_node("Neg", ["x"], ["t"], name="b"),
         helper.make_node("Relu", ["t"], ["y"], name="c")], _x, _y), r"'t'|\"t\""),
    bad_onnx("onnx-duplicate-graph-inputs", m.model_bytes(
        [helper.make_node("Add", ["x", "x"], ["y"], name="a")], [value("x", F, ["n"]), value("x", F, ["n"])], _y),
        r"'x'|\"x\""),
    bad_onnx("onnx-undefined-input", m.model_bytes([helper.make_node("Relu", ["nowhere"], ["y"], name="r")], _x, _y), "nowhere"),
    bad_onnx("onnx-cycle", m.model_bytes(
        [helper.make_node("Add", ["x", "b"], ["a"], name="n1"), helper.make_node("Relu", ["a"], ["b"], name="n2"),
         helper.make_node("Relu", ["b"], ["y"], name="n3")], _x, _y), r"n1|n2|cycle"),
    bad_onnx("onnx-concat-empty-input-name", m.model_bytes(
        [helper.make_node("Concat", ["x", ""], ["y"], name="cat", axis=0)], _x, _y), r"cat"),
    bad_onnx("onnx-empty-output-name", m.model_bytes([helper.make_node("Relu", ["x"], [""], name="r")], _x, _y), r"'y'|\"y\"|r"),
    bad_onnx("onnx-graph-output-never-written", m.model_bytes([helper.make_node("Relu", ["x"], ["t"], name="r")], _x, _y), r"'y'|\"y\""),
    bad_onnx("onnx-relu-two-inputs", m.single_node("Relu", ["x0", "x1"]), r"n0"),
    bad_onnx("onnx-add-one-input", m.single_node("Add", ["x0"]), r"n0"),
    bad_onnx("onnx-transpose-float-perm", m.single_node("Transpose", ["x0"], perm=[0.5]), r"n0"),
    bad_onnx("onnx-transpose-bad-perm", m.single_node("Transpose", ["x0"], perm=[3]), r"n0"),
    bad_onnx("onnx-softmax-axis-out-of-range", m.single_node("Softmax", ["x0"], axis=5), r"n0"),
    bad_onnx("onnx-concat-axis-out-of-range", m.single_node("Concat", ["x0", "x1"], axis=4), r"n0"),
    bad_onnx("onnx-unknown-attribute", m.single_node("Relu", ["x0"], alpha=2.0), r"n0"),
    bad_onnx("onnx-add-static-mismatch", m.add_two([3], [4]), r"add"),
    bad_onnx("onnx-matmul-inner-mismatch", m.model_bytes(
        [helper.make_node("MatMul", ["a", "b"], ["y"], name="mm")], [value("a", F, [2, 3]), value("b", F, [4, 5])], _y), r"mm"),
    bad_onnx("onnx-reshape-two-minus-ones", m.model_bytes(
        [helper.make_node("Reshape", ["x", "s"], ["y"], name="rs")], _x, _y,
        [helper.make_tensor("s", I64, [2], [-1, -1])]), r"rs"),
    bad_onnx("onnx-string-input", m.model_bytes(
        [helper.make_node("Identity", ["x"], ["y"], name="id")], [value("x", TensorProto.STRING, ["n"])], _y), r"x|string"),
    bad_onnx("onnx-sequence-input", m.model_bytes(
        [helper.make_node("Identity", ["x"], ["y"], name="id")],
        [helper.make_tensor_sequence_value_info("x", F, ["n"])], _y), r"sequence"),
    bad_onnx("onnx-cast-to-string", m.single_node("Cast", ["x0"], to=TensorProto.STRING), r"n0"),
    good_onnx("onnx-slice-omitted-optional-input", m.model_bytes(
        [helper.make_node("Slice", ["x", "s", "e", "", "st"], ["y"], name="sl")], _x, _y,
        [helper.make_tensor("s", I64, [1], [0]), helper.make_tensor("e", I64, [1], [2]), helper.make_tensor("st", I64, [1], [1])])),
    good_onnx("onnx-split-omitted-split-input", m.model_bytes(
        [helper.make_node("Split", ["x", ""], ["y", "z"], name="sp", axis=0)], _x, _y + [value("z", F, None)])),
    good_onnx("onnx-valid-relu", RELU),
]

UNSUPPORTED = [
    bad_onnx("onnx-unsupported-op-conv", m.single_node("Conv", ["x0", "x1"]), r"n0.*Conv|Conv.*n0"),
    bad_onnx("onnx-unsupported-op-lstm", m.single_node("LSTM", ["x0", "x1", "x2"], hidden_size=2), r"LSTM"),
    bad_onnx("onnx-unknown-op-type", m.single_node("FrobnicateAll", ["x0"]), r"FrobnicateAll"),
    bad_onnx("onnx-domain-com-microsoft", m.single_node("FusedGemm", ["x0", "x1"], domain="com.microsoft"), r"com\.microsoft"),
    bad_onnx("onnx-domain-custom", m.single_node("Relu", ["x0"], domain="my.custom"), r"my\.custom"),
    bad_onnx("onnx-domain-ml", m.single_node("Scaler", ["x0"], domain="ai.onnx.ml"), r"ai\.onnx\.ml"),
    bad_onnx("onnx-if-subgraph", m.model_bytes([helper.make_node(
        "If", ["c"], ["y"], name="branch",
        then_branch=helper.make_graph([helper.make_node("Relu", ["x"], ["t"])], "t", [], [value("t", F, ["n"])]),
        else_branch=helper.make_graph([helper.make_node("Neg", ["x"], ["e"])], "e", [], [value("e", F, ["n"])]))],
        [value("c", TensorProto.BOOL, []), value("x", F, ["n"])], _y), r"If"),
]

OPSETS = [
    bad_onnx("onnx-opset-1", m.relu(opset=1), r"opset|Relu"),
    bad_onnx("onnx-opset-6", m.relu(opset=6), r"opset|Relu"),
    bad_onnx("onnx-opset-99", m.relu(opset=99), r"opset|99"),
    bad_onnx("onnx-opset-0", m.relu(opset=0), r"opset|Relu"),
    bad_onnx("onnx-no-opset-import", m.with_opsets([]), r"opset"),
    bad_onnx("onnx-negative-opset", m.with_opsets([("", -3)]), r"opset|-3"),
    good_onnx("onnx-opset-13", m.relu(opset=13)),
    good_onnx("onnx-opset-21", m.relu(opset=21)),
    good_onnx("onnx-two-default-domain-spellings", m.with_opsets([("", 18), ("ai.onnx", 18)])),
]

DIMS = [
    bad_onnx("onnx-negative-input-dim", m.relu(dims=[-1]), r"-1|negative"),
    bad_onnx("onnx-negative-input-dim-2d", m.relu(dims=["n", -5]), r"-5|negative"),
    bad_onnx("onnx-negative-initializer-dim", m.model_bytes(
        [helper.make_node("Add", ["x", "w"], ["y"], name="add")], _x, _y,
        [TensorProto(name="w", data_type=F, dims=[-2], float_data=[1.0, 2.0])]), r"-2|negative|'w'"),
    bad_onnx("onnx-initializer-data-size-mismatch", m.model_bytes(
        [helper.make_node("Add", ["x", "w"], ["y"], name="add")], _x, _y,
        [TensorProto(name="w", data_type=F, dims=[5], raw_data=b"\x00" * 8)]), r"'w'|\"w\"|w:"),
    bad_onnx("onnx-initializer-huge-no-data", m.model_bytes(
        [helper.make_node("Add", ["x", "w"], ["y"], name="add")], _x, _y,
        [TensorProto(name="w", data_type=F, dims=[1 << 40])]), r"'w'|\"w\"|w:"),
    good_onnx("onnx-huge-static-input-dim", m.relu(dims=[1 << 40])),
    good_onnx("onnx-zero-input-dim", m.relu(dims=[0])),
    good_onnx("onnx-rank-0-input", m.relu(dims=[])),
]

EXTERNAL = [
    bad_onnx("onnx-external-data-missing", m.external_weight("w.bin"), r"w\.bin"),
    Case("onnx-external-data-escapes-up", "onnx", ("xhip-opt", "sub/m.onnx", *IMPORT[2:]), {"sub/m.onnx": m.external_weight("../w.bin"), "w.bin": m.weight_bytes()},
         stderr=r"outside"),
    bad_onnx("onnx-external-data-absolute-outside", m.external_weight("/etc/hostname"), r"outside"),
    Case("onnx-external-data-too-short", "onnx", IMPORT, {"m.onnx": m.external_weight("w.bin", length=16), "w.bin": b"\x00" * 8},
         stderr=r"w\.bin|'w'"),
    Case("onnx-external-data-offset-past-end", "onnx", IMPORT,
         {"m.onnx": m.external_weight("w.bin", offset=4096), "w.bin": m.weight_bytes()}, stderr=r"w\.bin|'w'"),
    Case("onnx-external-data-is-directory", "onnx", IMPORT, {"m.onnx": m.external_weight("wdir"), "wdir/x": "x"}, stderr=r"wdir"),
    Case("onnx-external-data-valid", "onnx", IMPORT + ("-o", "out.mlir"),
         {"m.onnx": m.external_weight("w.bin"), "w.bin": m.weight_bytes()}, exit_code=0, produces=("out.mlir",)),
]

CASES = TRUNCATED + CORRUPT + INVALID_GRAPHS + UNSUPPORTED + OPSETS + DIMS + EXTERNAL
