"""The `hip` driver: hip-python (HIP runtime, hiprtc) and hipBLAS on an AMD GPU.

Written against hip-python's documented API and the type stubs it ships (CI
type-checks this module with mypy, so a misspelled call or a wrong argument
count fails there, not on an AMD machine). Imported only when the hip backend is
asked for, so a CPU-only run never loads the ROCm libraries.
"""

from __future__ import annotations

import ctypes
import functools
import os
import threading
from pathlib import Path
from typing import Any

import numpy as np

from hip import hip, hiprtc

from xhip.kernels.abi import ConvCall, LibraryCall
from xhip.runtime.backends.gpu.driver import DriverError, DriverUnavailable, PackedArgs, PreparedCall



MISSING_HIP_HEADERS = (
    "hiprtc found no HIP headers for half-precision kernels (hip/hip_fp16.h, hip/hip_bf16.h): "
    "install ROCm's HIP development headers (hip-dev), or set ROCM_PATH to a ROCm install"
)


@functools.cache
def hip_include_dirs() -> tuple[str, ...]:
    """`$ROCM_PATH/include`, `$HIP_PATH/include` where set and holding hip/hip_fp16.h: hiprtc
    carries the HIP headers of its own ROCm, and is pointed elsewhere only when asked."""
    homes = [os.environ.get(name) for name in ("ROCM_PATH", "HIP_PATH")]
    folders = [Path(home) / "include" for home in homes if home]
    return tuple(dict.fromkeys(str(f) for f in folders if (f / "hip" / "hip_fp16.h").is_file()))


