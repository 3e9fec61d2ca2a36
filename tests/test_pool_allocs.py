"""hip-pool-allocs on the runtime, and the seed's pool-size bound.

Memref IR (the seed attention of tests/runtime_inputs/attention.mlir after the
memory passes, and hand-written cases) runs on the reference backend before and
after pooling, normally, queued and under the sanitizer (which fails on a read of
bytes another live buffer overwrote), and must give the same numbers as
onnxruntime or NumPy. The attention pool size is read from the emitted IR itself:
the `hip.get_pool` operand evaluated at concrete (batch, seq).
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import (
    EXECUTION_MODE_IDS,
    EXECUTION_MODES,
    MEMORY_PASSES,
    after_passes,
    ops_of,
    parse_verified,
    seed_attention,
    seed_attention_feeds,
    seed_attention_onnx,
)
from xdsl.dialects import memref
from xdsl.dialects.builtin import ModuleOp

from xhip.context import make_context
from xhip.diagnostics import XhipError
from xhip.dialects.hip import GetPoolOp
from xhip.index.host_eval import evaluate
from xhip.memory import PLANNERS
from xhip.passes.pool_allocs import PoolAllocsPass
from xhip.runtime.check import onnxruntime_outputs
from xhip.runtime.executable import Executable
from xhip.verify import verify_module

RNG = np.random.default_rng(570)

# Seed 001 (PR 570): buffers sized by different dims, never live together, and a
# late load (the host reads a count) that opens a second domain. %b lives on
# through a view of it until the copy into %c.
DISJOINT_AND_LATE = """
func.func @main_graph(%ctx: !hip.context,
    %x: memref<?x8xf32> {onnx.dim_params = "0:n", onnx.name = "X"},
    %y: memref<?x4xf32> {onnx.dim_params = "0:m", onnx.name = "Y"},
    %count: memref<1xi64> {onnx.name = "count"}) -> (memref<?x8xf32> {onnx.name = "A"}, memref<?x4xf32> {onnx.name = "B"}, memref<?xf32> {onnx.name = "C"}) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x8xf32>
  %m = memref.dim %y, %c0 : memref<?x4xf32>
  %a = memref.alloc(%n) : memref<?x8xf32>
  hip.neg(%ctx) ins(%x : memref<?x8xf32>) outs(%a : memref<?x8xf32>)
  %out_a = hip.alloc_output(%ctx, %n) {out_idx = 0 : i64} : memref<?x8xf32>
  hip.exp(%ctx) ins(%a : memref<?x8xf32>) outs(%out_a : memref<?x8xf32>)
  %b = memref.alloc(%m) : memref<?x4xf32>
  hip.neg(%ctx) ins(%y : memref<?x4xf32>) outs(%b : memref<?x4xf32>)
  %out_b = hip.alloc_output(%ctx, %m) {out_idx = 1 : i64} : memref<?x4xf32>
  hip.exp(%ctx) ins(%b : memref<?x4xf32>) outs(%out_b : memref<?x4xf32>)
  %raw = memref.load %count[%c0] : memref<1xi64>
  %k = arith.index_cast %raw : i64 to index
  %c = memref.alloc(%k) : memref<?xf32>
  %flat = memref.collapse_shape %b [[0, 1]] : memref<?x4xf32> into memref<?xf32>
  %head = memref.subview %flat[0] [%k] [1] : memref<?xf32> to memref<?xf32, strided<[1]>>
  hip.copy(%ctx) ins(%head : memref<?xf32, strided<[1]>>) outs(%c : memref<?xf32>)
  %out_c = hip.alloc_output(%ctx, %k) {out_idx = 2 : i64} : memref<?xf32>
  hip.relu(%ctx) ins(%c : memref<?xf32>) outs(%out_c : memref<?xf32>)
  func.return %out_a, %out_b, %out_c : memref<?x8xf32>, memref<?x4xf32>, memref<?xf32>
}
"""


def _pooled(module: ModuleOp, **options: object) -> ModuleOp:
    pooled = module.clone()
    PoolAllocsPass(**options).apply(make_context(), pooled)
    verify_module(pooled)
    return pooled


def _attention() -> ModuleOp:
    """Seed 003 after hip-optimize-memrefs (its pass 15) and the other memory passes:
    six buffers, softmax writing into the dead QK^T one; the output is not pooled."""
    return after_passes(seed_attention(), ",".join(MEMORY_PASSES))


PLANNER_OPTIONS = [{}, {"lifetime_only": False}, *({"planner": name} for name in PLANNERS), {"planner": "run-time"}]


# -- the attention model ----------------------------------------------------------------


@pytest.mark.parametrize("options", PLANNER_OPTIONS, ids=str)
@pytest.mark.parametrize("mode", EXECUTION_MODES, ids=EXECUTION_MODE_IDS)
def test_pooled_attention_computes_what_the_unpooled_one_does(options, mode):
    feeds = seed_attention_feeds(RNG, 2, 24)
    unpooled = _attention()
    expected = Executable(unpooled.clone(), **mode).run(feeds)["out"]
    np.testing.assert_allclose(expected, onnxruntime_outputs(seed_attention_onnx(), feeds)["out"], rtol=1e-4, atol=1e-5)
    module = _pooled(unpooled, **options)
    assert len(ops_of(module, GetPoolOp)) == 1
    assert not ops_of(module, memref.AllocOp) and not ops_of(module, memref.DeallocOp)
    executable = Executable(module, **mode)
    np.testing.assert_array_equal(executable.run(feeds)["out"], expected)
    report = executable.report
    assert report.merged_lower_bound_bytes <= report.pool_bytes


SEED_SHAPES = [(1, 128), (4, 512), (16, 2048)]


def _align(n: int, alignment: int = 256) -> int:
    return -(-n // alignment) * alignment


@pytest.mark.parametrize("options", PLANNER_OPTIONS, ids=str)
def test_attention_pool_is_never_larger_than_the_seeds(options):
    module = _pooled(_attention(), **options)
    (pool,) = ops_of(module, GetPoolOp)
    dims = {op.result.name_hint: op.result for op in ops_of(module, memref.DimOp)}
    for batch, seq in SEED_SHAPES:
        size = evaluate(pool.size, {dims["b"]: batch, dims["s"]: seq})
        a, b = _align(batch * seq * 256), _align(batch * seq * seq * 4)
        assert size <= 4 * a + 2 * b, (batch, seq)
        # Never below what is live at once: Q, K, V and K^T at the transpose; Q, V,
        # K^T and QK^T at the QK^T matmul; V, QK^T and the scaled scores after it.
        assert size >= max(4 * a, 3 * a + b, a + 2 * b), (batch, seq)


def test_lifetime_only_beats_the_seed_where_scores_are_small():
    """At seq = 16 a score buffer (b*s*s*4) is smaller than a projection (b*s*256):
    sharing slabs by lifetime saves memory the seed's stacking wasted."""
    module = _pooled(_attention())
    (pool,) = ops_of(module, GetPoolOp)
    dims = {op.result.name_hint: op.result for op in ops_of(module, memref.DimOp)}
    size = evaluate(pool.size, {dims["b"]: 2, dims["s"]: 16})
    a, b = _align(2 * 16 * 256), _align(2 * 16 * 16 * 4)
    assert size == 4 * a < 4 * a + 2 * b


