"""The argument values of each launch of a hip op, from what the runtime knows then:
device addresses, shapes and element strides of the operands, attributes, host scalars.

    for spec, values in zip(specs_for_launch(...), launch_values(template, op, attrs, scalars, ins, outs)):
        driver.launch(spec.abi, spec.abi.grid(values), spec.abi.pack(values))

`launch_values` returns one mapping per launch, in the order `specs_for_launch` lists
the kernels; each holds every value the family's parameters may name (a kernel's ABI
takes the ones it declares), except gather's `status`: the address of two int64 the
caller zeroes before and reads after (1 and the index when an index was out of range). Broadcasts become stride 0, transposes permuted strides,
concat/split windows address offsets.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from xhip.runtime.kernels.abi import ArgValue

Values = dict[str, ArgValue]


@dataclass(frozen=True)
class View:
    """One operand at a launch: the address of element [0, ...], element strides."""

    address: int
    dtype: np.dtype
    shape: tuple[int, ...]
    strides: tuple[int, ...]

    def at(self, index: Sequence[int]) -> int:
        """The address of element `index` (leading entries; the rest are 0)."""
        return self.address + sum(i * s for i, s in zip(index, self.strides)) * self.dtype.itemsize


def broadcast_strides(view: View, shape: Sequence[int]) -> tuple[int, ...]:
    """`view`'s strides right-aligned to `shape`, 0 where it broadcasts."""
    lead = len(shape) - len(view.shape)
    strides = [0] * lead
    for extent, stride, target in zip(view.shape, view.strides, shape[lead:]):
        strides.append(0 if extent == 1 and target != 1 else stride)
    return tuple(strides)


def _elementwise(attrs, scalars, ins: Sequence[View], outs: Sequence[View]) -> list[Values]:
    out = outs[0]
    values: Values = {"n": math.prod(out.shape), "extents": out.shape, "out": out.address, "out_strides": out.strides}
    for i, x in enumerate(ins):
        values[f"in{i}"], values[f"in{i}_strides"] = x.address, broadcast_strides(x, out.shape)
    return [values]