class HipDriver:
    """One AMD device and one stream."""

    name = "hip"

    def __init__(self, device_index: int = 0):
        _require_runtime()
        try:
            (status,) = hip.hipInit(0)
        except RuntimeError as err:  # hip-python could not dlopen libamdhip64
            raise DriverUnavailable(f"backend 'hip': no ROCm runtime found ({err})") from None
        if status in (hip.hipError_t.hipErrorNoDevice, hip.hipError_t.hipErrorInvalidDevice):
            raise DriverUnavailable(
                f"backend 'hip': the ROCm runtime is present but sees no AMD GPU ({_text(hip.hipGetErrorName(status))})"
            )
        if status != hip.hipError_t.hipSuccess:
            raise DriverUnavailable(f"backend 'hip': the ROCm runtime cannot start ({_text(hip.hipGetErrorString(status))})")
        count = self._ok(hip.hipGetDeviceCount(), "hipGetDeviceCount")
        if count <= device_index:
            raise DriverUnavailable(f"backend 'hip': no AMD GPU with index {device_index} ({count} found)")
        self._device_index = device_index
        self._threads = threading.local()
        self.enter_thread()
        props = self._ok(hip.hipGetDeviceProperties(device_index), "hipGetDeviceProperties")
        self._target = _text(props.gcnArchName).split(":")[0]
        self._device_name = _text(props.name)
        self._warp = int(props.warpSize)
        self._stream = self._ok(hip.hipStreamCreate(), "hipStreamCreate")
        self._blas: Any = None
        self._blas_handle: Any = None

    def enter_thread(self) -> None:
        if not getattr(self._threads, "current", False):
            self._ok(hip.hipSetDevice(self._device_index), "hipSetDevice")
            self._threads.current = True

    def _check(self, status: Any, call: str) -> None:
        if status != hip.hipError_t.hipSuccess:
            raise DriverError(f"{call} failed: {_text(hip.hipGetErrorString(status))}")

    def _ok(self, result: tuple[Any, ...], call: str) -> Any:
        """The value(s) of a hip-python call `(status, *values)`, or a DriverError naming the call."""
        status, *values = result
        self._check(status, call)
        return values[0] if len(values) == 1 else tuple(values) if values else None

    def describe(self) -> str:
        return f"{self._device_name} ({self._target})"

    @property
    def target(self) -> str:
        return self._target

    @property
    def warp_size(self) -> int:
        return self._warp

    # -- code ----------------------------------------------------------------------------

    def compiler_version(self) -> str:
        status, major, minor = hiprtc.hiprtcVersion()
        return f"hiprtc-{major}.{minor}"

    def compile(self, source: str, name: str) -> bytes:
        status, program = hiprtc.hiprtcCreateProgram(source.encode(), f"{name}.hip".encode(), 0, [], [])
        self._check_rtc(status, "hiprtcCreateProgram")
        options = [f"--offload-arch={self._target}".encode(), b"-std=c++17", *(f"-I{d}".encode() for d in hip_include_dirs())]
        try:
            (status,) = hiprtc.hiprtcCompileProgram(program, len(options), options)
            if status != hiprtc.hiprtcResult.HIPRTC_SUCCESS:
                log = self._log(program)
                if "file not found" in log and "hip_" in log:
                    raise DriverError(f"hiprtc could not compile '{name}': {MISSING_HIP_HEADERS}")
                raise DriverError(f"hiprtc could not compile '{name}': {log}")
            status, size = hiprtc.hiprtcGetCodeSize(program)
            self._check_rtc(status, "hiprtcGetCodeSize")
            image = bytearray(size)
            (status,) = hiprtc.hiprtcGetCode(program, image)
            self._check_rtc(status, "hiprtcGetCode")
            return bytes(image)
        finally:
            hiprtc.hiprtcDestroyProgram(program)

    def _log(self, program: Any) -> str:
        status, size = hiprtc.hiprtcGetProgramLogSize(program)
        log = bytearray(size)
        hiprtc.hiprtcGetProgramLog(program, log)
        text = log.decode(errors="replace")
        lines = [line for line in text.splitlines() if "error" in line]
        return "; ".join(lines[:3]) or text.strip()[:400]

    def _check_rtc(self, status: Any, call: str) -> None:
        if status != hiprtc.hiprtcResult.HIPRTC_SUCCESS:
            raise DriverError(f"{call} failed: {status}")

    def load_module(self, image: bytes) -> object:
        return self._ok(hip.hipModuleLoadData(image), "hipModuleLoadData")

    def function(self, module: object, name: str) -> object:
        return self._ok(hip.hipModuleGetFunction(module, name.encode()), "hipModuleGetFunction")

    def launch(self, function: object, grid: tuple[int, int, int], block: tuple[int, int, int], shared_bytes: int, args: PackedArgs) -> None:
        self._ok(
            hip.hipModuleLaunchKernel(function, *grid, *block, shared_bytes, self._stream, args.address, None),
            "hipModuleLaunchKernel",
        )

    # -- memory --------------------------------------------------------------------------

    def malloc(self, nbytes: int) -> int:
        return int(self._ok(hip.hipMalloc(max(int(nbytes), 1)), "hipMalloc"))

    def free(self, address: int) -> None:
        self._ok(hip.hipFree(address), "hipFree")

    def host_alloc_mapped(self, nbytes: int) -> tuple[np.ndarray, int]:
        size = max(int(nbytes), 1)
        flags = hip.hipHostMallocMapped | hip.hipHostMallocPortable
        host = int(self._ok(hip.hipHostMalloc(size, flags), "hipHostMalloc"))
        device = int(self._ok(hip.hipHostGetDevicePointer(host, 0), "hipHostGetDevicePointer"))
        view = np.ctypeslib.as_array((ctypes.c_uint8 * size).from_address(host))
        return view, device

    def free_host(self, view: np.ndarray) -> None:
        self._ok(hip.hipHostFree(view.ctypes.data), "hipHostFree")

    def upload(self, address: int, data: np.ndarray) -> None:
        data = np.ascontiguousarray(data)
        if data.nbytes:
            self._ok(hip.hipMemcpyHtoDAsync(address, data.ctypes.data, data.nbytes, self._stream), "hipMemcpyHtoDAsync")
            self.synchronize()

    def download(self, out: np.ndarray, address: int) -> None:
        if out.nbytes:
            self._ok(hip.hipMemcpyDtoHAsync(out.ctypes.data, address, out.nbytes, self._stream), "hipMemcpyDtoHAsync")
            self.synchronize()

    def copy(self, target: int, source: int, nbytes: int) -> None:
        if nbytes:
            self._ok(hip.hipMemcpyDtoDAsync(target, source, nbytes, self._stream), "hipMemcpyDtoDAsync")

    def fill(self, address: int, byte: int, nbytes: int) -> None:
        if nbytes:
            self._ok(hip.hipMemsetD8Async(address, byte, nbytes, self._stream), "hipMemsetD8Async")

    def memory_info(self) -> tuple[int, int]:
        free, total = self._ok(hip.hipMemGetInfo(), "hipMemGetInfo")
        return int(free), int(total)

    def library_bytes(self) -> int:
        return 0  # hipBLAS allocates its workspace itself: not known here

    # -- ordering ------------------------------------------------------------------------

    def synchronize(self) -> None:
        self._ok(hip.hipStreamSynchronize(self._stream), "hipStreamSynchronize")

    def record_event(self) -> object:
        event = self._ok(hip.hipEventCreate(), "hipEventCreate")
        self._ok(hip.hipEventRecord(event, self._stream), "hipEventRecord")
        return event

    def wait_event(self, event: object) -> None:
        self._ok(hip.hipEventSynchronize(event), "hipEventSynchronize")

    def elapsed_ms(self, start: object, end: object) -> float:
        return float(self._ok(hip.hipEventElapsedTime(start, end), "hipEventElapsedTime"))

    def begin_capture(self) -> None:
        mode = hip.hipStreamCaptureMode.hipStreamCaptureModeRelaxed
        self._ok(hip.hipStreamBeginCapture(self._stream, mode), "hipStreamBeginCapture")

    def end_capture(self) -> object:
        graph = self._ok(hip.hipStreamEndCapture(self._stream), "hipStreamEndCapture")
        return self._ok(hip.hipGraphInstantiateWithFlags(graph, 0), "hipGraphInstantiateWithFlags")

    def replay(self, graph: object) -> None:
        self._ok(hip.hipGraphLaunch(graph, self._stream), "hipGraphLaunch")

    # Graphs across shapes (`graph_updates`) need a captured kernel node per module launch and
    # hipGraphExecKernelNodeSetParams on it. Not verified on an AMD GPU yet: refused, so the
    # hip backend launches every run at a new shape kernel by kernel.
    _NO_UPDATES = "graph node updates are not verified on the hip driver yet"

    def captured_node(self) -> object:
        raise DriverError(f"captured_node: {self._NO_UPDATES}")

    def update_kernel_node(self, graph: object, node: object, function: object, grid: tuple[int, int, int], block: tuple[int, int, int], shared_bytes: int, args: PackedArgs) -> None:
        raise DriverError(f"update_kernel_node: {self._NO_UPDATES}")

    def update_fill_node(self, graph: object, node: object, address: int, byte: int, nbytes: int) -> None:
        raise DriverError(f"update_fill_node: {self._NO_UPDATES}")

    # -- BLAS ----------------------------------------------------------------------------

    def _hipblas(self) -> Any:
        if self._blas is None:
            try:
                from hip import hipblas
            except ImportError:
                raise DriverUnavailable(
                    "backend 'hip': matmul needs hipBLAS bindings (pip install rocm-bindings-libraries)"
                ) from None
            status, handle = hipblas.hipblasCreate()
            self._check_blas(hipblas, status, "hipblasCreate")
            (status,) = hipblas.hipblasSetStream(handle, self._stream)
            self._check_blas(hipblas, status, "hipblasSetStream")
            self._blas, self._blas_handle = hipblas, handle
        return self._blas

    @staticmethod
    def _check_blas(hipblas: Any, status: Any, call: str) -> None:
        if status != hipblas.hipblasStatus_t.HIPBLAS_STATUS_SUCCESS:
            raise DriverError(f"{call} failed: {status}")

    def load_library(self, kind: str) -> None:
        if kind == "blas":
            self._hipblas()
        # No DNN library: MIOpen has no Python bindings here; convolutions run the kernel.

    def prepare_call(self, call: LibraryCall) -> PreparedCall | None:
        if isinstance(call, ConvCall):
            return None
        kind = np.dtype(call.dtype)
        half = kind.name in ("float16", "bfloat16")
        if not half and (kind not in (np.dtype(np.float32), np.dtype(np.float64)) or call.c_dtype is not None):
            return None
        if call.c_dtype is not None and np.dtype(call.c_dtype) != np.float32:
            return None
        hipblas = self._hipblas()
        handle, check = self._blas_handle, self._check_blas
        op = hipblas.hipblasOperation_t
        # Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: swap the operands.
        op_b, op_a = (op.HIPBLAS_OP_T if t else op.HIPBLAS_OP_N for t in (call.trans_b, call.trans_a))
        n, m, k, ldb, stride_b, lda, stride_a = call.n, call.m, call.k, call.ldb, call.stride_b, call.lda, call.stride_a
        ldc, stride_c, batch = call.ldc, call.stride_c, call.batch
        # fp16 / bf16 take float32 scalars (float32 accumulation); the others their own type.
        scalar = ctypes.c_float if half or kind == np.float32 else ctypes.c_double
        scalars = scalar(call.alpha), scalar(call.beta)
        alpha, beta = (ctypes.addressof(x) for x in scalars)
        if half:
            # hipblasGemmStridedBatchedEx: MFMA kernels on gfx90a/gfx942, the result rounded once.
            from rocm.bindings import hipblas as typed  # typed against its stubs; _hipblas() loaded it

            data = hip.hipDataType.HIP_R_16F if kind.name == "float16" else hip.hipDataType.HIP_R_16BF
            c_data = data if call.c_dtype is None else hip.hipDataType.HIP_R_32F
            ex, compute, algo = typed.hipblasGemmStridedBatchedEx, typed.hipblasComputeType_t.HIPBLAS_COMPUTE_32F, typed.hipblasGemmAlgo_t.HIPBLAS_GEMM_DEFAULT

            def run_half(a: int, b: int, c: int, _keep: object = scalars) -> None:
                (status,) = ex(handle, op_b, op_a, n, m, k, alpha, b, data, ldb, stride_b, a, data, lda, stride_a,
                               beta, c, c_data, ldc, stride_c, batch, compute, algo)  # fmt: skip
                check(hipblas, status, "hipblasGemmStridedBatchedEx")

            return run_half
        routine = hipblas.hipblasSgemmStridedBatched if kind == np.float32 else hipblas.hipblasDgemmStridedBatched

        def run(a: int, b: int, c: int, _keep: object = scalars) -> None:
            (status,) = routine(handle, op_b, op_a, n, m, k, alpha, b, ldb, stride_b, a, lda, stride_a, beta, c, ldc, stride_c, batch)
            check(hipblas, status, "hipblasSgemmStridedBatched")

        return run


RUNTIME_LIBRARIES = ("libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5")


def _require_runtime() -> None:
    """hip-python loads the HIP runtime on its first call; say plainly when there is none."""
    for library in RUNTIME_LIBRARIES:
        try:
            ctypes.CDLL(library)
            return
        except OSError:
            continue
    raise DriverUnavailable("backend 'hip': no ROCm runtime found (libamdhip64.so cannot be loaded)")


def _text(value: object) -> str:
    if isinstance(value, tuple):  # hipGetErrorString answers a 1-tuple in some versions
        value = value[-1]
    if isinstance(value, bytes | bytearray):
        return bytes(value).split(b"\0")[0].decode(errors="replace")
    return str(value)
