"""The onnx dialect: generic-form round trips, attribute spellings, verifiers, effects."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import parse_verified
from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, DenseIntOrFPElementsAttr, IntegerAttr, TensorType, f32, i64
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.traits import get_effects
from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination
from xdsl.transforms.dead_code_elimination import DeadCodeElimination
from xdsl.utils.exceptions import VerifyException

from xhip.context import make_context
from xhip.diagnostics import XhipError
from xhip.dialects import onnx
from xhip.printing import print_ir

HERE = Path(__file__).resolve().parent
ROUNDTRIP = HERE / "filecheck" / "onnx" / "roundtrip.mlir"
SEED_003 = Path("/work/shared/seeds/003_93879bf0b9ffa4f0.txt")

# onnx-mlir prints the f32 nearest 1e-5 as 9.99999974E-6; xDSL prints the same value as 1.000000e-05.
XDSL_SPELLINGS = {"9.99999974E-6": "1.000000e-05"}


def roundtrip_source() -> str:
    return "".join(line for line in ROUNDTRIP.read_text().splitlines(keepends=True) if not line.startswith("//"))


def test_every_op_is_in_the_roundtrip_file():
    names = set(re.findall(r'"(onnx\.\w+)"', roundtrip_source()))
    assert names == {op.name for op in onnx.ONNX.operations}


def test_generic_text_prints_back_identically():
    source = roundtrip_source().lstrip("\n")
    expected = source
    for theirs, ours in XDSL_SPELLINGS.items():
        expected = expected.replace(theirs, ours)
    assert print_ir(parse_verified(source)) == expected


@pytest.mark.parametrize("generic", [False, True])
def test_printed_text_parses_back(generic: bool):
    first = print_ir(parse_verified(roundtrip_source()), generic=generic)
    assert print_ir(parse_verified(first), generic=generic) == first


def test_seed_003_imported_ir_parses_and_prints_its_onnx_ops_identically():
    seed = SEED_003.read_text().split("Pass 1:")[1].split("Pass 2:")[0]
    text = seed[seed.index("module attributes") :]
    printed = print_ir(parse_verified(text))
    onnx_lines = [line for line in text.splitlines() if line.startswith(("%", '"onnx'))]
    assert onnx_lines and len(onnx_lines) == 13
    for line in onnx_lines:
        assert line in printed


def test_ints_attribute_spelling():
    (op,) = [o for o in parse_verified(TRANSPOSE).walk() if isinstance(o, onnx.TransposeOp)]
    assert isinstance(op.perm, onnx.IntsAttr) and op.perm.data == (0, 2, 1)
    built = onnx.TransposeOp.create(
        operands=[op.data], result_types=[op.transposed.type], properties={"perm": onnx.IntsAttr((0, 2, 1))}
    )
    built.verify()
    assert "<{perm = [0, 2, 1]}>" in print_ir(built)
    # An ArrayAttr of i64 (what the parser produces) is stored as IntsAttr too.
    from_array = onnx.TransposeOp.create(
        operands=[op.data],
        result_types=[op.transposed.type],
        properties={"perm": ArrayAttr([IntegerAttr(i, i64) for i in (0, 2, 1)])},
    )
    assert from_array.perm == onnx.IntsAttr((0, 2, 1))
    # The dialect spelling parses too.
    assert Parser(make_context(), "#onnx.ints<[0, 2, 1]>").parse_attribute() == onnx.IntsAttr((0, 2, 1))


TRANSPOSE = """
func.func @f(%x: tensor<2x3x4xf32>) {
  %0 = "onnx.Transpose"(%x) <{perm = [0, 2, 1]}> : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
  func.return
}
"""


def test_ints_of_another_width_do_not_verify():
    text = TRANSPOSE.replace("[0, 2, 1]", "[0 : i32, 2 : i32, 1 : i32]")
    expected = r"^input\.mlir:3:3: error: \[0 : i32, 2 : i32, 1 : i32\] should be of base attribute onnx\.ints"
    with pytest.raises(XhipError, match=expected):
        parse_verified(text)


def test_defaults_are_returned_but_not_printed():
    text = """
func.func @f(%a: tensor<2x2xf32>, %n: none) {
  %0 = "onnx.Gemm"(%a, %a, %n) : (tensor<2x2xf32>, tensor<2x2xf32>, none) -> tensor<2x2xf32>
  %1 = "onnx.Softmax"(%a) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return
}
"""
    gemm, softmax = [op for op in parse_verified(text).walk() if isinstance(op, onnx.OnnxOp)]
    assert gemm.alpha.value.data == 1.0 and gemm.alpha.type == f32
    assert (gemm.trans_a.value.data, gemm.trans_b.value.data) == (0, 0)
    assert softmax.axis == IntegerAttr(-1, onnx.SI64)
    assert "<{" not in print_ir(gemm) and "<{" not in print_ir(softmax)


def test_input_and_output_kinds():
    assert onnx.GemmOp.input_kinds() == ("required", "required", "optional")
    assert onnx.ConcatOp.input_kinds() == ("variadic",)
    assert onnx.SliceOp.input_kinds() == ("required", "required", "required", "optional", "optional")
    assert onnx.SplitOp.output_kinds() == ("variadic",)
    assert onnx.LayerNormalizationOp.output_kinds() == ("required", "optional", "optional")


def test_every_op_declares_its_effects():
    ops = [op for op in parse_verified(roundtrip_source()).walk() if op.name.startswith("onnx.")]
    assert {op.name for op in ops} == {op.name for op in onnx.ONNX.operations}
    for op in ops:
        effects = get_effects(op)
        assert effects is not None, op.name
        assert (effects == set()) == (not isinstance(op, onnx.EntryPointOp)), op.name


CSE_DCE = """
func.func @main_graph(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "onnx.Relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "onnx.Relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "onnx.Add"(%0, %1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = "onnx.Exp"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %2 : tensor<4xf32>
}
"onnx.EntryPoint"() <{func = @main_graph}> : () -> ()
"""


def op_names(module: Operation) -> list[str]:
    return [op.name for op in module.walk() if op.name.startswith("onnx.")]


def test_cse_merges_identical_onnx_ops():
    module = parse_verified(CSE_DCE)
    CommonSubexpressionElimination().apply(Context(), module)
    assert op_names(module).count("onnx.Relu") == 1
    assert "onnx.EntryPoint" in op_names(module)


def test_dce_removes_unused_onnx_ops_but_keeps_the_entry_point():
    module = parse_verified(CSE_DCE)
    DeadCodeElimination().apply(Context(), module)
    assert op_names(module) == ["onnx.Relu", "onnx.Relu", "onnx.Add", "onnx.EntryPoint"]


def test_constant_result_must_match_value():
    value = DenseIntOrFPElementsAttr.from_list(TensorType(f32, [2]), [1.0, 2.0])
    good = onnx.ConstantOp.create(result_types=[value.type], attributes={"value": value})
    good.verify()
    bad = onnx.ConstantOp.create(result_types=[TensorType(f32, [3])], attributes={"value": value})
    with pytest.raises(VerifyException, match="differs from value type"):
        bad.verify()
