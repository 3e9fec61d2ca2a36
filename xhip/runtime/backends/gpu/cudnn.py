"""cuDNN's convolutions for the cuda backend, through cuDNN's C API (ctypes).

A `ConvCall` (a Conv of dense NCHW-style operands with symmetric pads) becomes one
cudnnConvolutionForward, plus a cudnnAddTensor for the bias, on the driver's stream. Per
distinct call (addresses aside) the descriptors and the algorithm are fixed once, when it is
prepared: the algorithm is cuDNN's first heuristic choice (cudnnGetConvolutionForwardAlgorithm_v7)
whose workspace fits `WORKSPACE_BYTES`, a buffer the driver allocates once. Graph capture
and replay take these calls as they take cuBLAS's.

Arithmetic: float32 operands are computed in float32 (`CUDNN_FMA_MATH`: no TF32, as cuBLAS
here), half operands on tensor cores with float32 accumulation. A 1-D convolution is a 2-D
one over a unit height (cuDNN's descriptors take 4 or 5 dims).

The library is pip's `nvidia-cudnn-cu13` (or -cu12), found by cuda-pathfinder; without it
the convolution kernel runs, and so it does with `XHIP_CUDNN=0` set (`DISABLE`: to compare
the two, or to rule cuDNN out).
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Callable, Sequence

import numpy as np

from xhip import environment
from xhip.kernels.abi import ConvCall
from xhip.runtime.backends.gpu.driver import DriverError, PreparedCall
from xhip.runtime.buffers import contiguous_strides

WORKSPACE_BYTES = 64 << 20
"""The one workspace every convolution shares (an algorithm that needs more is not chosen)."""

_DATA_TYPES = {"float32": 0, "float64": 1, "float16": 2, "bfloat16": 9}
"""cudnnDataType_t of each operand type (CUDNN_DATA_FLOAT, _DOUBLE, _HALF, _BFLOAT16)."""
_TENSOR_NCHW = 0
_CROSS_CORRELATION = 1  # ONNX Conv: the filter is not flipped
_TENSOR_OP_MATH, _FMA_MATH = 1, 3
_ALGORITHMS = 8
"""Heuristic choices asked for (cuDNN has 8 forward algorithms)."""


class _AlgoPerf(ctypes.Structure):
    """cudnnConvolutionFwdAlgoPerf_t (cudnn_cnn.h, cuDNN 9)."""

    _fields_ = [
        ("algo", ctypes.c_int), ("status", ctypes.c_int), ("time", ctypes.c_float), ("memory", ctypes.c_size_t),
        ("determinism", ctypes.c_int), ("mathType", ctypes.c_int), ("reserved", ctypes.c_int * 3),
    ]  # fmt: skip


DISABLE = environment.CUDNN
"""The environment variable that turns cuDNN's convolutions off ("0")."""


def disabled() -> bool:
    """Whether `DISABLE` turns cuDNN off (the kernel runs every convolution)."""
    return os.environ.get(DISABLE) == "0"


def load_library() -> ctypes.CDLL | None:
    """libcudnn from pip's nvidia-cudnn package (through cuda-pathfinder), or None (also
    while `DISABLE` says so)."""
    if disabled():
        return None
    try:
        from cuda import pathfinder

        return ctypes.CDLL(pathfinder.load_nvidia_dynamic_lib("cudnn").abs_path)
    except Exception:  # noqa: BLE001 -- not installed, or pathfinder's own errors
        return None


def descriptor_dims(call: ConvCall) -> tuple[list[int], list[int], list[int], list[int], list[int], list[int]]:
    """(x dims, w dims, y dims, pads, strides, dilations) as cuDNN's descriptors take them:
    a 1-D convolution as a 2-D one over a unit height."""
    x, w, y = list(call.x_shape), list(call.w_shape), list(call.y_shape)
    pads, strides, dilations = list(call.pads), list(call.strides), list(call.dilations)
    if len(x) == 3:
        x, w, y = (shape[:2] + [1] + shape[2:] for shape in (x, w, y))
        pads, strides, dilations = [0, *pads], [1, *strides], [1, *dilations]
    return x, w, y, pads, strides, dilations


def _ints(values: Sequence[object]) -> ctypes.Array:  # type: ignore[type-arg]
    return (ctypes.c_int * len(values))(*(int(v) for v in values))  # type: ignore[call-overload]


