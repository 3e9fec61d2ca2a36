"""Data movement and generator kernels: elements move (or are made), never change.

Out-of-range gather indices are the user's data, not the compiler's, so they get an
error naming the index instead of whatever a GPU would read."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from xhip.runtime.backends.reference.kernels.base import (
    Elements,
    KernelCall,
    compute_dtype,
    register,
    shape_text,
)


def _same_dtype(call: KernelCall, arrays: Sequence[np.ndarray], what: str) -> None:
    for i, array in enumerate(arrays):
        call.require_dtype(array, call.out.dtype, f"{what} #{i}")


@register("transpose")
def transpose(call: KernelCall) -> None:
    x = call.inputs[0]
    _same_dtype(call, [x], "input")
    perm = [int(p) for p in call.attr("perm", tuple(reversed(range(x.ndim))))]
    if sorted(perm) != list(range(x.ndim)):
        raise call.error(f"perm {perm} is not a permutation of the input rank {x.ndim}")
    call.store(call.out, np.transpose(x, perm))


def _pieces(
    call: KernelCall, whole: np.ndarray, parts: Sequence[np.ndarray]
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """(part, the view of `whole` it covers) for parts laid end to end along `axis`."""
    axis = call.axis(whole.ndim)
    extents = [part.shape[axis] if part.ndim == whole.ndim else -1 for part in parts]
    rest = whole.shape[:axis] + whole.shape[axis + 1 :]
    for i, part in enumerate(parts):
        if part.ndim != whole.ndim or part.shape[:axis] + part.shape[axis + 1 :] != rest:
            raise call.error(
                f"part #{i} of shape {shape_text(part.shape)} does not fit "
                f"{shape_text(whole.shape)} along axis {axis}"
            )
    if sum(extents) != whole.shape[axis]:
        raise call.error(
            f"parts of extents {extents} along axis {axis} do not add up to {whole.shape[axis]}"
        )
    start = 0
    for part, extent in zip(parts, extents):
        window = (slice(None),) * axis + (slice(start, start + extent),)
        yield part, whole[window]
        start += extent


@register("concat", inputs=(1, None))
def concat(call: KernelCall) -> None:
    _same_dtype(call, call.inputs, "input")
    for part, window in _pieces(call, call.out, call.inputs):
        window[...] = part


@register("split", outputs=(1, None))
def split(call: KernelCall) -> None:
    """The outputs' extents along `axis` are the split sizes."""
    x = call.inputs[0]
    _same_dtype(call, [x, *call.outputs], "operand")
    for part, window in _pieces(call, x, call.outputs):
        part[...] = window


@register("slice", scalars=(0, None))
def slice_(call: KernelCall) -> None:
    """`y[i] = x[start + i * step]` per dim: scalars are every start, then every step."""
    x = call.inputs[0]
    _same_dtype(call, [x], "input")
    if len(call.scalars) != 2 * x.ndim:
        raise call.error(
            f"expected {2 * x.ndim} scalars (a start and a step per dim), got {len(call.scalars)}"
        )
    if call.out.ndim != x.ndim:
        raise call.error(f"output rank {call.out.ndim} differs from the input rank {x.ndim}")
    starts, steps = call.scalars[: x.ndim], call.scalars[x.ndim :]
    window = tuple(
        _window(call, dim, int(start), int(step), extent, extent_in)
        for dim, (start, step, extent, extent_in) in enumerate(
            zip(starts, steps, call.out.shape, x.shape)
        )
    )
    call.store(call.out, x[window])


def _window(call: KernelCall, dim: int, start: int, step: int, extent: int, size: int) -> slice:
    """The Python slice reading `extent` elements from `start` by `step` in a dim of `size`."""
    if extent == 0:
        return slice(0, 0)
    last = start + (extent - 1) * step
    if step == 0 or not (0 <= start < size and 0 <= last < size):
        raise call.error(
            f"dim {dim}: {extent} elements from {start} by step {step} leave [0, {size})"
        )
    stop = last + (1 if step > 0 else -1)
    # A backward slice that ends at index 0 must stop at None, not at -1 (the last element).
    return slice(start, stop if stop >= 0 else None, step)


def _check_indices(call: KernelCall, indices: np.ndarray, extent: int, what: str) -> np.ndarray:
    """`indices` with negative entries counted from the end; all must be in [-extent, extent)."""
    bad = (indices < -extent) | (indices >= extent)
    if np.any(bad):
        index = int(indices[bad].flat[0])
        raise call.error(f"index {index} is out of range for {what} of extent {extent}")
    return np.where(indices < 0, indices + extent, indices)


@register("gather", inputs=(2, 2))
def gather(call: KernelCall) -> None:
    """ONNX Gather: `indices` select slices of `data` along `axis`."""
    data, indices = call.inputs
    _same_dtype(call, [data], "data")
    call.require_elements(indices, Elements.INDICES, "indices")
    axis = call.axis(data.ndim)
    picked = _check_indices(call, indices, data.shape[axis], f"axis {axis}")
    call.store(call.out, np.take(data, picked, axis=axis))


