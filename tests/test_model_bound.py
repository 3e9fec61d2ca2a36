"""The report's honest bound: the model's own max-live bytes, recorded before any reuse pass.

hip-record-model-buffers writes every intermediate (size, interval, in-place target)
as `hip.model_buffers`; the Executable evaluates it at each run's dims into
`lower_bound_bytes` and `in_place_lower_bound_bytes`, next to the max-live of the
final (merged) IR, `merged_lower_bound_bytes`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import xhip
from xhip.memory import SizeExpr
from xhip.runtime.executable import Executable
from xhip.memory.model_bound import ModelBuffers, parse_size
from xhip.pipeline import apply_overrides, load_pipeline
from xhip.shipped import shipped_pipelines
from xhip.testing.models import MODELS, SHAPE_VARIANTS, attention, feeds_at, graph_model, value

MiB = 2**20
PIPELINES = sorted(shipped_pipelines())


NO_FUSION = shipped_pipelines()["no-fusion"]
"""The default pipeline without fusion: elementwise chains and attentions keep their buffers."""
SEED_REUSE = apply_overrides(load_pipeline(NO_FUSION), ['hip-optimize-memrefs.reuse="liveness"'])
"""Unfused, with the seed's hip-optimize-memrefs (any dead buffer may be taken)."""


def _run(model: onnx.ModelProto, feeds: dict[str, np.ndarray], pipeline: object = None) -> Executable:
    executable = xhip.compile(model, pipeline, backend="reference")
    executable.run(feeds)
    return executable


def _report(model: onnx.ModelProto, feeds: dict[str, np.ndarray], pipeline: object = None):
    return _run(model, feeds, pipeline).report


# -- sizes survive the attribute -------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["0", "512", "256*batch*seq", "4*batch*seq^2 + 256", "max(512, align_up(16*%load, 256))", "batch*seq_1 + 8*%dim"],
)
def test_a_printed_size_reads_back_as_itself(text):
    assert str(parse_size(text)) == text


def test_a_size_with_a_dim_the_run_does_not_bind_gives_no_bound():
    buffers = ModelBuffers((parse_size("4*%load"),), ((0, 1),), (-1,))
    assert buffers.bounds({"batch": 2}, 256) is None
    assert buffers.bounds({"%load": 100}, 256).lower == 512


def test_a_chain_of_in_place_writes_is_one_buffer():
    size = SizeExpr.const(1024)
    # a -> b -> c, each written over the one before, as relu(neg(exp(x))) would be.
    buffers = ModelBuffers((size, size, size), ((0, 2), (1, 4), (3, 6)), (-1, 0, 1))
    bounds = buffers.bounds({}, 256)
    assert bounds.lower == 2048 and bounds.in_place == 1024


def test_an_in_place_target_must_be_an_earlier_buffer():
    with pytest.raises(ValueError, match="not an earlier buffer"):
        ModelBuffers((SizeExpr.const(4), SizeExpr.const(4)), ((0, 1), (1, 2)), (1, -1))


# -- every model, every pipeline --------------------------------------------------------------


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize("name", sorted(MODELS))
def test_the_bound_is_never_above_the_pool(name, pipeline):
    for shapes in SHAPE_VARIANTS[name]:
        model, feeds = feeds_at(name, shapes, np.random.default_rng(0))
        report = _report(model, feeds, shipped_pipelines()[pipeline])
        where = f"{name} at {shapes} under {pipeline}"
        if report.merged_lower_bound_bytes is None:  # nothing pooled
            assert report.lower_bound_bytes in (None, 0), where
            continue
        assert report.lower_bound_bytes is not None, where
        # In-place writes (the default pipeline's) may take the pool below the model's own
        # bound, never below the in-place bound: every merge is an in-place pair or a reuse.
        assert report.in_place_lower_bound_bytes <= report.lower_bound_bytes, where
        assert report.in_place_lower_bound_bytes <= report.merged_lower_bound_bytes <= report.pool_bytes, where


# -- the merge stretches a lifetime ------------------------------------------------------------


def _stretched_lifetime_model() -> onnx.ModelProto:
    """a and b (1 KiB) die before w and v (4 KiB); c, computed from a slice of v, is 1 KiB again.

    hip-optimize-memrefs gives c the slot of a or b, so that slot is live across v,
    where w and v are: the merged program holds 9 KiB there, the model only 8."""
    f32 = TensorProto.FLOAT
    starts = numpy_helper.from_array(np.array([0], np.int64), "starts")
    ends = numpy_helper.from_array(np.array([256], np.int64), "ends")
    nodes = [
        helper.make_node("Relu", ["x"], ["a"]),
        helper.make_node("Neg", ["a"], ["b"]),
        helper.make_node("Concat", ["b", "b", "b", "b"], ["w"], axis=0),
        helper.make_node("Neg", ["w"], ["v"]),
        helper.make_node("Slice", ["v", "starts", "ends"], ["head"]),
        helper.make_node("Relu", ["head"], ["c"]),
        helper.make_node("Neg", ["c"], ["y"]),
    ]
    return graph_model(nodes, [value("x", f32, [256])], [value("y", f32, [256])], [starts, ends])


def test_the_models_bound_is_below_the_merged_programs_where_the_merge_stretches_a_lifetime():
    """Under the seed's reuse (any dead buffer, `reuse = "liveness"`)."""
    x = np.random.default_rng(0).standard_normal(256).astype(np.float32)
    report = _report(_stretched_lifetime_model(), {"x": x}, SEED_REUSE)
    assert report.lower_bound_bytes == 8 * 1024
    assert report.merged_lower_bound_bytes == 9 * 1024
    assert report.lower_bound_bytes < report.merged_lower_bound_bytes <= report.pool_bytes
    # In place, Neg writes b over a and v over w (each dies there): the peak is one
    # 1 KiB buffer next to the 4 KiB one.
    assert report.in_place_lower_bound_bytes == 5 * 1024


