"""The `cuda` driver: cuda-bindings (driver API + NVRTC) and cuBLAS on an NVIDIA GPU.

The kernels are xhip's HIP templates compiled by NVRTC with the HIP-on-CUDA
prelude in front (the prelude is the backend's business; this driver compiles
whatever source it is given). cuBLAS comes through nvmath-python's bindings:
a maintained, typed, thin wrapper of the C API (handles and device pointers
as ints, no array framework), which is what a driver needs.
"""

from __future__ import annotations

import ctypes
import threading
from typing import Any, Literal

import numpy as np

from cuda.bindings import driver as cu

from xhip.kernels.abi import ConvCall, GemmCall, LibraryCall
from xhip.runtime.backends.gpu import cudnn, nvrtc
from xhip.runtime.backends.gpu.driver import DriverError, DriverUnavailable, PackedArgs, PreparedCall

HALF_DATA_TYPES = {"float16": 2, "bfloat16": 14}
"""cudaDataType of the half-precision element types (CUDA_R_16F, CUDA_R_16BF)."""
CUDA_R_32F = 0
"""cudaDataType of float32: C of a GEMM over half operands that writes float32."""
CUBLAS_COMPUTE_32F = 68
"""cublasComputeType_t: accumulate in float32 (tensor cores for 16-bit inputs)."""
CUBLAS_GEMM_DEFAULT = -1
"""cublasGemmAlgo_t: cuBLAS's heuristic choice."""

WORKSPACE_BYTES = 32 << 20
"""cuBLAS workspace, set once so that no BLAS call allocates (graph capture forbids it)."""

POOL_RESERVE_BYTES = 256 << 20
"""Freed device memory the driver's memory pool keeps for later allocations (its release
threshold). Device memory comes from a stream-ordered pool of the driver's own
(cuMemAllocFromPoolAsync): an allocation it can serve from reserved memory costs about
5 us on the H200 where cuMemAlloc costs 50-230 us. The BLAS warm-up's scratch (256 MiB,
freed at bind) stays reserved, so a first run's pools and outputs cost no cuMemAlloc."""


class _Node:
    """A captured graph node and the parameter struct its updates reuse (setting a struct's
    fields through the bindings costs more than the update call)."""

    __slots__ = ("handle", "params", "fields")

    def __init__(self, handle: Any):
        self.handle = handle
        self.params: Any = None
        self.fields: tuple[object, ...] | None = None
        """What `params` was last set to (kernel nodes)."""


