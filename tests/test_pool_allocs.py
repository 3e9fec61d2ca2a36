"""hip-pool-allocs on the runtime, the seed's pool-size bound, and every pipeline YAML.

Hand-written memref IR runs on the reference backend before and after pooling,
normally and under the sanitizer (which fails on a read of bytes another live
buffer overwrote), and must give the same numbers as NumPy. The attention pool
size is read from the emitted IR itself: the `hip.get_pool` operand evaluated at
concrete (batch, seq).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
import yaml
from onnx import TensorProto, helper
from xdsl.dialects import memref
from xdsl.dialects.builtin import ModuleOp

import xhip
from xhip.context import make_context
from xhip.diagnostics import XhipError
from xhip.dialects.hip import GetPoolOp
from xhip.index.host_eval import evaluate
from xhip.memory import PLANNERS
from xhip.parsing import parse_module
from xhip.passes import available_passes
from xhip.passes.pool_allocs import PoolAllocsPass
from xhip.pipeline import instantiate, load_pipeline
from xhip.runtime.check import compare, onnxruntime_outputs
from xhip.runtime.executable import Executable
from xhip.verify import verify_module

REPO = Path(__file__).resolve().parents[1]
RNG = np.random.default_rng(570)

# Seed 003 after hip-optimize-memrefs (its pass 15), with the weights as inputs so
# that it runs without a constants file. Softmax writes into the dead QK^T buffer.
ATTENTION = """
builtin.module {
  "memref.global"() <{sym_name = "scale", type = memref<f32>, initial_value = dense<1.250000e-01> : tensor<f32>, sym_visibility = "private", constant}> : () -> ()
  func.func @main_graph(%ctx: !hip.context,
      %x: memref<?x?x64xf32> {onnx.dim_params = "0:batch,1:seq", onnx.name = "X"},
      %wq: memref<64x64xf32> {onnx.name = "Wq"}, %wk: memref<64x64xf32> {onnx.name = "Wk"},
      %wv: memref<64x64xf32> {onnx.name = "Wv"},
      %out: memref<?x?x64xf32> {bufferize.result, onnx.dim_params = "0:batch,1:seq", onnx.name = "out"}) {
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %scale = memref.get_global @scale : memref<f32>
    %batch = memref.dim %x, %c0 : memref<?x?x64xf32>
    %seq = memref.dim %x, %c1 : memref<?x?x64xf32>
    %q = memref.alloc(%batch, %seq) : memref<?x?x64xf32>
    hip.matmul(%ctx) ins(%x, %wq : memref<?x?x64xf32>, memref<64x64xf32>) outs(%q : memref<?x?x64xf32>)
    %k = memref.alloc(%batch, %seq) : memref<?x?x64xf32>
    hip.matmul(%ctx) ins(%x, %wk : memref<?x?x64xf32>, memref<64x64xf32>) outs(%k : memref<?x?x64xf32>)
    %v = memref.alloc(%batch, %seq) : memref<?x?x64xf32>
    hip.matmul(%ctx) ins(%x, %wv : memref<?x?x64xf32>, memref<64x64xf32>) outs(%v : memref<?x?x64xf32>)
    %kt = memref.alloc(%batch, %seq) : memref<?x64x?xf32>
    hip.transpose(%ctx) ins(%k : memref<?x?x64xf32>) outs(%kt : memref<?x64x?xf32>) {perm = array<i64: 0, 2, 1>}
    %qk = memref.alloc(%batch, %seq, %seq) : memref<?x?x?xf32>
    hip.matmul(%ctx) ins(%q, %kt : memref<?x?x64xf32>, memref<?x64x?xf32>) outs(%qk : memref<?x?x?xf32>)
    %scaled = memref.alloc(%batch, %seq, %seq) : memref<?x?x?xf32>
    hip.mul(%ctx) ins(%qk, %scale : memref<?x?x?xf32>, memref<f32>) outs(%scaled : memref<?x?x?xf32>)
    hip.softmax(%ctx) ins(%scaled : memref<?x?x?xf32>) outs(%qk : memref<?x?x?xf32>)
    hip.matmul(%ctx) ins(%qk, %v : memref<?x?x?xf32>, memref<?x?x64xf32>) outs(%out : memref<?x?x64xf32>)
    memref.dealloc %q : memref<?x?x64xf32>
    memref.dealloc %k : memref<?x?x64xf32>
    memref.dealloc %v : memref<?x?x64xf32>
    memref.dealloc %kt : memref<?x64x?xf32>
    memref.dealloc %qk : memref<?x?x?xf32>
    memref.dealloc %scaled : memref<?x?x?xf32>
    func.return
  }
}
"""

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

MODES = [{}, {"sanitize": True}, {"deferred": True}]


def _parse(text: str) -> ModuleOp:
    module = parse_module(make_context(), text, "input.mlir")
    verify_module(module)
    return module


def _pooled(text: str, **options: object) -> ModuleOp:
    module = _parse(text)
    PoolAllocsPass(**options).apply(make_context(), module)
    verify_module(module)
    return module


def _ops(module: ModuleOp, op_type: type) -> list:
    return [op for op in module.walk() if isinstance(op, op_type)]


PLANNER_OPTIONS = [{}, {"lifetime_only": False}, *({"planner": name} for name in PLANNERS)]


# -- the attention model ----------------------------------------------------------------


def _attention_feeds(batch: int, seq: int) -> dict[str, np.ndarray]:
    return {
        "X": RNG.standard_normal((batch, seq, 64)).astype(np.float32),
        "Wq": (RNG.standard_normal((64, 64)) / 8).astype(np.float32),
        "Wk": (RNG.standard_normal((64, 64)) / 8).astype(np.float32),
        "Wv": (RNG.standard_normal((64, 64)) / 8).astype(np.float32),
    }


def _attention_numpy(feeds: dict[str, np.ndarray]) -> np.ndarray:
    x = feeds["X"].astype(np.float64)
    q, k, v = x @ feeds["Wq"], x @ feeds["Wk"], x @ feeds["Wv"]
    scores = q @ k.transpose(0, 2, 1) * 0.125
    scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return (scores / scores.sum(axis=-1, keepdims=True)) @ v


@pytest.mark.parametrize("options", PLANNER_OPTIONS, ids=str)
@pytest.mark.parametrize("mode", MODES, ids=str)
def test_pooled_attention_computes_what_the_unpooled_one_does(options, mode):
    feeds = _attention_feeds(2, 24)
    expected = Executable(_parse(ATTENTION), **mode).run(feeds)["out"]
    np.testing.assert_allclose(expected, _attention_numpy(feeds), rtol=1e-4, atol=1e-5)
    module = _pooled(ATTENTION, **options)
    assert len(_ops(module, GetPoolOp)) == 1
    assert not _ops(module, memref.AllocOp) and not _ops(module, memref.DeallocOp)
    executable = Executable(module, **mode)
    np.testing.assert_array_equal(executable.run(feeds)["out"], expected)
    report = executable.report
    assert report.lower_bound_bytes <= report.pool_bytes


SEED_SHAPES = [(1, 128), (4, 512), (16, 2048)]


def _align(n: int, alignment: int = 256) -> int:
    return -(-n // alignment) * alignment


@pytest.mark.parametrize("options", PLANNER_OPTIONS, ids=str)
def test_attention_pool_is_never_larger_than_the_seeds(options):
    module = _pooled(ATTENTION, **options)
    (pool,) = _ops(module, GetPoolOp)
    dims = {op.result.name_hint: op.result for op in _ops(module, memref.DimOp)}
    for batch, seq in SEED_SHAPES:
        size = evaluate(pool.size, {dims["batch"]: batch, dims["seq"]: seq})
        a, b = _align(batch * seq * 256), _align(batch * seq * seq * 4)
        assert size <= 4 * a + 2 * b, (batch, seq)
        # Never below what is live at once: Q, K, V and K^T at the transpose; Q, V,
        # K^T and QK^T at the QK^T matmul; V, QK^T and the scaled scores after it.
        assert size >= max(4 * a, 3 * a + b, a + 2 * b), (batch, seq)


def test_lifetime_only_beats_the_seed_where_scores_are_small():
    """At seq = 16 a score buffer (b*s*s*4) is smaller than a projection (b*s*256):
    sharing slabs by lifetime saves memory the seed's stacking wasted."""
    module = _pooled(ATTENTION)
    (pool,) = _ops(module, GetPoolOp)
    dims = {op.result.name_hint: op.result for op in _ops(module, memref.DimOp)}
    size = evaluate(pool.size, {dims["batch"]: 2, dims["seq"]: 16})
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
    module = _pooled(DISJOINT_AND_LATE, **options)
    pools = _ops(module, GetPoolOp)
    assert [p.domain_id.value.data for p in pools] == [0, 1]
    for n, m in [(3, 7), (7, 3), (1, 1)]:
        feeds = _disjoint_feeds(n, m)
        outputs = Executable(module.clone(), **mode).run(feeds)
        np.testing.assert_allclose(outputs["A"], np.exp(-feeds["X"]), rtol=1e-6)
        np.testing.assert_allclose(outputs["B"], np.exp(-feeds["Y"]), rtol=1e-6)
        np.testing.assert_allclose(outputs["C"], np.maximum(-feeds["Y"].reshape(-1)[: feeds["count"][0]], 0), rtol=1e-6)


