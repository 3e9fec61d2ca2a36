"""Kernel templates: specs from hip ops, deterministic rendering keyed by hash, offline
compiles (nvcc through the CUDA prelude, hipcc for gfx90a; skipped without the
compiler) and the on-disk compile cache."""

from __future__ import annotations

import math
import re
import struct

import numpy as np
import pytest

from xhip.dialects import hip
from xhip.kernels.abi import KernelABI, Launch, dims, index, pointer, value
from xhip.kernels.cache import CompileCache, default_cache_dir
from xhip.kernels import emulate
from xhip.testing import kernel_specs
from xhip.kernels.coverage import coverage_specs, unique
from xhip.kernels.compilers import CompileError, hipcc, nvcc
from xhip.kernels.render import render, render_unit
from xhip.kernels.elementwise import ChainStep, elementwise_spec
from xhip.kernels.families import FAMILIES, specs_for_launch
from xhip.kernels.spec_types import Operand

F32 = np.dtype(np.float32)
COMPILERS = [
    pytest.param(nvcc(), marks=pytest.mark.skipif(not nvcc().available, reason="nvcc is not installed"), id="nvcc-sm_90"),
    pytest.param(hipcc(), marks=pytest.mark.skipif(not hipcc().available, reason="hipcc is not installed"), id="hipcc-gfx90a"),
]


@pytest.fixture(scope="module")
def used_specs():
    return kernel_specs.testset_specs()


def _dense(*shape: int) -> Operand:
    return Operand.at_launch(F32, shape, [int(np.prod(shape[i + 1 :])) for i in range(len(shape))])


def _add(*inputs: Operand, out: Operand):
    return specs_for_launch(hip.AddOp, {}, list(inputs), [out])[0]


# ---- specs ----------------------------------------------------------------------------


def test_every_compute_op_names_a_kernel_template():
    for op_class in hip.HIP.operations:
        if issubclass(op_class, hip.DPSOp):
            assert getattr(op_class, "TEMPLATE", None) in FAMILIES, op_class.name


def test_launch_facts_pick_contiguous_scalar_or_broadcast_layouts():
    out = _dense(4, 8)
    assert _add(_dense(4, 8), _dense(4, 8), out=out).name.endswith("_r2_c_c_oc_v4")
    assert "_r2_c_0_" in _add(_dense(4, 8), _dense(), out=out).name
    # The seed RFC's [4, 1] max [4, 8]: axis 1 is compiled out of the second operand.
    assert "_r2_c_sxb_oc_v1" in _add(_dense(4, 8), _dense(4, 1), out=out).name
    transposed = Operand.at_launch(F32, (4, 8), (1, 4))
    assert "_r2_sxx_c_oc_v1" in _add(transposed, _dense(4, 8), out=out).name


def test_ir_facts_never_assume_unknown_extents_match():
    unknown = Operand(F32, (None, None), True)
    assert "_sxx_sxx_" in _add(unknown, unknown, out=unknown).name
    assert "_c_c_" in specs_for_launch(hip.AddOp, {}, [unknown, unknown], [unknown], assume_equal=True)[0].name


def test_a_property_spelled_by_the_expression_is_part_of_the_name():
    x = [Operand(F32, (None,), True)]
    names = {specs_for_launch(hip.GeluOp, {"approximate": a}, x, x)[0].name for a in ("none", "tanh")}
    assert len(names) == 2


def test_two_different_specs_of_one_name_are_refused():
    x = _dense(8)
    one = elementwise_spec([ChainStep("k", "{a}", ("in0",))], [x], x, may_alias_input=True)
    other = elementwise_spec([ChainStep("k", "-{a}", ("in0",))], [x], x, may_alias_input=True)
    with pytest.raises(ValueError, match="both named"):
        unique([one, other])


def test_kernels_state_whether_the_output_may_alias_an_input():
    x = _dense(2, 3)
    assert _add(x, x, out=x).abi.may_alias_input
    assert specs_for_launch(hip.SoftmaxOp, {"axis": -1}, [x], [x])[0].abi.may_alias_input
    assert not specs_for_launch(hip.MatmulOp, {}, [x, _dense(3, 2)], [_dense(2, 2)])[0].abi.may_alias_input
    assert not specs_for_launch(hip.LessOp, {}, [x, x], [Operand(np.dtype(bool), (2, 3), True)])[0].abi.may_alias_input


def test_abi_packs_arguments_in_c_layout():
    abi = KernelABI("k", (index("n"), value("scale", "float"), pointer("x", "float"), dims("extents", 2), value("beta", "double")), Launch.ELEMENTS)
    assert abi.signature() == "long long n, float scale, const float* x, xhip_dims<2> extents, double beta"
    packed = abi.pack({"n": 5, "scale": 2.0, "x": 0x1000, "extents": (3, 4), "beta": 0.5})
    # float at 8, 4 bytes of padding before the pointer at 16.
    assert packed == struct.pack("=qf4xqqqd", 5, 2.0, 0x1000, 3, 4, 0.5)
    with pytest.raises(ValueError, match="no value for beta"):
        abi.pack({"n": 5, "scale": 2.0, "x": 0, "extents": (3, 4)})