class Convolutions:
    """cuDNN on one stream: a handle, the shared workspace, and the prepared calls."""

    def __init__(self, library: ctypes.CDLL, stream: int, malloc: Callable[[int], int]):
        self._lib = library
        handle = ctypes.c_void_p()
        self._check(library.cudnnCreate(ctypes.byref(handle)), "cudnnCreate")
        self._check(library.cudnnSetStream(handle, ctypes.c_void_p(stream)), "cudnnSetStream")
        self._handle = handle
        self._workspace = malloc(WORKSPACE_BYTES)
        self._prepared: dict[ConvCall, PreparedCall | None] = {}

    def _check(self, status: int, call: str) -> None:
        if status != 0:
            self._lib.cudnnGetErrorString.restype = ctypes.c_char_p
            raise DriverError(f"{call} failed: {self._lib.cudnnGetErrorString(status).decode()}")

    def _descriptor(self, create: str) -> ctypes.c_void_p:
        descriptor = ctypes.c_void_p()
        self._check(getattr(self._lib, create)(ctypes.byref(descriptor)), create)
        return descriptor

    def _tensor(self, dims: Sequence[int], data_type: int) -> ctypes.c_void_p:
        descriptor = self._descriptor("cudnnCreateTensorDescriptor")
        status = self._lib.cudnnSetTensorNdDescriptor(descriptor, data_type, len(dims), _ints(dims), _ints(contiguous_strides(dims)))
        self._check(status, "cudnnSetTensorNdDescriptor")
        return descriptor

    @property
    def taken(self) -> int:
        """Distinct calls (shapes and layouts) cuDNN has taken so far."""
        return sum(run is not None for run in self._prepared.values())

    def prepare(self, call: ConvCall) -> PreparedCall | None:
        """`call` (its addresses a, b, c 0) as a run of x, w and y's addresses; None where
        cuDNN takes neither its types nor any algorithm for it."""
        key = call._replace(a=0, b=0, c=0)
        if key not in self._prepared:
            self._prepared[key] = self._prepare(key)
        return self._prepared[key]

    def _prepare(self, call: ConvCall) -> PreparedCall | None:
        data_type = _DATA_TYPES.get(np.dtype(call.dtype).name)
        if data_type is None or not 3 <= len(call.x_shape) <= 5:  # cuDNN: 1-D (as 2-D) to 3-D
            return None
        try:
            return self._prepare_as(call, data_type)
        except DriverError:
            return None  # a configuration cuDNN refuses (a descriptor, no algorithm): the kernel runs

    def _prepare_as(self, call: ConvCall, data_type: int) -> PreparedCall | None:
        lib, handle = self._lib, self._handle
        x_dims, w_dims, y_dims, pads, strides, dilations = descriptor_dims(call)
        x, y = self._tensor(x_dims, data_type), self._tensor(y_dims, data_type)
        w = self._descriptor("cudnnCreateFilterDescriptor")
        self._check(lib.cudnnSetFilterNdDescriptor(w, data_type, _TENSOR_NCHW, len(w_dims), _ints(w_dims)), "cudnnSetFilterNdDescriptor")
        conv = self._descriptor("cudnnCreateConvolutionDescriptor")
        compute = _DATA_TYPES["float64" if data_type == _DATA_TYPES["float64"] else "float32"]
        status = lib.cudnnSetConvolutionNdDescriptor(conv, len(pads), _ints(pads), _ints(strides), _ints(dilations), _CROSS_CORRELATION, compute)
        self._check(status, "cudnnSetConvolutionNdDescriptor")
        self._check(lib.cudnnSetConvolutionGroupCount(conv, call.group), "cudnnSetConvolutionGroupCount")
        half = data_type in (_DATA_TYPES["float16"], _DATA_TYPES["bfloat16"])
        self._check(lib.cudnnSetConvolutionMathType(conv, _TENSOR_OP_MATH if half else _FMA_MATH), "cudnnSetConvolutionMathType")
        # cuDNN's output shape must be the op's (the shape rule's), or the call is not this Conv.
        out = (ctypes.c_int * len(y_dims))()
        self._check(lib.cudnnGetConvolutionNdForwardOutputDim(conv, x, w, len(y_dims), out), "cudnnGetConvolutionNdForwardOutputDim")
        if list(out) != y_dims:
            return None
        perf, returned = (_AlgoPerf * _ALGORITHMS)(), ctypes.c_int()
        status = lib.cudnnGetConvolutionForwardAlgorithm_v7(handle, x, w, conv, y, _ALGORITHMS, ctypes.byref(returned), perf)
        self._check(status, "cudnnGetConvolutionForwardAlgorithm_v7")
        algorithm = next((p.algo for p in perf[: returned.value] if p.status == 0 and p.memory <= WORKSPACE_BYTES), None)
        if algorithm is None:
            return None
        scalar = ctypes.c_double if data_type == _DATA_TYPES["float64"] else ctypes.c_float
        one, zero = scalar(1.0), scalar(0.0)
        workspace, forward, add = ctypes.c_void_p(self._workspace), lib.cudnnConvolutionForward, lib.cudnnAddTensor
        bias = None
        if call.bias:
            bias = self._tensor([1, y_dims[1]] + [1] * (len(y_dims) - 2), data_type), ctypes.c_void_p(call.bias)
        check = self._check
        keep = (x, w, y, conv, one, zero, bias)

        def run(a: int, b: int, c: int, _keep: object = keep) -> None:
            status = forward(handle, ctypes.byref(one), x, ctypes.c_void_p(a), w, ctypes.c_void_p(b), conv, algorithm,
                             workspace, ctypes.c_size_t(WORKSPACE_BYTES), ctypes.byref(zero), y, ctypes.c_void_p(c))  # fmt: skip
            check(status, "cudnnConvolutionForward")
            if bias is not None:
                check(add(handle, ctypes.byref(one), bias[0], bias[1], ctypes.byref(one), y, ctypes.c_void_p(c)), "cudnnAddTensor")

        return run
