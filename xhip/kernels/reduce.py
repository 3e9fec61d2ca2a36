"""The reduction family (templates/reduce.hip.j2): ReduceSum, ReduceMean, ReduceMax,
ReduceMin, ReduceProd, ReduceL1, ReduceL2, ReduceSumSquare, ReduceLogSumExp over any set of axes, one block
per kept element; and ArgMax / ArgMin along one axis (templates/argreduce.hip.j2).

What each op combines comes from its class (REDUCE_MAP, REDUCE_COMBINE, REDUCE_IDENTITY,
REDUCE_FINISH in xhip/dialects/hip/linalg.py). Reference: NumPy in the compute dtype,
empty reductions and integer means as onnxruntime has them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from xhip.dialects import hip
from xhip.kernels.abi import KernelABI, Launch, dims, index, pointer
from xhip.kernels.family import OpFacts, Site, Values, ViewLike, split_axes
from xhip.kernels.reference import INT_DTYPES, Elements, KernelCall, compute_dtype, compute_operands, highest, lowest, register, truncating_divide
from xhip.kernels.spec_types import KernelSpec, ctype, header_needs, kernel_name, row_params

TEMPLATES = ("reduce", "argreduce")

ARG_BLOCK = 256
"""Threads per block of the ArgMax / ArgMin kernel (a power of 2: its tree in shared memory)."""


def reduce_spec(facts: OpFacts) -> KernelSpec:
    x, op_class = facts.inputs[0], facts.op_class
    axes = [int(a) % x.rank for a in facts.props.axes] or list(range(x.rank))
    kept, reduced = x.rank - len(set(axes)), len(set(axes))
    c, op = ctype(x.dtype), op_class.name.removeprefix("hip.")
    named = {"lowest": "xhip_lowest<ACC>()", "highest": "xhip_highest<ACC>()"}
    identity = named.get(op_class.REDUCE_IDENTITY, f"(ACC){op_class.REDUCE_IDENTITY}")
    params = tuple(row_params("kept", "reduced", kept, reduced, "count", c, y_folded=False))
    abi = KernelABI(kernel_name("reduce", op.removeprefix("reduce_"), c.short, f"k{kept}", f"r{reduced}"), params, Launch.ROWS, count="rows")
    context = (
        ("kept", kept),
        ("reduced", reduced),
        ("c", c.c),
        ("compute", c.compute),
        ("map", op_class.REDUCE_MAP),
        ("combine", op_class.REDUCE_COMBINE),
        ("identity", identity),
        ("finish", op_class.REDUCE_FINISH),
    )
    return KernelSpec("reduce", abi, context, header_needs(x.dtype))


def arg_reduce_spec(facts: OpFacts) -> KernelSpec:
    """templates/argreduce.hip.j2: the int64 index of the extreme along one axis."""
    x, op_class = facts.inputs[0], facts.op_class
    kept = x.rank - 1
    c, last = ctype(x.dtype), bool(facts.props.select_last_index)
    params = (
        index("rows"), dims("kept_extents", kept), index("count"),
        pointer("x", c.c), dims("x_kept_strides", kept), index("x_axis_stride"),
        pointer("y", "long long", const=False), dims("y_kept_strides", kept),
    )  # fmt: skip
    name = kernel_name("argreduce", op_class.name.removeprefix("hip.arg_"), c.short, f"k{kept}", "last" if last else "")
    abi = KernelABI(name, params, Launch.ROWS, count="rows", block=ARG_BLOCK)
    context = (("kept", kept), ("c", c.c), ("compute", c.compute), ("better", op_class.ARG_BETTER), ("last", last))
    return KernelSpec("argreduce", abi, context, header_needs(x.dtype))


def _arg_site(facts: OpFacts) -> Site:
    keepdims = bool(facts.props.keepdims)

    def values(ins: Sequence[ViewLike], outs: Sequence[ViewLike], scalars: Sequence[int | float]) -> list[Values]:
        x, y = ins[0], outs[0]
        axis = int(facts.props.axes[0]) % len(x.shape)
        (kept, (count,)), (x_kept, (x_axis,)) = split_axes(x.shape, [axis]), split_axes(x.strides, [axis])
        y_strides = split_axes(y.strides, [axis])[0] if keepdims else y.strides
        return [{
            "rows": math.prod(kept), "kept_extents": kept, "count": count,
            "x": x.address, "x_kept_strides": x_kept, "x_axis_stride": x_axis, "y": y.address, "y_kept_strides": y_strides,
        }]  # fmt: skip

    return Site(facts, ((arg_reduce_spec(facts),),), values)


def site(facts: OpFacts) -> Site:
    if facts.op_class.TEMPLATE == "argreduce":
        return _arg_site(facts)
    props = facts.props
    keepdims = bool(props.keepdims)

    def values(ins: Sequence[ViewLike], outs: Sequence[ViewLike], scalars: Sequence[int | float]) -> list[Values]:
        x, y = ins[0], outs[0]
        axes = sorted({int(a) % len(x.shape) for a in props.axes} or range(len(x.shape)))
        kept, reduced = split_axes(x.shape, axes)
        x_kept, x_reduced = split_axes(x.strides, axes)
        y_strides = split_axes(y.strides, axes)[0] if keepdims else y.strides
        return [{
            "rows": math.prod(kept), "kept_extents": kept, "reduced_extents": reduced, "count": math.prod(reduced),
            "x": x.address, "x_kept_strides": x_kept, "x_reduced_strides": x_reduced, "y": y.address, "y_kept_strides": y_strides,
        }]  # fmt: skip

    return Site(facts, ((reduce_spec(facts),),), values)


# ---- reference ----------------------------------------------------------------------------


def _mean(x: np.ndarray, axes: tuple[int, ...], keepdims: bool) -> np.ndarray:
    """Sum over count in x's dtype: integers divide truncating toward zero, and an empty
    reduction gives 0, both like onnxruntime (the ONNX spec leaves 0/0 open)."""
    total = np.sum(x, axis=axes, keepdims=keepdims, dtype=x.dtype)
    count = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    if count == 0:
        return np.zeros_like(total)
    if x.dtype in INT_DTYPES:
        return truncating_divide(total, count)
    return total / x.dtype.type(count)


def _sum(x: np.ndarray, axes: tuple[int, ...], keepdims: bool) -> np.ndarray:
    # dtype=x.dtype: NumPy would widen int32 sums to int64; the device wraps in int32.
    return np.sum(x, axis=axes, keepdims=keepdims, dtype=x.dtype)


def _max(x: np.ndarray, axes: tuple[int, ...], keepdims: bool) -> np.ndarray:
    # `initial`: an empty reduction gives -inf (floats) or the minimum (integers), as in ONNX.
    return np.max(x, axis=axes, keepdims=keepdims, initial=lowest(x.dtype))


def _min(x: np.ndarray, axes: tuple[int, ...], keepdims: bool) -> np.ndarray:
    # An empty reduction gives +inf (floats) or the maximum (integers), as in ONNX.
    return np.min(x, axis=axes, keepdims=keepdims, initial=highest(x.dtype))


def _prod(x: np.ndarray, axes: tuple[int, ...], keepdims: bool) -> np.ndarray:
    return np.prod(x, axis=axes, keepdims=keepdims, dtype=x.dtype)


def _l1(x: np.ndarray, axes: tuple[int, ...], keepdims: bool) -> np.ndarray:
    return np.sum(np.abs(x), axis=axes, keepdims=keepdims, dtype=x.dtype)


def _sum_square(x: np.ndarray, axes: tuple[int, ...], keepdims: bool) -> np.ndarray:
    return np.sum(x * x, axis=axes, keepdims=keepdims, dtype=x.dtype)


def _l2(x: np.ndarray, axes: tuple[int, ...], keepdims: bool) -> np.ndarray:
    return np.sqrt(_sum_square(x, axes, keepdims))


def _log_sum_exp(x: np.ndarray, axes: tuple[int, ...], keepdims: bool) -> np.ndarray:
    """max + log(sum(exp(x - max))): no overflow; an empty or all -inf reduction is -inf."""
    top = np.max(x, axis=axes, keepdims=True, initial=-np.inf)
    shift = np.where(np.isfinite(top), top, x.dtype.type(0))
    with np.errstate(divide="ignore"):
        result = np.log(np.sum(np.exp(x - shift), axis=axes, keepdims=True)) + shift
    return result if keepdims else np.squeeze(result, axis=axes)


Reduction = Callable[[np.ndarray, tuple[int, ...], bool], np.ndarray]


def _reduce_kernel(reduction: Reduction) -> Callable[[KernelCall], None]:
    def compute(call: KernelCall) -> None:
        (x,) = compute_operands(call, call.inputs)
        axes = [call.normalize_axis(int(a), x.ndim) for a in call.props.axes]
        if len(set(axes)) != len(axes):
            raise call.error(f"axes {list(call.props.axes)} repeat an axis")
        reduced = tuple(sorted(axes)) if axes else tuple(range(x.ndim))
        call.store(call.out, reduction(x, reduced, bool(call.props.keepdims)))

    return compute


REDUCTIONS: tuple[tuple[type[hip.ReduceOp], Reduction], ...] = (
    (hip.ReduceMeanOp, _mean), (hip.ReduceSumOp, _sum), (hip.ReduceMaxOp, _max), (hip.ReduceMinOp, _min),
    (hip.ReduceProdOp, _prod), (hip.ReduceL1Op, _l1), (hip.ReduceL2Op, _l2), (hip.ReduceSumSquareOp, _sum_square),
    (hip.ReduceLogSumExpOp, _log_sum_exp),
)  # fmt: skip
"""Each reduction op and its NumPy form."""
for _op_class, _reduction in REDUCTIONS:
    register(_op_class, elements=Elements[_op_class.ELEMENT.name])(_reduce_kernel(_reduction))


@register(hip.ArgMaxOp, hip.ArgMinOp, elements=Elements.NUMERIC)
def arg_reduce(call: KernelCall) -> None:
    """numpy.argmax / argmin (NaN the extreme, the first of equals), from the end with
    `select_last_index`; int64."""
    x = call.inputs[0].astype(compute_dtype(call.inputs[0].dtype), copy=False)
    axis = call.normalize_axis(int(call.props.axes[0]), x.ndim)
    if x.shape[axis] == 0:
        raise call.error(f"cannot take the {call.name.removeprefix('arg_')} over an empty axis {axis}")
    pick = np.argmax if call.name == "arg_max" else np.argmin
    if call.props.select_last_index:
        found = x.shape[axis] - 1 - pick(np.flip(x, axis), axis=axis)
    else:
        found = pick(x, axis=axis)
    if call.props.keepdims:
        found = np.expand_dims(found, axis)
    call.store(call.out, found.astype(np.int64))
