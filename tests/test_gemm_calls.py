"""The BLAS call a GPU matmul launch becomes (`xhip.runtime.backends.gpu.kernels.gemm_call`):
pure arithmetic on launch values, so it is checked here without a GPU by evaluating the
call it describes with NumPy and comparing with the matmul itself."""

from __future__ import annotations

import numpy as np
import pytest

from xhip.runtime.backends.gpu.kernels import gemm_call
from xhip.runtime.buffers import contiguous_strides
from xhip.runtime.kernels.launch_args import View, launch_values

F32 = np.dtype(np.float32)


def _view(address: int, shape, strides=None) -> View:
    shape = tuple(shape)
    return View(address, F32, shape, tuple(strides) if strides is not None else contiguous_strides(shape))


def _evaluate(call, memory: np.ndarray) -> None:
    """Run the GEMM `call` describes over `memory` (addresses are element offsets * 4)."""
    for b in range(call.batch):
        a = np.lib.stride_tricks.as_strided(memory[(call.a // 4) + b * call.stride_a :], (call.k, call.m) if call.trans_a else (call.m, call.k), (call.lda * 4, 4))
        bm = np.lib.stride_tricks.as_strided(memory[(call.b // 4) + b * call.stride_b :], (call.n, call.k) if call.trans_b else (call.k, call.n), (call.ldb * 4, 4))
        c = np.lib.stride_tricks.as_strided(memory[(call.c // 4) + b * call.stride_c :], (call.m, call.n), (call.ldc * 4, 4))
        c[...] = call.alpha * ((a.T if call.trans_a else a) @ (bm.T if call.trans_b else bm))


@pytest.mark.parametrize(
    "a_shape, b_shape, b_transposed, flattened",
    [
        ((8, 16, 12), (12, 20), False, True),  # a weight over [batch, seq, k]: one GEMM of 128 rows
        ((2, 3, 16, 12), (12, 20), False, True),  # two batch dims nest into one
        ((8, 16, 12), (20, 12), True, True),  # the weight read transposed (GPT-2's tied lm_head)
        ((8, 1, 12), (12, 20), False, True),  # a batch of vectors
        ((8, 16, 12), (8, 12, 20), False, False),  # B has a batch of its own: stays batched
    ],
)
def test_a_broadcast_weight_becomes_one_gemm_of_all_rows(a_shape, b_shape, b_transposed, flattened):
    rng = np.random.default_rng(5)
    a = rng.standard_normal(a_shape).astype(np.float32)
    b = rng.standard_normal(b_shape).astype(np.float32)
    b_logical = b.swapaxes(-1, -2) if b_transposed else b
    expected = a @ b_logical
    memory = np.zeros(a.size + b.size + expected.size, np.float32)
    memory[: a.size], memory[a.size : a.size + b.size] = a.ravel(), b.ravel()
    a_view = _view(0, a.shape)
    b_view = _view(4 * a.size, b_logical.shape, contiguous_strides(b.shape)[::-1] if b_transposed else None)
    c_view = _view(4 * (a.size + b.size), expected.shape)
    (values,) = launch_values("matmul", "matmul", {}, [], [a_view, b_view], [c_view])
    call = gemm_call(values, F32)
    assert call is not None
    assert call.batch == (1 if flattened else int(np.prod(a_shape[:-2])))
    _evaluate(call, memory)
    np.testing.assert_allclose(memory[a.size + b.size :].reshape(expected.shape), expected, rtol=1e-5, atol=1e-5)


def test_a_strided_batch_of_a_is_not_flattened():
    """A's matrices with a gap between them (a slice of a wider buffer) stay a batched GEMM."""
    a_view = _view(0, (4, 8, 6), (64, 6, 1))  # batch stride 64 > 8 * 6
    (values,) = launch_values("matmul", "matmul", {}, [], [a_view, _view(4096, (6, 5))], [_view(8192, (4, 8, 5))])
    call = gemm_call(values, F32)
    assert call is not None and call.batch == 4 and call.m == 8
