"""The launch program on the GPU backend's host path, without a GPU (xhip.testing.null_driver):
bind once, kernels compiled and cached one by one, a kernel that fails to compile fails
only the model that needs it, and the host path runs every model of the test set."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from xhip.api import compile_stages
from xhip.diagnostics import XhipError
from xhip.kernels.cache import CompileCache
from tests.helpers import parse_verified
from xhip.runtime.backends.gpu.backend import GpuBackend
from xhip.runtime.backends.gpu.driver import DriverError
from xhip.runtime.backends.gpu.kernels import KernelLibrary
from xhip.runtime.executable import Executable
from xhip.testing.models import MODELS, SHAPE_VARIANTS, feeds_at
from xhip.testing.null_driver import NullDriver


class HeaderlessCompiler(NullDriver):
    """A runtime compiler that cannot open cuda_fp16.h (NVRTC without an include path, as
    the cuda driver once called it): every half-precision kernel fails, the rest compile."""

    def __init__(self) -> None:
        super().__init__()
        self.units: list[str] = []

    def compile(self, source: str, name: str) -> bytes:
        if "#define XHIP_NEEDS_FP16" in source:
            raise DriverError(f'NVRTC could not compile \'{name}\': could not open source file "cuda_fp16.h"')
        self.units.append(source)
        return source.encode()


def _backend(driver: NullDriver, cache_dir) -> GpuBackend:
    backend = GpuBackend(driver)
    backend.kernels = KernelLibrary(driver, CompileCache(cache_dir))  # this test's own cache
    return backend


def _elementwise_model(element: int) -> onnx.ModelProto:
    x = helper.make_tensor_value_info("x", element, ["n", 8])
    y = helper.make_tensor_value_info("y", element, ["n", 8])
    nodes = [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Mul", ["r", "x"], ["y"], name="node_mul")]
    return helper.make_model(helper.make_graph(nodes, "g", [x], [y]), opset_imports=[helper.make_opsetid("", 18)])


def _module(model: onnx.ModelProto):
    *_, (_, module, constants) = compile_stages(model)
    return module, constants


def test_a_kernel_that_fails_to_compile_fails_only_the_model_that_needs_it(tmp_path):
    driver = HeaderlessCompiler()
    backend = _backend(driver, tmp_path)
    half, half_constants = _module(_elementwise_model(TensorProto.FLOAT16))
    with pytest.raises(XhipError) as failure:
        Executable(half, backend, constants=half_constants)
    message = str(failure.value)
    assert "cuda_fp16.h" in message and "(kernel xhip_ew_" in message
    assert message.count("\n") == 0 and ": error: " in message  # one located line
    # The next model compiles only its own kernels, and runs.
    single, constants = _module(_elementwise_model(TensorProto.FLOAT))
    before = len(driver.units)
    executable = Executable(single, backend, constants=constants)
    assert len(driver.units) == before + 1 and "#define XHIP_NEEDS_FP16" not in driver.units[-1]
    outputs = executable.run({"x": np.ones((3, 8), np.float32)})
    assert outputs["y"].shape == (3, 8)
    assert executable.report.kernel_launches == driver.launches > 0


def test_kernels_are_cached_one_by_one_whatever_batch_compiled_them(tmp_path):
    """Model B after model A compiles only B's own kernels; a fresh process (a new library
    over the same cache folder) with B compiles nothing at all."""
    first = NullDriver()
    counted = []
    first.compile = lambda source, name: counted.append(source) or source.encode()  # type: ignore[method-assign]
    a, a_constants = _module(MODELS["attention"](np.random.default_rng(0))[0])
    b, b_constants = _module(_elementwise_model(TensorProto.FLOAT))
    backend = _backend(first, tmp_path)
    assert Executable(a, backend, constants=a_constants).report.kernel_compiles == 1
    assert Executable(b, backend, constants=b_constants).report.kernel_compiles == 1
    fresh = _backend(NullDriver(), tmp_path)
    assert Executable(b, fresh, constants=b_constants).report.kernel_compiles == 0
    assert Executable(a, fresh, constants=a_constants).report.kernel_compiles == 0
    assert fresh.kernels.cached_kernels > 0


def test_a_damaged_cache_entry_is_compiled_again(tmp_path):
    b, constants = _module(_elementwise_model(TensorProto.FLOAT))
    Executable(b, _backend(NullDriver(), tmp_path), constants=constants)
    for unit in (tmp_path / "units").iterdir():
        unit.write_bytes(unit.read_bytes()[:5])  # truncated
    assert Executable(b, _backend(NullDriver(), tmp_path), constants=constants).report.kernel_compiles == 1


@pytest.mark.parametrize("name", list(MODELS))
def test_the_gpu_host_path_runs_every_test_set_model(name, tmp_path):
    """Bound once, run at each of the model's three shapes, then the first again twice
    (graphs on: the third run at a repeated shape replays)."""
    driver = NullDriver()
    model, feeds = feeds_at(name, SHAPE_VARIANTS[name][0], np.random.default_rng(0))
    module, constants = _module(model)
    if any(op.name.startswith("hip.readback") for op in module.walk()):
        pytest.skip("a readback reads what a kernel wrote, and the null driver's kernels write nothing")
    executable = Executable(module, _backend(driver, tmp_path), constants=constants)
    for shape in [*SHAPE_VARIANTS[name], SHAPE_VARIANTS[name][0], SHAPE_VARIANTS[name][0]]:
        _, feeds = feeds_at(name, shape, np.random.default_rng(1))
        outputs = executable.run(feeds)
        assert set(outputs) == {spec.name for spec in executable.outputs}
    # The first shape ran three times: the third run replayed a captured graph.
    assert executable.report.replayed
    assert driver.launches + driver.gemms > 0 or name in ("reshape_flatten", "attention_batch_zero")


HOST_STORE = """
func.func @main_graph(%ctx: !hip.context, %x: memref<4xf32>) -> memref<1xi64> {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %seven = arith.constant 7 : i64
  %scratch = hip.get_host_scratch(%ctx, %c8) : memref<?xi8>
  %slot = memref.view %scratch[%c0][] : memref<?xi8> to memref<1xi64>
  memref.store %seven, %slot[%c0] : memref<1xi64>
  %loaded = memref.load %slot[%c0] : memref<1xi64>
  %out = hip.alloc_output(%ctx) {out_idx = 0 : i64} : memref<1xi64>
  hip.fill(%ctx, %loaded) outs(%out : memref<1xi64>)
  func.return %out : memref<1xi64>
}
"""


def test_a_host_store_runs_on_the_gpu_backend(tmp_path):
    """memref.store into host scratch on the GPU backend (it once raised a TypeError there:
    the program passed a location the backend did not take)."""
    executable = Executable(parse_verified(HOST_STORE), _backend(NullDriver(), tmp_path))
    executable.run({"arg0": np.zeros(4, np.float32)})
    scratch = executable.session.scratch
    assert scratch is not None and int(scratch.host[:8].view(np.int64)[0]) == 7


STRIDED_COPY = """
func.func @main_graph(%ctx: !hip.context, %x: memref<4x6xf32>) -> memref<4x3xf32> {
  %sub = memref.subview %x[0, 0] [4, 3] [1, 2] : memref<4x6xf32> to memref<4x3xf32, strided<[6, 2]>>
  %out = hip.alloc_output(%ctx) {out_idx = 0 : i64} : memref<4x3xf32>
  "memref.copy"(%sub, %out) : (memref<4x3xf32, strided<[6, 2]>>, memref<4x3xf32>) -> ()
  func.return %out : memref<4x3xf32>
}
"""


def test_a_strided_device_copy_launches_the_copy_kernel(tmp_path):
    """A memref.copy that is not one run of bytes: the reference copies the elements, the GPU
    backend launches the copy family's kernel (loaded once per layout pair)."""
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    reference = Executable(parse_verified(STRIDED_COPY)).run({"arg0": x})
    np.testing.assert_array_equal(reference["result0"], x[:, ::2])
    driver = NullDriver()
    executable = Executable(parse_verified(STRIDED_COPY), _backend(driver, tmp_path))
    for _ in range(2):
        executable.run({"arg0": x})
    assert driver.launches == 2 and len(executable.backend.kernels._functions) == 1