def test_abi_grid_covers_the_count_and_skips_empty_launches():
    spec = _add(_dense(4, 8), _dense(4, 8), out=_dense(4, 8))
    assert spec.abi.grid({"n": 0}) == (0, 0, 0)
    assert spec.abi.grid({"n": 1025}) == (2, 1, 1)  # 4 elements per thread, 256 threads
    matmul = specs_for_launch(hip.GemmOp, {}, [_dense(40, 3), _dense(3, 20)], [_dense(40, 20)])[0]
    assert matmul.abi.grid({"m": 40, "n": 20, "batch_extents": ()}) == (2, 3, 1)


# ---- rendering ------------------------------------------------------------------------


def test_every_spec_the_test_set_uses_renders(used_specs):
    families = {spec.family for spec in used_specs}
    assert {"elementwise", "row", "copy", "gather", "cumsum", "generate", "nonzero", "matmul"} <= families
    for spec in used_specs:
        source = render(spec).source
        block = spec.abi.block_shape()[0] * spec.abi.block_shape()[1]
        # The block size bounds every kernel; some also ask for blocks per SM (CUDA's second bound).
        bounds = rf"(__launch_bounds__\({block}\)|XHIP_BOUNDS_MIN_BLOCKS\({block}, \d+\))"
        assert re.search(rf'extern "C" __global__ {bounds} void {re.escape(spec.name)}\({re.escape(spec.abi.signature())}\)', source)


def test_rendering_is_deterministic_and_keyed_by_the_source_hash(used_specs):
    spec = used_specs[0]
    first, again = render(spec), render(spec)
    assert first == again and first.digest("hip") == again.digest("hip")
    assert first.digest("hip") != first.digest("cuda")  # the prelude is part of the CUDA text
    assert first.source_for("cuda").index("XHIP_PRELUDE") < first.source_for("cuda").index(spec.name)
    assert "#include <hip/hip_runtime.h>" in first.source_for("hip")
    digests = {render(s).digest("hip") for s in used_specs}
    assert len(digests) == len(used_specs)


def test_a_unit_holds_each_kernel_once(used_specs):
    unit = render_unit([*used_specs, *used_specs], "hip")
    names = re.findall(r"__global__ .*void (xhip_\w+)\(", unit)
    assert sorted(names) == sorted(s.name for s in used_specs)


# ---- offline compiles -------------------------------------------------------------------


@pytest.mark.parametrize("compiler", COMPILERS)
def test_test_set_specs_compile(compiler, used_specs):
    assert compiler.compile(render_unit([*used_specs, *coverage_specs()], compiler.kind))


@pytest.mark.parametrize("compiler", COMPILERS)
def test_a_broken_expression_fails_the_compile(compiler):
    x = _dense(8)
    broken = elementwise_spec([ChainStep("broken", "no_such_function({a})", ("in0",))], [x], x, may_alias_input=True)
    with pytest.raises(CompileError, match="no_such_function"):
        compiler.compile(render_unit([broken], compiler.kind))


@pytest.mark.parametrize("compiler", COMPILERS)
def test_the_ci_step_names_the_kernel_that_breaks(compiler):
    x = _dense(8)
    good = _add(x, x, out=x)
    broken = elementwise_spec([ChainStep("broken", "{a} +* {a}", ("in0_v",))], [x], x, may_alias_input=True)
    summary = _benchmark("compile_templates").compile_target([good, broken], compiler, None, 1)
    assert summary["errors"] and summary["failing_kernels"] == [broken.name]


# ---- compile cache ----------------------------------------------------------------------


class CountingCompiler:
    """A real compiler whose calls are counted (the cache must not call it on a hit)."""

    def __init__(self, inner):
        self.inner, self.calls = inner, 0
        self.target, self.version = inner.target, inner.version

    def compile(self, source: str) -> bytes:
        self.calls += 1
        return self.inner.compile(source)


@pytest.mark.parametrize("compiler", COMPILERS)
def test_second_compile_is_a_cache_hit(compiler, tmp_path, monkeypatch, used_specs):
    monkeypatch.setenv("XHIP_CACHE_DIR", str(tmp_path / "cache"))
    assert default_cache_dir() == tmp_path / "cache"
    source = render_unit(used_specs[:3], compiler.kind)
    counting = CountingCompiler(compiler)
    blob, hit = CompileCache().compile(source, counting)
    again, hit_again = CompileCache().compile(source, counting)
    assert (hit, hit_again, counting.calls) == (False, True, 1)
    assert again == blob


