"""Convolutions on a vendor DNN library (cuDNN): which launches it takes, as what calls, and
that every path of the launch program (interpreted, planned, traced) hands the driver the
same calls. The library itself runs on a GPU (tests/gpu/test_gpu_convolutions.py); here the
no-op driver stands for it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx

import xhip
from xhip.kernels.abi import ConvCall
from xhip.kernels.conv import conv_call
from xhip.runtime.backends.gpu.backend import GpuBackend
from xhip.runtime.backends.gpu import cudnn
from xhip.runtime.backends.gpu.cudnn import descriptor_dims
from xhip.runtime.backends.gpu.kernels import KernelLibrary
from xhip.testing.null_driver import NullDriver

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
F32 = np.dtype(np.float32)


def _values(x: tuple[int, ...], w_strides: tuple[int, ...], y: tuple[int, ...], x_strides: tuple[int, ...] | None = None) -> dict:
    def dense(shape: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(int(np.prod(shape[d + 1 :])) for d in range(len(shape)))

    return {
        "x_extents": x, "x_strides": x_strides or dense(x), "w_strides": w_strides, "extents": y, "y_strides": dense(y),
        "x": 1000, "w": 2000, "y": 3000, "b": 4000, "b_stride": 1,
    }  # fmt: skip


def test_a_dense_conv_with_symmetric_pads_is_one_library_call():
    values = _values((2, 4, 9, 9), (36, 9, 3, 1), (2, 8, 9, 9))
    call = conv_call(values, (8, 4, 3, 3), (1, 1, 1, 1), (1, 1), (1, 1), 1, F32)
    assert call == ConvCall((2, 4, 9, 9), (8, 4, 3, 3), (2, 8, 9, 9), (1, 1), (1, 1), (1, 1), 1, F32, 4000, 1000, 2000, 3000)


def test_pads_that_differ_or_a_strided_operand_leave_it_to_the_kernel():
    values = _values((2, 4, 9, 9), (36, 9, 3, 1), (2, 8, 8, 8))
    assert conv_call(values, (8, 4, 3, 3), (1, 1, 0, 0), (1, 1), (1, 1), 1, F32) is None  # SAME_UPPER-style pads
    strided = _values((2, 4, 9, 9), (36, 9, 3, 1), (2, 8, 9, 9), x_strides=(648, 162, 18, 2))
    assert conv_call(strided, (8, 4, 3, 3), (1, 1, 1, 1), (1, 1), (1, 1), 1, F32) is None


def test_a_1d_conv_is_described_as_2d_over_a_unit_height():
    call = ConvCall((2, 4, 50), (8, 2, 5), (2, 8, 25), (2,), (2,), (1,), 2, F32, 0, 0, 0, 0)
    x, w, y, pads, strides, dilations = descriptor_dims(call)
    assert (x, w, y) == ([2, 4, 1, 50], [8, 2, 1, 5], [2, 8, 1, 25])
    assert (pads, strides, dilations) == ([0, 2], [1, 2], [1, 1])


class _LoggingDriver(NullDriver):
    """The no-op driver, keeping each library call it was asked to run."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[object] = []

    def prepare_call(self, call):  # type: ignore[no-untyped-def]
        run = super().prepare_call(call)

        def logged(a: int, b: int, c: int) -> None:
            self.calls.append(call._replace(a=a, b=b, c=c))
            run(a, b, c)  # type: ignore[misc]

        return logged


def _conv_calls(driver: _LoggingDriver, exe, images: np.ndarray) -> list[ConvCall]:  # type: ignore[no-untyped-def]
    """The run's convolution calls, the input's address written 'IN' (each executable has
    buffers of its own: other addresses are compared by where they recur)."""
    driver.calls.clear()
    feed = exe.to_device(images, "images")
    exe.run({"images": feed}, on_device=True)
    calls = [call for call in driver.calls if isinstance(call, ConvCall)]
    addresses = {feed.memref(exe.backend).address: "IN"}
    for call in calls:
        for address in (call.bias, call.a, call.b, call.c):
            addresses.setdefault(address, len(addresses))
    return [call._replace(bias=addresses[call.bias], a=addresses[call.a], b=addresses[call.b], c=addresses[call.c]) for call in calls]


def test_cudnn_can_be_turned_off(monkeypatch):
    """cuDNN takes convolutions unless XHIP_CUDNN=0: then no driver takes one (the kernel runs)."""
    call = ConvCall((2, 4, 9, 9), (8, 4, 3, 3), (2, 8, 9, 9), (1, 1), (1, 1), (1, 1), 1, F32, 0, 0, 0, 0)
    monkeypatch.delenv(cudnn.DISABLE, raising=False)
    assert NullDriver().prepare_call(call) is not None
    monkeypatch.setenv(cudnn.DISABLE, "0")
    assert cudnn.load_library() is None
    assert NullDriver().prepare_call(call) is None


def test_every_conv_of_the_direct_pipeline_reaches_the_library_on_every_path(monkeypatch):
    """resnet_tiny through the direct-conv experiment: each hip.conv launch is one ConvCall of
    its run's shapes, whether the program interprets, plans or traces the run."""
    monkeypatch.delenv(cudnn.DISABLE, raising=False)
    model = onnx.load(EXAMPLES / "resnet_tiny.onnx")
    rng = np.random.default_rng(2)
    images = [rng.standard_normal(shape).astype(np.float32) for shape in ((2, 3, 32, 32), (1, 3, 24, 40), (2, 3, 32, 32))]
    logs = {}
    for path in ("interpreted", "planned", "traced"):
        driver = _LoggingDriver()
        library = KernelLibrary.for_driver(driver)
        library.plan_sites = 1 if path == "planned" else None
        exe = xhip.compile(model, "direct-conv", backend=GpuBackend(driver), graphs=False, trace_ahead=path == "traced")
        convs = sum(op.name == "hip.conv" for op in exe.module.walk())
        logs[path] = [_conv_calls(driver, exe, x) for x in images]
        assert convs > 2 and all(len(calls) == convs for calls in logs[path]), path
    assert logs["planned"] == logs["interpreted"] == logs["traced"]
    first, other = logs["interpreted"][0][0], logs["interpreted"][1][0]
    assert first.x_shape == (2, 3, 32, 32) and other.x_shape == (1, 3, 24, 40)
    assert first.a == "IN"  # the first Conv reads the image where the caller put it
