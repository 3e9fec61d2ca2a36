"""Verification between passes: the changed ops by default, the whole module with --verify-each.

A pass that produces invalid IR is named in both modes when it changed the
broken op; an op the cheap mode cannot see broken is still caught at the end
of the pipeline. The thorough mode stays available on every driver
(xhip-opt, xhip-run, xhip.compile) and compiles to the same IR.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr, i32
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

import xhip
from xhip.context import make_context
from xhip.diagnostics import XhipError
from xhip.parsing import parse_module
from xhip.pass_runner import VERIFY_EACH_ROW, run_passes
from xhip.tools.opt import main as opt_main
from xhip.tools.run import main as run_main
from xhip.verify import ChangedOpsVerifier

REPO = Path(__file__).resolve().parents[1]
ATTENTION = REPO / "examples" / "attention.onnx"
GPT2 = REPO / "examples" / "gpt2_2layer.onnx"

VALID = """\
func.func @f(%a: index) -> index {
  %0 = arith.addi %a, %a : index
  func.return %0 : index
}
"""

# Parsed without verification: the addi's result type is not its operands'.
INVALID_INPUT = """\
func.func @f(%a: index) -> index {
  %0 = "arith.addi"(%a, %a) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> i32
  %1 = arith.index_cast %0 : i32 to index
  func.return %1 : index
}
"""


@dataclass(frozen=True)
class RetypeAddi(ModulePass):
    """Breaks the IR: the first addi's result becomes i32 (its operands stay index)."""

    name = "test-retype-addi"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        addi = next(o for o in op.walk() if isinstance(o, arith.AddiOp))
        Rewriter.replace_value_with_new_type(addi.result, i32)


@dataclass(frozen=True)
class DoNothing(ModulePass):
    name = "test-do-nothing"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        pass


def _module(text: str) -> ModuleOp:
    return parse_module(make_context(), text, "input.mlir")


@pytest.mark.parametrize("verify_each", [False, True])
def test_a_pass_that_breaks_an_op_is_named_in_both_modes(verify_each):
    with pytest.raises(XhipError) as info:
        run_passes(make_context(), _module(VALID), [DoNothing(), RetypeAddi()], verify_each=verify_each)
    assert "(IR invalid after pass 'test-retype-addi')" in str(info.value)
    assert info.value.location == "input.mlir:2:3"


def test_invalid_ir_the_changed_ops_check_cannot_see_is_caught_at_the_end():
    with pytest.raises(XhipError) as info:
        run_passes(make_context(), _module(INVALID_INPUT), [DoNothing()])
    assert "IR invalid at the end of the pipeline; --verify-each names the pass that broke it" in str(info.value)
    assert info.value.location == "input.mlir:2:3"
    with pytest.raises(XhipError) as info:
        run_passes(make_context(), _module(INVALID_INPUT), [DoNothing()], verify_each=True)
    assert "(IR invalid after pass 'test-do-nothing')" in str(info.value)


def test_changed_ops_verifier_skips_unchanged_ops_and_rechecks_changed_ones():
    module = _module(VALID)
    addi = next(o for o in module.walk() if isinstance(o, arith.AddiOp))
    verifier = ChangedOpsVerifier()
    verifier.verify(module)
    assert verifier.ops_verified == 4  # module, func, addi, return: all new
    verifier.verify(module)
    # The return (a terminator) reads its function's signature; the func, a top-level
    # symbol, reads only itself.
    assert verifier.ops_verified == 4 + 1
    addi.attributes["test.mark"] = IntegerAttr(1, i32)
    verifier.verify(module)
    assert verifier.ops_verified == 5 + 2


@dataclass(frozen=True)
class CopyFunction(ModulePass):
    """Breaks the IR without touching an op: a second function of the same name."""

    name = "test-copy-function"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        op.body.block.add_op(op.body.block.first_op.clone())


def test_a_symbol_table_is_verified_again_when_its_ops_change():
    with pytest.raises(XhipError) as info:
        run_passes(make_context(), _module(VALID), [CopyFunction()])
    assert "(IR invalid after pass 'test-copy-function')" in str(info.value)
    assert "f" in str(info.value)


def test_opt_verify_each_gives_the_same_ir_and_its_own_timing_row(tmp_path, capsys):
    texts = []
    for extra in ([], ["--verify-each"]):
        out = tmp_path / f"gpt2{len(extra)}.mlir"
        with pytest.raises(SystemExit) as exit_info:
            opt_main([str(GPT2), "--pipeline", "default", "-o", str(out), "--timing", *extra])
        err = capsys.readouterr().err
        assert exit_info.value.code == 0, err
        assert (VERIFY_EACH_ROW in err) == bool(extra)
        texts.append(out.read_text().replace(out.stem, "gpt2"))
    assert texts[0] == texts[1]


def test_compile_and_run_take_verify_each(capsys):
    feeds = {"X": np.random.default_rng(0).standard_normal((1, 8, 64), dtype=np.float32)}
    thorough = xhip.compile(ATTENTION, backend="reference", verify_each=True).run(feeds)
    cheap = xhip.compile(ATTENTION, backend="reference").run(feeds)
    assert thorough.keys() == cheap.keys()
    assert all(np.array_equal(thorough[name], cheap[name]) for name in cheap)
    with pytest.raises(SystemExit) as exit_info:
        run_main([str(ATTENTION), "--backend", "reference", "--shape", "X=1x8x64", "--verify-each", "--check"])
    assert exit_info.value.code == 0, capsys.readouterr().err


ENTRY_POINT = """\
func.func @f(%a: index) -> index {
  func.return %a : index
}
"onnx.EntryPoint"() <{func = @f}> : () -> ()
"""


def test_a_top_level_op_that_defines_no_symbol_is_rechecked_every_time():
    """onnx.EntryPoint looks its function up: renaming the function breaks it though the entry point is unchanged."""
    module = _module(ENTRY_POINT)
    verifier = ChangedOpsVerifier()
    verifier.verify(module)
    function = next(o for o in module.walk() if isinstance(o, func.FuncOp))
    function.sym_name = StringAttr("g")
    with pytest.raises(XhipError) as info:
        verifier.verify(module)
    assert info.value.location == "input.mlir:4:1"
