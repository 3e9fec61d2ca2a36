"""Host access analysis, and the memory passes between bufferization and pooling run for real.

The passes (hip-materialize-host-scalars, hip-optimize-memrefs, hip-resolve-memref-dims,
hip-hoist-alloc-size-arith) are checked on hand-written memref IR, the stage they see,
by executing the IR before and after them on the reference runtime, in normal, deferred
and sanitize modes, and against onnxruntime where an ONNX model computes the same.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper
from xdsl.dialects import memref
from xdsl.dialects.builtin import ModuleOp, i64

import xhip
from xhip.analysis.host_access import (
    forward_aliases,
    host_accessed_roots,
    host_accesses,
)
from xhip.context import make_context
from xhip.dialects.hip import GetHostScratchOp
from xhip.parsing import parse_module
from xhip.pass_runner import run_passes
from xhip.pipeline import instantiate, parse_pass_spec
from xhip.runtime.check import compare, onnxruntime_outputs
from xhip.runtime.executable import Executable
from xhip.verify import verify_module

REPO = Path(__file__).resolve().parents[1]
ATTENTION = REPO / "examples" / "attention.onnx"
RNG = np.random.default_rng(5)
MODES = [{}, {"deferred": True}, {"sanitize": True}]


def _parse(text: str, name: str = "input.mlir") -> ModuleOp:
    module = parse_module(make_context(), text, name)
    verify_module(module)
    return module


def _apply(module: ModuleOp, spec: str) -> ModuleOp:
    """A copy of `module` after the passes of `spec` (xhip-opt -p syntax), verified."""
    result = module.clone()
    run_passes(make_context(), result, instantiate(parse_pass_spec(spec)))
    verify_module(result)
    return result


def _function_block(module: ModuleOp):
    return next(iter(module.ops)).body.blocks.first


def _named(module: ModuleOp) -> dict[str, object]:
    return {v.name_hint: v for op in module.walk() for v in op.results if v.name_hint}


# -- the analysis -----------------------------------------------------------------------------

ACCESSES = """
func.func @f(%ctx: !hip.context, %x: memref<8xi64>, %flag: i1, %v: i64) -> i64 {
  %c0 = arith.constant 0 : index
  %stored = memref.alloc() : memref<2x4xi64>
  %flat = memref.collapse_shape %stored [[0, 1]] : memref<2x4xi64> into memref<8xi64>
  %tail = memref.subview %flat[4] [4] [1] : memref<8xi64> to memref<4xi64, strided<[1], offset: 4>>
  memref.store %v, %tail[%c0] : memref<4xi64, strided<[1], offset: 4>>
  %loaded = memref.alloc() : memref<1xi64>
  hip.copy(%ctx) ins(%x : memref<8xi64>) outs(%flat : memref<8xi64>)
  %nested = memref.alloc() : memref<1xi64>
  scf.if %flag {
    memref.store %v, %nested[%c0] : memref<1xi64>
  }
  %bytes = memref.alloc() : memref<64xi8>
  %carved = memref.view %bytes[%c0][] : memref<64xi8> to memref<2xi64>
  memref.store %v, %carved[%c0] : memref<2xi64>
  %device = memref.alloc() : memref<8xi64>
  hip.copy(%ctx) ins(%x : memref<8xi64>) outs(%device : memref<8xi64>)
  %d = memref.dim %device, %c0 : memref<8xi64>
  %copied = memref.alloc() : memref<8xi64>
  "memref.copy"(%device, %copied) : (memref<8xi64>, memref<8xi64>) -> ()
  %r = memref.load %loaded[%c0] : memref<1xi64>
  %s = memref.load %x[%d] : memref<8xi64>
  func.return %r : i64
}
"""


def test_host_accesses_through_views_nested_regions_and_carved_buffers():
    module = _parse(ACCESSES)
    named = _named(module)
    block = _function_block(module)
    found = host_accesses(block)
    accessed = {v.name_hint for v in host_accessed_roots(block)}
    # Through collapse_shape + subview: the root is the allocation.
    assert "stored" in accessed and "tail" not in accessed and "flat" not in accessed
    assert [op.name for op in found[named["stored"]]] == ["memref.store"]
    assert "loaded" in accessed, "a host load counts as much as a store"
    assert "nested" in accessed, "an access inside a region counts"
    # A memref.view is a buffer of its own AND touches the bytes it is carved from.
    assert {"carved", "bytes"} <= accessed
    # Kernels, memref.dim and memref.copy are not host accesses.
    assert "device" not in accessed and "copied" not in accessed
    x = block.args[1]
    assert x in found, "function arguments are roots too"


def test_forward_aliases_follow_views_from_their_source_only():
    module = _parse(ACCESSES)
    named = _named(module)
    aliases = [v.name_hint for v in forward_aliases(named["stored"])]
    assert aliases == ["stored", "flat", "tail"]
    assert [v.name_hint for v in forward_aliases(named["bytes"])] == ["bytes", "carved"]
    assert [v.name_hint for v in forward_aliases(named["device"])] == ["device"]


# -- seed 004: host-fed buffers and slot reuse, executed -------------------------------------

RACE = """
func.func @main_graph(%ctx: !hip.context, %x: memref<32x32xf32>, %w: memref<32x32xf32>) -> (memref<1xi64>, memref<1xi64>) {
  %c0 = arith.constant 0 : index
  %seven = arith.constant 7 : i64
  %nine = arith.constant 9 : i64
  %slow1 = memref.alloc() : memref<32x32xf32>
  hip.matmul(%ctx) ins(%x, %w : memref<32x32xf32>, memref<32x32xf32>) outs(%slow1 : memref<32x32xf32>)
  %first = memref.alloc() : memref<Nxi64>
  memref.store %seven, %first[%c0] : memref<Nxi64>
  %first_head = memref.subview %first[0] [1] [1] : memref<Nxi64> to memref<1xi64, strided<[1]>>
  %out0 = hip.alloc_output(%ctx) {out_idx = 0 : i64} : memref<1xi64>
  hip.copy(%ctx) ins(%first_head : memref<1xi64, strided<[1]>>) outs(%out0 : memref<1xi64>)
  %slow2 = memref.alloc() : memref<32x32xf32>
  hip.matmul(%ctx) ins(%slow1, %w : memref<32x32xf32>, memref<32x32xf32>) outs(%slow2 : memref<32x32xf32>)
  %second = memref.alloc() : memref<Nxi64>
  %second_head = memref.subview %second[0] [1] [1] : memref<Nxi64> to memref<1xi64, strided<[1]>>
  memref.store %nine, %second_head[%c0] : memref<1xi64, strided<[1]>>
  %out1 = hip.alloc_output(%ctx) {out_idx = 1 : i64} : memref<1xi64>
  hip.copy(%ctx) ins(%second_head : memref<1xi64, strided<[1]>>) outs(%out1 : memref<1xi64>)
  func.return %out0, %out1 : memref<1xi64>, memref<1xi64>
}
"""
RACE_FEEDS = {
    "arg0": RNG.standard_normal((32, 32)).astype(np.float32),
    "arg1": RNG.standard_normal((32, 32)).astype(np.float32),
}
SAFE_ORDERS = [
    "hip-optimize-memrefs",
    "hip-materialize-host-scalars,hip-optimize-memrefs",
    "hip-optimize-memrefs,hip-materialize-host-scalars",
]
RACY = "hip-optimize-memrefs{exclude-host-accessed=false},hip-materialize-host-scalars"


def _race_module(elements: int) -> ModuleOp:
    # i64, like the seed's sequence-length scalars; only element 0 is written and read.
    return _parse(RACE.replace("Nxi64", f"{elements}xi64"))


def _first_elements(module: ModuleOp, **mode) -> tuple[int, int]:
    outputs = Executable(module, **mode).run(RACE_FEEDS)
    return int(outputs["result0"][0]), int(outputs["result1"][0])


@pytest.mark.parametrize("elements", [1, 32])
@pytest.mark.parametrize("spec", SAFE_ORDERS)
@pytest.mark.parametrize("mode", MODES, ids=["normal", "deferred", "sanitize"])
def test_host_fed_buffers_kept_apart_are_correct_in_every_mode(elements, spec, mode):
    module = _apply(_race_module(elements), spec)
    assert _first_elements(module, **mode) == (7, 9)


@pytest.mark.parametrize("elements", [1, 32])
def test_reusing_a_host_fed_slot_races_under_deferred_execution(elements):
    module = _apply(_race_module(elements), RACY)
    allocs = [op for op in module.walk() if isinstance(op, memref.AllocOp) and op.memref.type.element_type == i64]
    scratch_views = [op for op in module.walk() if isinstance(op, memref.ViewOp)]
    assert len(allocs) + len(scratch_views) == 1, "the two host-fed buffers share one slot"
    # In program order the slot happens to hold the right values ...
    assert _first_elements(module) == (7, 9)
    # ... but the first copy is queued behind the matmul and reads the second store.
    assert _first_elements(module, deferred=True) == (9, 9)


def test_materialized_scalars_sit_64_bytes_apart_in_one_scratch():
    module = _apply(_race_module(1), "hip-materialize-host-scalars,hip-optimize-memrefs")
    scratches = [op for op in module.walk() if isinstance(op, GetHostScratchOp)]
    offsets = [op.byte_shift.owner.value.value.data for op in module.walk() if isinstance(op, memref.ViewOp)]
    assert len(scratches) == 1 and offsets == [0, 64]
    executable = Executable(module)
    executable.run(RACE_FEEDS)
    assert executable.report.host_scratch_bytes == 128


# -- the attention buffers (seed 003 Pass 15) through every pass, against onnxruntime ---------

ATTENTION_MEMREF = """
func.func @main_graph(%ctx: !hip.context, %x: memref<?x?x64xf32> {onnx.dim_params = "0:batch,1:seq", onnx.name = "X"}, %wq: memref<64x64xf32> {onnx.name = "Wq"}, %wk: memref<64x64xf32> {onnx.name = "Wk"}, %wv: memref<64x64xf32> {onnx.name = "Wv"}, %scale: memref<f32> {onnx.name = "scale"}) -> (memref<?x?x64xf32> {onnx.dim_params = "0:batch,1:seq", onnx.name = "out"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = memref.dim %x, %c0 : memref<?x?x64xf32>
  %s = memref.dim %x, %c1 : memref<?x?x64xf32>
  %q = memref.alloc(%b, %s) : memref<?x?x64xf32>
  hip.matmul(%ctx) ins(%x, %wq : memref<?x?x64xf32>, memref<64x64xf32>) outs(%q : memref<?x?x64xf32>)
  %k = memref.alloc(%b, %s) : memref<?x?x64xf32>
  hip.matmul(%ctx) ins(%x, %wk : memref<?x?x64xf32>, memref<64x64xf32>) outs(%k : memref<?x?x64xf32>)
  %v = memref.alloc(%b, %s) : memref<?x?x64xf32>
  hip.matmul(%ctx) ins(%x, %wv : memref<?x?x64xf32>, memref<64x64xf32>) outs(%v : memref<?x?x64xf32>)
  %kb = memref.dim %k, %c0 : memref<?x?x64xf32>
  %ks = memref.dim %k, %c1 : memref<?x?x64xf32>
  %kt = memref.alloc(%kb, %ks) : memref<?x64x?xf32>
  hip.transpose(%ctx) ins(%k : memref<?x?x64xf32>) outs(%kt : memref<?x64x?xf32>) {perm = array<i64: 0, 2, 1>}
  %qk = memref.alloc(%b, %s, %s) : memref<?x?x?xf32>
  hip.matmul(%ctx) ins(%q, %kt : memref<?x?x64xf32>, memref<?x64x?xf32>) outs(%qk : memref<?x?x?xf32>)
  %scaled = memref.alloc(%b, %s, %s) : memref<?x?x?xf32>
  hip.mul(%ctx) ins(%qk, %scale : memref<?x?x?xf32>, memref<f32>) outs(%scaled : memref<?x?x?xf32>)
  %c2 = arith.constant 2 : index
  %d0 = memref.dim %scaled, %c0 : memref<?x?x?xf32>
  %d2 = memref.dim %scaled, %c2 : memref<?x?x?xf32>
  %sm = memref.alloc(%d0, %s, %d2) : memref<?x?x?xf32>
  hip.softmax(%ctx) ins(%scaled : memref<?x?x?xf32>) outs(%sm : memref<?x?x?xf32>)
  %out = hip.alloc_output(%ctx, %b, %s) {out_idx = 0 : i64} : memref<?x?x64xf32>
  hip.matmul(%ctx) ins(%sm, %v : memref<?x?x?xf32>, memref<?x?x64xf32>) outs(%out : memref<?x?x64xf32>)
  func.return %out : memref<?x?x64xf32>
}
"""
MEMORY_PASSES = [
    "hip-materialize-host-scalars",
    "hip-optimize-memrefs",
    "hip-resolve-memref-dims",
    "cse",
    "hip-hoist-alloc-size-arith",
]


def _attention_onnx() -> onnx.ModelProto:
    """The same computation as ATTENTION_MEMREF, weights as inputs."""
    nodes = [
        helper.make_node("MatMul", ["X", "Wq"], ["q"]),
        helper.make_node("MatMul", ["X", "Wk"], ["k"]),
        helper.make_node("MatMul", ["X", "Wv"], ["v"]),
        helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 2, 1]),
        helper.make_node("MatMul", ["q", "kt"], ["qk"]),
        helper.make_node("Mul", ["qk", "scale"], ["scaled"]),
        helper.make_node("Softmax", ["scaled"], ["sm"], axis=-1),
        helper.make_node("MatMul", ["sm", "v"], ["out"]),
    ]
    weight = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [64, 64]) for n in ("Wq", "Wk", "Wv")]
    inputs = [
        helper.make_tensor_value_info("X", TensorProto.FLOAT, ["batch", "seq", 64]),
        *weight,
        helper.make_tensor_value_info("scale", TensorProto.FLOAT, []),
    ]
    outputs = [helper.make_tensor_value_info("out", TensorProto.FLOAT, ["batch", "seq", 64])]
    graph = helper.make_graph(nodes, "attention", inputs, outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def _attention_feeds(batch: int, seq: int) -> dict[str, np.ndarray]:
    feeds = {"X": RNG.standard_normal((batch, seq, 64)).astype(np.float32)}
    feeds.update({n: (RNG.standard_normal((64, 64)) / 8).astype(np.float32) for n in ("Wq", "Wk", "Wv")})
    feeds["scale"] = np.array(0.125, np.float32)
    return feeds


@pytest.mark.parametrize("shape", [(2, 16), (1, 1), (0, 5)])
def test_attention_after_each_memory_pass_matches_onnxruntime(shape):
    feeds = _attention_feeds(*shape)
    reference = onnxruntime_outputs(_attention_onnx(), feeds)
    module = _parse(ATTENTION_MEMREF, "attention.mlir")
    for count in range(len(MEMORY_PASSES) + 1):
        staged = _apply(module, ",".join(MEMORY_PASSES[:count])) if count else module
        for mode in MODES:
            result = compare(Executable(staged.clone(), **mode).run(feeds), reference)
            assert result.passed, f"after {MEMORY_PASSES[:count]} {mode}: {result.problems}"


def test_attention_softmax_writes_into_the_dead_qk_buffer():
    module = _apply(_parse(ATTENTION_MEMREF), ",".join(MEMORY_PASSES))
    allocs = [op for op in module.walk() if isinstance(op, memref.AllocOp)]
    assert [a.memref.name_hint for a in allocs] == ["q", "k", "v", "kt", "qk", "scaled"]
    softmax = next(op for op in module.walk() if op.name == "hip.softmax")
    assert softmax.outputs[0] is _named(module)["qk"]
    # Every size is a dim of the input now, computed before the first allocation.
    first = allocs[0]
    for alloc in allocs:
        for size in alloc.dynamic_sizes:
            assert isinstance(size.owner, memref.DimOp) and size.owner.source is _function_block(module).args[1]
            assert size.owner.is_before_in_block(first)


# -- static reuse through reinterpret_cast, executed -----------------------------------------

STATIC = """
func.func @main_graph(%ctx: !hip.context, %x: memref<64xf32>, %y: memref<32xf32>, %z: memref<4x4xf32>) -> (memref<4x4xf32>, memref<64xf32>, memref<32xf32>) {
  %a = memref.alloc() : memref<64xf32>
  hip.relu(%ctx) ins(%x : memref<64xf32>) outs(%a : memref<64xf32>)
  %b = memref.alloc() : memref<32xf32>
  hip.sigmoid(%ctx) ins(%y : memref<32xf32>) outs(%b : memref<32xf32>)
  %o1 = hip.alloc_output(%ctx) {out_idx = 1 : i64} : memref<64xf32>
  hip.exp(%ctx) ins(%a : memref<64xf32>) outs(%o1 : memref<64xf32>)
  %o2 = hip.alloc_output(%ctx) {out_idx = 2 : i64} : memref<32xf32>
  hip.exp(%ctx) ins(%b : memref<32xf32>) outs(%o2 : memref<32xf32>)
  %c = memref.alloc() : memref<4x4xf32>
  hip.tanh(%ctx) ins(%z : memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  %e = memref.alloc() : memref<64xf32>
  hip.neg(%ctx) ins(%x : memref<64xf32>) outs(%e : memref<64xf32>)
  %o0 = hip.alloc_output(%ctx) {out_idx = 0 : i64} : memref<4x4xf32>
  hip.add(%ctx) ins(%c, %z : memref<4x4xf32>, memref<4x4xf32>) outs(%o0 : memref<4x4xf32>)
  hip.add(%ctx) ins(%e, %o1 : memref<64xf32>, memref<64xf32>) outs(%o1 : memref<64xf32>)
  func.return %o0, %o1, %o2 : memref<4x4xf32>, memref<64xf32>, memref<32xf32>
}
"""


@pytest.mark.parametrize("mode", MODES, ids=["normal", "deferred", "sanitize"])
def test_static_reuse_through_reinterpret_cast_keeps_the_numbers(mode):
    feeds = {
        "arg0": RNG.standard_normal(64).astype(np.float32),
        "arg1": RNG.standard_normal(32).astype(np.float32),
        "arg2": RNG.standard_normal((4, 4)).astype(np.float32),
    }
    module = _parse(STATIC)
    reused = _apply(module, "hip-optimize-memrefs")
    assert sum(isinstance(op, memref.ReinterpretCastOp) for op in reused.walk()) == 1
    assert sum(isinstance(op, memref.AllocOp) for op in reused.walk()) == 2
    expected = Executable(module).run(feeds)
    actual = Executable(reused, **mode).run(feeds)
    for name, value in expected.items():
        np.testing.assert_array_equal(actual[name], value)


# -- the attention model through the real pipeline --------------------------------------------

FRONT = "hip-add-context-arg,convert-onnx-to-hip,hip-externalize-constants{externalize-min-num-elements=256},canonicalize,cse"
BUFFERIZE = "one-shot-bufferize,hip-use-output-allocator"


@pytest.mark.parametrize("mode", MODES, ids=["normal", "deferred", "sanitize"])
def test_attention_model_through_bufferization_and_the_memory_passes(mode):
    pipeline = parse_pass_spec(",".join([FRONT, BUFFERIZE, *MEMORY_PASSES]))
    feeds = {"X": RNG.standard_normal((2, 24, 64)).astype(np.float32)}
    executable = xhip.compile(onnx.load(ATTENTION), pipeline=pipeline, **mode)
    result = compare(executable.run(feeds), onnxruntime_outputs(onnx.load(ATTENTION), feeds))
    assert result.passed, result.problems
    softmax = next(op for op in executable.module.walk() if op.name == "hip.softmax")
    qk_matmul = [op for op in executable.module.walk() if op.name == "hip.matmul"][3]
    assert softmax.outputs[0] is qk_matmul.outputs[0], "softmax writes into the dead QK^T buffer"
