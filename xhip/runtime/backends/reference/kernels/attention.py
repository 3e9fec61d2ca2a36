"""The reference kernel of `hip.attention`: the unfused ops it replaced, in order, in the
compute dtype (float32 for f32 and half floats), so a fused model computes what the
unfused one did up to the order of additions.

    s = scale * (q @ kᵀ) (+ mask | + where(keep, kept_value, masked_value));  p = softmax(s);
    (p = where(isnan(p), 0, p));  y = p @ v

q, k and v are read through their layouts (`transpose(x, q_perm)`, ...) and y is stored
as `transpose(y, y_perm)`: NumPy views, as the kernel's strides are.

It materializes the scores on the host: it is the reference, not the memory plan (the
pool never holds them either way)."""

from __future__ import annotations

import numpy as np

from xhip.runtime.backends.reference.kernels.base import Elements, KernelCall, compute_dtype, register, shape_text


def _scores(call: KernelCall, q: np.ndarray, k: np.ndarray) -> np.ndarray:
    k_t = k if call.attr("k_transposed", False) else np.swapaxes(k, -1, -2)
    if q.shape[-1] != k_t.shape[-2]:
        raise call.error(f"q {shape_text(q.shape)} and k {shape_text(k.shape)} differ in the head dim")
    scale = compute_dtype(call.out.dtype).type(call.attr("scale", 1.0))
    return np.matmul(q, k_t) * scale


def _masked(call: KernelCall, scores: np.ndarray) -> np.ndarray:
    kind = call.attr("mask_kind", "none")
    if kind == "none":
        return scores
    mask = call.inputs[3]
    call.require_broadcast(mask.shape, scores.shape, "the mask")
    if kind == "keep":
        kept, masked = (scores.dtype.type(call.attr(key, default)) for key, default in (("kept_value", 0.0), ("masked_value", -np.inf)))
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


@register("attention", inputs=(3, 4), elements=Elements.FLOAT)
def attention(call: KernelCall) -> None:
    dtype = compute_dtype(call.out.dtype)
    perms = [call.attr(name, None) for name in ("q_perm", "k_perm", "v_perm")]
    # Contiguous copies: NumPy's matmul over transposed strides is several times slower.
    q, k, v = (np.ascontiguousarray(_through(x, p), dtype) for x, p in zip(call.inputs, perms))
    if (len(call.inputs) == 4) != (call.attr("mask_kind", "none") != "none"):
        raise call.error(f"mask_kind {call.attr('mask_kind', 'none')} with {len(call.inputs)} inputs")
    probs = _softmax(_masked(call, _scores(call, q, k)))
    if call.attr("zero_nan_rows", False):
        probs = np.where(np.isnan(probs), dtype.type(0), probs)
    call.store(call.out, _through(np.matmul(probs, v), call.attr("y_perm", None)))
