"""hip.attention through layouts (q_perm, k_perm, v_perm, y_perm): the rendered kernel,
run on the CPU through the host emulation, reading q, k and v as strided slices of one
GPT-2 projection output [b, s, 3*h*d] viewed [b, h, s, d] and writing y straight into
[b, s, h*d]; the reference kernel against explicit transposes; the strides the launch
passes; and what hip-fuse-attention leaves of the Transposes and copies around the
attentions of the test-set exports under the default pipeline, with
and without hip-fold-attention-layouts (and the buffers the memory planner sees)."""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
import onnx
import pytest

import xhip
from tests.conftest import REPO_ROOT
from xhip.dialects import hip
from xhip.dialects.hip.attention import LAYOUTS
from xhip.pipeline import load_pipeline
from xhip.kernels.families import run_kernel
from xhip.kernels import emulate
from xhip.kernels.families import launch_values
from xhip.kernels.family import View
from xhip.kernels.render import render_unit
from xhip.kernels.families import specs_for_launch
from xhip.kernels.spec_types import Operand
from xhip.testing.models import EXAMPLES

RNG = np.random.default_rng(1313)
F32 = np.float32
HEADS_FIRST = (0, 2, 1, 3)
"""[b, s, h, d] <-> [b, h, s, d]: the exports' head Transposes."""


