"""The BLAS call a GPU matmul launch becomes (`xhip.runtime.backends.gpu.kernels.gemm_call`):
pure arithmetic on launch values, so it is checked here without a GPU by evaluating the
call it describes with NumPy and comparing with the matmul itself."""

from __future__ import annotations

import numpy as np

from xhip.dialects import hip
import pytest

from xhip.kernels.matmul import gemm_call
from xhip.runtime.buffers import contiguous_strides
from xhip.kernels.families import launch_values
from xhip.kernels.family import View

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
    (values,) = launch_values(hip.MatmulOp, {}, [], [a_view, b_view], [c_view])
    call = gemm_call(values, F32)
    assert call is not None
    assert call.batch == (1 if flattened else int(np.prod(a_shape[:-2])))
    _evaluate(call, memory)
    np.testing.assert_allclose(memory[a.size + b.size :].reshape(expected.shape), expected, rtol=1e-5, atol=1e-5)


def test_a_strided_batch_of_a_is_not_flattened():
    """A's matrices with a gap between them (a slice of a wider buffer) stay a batched GEMM."""
    a_view = _view(0, (4, 8, 6), (64, 6, 1))  # batch stride 64 > 8 * 6
    (values,) = launch_values(hip.MatmulOp, {}, [], [a_view, _view(4096, (6, 5))], [_view(8192, (4, 8, 5))])
    call = gemm_call(values, F32)
    assert call is not None and call.batch == 4 and call.m == 8


def _evaluate_kernel(values, memory: np.ndarray, c_shape) -> np.ndarray:
    """C as the templated matmul kernel computes it from its launch values: per batch index,
    element offsets from the batch strides, then row and column strides per operand."""
    c = np.zeros(c_shape, np.float32)
    a, b = memory[int(values["a"]) // 4 :], memory[int(values["b"]) // 4 :]
    for index in np.ndindex(*values["batch_extents"]):
        a_off = sum(i * s for i, s in zip(index, values["a_batch_strides"]))
        b_off = sum(i * s for i, s in zip(index, values["b_batch_strides"]))
        rows, cols, depth = (np.arange(int(values[x]))[:, None] for x in ("m", "n", "k"))
        a_m = a[a_off + rows * values["a_row_stride"] + depth.T * values["a_col_stride"]]
        b_m = b[b_off + depth * values["b_row_stride"] + cols.T * values["b_col_stride"]]
        c[index] = values["alpha"] * (a_m @ b_m)
    return c


# Q Kᵀ with K a runtime buffer that hip-fold-transpose-into-matmul hands over as it is
# ([.., n, k]) with trans_b: batched, batch-broadcast, and K a column window of the
# merged Q|K|V projection (onnx-merge-sibling-matmuls), whose rows are 3k apart.
TRANSPOSED_RUNTIME_B = [
    # (a_shape, b_shape, b_window: (row length of the buffer, first column) or None, blas batch)
    ((4, 16, 8), (4, 12, 8), None, 4),
    ((2, 3, 16, 8), (2, 3, 12, 8), None, 6),
    ((4, 16, 8), (4, 16, 8), (24, 8), 4),  # the seed attention's K, a window of [b, s, 3 * 8]
    ((2, 3, 16, 8), (1, 3, 12, 8), None, None),  # B broadcast over A's batch: not one strided batch
    ((2, 3, 16, 8), (3, 12, 8), None, None),
]


def _transposed_runtime_case(a_shape, b_shape, b_window):
    rng = np.random.default_rng(11)
    a = rng.standard_normal(a_shape).astype(np.float32)
    row_length, first = b_window or (b_shape[-1], 0)
    buffer = rng.standard_normal((*b_shape[:-1], row_length)).astype(np.float32)
    b = buffer[..., first : first + b_shape[-1]]
    expected = a @ b.swapaxes(-1, -2)
    memory = np.zeros(a.size + buffer.size + expected.size, np.float32)
    memory[: a.size], memory[a.size : a.size + buffer.size] = a.ravel(), buffer.ravel()
    b_view = _view(4 * (a.size + first), b_shape, contiguous_strides(buffer.shape))
    c_view = _view(4 * (a.size + buffer.size), expected.shape)
    (values,) = launch_values(hip.MatmulOp, {"trans_b": True}, [], [_view(0, a.shape), b_view], [c_view])
    return values, memory, expected


@pytest.mark.parametrize("a_shape, b_shape, b_window, blas_batch", TRANSPOSED_RUNTIME_B)
def test_a_runtime_b_read_transposed_becomes_a_batched_gemm(a_shape, b_shape, b_window, blas_batch):
    """BLAS takes B with the transpose flag and its own row stride, one GEMM per batch
    matrix; a B that broadcasts over some batch dims has no single batch stride, so the
    call is refused (None) and the templated kernel runs instead (next test)."""
    values, memory, expected = _transposed_runtime_case(a_shape, b_shape, b_window)
    call = gemm_call(values, F32)
    if blas_batch is None:
        assert call is None
        return
    assert call is not None and call.trans_b and not call.trans_a
    assert call.batch == blas_batch and call.ldb == (b_window or (b_shape[-1],))[0]
    _evaluate(call, memory)
    result = memory[-expected.size :].reshape(expected.shape)
    np.testing.assert_allclose(result, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("a_shape, b_shape, b_window, blas_batch", TRANSPOSED_RUNTIME_B)
def test_the_kernel_reads_a_runtime_b_transposed(a_shape, b_shape, b_window, blas_batch):
    """The templated kernel's launch values (what BLAS cannot take, and integer types)
    address the same B: row and column strides swapped, stride 0 where it broadcasts."""
    values, memory, expected = _transposed_runtime_case(a_shape, b_shape, b_window)
    np.testing.assert_allclose(_evaluate_kernel(values, memory, expected.shape), expected, rtol=1e-5, atol=1e-5)
