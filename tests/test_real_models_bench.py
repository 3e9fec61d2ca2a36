"""benchmarks/real_models.py on the committed small exports: one row of the table, end to end.

The row function compiles nothing itself: it runs the compiled model at a shape,
checks it against onnxruntime fp32 and float64 (xhip.runtime.check) and quotes the
run's report. The full table runs on the large exports (hundreds of MB) outside CI.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import sys

import onnx
import pytest
from onnx import TensorProto, helper

import xhip
from xhip.testing.models import EXAMPLES, TRANSFORMER_EXPORTS

from tests.conftest import REPO_ROOT

VOCABULARIES = {**TRANSFORMER_EXPORTS, "gpt2_2layer": 256}
"""The committed exports, with their vocabularies (examples/export_gpt2.py: 256)."""


@functools.cache
def real_models():
    spec = importlib.util.spec_from_file_location("real_models", REPO_ROOT / "benchmarks" / "real_models.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@functools.cache
def compiled(name: str):
    path = EXAMPLES / f"{name}.onnx"
    return real_models().model_facts(path), xhip.compile(path, backend="reference")


def test_a_row_passes_and_quotes_the_run_pool():
    facts, executable = compiled("bert_tiny_64")
    row = real_models().measure_row(facts, executable, 4, 77)
    assert row["passed"], row["problems"]
    assert row["float64_engine"] is not None, "the row was judged without a float64 run"
    assert 0 < row["err_vs_float64"] <= row["bound"]
    assert row["pool_bytes"] == executable.report.pool_bytes > 0
    assert row["lower_bound_bytes"] == executable.report.lower_bound_bytes
    assert row["in_place_lower_bound_bytes"] == executable.report.in_place_lower_bound_bytes
    assert row["pool_bytes"] >= row["in_place_lower_bound_bytes"] > 0


def test_seq_beyond_the_position_table_is_skipped_not_run():
    facts, executable = compiled("bert_tiny_64")
    assert facts.position_limit == 128  # max_position_embeddings of the export
    row = real_models().measure_row(facts, executable, 1, 129)
    assert "seq 129 beyond the position table (128)" in row["skipped"]


def test_roberta_positions_start_after_the_padding_id():
    """RoBERTa's 130-row table serves seq up to 128 (positions 2..129): the last seq it serves runs and passes."""
    facts, executable = compiled("roberta_tiny")
    assert facts.position_limit == 128
    assert real_models().measure_row(facts, executable, 1, 128)["passed"]


@pytest.mark.parametrize("name", sorted(VOCABULARIES))
def test_token_ids_stay_inside_the_table_they_index(name):
    """GPT-2 reshapes input_ids before its Gather; every family's ids must be below its vocabulary."""
    facts, executable = compiled(name)
    vocabulary = VOCABULARIES[name]
    assert facts.table_rows["input_ids"] == vocabulary
    feeds = real_models().token_feeds(facts, executable, 3, 17)
    assert 0 <= feeds["input_ids"].min() and feeds["input_ids"].max() < vocabulary
    if "attention_mask" in feeds:
        assert feeds["attention_mask"][-1].tolist() == [1] * 12 + [0] * 5


def test_the_table_goes_on_past_a_model_xhip_cannot_compile(tmp_path, capsys):
    """main(): every export of the folder, a compile error as a failed row (exit 1), the table and the JSON."""
    exports = tmp_path / "exports"
    exports.mkdir()
    (exports / "bert_tiny_64.onnx").write_bytes((EXAMPLES / "bert_tiny_64.onnx").read_bytes())
    x = helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"])
    node = helper.make_node("Frobnicate", ["input_ids"], ["y"], domain="com.example")
    graph = helper.make_graph([node], "g", [x], [helper.make_tensor_value_info("y", TensorProto.INT64, ["batch", "seq"])])
    opsets = [helper.make_opsetid("", 18), helper.make_opsetid("com.example", 1)]
    onnx.save(helper.make_model(graph, opset_imports=opsets), exports / "aaa_unsupported.onnx")
    results = tmp_path / "real_models.json"
    assert real_models().main([str(exports), "--json", str(results)]) == 1
    rows = json.loads(results.read_text())["rows"]
    assert [(r["model"], r["batch"], r["seq"]) for r in rows] == [
        ("aaa_unsupported", None, None), *(("bert_tiny_64", b, s) for b, s in real_models().SHAPES)
    ]
    assert "Frobnicate" in rows[0]["error"] and not rows[0]["passed"]
    assert all(r["passed"] for r in rows[1:4]) and "position table" in rows[-1]["skipped"]
    table = capsys.readouterr().out.split("\n\n")[-2]
    assert "aaa_unsupported" in table and "FAIL: compile:" in table and table.count("pass") >= 3


def test_an_image_model_takes_its_rows_from_its_float_input():
    """A model whose one input is a float signal: batch 1 and 2 at the extents the export
    leaves free (224x224, then 160x192), standard normal pixels; the row passes."""
    facts, executable = compiled("resnet_tiny")
    assert facts.signal == (None, 3, None, None)
    assert facts.shapes == ((1, "3x224x224"), (2, "3x160x192"))
    row = real_models().measure_row(facts, executable, 2, "3x40x48")
    assert row["passed"] and row["seq"] == "3x40x48"