def _relu_and_half_cast() -> onnx.ModelProto:
    """Two kernels of one program: a Relu in fp32, and a Cast of the same input to fp16."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 8])
    z = helper.make_tensor_value_info("z", TensorProto.FLOAT16, ["n", 8])
    nodes = [helper.make_node("Relu", ["x"], ["y"]), helper.make_node("Cast", ["x"], ["z"], to=TensorProto.FLOAT16, name="node_cast")]
    return helper.make_model(helper.make_graph(nodes, "g", [x], [y, z]), opset_imports=[helper.make_opsetid("", 18)])


def test_a_unit_that_fails_keeps_every_kernel_that_compiles(tmp_path):
    """The program's unit fails; compiled kernel by kernel, the fp32 Relu compiles (and is
    cached) and the error names the half-precision Cast's kernel and op."""
    driver = HeaderlessCompiler()
    module, constants = _module(_relu_and_half_cast())
    with pytest.raises(XhipError) as failure:
        Executable(module, _backend(driver, tmp_path), constants=constants)
    assert "(kernel xhip_ew_cast_" in str(failure.value) and "node_cast" in str(failure.value)
    assert [("xhip_ew_relu_" in unit) for unit in driver.units] == [True]


def test_blas_gemms_are_warmed_up_at_bind_in_the_forms_a_run_makes(tmp_path):
    """A vendor BLAS loads the kernels it picks for a shape on their first call (over 100 ms
    for cuBLAS's first): binding runs each BLAS matmul's GEMM at WARM_ROWS rows on scratch
    memory, so that a run's GEMMs have the forms already warmed (n, k, transposes, layout),
    once per process: a second executable of the same model warms nothing more."""
    from xhip.kernels.matmul import WARM_ROWS

    driver = NullDriver()
    calls = []
    driver.prepare_call = lambda call: lambda a, b, c: calls.append(call._replace(a=a, b=b, c=c))  # type: ignore[method-assign]
    module, constants = _module(MODELS["gpt2"](np.random.default_rng(0))[0])
    backend = _backend(driver, tmp_path)
    executable = Executable(module, backend, constants=constants)
    warmed = list(calls)
    assert warmed and {c.m for c in warmed} <= set(WARM_ROWS)
    calls.clear()
    executable.run({"input_ids": np.zeros((2, 9), np.int64)})
    run = list(calls)

    def form(call):
        return (call.n, call.k, call.trans_a, call.trans_b, call.lda, call.ldb, call.ldc, call.batch, call.dtype)

    assert run and {form(c) for c in run} <= {form(c) for c in warmed}
    calls.clear()
    Executable(module, backend, constants=constants)
    assert calls == []