def test_lifetime_only_shares_one_slab_between_different_dims():
    module = _pooled(DISJOINT_AND_LATE)
    attributes = module.attributes
    # %a and %b (domain 0) both at offset 0; %c alone in domain 1.
    assert str(attributes["hip.buffer_offsets"]) == "array<i64: 0, 0, 0>"
    assert str(attributes["hip.buffer_domains"]) == "array<i64: 0, 0, 1>"
    assert attributes["hip.pool_sizes"].data[0].data == "max(align_up(16*m, 256), align_up(32*n, 256))"


def test_the_sanitizer_would_catch_an_overlapping_plan():
    """The runs above can fail: put V over Q, which QK^T still reads after V is written."""
    module = _pooled(ATTENTION)
    views = {op.result.name_hint: op for op in _ops(module, memref.ViewOp)}
    wrong = views["v"]
    wrong.operands = [wrong.source, views["q"].byte_shift, *wrong.sizes]
    feeds = _attention_feeds(2, 24)
    with pytest.raises(XhipError, match="sanitizer: reading '%q .*' last written through '%v"):
        Executable(module, sanitize=True).run(feeds)


# -- pipelines ------------------------------------------------------------------------------


PIPELINES = sorted((REPO / "pipelines").rglob("*.yaml"))


def _pass_name(entry: object) -> str:
    name = next(iter(entry)) if isinstance(entry, dict) else str(entry)
    return name.split("#")[0]


