"""hip.attention's kernel specializations: the register-tiled kernel
(templates/attention_tiled.hip.j2) in its 64- and 16-row forms where the head dims fit,
else the one-row-per-thread kernel (templates/attention.hip.j2)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from xhip.runtime.kernels.abi import KernelABI, Launch, Param, dims, index, pointer, value
from xhip.runtime.kernels.launch_args import ATTENTION_QUERY_ROWS, ATTENTION_SPLIT, ATTENTION_TILED_ROWS, attention_tiles_fit
from xhip.runtime.kernels.spec_types import Attributes, KernelSpec, OpClass, Operand, ctype, header_needs, kernel_name


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


def attention_specs(op_class: OpClass, attributes: Attributes, ins: Sequence[Operand], outs: Sequence[Operand]) -> list[KernelSpec]:
    q, v, y = ins[0], ins[2], outs[0]
    head_dim, value_dim = q.shape[-1], v.shape[-1]
    if head_dim is None or value_dim is None:
        raise ValueError("attention needs static head dims (the last dims of q and v)")
    mask = str(attributes.get("mask_kind", "none"))
    flags = {key: bool(attributes.get(key, False)) for key in ("k_transposed", "zero_nan_rows")}
    if attention_tiles_fit(y.dtype.itemsize, head_dim, value_dim):  # both forms; each launch runs one
        return [attention_spec(y.dtype, y.rank - 2, head_dim, value_dim, mask, **flags, query_rows=rows) for rows in ATTENTION_TILED_ROWS]
    return [attention_spec(y.dtype, y.rank - 2, head_dim, value_dim, mask, **flags)]