class CudaDriver:
    """One NVIDIA device, its primary context and one stream."""

    name = "cuda"

    def __init__(self, device_index: int = 0):
        try:
            (status,) = cu.cuInit(0)
        except RuntimeError as err:  # the bindings could not dlopen libcuda
            raise DriverUnavailable(f"backend 'cuda': no NVIDIA driver found ({err})") from None
        if status == cu.CUresult.CUDA_ERROR_NO_DEVICE:
            raise DriverUnavailable("backend 'cuda': the NVIDIA driver is present but sees no GPU")
        self._check(status, "cuInit")
        count = self._ok(cu.cuDeviceGetCount(), "cuDeviceGetCount")
        if count <= device_index:
            raise DriverUnavailable(f"backend 'cuda': no NVIDIA GPU with index {device_index} ({count} found)")
        self._device = self._ok(cu.cuDeviceGet(device_index), "cuDeviceGet")
        self._context = self._ok(cu.cuDevicePrimaryCtxRetain(self._device), "cuDevicePrimaryCtxRetain")
        self._threads = threading.local()
        self.enter_thread()
        attribute = cu.CUdevice_attribute
        major = self._ok(cu.cuDeviceGetAttribute(attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, self._device), "cuDeviceGetAttribute")
        minor = self._ok(cu.cuDeviceGetAttribute(attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, self._device), "cuDeviceGetAttribute")
        self._warp = self._ok(cu.cuDeviceGetAttribute(attribute.CU_DEVICE_ATTRIBUTE_WARP_SIZE, self._device), "cuDeviceGetAttribute")
        self._target = f"sm_{major}{minor}"
        self._device_name = self._ok(cu.cuDeviceGetName(256, self._device), "cuDeviceGetName").split(b"\0")[0].decode()
        self._stream = self._ok(cu.cuStreamCreate(0), "cuStreamCreate")
        self._blas: Any = None
        self._blas_handle = 0
        self._dnn: cudnn.Convolutions | Literal[False] | None = None
        """cuDNN once asked for (False: not installed, the convolution kernel runs)."""
        self._workspace = 0
        self._device_index = device_index
        self._pool: Any = None
        self._pooled: set[int] = set()
        """Addresses that came from the memory pool (freed with cuMemFreeAsync)."""
        self._capturing = False

    def enter_thread(self) -> None:
        if not getattr(self._threads, "current", False):
            self._ok(cu.cuCtxSetCurrent(self._context), "cuCtxSetCurrent")
            self._threads.current = True

    # -- error handling ------------------------------------------------------------------

    def _check(self, status: Any, call: str) -> None:
        if status != cu.CUresult.CUDA_SUCCESS:
            _, text = cu.cuGetErrorString(status)
            detail = text.decode() if isinstance(text, bytes) else str(status)
            raise DriverError(f"{call} failed: {detail}")

    def _ok(self, result: tuple[Any, ...], call: str) -> Any:
        """The value(s) of a bindings call `(status, *values)`, or a DriverError naming the call."""
        status, *values = result
        self._check(status, call)
        return values[0] if len(values) == 1 else tuple(values) if values else None

    # -- facts ---------------------------------------------------------------------------

    def describe(self) -> str:
        return f"{self._device_name} ({self._target})"

    @property
    def target(self) -> str:
        return self._target

    @property
    def warp_size(self) -> int:
        return int(self._warp)

    # -- code ----------------------------------------------------------------------------

    def compiler_version(self) -> str:
        return nvrtc.version()

    def compile(self, source: str, name: str) -> bytes:
        return nvrtc.compile_cubin(source, name, self._target)

    def load_module(self, image: bytes) -> object:
        return self._ok(cu.cuModuleLoadData(image), "cuModuleLoadData")

    def function(self, module: object, name: str) -> object:
        function = self._ok(cu.cuModuleGetFunction(module, name.encode()), "cuModuleGetFunction")
        # CUDA loads a module's functions lazily, at their first launch: an attribute query
        # loads this one now (at bind time), not in the first run that launches it.
        self._ok(cu.cuFuncGetAttribute(cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, function), "cuFuncGetAttribute")
        return function

    def launch(self, function: object, grid: tuple[int, int, int], block: tuple[int, int, int], shared_bytes: int, args: PackedArgs) -> None:
        self._ok(cu.cuLaunchKernel(function, *grid, *block, shared_bytes, self._stream, args.address, 0), "cuLaunchKernel")

    # -- memory --------------------------------------------------------------------------

    def malloc(self, nbytes: int) -> int:
        size = max(int(nbytes), 1)
        if self._capturing:
            # A pool allocation on a capturing stream would become the graph's own memory.
            return int(self._ok(cu.cuMemAlloc(size), "cuMemAlloc"))
        address = int(self._ok(cu.cuMemAllocFromPoolAsync(size, self._memory_pool(), self._stream), "cuMemAllocFromPoolAsync"))
        self._pooled.add(address)
        return address

    def free(self, address: int) -> None:
        if address in self._pooled:
            self._pooled.discard(address)
            self._ok(cu.cuMemFreeAsync(address, self._stream), "cuMemFreeAsync")
        else:
            self._ok(cu.cuMemFree(address), "cuMemFree")

    def _memory_pool(self) -> Any:
        """The pool device memory comes from: this driver's own (the device's default pool is
        shared with every other user of the stream-ordered allocator in the process)."""
        if self._pool is None:
            props = cu.CUmemPoolProps()
            props.allocType = cu.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
            props.location.type = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
            props.location.id = self._device_index
            pool = self._ok(cu.cuMemPoolCreate(props), "cuMemPoolCreate")
            threshold = cu.cuuint64_t(POOL_RESERVE_BYTES)
            attribute = cu.CUmemPool_attribute.CU_MEMPOOL_ATTR_RELEASE_THRESHOLD
            self._ok(cu.cuMemPoolSetAttribute(pool, attribute, threshold), "cuMemPoolSetAttribute")
            self._pool = pool
        return self._pool

    def host_alloc_mapped(self, nbytes: int) -> tuple[np.ndarray, int]:
        flags = cu.CU_MEMHOSTALLOC_DEVICEMAP | cu.CU_MEMHOSTALLOC_PORTABLE
        size = max(int(nbytes), 1)
        host = int(self._ok(cu.cuMemHostAlloc(size, flags), "cuMemHostAlloc"))
        device = int(self._ok(cu.cuMemHostGetDevicePointer(host, 0), "cuMemHostGetDevicePointer"))
        view = np.ctypeslib.as_array((ctypes.c_uint8 * size).from_address(host))
        return view, device

    def free_host(self, view: np.ndarray) -> None:
        self._ok(cu.cuMemFreeHost(view.ctypes.data), "cuMemFreeHost")

    def upload(self, address: int, data: np.ndarray) -> None:
        data = np.ascontiguousarray(data)
        if data.nbytes:
            self._ok(cu.cuMemcpyHtoDAsync(address, data.ctypes.data, data.nbytes, self._stream), "cuMemcpyHtoDAsync")
            self.synchronize()

    def download(self, out: np.ndarray, address: int) -> None:
        if out.nbytes:
            self._ok(cu.cuMemcpyDtoHAsync(out.ctypes.data, address, out.nbytes, self._stream), "cuMemcpyDtoHAsync")
            self.synchronize()

    def copy(self, target: int, source: int, nbytes: int) -> None:
        if nbytes:
            self._ok(cu.cuMemcpyDtoDAsync(target, source, nbytes, self._stream), "cuMemcpyDtoDAsync")

    def fill(self, address: int, byte: int, nbytes: int) -> None:
        if nbytes:
            self._ok(cu.cuMemsetD8Async(address, byte, nbytes, self._stream), "cuMemsetD8Async")

    def memory_info(self) -> tuple[int, int]:
        free, total = self._ok(cu.cuMemGetInfo(), "cuMemGetInfo")
        return int(free), int(total)

    def library_bytes(self) -> int:
        return (WORKSPACE_BYTES if self._workspace else 0) + (cudnn.WORKSPACE_BYTES if self.dnn is not None else 0)

    # -- ordering ------------------------------------------------------------------------

    def synchronize(self) -> None:
        self._ok(cu.cuStreamSynchronize(self._stream), "cuStreamSynchronize")

    def record_event(self) -> object:
        event = self._ok(cu.cuEventCreate(cu.CUevent_flags.CU_EVENT_DEFAULT), "cuEventCreate")
        self._ok(cu.cuEventRecord(event, self._stream), "cuEventRecord")
        return event

    def wait_event(self, event: object) -> None:
        self._ok(cu.cuEventSynchronize(event), "cuEventSynchronize")

    def elapsed_ms(self, start: object, end: object) -> float:
        return float(self._ok(cu.cuEventElapsedTime(start, end), "cuEventElapsedTime"))

    def begin_capture(self) -> None:
        mode = cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_RELAXED
        self._ok(cu.cuStreamBeginCapture(self._stream, mode), "cuStreamBeginCapture")
        self._capturing = True

    def end_capture(self) -> object:
        self._capturing = False
        graph = self._ok(cu.cuStreamEndCapture(self._stream), "cuStreamEndCapture")
        return self._ok(cu.cuGraphInstantiate(graph, 0), "cuGraphInstantiate")

    def replay(self, graph: object) -> None:
        self._ok(cu.cuGraphLaunch(graph, self._stream), "cuGraphLaunch")

    def captured_node(self) -> object:
        # A capture on one stream is a chain: the stream's one dependency is the last node.
        _, _, _, dependencies, _, count = self._ok(cu.cuStreamGetCaptureInfo(self._stream), "cuStreamGetCaptureInfo")
        if count != 1:
            raise DriverError(f"cuStreamGetCaptureInfo: the capturing stream depends on {count} nodes, not 1")
        return _Node(dependencies[0])

    def update_kernel_node(self, graph: object, node: object, function: object, grid: tuple[int, int, int], block: tuple[int, int, int], shared_bytes: int, args: PackedArgs) -> None:
        assert isinstance(node, _Node)
        fields = (function, grid, block, shared_bytes, args.address)
        if node.params is None or node.fields != fields:  # a decoder's update: the argument bytes only
            params = node.params = node.params or cu.CUDA_KERNEL_NODE_PARAMS()
            params.func = function
            params.gridDimX, params.gridDimY, params.gridDimZ = grid
            params.blockDimX, params.blockDimY, params.blockDimZ = block
            params.sharedMemBytes = shared_bytes
            params.kernelParams = args.address
            node.fields = fields
        self._ok(cu.cuGraphExecKernelNodeSetParams(graph, node.handle, node.params), "cuGraphExecKernelNodeSetParams")

    def update_fill_node(self, graph: object, node: object, address: int, byte: int, nbytes: int) -> None:
        assert isinstance(node, _Node)
        if node.params is None:
            node.params = cu.CUDA_MEMSET_NODE_PARAMS()
            node.params.elementSize = 1
            node.params.height = 1
        params = node.params
        params.dst, params.value, params.width = address, byte, nbytes
        self._ok(cu.cuGraphExecMemsetNodeSetParams(graph, node.handle, params, self._context), "cuGraphExecMemsetNodeSetParams")

    # -- vendor libraries ----------------------------------------------------------------

    def _cublas(self) -> Any:
        if self._blas is None:
            try:
                from nvmath.bindings import cublas
            except ImportError:
                raise DriverUnavailable(
                    "backend 'cuda': matmul needs cuBLAS through nvmath-python (pip install 'xhip[cuda]')"
                ) from None
            self._blas = cublas
            self._blas_handle = cublas.create()
            cublas.set_stream(self._blas_handle, int(self._stream))
            cublas.set_math_mode(self._blas_handle, cublas.Math.DEFAULT_MATH)  # TF32 off: fp32 stays fp32
            self._workspace = self.malloc(WORKSPACE_BYTES)
            cublas.set_workspace(self._blas_handle, self._workspace, WORKSPACE_BYTES)
        return self._blas

    def _cudnn(self) -> cudnn.Convolutions | None:
        # Asked each time, not cached: XHIP_CUDNN=0 set or unset later in the process still counts.
        if cudnn.disabled():
            return None
        if self._dnn is None:
            library = cudnn.load_library()
            self._dnn = False if library is None else cudnn.Convolutions(library, int(self._stream), self.malloc)
        return self.dnn

    @property
    def dnn(self) -> cudnn.Convolutions | None:
        """cuDNN's convolutions where a program has asked for them and it is installed."""
        return self._dnn if isinstance(self._dnn, cudnn.Convolutions) else None

    def load_library(self, kind: str) -> None:
        if kind == "blas":
            self._cublas()
        elif kind == "dnn":
            self._cudnn()

    def prepare_call(self, call: LibraryCall) -> PreparedCall | None:
        if isinstance(call, ConvCall):
            convolutions = self._cudnn()
            return None if convolutions is None else convolutions.prepare(call)
        return self._prepare_gemm(call)

    def _prepare_gemm(self, call: GemmCall) -> PreparedCall | None:
        kind = np.dtype(call.dtype)
        half = HALF_DATA_TYPES.get(kind.name)
        if half is None and (kind not in (np.dtype(np.float32), np.dtype(np.float64)) or call.c_dtype is not None):
            return None
        if call.c_dtype is not None and np.dtype(call.c_dtype) != np.float32:
            return None
        cublas = self._cublas()
        handle = self._blas_handle
        # Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: swap the operands.
        op_b, op_a = (int(cublas.Operation.T if t else cublas.Operation.N) for t in (call.trans_b, call.trans_a))
        n, m, k, ldb, stride_b, lda, stride_a = call.n, call.m, call.k, call.ldb, call.stride_b, call.lda, call.stride_a
        ldc, stride_c, batch = call.ldc, call.stride_c, call.batch
        # fp16 / bf16 take float32 scalars (float32 accumulation); the others their own type.
        scalar = ctypes.c_float if half is not None or kind == np.float32 else ctypes.c_double
        scalars = scalar(call.alpha), scalar(call.beta)
        alpha, beta = (ctypes.addressof(x) for x in scalars)
        if half is not None:
            # cublasGemmStridedBatchedEx: tensor-core kernels, the result rounded once.
            ex = cublas.gemm_strided_batched_ex
            c_type = half if call.c_dtype is None else CUDA_R_32F

            def run_half(a: int, b: int, c: int, _keep: object = scalars) -> None:
                ex(handle, op_b, op_a, n, m, k, alpha, b, half, ldb, stride_b, a, half, lda, stride_a,
                   beta, c, c_type, ldc, stride_c, batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT)  # fmt: skip

            return run_half
        routine = cublas.sgemm_strided_batched if kind == np.float32 else cublas.dgemm_strided_batched

        def run(a: int, b: int, c: int, _keep: object = scalars) -> None:
            routine(handle, op_b, op_a, n, m, k, alpha, b, ldb, stride_b, a, lda, stride_a, beta, c, ldc, stride_c, batch)

        return run
