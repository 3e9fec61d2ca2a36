"""hip.attention's kernels: the rendered flash-style template, run on the CPU through the
host emulation, against the NumPy reference kernel on random data (Sq != Sk, Sk not a
multiple of the key tile, broadcast masks, Kᵀ layouts, strided operands, fully masked
rows); and the reference kernel against the unfused ops it replaces."""

from __future__ import annotations

import numpy as np
import pytest

from xhip.dialects import hip
from xhip.kernels.families import run_kernel
from xhip.kernels import emulate
from xhip.kernels.attention import ATTENTION_TILED_ROWS
from xhip.kernels.families import launch_values
from xhip.kernels.family import View
from xhip.kernels.render import render_unit
from xhip.kernels.families import specs_for_launch
from xhip.kernels.spec_types import KernelSpec, Operand

RNG = np.random.default_rng(13)
F32 = np.float32


def _floats(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(F32)


def _view(array: np.ndarray) -> View:
    return View(array.ctypes.data, array.dtype, array.shape, tuple(s // array.itemsize for s in array.strides))


def _facts(array: np.ndarray) -> Operand:
    return Operand.at_launch(array.dtype, array.shape, [s // array.itemsize for s in array.strides])


def _causal_additive(sq: int, sk: int) -> np.ndarray:
    return np.where(np.arange(sk)[None, :] <= np.arange(sq)[:, None], F32(0), F32(-np.inf)).astype(F32)


def _row_masked_causal(sq: int, sk: int, row: int) -> np.ndarray:
    keep = np.arange(sk)[None, :] <= np.arange(sq)[:, None]
    keep[row] = False
    return keep


def _cases() -> dict[str, tuple[dict, list[np.ndarray], tuple[int, ...]]]:
    """name -> (attributes, inputs, output shape)."""
    heads = _floats(2, 9, 2, 32).transpose(0, 2, 1, 3)  # [b, h, s, d] read through [b, s, h, d] strides
    masked_rows = np.zeros((2, 1, 9, 75), F32)
    masked_rows[1, :, :, 40:] = -3.4e38  # the exports' finite "minus infinity"
    masked_rows[:, :, 3, :] = -np.inf  # query row 3 sees no key
    keep = RNG.random((9, 75)) > 0.3
    keep[5] = False
    return {
        "seed_37": ({"scale": 0.125}, [_floats(2, 37, 64), _floats(2, 37, 64), _floats(2, 37, 64)], (2, 37, 64)),
        "sq_ne_sk_two_tiles_and_a_bit": ({"scale": 0.3}, [_floats(1, 70, 64), _floats(1, 130, 64), _floats(1, 130, 64)], (1, 70, 64)),
        "causal_additive_broadcast": (
            {"scale": 0.2, "mask_kind": "additive"},
            [_floats(3, 67, 32), _floats(3, 67, 32), _floats(3, 67, 32), _causal_additive(67, 67)],
            (3, 67, 32),
        ),
        "exports_kt_mask_nan_guard": (
            {"scale": 0.1767767, "mask_kind": "additive", "k_transposed": True, "zero_nan_rows": True},
            [heads, _floats(2, 2, 32, 75), _floats(2, 2, 75, 32), masked_rows],
            (2, 2, 9, 32),
        ),
        "keep_mask_nan_row": (
            {"scale": 0.5, "mask_kind": "keep"},
            [_floats(2, 9, 16), _floats(2, 75, 16), _floats(2, 75, 16), keep],
            (2, 9, 16),
        ),
        "exports_select_mask": (
            {"scale": 0.125, "mask_kind": "keep", "kept_value": 0.0, "masked_value": -3.4028234663852886e38, "k_transposed": True, "zero_nan_rows": True},
            [_floats(1, 2, 70, 64), _floats(1, 2, 64, 70), _floats(1, 2, 70, 64), np.tril(np.ones((1, 1, 70, 70), bool))],
            (1, 2, 70, 64),
        ),
        "head_dim_128_value_dim_64": ({"scale": 0.088}, [_floats(1, 5, 128), _floats(1, 40, 128), _floats(1, 40, 64)], (1, 5, 64)),
        "odd_head_dims": ({"scale": 0.4}, [_floats(2, 5, 6), _floats(2, 33, 6), _floats(2, 33, 10)], (2, 5, 10)),
        "float64": ({"scale": 0.125}, [_floats(1, 66, 32).astype(np.float64) for _ in range(3)], (1, 66, 32)),
        "no_keys": ({"scale": 1.0}, [_floats(1, 3, 16), _floats(1, 0, 16), _floats(1, 0, 16)], (1, 3, 16)),
        "batch_broadcast_kv": ({"scale": 1.0}, [_floats(2, 3, 4, 16), _floats(1, 3, 6, 16), _floats(3, 6, 16)], (2, 3, 4, 16)),
        # The register-tiled kernel (head dims of 4k and 32k up to 64): no keys, broadcast
        # K/V, query rows over several tiles with a partial last one.
        "tiled_no_keys": ({"scale": 1.0}, [_floats(1, 3, 64), _floats(1, 0, 64), _floats(1, 0, 64)], (1, 3, 64)),
        "tiled_batch_broadcast_kv": ({"scale": 0.7}, [_floats(2, 3, 4, 32), _floats(1, 3, 6, 32), _floats(3, 6, 32)], (2, 3, 4, 32)),
        "tiled_three_query_tiles": ({"scale": 0.25}, [_floats(1, 150, 8), _floats(1, 41, 8), _floats(1, 41, 64)], (1, 150, 64)),
        # Causal masks skip the key tiles above the diagonal (every row of the block has a
        # score by then), the exports' finite -3.4e38 and -inf alike; a fully masked row keeps
        # every tile and averages V uniformly, as the unfused ops do.
        "tiled_causal_keep_skips_tiles": (
            {"scale": 0.125, "mask_kind": "keep", "kept_value": 0.0, "masked_value": -3.4028234663852886e38, "k_transposed": True},
            [_floats(1, 2, 150, 64), _floats(1, 2, 64, 150), _floats(1, 2, 150, 64), np.tril(np.ones((1, 1, 150, 150), bool))],
            (1, 2, 150, 64),
        ),
        "tiled_causal_additive_skips_tiles": (
            {"scale": 0.3, "mask_kind": "additive"}, [_floats(2, 130, 32), _floats(2, 130, 32), _floats(2, 130, 32), _causal_additive(130, 130)], (2, 130, 32),
        ),
        # Enough tiles of 64 rows (ATTENTION_FEW_TILES) for the 4-rows-per-thread form.
        "tiled_64_rows_over_many_tiles": ({"scale": 0.4}, [_floats(40, 70, 32), _floats(40, 40, 32), _floats(40, 40, 32)], (40, 70, 32)),
        "tiled_causal_keep_64_rows": (
            {"scale": 0.125, "mask_kind": "keep", "kept_value": 0.0, "masked_value": -3.4028234663852886e38, "k_transposed": True, "zero_nan_rows": True},
            [_floats(17, 2, 130, 64), _floats(17, 2, 64, 130), _floats(17, 2, 130, 64), np.tril(np.ones((1, 1, 130, 130), bool))],
            (17, 2, 130, 64),
        ),
        # ViT's 197 tokens in the 64-row form: a last query tile of 5 rows (7 of its 8 warps
        # past Sq) and a last key tile of 5 keys (one live key column).
        "tiled_vit_partial_tiles": ({"scale": 0.125}, [_floats(18, 197, 64), _floats(18, 197, 64), _floats(18, 197, 64)], (18, 197, 64)),
        "tiled_fully_masked_row_keeps_every_tile": (
            {"scale": 0.2, "mask_kind": "keep", "kept_value": 0.0, "masked_value": -3.4028234663852886e38},
            [_floats(1, 70, 64), _floats(1, 100, 64), _floats(1, 100, 64), _row_masked_causal(70, 100, row=5)],
            (1, 70, 64),
        ),
    }



CASES = _cases()
TILED = {"seed_37", "sq_ne_sk_two_tiles_and_a_bit", "causal_additive_broadcast", "exports_kt_mask_nan_guard", "exports_select_mask"}
TILED |= {name for name in CASES if name.startswith("tiled_")}


def _specs(attributes: dict, inputs: list[np.ndarray], out: np.ndarray) -> list[KernelSpec]:
    return specs_for_launch(hip.AttentionOp, attributes, [_facts(x) for x in inputs], [_facts(out)])


@pytest.fixture(scope="module")
def emulator():
    specs = {}
    for attributes, inputs, shape in CASES.values():
        for spec in _specs(attributes, inputs, np.empty(shape, inputs[0].dtype)):
            specs[spec.name] = spec
    return emulate.HostEmulator(render_unit(list(specs.values()), "hip"), [s.abi for s in specs.values()])


def _reference(attributes: dict, inputs: list[np.ndarray], shape: tuple[int, ...]) -> np.ndarray:
    out = np.full(shape, np.nan, inputs[0].dtype)
    run_kernel("attention", inputs, [out], attributes, [])
    return out


@pytest.mark.parametrize("name", sorted(CASES))
def test_register_tiles_are_taken_where_the_head_dims_fit(name):
    """fp32, head dim a multiple of 4 and value dim of 32, both up to 64: the tiled kernel;
    anything else the one-row-per-thread kernel (the cases above cover both)."""
    attributes, inputs, shape = CASES[name]
    families = [spec.family for spec in _specs(attributes, inputs, np.empty(shape, inputs[0].dtype))]
    assert families == (["attention_tiled"] * len(ATTENTION_TILED_ROWS) if name in TILED else ["attention"])


def _launched_rows(attributes: dict, inputs: list[np.ndarray], out: np.ndarray) -> list[int]:
    """The query rows per block of the forms a launch runs (those given any tiles)."""
    values = launch_values(hip.AttentionOp, attributes, [], [_view(x) for x in inputs], [_view(out)])
    return [rows for rows, v in zip(ATTENTION_TILED_ROWS, values, strict=True) if v["tiles"]]


@pytest.mark.parametrize(
    ("name", "rows"),
    [("tiled_64_rows_over_many_tiles", 64), ("tiled_causal_keep_64_rows", 64), ("tiled_vit_partial_tiles", 64), ("seed_37", 16), ("tiled_three_query_tiles", 16)],
)
def test_few_tiles_of_64_rows_take_16_row_tiles(name, rows):
    """Grids of fewer than ATTENTION_FEW_TILES 64-row tiles run the 16-row form (4x the blocks)."""
    attributes, inputs, shape = CASES[name]
    assert _launched_rows(attributes, inputs, np.empty(shape, inputs[0].dtype)) == [rows]


@pytest.mark.skipif(not emulate.available(), reason="g++ is not installed")
@pytest.mark.parametrize("name", sorted(CASES))
def test_emulated_kernel_matches_the_reference(emulator, name):
    attributes, inputs, shape = CASES[name]
    out = np.full(shape, np.nan, inputs[0].dtype)  # poisoned: every element must be written
    values = launch_values(hip.AttentionOp, attributes, [], [_view(x) for x in inputs], [_view(out)])
    for spec, launch in zip(_specs(attributes, inputs, out), values, strict=True):
        emulator.launch(spec.name, launch)
    expected = _reference(attributes, inputs, shape)
    np.testing.assert_allclose(out, expected, rtol=2e-5, atol=2e-6, equal_nan=True)


def test_fully_masked_rows_are_nan_or_zero_as_the_unfused_ops_make_them():
    attributes, inputs, shape = CASES["exports_kt_mask_nan_guard"]
    guarded = _reference(attributes, inputs, shape)
    assert (guarded[:, :, 3] == 0).all() and np.isfinite(guarded).all()
    unguarded = _reference({**attributes, "zero_nan_rows": False}, inputs, shape)
    assert np.isnan(unguarded[:, :, 3]).all()
    _, keep_inputs, keep_shape = CASES["keep_mask_nan_row"]
    assert np.isnan(_reference({"scale": 0.5, "mask_kind": "keep"}, keep_inputs, keep_shape)[:, 5]).all()


def _unfused(attributes: dict, inputs: list[np.ndarray]) -> np.ndarray:
    """The ops hip-fuse-attention replaces, one reference kernel each."""
    q, k, v, *mask = inputs
    k_t = k if attributes.get("k_transposed") else np.swapaxes(k, -1, -2)
    scores = np.empty(np.broadcast_shapes(q.shape[:-1], k_t.shape[:-2] + (1,))[:-1] + (q.shape[-2], k_t.shape[-1]), F32)
    run_kernel("matmul", [q, np.ascontiguousarray(k_t)], [scores], {}, [])
    run_kernel("mul", [scores, np.array(attributes.get("scale", 1.0), F32)], [scores], {}, [])
    if mask and attributes["mask_kind"] == "keep":
        values = [np.array(attributes.get(key, default), F32) for key, default in (("kept_value", 0.0), ("masked_value", -np.inf))]
        additive = np.empty(mask[0].shape, F32)
        run_kernel("where", [mask[0], *values], [additive], {}, [])
        mask = [additive]
    if mask:
        run_kernel("add", [scores, mask[0]], [scores], {}, [])
    run_kernel("softmax", [scores], [scores], {"axis": -1}, [])
    if attributes.get("zero_nan_rows"):
        nan = np.empty(scores.shape, bool)
        run_kernel("isnan", [scores], [nan], {}, [])
        run_kernel("where", [nan, np.array(0, F32), scores], [scores], {}, [])
    out = np.empty(np.broadcast_shapes(scores.shape[:-2], v.shape[:-2]) + (scores.shape[-2], v.shape[-1]), F32)
    run_kernel("matmul", [scores, v], [out], {}, [])
    return out


@pytest.mark.parametrize("name", ["seed_37", "causal_additive_broadcast", "exports_kt_mask_nan_guard", "exports_select_mask", "keep_mask_nan_row", "batch_broadcast_kv", "no_keys"])
def test_reference_kernel_computes_what_the_unfused_ops_did(name):
    attributes, inputs, shape = CASES[name]
    np.testing.assert_allclose(_reference(attributes, inputs, shape), _unfused(attributes, inputs), rtol=1e-5, atol=1e-6, equal_nan=True)


@pytest.mark.parametrize("name", sorted(CASES))
def test_reference_kernel_in_tiles_of_one_query_row_computes_what_one_tile_does(name, monkeypatch):
    """The reference works over tiles of query rows (its scores never all queries x keys at
    once): with tiles of a single row it writes every element and agrees with one tile."""
    from xhip.kernels import reference

    attributes, inputs, shape = CASES[name]
    monkeypatch.setattr(reference, "TILE_BYTES", 1 << 40)
    whole = _reference(attributes, inputs, shape)
    monkeypatch.setattr(reference, "TILE_BYTES", 1)
    tiled = _reference(attributes, inputs, shape)
    assert not (np.isnan(tiled) & ~np.isnan(whole)).any()  # every element written (NaN only where one tile has NaN)
    # fp32 matmuls of other block shapes round otherwise: outputs are averages of N(0, 1)
    # values over up to 150 keys, so a few ulps of their sums, 1e-5 absolute, at most.
    np.testing.assert_allclose(tiled, whole, rtol=1e-5, atol=1e-5, equal_nan=True)