@register("gather_elements", inputs=(2, 2))
def gather_elements(call: KernelCall) -> None:
    """ONNX GatherElements: each output element takes the data element at its own
    coordinates with the `axis` one replaced by its index."""
    data, indices = call.inputs
    _same_dtype(call, [data], "data")
    call.require_elements(indices, Elements.INDICES, "indices")
    if indices.ndim != data.ndim:
        raise call.error(f"indices {shape_text(indices.shape)} and data {shape_text(data.shape)} differ in rank")
    axis = call.axis(data.ndim)
    # Outside `axis` an index tensor may be smaller than the data, never larger.
    if any(i > d for k, (i, d) in enumerate(zip(indices.shape, data.shape)) if k != axis):
        raise call.error(
            f"indices of shape {shape_text(indices.shape)} reach past data of shape {shape_text(data.shape)}"
        )
    picked = _check_indices(call, indices, data.shape[axis], f"axis {axis}")
    window = tuple(slice(0, i) if k != axis else slice(None) for k, i in enumerate(indices.shape))
    call.store(call.out, np.take_along_axis(data[window], picked, axis=axis))


@register("gather_nd", inputs=(2, 2))
def gather_nd(call: KernelCall) -> None:
    """ONNX GatherND: the last dim of `indices` addresses dims batch_dims.. of `data`."""
    data, indices = call.inputs
    _same_dtype(call, [data], "data")
    call.require_elements(indices, Elements.INDICES, "indices")
    batch = int(call.attr("batch_dims", 0))
    if indices.ndim < 1 or not 0 <= batch < min(data.ndim, indices.ndim):
        raise call.error(
            f"batch_dims {batch} does not fit data rank {data.ndim} and indices rank {indices.ndim}"
        )
    depth = indices.shape[-1]
    if data.shape[:batch] != indices.shape[:batch] or depth > data.ndim - batch:
        raise call.error(
            f"indices of shape {shape_text(indices.shape)} do not address data of shape "
            f"{shape_text(data.shape)} with batch_dims {batch}"
        )
    batches = int(np.prod(data.shape[:batch], dtype=np.int64))
    tuples = int(np.prod(indices.shape[batch:-1], dtype=np.int64))
    flat_data = data.reshape((batches, *data.shape[batch:]))
    flat_indices = indices.reshape((batches, tuples, depth))
    coordinates = [
        _check_indices(call, flat_indices[..., k], data.shape[batch + k], f"data dim {batch + k}")
        for k in range(depth)
    ]
    batch_index = np.arange(batches).reshape(batches, 1)
    picked = flat_data[(batch_index, *coordinates)]  # [batches, tuples, *trailing data dims]
    trailing = data.shape[batch + depth :]
    call.store(call.out, picked.reshape((*indices.shape[:-1], *trailing)))


@register("trilu", scalars=(1, 1))
def trilu(call: KernelCall) -> None:
    """Keeps each matrix's elements on and above (`upper`) or below diagonal k; zeros the rest."""
    x = call.inputs[0]
    _same_dtype(call, [x], "input")
    if x.ndim < 2:
        raise call.error(f"input must have rank >= 2, got {shape_text(x.shape)}")
    rows, cols = x.shape[-2:]
    k = int(call.scalars[0])
    offsets = np.arange(cols)[None, :] - np.arange(rows)[:, None]  # col - row per element
    keep = offsets >= k if int(call.attr("upper", 1)) else offsets <= k
    call.store(call.out, np.where(keep, x, np.zeros((), x.dtype)))


@register("expand")
def expand(call: KernelCall) -> None:
    """Broadcasts the input to the output shape."""
    x = call.inputs[0]
    _same_dtype(call, [x], "input")
    call.store(call.out, x, broadcast=True)


# ---- generators ---------------------------------------------------------------------------


@register("range", inputs=(0, 0), scalars=(2, 2), elements=Elements.NUMERIC)
def range_(call: KernelCall) -> None:
    """`y[i] = start + i * delta` in the output dtype (not a running sum, so no drift)."""
    out = call.out
    if out.ndim != 1:
        raise call.error(f"output must have rank 1, got {shape_text(out.shape)}")
    dtype = compute_dtype(out.dtype)
    start, delta = (dtype.type(s) for s in call.scalars)
    call.store(out, start + np.arange(out.shape[0], dtype=dtype) * delta)


@register("fill", inputs=(0, 0), scalars=(1, 1))
def fill(call: KernelCall) -> None:
    call.store(call.out, np.asarray(call.scalars[0]).astype(call.out.dtype), broadcast=True)


@register("nonzero", outputs=(2, 2))
def nonzero(call: KernelCall) -> None:
    """Writes the coordinates of nonzero elements, row-major, into the first `count` columns
    of `indices` [rank, capacity] and `count` into the rank-0 output; the other columns
    are left as they are."""
    x = call.inputs[0]
    indices, count = call.outputs
    call.require_dtype(indices, np.dtype(np.int64), "indices output")
    call.require_elements(count, Elements.INDICES, "count output")
    if count.ndim != 0 or indices.ndim != 2:
        raise call.error(
            f"outputs must be [rank, capacity] indices and a rank-0 count, got "
            f"{shape_text(indices.shape)} and {shape_text(count.shape)}"
        )
    # onnxruntime reads a scalar input as a 1-element vector (one index row); the
    # dialect's rank rows (none) works too.
    if x.ndim == 0 and indices.shape[0] == 1:
        x = x.reshape(1)
    if indices.shape[0] != x.ndim:
        raise call.error(
            f"indices output has {indices.shape[0]} rows, expected the input rank {x.ndim}"
        )
    found = np.flatnonzero(x)
    if found.size > indices.shape[1]:
        raise call.error(f"{found.size} nonzero elements exceed the capacity {indices.shape[1]}")
    if x.ndim:
        indices[:, : found.size] = np.unravel_index(found, x.shape)
    count[...] = found.size
