"""hip-resolve-memref-dims: fold `memref.dim` through view chains to root extents.

The pool planner compares allocation sizes as SSA values: `memref.dim %view, 1`
and the `%seq` the view was built from are the same extent, but only the second
says so. This pass replaces every `memref.dim` with a constant index by what the
IR already states about that extent:

- a static dim of the type: the constant;
- an allocation (`memref.alloc`, `hip.alloc`, `hip.alloc_output`), `memref.view`,
  `memref.expand_shape`, `memref.subview` or `memref.reinterpret_cast`: the size
  it was built with (the n-th `?` of the result is its n-th dynamic size operand);
- `memref.cast`: the same dim of the source; `memref.collapse_shape`: the product
  of the source dims of the group (emitted as `arith.muli` when it is not one value);
- anything else (a function argument): `memref.dim` of that root.

A size operand that is itself a `memref.dim` is followed too, so chains of
allocations sized from each other reach the function arguments. View ops are left
as they are. Running the pass twice changes nothing the second time.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from xdsl.context import Context
from xdsl.dialects import builtin, memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType
from xdsl.dialects.utils.dynamic_index_list import get_dynamic_index_list
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xhip.analysis.host_index_eval import constant_int
from xhip.diagnostics import op_error
from xhip.dialects.hip import AllocOp, AllocOutputOp
from xhip.shapes import IndexEmitter

SIZED_BUFFERS: tuple[type[Operation], ...] = (memref.AllocOp, memref.AllocaOp, AllocOp, AllocOutputOp)
"""Allocations whose `dynamic_sizes` give their `?` dims in order."""


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


def _fits(size: int | SSAValue, extent: int) -> bool:
    return extent == DYNAMIC_INDEX or size == extent


def _drop_unit_dims(sizes: list[int | SSAValue], shape: Sequence[int]) -> list[int | SSAValue] | None:
    """The sizes of a (rank-reducing) subview that its result keeps: dropped ones are 1s.

    Which 1s are dropped may be ambiguous, but they are all 1, so any match works."""
    if not shape:
        return [] if all(size == 1 for size in sizes) else None
    if not sizes:
        return None
    first, rest = sizes[0], sizes[1:]
    if _fits(first, shape[0]) and (kept := _drop_unit_dims(rest, shape[1:])) is not None:
        return [first, *kept]
    return _drop_unit_dims(rest, shape) if first == 1 else None


def _stated_sizes(op: Operation) -> list[int | SSAValue] | None:
    """The extents of `op`'s result, one per dim, as its operands state them."""
    result_type = op.results[0].type
    assert isinstance(result_type, MemRefType)
    shape = result_type.get_shape()
    if isinstance(op, memref.ExpandShapeOp):
        return get_dynamic_index_list(op.static_output_shape.get_values(), op.output_shape, DYNAMIC_INDEX)
    if isinstance(op, memref.SubviewOp | memref.ReinterpretCastOp):
        sizes = get_dynamic_index_list(op.static_sizes.get_values(), op.sizes, DYNAMIC_INDEX)
        return _drop_unit_dims(sizes, shape)
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


def _materialize(extent: Extent, dim: memref.DimOp) -> SSAValue:
    """`extent` as one SSA value available at `dim`."""
    emitter = IndexEmitter(InsertPoint.before(dim))
    factors: list[int | SSAValue] = []
    for factor in extent:
        if isinstance(factor, RootDim):
            if factor.buffer is dim.source and constant_int(dim.index) == factor.axis:
                factors.append(dim.result)
            elif factor.existing is not None:
                factors.append(factor.existing)
            else:
                root_dim = memref.DimOp(factor.buffer, emitter.constant(factor.axis))
                Rewriter.insert_op(root_dim, InsertPoint.before(dim))
                factors.append(root_dim.result)
        else:
            factors.append(factor)
    return emitter.materialize(emitter.product(factors))


def resolve(dim: memref.DimOp) -> None:
    """Replace `dim` by the extent it reads, when the IR states it elsewhere."""
    source_type = dim.source.type
    axis = constant_int(dim.index)
    if axis is None or not isinstance(source_type, MemRefType):
        return
    rank = source_type.get_num_dims()
    if not 0 <= axis < rank:
        raise op_error(dim, f"memref.dim index {axis} is out of range for {source_type} (rank {rank})")
    value = _materialize(buffer_extent(dim.source, axis), dim)
    if value is not dim.result:
        dim.result.replace_all_uses_with(value)
        Rewriter.erase_op(dim)


@dataclass(frozen=True)
class ResolveMemrefDimsPass(ModulePass):
    """memref.dim of views and allocations -> the sizes they were built with, down to the roots."""

    name = "hip-resolve-memref-dims"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for dim in [o for o in op.walk() if isinstance(o, memref.DimOp)]:
            resolve(dim)
