"""The pipeline YAMLs shipped in pipelines/: every one loads, and pass order matters.

A file that names a pass not registered yet (or one its base does not run) is
skipped with the reason. The seed 004 race runs through whole pipelines: the
default order keeps host-fed scalars apart; the old order
(pipelines/experiments/reuse-before-host-scalars.yaml) lets a queued kernel read
a scalar the host already overwrote.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
import yaml
from onnx import TensorProto, helper

import xhip
from xhip.diagnostics import XhipError
from xhip.passes import available_passes
from xhip.pipeline import instantiate, load_pipeline
from xhip.runtime.check import compare, onnxruntime_outputs

REPO = Path(__file__).resolve().parents[1]
RNG = np.random.default_rng(570)


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