@pytest.mark.parametrize("element", [TensorProto.FLOAT16, TensorProto.BFLOAT16])
def test_a_half_precision_matmul_goes_to_the_vendor_blas(element, tmp_path):
    """fp16 / bf16 MatMul launches the driver's GEMM (cuBLAS GemmEx with float32 accumulation
    on the cuda backend), not the templated matmul, whose kernel is not even compiled."""
    if element == TensorProto.BFLOAT16:
        pytest.importorskip("ml_dtypes")
    a = helper.make_tensor_value_info("a", element, ["m", 64])
    y = helper.make_tensor_value_info("y", element, ["m", 32])
    rng = np.random.default_rng(0)
    weight = helper.make_tensor("w", TensorProto.FLOAT, (64, 32), rng.standard_normal((64, 32)).astype(np.float32).ravel())
    nodes = [helper.make_node("Cast", ["w"], ["wh"], to=element), helper.make_node("MatMul", ["a", "wh"], ["y"])]
    model = helper.make_model(helper.make_graph(nodes, "g", [a], [y], [weight]), opset_imports=[helper.make_opsetid("", 18)])
    driver = NullDriver()
    calls = []
    driver.prepare_call = lambda call: lambda a, b, c: calls.append(call._replace(a=a, b=b, c=c))  # type: ignore[method-assign]
    module, constants = _module(model)
    executable = Executable(module, _backend(driver, tmp_path), constants=constants)
    calls.clear()
    dtype = executable.inputs[0].dtype
    executable.run({"a": rng.standard_normal((5, 64)).astype(dtype)})
    assert [(c.m, c.n, c.k, np.dtype(c.dtype).name) for c in calls] == [(5, 32, 64, dtype.name)]
    assert driver.launches == 0  # no templated kernel ran
