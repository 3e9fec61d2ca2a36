"""KV caches appended in place on a real GPU (hip-append-kv-caches).

examples/decoder_tiny.onnx decoding from `Executable.cache_buffers`: each step copies its
new rows into the caller's cache buffers (one strided copy per cache) and the attention
reads K and V through the cache's strided view. Every step matches onnxruntime on the same
feeds under the float64 rule with the GPU tolerance, and is bitwise equal with graphs on
and off (the same kernels in the same order). A cache that fills moves once, into twice
the capacity, and the steps after it append in place again; on cuda the steps run through
graphs updated across lengths (`report.class_graph == "updated"`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest

import xhip
from xhip.runtime.check import check_outputs, references

pytestmark = pytest.mark.gpu
MODEL = Path(__file__).resolve().parents[2] / "examples" / "decoder_tiny.onnx"
LAYERS, HEADS, HEAD_DIM, VOCAB = 2, 4, 16, 256
PASTS = [f"past_{kind}_{i}" for i in range(LAYERS) for kind in ("key", "value")]


@pytest.mark.parametrize("batch, capacity", [(1, 32), (4, 32), (4, 10)])
def test_decode_into_cache_buffers_matches_onnxruntime(backend_name, batch, capacity):
    model = onnx.load(MODEL)
    graphs, plain = (xhip.compile(model, backend=backend_name, graphs=on) for on in (True, False))
    rng = np.random.default_rng(12)
    length, steps = 6, 12
    host = {name: rng.standard_normal((batch, HEADS, length, HEAD_DIM)).astype(np.float32) for name in PASTS}
    fed = {exe: exe.cache_buffers(host, capacity) for exe in (graphs, plain)}
    kinds, copies = [], []
    for step in range(steps):
        tokens = {
            "input_ids": rng.integers(0, VOCAB, (batch, 1)).astype(np.int64),
            "position_ids": np.full((batch, 1), length + step, np.int64),
        }
        got = {}
        for exe in (graphs, plain):
            before = exe.backend.stats.device_copies
            outputs = exe.run({**tokens, **fed[exe]}, on_device=True)
            if exe is plain:
                copies.append(exe.backend.stats.device_copies - before)
            got[exe] = {name: np.asarray(value) for name, value in outputs.items()}
            fed[exe] = {past: outputs[present] for past, present in exe.cache_inputs.items()}
        kinds.append(graphs.report.class_graph)
        result = check_outputs(got[graphs], references(model, {**tokens, **host}), backend_name)
        assert result.passed, f"step {step} ({kinds[-1] or 'launched'}): {result.summary()}"
        for name, value in got[graphs].items():
            np.testing.assert_array_equal(value, got[plain][name], err_msg=f"step {step} {name}")
        host = {past: got[graphs][present] for past, present in graphs.cache_inputs.items()}
    # One copy per cache per step (its new row), two at the step a full cache moves.
    moved = capacity - length
    assert copies == [len(PASTS) * (2 if step == moved else 1) for step in range(steps)], copies
    if backend_name == "cuda" and capacity > length + steps:
        assert kinds[-4:] == ["updated"] * 4, kinds


def test_host_outputs_of_a_cache_gather_its_rows(backend_name):
    """`run` without `on_device` on cache buffers: each present is gathered from its cache
    on the device and downloaded; the values match onnxruntime."""
    model = onnx.load(MODEL)
    exe = xhip.compile(model, backend=backend_name)
    rng = np.random.default_rng(13)
    host = {name: rng.standard_normal((2, HEADS, 5, HEAD_DIM)).astype(np.float32) for name in PASTS}
    tokens = {"input_ids": rng.integers(0, VOCAB, (2, 1)).astype(np.int64), "position_ids": np.full((2, 1), 5, np.int64)}
    got = exe.run({**tokens, **exe.cache_buffers(host, capacity=64)})
    result = check_outputs(got, references(model, {**tokens, **host}), backend_name)
    assert result.passed, result.summary()
