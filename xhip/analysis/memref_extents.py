"""What one dim of a memref is, in terms of values that exist: the extent analysis.

`memref.dim %view, 1` and the `%seq` the view was built from are the same
extent, but only the second says so. `buffer_extent` follows a buffer through
casts, reshapes, subviews, views and allocations down to the sizes they were
built with (a product of constants, SSA values and dims of root buffers such as
function arguments); `same_extent` compares two index values that way.
hip-resolve-memref-dims rewrites `memref.dim`s with it, hip-optimize-memrefs
matches dynamic allocations with it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from xdsl.dialects import memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType
from xdsl.dialects.utils.dynamic_index_list import get_dynamic_index_list
from xdsl.ir import Operation, SSAValue

from xhip.dialects.hip import AllocOp, AllocOutputOp, CacheAppendOp
from xhip.index.host_eval import constant_int
from xhip.rewrite_rules.bufferize.types import kept_dims, static_or_dynamic

SIZED_BUFFERS: tuple[type[Operation], ...] = (memref.AllocOp, memref.AllocaOp, AllocOp, AllocOutputOp, CacheAppendOp)
"""Ops whose `dynamic_sizes` give their result's `?` dims in order: allocations, and the
KV cache append (the output it replaced)."""


@dataclass(frozen=True)
class RootDim:
    """Dim `axis` of a buffer that states no sizes of its own (a function argument)."""

    buffer: SSAValue
    axis: int
    existing: SSAValue | None = field(default=None, compare=False)
    """A `memref.dim` of it met on the way (reused instead of emitting another)."""


Factor = int | SSAValue | RootDim
Extent = tuple[Factor, ...]
"""A product of factors: what one dim of a buffer is, in terms of values that exist."""


def _kept_sizes(sizes: list[int | SSAValue], shape: Sequence[int]) -> list[int | SSAValue] | None:
    """The sizes of a (rank-reducing) subview that its result keeps: dropped ones are 1s."""
    try:
        return [sizes[i] for i in kept_dims(static_or_dynamic(sizes), shape)]
    except ValueError:
        return None  # does not verify; leave it to the verifier


def _stated_sizes(op: Operation) -> list[int | SSAValue] | None:
    """The extents of `op`'s result, one per dim, as its operands state them."""
    result_type = op.results[0].type
    assert isinstance(result_type, MemRefType)
    shape = result_type.get_shape()
    if isinstance(op, memref.ExpandShapeOp):
        return get_dynamic_index_list(op.static_output_shape.get_values(), op.output_shape, DYNAMIC_INDEX)
    if isinstance(op, memref.SubviewOp | memref.ReinterpretCastOp):
        sizes = get_dynamic_index_list(op.static_sizes.get_values(), op.sizes, DYNAMIC_INDEX)
        return _kept_sizes(sizes, shape)
    if isinstance(op, SIZED_BUFFERS):
        dynamic = list(op.dynamic_sizes)  # type: ignore[attr-defined]
    elif isinstance(op, memref.ViewOp):
        dynamic = list(op.sizes)
    else:
        return None
    if len(dynamic) != sum(1 for d in shape if d == DYNAMIC_INDEX):
        return None  # does not verify; leave it to the verifier
    return [dynamic.pop(0) if d == DYNAMIC_INDEX else d for d in shape]


def size_extent(size: int | SSAValue) -> Extent:
    """What a size operand is: a constant, a resolved `memref.dim`, or itself."""
    if isinstance(size, int):
        return (size,)
    if (value := constant_int(size)) is not None:
        return (value,)
    owner = size.owner
    if isinstance(owner, memref.DimOp) and isinstance(owner.source.type, MemRefType):
        axis = constant_int(owner.index)
        if axis is not None and 0 <= axis < owner.source.type.get_num_dims():
            extent = buffer_extent(owner.source, axis)
            return tuple(
                replace(f, existing=size) if isinstance(f, RootDim) and len(extent) == 1 else f for f in extent
            )
    return (size,)


def buffer_extent(buffer: SSAValue, axis: int) -> Extent:
    """Dim `axis` of `buffer`, followed through views to the extents they were built from."""
    buffer_type = buffer.type
    assert isinstance(buffer_type, MemRefType)
    static = buffer_type.get_shape()[axis]
    if static != DYNAMIC_INDEX:
        return (static,)
    owner = buffer.owner
    if isinstance(owner, memref.CastOp) and isinstance(owner.source.type, MemRefType):
        return buffer_extent(owner.source, axis)
    if isinstance(owner, memref.CollapseShapeOp):
        group = owner.reassociation.data[axis].data
        return tuple(f for source_axis in group for f in buffer_extent(owner.src, source_axis.value.data))
    stated = _stated_sizes(owner) if isinstance(owner, Operation) else None
    if stated is not None:
        return size_extent(stated[axis])
    return (RootDim(buffer, axis),)


def extent_key(extent: Extent) -> tuple[int, frozenset[tuple[object, int]]]:
    """A canonical form: equal keys mean equal extents on every run (products commute)."""
    constant = 1
    symbols: Counter[object] = Counter()
    for factor in extent:
        if isinstance(factor, int):
            constant *= factor
        else:
            symbols[factor] += 1
    return (constant, frozenset(symbols.items()) if constant else frozenset())


def same_extent(lhs: SSAValue, rhs: SSAValue) -> bool:
    """Whether two index values are provably the same extent (through dims and constants)."""
    return lhs is rhs or extent_key(size_extent(lhs)) == extent_key(size_extent(rhs))
