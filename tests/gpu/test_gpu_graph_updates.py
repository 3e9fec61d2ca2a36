"""Graphs across shapes on a real GPU: decode steps through a graph updated in place.

examples/decoder_tiny.onnx fed its own `present_*`, a new input shape at every step,
compiled without the cache append (pipelines/experiments/concat-caches.yaml: each step
concatenates its caches into fresh outputs, so the topology never changes; the appends'
own graphs are tests/gpu/test_gpu_kv_cache.py's). On
cuda the steps after the first few run through a graph captured at an earlier step with
the changed nodes updated (`report.class_graph == "updated"`; on hip, whose driver takes
no node updates yet, every step launches). Every step matches onnxruntime on the same
feeds under the float64 rule with the GPU tolerance. It is also bitwise equal to the same
steps run with graphs off: the same kernels and cuBLAS calls in the same order, so the
graph changes where the work is queued from, not what it computes.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest

import xhip
from xhip.runtime.check import check_outputs, references

pytestmark = pytest.mark.gpu
ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "examples" / "decoder_tiny.onnx"
CONCAT_CACHES = ROOT / "pipelines" / "experiments" / "concat-caches.yaml"
LAYERS, HEADS, HEAD_DIM, VOCAB = 2, 4, 16, 256


def _names(prefix: str) -> list[str]:
    return [f"{prefix}_{kind}_{i}" for i in range(LAYERS) for kind in ("key", "value")]


@pytest.mark.parametrize("batch", [1, 4])
def test_decode_through_updated_graphs_matches_onnxruntime_and_the_plain_steps(backend_name, batch):
    model = onnx.load(MODEL)
    graphs, plain = (xhip.compile(model, CONCAT_CACHES, backend=backend_name, graphs=on) for on in (True, False))
    rng = np.random.default_rng(11)
    length = 6
    cache = {name: rng.standard_normal((batch, HEADS, length, HEAD_DIM)).astype(np.float32) for name in _names("past")}
    fed = {exe: {name: exe.to_device(value, name) for name, value in cache.items()} for exe in (graphs, plain)}
    kinds = []
    for step in range(12):
        host = {
            "input_ids": rng.integers(0, VOCAB, (batch, 1)).astype(np.int64),
            "position_ids": np.full((batch, 1), length + step, np.int64),
        }
        got = {}
        for exe in (graphs, plain):
            outputs = exe.run({**host, **fed[exe]}, on_device=True)
            got[exe] = {name: np.asarray(value) for name, value in outputs.items()}
            fed[exe] = {name: outputs[name.replace("past", "present")] for name in _names("past")}
        kinds.append(graphs.report.class_graph)
        result = check_outputs(got[graphs], references(model, {**host, **cache}), backend_name)
        assert result.passed, f"step {step} ({kinds[-1] or 'launched'}): {result.summary()}"
        for name, value in got[graphs].items():
            np.testing.assert_array_equal(value, got[plain][name], err_msg=f"step {step} {name}")
        cache = {name: got[graphs][name.replace("past", "present")] for name in _names("past")}
    if backend_name == "cuda":
        assert kinds[-4:] == ["updated"] * 4, kinds