# -- dims that differ, and a second domain --------------------------------------------------


def _disjoint_feeds(n: int, m: int) -> dict[str, np.ndarray]:
    return {
        "X": RNG.standard_normal((n, 8)).astype(np.float32),
        "Y": RNG.standard_normal((m, 4)).astype(np.float32),
        "count": np.array([min(5, 4 * m)], np.int64),
    }


@pytest.mark.parametrize("options", PLANNER_OPTIONS, ids=str)
@pytest.mark.parametrize("mode", [{}, {"sanitize": True}], ids=str)
def test_disjoint_buffers_and_a_late_domain_run_correctly(options, mode):
    module = _pooled(parse_verified(DISJOINT_AND_LATE), **options)
    pools = ops_of(module, GetPoolOp)
    assert [p.domain_id.value.data for p in pools] == [0, 1]
    for n, m in [(3, 7), (7, 3), (1, 1)]:
        feeds = _disjoint_feeds(n, m)
        outputs = Executable(module.clone(), **mode).run(feeds)
        np.testing.assert_allclose(outputs["A"], np.exp(-feeds["X"]), rtol=1e-6)
        np.testing.assert_allclose(outputs["B"], np.exp(-feeds["Y"]), rtol=1e-6)
        np.testing.assert_allclose(outputs["C"], np.maximum(-feeds["Y"].reshape(-1)[: feeds["count"][0]], 0), rtol=1e-6)


def test_lifetime_only_shares_one_slab_between_different_dims():
    module = _pooled(parse_verified(DISJOINT_AND_LATE))
    attributes = module.attributes
    # %a and %b (domain 0) both at offset 0; %c alone in domain 1.
    assert str(attributes["hip.buffer_offsets"]) == "array<i64: 0, 0, 0>"
    assert str(attributes["hip.buffer_domains"]) == "array<i64: 0, 0, 1>"
    assert attributes["hip.pool_sizes"].data[0].data == "max(align_up(16*m, 256), align_up(32*n, 256))"


def test_the_sanitizer_would_catch_an_overlapping_plan():
    """The runs above can fail: put V over Q, which QK^T still reads after V is written."""
    module = _pooled(_attention())
    views = {op.result.name_hint: op for op in ops_of(module, memref.ViewOp)}
    wrong = views["v"]
    wrong.operands = [wrong.source, views["q"].byte_shift, *wrong.sizes]
    feeds = seed_attention_feeds(RNG, 2, 24)
    with pytest.raises(XhipError, match="sanitizer: reading '%q .*' last written through '%v"):
        Executable(module, sanitize=True).run(feeds)
