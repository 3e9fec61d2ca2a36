"""Linear algebra, normalization and reduction kernels.

All of them compute in the compute dtype of their data (half floats in float32, like
onnxruntime's CPU kernels) and round once into the output."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from xhip.runtime.backends.reference.kernels.base import (
    INT_DTYPES,
    Elements,
    KernelCall,
    compute_dtype,
    lowest,
    register,
    shape_text,
    truncating_divide,
)


def _operands(call: KernelCall, arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
    """`arrays` (all of the output's dtype) in the compute dtype."""
    dtype = compute_dtype(call.out.dtype)
    for i, array in enumerate(arrays):
        call.require_dtype(array, call.out.dtype, f"operand #{i}")
    return [array.astype(dtype, copy=False) for array in arrays]


def _scalar(call: KernelCall, key: str, default: float) -> np.generic:
    """A float attribute as a scalar of the compute dtype, so it does not widen the math."""
    return compute_dtype(call.out.dtype).type(call.attr(key, default))


@register("matmul", inputs=(2, 2), elements=Elements.NUMERIC)
def matmul(call: KernelCall) -> None:
    """NumPy matmul: rank-1 operands are promoted and batch dims broadcast; `trans_b`
    reads B with its last two dims swapped."""
    a, b = _operands(call, call.inputs)
    if a.ndim < 1 or b.ndim < 1:
        raise call.error(
            f"operands must have rank >= 1, got {shape_text(a.shape)} and {shape_text(b.shape)}"
        )
    if call.attr("trans_b", False):
        if b.ndim < 2:
            raise call.error(f"a transposed B must have rank >= 2, got {shape_text(b.shape)}")
        b = np.swapaxes(b, -1, -2)
    try:
        product = np.matmul(a, b)
    except ValueError:
        raise call.error(
            f"cannot multiply {shape_text(a.shape)} by {shape_text(b.shape)}"
        ) from None
    call.store(call.out, product)


@register("gemm", inputs=(2, 3), elements=Elements.NUMERIC)
def gemm(call: KernelCall) -> None:
    """`alpha * op(A) @ op(B) + beta * C`, C broadcast to [M, N]."""
    a, b, *c = _operands(call, call.inputs)
    if a.ndim != 2 or b.ndim != 2:
        raise call.error(
            f"A and B must be matrices, got {shape_text(a.shape)} and {shape_text(b.shape)}"
        )
    a = a.T if call.attr("trans_a", False) else a
    b = b.T if call.attr("trans_b", False) else b
    if a.shape[1] != b.shape[0]:
        raise call.error(
            f"cannot multiply op(A) {shape_text(a.shape)} by op(B) {shape_text(b.shape)}"
        )
    result = _scalar(call, "alpha", 1.0) * (a @ b)
    beta = _scalar(call, "beta", 1.0)
    # ONNX: C does not take part when beta is 0 (so a nan in it does not leak through).
    if c and beta != 0:
        call.require_broadcast(c[0].shape, result.shape, "C")
        result = result + beta * c[0]
    call.store(call.out, result)


@register("softmax", inputs=(1, 2), elements=Elements.FLOAT)
def softmax(call: KernelCall) -> None:
    """exp(l - max) / sum along `axis` of the logits l = scale * x (+ bias), the max
    subtracted so that nothing overflows; with `zero_nan`, 0 where that is NaN."""
    x, *bias = _operands(call, call.inputs)
    axis = call.axis(x.ndim, default=-1)
    if x.size == 0:  # np.max has no identity to reduce an empty axis with
        call.store(call.out, x)
        return
    scale = _scalar(call, "scale", 1.0)
    if scale != 1:
        x = x * scale
    if bias:
        call.require_broadcast(bias[0].shape, x.shape, "bias")
        x = x + bias[0]
    shifted = np.exp(x - np.max(x, axis=axis, keepdims=True))
    result = shifted / np.sum(shifted, axis=axis, keepdims=True)
    if call.attr("zero_nan", False):
        result = np.where(np.isnan(result), result.dtype.type(0), result)
    call.store(call.out, result)


@register("layer_norm", inputs=(2, 3), elements=Elements.FLOAT)
def layer_norm(call: KernelCall) -> None:
    """(x - mean) / sqrt(var + epsilon) * scale + bias over dims [axis, rank)."""
    x, scale, *bias = _operands(call, call.inputs)
    axis = call.axis(x.ndim, default=-1)
    normalized = x.shape[axis:]
    for what, param in (("scale", scale), *(("bias", p) for p in bias)):
        call.require_broadcast(param.shape, normalized, what)
    if x.size == 0:  # nothing to normalize (and no mean of an empty axis to take)
        call.store(call.out, x)
        return
    dims = tuple(range(axis, x.ndim))
    centered = x - np.mean(x, axis=dims, keepdims=True)
    variance = np.mean(centered * centered, axis=dims, keepdims=True)
    result = centered / np.sqrt(variance + _scalar(call, "epsilon", 1e-5)) * scale
    call.store(call.out, result + bias[0] if bias else result)


# ---- reductions ---------------------------------------------------------------------------


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


Reduction = Callable[[np.ndarray, tuple[int, ...], bool], np.ndarray]


def _reduce_kernel(reduction: Reduction) -> Callable[[KernelCall], None]:
    def compute(call: KernelCall) -> None:
        (x,) = _operands(call, call.inputs)
        axes = [call.normalize_axis(int(a), x.ndim) for a in call.attr("axes", ())]
        if len(set(axes)) != len(axes):
            raise call.error(f"axes {list(call.attr('axes', ()))} repeat an axis")
        reduced = tuple(sorted(axes)) if axes else tuple(range(x.ndim))
        call.store(call.out, reduction(x, reduced, bool(call.attr("keepdims", True))))

    return compute


_REDUCTIONS: dict[str, Reduction] = {"reduce_mean": _mean, "reduce_sum": _sum, "reduce_max": _max}

for _name, _reduction in _REDUCTIONS.items():
    register(_name, elements=Elements.NUMERIC)(_reduce_kernel(_reduction))


# ---- scans ----------------------------------------------------------------------------------


@register("cumsum", elements=Elements.NUMERIC)
def cumsum(call: KernelCall) -> None:
    """Running sums along `axis`; `exclusive` shifts them by one element (the first is 0)
    and `reverse` runs them from the end, in x's dtype like onnxruntime."""
    (x,) = _operands(call, call.inputs)
    axis = call.axis(x.ndim)
    reverse, exclusive = bool(call.attr("reverse", False)), bool(call.attr("exclusive", False))
    ordered = np.flip(x, axis) if reverse else x
    sums = np.cumsum(ordered, axis=axis, dtype=ordered.dtype)
    if exclusive:
        # Element i takes the sum of the elements before it: shift by one, 0 first.
        before = np.zeros_like(sums)
        lead = [slice(None)] * x.ndim
        lead[axis] = slice(1, None)
        trail = [slice(None)] * x.ndim
        trail[axis] = slice(None, -1)
        before[tuple(lead)] = sums[tuple(trail)]
        sums = before
    call.store(call.out, np.flip(sums, axis) if reverse else sums)