def test_gpt2s_bound_follows_a_reshape_target_computed_from_the_inputs_dims():
    """Two buffers of GPT-2 are sized by a Reshape target (`arith.select` on seq, a
    division): the record computes those dims from batch and seq at each run."""
    model, feeds = feeds_at("gpt2", {"input_ids": (4, 64)}, np.random.default_rng(0))
    # Unfused: fusion leaves GPT-2 no buffer that an op could write over in place.
    executable = _run(model, feeds, NO_FUSION)
    assert executable.model_buffers.dim_rules is not None
    report = executable.report
    assert report.in_place_lower_bound_bytes < report.lower_bound_bytes
    assert report.in_place_lower_bound_bytes <= report.merged_lower_bound_bytes <= report.pool_bytes


def test_the_default_pipeline_plans_the_merged_program_at_the_in_place_bound():
    """Only in-place merges, then the run-time planner: nothing lengthens a lifetime."""
    x = np.random.default_rng(0).standard_normal(256).astype(np.float32)
    report = _report(_stretched_lifetime_model(), {"x": x})
    assert report.in_place_lower_bound_bytes == report.merged_lower_bound_bytes == report.pool_bytes == 5 * 1024


def test_a_dim_rule_may_read_one_symbol_from_several_inputs():
    """Both inputs declare `batch` and `seq`; the Reshape target's dims read them from
    each input (as a BERT export's input_ids, attention_mask and token_type_ids do).
    The record binds every read of a symbol to one argument of its dim rules, so the
    bound is computed instead of the rules failing to parse (undefined values)."""
    nodes = [
        helper.make_node("Add", ["a", "b"], ["ab"]),
        helper.make_node("Shape", ["b"], ["shape_b"]),
        helper.make_node("Gather", ["shape_b", "zero"], ["batch_b"], axis=0),
        helper.make_node("Concat", ["minus_one", "batch_b"], ["target"], axis=0),
        helper.make_node("Reshape", ["ab", "target"], ["folded"]),
        helper.make_node("Transpose", ["folded"], ["turned"], perm=[1, 0]),
        helper.make_node("Relu", ["turned"], ["y"]),
    ]
    constants = [numpy_helper.from_array(np.array([v], np.int64), n) for n, v in (("zero", 0), ("minus_one", -1))]
    model = graph_model(
        nodes,
        [value("a", TensorProto.FLOAT, ["batch", "seq"]), value("b", TensorProto.FLOAT, ["batch", "seq"])],
        [value("y", TensorProto.FLOAT, None)],
        constants,
    )
    rng = np.random.default_rng(0)
    feeds = {name: rng.standard_normal((3, 128)).astype(np.float32) for name in ("a", "b")}
    executable = _run(model, feeds)
    assert executable.model_buffers.dim_rules is not None
    assert executable.report.lower_bound_bytes == 2 * 3 * 128 * 4  # the sum and its transpose, co-live


# -- the seed attention model: the issue's table -----------------------------------------------


@pytest.mark.parametrize(
    ("batch", "seq", "bound_mib", "in_place_mib"),
    # The table's bounds plus Q's and K's bytes where the softmax is live: the pipeline
    # merges the three projections into one buffer (onnx-merge-sibling-matmuls), which lives
    # until P V reads V from it. The in-place bound, and the pool, are the table's. The table
    # is of the unfused attention (its scores in the pool); the default fuses it (below).
    [(1, 128, 0.21875, 0.15625), (4, 512, 9.5, 5.5), (8, 1024, 70, 38)],
)
def test_seed_attention_bounds_match_the_issues_table(batch, seq, bound_mib, in_place_mib):
    model, feeds = attention(np.random.default_rng(0), batch, seq)
    report = _report(model, feeds, shipped_pipelines()["unfused-attention"])
    assert report.lower_bound_bytes == bound_mib * MiB
    assert report.in_place_lower_bound_bytes == in_place_mib * MiB
    assert report.pool_over_bound == report.pool_bytes / report.lower_bound_bytes


@pytest.mark.parametrize(("batch", "seq"), [(1, 128), (4, 512), (8, 1024)])
def test_the_fused_seed_attention_holds_only_the_projection(batch, seq):
    """The default pipeline's hip.attention never stores the scores: its only transient
    buffer, and the model's bound, is the Q|K|V projection [batch, seq, 192] f32."""
    model, feeds = attention(np.random.default_rng(0), batch, seq)
    report = _report(model, feeds)
    assert report.pool_bytes == report.lower_bound_bytes == batch * seq * 192 * 4


def test_xhip_run_prints_and_writes_the_three_bounds(tmp_path):
    model_path = tmp_path / "stretched.onnx"
    onnx.save(_stretched_lifetime_model(), model_path)
    report_path = tmp_path / "report.json"
    tool = Path(sys.executable).parent / "xhip-run"
    command = [str(tool), str(model_path), "--backend", "reference", "--report", str(report_path)]
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    rows = {line[:24].strip(): line[24:].strip() for line in result.stdout.splitlines()}
    assert rows["lower bound (model)"] == "8192" and rows["lower bound (merged IR)"] == "5120"
    assert rows["lower bound (in place)"] == "5120"
    assert rows["pool / bound"] == f"{int(rows['pool bytes']) / 8192:.3f}"
    report = json.loads(report_path.read_text())
    assert report["lower_bound_bytes"] == 8192 and report["merged_lower_bound_bytes"] == 5120
    assert report["in_place_lower_bound_bytes"] == 5120
    assert report["pool_over_bound"] == report["pool_bytes"] / 8192
