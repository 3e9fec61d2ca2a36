"""The gather family (templates/gather.hip.j2): Gather along an axis, GatherElements and
GatherND, one kernel per element size, index type and ranks.

An out-of-range index is the user's data, not the compiler's: the kernel writes the
flag and the index into its launch site's `status` words (read at the next
synchronization, `xhip.runtime.backends.gpu.kernels.StatusWords`), and the reference
names the index in its error.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from xhip.dialects import hip
from xhip.kernels.abi import KernelABI, Launch, dims, index, pointer
from xhip.kernels.family import OpFacts, Site, Values, ViewLike
from xhip.kernels.reference import Elements, KernelCall, register, shape_text
from xhip.kernels.spec_types import UNSIGNED_OF_SIZE, KernelSpec, ctype, kernel_name

TEMPLATES = ("gather", "gather_elements", "gather_nd")


def gather_spec(
    kind: str, itemsize: int, index_dtype: np.dtype, data_rank: int, indices_rank: int, out_rank: int, *, axis: int = 0, depth: int = 0, batch: int = 0
) -> KernelSpec:
    """gather (along `axis`), gather_nd (`depth` leading data dims per index row after
    `batch` shared dims) or gather_elements (same rank everywhere, along `axis`)."""
    bits, idx = UNSIGNED_OF_SIZE[itemsize], ctype(index_dtype)
    params = (
        index("n"),
        dims("extents", out_rank),
        pointer("data", bits),
        dims("data_extents", data_rank),
        dims("data_strides", data_rank),
        pointer("indices", idx.c),
        dims("indices_strides", indices_rank),
        pointer("out", bits, const=False),
        dims("out_strides", out_rank),
        pointer("status", "long long", const=False),
    )
    tag = {"gather": f"a{axis}", "gather_elements": f"a{axis}", "gather_nd": f"q{depth}_bd{batch}"}[kind]
    name = kernel_name(kind, f"b{itemsize}", idx.short, f"d{data_rank}", f"i{indices_rank}", tag)
    context = (
        ("kind", kind), ("c", bits), ("idx", idx.c), ("data_rank", data_rank), ("indices_rank", indices_rank),
        ("out_rank", out_rank), ("axis", axis), ("depth", depth), ("batch", batch),
    )  # fmt: skip
    return KernelSpec("gather", KernelABI(name, params, Launch.ELEMENTS), context)


def gather_specs(facts: OpFacts) -> list[KernelSpec]:
    (data, indices), out_rank = facts.inputs, facts.outputs[0].rank
    if facts.op_class is hip.GatherNDOp:
        depth = indices.shape[-1]
        if depth is None:
            raise ValueError("gather_nd needs a static index depth (the last dim of indices)")
        batch = int(facts.props.batch_dims)
        return [gather_spec("gather_nd", data.dtype.itemsize, indices.dtype, data.rank, indices.rank, out_rank, depth=depth, batch=batch)]
    kind = "gather_elements" if facts.op_class is hip.GatherElementsOp else "gather"
    axis = int(facts.props.axis) % data.rank
    return [gather_spec(kind, data.dtype.itemsize, indices.dtype, data.rank, indices.rank, out_rank, axis=axis)]


def values(ins: Sequence[ViewLike], outs: Sequence[ViewLike], scalars: Sequence[int | float]) -> list[Values]:
    """Every value but `status`: the address of two int64 that the caller zeroes before and
    reads after (1 and the index when an index was out of range)."""
    data, indices = ins
    out = outs[0]
    return [{
        "n": math.prod(out.shape), "extents": out.shape, "data": data.address, "data_extents": data.shape,
        "data_strides": data.strides, "indices": indices.address, "indices_strides": indices.strides,
        "out": out.address, "out_strides": out.strides,
    }]  # fmt: skip


def site(facts: OpFacts) -> Site:
    return Site(facts, (tuple(gather_specs(facts)),), values)


# ---- reference ----------------------------------------------------------------------------


def _same_dtype(call: KernelCall, data: np.ndarray) -> None:
    call.require_dtype(data, call.out.dtype, "data #0")


def _check_indices(call: KernelCall, indices: np.ndarray, extent: int, what: str) -> np.ndarray:
    """`indices` with negative entries counted from the end; all must be in [-extent, extent)."""
    bad = (indices < -extent) | (indices >= extent)
    if np.any(bad):
        index = int(indices[bad].flat[0])
        raise call.error(f"index {index} is out of range for {what} of extent {extent}")
    return np.where(indices < 0, indices + extent, indices)


@register(hip.GatherOp, inputs=(2, 2))
def gather(call: KernelCall) -> None:
    """ONNX Gather: `indices` select slices of `data` along `axis`."""
    data, indices = call.inputs
    _same_dtype(call, data)
    call.require_elements(indices, Elements.INDICES, "indices")
    axis = call.axis(data.ndim)
    picked = _check_indices(call, indices, data.shape[axis], f"axis {axis}")
    call.store(call.out, np.take(data, picked, axis=axis))


@register(hip.GatherElementsOp, inputs=(2, 2))
def gather_elements(call: KernelCall) -> None:
    """ONNX GatherElements: each output element takes the data element at its own
    coordinates with the `axis` one replaced by its index."""
    data, indices = call.inputs
    _same_dtype(call, data)
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


@register(hip.GatherNDOp, inputs=(2, 2))
def gather_nd(call: KernelCall) -> None:
    """ONNX GatherND: the last dim of `indices` addresses dims batch_dims.. of `data`."""
    data, indices = call.inputs
    _same_dtype(call, data)
    call.require_elements(indices, Elements.INDICES, "indices")
    batch = int(call.props.batch_dims)
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