def _view(array: np.ndarray) -> View:
    return View(array.ctypes.data, array.dtype, array.shape, tuple(s // array.itemsize for s in array.strides))


def _facts(array: np.ndarray) -> Operand:
    return Operand.at_launch(array.dtype, array.shape, [s // array.itemsize for s in array.strides])


def _gpt2_layout(b: int, s: int, h: int, d: int, *, k_transposed: bool = False):
    """(attributes, [q, k, v, keep mask] as stored, y's [b, s, h*d] buffer, its [b, s, h, d]
    view): q, k, v are heads 0..h-1, h..2h-1, 2h..3h-1 of one [b, s, 3h, d] view of the
    projection output, as hip-fuse-attention leaves GPT-2 (the i1 causal keep mask and
    the NaN guard included); `k_transposed` reads K as Kᵀ [b, h, d, s] instead."""
    qkv = RNG.standard_normal((b, s, 3 * h * d)).astype(F32)
    heads = qkv.reshape(b, s, 3 * h, d)  # a view: the expand_shape of the projection output
    q, k, v = (heads[:, :, i * h : (i + 1) * h] for i in range(3))  # strided slices, no copy
    assert all(np.shares_memory(x, qkv) for x in (q, k, v))
    keep = np.tril(np.ones((1, 1, s, s), bool))
    attributes = {
        "scale": d**-0.5, "mask_kind": "keep", "kept_value": 0.0, "masked_value": -3.4028234663852886e38,
        "zero_nan_rows": True, "q_perm": HEADS_FIRST, "k_perm": (0, 2, 3, 1) if k_transposed else HEADS_FIRST,
        "v_perm": HEADS_FIRST, "y_perm": HEADS_FIRST, "k_transposed": k_transposed,
    }  # fmt: skip
    out = np.full((b, s, h * d), np.nan, F32)  # poisoned: every element must be written
    return attributes, [q, k, v, keep], out, out.reshape(b, s, h, d)


def _plain(attributes: dict, inputs: list[np.ndarray], shape: tuple[int, ...]) -> np.ndarray:
    """The reference kernel on contiguous copies transposed by hand, no layouts."""
    plain = {key: value for key, value in attributes.items() if key not in LAYOUTS}
    q, k, v, mask = inputs
    read = [np.ascontiguousarray(x.transpose(attributes[name])) for x, name in zip((q, k, v), LAYOUTS)]
    out = np.empty(shape, F32)
    run_kernel("attention", [*read, mask], [out], plain, [])
    return out


LAYOUT_CASES = {
    "gpt2_seq70_heads3": dict(b=2, s=70, h=3, d=32),
    "gpt2_k_transposed": dict(b=1, s=33, h=2, d=64, k_transposed=True),
}


def _emulated(attributes: dict, inputs: list[np.ndarray], y: np.ndarray) -> list[dict]:
    """Every kernel the launch lists, run through the host emulation (the forms not chosen
    run no tiles); their launch values."""
    specs = specs_for_launch(hip.AttentionOp, attributes, [_facts(x) for x in inputs], [_facts(y)])
    emulator = emulate.HostEmulator(render_unit(specs, "hip"), [spec.abi for spec in specs])
    values = launch_values(hip.AttentionOp, attributes, [], [_view(x) for x in inputs], [_view(y)])
    for spec, launch in zip(specs, values, strict=True):
        emulator.launch(spec.name, launch)
    return values


@pytest.mark.skipif(not emulate.available(), reason="g++ is not installed")
@pytest.mark.parametrize("name", sorted(LAYOUT_CASES))
def test_emulated_kernel_reads_and_writes_the_gpt2_buffers_in_place(name):
    case = LAYOUT_CASES[name]
    attributes, inputs, out, y = _gpt2_layout(**case)
    _emulated(attributes, inputs, y)
    b, s, h, d = case["b"], case["s"], case["h"], case["d"]
    expected = _plain(attributes, inputs, (b, h, s, d)).transpose(HEADS_FIRST).reshape(b, s, h * d)
    np.testing.assert_allclose(out, expected, rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("name", sorted(LAYOUT_CASES))
def test_reference_kernel_through_layouts_is_the_kernel_on_transposed_copies(name):
    case = LAYOUT_CASES[name]
    attributes, inputs, out, y = _gpt2_layout(**case)
    run_kernel("attention", inputs, [y], attributes, [])
    b, s, h, d = case["b"], case["s"], case["h"], case["d"]
    expected = _plain(attributes, inputs, (b, h, s, d)).transpose(HEADS_FIRST).reshape(b, s, h * d)
    np.testing.assert_array_equal(out, expected)


@pytest.mark.skipif(not emulate.available(), reason="g++ is not installed")
def test_emulated_kernel_reads_grouped_kv_heads_unrepeated():
    """Llama's layout after hip-fold-attention-layouts: batch dims [b, G, R], K [b, G, 1,
    s, d] and V read from the projection's [b, 1, s, G, d] through v_perm (the unit dim
    broadcast, stride 0), y stored [b, s, G, R, d]."""
    b, g, r, s, d = 2, 2, 2, 67, 16
    split = (0, 3, 1, 2, 4)
    q, k, v_stored = (RNG.standard_normal(shape).astype(F32) for shape in ((b, g, r, s, d), (b, g, 1, s, d), (b, 1, s, g, d)))
    v = v_stored.transpose(split)
    keep = np.tril(np.ones((b, 1, 1, s, s), bool))
    attributes = {"scale": 0.25, "mask_kind": "keep", "masked_value": -3.4028234663852886e38, "zero_nan_rows": True, "v_perm": split, "y_perm": split}
    out = np.full((b, s, g * r, d), np.nan, F32)
    y = out.reshape(b, s, g, r, d)
    inputs = [q, k, v_stored, keep]
    values = _emulated(attributes, inputs, y)
    assert all(v["k_batch_strides"][2] == v["v_batch_strides"][2] == 0 for v in values)
    repeated = [np.ascontiguousarray(np.broadcast_to(x, (b, g, r, s, d)).reshape(b, g * r, s, d)) for x in (k, v)]
    plain = np.empty((b, g * r, s, d), F32)
    run_kernel("attention", [q.reshape(b, g * r, s, d), *repeated, keep.reshape(b, 1, s, s)], [plain], {**attributes, "v_perm": None, "y_perm": None}, [])
    np.testing.assert_allclose(out, plain.transpose(HEADS_FIRST), rtol=2e-5, atol=2e-6)


def test_launch_reads_the_projection_output_with_its_own_strides():
    """q's rows are 3*h*d apart and its heads d apart inside the [b, s, 3*h*d] buffer; y's
    rows h*d apart in [b, s, h*d]: the kernel addresses the buffers the GEMMs use."""
    b, s, h, d = 2, 70, 3, 32
    attributes, inputs, out, y = _gpt2_layout(b, s, h, d)
    values, *_ = launch_values(hip.AttentionOp, attributes, [], [_view(x) for x in inputs], [_view(y)])
    row = 3 * h * d
    assert values["sq"] == values["sk"] == s and values["batch_extents"] == (b, h)
    assert (values["q_batch_strides"], values["q_row_stride"], values["q_col_stride"]) == ((s * row, d), row, 1)
    assert (values["k_batch_strides"], values["k_key_stride"], values["k_dim_stride"]) == ((s * row, d), row, 1)
    assert values["k"] - values["q"] == values["v"] - values["k"] == h * d * 4
    assert (values["y_batch_strides"], values["y_row_stride"], values["y_col_stride"]) == ((s * h * d, d), h * d, 1)
    assert values["y"] == out.ctypes.data


# ---- what the pass leaves of the exports ---------------------------------------------

FUSED = load_pipeline(REPO_ROOT / "pipelines" / "default.yaml")

LEFT_PER_LAYER = {"gpt2_2layer": 0, "bert_tiny_64": 0, "roberta_tiny": 0, "llama_tiny": 2}
"""hip.transpose left per attention layer: Llama's q and k Transposes feed RoPE, not the
attention."""

FOLDED_PER_LAYER = {"gpt2_2layer": 5, "bert_tiny_64": 5, "roberta_tiny": 5, "llama_tiny": 5}
"""Buffers per layer the planner no longer sees: each folded Transpose's output (q, k, v,
Kᵀ and y; Llama: v, Kᵀ, y and the repeated K and V of its grouped-query heads). GPT-2's
slices of its fused QKV projection are views without the fold as well (one-shot-bufferize
expands a strided slice as a view)."""


@functools.cache
def _module(name: str, fold: bool):
    passes = tuple(entry for entry in FUSED.passes if fold or entry.name != "hip-fold-attention-layouts")
    assert len(passes) == len(FUSED.passes) - (not fold)
    pipeline = dataclasses.replace(FUSED, passes=passes)
    return xhip.compile(onnx.load(EXAMPLES / f"{name}.onnx"), pipeline, backend="reference").module


@pytest.mark.parametrize("name", sorted(LEFT_PER_LAYER))
def test_no_copy_or_transpose_is_left_around_the_fused_attentions(name):
    names = [op.name for op in _module(name, True).walk()]
    layers = names.count("hip.attention")
    assert layers == 2 and "memref.copy" not in names
    assert names.count("hip.transpose") == LEFT_PER_LAYER[name] * layers
    grouped = name == "llama_tiny"  # batch dims [b, 2, 2]: K and V read unrepeated, no Expand each
    unfolded = [op.name for op in _module(name, False).walk()]
    assert names.count("hip.expand") == unfolded.count("hip.expand") - (2 * layers if grouped else 0)
    attention = next(op for op in _module(name, True).walk() if isinstance(op, hip.AttentionOp))
    assert attention.layout("y_perm") == ((0, 3, 1, 2, 4) if grouped else HEADS_FIRST)


@pytest.mark.parametrize("name", sorted(FOLDED_PER_LAYER))
def test_the_memory_planner_sees_fewer_buffers(name):
    def pooled(fold: bool) -> int:
        return _module(name, fold).attributes["hip.buffer_count"].value.data  # type: ignore[attr-defined]

    assert pooled(False) - pooled(True) == 2 * FOLDED_PER_LAYER[name]
