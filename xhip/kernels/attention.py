"""The attention family: `y = softmax(scale * q @ kᵀ (+ mask)) @ v` flash style
(hip.attention, from hip-fuse-attention), the scores never stored.

Kernels: for fp16 and bf16 whose head dims fit, the matrix-instruction kernel
(templates/attention_mma.hip.j2: tensor cores on CUDA sm_80+, MFMA on gfx90a / gfx94x);
else the register-tiled kernel (templates/attention_tiled.hip.j2) in its 64- and 16-row
forms where the head dims fit (each launch runs one: the other gets no tiles), else the
one-row-per-thread kernel (templates/attention.hip.j2). q, k, v (and the mask)
are read through their layouts (`q_perm`, ...), y is stored through `y_perm`.

Reference: the unfused ops it replaced, in order, in the compute dtype (float32 for f32
and half floats), so a fused model computes what the unfused one did up to the order of
additions:

    s = scale * (q @ kᵀ) (+ mask | + where(keep, kept_value, masked_value));  p = softmax(s);
    (p = where(isnan(p), 0, p));  y = p @ v

It materializes the scores on the host: it is the reference, not the memory plan (the
pool never holds them either way).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import cast

import numpy as np

from xhip.dialects import hip
from xhip.dtypes import HALF_DTYPES
from xhip.kernels.abi import KernelABI, Launch, Param, dims, index, pointer, value
from xhip.kernels.family import OpFacts, Site, Values, View, ViewLike, broadcast_strides, matrix_strides, picker
from xhip.kernels.reference import Elements, KernelCall, compute_dtype, register, row_tiles, shape_text
from xhip.kernels.spec_types import KernelSpec, ctype, header_needs, kernel_name

TEMPLATES = ("attention",)

ATTENTION_QUERY_ROWS = 64
"""Query rows per block of the attention kernel (at least a warp: see its template)."""

ATTENTION_SPLIT = 2
"""Threads per query row of the attention kernel, each over its slice of every key tile."""

ATTENTION_TILED_ROWS = (64, 16)
"""Query rows per block of the register-tiled attention kernel, which is compiled both ways:
4 rows per thread, or 1 where 64-row tiles would leave most of the GPU idle."""

ATTENTION_FEW_TILES = 66
"""Fewer 64-row tiles than this (half the H200's 132 SMs) take 16-row tiles: four times the
blocks, each over the same keys with a quarter of the rows (and twice the key lanes)."""


def attention_tiles_fit(itemsize: int, head_dim: int, value_dim: int) -> bool:
    """Whether templates/attention_tiled.hip.j2 takes an attention: elements of at most 4
    bytes (fp32 arithmetic), float4 rows of Q and K (head dim a multiple of 4) read by whole
    rows per 128 threads (a divisor of 128), 8 lanes of float4 output columns (value dim a
    multiple of 32), and its four fp32 tiles within 48 KiB of shared memory (up to 64)."""
    return itemsize <= 4 and 0 < head_dim <= 64 and 128 % head_dim == 0 and head_dim % 4 == 0 and value_dim in (32, 64)


ATTENTION_MMA_THREADS = 128
"""Threads per block of the matrix-instruction kernel: 4 warps (CUDA), 2 waves (AMD)."""


def attention_mma_rows(head_dim: int, value_dim: int) -> int:
    """Query rows per block of the matrix-instruction kernel: 128 (two row tiles per warp,
    each fragment of K and V read from shared memory feeding two products) where the head
    dims leave the registers for it (up to 64 each), else 64."""
    return 128 if head_dim <= 64 and value_dim <= 64 else 64


def attention_mma_fits(dtype: np.dtype, head_dim: int, value_dim: int) -> bool:
    """Whether templates/attention_mma.hip.j2 takes an attention: fp16 or bf16 elements,
    a head dim of 16 to 128 in steps of 16 (the k of one m16n8k16 step; two MFMA 32x32x8
    steps), a value dim of 32 to 128 in steps of 32 (one MFMA output tile)."""
    return np.dtype(dtype) in HALF_DTYPES and 16 <= head_dim <= 128 and head_dim % 16 == 0 and 32 <= value_dim <= 128 and value_dim % 32 == 0


def attention_query_rows(batch: int, sq: int, tiled: bool) -> int:
    """The query rows per block a launch uses (see ATTENTION_TILED_ROWS)."""
    if tiled and batch * -(-sq // ATTENTION_QUERY_ROWS) < ATTENTION_FEW_TILES:
        return ATTENTION_TILED_ROWS[1]
    return ATTENTION_QUERY_ROWS


def inverse(perm: Sequence[int]) -> tuple[int, ...]:
    """The perm that undoes `perm`: transpose(transpose(x, perm), inverse(perm)) is x."""
    undo = [0] * len(perm)
    for i, p in enumerate(perm):
        undo[p] = i
    return tuple(undo)


def attention_spec(
    dtype: np.dtype, batch_rank: int, head_dim: int, value_dim: int, mask: str = "none",
    *, k_transposed: bool = False, zero_nan_rows: bool = False, query_rows: int = ATTENTION_QUERY_ROWS,
) -> KernelSpec:
    """`y = softmax(scale * q @ kᵀ (+ mask)) @ v` flash style, one block per tile of
    `query_rows` query rows, the head dims compiled in: register tiles
    (templates/attention_tiled.hip.j2) where they fit, else one query row per thread and
    ATTENTION_SPLIT threads per row (templates/attention.hip.j2). K's key and dim strides
    express either layout; the flag only picks the coalesced way to load it."""
    c = ctype(dtype)
    params: list[Param] = [index("tiles"), index("q_tiles"), index("sq"), index("sk"), dims("batch_extents", batch_rank)]
    operands = [("q", "row", "col"), ("k", "key", "dim"), ("v", "key", "col")]
    operands += [("mask", "row", "col")] if mask != "none" else []
    for operand, row, col in [*operands, ("y", "row", "col")]:
        element = "bool" if operand == "mask" and mask == "keep" else c.c
        params += [
            pointer(operand, element, const=operand != "y"),
            dims(f"{operand}_batch_strides", batch_rank),
            index(f"{operand}_{row}_stride"),
            index(f"{operand}_{col}_stride"),
        ]
    params.append(value("scale", c.compute))
    if mask == "keep":
        params += [value("kept_value", c.compute), value("masked_value", c.compute)]
    tags = {"none": "", "additive": "madd", "keep": "mkeep"}[mask], "kt" if k_transposed else "", "z" if zero_nan_rows else ""
    shared = (
        ("batch_rank", batch_rank), ("head_dim", head_dim), ("value_dim", value_dim), ("query_rows", query_rows),
        ("mask", mask), ("k_transposed", k_transposed), ("zero_nan_rows", zero_nan_rows), ("c", c.c), ("compute", c.compute),
    )  # fmt: skip
    if attention_mma_fits(dtype, head_dim, value_dim):
        return _attention_mma_spec(dtype, tuple(params), shared, (f"b{batch_rank}", f"d{head_dim}", f"dv{value_dim}", *tags), head_dim, value_dim)
    if attention_tiles_fit(dtype.itemsize, head_dim, value_dim):
        return _attention_tiled_spec(dtype, tuple(params), shared, (f"b{batch_rank}", f"d{head_dim}", f"dv{value_dim}", *tags), query_rows, value_dim)
    assert query_rows == ATTENTION_QUERY_ROWS, "the one-row-per-thread kernel has one block shape"
    name = kernel_name("attention", c.short, f"b{batch_rank}", f"d{head_dim}", f"dv{value_dim}", *tags)
    abi = KernelABI(name, tuple(params), Launch.ROWS, count="tiles", block=ATTENTION_QUERY_ROWS * ATTENTION_SPLIT)
    key_tile = 64 if head_dim + value_dim <= 128 else 32
    vec = 2 if c.compute == "double" else 4  # values per 16-byte shared load
    vec = vec if head_dim % vec == 0 and value_dim % vec == 0 else 1
    context = shared + (("split", ATTENTION_SPLIT), ("key_tile", key_tile), ("vec", vec))
    return KernelSpec("attention", abi, context, header_needs(dtype))


def _attention_tiled_spec(
    dtype: np.dtype, params: tuple[Param, ...], shared: tuple[tuple[str, object], ...], tags: tuple[str, ...], query_rows: int, value_dim: int,
) -> KernelSpec:
    """templates/attention_tiled.hip.j2 for blocks of `query_rows` rows: 16 row groups of
    query_rows / 16 rows x 8 key lanes of 4 keys (32 keys per tile), 128 threads; at one
    row per thread and a value dim of 64, 16 key lanes (64 keys per tile, 256 threads), which
    doubles the threads over each row where few blocks are all the parallelism there is."""
    c = ctype(dtype)
    rows_per_thread, keys_per_thread = query_rows // 16, 4
    key_lanes = 16 if rows_per_thread == 1 and value_dim == 64 else 8
    key_tile, threads = key_lanes * keys_per_thread, key_lanes * 16
    # Blocks per SM the registers must leave room for (CUDA): 168 registers at 4 rows, 128
    # at one (two blocks of 256 threads).
    min_blocks = 3 if rows_per_thread == 4 else 4 * 128 // threads
    name = kernel_name("attention_tiled", c.short, f"q{query_rows}", *tags)
    abi = KernelABI(name, params, Launch.ROWS, count="tiles", block=threads)
    tiling = (
        ("key_tile", key_tile), ("rows_per_thread", rows_per_thread), ("keys_per_thread", keys_per_thread), ("min_blocks", min_blocks),
    )  # fmt: skip
    return KernelSpec("attention_tiled", abi, shared + tiling, header_needs(dtype))


def _attention_mma_spec(
    dtype: np.dtype, params: tuple[Param, ...], shared: tuple[tuple[str, object], ...], tags: tuple[str, ...], head_dim: int, value_dim: int,
) -> KernelSpec:
    """templates/attention_mma.hip.j2: `attention_mma_rows` query rows per block of 128
    threads, key tiles of 64 (32 where the head dims add up past 128, so that two stages of
    K and V stay within 48 KiB of shared memory)."""
    name = kernel_name("attention_mma", ctype(dtype).short, *tags)
    abi = KernelABI(name, params, Launch.ROWS, count="tiles", block=ATTENTION_MMA_THREADS)
    rows, key_tile = attention_mma_rows(head_dim, value_dim), 64 if head_dim + value_dim <= 128 else 32
    context = dict(shared) | {"query_rows": rows, "key_tile": key_tile}
    return KernelSpec("attention_mma", abi, tuple(context.items()), header_needs(dtype))


def attention_specs(facts: OpFacts) -> list[KernelSpec]:
    q, v, y = facts.inputs[0], facts.inputs[2], facts.outputs[0]
    head_dim, value_dim = q.shape[-1], v.shape[-1]
    if head_dim is None or value_dim is None:
        raise ValueError("attention needs static head dims (the last dims of q and v)")
    props = facts.props
    mask, flags = str(props.mask_kind), {"k_transposed": bool(props.k_transposed), "zero_nan_rows": bool(props.zero_nan_rows)}
    if attention_mma_fits(y.dtype, head_dim, value_dim):
        return [attention_spec(y.dtype, y.rank - 2, head_dim, value_dim, mask, **flags)]
    if attention_tiles_fit(y.dtype.itemsize, head_dim, value_dim):  # both forms; each launch runs one
        return [attention_spec(y.dtype, y.rank - 2, head_dim, value_dim, mask, **flags, query_rows=rows) for rows in ATTENTION_TILED_ROWS]
    return [attention_spec(y.dtype, y.rank - 2, head_dim, value_dim, mask, **flags)]


def site(facts: OpFacts) -> Site:
    """Batch strides broadcast to y's batch dims (the mask's to the scores'), K's strides
    as (key, dim) whichever its layout, every operand through its layout perm."""
    props = facts.props
    reads = [_reader(perm) for perm in (props.q_perm, props.k_perm, props.v_perm, None)]
    y_read = _reader(None if props.y_perm is None else inverse(props.y_perm))
    transposed, scale = bool(props.k_transposed), float(props.scale)
    kept, masked = float(props.kept_value), float(props.masked_value)
    specs = attention_specs(facts)
    # The query rows per block of each form, as attention_specs chose them; a launch runs
    # one form (the others get no tiles).
    forms = tuple(cast(int, dict(spec.context)["query_rows"]) for spec in specs)
    tiled = specs[0].family == "attention_tiled"

    def values(ins: Sequence[ViewLike], outs: Sequence[ViewLike], scalars: Sequence[int | float]) -> list[Values]:
        q, k, v, *mask = [read(view) for view, read in zip(ins, reads)]
        y = y_read(outs[0])
        batch = y.shape[:-2]
        sq, sk = q.shape[-2], k.shape[-1] if transposed else k.shape[-2]
        q_batch, q_row, q_col = matrix_strides(q, batch, vector_is_row=True)
        k_batch, k_key, k_dim = matrix_strides(k, batch, vector_is_row=True)
        if transposed:  # K's two strides are (key, dim) whichever way round its layout has them
            k_key, k_dim = k_dim, k_key
        v_batch, v_key, v_col = matrix_strides(v, batch, vector_is_row=True)
        y_batch, y_row, y_col = matrix_strides(y, batch, vector_is_row=True)
        result: Values = {
            "sq": sq, "sk": sk, "batch_extents": batch, "scale": scale,
            "q": q.address, "q_batch_strides": q_batch, "q_row_stride": q_row, "q_col_stride": q_col,
            "k": k.address, "k_batch_strides": k_batch, "k_key_stride": k_key, "k_dim_stride": k_dim,
            "v": v.address, "v_batch_strides": v_batch, "v_key_stride": v_key, "v_col_stride": v_col,
            "y": y.address, "y_batch_strides": y_batch, "y_row_stride": y_row, "y_col_stride": y_col,
        }  # fmt: skip
        if mask:
            strides = broadcast_strides(mask[0], (*batch, sq, sk))
            result.update(mask=mask[0].address, mask_batch_strides=strides[:-2], mask_row_stride=strides[-2], mask_col_stride=strides[-1])
            result.update(kept_value=kept, masked_value=masked)
        count = math.prod(batch)
        rows = attention_query_rows(count, sq, tiled) if len(forms) > 1 else forms[0]
        return [{**result, "q_tiles": -(-sq // r), "tiles": count * -(-sq // r) if r == rows else 0} for r in forms]

    return Site(facts, (tuple(specs),), values)


def _reader(perm: Sequence[int] | None) -> Callable[[ViewLike], ViewLike]:
    """How a launch reads an operand through its layout `perm` (None: as it is)."""
    if perm is None:
        return lambda view: view
    pick = picker(perm)
    return lambda view: View(view.address, view.dtype, pick(view.shape), pick(view.strides))


# ---- reference ----------------------------------------------------------------------------


def _masked(call: KernelCall, scores: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
    kind = call.props.mask_kind
    if mask is None:
        return scores
    if kind == "keep":
        kept, masked = scores.dtype.type(call.props.kept_value), scores.dtype.type(call.props.masked_value)
        return scores + np.where(mask.astype(bool), kept, masked)
    return scores + mask.astype(scores.dtype)


def _softmax(scores: np.ndarray) -> np.ndarray:
    """Softmax over the last axis, the max subtracted first (as hip.softmax's kernel)."""
    if scores.size == 0:  # no keys (or no queries): max has nothing to reduce
        return scores
    shifted = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return shifted / shifted.sum(axis=-1, keepdims=True)


def _through(x: np.ndarray, perm: tuple[int, ...] | None) -> np.ndarray:
    """`x` as `transpose(x, perm)` (a view), or as it is without a layout."""
    return x if perm is None else np.transpose(x, perm)


def _logical(out: np.ndarray, perm: tuple[int, ...] | None) -> np.ndarray:
    """The view of `out` whose `_through(., perm)` is `out`: where the [.., q, d] result goes."""
    return out if perm is None else np.transpose(out, np.argsort(perm))


@register(hip.AttentionOp, inputs=(3, 4), elements=Elements.FLOAT)
def attention(call: KernelCall) -> None:
    """softmax(scale * q @ k^T (+ mask)) @ v, over tiles of query rows: the scores of one
    tile at a time (`row_tiles`), never all queries x keys at once."""
    dtype = compute_dtype(call.out.dtype)
    perms = [call.props.q_perm, call.props.k_perm, call.props.v_perm]
    # Contiguous copies: NumPy's matmul over transposed strides is several times slower.
    q, k, v = (np.ascontiguousarray(_through(x, p), dtype) for x, p in zip(call.inputs, perms))
    if (len(call.inputs) == 4) != (call.props.mask_kind != "none"):
        raise call.error(f"mask_kind {call.props.mask_kind} with {len(call.inputs)} inputs")
    k_t = k if call.props.k_transposed else np.swapaxes(k, -1, -2)
    if q.shape[-1] != k_t.shape[-2]:
        raise call.error(f"q {shape_text(q.shape)} and k {shape_text(k.shape)} differ in the head dim")
    try:
        batch = np.broadcast_shapes(q.shape[:-2], k_t.shape[:-2], v.shape[:-2])
    except ValueError:
        raise call.error(f"q {shape_text(q.shape)}, k {shape_text(k.shape)} and v {shape_text(v.shape)} do not broadcast") from None
    queries, keys = q.shape[-2], k_t.shape[-1]
    mask = call.inputs[3] if len(call.inputs) == 4 else None
    if mask is not None:
        call.require_broadcast(mask.shape, (*batch, queries, keys), "the mask")
    out = _logical(call.out, call.props.y_perm)
    if out.shape != (*batch, queries, v.shape[-1]):
        raise call.error(
            f"result of shape {shape_text((*batch, queries, v.shape[-1]))} does not match the output shape {shape_text(call.out.shape)}"
        )
    scale = dtype.type(call.props.scale)
    mask_per_query = mask is not None and mask.ndim >= 2 and mask.shape[-2] != 1
    for rows in row_tiles(queries, math.prod(batch) * keys * dtype.itemsize):
        scores = np.matmul(q[..., rows, :], k_t) * scale
        probs = _softmax(_masked(call, scores, mask[..., rows, :] if mask_per_query else mask))  # type: ignore[index]
        if call.props.zero_nan_rows:
            probs = np.where(np.isnan(probs), dtype.type(0), probs)
        np.copyto(out[..., rows, :], np.matmul(probs, v), casting="unsafe")
