"""The shared pass contracts and the attribute names each dialect owns.

Passes check their preconditions through xhip/passes/contracts.py and spell IR
attribute names through the dialect that owns them; these tests hold the
helpers to what the readers expect (the importer's own output parses back,
malformed attributes are errors, not guesses) and keep the passes from
importing each other again.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from onnx import TensorProto, helper
from xdsl.dialects import func
from xdsl.dialects.builtin import DYNAMIC_INDEX as DYN, StringAttr

from xhip.api import compile_stages
from xhip.context import make_context
from xhip.diagnostics import XhipError
from xhip.dialects.hip import POOL_ALIGNMENT_ATTR, pool_alignment
from xhip.dialects.onnx import DIM_PARAMS_ATTR, NAME_ATTR, format_dim_params, parse_dim_params, value_name
from xhip.importer import import_model
from xhip.parsing import parse_module
from xhip.pass_runner import run_passes
from xhip.passes import available_passes
from xhip.passes.contracts import escapes
from xhip.rewrite_rules.bufferize.types import kept_dims
from xhip.shipped import shipped_pipelines
from xhip.testing.models import graph_model, value

PASSES = Path(__file__).resolve().parents[1] / "xhip" / "passes"


def _imported_xhip_modules(path: Path) -> set[str]:
    modules = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            modules.add(node.module)
        elif isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
    return {m for m in modules if m.startswith("xhip.passes.")}


@pytest.mark.parametrize("path", sorted(PASSES.glob("*.py")), ids=lambda p: p.name)
def test_no_pass_imports_another_pass(path):
    assert _imported_xhip_modules(path) <= {"xhip.passes.contracts"}


def test_contracts_module_is_not_a_pass():
    # The registry takes ModulePass classes only: the shared module adds none.
    assert all(p.__module__ != "xhip.passes.contracts" for p in available_passes().values())


def test_dim_params_round_trip():
    attr = format_dim_params({1: "seq", 0: "batch"})
    assert attr.data == "0:batch,1:seq"
    assert parse_dim_params({DIM_PARAMS_ATTR: attr}) == {0: "batch", 1: "seq"}
    assert parse_dim_params({}) == {}
    assert parse_dim_params({DIM_PARAMS_ATTR: StringAttr("")}) == {}


@pytest.mark.parametrize("text", ["batch", "0:", "x:batch", "0:batch,seq"])
def test_malformed_dim_params_are_errors(text):
    with pytest.raises(ValueError, match="is not AXIS:NAME"):
        parse_dim_params({DIM_PARAMS_ATTR: StringAttr(text)})


def test_importer_signature_parses_back():
    model = graph_model(
        [helper.make_node("Relu", ["x"], ["y"])],
        [value("x", TensorProto.FLOAT, ["batch", 3, "seq"])],
        [value("y", TensorProto.FLOAT, ["batch", 3, "seq"])],
    )
    fn = next(op for op in import_model(model).walk() if isinstance(op, func.FuncOp))
    attrs = fn.arg_attrs.data[0].data
    assert parse_dim_params(attrs) == {0: "batch", 2: "seq"}
    assert value_name(attrs) == "x"
    assert value_name(fn.res_attrs.data[0].data) == "y"
    assert NAME_ATTR in attrs


def test_pool_alignment_is_read_from_the_pooled_module():
    model = graph_model(
        [helper.make_node("Relu", ["x"], ["t"]), helper.make_node("Exp", ["t"], ["y"])],
        [value("x", TensorProto.FLOAT, ["n"])],
        [value("y", TensorProto.FLOAT, ["n"])],
    )
    # Unfused, so that t is a pooled buffer (fused, Relu and Exp write y directly).
    stages = {name: module.clone() for name, module, _ in compile_stages(model, shipped_pipelines()["no-fusion"])}
    assert pool_alignment(stages["hip-optimize-memrefs"]) is None
    assert POOL_ALIGNMENT_ATTR in stages["hip-pool-allocs"].attributes
    assert pool_alignment(stages["hip-pool-allocs"]) == 256


def test_malformed_dim_params_in_pooling_is_a_located_error():
    text = """
