"""The NonZero family (templates/nonzero.hip.j2): one block scans the input in order and
writes the coordinates of nonzero elements as columns of `indices` (row stride
`capacity`), then their number into the rank-0 `count`."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from xhip.dialects import hip
from xhip.kernels.abi import KernelABI, Launch, dims, index, pointer
from xhip.kernels.family import OpFacts, Site, Values, ViewLike
from xhip.kernels.reference import Elements, KernelCall, register, shape_text
from xhip.kernels.spec_types import KernelSpec, ctype, header_needs, kernel_name

TEMPLATES = ("nonzero",)


def nonzero_spec(facts: OpFacts) -> KernelSpec:
    x, count = facts.inputs[0], facts.outputs[1]
    c, cnt = ctype(x.dtype), ctype(count.dtype)
    params = (
        index("n"),
        dims("extents", x.rank),
        pointer("x", c.c),
        dims("x_strides", x.rank),
        pointer("indices", "long long", const=False),
        index("capacity"),
        pointer("count", cnt.c, const=False),
    )
    abi = KernelABI(kernel_name("nonzero", c.short, f"r{x.rank}", cnt.short), params, Launch.SINGLE_BLOCK)
    return KernelSpec("nonzero", abi, (("rank", x.rank), ("c", c.c), ("count_c", cnt.c)), header_needs(x.dtype))


def values(ins: Sequence[ViewLike], outs: Sequence[ViewLike], scalars: Sequence[int | float]) -> list[Values]:
    x, (indices, count) = ins[0], outs
    return [{
        "n": math.prod(x.shape), "extents": x.shape, "x": x.address, "x_strides": x.strides,
        "indices": indices.address, "capacity": indices.strides[0] if len(x.shape) else 0, "count": count.address,
    }]  # fmt: skip


def site(facts: OpFacts) -> Site:
    return Site(facts, ((nonzero_spec(facts),),), values)


@register(hip.NonZeroOp, outputs=(2, 2))
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