def _split(values: Sequence[int], axes: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(entries not in axes, entries in axes)."""
    return tuple(v for d, v in enumerate(values) if d not in axes), tuple(values[d] for d in axes)


def _rows(x: View, y: View, inner_axes: Sequence[int]) -> Values:
    outer, inner = _split(x.shape, inner_axes)
    x_outer, x_inner = _split(x.strides, inner_axes)
    y_outer, y_inner = _split(y.strides, inner_axes)
    return {
        "rows": math.prod(outer), "outer_extents": outer, "inner_extents": inner, "row_length": math.prod(inner),
        "x": x.address, "x_outer_strides": x_outer, "x_inner_strides": x_inner,
        "y": y.address, "y_outer_strides": y_outer, "y_inner_strides": y_inner,
    }  # fmt: skip


def _axis(attrs: Mapping[str, object], rank: int, default: int = -1) -> int:
    return int(attrs.get("axis", default)) % max(rank, 1)  # type: ignore[call-overload]


def _softmax(attrs, scalars, ins, outs) -> list[Values]:
    x = ins[0]
    axis = _axis(attrs, len(x.shape))
    values = _rows(x, outs[0], [axis])
    values["scale"] = float(attrs.get("scale", 1.0))  # type: ignore[arg-type]
    if len(ins) == 2:
        outer, inner = _split(broadcast_strides(ins[1], x.shape), [axis])
        values.update(bias=ins[1].address, bias_outer_strides=outer, bias_inner_strides=inner)
    return [values]


def _layer_norm(attrs, scalars, ins, outs) -> list[Values]:
    x = ins[0]
    axis = _axis(attrs, len(x.shape))
    inner = x.shape[axis:]
    values = _rows(x, outs[0], range(axis, len(x.shape)))
    values.update(scale=ins[1].address, scale_strides=broadcast_strides(ins[1], inner), epsilon=float(attrs.get("epsilon", 1e-5)))  # type: ignore[arg-type]
    if len(ins) == 3:
        values.update(bias=ins[2].address, bias_strides=broadcast_strides(ins[2], inner))
    return [values]


def _reduce(attrs, scalars, ins, outs) -> list[Values]:
    x, y = ins[0], outs[0]
    axes = sorted({int(a) % len(x.shape) for a in attrs.get("axes", ())} or range(len(x.shape)))  # type: ignore[union-attr]
    kept, reduced = _split(x.shape, axes)
    x_kept, x_reduced = _split(x.strides, axes)
    keepdims = bool(attrs.get("keepdims", True))
    y_strides = _split(y.strides, axes)[0] if keepdims else y.strides
    return [{
        "rows": math.prod(kept), "kept_extents": kept, "reduced_extents": reduced, "count": math.prod(reduced),
        "x": x.address, "x_kept_strides": x_kept, "x_reduced_strides": x_reduced, "y": y.address, "y_kept_strides": y_strides,
    }]  # fmt: skip


def copy_values(x: View, y: View, x_strides: Sequence[int] | None = None) -> Values:
    """`y[i] = x[i]` over y's extents; `x_strides` (default x's own) says where x[i] is."""
    strides = x.strides if x_strides is None else tuple(x_strides)
    return {"n": math.prod(y.shape), "extents": y.shape, "x": x.address, "x_strides": strides, "y": y.address, "y_strides": y.strides}


def _pieces(whole: View, parts: Sequence[View], axis: int) -> list[View]:
    """The windows of `whole` that `parts` cover, end to end along `axis`."""
    windows, start = [], 0
    for part in parts:
        index = [0] * len(whole.shape)
        index[axis] = start
        windows.append(replace(whole, address=whole.at(index), shape=part.shape))
        start += part.shape[axis]
    return windows


def _movement(op: str):
    def values(attrs, scalars, ins, outs) -> list[Values]:
        x, y = ins[0], outs[0]
        match op:
            case "transpose":
                perm = attrs.get("perm") or tuple(reversed(range(len(x.shape))))
                return [copy_values(x, y, [x.strides[p] for p in perm])]  # type: ignore[union-attr]
            case "expand":
                return [copy_values(x, y, broadcast_strides(x, y.shape))]
            case "trilu":
                return [{**copy_values(x, y), "k": int(scalars[0])}]
            case "slice":
                rank = len(x.shape)
                starts, steps = scalars[:rank], scalars[rank:]
                origin = replace(x, address=x.at([int(s) for s in starts]))
                return [copy_values(origin, y, [s * int(k) for s, k in zip(x.strides, steps)])]
            case "concat":
                axis = _axis(attrs, len(y.shape), 0)
                return [copy_values(part, window) for part, window in zip(ins, _pieces(y, ins, axis))]
            case "split":
                axis = _axis(attrs, len(x.shape), 0)
                return [copy_values(window, part) for part, window in zip(outs, _pieces(x, outs, axis))]
        return [copy_values(x, y)]  # a plain (reshape) copy

    return values


def _gather(attrs, scalars, ins, outs) -> list[Values]:
    data, indices = ins
    out = outs[0]
    return [{
        "n": math.prod(out.shape), "extents": out.shape, "data": data.address, "data_extents": data.shape,
        "data_strides": data.strides, "indices": indices.address, "indices_strides": indices.strides,
        "out": out.address, "out_strides": out.strides,
    }]  # fmt: skip


def _cumsum(attrs, scalars, ins, outs) -> list[Values]:
    x, y = ins[0], outs[0]
    axis = _axis(attrs, len(x.shape), 0)
    outer, (length,) = _split(x.shape, [axis])
    (x_outer, (x_stride,)), (y_outer, (y_stride,)) = _split(x.strides, [axis]), _split(y.strides, [axis])
    return [{
        "rows": math.prod(outer), "outer_extents": outer, "length": length, "x": x.address, "x_outer_strides": x_outer,
        "x_stride": x_stride, "y": y.address, "y_outer_strides": y_outer, "y_stride": y_stride,
    }]  # fmt: skip


def _generate(attrs, scalars, ins, outs) -> list[Values]:
    y = outs[0]
    values: Values = {"n": math.prod(y.shape), "extents": y.shape, "y": y.address, "y_strides": y.strides}
    if len(scalars) == 2:
        values.update(start=scalars[0], delta=scalars[1], y_stride=y.strides[0])
    else:
        values["value"] = scalars[0]
    return [values]


def _nonzero(attrs, scalars, ins, outs) -> list[Values]:
    x, (indices, count) = ins[0], outs
    return [{
        "n": math.prod(x.shape), "extents": x.shape, "x": x.address, "x_strides": x.strides,
        "indices": indices.address, "capacity": indices.strides[0] if len(x.shape) else 0, "count": count.address,
    }]  # fmt: skip


def _matrix(view: View, batch: Sequence[int], vector_is_row: bool) -> tuple[tuple[int, ...], int, int]:
    """(batch strides, row stride, column stride) of a matmul operand; a vector is
    promoted like NumPy does: a row (A) or a column (B)."""
    if len(view.shape) == 1:
        stride = view.strides[0]
        return ((0,) * len(batch), *((0, stride) if vector_is_row else (stride, 0)))  # type: ignore[return-value]
    lead = replace(view, shape=view.shape[:-2], strides=view.strides[:-2])
    return broadcast_strides(lead, batch), view.strides[-2], view.strides[-1]


def _matmul(attrs, scalars, ins, outs) -> list[Values]:
    """MatMul (batched, broadcast, rank-1 promotion) and Gemm (transposes, alpha, beta, C)."""
    a, b, c = ins[0], ins[1], outs[0]
    batch_rank = max(len(a.shape), len(b.shape), 2) - 2
    batch = c.shape[:batch_rank]
    a_batch, a_row, a_col = _matrix(a, batch, vector_is_row=True)
    b_batch, b_row, b_col = _matrix(b, batch, vector_is_row=False)
    a_rows, a_cols = (1, a.shape[0]) if len(a.shape) == 1 else a.shape[-2:]
    b_rows, b_cols = (b.shape[0], 1) if len(b.shape) == 1 else b.shape[-2:]
    m, k = (a_rows, a_cols)
    if attrs.get("trans_a"):
        (m, k), (a_row, a_col) = (a_cols, a_rows), (a_col, a_row)
    n = b_cols
    if attrs.get("trans_b"):
        n, (b_row, b_col) = b_rows, (b_col, b_row)
    # A vector operand's unit dim is dropped from the output: its stride is never used.
    tail = c.strides[batch_rank:]
    c_row = tail[0] if len(a.shape) > 1 else 0
    c_col = tail[-1] if len(b.shape) > 1 else 0
    values: Values = {
        "m": m, "n": n, "k": k, "batch_extents": batch, "alpha": float(attrs.get("alpha", 1.0)),  # type: ignore[arg-type]
        "a": a.address, "a_batch_strides": a_batch, "a_row_stride": a_row, "a_col_stride": a_col,
        "b": b.address, "b_batch_strides": b_batch, "b_row_stride": b_row, "b_col_stride": b_col,
        "c": c.address, "c_batch_strides": c.strides[:batch_rank], "c_row_stride": c_row, "c_col_stride": c_col,
    }  # fmt: skip
    if len(ins) == 3:
        bias_row, bias_col = broadcast_strides(ins[2], (m, n))
        values.update(bias=ins[2].address, bias_row_stride=bias_row, bias_col_stride=bias_col, beta=float(attrs.get("beta", 1.0)))  # type: ignore[arg-type]
    return [values]


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


def attention_query_rows(batch: int, sq: int, tiled: bool) -> int:
    """The query rows per block a launch uses (see ATTENTION_TILED_ROWS)."""
    if tiled and batch * math.ceil(sq / ATTENTION_QUERY_ROWS) < ATTENTION_FEW_TILES:
        return ATTENTION_TILED_ROWS[1]
    return ATTENTION_QUERY_ROWS


def permuted(view: View, perm: Sequence[int]) -> View:
    """`view` read as `transpose(view, perm)`: dim i is dim perm[i], no byte moves."""
    return replace(view, shape=tuple(view.shape[p] for p in perm), strides=tuple(view.strides[p] for p in perm))


def inverse(perm: Sequence[int]) -> tuple[int, ...]:
    """The perm that undoes `perm`: transpose(transpose(x, perm), inverse(perm)) is x."""
    undo = [0] * len(perm)
    for i, p in enumerate(perm):
        undo[p] = i
    return tuple(undo)


def _attention_views(attrs, ins: Sequence[View], outs: Sequence[View]) -> tuple[list[View], View]:
    """q, k, v (and the mask) and y as the kernel indexes them: each through its layout
    (hip.attention's q_perm, k_perm, v_perm; y is stored as transpose(result, y_perm))."""
    layouts = [attrs.get(name) for name in ("q_perm", "k_perm", "v_perm")]
    read = [view if perm is None else permuted(view, perm) for view, perm in zip(ins, [*layouts, None])]
    y_perm = attrs.get("y_perm")
    return read, outs[0] if y_perm is None else permuted(outs[0], inverse(y_perm))  # type: ignore[arg-type]


def _attention(attrs, scalars, ins, outs) -> list[Values]:
    """hip.attention: batch strides broadcast to y's batch dims (the mask's to the scores'),
    K's strides as (key, dim) whichever its layout, every operand through its layout perm."""
    (q, k, v, *mask), y = _attention_views(attrs, ins, outs)
    batch = y.shape[:-2]
    transposed = bool(attrs.get("k_transposed"))
    sq, sk = q.shape[-2], k.shape[-1] if transposed else k.shape[-2]
    values: Values = {"sq": sq, "sk": sk, "batch_extents": batch, "scale": float(attrs.get("scale", 1.0))}  # type: ignore[arg-type]
    for name, view, (row, col), swap in (("q", q, ("row", "col"), False), ("k", k, ("key", "dim"), transposed), ("v", v, ("key", "col"), False), ("y", y, ("row", "col"), False)):
        batch_strides, row_stride, col_stride = _matrix(view, batch, vector_is_row=True)
        if swap:
            row_stride, col_stride = col_stride, row_stride
        values.update({name: view.address, f"{name}_batch_strides": batch_strides, f"{name}_{row}_stride": row_stride, f"{name}_{col}_stride": col_stride})
    if mask:
        strides = broadcast_strides(mask[0], (*batch, sq, sk))
        values.update(mask=mask[0].address, mask_batch_strides=strides[:-2], mask_row_stride=strides[-2], mask_col_stride=strides[-1])
        values.update(kept_value=float(attrs.get("kept_value", 0.0)), masked_value=float(attrs.get("masked_value", -math.inf)))  # type: ignore[arg-type]
    # The tiled kernel comes in ATTENTION_TILED_ROWS forms: the one not chosen runs no tiles.
    tiled = attention_tiles_fit(np.dtype(y.dtype).itemsize, q.shape[-1], v.shape[-1])
    rows = attention_query_rows(math.prod(batch), sq, tiled)
    forms = ATTENTION_TILED_ROWS if tiled else (ATTENTION_QUERY_ROWS,)
    return [{**values, "q_tiles": math.ceil(sq / r), "tiles": math.prod(batch) * math.ceil(sq / r) if r == rows else 0} for r in forms]


_FAMILIES = {
    "elementwise": _elementwise,
    "reduce": _reduce,
    "gather": _gather,
    "gather_elements": _gather,
    "gather_nd": _gather,
    "cumsum": _cumsum,
    "generate": _generate,
    "nonzero": _nonzero,
    "matmul": _matmul,
    "attention": _attention,
}


def launch_values(
    template: str, op: str, attributes: Mapping[str, object], scalars: Sequence[int | float], ins: Sequence[View], outs: Sequence[View]
) -> list[Values]:
    """The argument values of each kernel launch that runs `hip.<op>` (whose class names
    `template`), see the module doc. Plain strings, so a GPU script needs no IR."""
    if template == "copy":
        return _movement(op)(attributes, scalars, ins, outs)
    if template == "row":
        return (_softmax if op == "softmax" else _layer_norm)(attributes, scalars, ins, outs)
    return _FAMILIES[template](attributes, scalars, ins, outs)
