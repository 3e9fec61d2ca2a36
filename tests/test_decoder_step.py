"""A decoder step with its key/value cache, as a generation loop runs it (examples/decoder_tiny.onnx).

`benchmarks/decoder_step.py` at toy sizes (2 layers, width 64, 4 heads of 16): one new
token, `present = Concat(past, new)` per layer. The step's new k and v are slices of the
fused QKV projection split into heads and moved to [b, h, 1, d]: with one token that
move is a reshape, the split of a strided slice is a view, and Kᵀ folds into the
attention, so the compiled step copies nothing and transposes nothing; each Concat is
a cache append (hip-append-kv-caches) that reads the new token out of the projection's
buffer. Each step is fed the last step's
`present_*` as device arrays and must match onnxruntime on the same feeds under the
float64 rule of `xhip-run --check`, plain and under the sanitizer.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest

import xhip
from xhip.dialects import hip
from xhip.runtime.check import check_outputs, references

MODEL = Path(__file__).resolve().parents[1] / "examples" / "decoder_tiny.onnx"
LAYERS, HEADS, HEAD_DIM, VOCAB = 2, 4, 16, 256


def _names(prefix: str) -> list[str]:
    return [f"{prefix}_{kind}_{i}" for i in range(LAYERS) for kind in ("key", "value")]


def test_the_step_moves_no_bytes_but_the_caches():
    module = xhip.compile(onnx.load(MODEL), backend="reference").module
    names = [op.name for op in module.walk()]
    assert "hip.transpose" not in names and "memref.copy" not in names
    assert not [op for op in module.walk() if isinstance(op, hip.ConcatOp)]
    appends = [op for op in module.walk() if isinstance(op, hip.CacheAppendOp)]
    assert len(appends) == 2 * LAYERS
    # The new token's K or V: a strided view of the QKV projection, not a buffer of its own.
    assert all("strided" in str(op.new.type) for op in appends)


@pytest.mark.parametrize("sanitize", [False, True])
def test_decode_steps_match_onnxruntime(sanitize):
    model = onnx.load(MODEL)
    exe = xhip.compile(model, backend="reference", sanitize=sanitize)
    rng = np.random.default_rng(5)
    batch, past = 3, 7
    cache = {name: rng.standard_normal((batch, HEADS, past, HEAD_DIM)).astype(np.float32) for name in _names("past")}
    fed = {name: exe.to_device(value, name) for name, value in cache.items()}
    for step in range(4):
        host = {
            "input_ids": rng.integers(0, VOCAB, (batch, 1)).astype(np.int64),
            "position_ids": np.full((batch, 1), past + step, np.int64),
        }
        outputs = exe.run({**host, **fed}, on_device=True)
        got = {name: np.asarray(value) for name, value in outputs.items()}
        result = check_outputs(got, references(model, {**host, **cache}), "reference")
        assert result.passed, result.summary()
        assert got["present_key_0"].shape == (batch, HEADS, past + step + 1, HEAD_DIM)
        cache = {p: got[q] for p, q in zip(_names("past"), _names("present"))}
        fed = {p: outputs[q] for p, q in zip(_names("past"), _names("present"))}