def test_cache_dir_follows_xdg_cache_home(tmp_path, monkeypatch):
    monkeypatch.delenv("XHIP_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert default_cache_dir() == tmp_path / "xhip"


def test_cache_writes_atomically(tmp_path, monkeypatch):
    cache = CompileCache(tmp_path)
    path = cache.put("ab" * 32, b"code object")
    assert cache.get("ab" * 32) == b"code object" and path.read_bytes().endswith(b"code object")
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary left

    def interrupted(source, target):  # a Ctrl-C between the temp's write and its rename
        raise KeyboardInterrupt

    monkeypatch.setattr("xhip.kernels.cache.os.replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        cache.put("ab" + "cd" * 31, b"other code")
    monkeypatch.undo()
    assert cache.get("ab" + "cd" * 31) is None
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # the temporary is gone


# ---- numerics (host emulation of the rendered source) -----------------------------------


def _benchmark(name: str):
    """A script of benchmarks/ as a module."""
    import importlib.util

    from tests.conftest import REPO_ROOT

    spec = importlib.util.spec_from_file_location(name, REPO_ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _gpu_kernel_check():
    return _benchmark("gpu_kernel_check")


SMALL_MODELS = ["max_4x1_4x8", "gemm_trans_a_b", "nonzero", "slice_from_shape", "reshape_flatten", "concat_split"]


@pytest.mark.skipif(not emulate.available(), reason="g++ is not installed")
def test_emulated_kernels_match_the_reference_kernels(tmp_path):
    """The small test-set models' launches, replayed through the rendered kernels (both
    the launch's own and the IR's general specialization) on the CPU, into poisoned
    outputs: every element matches the NumPy reference."""
    check = _gpu_kernel_check()
    check.bundle(tmp_path, SMALL_MODELS)
    rows = check.check_bundle(tmp_path, emulate_on_host=True)
    # (Split is views since the converter makes its parts tensor.extract_slices: the hip.split
    # kernel is covered among the families below.)
    assert {row["op"] for row in rows.values()} >= {"max", "gemm", "nonzero", "greater", "concat", "relu"}
    assert {name: row for name, row in rows.items() if row["failures"]} == {}


def _reference_case(op: str, attributes: dict, inputs: list[np.ndarray], outputs: list[np.ndarray], scalars=()) -> dict:
    """A launch with its reference outputs, from the NumPy reference kernel."""
    from xhip.kernels.families import run_kernel

    run_kernel(op, inputs, outputs, attributes, list(scalars))
    op_class = next(c for c in hip.HIP.operations if c.name == f"hip.{op}")
    return {"op": op, "op_class": op_class, "attributes": attributes, "scalars": list(scalars), "inputs": inputs,
            "outputs": outputs, "template": op_class.TEMPLATE, "location": op}  # fmt: skip


def _family_cases(rng) -> list[dict]:
    x = rng.standard_normal((3, 5, 4)).astype(np.float32)
    ints = rng.integers(-9, 9, (3, 5, 4)).astype(np.int64)
    long_rows = rng.standard_normal((2, 2500)).astype(np.float32)
    nan_x = x.copy()
    nan_x[1, 2, 3] = np.nan
    long_mask = np.where(rng.random(2500) < 0.3, -np.inf, 0.0).astype(np.float32)
    full_mask = np.stack([long_mask, np.full(2500, -np.inf, np.float32)])  # row 1 all masked
    cases = [
        _reference_case("reduce_sum", {"axes": (0, 2), "keepdims": True}, [x], [np.empty((1, 5, 1), np.float32)]),
        _reference_case("reduce_mean", {"axes": (1,), "keepdims": False}, [x], [np.empty((3, 4), np.float32)]),
        _reference_case("reduce_max", {"axes": (), "keepdims": False}, [ints], [np.empty((), np.int64)]),
        _reference_case("reduce_min", {"axes": (0, 2), "keepdims": True}, [x], [np.empty((1, 5, 1), np.float32)]),
        _reference_case("reduce_prod", {"axes": (1,), "keepdims": False}, [ints], [np.empty((3, 4), np.int64)]),
        _reference_case("reduce_l1", {"axes": (2,), "keepdims": True}, [x], [np.empty((3, 5, 1), np.float32)]),
        _reference_case("reduce_l2", {"axes": (0, 1), "keepdims": False}, [x], [np.empty((4,), np.float32)]),
        _reference_case("reduce_sum_square", {"axes": (1,), "keepdims": False}, [x], [np.empty((3, 4), np.float32)]),
        # exp(60 x) overflows float32 for x above 1.5: the combine never forms it.
        _reference_case("reduce_log_sum_exp", {"axes": (1,), "keepdims": False}, [x * 60], [np.empty((3, 4), np.float32)]),
        # Ties among the small integers go to the first index, or the last; a NaN is the extreme.
        _reference_case("arg_max", {"axes": (1,), "keepdims": True}, [ints], [np.empty((3, 1, 4), np.int64)]),
        _reference_case("arg_max", {"axes": (1,), "keepdims": False, "select_last_index": True}, [ints], [np.empty((3, 4), np.int64)]),
        _reference_case("arg_min", {"axes": (2,), "keepdims": False}, [nan_x], [np.empty((3, 5), np.int64)]),
        _reference_case("softmax", {"axis": 1}, [x], [np.empty_like(x)]),
        # hip-fuse-softmax's forms: a scale, a mask broadcast over the head dim, off the last axis,
        # and a row longer than the registers hold (the online pass) with masked-out (-inf) keys.
        _reference_case("softmax", {"axis": 2, "scale": 0.125}, [x, rng.standard_normal((3, 1, 4)).astype(np.float32)], [np.empty_like(x)]),
        _reference_case("softmax", {"axis": 1, "scale": 2.0}, [x, rng.standard_normal((5, 1)).astype(np.float32)], [np.empty_like(x)]),
        _reference_case("softmax", {"axis": -1, "scale": 0.5}, [long_rows, long_mask], [np.empty_like(long_rows)]),
        _reference_case("softmax", {"axis": -1}, [long_rows[:, :300], long_mask[:300]], [np.empty((2, 300), np.float32)]),
        # The NaN guard folded in (zero_nan): fully masked rows come out 0, in both paths.
        _reference_case("softmax", {"axis": -1, "zero_nan": True}, [long_rows[:, :300], full_mask[:, :300]], [np.empty((2, 300), np.float32)]),
        _reference_case("softmax", {"axis": -1, "zero_nan": True}, [long_rows, full_mask], [np.empty_like(long_rows)]),
        _reference_case("layer_norm", {"axis": 1, "epsilon": 1e-5}, [x, rng.standard_normal((5, 4)).astype(np.float32)], [np.empty_like(x)]),
        _reference_case("cumsum", {"axis": 1, "exclusive": True, "reverse": True}, [x], [np.empty_like(x)]),
        _reference_case("fill", {}, [], [np.empty((2, 3), np.float32)], [2.5]),
        _reference_case("range", {}, [], [np.empty((7,), np.float32)], [1.0, 0.5]),
        _reference_case("transpose", {"perm": (2, 0, 1)}, [x], [np.empty((4, 3, 5), np.float32)]),
        _reference_case("split", {"axis": 1}, [x], [np.empty((3, 2, 4), np.float32), np.empty((3, 3, 4), np.float32)]),
        _reference_case("slice", {}, [x], [np.empty((3, 3, 3), np.float32)], [2, 0, 1, -1, 2, 1]),
        _reference_case("gather", {"axis": 1}, [x, np.array([[4, -1], [0, 2]], np.int64)], [np.empty((3, 2, 2, 4), np.float32)]),
        # Indices smaller than the data off the axis, negative ones counted from the end.
        _reference_case("gather_elements", {"axis": 1}, [x, rng.integers(-5, 5, (2, 7, 3)).astype(np.int64)], [np.empty((2, 7, 3), np.float32)]),
        _reference_case("trilu", {"upper": 1}, [x], [np.empty_like(x)], [-1]),
        # Pad in each mode; the constant one crops dim 2 by one at its end, with a fill.
        _reference_case("pad", {"pads": (1, 0, 2, 0, 3, -1), "mode": "constant", "value": 2.5}, [x], [np.empty((4, 8, 5), np.float32)]),
        _reference_case("pad", {"pads": (0, 2, 3, 0, 3, 3), "mode": "reflect"}, [x], [np.empty((3, 10, 10), np.float32)]),
        _reference_case("pad", {"pads": (2, 1, 0, 1, 0, 2), "mode": "edge"}, [ints], [np.empty((6, 6, 6), np.int64)]),
        _reference_case("pad", {"pads": (0, 6, 1, 0, 7, 1), "mode": "wrap"}, [x], [np.empty((3, 18, 6), np.float32)]),
        _reference_case("trilu", {"upper": 0}, [ints[0]], [np.empty((5, 4), np.int64)], [2]),
        # Pooling: a padded strided max; a dilated mean counting the padding whose last window
        # (ceil_mode's) reaches past the padded extent; an integer max over 1 spatial dim.
        _reference_case("pool", {"kind": "max", "kernel_shape": (3, 3), "strides": (2, 2), "dilations": (1, 1), "pads": (1, 1, 1, 1)},
                        [x[None]], [np.empty((1, 3, 3, 3), np.float32)]),
        _reference_case("pool", {"kind": "average", "kernel_shape": (2, 2), "strides": (2, 3), "dilations": (2, 1), "pads": (1, 0, 0, 1),
                                 "ceil_mode": True, "count_include_pad": True}, [x[None]], [np.empty((1, 3, 3, 2), np.float32)]),
        _reference_case("pool", {"kind": "max", "kernel_shape": (2,), "strides": (1,), "dilations": (1,), "pads": (0, 1)},
                        [ints], [np.empty((3, 5, 4), np.int64)]),
        _reference_case("pool", {"kind": "lp", "p": 3, "kernel_shape": (2, 2), "strides": (1, 2), "dilations": (1, 1), "pads": (0, 0, 1, 1)},
                        [x[None]], [np.empty((1, 3, 5, 2), np.float32)]),
        # Conv: 2 groups, a bias, strided, dilated and padded; 1-d without a bias.
        _reference_case("conv", {"strides": (2, 1), "dilations": (1, 2), "pads": (1, 0, 1, 1), "group": 2},
                        [rng.standard_normal((2, 4, 5, 6)).astype(np.float32), rng.standard_normal((6, 2, 3, 2)).astype(np.float32),
                         rng.standard_normal(6).astype(np.float32)], [np.empty((2, 6, 3, 5), np.float32)]),
        _reference_case("conv", {"strides": (1,), "dilations": (1,), "pads": (2, 0), "group": 1},
                        [x, rng.standard_normal((2, 5, 3)).astype(np.float32)], [np.empty((3, 2, 4), np.float32)]),
        # im2col: a padded, strided, dilated 2-d window (taps in the padding read 0); 1-d.
        _reference_case("im2col", {"kernel_shape": (3, 2), "strides": (2, 1), "dilations": (1, 2), "pads": (1, 0, 1, 1)},
                        [rng.standard_normal((2, 4, 5, 6)).astype(np.float32)], [np.empty((2, 24, 15), np.float32)]),
        _reference_case("im2col", {"kernel_shape": (3,), "strides": (1,), "dilations": (1,), "pads": (2, 0)},
                        [x], [np.empty((3, 15, 4), np.float32)]),
        # ConvTranspose: strided and cropped with a bias; 2 groups, dilated, output padding.
        _reference_case("conv_transpose", {"strides": (2, 3), "dilations": (1, 1), "pads": (1, 0, 0, 1), "group": 1, "output_padding": (0, 0), "output_shape": ()},
                        [x[None], rng.standard_normal((3, 2, 3, 2)).astype(np.float32), rng.standard_normal(2).astype(np.float32)],
                        [np.empty((1, 2, 10, 10), np.float32)]),
        _reference_case("conv_transpose", {"strides": (2,), "dilations": (2,), "pads": (0, 0), "group": 2, "output_padding": (1,), "output_shape": ()},
                        [rng.standard_normal((2, 4, 5)).astype(np.float32), rng.standard_normal((4, 3, 2)).astype(np.float32)],
                        [np.empty((2, 6, 12), np.float32)]),
        # Resize: nearest 2x (asymmetric, ties up) with an untouched dim; linear to a size (its
        # scale O / D at run time); cubic with exclude_outside (align_corners) on 2 dims; a
        # crop past x's edge (the extrapolation value).
        _reference_case("resize", {"mode": "nearest", "coordinate_mode": "asymmetric", "nearest_mode": "round_prefer_ceil",
                                   "scales": (1.0, 2.0, 0.5), "resized": (0, 1, 1), "roi": ()}, [x], [np.empty((3, 10, 2), np.float32)]),
        _reference_case("resize", {"mode": "linear", "coordinate_mode": "half_pixel", "scales": (1.0, 0.0, 0.0), "resized": (0, 1, 1), "roi": ()},
                        [x], [np.empty((3, 3, 7), np.float32)]),
        _reference_case("resize", {"mode": "cubic", "coordinate_mode": "align_corners", "scales": (1.0, 1.5, 2.0), "resized": (0, 1, 1),
                                   "roi": (), "exclude_outside": True, "cubic_coeff_a": -0.5}, [x], [np.empty((3, 7, 8), np.float32)]),
        _reference_case("resize", {"mode": "linear", "coordinate_mode": "tf_crop_and_resize", "scales": (1.0, 0.0, 0.0), "resized": (0, 1, 1),
                                   "roi": (0.0, -0.2, 0.1, 1.0, 0.9, 1.3), "extrapolation_value": 7.0}, [x], [np.empty((3, 4, 5), np.float32)]),
        # Antialias: linear downscaled by 0.3 (8 taps) on one dim and upscaled on another (2);
        # cubic by 0.6 (8 taps) with exclude_outside.
        _reference_case("resize", {"mode": "linear", "coordinate_mode": "half_pixel", "scales": (1.0, 0.3, 1.5), "resized": (0, 1, 1), "roi": (),
                                   "antialias": True}, [rng.standard_normal((2, 13, 4)).astype(np.float32)], [np.empty((2, 3, 6), np.float32)]),
        _reference_case("resize", {"mode": "cubic", "coordinate_mode": "asymmetric", "scales": (1.0, 0.6, 0.6), "resized": (0, 1, 1), "roi": (),
                                   "antialias": True, "exclude_outside": True}, [x], [np.empty((3, 3, 2), np.float32)]),
        _reference_case("gather_elements", {"axis": 0}, [ints[:, 0], rng.integers(-3, 3, (4, 4)).astype(np.int32)], [np.empty((4, 4), np.int64)]),
        _reference_case("matmul", {}, [ints[:, :, :3].astype(np.int32), rng.integers(-5, 5, (3, 2)).astype(np.int32)], [np.empty((3, 5, 2), np.int32)]),
        _reference_case("matmul", {}, [x[0, 0], x[0].T], [np.empty((5,), np.float32)]),  # B strided
        _reference_case("gelu", {"approximate": "tanh"}, [x], [np.empty_like(x)]),
        _reference_case("where", {}, [x > 0, x, np.float32(-1) * np.ones((4,), np.float32)], [np.empty_like(x)]),
    ]
    return cases


@pytest.mark.skipif(not emulate.available(), reason="g++ is not installed")
def test_emulated_families_the_test_set_does_not_reach(rng=np.random.default_rng(7)):
    """Reductions over several axes (keepdims or not; sum, mean, max, min, prod, l1, l2,
    sum of squares, log-sum-exp of values whose exp overflows), arg max / min with ties and a NaN, softmax (with a scale and a broadcast
    mask, and a row longer than its registers hold) and layer norm off the last axis, exclusive reverse cumsum, fill, range, a 3-d transpose, a slice with negative and
    strided steps, a split, gather off axis 0 with a
    negative index, gather_elements along a middle and the first axis, upper and lower trilu, pad in each mode, max, mean and 3-norm pooling (padded, dilated, a last window past the padding), grouped and 1-d convolution and its transpose, nearest, linear, cubic and cropping resizes, an integer batched matmul, a vector-matrix matmul, gelu, a broadcast where."""
    check = _gpu_kernel_check()
    cases = _family_cases(rng)
    for case in cases:
        facts = [[Operand.at_launch(a.dtype, a.shape, [s // a.itemsize for s in a.strides]) for a in arrays] for arrays in (case["inputs"], case["outputs"])]
        case["specs"] = [specs_for_launch(case["op_class"], case["attributes"], *facts)]
    specs = unique(s for case in cases for s in case["specs"][0])
    device = check.HostDevice(render_unit(specs, "hip"), {s.name: s.abi for s in specs}, emulate)
    failing = [case["op"] for case in cases if not check.check_case(device, collect_launch_args(), case, [s.name for s in case["specs"][0]])]
    assert failing == []


def test_fused_chain_renders_one_kernel_of_several_ops():
    x = _dense(16)
    steps = [ChainStep("mul", "{a} * {b}", ("in0_v", "in1_v")), ChainStep("add", "{a} + {b}", ("t0", "in2_v")), ChainStep("relu", "xhip_relu({a})", ("t1",))]
    spec = elementwise_spec(steps, [x, x, x], x, may_alias_input=True)
    assert spec.name.startswith("xhip_ew_mul_add_relu_")
    assert "const auto t2 = xhip_relu(t1);" in render(spec).source


def collect_launch_args():
    from xhip.kernels import families

    return families


@pytest.mark.skipif(not emulate.available(), reason="g++ is not installed")
@pytest.mark.parametrize("dtype, vec", [(np.int16, 8), (np.float32, 4)])
def test_contiguous_elementwise_moves_aligned_vectors_and_the_rest_element_by_element(dtype, vec):
    """A contiguous add takes 16 bytes per thread and operand (8 of a 2-byte type, as
    halves, 4 floats) as one vector where its pointers are aligned and the thread's
    elements all exist; a tail shorter than a vector, and operands one element off
    alignment, go element by element. Every output element (poisoned before) is the
    NumPy sum, exactly. (The host emulation has no half types: int16 stands for them.)"""
    dtype = np.dtype(dtype)
    operand = Operand(dtype, (None,), True)
    (spec,) = specs_for_launch(hip.AddOp, {}, [operand, operand], [operand], assume_equal=True)
    assert spec.abi.per_thread == vec and spec.name.endswith(f"_v{vec}")
    emulator = emulate.HostEmulator(render(spec).source_for("hip"), [spec.abi])
    rng = np.random.default_rng(3)
    count = 37 * vec + 3  # whole vectors, then a tail
    for shift in (0, 1):  # 1: every operand one element past a vector boundary
        storage = [np.empty(count + vec, dtype) for _ in range(3)]
        assert all(array.ctypes.data % 16 == 0 for array in storage)
        a, b, out = (array[shift : shift + count] for array in storage)
        a[...] = rng.integers(-30000, 30000, count) if dtype.kind == "i" else rng.standard_normal(count)
        b[...] = rng.integers(-30000, 30000, count) if dtype.kind == "i" else rng.standard_normal(count)
        out.view(np.uint8)[...] = 0xA5
        emulator.launch(spec.name, {"n": count, "in0": a.ctypes.data, "in1": b.ctypes.data, "out": out.ctypes.data})
        np.testing.assert_array_equal(out, a + b)


def test_a_row_broadcast_along_leading_dims_is_read_as_a_row():
    """A bias of the output's trailing dims (static, contiguous) is a row the output repeats:
    read at i % period, in vectors when the period is a multiple of one; a period that is
    not, a column broadcast and a dynamic row stay strided."""
    out = Operand(F32, (None, 17, 96), True)

    def add(x: Operand, row: Operand) -> str:  # the form a launch of equal shapes takes
        return specs_for_launch(hip.AddOp, {}, [x, row], [x], assume_equal=True)[0].name

    assert add(out, Operand(F32, (96,), True)).endswith("_r3_c_p96_oc_v4")
    assert add(out, Operand(F32, (1, 17, 96), True)).endswith("_r3_c_p1632_oc_v4")
    assert _add(out, Operand(F32, (96,), True), out=out).name.endswith("_r3_sxxx_sbbx_oc_v1")  # x itself strided
    odd = Operand(F32, (None, 17, 6), True)
    assert add(odd, Operand(F32, (6,), True)).endswith("_r3_c_sbbx_oc_v1")
    assert "_sxb_" in _add(_dense(4, 8), _dense(4, 1), out=_dense(4, 8)).name
    dynamic = Operand(F32, (None, None), True)
    assert "_p" not in _add(dynamic, Operand(F32, (None,), True), out=dynamic).name


@pytest.mark.skipif(not emulate.available(), reason="g++ is not installed")
def test_a_row_operand_moves_in_vectors_and_repeats_along_the_leading_dims():
    """x [5, 3, 12] + bias [12]: every output element (poisoned before) is NumPy's sum,
    exactly, with the operands aligned (vectors) and one element off (element by element)."""
    x_type, bias_type = Operand(F32, (None, 3, 12), True), Operand(F32, (12,), True)
    (spec,) = specs_for_launch(hip.AddOp, {}, [x_type, bias_type], [x_type], assume_equal=True)
    assert spec.name.endswith("_c_p12_oc_v4")
    emulator = emulate.HostEmulator(render(spec).source_for("hip"), [spec.abi])
    rng = np.random.default_rng(5)
    shape = (5, 3, 12)
    count = math.prod(shape)
    for shift in (0, 1):
        storage = [np.empty(count + 4, np.float32) for _ in range(3)]
        x, bias, out = storage[0][shift : shift + count], storage[1][shift : shift + 12], storage[2][shift : shift + count]
        x[...] = rng.standard_normal(count)
        bias[...] = rng.standard_normal(12)
        out.view(np.uint8)[...] = 0xA5
        values = {"n": count, "extents": shape, "in0": x.ctypes.data, "in1": bias.ctypes.data, "out": out.ctypes.data}
        emulator.launch(spec.name, values)
        np.testing.assert_array_equal(out.reshape(shape), x.reshape(shape) + bias)


class _ArrayView:
    """A NumPy array as a launch sees it (ViewLike): its address and element strides."""

    def __init__(self, array: np.ndarray):
        self.array, self.dtype, self.shape = array, array.dtype, array.shape
        self.address = array.ctypes.data
        self.strides = tuple(s // array.itemsize for s in array.strides)


@pytest.mark.skipif(not emulate.available(), reason="g++ is not installed")
def test_layer_norm_reads_contiguous_aligned_rows_in_vectors_and_every_other_row_element_by_element():
    """Layer norm over the last dim, float32 (4 per vector): rows that start aligned and are
    whole vectors take the vector path, with y over x as well; a row one element off,
    a length of no whole vectors, a transposed x and a row longer than the registers
    hold take the element path. Every output element (poisoned before) is NumPy's, to
    float32 rounding of a sum in another order (rtol 1e-5, atol 1e-6 at |y| ~ 1)."""
    from xhip.kernels.families import launch_values

    x_type = Operand(F32, (None, None), True)
    scale_type = Operand(F32, (None,), True)
    (spec,) = specs_for_launch(hip.LayerNormOp, {"axis": 1, "epsilon": 1e-5}, [x_type, scale_type, scale_type], [x_type])
    assert "vec" in dict(spec.context) and dict(spec.context)["vec"] == 4
    emulator = emulate.HostEmulator(render(spec).source_for("hip"), [spec.abi])
    rng = np.random.default_rng(11)

    def check(x: np.ndarray, y: np.ndarray, scale: np.ndarray, bias: np.ndarray) -> None:
        expected = x.astype(np.float64)
        expected = (expected - expected.mean(1, keepdims=True)) / np.sqrt(expected.var(1, keepdims=True) + 1e-5) * scale + bias
        if y is not x:
            y.view(np.uint8)[...] = 0xA5
        values = launch_values(hip.LayerNormOp, {"axis": 1, "epsilon": 1e-5}, [], [_ArrayView(v) for v in (x, scale, bias)], [_ArrayView(y)])
        emulator.launch(spec.name, values[0])
        np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-6)

    def operands(rows: int, length: int, shift: int = 0) -> tuple[np.ndarray, ...]:
        storage = [np.empty(rows * length + 4, np.float32) for _ in range(2)] + [np.empty(length + 4, np.float32) for _ in range(2)]
        x, y = (a[shift : shift + rows * length].reshape(rows, length) for a in storage[:2])
        scale, bias = (a[shift : shift + length] for a in storage[2:])
        for array in (x, scale, bias):
            array[...] = rng.standard_normal(array.shape) + 0.5
        return x, y, scale, bias

    x, y, scale, bias = operands(6, 96)
    check(x, y, scale, bias)  # aligned, whole vectors
    check(x, x, scale, bias)  # y over x
    check(*operands(6, 96, shift=1))  # one element off alignment
    check(*operands(5, 30))  # 30 = 7 vectors and a half
    x, y, scale, bias = operands(24, 24)
    check(np.ascontiguousarray(x.T).T, y, scale, bias)  # x transposed: strided rows
    check(*operands(2, 4 * 4 * 256 + 4))  # more than 4 vectors per thread of 256


@pytest.mark.skipif(not emulate.available(), reason="g++ is not installed")
def test_softmax_reads_contiguous_aligned_rows_in_vectors_and_every_other_row_element_by_element():
    """Softmax of scale * x + bias over the last dim, float32 (4 per vector): rows that start
    aligned and are whole vectors take the vector path, with y over x as well and with a
    fully masked row (zero_nan: zeros); a row one element off, a length of no whole
    vectors, a transposed x and a row longer than the registers hold take the element
    paths. Every output element (poisoned before) is NumPy's to float32 rounding of a sum
    in another order (rtol 1e-5, atol 1e-7 at probabilities <= 1)."""
    from xhip.kernels.families import launch_values

    x_type = Operand(F32, (None, None), True)
    props = {"axis": 1, "scale": 0.5, "zero_nan": True}
    (spec,) = specs_for_launch(hip.SoftmaxOp, props, [x_type, x_type], [x_type])
    assert dict(spec.context)["vec"] == 4
    emulator = emulate.HostEmulator(render(spec).source_for("hip"), [spec.abi])
    rng = np.random.default_rng(12)

    def check(x: np.ndarray, y: np.ndarray, bias: np.ndarray) -> None:
        logits = 0.5 * x.astype(np.float64) + bias
        with np.errstate(invalid="ignore"):
            expected = np.exp(logits - logits.max(1, keepdims=True))
            expected = np.nan_to_num(expected / expected.sum(1, keepdims=True), nan=0.0)
        if y is not x:
            y.view(np.uint8)[...] = 0xA5
        values = launch_values(hip.SoftmaxOp, props, [], [_ArrayView(v) for v in (x, bias)], [_ArrayView(y)])
        emulator.launch(spec.name, values[0])
        np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-7)

    def operands(rows: int, length: int, shift: int = 0) -> tuple[np.ndarray, ...]:
        storage = [np.empty(rows * length + 4, np.float32) for _ in range(3)]
        x, y, bias = (a[shift : shift + rows * length].reshape(rows, length) for a in storage)
        x[...] = rng.standard_normal(x.shape) * 3
        bias[...] = rng.standard_normal(bias.shape)
        return x, y, bias

    x, y, bias = operands(6, 96)
    check(x, y, bias)  # aligned, whole vectors
    bias[2] = -np.inf  # a fully masked row: NaN, written as 0
    check(x, y, bias)
    check(x, x, bias)  # y over x
    check(*operands(6, 96, shift=1))  # one element off alignment
    check(*operands(5, 30))  # 30 = 7 vectors and a half
    x, y, bias = operands(24, 24)
    check(np.ascontiguousarray(x.T).T, y, bias)  # x transposed: strided rows
    check(*operands(2, 2 * 4 * 256 + 4))  # more than 2 vectors per thread of 256: the online path