func.func @f(%ctx: !hip.context, %x: memref<?xf32> {onnx.dim_params = "n"}) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %a = memref.alloc(%n) : memref<?xf32>
  hip.relu(%ctx) ins(%x : memref<?xf32>) outs(%a : memref<?xf32>)
  hip.relu(%ctx) ins(%a : memref<?xf32>) outs(%x : memref<?xf32>)
  func.return
}
"""
    module = parse_module(make_context(), text, "bad.mlir")
    with pytest.raises(XhipError, match=r"hip-pool-allocs: argument #1: onnx.dim_params entry 'n' is not AXIS:NAME") as err:
        run_passes(make_context(), module, [available_passes()["hip-pool-allocs"]()])
    assert err.value.location is not None and err.value.location.startswith("bad.mlir:2:")


ESCAPES = """
func.func @f(%ctx: !hip.context, %x: memref<16xf32>, %flag: i1) -> memref<16xf32> {
  %kept = memref.alloc() : memref<16xf32>
  %nested = memref.alloc() : memref<16xf32>
  scf.if %flag {
    hip.relu(%ctx) ins(%x : memref<16xf32>) outs(%nested : memref<16xf32>)
  }
  %returned = memref.alloc() : memref<16xf32>
  %cast = "memref.cast"(%returned) : (memref<16xf32>) -> memref<?xf32>
  %bytes = memref.alloc() : memref<64xi8>
  %c0 = arith.constant 0 : index
  %carved = memref.view %bytes[%c0][] : memref<64xi8> to memref<16xf32>
  %yielded = memref.alloc() : memref<16xf32>
  %r = scf.if %flag -> (memref<16xf32>) {
    scf.yield %yielded : memref<16xf32>
  } else {
    scf.yield %x : memref<16xf32>
  }
  hip.relu(%ctx) ins(%kept : memref<16xf32>) outs(%x : memref<16xf32>)
  %back = "memref.cast"(%cast) : (memref<?xf32>) -> memref<16xf32>
  func.return %back : memref<16xf32>
}
"""


def test_escapes_is_what_liveness_cannot_follow():
    module = parse_module(make_context(), ESCAPES, "escapes.mlir")
    allocs = {op.memref.name_hint: op.memref for op in module.walk() if op.name == "memref.alloc"}
    assert {name: escapes(buffer) for name, buffer in allocs.items()} == {
        "kept": False,
        "nested": False,  # a use inside a region counts at the op holding it
        "returned": True,  # through two casts
        "bytes": True,  # memref.view starts a new root
        "yielded": True,
    }


@pytest.mark.parametrize(
    ("shape", "result_shape", "kept"),
    [
        ((1, 4, 1), (4,), [1]),
        ((4, 1), (4, 1), [0, 1]),
        ((1, 1), (1,), [0]),
        ((DYN, 1, 3), (DYN, 3), [0, 2]),
        ((), (), []),
        # A leading unit dim is not taken for a `?`: the first rule (kept greedily) did,
        # giving a row slice the row stride, or refusing a valid runtime slice.
        ((1, DYN), (DYN,), [1]),
        ((1, 5, 1), (DYN, 1), [1, 2]),
    ],
)
def test_rank_reducing_slices_drop_unit_dims(shape, result_shape, kept):
    assert kept_dims(shape, result_shape) == kept


@pytest.mark.parametrize(("shape", "result_shape"), [((1, 4, 3), (4,)), ((DYN, 4), (4,))])
def test_rank_reducing_slices_never_drop_other_dims(shape, result_shape):
    # Dropping the 3 (or a runtime extent) would lose elements: the rule refuses
    # instead of returning a layout for the wrong rank (the copy the bufferizer
    # used to have skipped such dims silently).
    with pytest.raises(ValueError, match="cannot drop unit dims"):
        kept_dims(shape, result_shape)
