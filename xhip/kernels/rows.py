"""The row family (templates/row.hip.j2): softmax and layer norm, one block per row.

Softmax rows are the last dim (a scale, an optional additive bias broadcast to x, and
`zero_nan` folded in by hip-fuse-softmax); layer norm normalizes dims [axis, rank) with a
scale and an optional bias broadcast to them. Each kernel writes its row over its input
when they alias (the in-place contract of MAY_ALIAS_INPUT).

Reference: in the compute dtype (half floats in float32), rounded once into the output.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from xhip.dialects import hip
from xhip.kernels.abi import KernelABI, Launch, Param, dims, pointer, value
from xhip.kernels.family import OpFacts, Site, Values, ViewLike, axes_pickers, broadcast_strides
from xhip.kernels.reference import Elements, KernelCall, compute_operands, compute_scalar, register, row_tiles, shape_text
from xhip.kernels.spec_types import KernelSpec, Operand, ctype, header_needs, kernel_name, row_params

TEMPLATES = ("row",)

SOFTMAX_CACHED = 8
"""Elements of a softmax row each thread keeps in registers: a row of up to this many
times the block (2048 at 256 threads) is read from memory once, not three times."""

LAYER_NORM_CACHED_VECTORS = 4
"""16-byte vectors of a layer-norm row each thread keeps in registers where the row is
contiguous (normalized over one dim): a row of up to this many times the block (8192
halves or 4096 floats at 256 threads) is read once, in vectors, not three times element
by element."""


# ---- kernels ------------------------------------------------------------------------------


def _rows_spec(
    op: str, x: Operand, outer: int, inner: int, extra: Sequence[Param] = (), flags: Mapping[str, object] = {}, *, alias: bool
) -> KernelSpec:
    c = ctype(x.dtype)
    params = [*row_params("outer", "inner", outer, inner, "row_length", c, y_folded=True), *extra]
    tags = "".join(f"_{k}" for k, v in flags.items() if v is True)
    name = kernel_name("row", op, c.short, f"o{outer}", f"i{inner}") + tags
    abi = KernelABI(name, tuple(params), Launch.ROWS, count="rows", may_alias_input=alias)
    context = (("op", op), ("outer", outer), ("inner", inner), ("c", c.c), ("compute", c.compute), *flags.items())
    return KernelSpec("row", abi, tuple(context), header_needs(x.dtype))


def softmax_spec(facts: OpFacts) -> KernelSpec:
    ins, x = facts.inputs, facts.inputs[0]
    rank = x.rank
    extra = [value("scale", ctype(x.dtype).compute)]
    has_bias = len(ins) == 2
    if has_bias:
        extra += [pointer("bias", ctype(x.dtype).c), dims("bias_outer_strides", rank - 1), dims("bias_inner_strides", 1)]
    # The row may be contiguous at run time (the kernel checks): then vectors.
    flags = {"bias": has_bias, "zero_nan": bool(facts.props.zero_nan), "cache": SOFTMAX_CACHED, "vec": 16 // x.dtype.itemsize}
    return _rows_spec("softmax", x, rank - 1, 1, extra, flags, alias=facts.op_class.MAY_ALIAS_INPUT)


def layer_norm_spec(facts: OpFacts) -> KernelSpec:
    ins, x = facts.inputs, facts.inputs[0]
    axis = int(facts.props.axis) % max(x.rank, 1)
    compute, inner = ctype(x.dtype).compute, x.rank - axis
    extra = [pointer("scale", ctype(x.dtype).c), dims("scale_strides", inner)]
    has_bias = len(ins) == 3
    if has_bias:
        extra += [pointer("bias", ctype(x.dtype).c), dims("bias_strides", inner)]
    extra.append(value("epsilon", compute))
    # One normalized dim may be contiguous at run time (the kernel checks): then vectors.
    vec = 16 // x.dtype.itemsize if inner == 1 else 1
    flags = {"bias": has_bias, "vec": vec, "cache": LAYER_NORM_CACHED_VECTORS}
    return _rows_spec("layer_norm", x, axis, inner, extra, flags, alias=facts.op_class.MAY_ALIAS_INPUT)


def site(facts: OpFacts) -> Site:
    props, rank = facts.props, facts.inputs[0].rank
    if facts.op_class is hip.SoftmaxOp:
        scale, axis = float(props.scale), int(props.axis) % max(rank, 1)
        rows, bias_split = _rows([axis], rank), axes_pickers(rank, [axis])

        def softmax_values(ins: Sequence[ViewLike], outs: Sequence[ViewLike], scalars: Sequence[int | float]) -> list[Values]:
            x = ins[0]
            values = rows(x, outs[0])
            values["scale"] = scale
            if len(ins) == 2:
                strides = broadcast_strides(ins[1], x.shape)
                values.update(bias=ins[1].address, bias_outer_strides=bias_split[0](strides), bias_inner_strides=bias_split[1](strides))
            return [values]

        return Site(facts, ((softmax_spec(facts),),), softmax_values)
    epsilon, axis = float(props.epsilon), int(props.axis) % max(rank, 1)
    rows = _rows(range(axis, rank), rank)

    def layer_norm_values(ins: Sequence[ViewLike], outs: Sequence[ViewLike], scalars: Sequence[int | float]) -> list[Values]:
        x = ins[0]
        inner = x.shape[axis:]
        values = rows(x, outs[0])
        values.update(scale=ins[1].address, scale_strides=broadcast_strides(ins[1], inner), epsilon=epsilon)
        if len(ins) == 3:
            values.update(bias=ins[2].address, bias_strides=broadcast_strides(ins[2], inner))
        return [values]

    return Site(facts, ((layer_norm_spec(facts),),), layer_norm_values)


def _rows(inner_axes: Sequence[int], rank: int) -> Callable[[ViewLike, ViewLike], Values]:
    """The values every row kernel takes: rows, their extents and both operands' strides,
    split into the dims that pick a row and the `inner_axes` that make one."""
    outer, inner = axes_pickers(rank, inner_axes)

    def rows(x: ViewLike, y: ViewLike) -> Values:
        outer_extents, inner_extents = outer(x.shape), inner(x.shape)
        return {
            "rows": math.prod(outer_extents), "outer_extents": outer_extents, "inner_extents": inner_extents,
            "row_length": math.prod(inner_extents),
            "x": x.address, "x_outer_strides": outer(x.strides), "x_inner_strides": inner(x.strides),
            "y": y.address, "y_outer_strides": outer(y.strides), "y_inner_strides": inner(y.strides),
        }  # fmt: skip

    return rows


# ---- reference ----------------------------------------------------------------------------


@register(hip.SoftmaxOp, inputs=(1, 2), elements=Elements.FLOAT)
def softmax(call: KernelCall) -> None:
    """exp(l - max) / sum along `axis` of the logits l = scale * x (+ bias), the max
    subtracted so that nothing overflows; with `zero_nan`, 0 where that is NaN. Computed
    over tiles of a dim other than `axis` (`row_tiles`): the temporaries of one tile at a time."""
    x, *bias = compute_operands(call, call.inputs)
    axis = call.axis(x.ndim)
    if x.shape != call.out.shape:
        raise call.error(f"result of shape {shape_text(x.shape)} does not match the output shape {shape_text(call.out.shape)}")
    if x.size == 0:  # np.max has no identity to reduce an empty axis with
        return
    scale = compute_scalar(call, call.props.scale)
    if bias:
        call.require_broadcast(bias[0].shape, x.shape, "bias")
        bias = [bias[0].reshape((1,) * (x.ndim - bias[0].ndim) + bias[0].shape)]
    tiled = next((d for d in range(x.ndim) if d != axis and x.shape[d] > 1), None)
    tiles = [slice(None)] if tiled is None else row_tiles(x.shape[tiled], x.nbytes // x.shape[tiled])
    for rows in tiles:
        index = (slice(None),) * (tiled or 0) + (rows,)
        logits = x[index] * scale if scale != 1 else x[index]
        if bias:
            logits = logits + (bias[0][index] if bias[0].shape[tiled or 0] != 1 else bias[0])
        shifted = np.exp(logits - np.max(logits, axis=axis, keepdims=True))
        result = shifted / np.sum(shifted, axis=axis, keepdims=True)
        if call.props.zero_nan:
            result = np.where(np.isnan(result), result.dtype.type(0), result)
        np.copyto(call.out[index], result, casting="unsafe")


@register(hip.LayerNormOp, inputs=(2, 3), elements=Elements.FLOAT)
def layer_norm(call: KernelCall) -> None:
    """(x - mean) / sqrt(var + epsilon) * scale + bias over dims [axis, rank)."""
    x, scale, *bias = compute_operands(call, call.inputs)
    axis = call.axis(x.ndim)
    normalized = x.shape[axis:]
    for what, param in (("scale", scale), *(("bias", p) for p in bias)):
        call.require_broadcast(param.shape, normalized, what)
    if x.size == 0:  # nothing to normalize (and no mean of an empty axis to take)
        call.store(call.out, x)
        return
    dims_ = tuple(range(axis, x.ndim))
    centered = x - np.mean(x, axis=dims_, keepdims=True)
    variance = np.mean(centered * centered, axis=dims_, keepdims=True)
    result = centered / np.sqrt(variance + compute_scalar(call, call.props.epsilon)) * scale
    call.store(call.out, result + bias[0] if bias else result)
