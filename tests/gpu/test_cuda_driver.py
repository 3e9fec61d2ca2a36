"""The cuda driver on a real NVIDIA GPU: code, memory, ordering, graphs and BLAS.

Skipped where no NVIDIA GPU is usable (the reason is the driver's own one-line
message). Values are random and non-zero; results are compared with NumPy.
"""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

from xhip.kernels.abi import GemmCall
from xhip.runtime.backends.gpu.driver import DriverUnavailable, PackedArgs

pytestmark = pytest.mark.gpu

SOURCE = r"""
extern "C" __global__ void axpy(float* y, const float* x, float a, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
extern "C" __global__ void bump(int* counter) { atomicAdd(counter, 1); }
"""


@pytest.fixture(scope="module")
def cuda():
    try:
        from xhip.runtime.backends.gpu.cuda import CudaDriver

        return CudaDriver()
    except (ImportError, DriverUnavailable) as err:
        pytest.skip(str(err))


@pytest.fixture(scope="module")
def kernels(cuda):
    module = cuda.load_module(cuda.compile(SOURCE, "driver_check"))
    return {name: cuda.function(module, name) for name in ("axpy", "bump")}


def _device_array(cuda, array: np.ndarray) -> int:
    address = cuda.malloc(array.nbytes)
    cuda.upload(address, array)
    return address


def test_device_facts(cuda):
    assert cuda.target.startswith("sm_")
    assert cuda.warp_size == 32
    free, total = cuda.memory_info()
    assert 0 < free <= total


def test_compiled_kernel_computes_axpy(cuda, kernels):
    rng = np.random.default_rng(1)
    n = 1_000_003
    x, y = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    dx, dy = _device_array(cuda, x), _device_array(cuda, y)
    args = PackedArgs.pack([ctypes.c_void_p(dy), ctypes.c_void_p(dx), ctypes.c_float(2.5), ctypes.c_int64(n)])
    cuda.launch(kernels["axpy"], ((n + 255) // 256, 1, 1), (256, 1, 1), 0, args)
    out = np.empty_like(y)
    cuda.download(out, dy)
    # The GPU fuses a*x+y into one rounding (FMA); NumPy rounds twice: compare in float64.
    np.testing.assert_allclose(out, 2.5 * x.astype(np.float64) + y, rtol=1e-6, atol=1e-7)
    cuda.free(dx)
    cuda.free(dy)


def test_copy_and_fill(cuda):
    data = np.arange(1, 1025, dtype=np.int32)
    source, target = _device_array(cuda, data), cuda.malloc(data.nbytes)
    cuda.fill(target, 0xA5, data.nbytes)
    cuda.copy(target, source, data.nbytes // 2)
    out = np.empty_like(data)
    cuda.download(out, target)
    assert np.array_equal(out[:512], data[:512])
    assert (out[512:].view(np.uint8) == 0xA5).all()


def test_host_mapped_memory_sees_kernel_writes_after_sync(cuda, kernels):
    view, device = cuda.host_alloc_mapped(64)
    view[:] = 0
    cuda.launch(kernels["bump"], (3, 1, 1), (32, 1, 1), 0, PackedArgs.pack([ctypes.c_void_p(device)]))
    cuda.synchronize()
    assert int(view[:4].view(np.int32)[0]) == 96
    cuda.free_host(view)


def test_events_time_device_work(cuda, kernels):
    counter = _device_array(cuda, np.zeros(1, np.int32))
    start = cuda.record_event()
    cuda.launch(kernels["bump"], (1024, 1, 1), (256, 1, 1), 0, PackedArgs.pack([ctypes.c_void_p(counter)]))
    end = cuda.record_event()
    cuda.wait_event(end)
    assert cuda.elapsed_ms(start, end) > 0


def test_graph_replays_captured_launches(cuda, kernels):
    counter = _device_array(cuda, np.zeros(1, np.int32))
    args = PackedArgs.pack([ctypes.c_void_p(counter)])
    cuda.begin_capture()
    cuda.launch(kernels["bump"], (2, 1, 1), (32, 1, 1), 0, args)
    cuda.launch(kernels["bump"], (1, 1, 1), (32, 1, 1), 0, args)
    graph = cuda.end_capture()
    for _ in range(3):
        cuda.replay(graph)
    out = np.empty(1, np.int32)
    cuda.download(out, counter)
    assert int(out[0]) == 3 * 96


@pytest.mark.parametrize("trans_a,trans_b", [(False, False), (True, False), (False, True), (True, True)])
def test_gemm_matches_numpy_fp32(cuda, trans_a, trans_b):
    rng = np.random.default_rng(7)
    batch, m, k, n = 3, 37, 65, 29
    a = rng.standard_normal((batch, k, m) if trans_a else (batch, m, k), dtype=np.float32)
    b = rng.standard_normal((1, n, k) if trans_b else (1, k, n), dtype=np.float32)  # broadcast over batch
    c = np.zeros((batch, m, n), np.float32)
    da, db, dc = _device_array(cuda, a), _device_array(cuda, b), _device_array(cuda, c)
    call = GemmCall(
        m=m, n=n, k=k,
        a=da, lda=a.shape[2], stride_a=a.shape[1] * a.shape[2], trans_a=trans_a,
        b=db, ldb=b.shape[2], stride_b=0, trans_b=trans_b,
        c=dc, ldc=n, stride_c=m * n, batch=batch, dtype=np.dtype(np.float32),
    )
    run = cuda.prepare_call(call._replace(a=0, b=0, c=0))  # prepared once, the operands given at the call
    assert run is not None
    run(call.a, call.b, call.c)
    cuda.download(c, dc)
    op_a = np.swapaxes(a, 1, 2) if trans_a else a
    op_b = np.swapaxes(b, 1, 2) if trans_b else b
    expected = np.matmul(op_a.astype(np.float64), op_b.astype(np.float64))
    # fp32 accumulation over k=65 terms of unit normals, TF32 off: errors ~1e-6 relative to |C|~8.
    np.testing.assert_allclose(c, expected, rtol=1e-4, atol=1e-4)


def test_gemm_declines_integer_types(cuda):
    call = GemmCall(1, 1, 1, 0, 1, 0, False, 0, 1, 0, False, 0, 1, 0, 1, np.dtype(np.int32))
    assert cuda.prepare_call(call) is None
