"""KV caches appended in place (hip-append-kv-caches, xhip.runtime.kv_cache), on the toy
decoder step (examples/decoder_tiny.onnx: 2 layers, 4 heads of 16, present = Concat(past,
new) per layer's keys and values).

Every step is checked against onnxruntime on the same feeds (random caches and tokens)
under the float64 rule of `xhip-run --check`, the caches onnxruntime is fed being its own
presents of the step before; and against the same export compiled without the pass
(pipelines/experiments/concat-caches.yaml), which must give equal outputs: the append
copies the same floats the concat did, so equal means bit for bit.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest

import xhip
from xhip.diagnostics import XhipError
from xhip.runtime.check import check_outputs, references

ROOT = Path(__file__).resolve().parents[1]
MODEL = ROOT / "examples" / "decoder_tiny.onnx"
CONCAT_CACHES = ROOT / "pipelines" / "experiments" / "concat-caches.yaml"
LAYERS, HEADS, HEAD_DIM, VOCAB = 2, 4, 16, 256
PASTS = [f"past_{kind}_{i}" for i in range(LAYERS) for kind in ("key", "value")]


def _caches(rng, batch: int, rows: int) -> dict[str, np.ndarray]:
    return {name: rng.standard_normal((batch, HEADS, rows, HEAD_DIM)).astype(np.float32) for name in PASTS}


def _tokens(rng, batch: int, position: int) -> dict[str, np.ndarray]:
    return {
        "input_ids": rng.integers(0, VOCAB, (batch, 1)).astype(np.int64),
        "position_ids": np.full((batch, 1), position, np.int64),
    }


def _decode(exe, model, rng, fed, host, batch, start, steps):
    """Run `steps` steps from `fed` (what xhip is fed) and `host` (the same caches on the
    host, onnxruntime's); each step checked; per step the device copies it made, and the
    last step's outputs."""
    copies, outputs = [], {}
    for step in range(steps):
        tokens = _tokens(rng, batch, start + step)
        before = exe.backend.stats.device_copies
        outputs = exe.run({**tokens, **fed}, on_device=True)
        copies.append(exe.backend.stats.device_copies - before)
        got = {name: np.asarray(value) for name, value in outputs.items()}
        result = check_outputs(got, references(model, {**tokens, **host}), "reference")
        assert result.passed, result.summary()
        fed = {past: outputs[present] for past, present in exe.cache_inputs.items()}
        host = {past: got[present] for past, present in exe.cache_inputs.items()}
    return copies, outputs


@pytest.mark.parametrize("sanitize", [False, True])
def test_steps_write_only_their_new_rows_into_the_callers_cache(sanitize):
    model = onnx.load(MODEL)
    exe = xhip.compile(model, backend="reference", sanitize=sanitize)
    assert exe.cache_inputs == {past: past.replace("past", "present") for past in PASTS}
    rng = np.random.default_rng(3)
    batch, rows = 2, 6
    host = _caches(rng, batch, rows)
    fed = exe.cache_buffers(host, capacity=16)
    buffers = {name: fed[name]._memref.buffer for name in PASTS}
    copies, outputs = _decode(exe, model, rng, fed, host, batch, rows, steps=5)
    # One copy per cache per step: the step's new row (the concat copied the whole cache).
    assert copies == [len(PASTS)] * 5
    for past, present in exe.cache_inputs.items():
        assert outputs[present].shape == (batch, HEADS, rows + 5, HEAD_DIM)
        assert outputs[present]._memref.buffer is buffers[past]  # the caller's buffer, extended
    assert exe.report.cache_bytes == len(PASTS) * batch * HEADS * 16 * HEAD_DIM * 4


def test_a_full_cache_moves_once_into_twice_the_capacity():
    model = onnx.load(MODEL)
    exe = xhip.compile(model, backend="reference")
    rng = np.random.default_rng(4)
    batch, rows = 1, 3
    host = _caches(rng, batch, rows)
    copies, _ = _decode(exe, model, rng, exe.cache_buffers(host, capacity=4), host, batch, rows, steps=4)
    # Step 2 has no room: each cache is copied once (its 4 rows) with the new row; the
    # rest append in place.
    assert copies == [4, 8, 4, 4]
    assert exe.report.cache_bytes == len(PASTS) * batch * HEADS * 8 * HEAD_DIM * 4


def test_host_caches_start_caches_of_the_rows_they_need():
    """Fed host arrays (no cache_buffers), a step moves each past into a cache of exactly
    past + 1 rows; fed that back, the next step doubles it once and then appends in place."""
    model = onnx.load(MODEL)
    exe = xhip.compile(model, backend="reference")
    rng = np.random.default_rng(5)
    host = _caches(rng, 3, 5)
    copies, _ = _decode(exe, model, rng, dict(host), host, 3, 5, steps=4)
    assert copies == [8, 8, 4, 4]


def test_a_past_fed_twice_never_loses_the_rows_of_its_first_present():
    """Beam search and retried steps feed one past to two steps. The second finds the cache
    grown past it, so its rows go into a new cache: the first present keeps its values."""
    model = onnx.load(MODEL)
    exe = xhip.compile(model, backend="reference")
    rng = np.random.default_rng(6)
    host = _caches(rng, 2, 4)
    fed = exe.cache_buffers(host, capacity=8)
    first_tokens, second_tokens = _tokens(rng, 2, 4), _tokens(rng, 2, 4)
    first = exe.run({**first_tokens, **fed}, on_device=True)
    second = exe.run({**second_tokens, **fed}, on_device=True)
    for tokens, outputs in ((first_tokens, first), (second_tokens, second)):
        got = {name: np.asarray(value) for name, value in outputs.items()}
        result = check_outputs(got, references(model, {**tokens, **host}), "reference")
        assert result.passed, result.summary()
    assert first["present_key_0"]._memref.buffer is not second["present_key_0"]._memref.buffer


def test_appended_steps_equal_the_concatenating_pipeline_bit_for_bit():
    model = onnx.load(MODEL)
    appended = xhip.compile(model, backend="reference")
    concatenated = xhip.compile(model, pipeline=CONCAT_CACHES, backend="reference")
    assert concatenated.cache_inputs == {}
    rng = np.random.default_rng(7)
    host = _caches(rng, 2, 9)
    fed, plain = appended.cache_buffers(host, capacity=12), dict(host)
    for step in range(4):
        tokens = _tokens(rng, 2, 9 + step)
        ours = appended.run({**tokens, **fed}, on_device=True)
        theirs = concatenated.run({**tokens, **plain})
        for name, value in theirs.items():
            assert np.array_equal(np.asarray(ours[name]), value), name
        fed = {past: ours[present] for past, present in appended.cache_inputs.items()}
        plain = {past: theirs[present] for past, present in appended.cache_inputs.items()}


def test_a_transformers_export_appends_its_dynamic_cache_in_place():
    """GPT-2 from transformers with its DynamicCache (examples/export_gpt2_kv.py: the cat of
    past and the new keys inside transformers' attention, exported by torch.onnx's dynamo
    exporter): every cache is an append, and 6 steps from cache_buffers match onnxruntime
    while copying one row per cache."""
    from xhip.dialects import hip

    model = onnx.load(ROOT / "examples" / "gpt2_kv_tiny.onnx")
    exe = xhip.compile(model, backend="reference")
    ops = [op for op in exe.module.walk() if isinstance(op, hip.CacheAppendOp | hip.ConcatOp)]
    assert [type(op) for op in ops] == [hip.CacheAppendOp] * len(PASTS)
    rng = np.random.default_rng(8)
    host = _caches(rng, 3, 4)
    fed = exe.cache_buffers(host, capacity=10)
    for step in range(6):
        tokens = {"input_ids": rng.integers(0, VOCAB, (3, 1)).astype(np.int64)}
        before = exe.backend.stats.device_copies
        outputs = exe.run({**tokens, **fed}, on_device=True)
        assert exe.backend.stats.device_copies - before == len(PASTS)
        got = {name: np.asarray(value) for name, value in outputs.items()}
        result = check_outputs(got, references(model, {**tokens, **host}), "reference")
        assert result.passed, result.summary()
        fed = {past: outputs[present] for past, present in exe.cache_inputs.items()}
        host = {past: got[present] for past, present in exe.cache_inputs.items()}


def test_a_host_copy_of_a_present_moves_its_rows_not_the_capacity():
    """On a GPU backend (the no-op driver) a present is a view spread over its cache's
    capacity: `run` without `on_device` gathers it on the device before the download, so the
    bytes that cross the bus are the outputs' own."""
    from xhip.runtime.backends.gpu.backend import GpuBackend
    from xhip.testing.null_driver import NullDriver

    class CountingDriver(NullDriver):
        downloaded = 0

        def download(self, out: np.ndarray, address: int) -> None:
            self.downloaded += out.nbytes
            super().download(out, address)

    driver = CountingDriver()
    exe = xhip.compile(onnx.load(MODEL), backend=GpuBackend(driver))
    fed = exe.cache_buffers(_caches(np.random.default_rng(9), 2, 5), capacity=200)
    driver.downloaded = 0
    outputs = exe.run({**_tokens(np.random.default_rng(9), 2, 5), **fed})
    own = sum(value.nbytes for value in outputs.values())
    assert own <= driver.downloaded < 2 * own  # (beside them: the launch sites' status words)


def test_cache_buffers_refuses_what_it_cannot_hold():
    exe = xhip.compile(onnx.load(MODEL), backend="reference")
    rows = np.zeros((1, HEADS, 5, HEAD_DIM), np.float32)
    with pytest.raises(XhipError, match="'input_ids' is not an input a KV cache append extends"):
        exe.cache_buffers({"input_ids": np.zeros((1, 1), np.int64)}, capacity=8)
    with pytest.raises(XhipError, match="holds 5 rows along axis 2, more than the capacity 4"):
        exe.cache_buffers({"past_key_0": rows}, capacity=4)
    with pytest.raises(XhipError, match="expected past_key_0"):
        exe.cache_buffers({"past_key_0": rows.astype(np.float64)}, capacity=8)