def _referenced(path: Path) -> tuple[set[str], set[str]]:
    """The passes a pipeline file names: (in pass lists, in references to inherited passes)."""
    doc = yaml.safe_load(path.read_text()) or {}
    listed = {_pass_name(e) for e in doc.get("passes") or []}
    listed |= {_pass_name(e["pass"]) for e in doc.get("insert") or []}
    inherited = {_pass_name(e) for e in doc.get("remove") or []}
    inherited |= {_pass_name(e[k]) for e in doc.get("insert") or [] for k in ("before", "after") if k in e}
    inherited |= {key.partition(".")[0].split("#")[0] for key in doc.get("set") or {}}
    return listed, inherited


def _base_passes(path: Path) -> set[str] | None:
    doc = yaml.safe_load(path.read_text()) or {}
    if "extends" not in doc:
        return None
    return {entry.name for entry in load_pipeline((path.parent / doc["extends"]).resolve()).passes}


def _missing(path: Path) -> str | None:
    """Why `path` cannot load yet (a pass not registered, or not in the file it extends), or None."""
    listed, inherited = _referenced(path)
    unregistered = sorted((listed | inherited) - set(available_passes()))
    if unregistered:
        return f"{path.name} names passes not registered yet: {', '.join(unregistered)}"
    base = _base_passes(path)
    if base is not None and inherited - base:
        return f"the pipeline {path.name} extends does not run {', '.join(sorted(inherited - base))} yet"
    return None


@pytest.mark.parametrize("path", PIPELINES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_pipeline_yaml_loads(path):
    reason = _missing(path)
    if reason:
        pytest.skip(reason)
    passes = instantiate(load_pipeline(path))
    assert passes, f"{path} has no passes"


# -- the seed 004 race, through whole pipelines ---------------------------------------------


def _two_host_fed_indices() -> onnx.ModelProto:
    """Two Gathers whose indices the host computes from the input's shape (n-1, n-2)
    and stores into one-element buffers that a queued kernel then reads."""
    nodes = [
        helper.make_node("Shape", ["x"], ["n"], start=0, end=1),
        helper.make_node("Sub", ["n", "one"], ["last"]),
        helper.make_node("Sub", ["n", "two"], ["before_last"]),
        helper.make_node("Gather", ["x", "last"], ["g1"], axis=0),
        helper.make_node("Relu", ["g1"], ["r1"]),
        helper.make_node("Gather", ["x", "before_last"], ["g2"], axis=0),
        helper.make_node("Add", ["g2", "r1"], ["y"]),
    ]
    constants = [
        helper.make_tensor("one", TensorProto.INT64, [1], [1]),
        helper.make_tensor("two", TensorProto.INT64, [1], [2]),
    ]
    graph = helper.make_graph(
        nodes,
        "race",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        constants,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


DEFAULT_YAML = REPO / "pipelines" / "default.yaml"
RACY_YAML = REPO / "pipelines" / "experiments" / "reuse-before-host-scalars.yaml"


@pytest.mark.parametrize("pipeline, racy", [(DEFAULT_YAML, False), (RACY_YAML, True)], ids=["default", "racy"])
@pytest.mark.parametrize("mode", [{"deferred": True}, {"sanitize": True}], ids=str)
def test_host_fed_scalars_race_only_in_the_old_order(pipeline, racy, mode):
    reason = _missing(RACY_YAML)
    if reason:
        pytest.skip(reason)
    model = _two_host_fed_indices()
    feeds = {"x": RNG.standard_normal((5, 8)).astype(np.float32)}
    reference = onnxruntime_outputs(model, feeds)
    # Program order (no queue) is right with either pipeline.
    assert compare(xhip.compile(model, pipeline).run(feeds), reference).passed
    try:
        result = compare(xhip.compile(model, pipeline, **mode).run(feeds), reference).passed
    except XhipError as error:  # the sanitizer may name the race instead
        assert racy and "sanitizer" in str(error), error
        return
    assert result != racy
