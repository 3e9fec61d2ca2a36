"""The memory passes between bufferization and pooling, run end to end on the runtime.

hip-materialize-host-scalars, hip-optimize-memrefs, hip-resolve-memref-dims and
hip-hoist-alloc-size-arith are checked on hand-written memref IR, the stage they see,
by executing the IR before and after them on the reference runtime, in normal, deferred
and sanitize modes, and against onnxruntime where an ONNX model computes the same; the
attention model also goes through the real front of the pipeline. The host access
analysis they rely on is tested on its own in tests/test_host_access.py.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from helpers import (
    EXECUTION_MODE_IDS,
    EXECUTION_MODES,
    MEMORY_PASSES,
    after_passes,
    first_function_block,
    named_values,
    ops_of,
    parse_verified,
    seed_attention,
    seed_attention_feeds,
    seed_attention_onnx,
)
from xdsl.dialects import memref
from xdsl.dialects.builtin import ModuleOp, i64

import xhip
from xhip.dialects.hip import GetHostScratchOp
from xhip.pipeline import parse_pass_spec
from xhip.runtime.check import compare, onnxruntime_outputs
from xhip.runtime.executable import Executable

REPO = Path(__file__).resolve().parents[1]
ATTENTION = REPO / "examples" / "attention.onnx"
RNG = np.random.default_rng(5)


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
    return parse_verified(RACE.replace("Nxi64", f"{elements}xi64"))


def _first_elements(module: ModuleOp, **mode) -> tuple[int, int]:
    outputs = Executable(module, **mode).run(RACE_FEEDS)
    return int(outputs["result0"][0]), int(outputs["result1"][0])


@pytest.mark.parametrize("elements", [1, 32])
@pytest.mark.parametrize("spec", SAFE_ORDERS)
@pytest.mark.parametrize("mode", EXECUTION_MODES, ids=EXECUTION_MODE_IDS)
def test_host_fed_buffers_kept_apart_are_correct_in_every_mode(elements, spec, mode):
    module = after_passes(_race_module(elements), spec)
    assert _first_elements(module, **mode) == (7, 9)


@pytest.mark.parametrize("elements", [1, 32])
def test_reusing_a_host_fed_slot_races_under_deferred_execution(elements):
    module = after_passes(_race_module(elements), RACY)
    allocs = [op for op in ops_of(module, memref.AllocOp) if op.memref.type.element_type == i64]
    scratch_views = ops_of(module, memref.ViewOp)
    assert len(allocs) + len(scratch_views) == 1, "the two host-fed buffers share one slot"
    # In program order the slot happens to hold the right values ...
    assert _first_elements(module) == (7, 9)
    # ... but the first copy is queued behind the matmul and reads the second store.
    assert _first_elements(module, deferred=True) == (9, 9)


def test_materialized_scalars_sit_64_bytes_apart_in_one_scratch():
    module = after_passes(_race_module(1), "hip-materialize-host-scalars,hip-optimize-memrefs")
    scratches = ops_of(module, GetHostScratchOp)
    offsets = [op.byte_shift.owner.value.value.data for op in ops_of(module, memref.ViewOp)]
    assert len(scratches) == 1 and offsets == [0, 64]
    executable = Executable(module)
    executable.run(RACE_FEEDS)
    assert executable.report.host_scratch_bytes == 128


# -- the attention buffers (seed 003 Pass 15) through every pass, against onnxruntime ---------


@pytest.mark.parametrize("shape", [(2, 16), (1, 1), (0, 5)])
def test_attention_after_each_memory_pass_matches_onnxruntime(shape):
    feeds = seed_attention_feeds(RNG, *shape)
    reference = onnxruntime_outputs(seed_attention_onnx(), feeds)
    module = seed_attention()
    for count in range(len(MEMORY_PASSES) + 1):
        staged = after_passes(module, ",".join(MEMORY_PASSES[:count])) if count else module
        for mode in EXECUTION_MODES:
            result = compare(Executable(staged.clone(), **mode).run(feeds), reference)
            assert result.passed, f"after {MEMORY_PASSES[:count]} {mode}: {result.problems}"


def test_attention_softmax_writes_into_the_dead_qk_buffer():
    module = after_passes(seed_attention(), ",".join(MEMORY_PASSES))
    allocs = ops_of(module, memref.AllocOp)
    assert [a.memref.name_hint for a in allocs] == ["q", "k", "v", "kt", "qk", "scaled"]
    softmax = next(op for op in module.walk() if op.name == "hip.softmax")
    assert softmax.outputs[0] is named_values(module)["qk"]
    # Every size is a dim of the input now, computed before the first allocation.
    first = allocs[0]
    for alloc in allocs:
        for size in alloc.dynamic_sizes:
            assert isinstance(size.owner, memref.DimOp) and size.owner.source is first_function_block(module).args[1]
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


@pytest.mark.parametrize("mode", EXECUTION_MODES, ids=EXECUTION_MODE_IDS)
def test_static_reuse_through_reinterpret_cast_keeps_the_numbers(mode):
    feeds = {
        "arg0": RNG.standard_normal(64).astype(np.float32),
        "arg1": RNG.standard_normal(32).astype(np.float32),
        "arg2": RNG.standard_normal((4, 4)).astype(np.float32),
    }
    module = parse_verified(STATIC)
    reused = after_passes(module, "hip-optimize-memrefs")
    assert len(ops_of(reused, memref.ReinterpretCastOp)) == 1
    assert len(ops_of(reused, memref.AllocOp)) == 2
    expected = Executable(module).run(feeds)
    actual = Executable(reused, **mode).run(feeds)
    for name, value in expected.items():
        np.testing.assert_array_equal(actual[name], value)


# -- the attention model through the real pipeline --------------------------------------------

FRONT = "hip-add-context-arg,convert-onnx-to-hip,hip-externalize-constants{externalize-min-num-elements=256},canonicalize,cse"
BUFFERIZE = "one-shot-bufferize,hip-use-output-allocator"


@pytest.mark.parametrize("mode", EXECUTION_MODES, ids=EXECUTION_MODE_IDS)
def test_attention_model_through_bufferization_and_the_memory_passes(mode):
    pipeline = parse_pass_spec(",".join([FRONT, BUFFERIZE, *MEMORY_PASSES]))
    feeds = {"X": RNG.standard_normal((2, 24, 64)).astype(np.float32)}
    executable = xhip.compile(onnx.load(ATTENTION), pipeline=pipeline, **mode)
    result = compare(executable.run(feeds), onnxruntime_outputs(onnx.load(ATTENTION), feeds))
    assert result.passed, result.problems
    softmax = next(op for op in executable.module.walk() if op.name == "hip.softmax")
    qk_matmul = [op for op in executable.module.walk() if op.name == "hip.matmul"][3]
    assert softmax.outputs[0] is qk_matmul.outputs[0], "softmax writes into the dead QK^T buffer"
