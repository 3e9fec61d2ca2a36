"""The extents of a buffer, read off the ops that define it and its views.

`memref.dim` asks at run time; the defining ops often say it already: an
allocation's sizes, an `expand_shape`'s output shape, a subview's sizes, a
`collapse_shape`'s products of its source's extents. Each extent is a product of
factors (static ints and `index` values), so a collapsed extent is `b * s` and an
expanded one is its own runtime value, never rebuilt from a product.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType
from xdsl.ir import SSAValue

from xhip.dialects import hip
from xhip.rewrite_rules.bufferize.types import (
    Dim,
    groups_of,
    kept_dims,
    static_or_dynamic,
)

Factors = tuple[Dim, ...]
"""An extent as the product of its factors."""

_SIZED = (memref.AllocOp, memref.AllocaOp, hip.AllocOp, hip.AllocOutputOp)


def mixed_dims(static: Sequence[int], dynamic: Sequence[SSAValue]) -> list[Dim]:
    """Static values with each DYNAMIC_INDEX replaced by the next dynamic operand."""
    values = iter(dynamic)
    return [next(values) if s == DYNAMIC_INDEX else s for s in static]


def _stated(value: SSAValue) -> list[Factors | None] | None:
    """The extents `value`'s defining op states, or None when it states none."""
    owner = value.owner
    if isinstance(owner, _SIZED):
        return [(d,) for d in mixed_dims(value.type.get_shape(), owner.dynamic_sizes)]  # type: ignore[attr-defined]
    if isinstance(owner, memref.ExpandShapeOp):
        return [(d,) for d in mixed_dims(owner.static_output_shape.get_values(), owner.output_shape)]
    if isinstance(owner, memref.SubviewOp):
        sizes = mixed_dims(owner.static_sizes.get_values(), owner.sizes)
        return [(sizes[i],) for i in kept_dims(static_or_dynamic(sizes), value.type.get_shape())]  # type: ignore[attr-defined]
    if isinstance(owner, memref.ViewOp):
        return [(d,) for d in mixed_dims(value.type.get_shape(), owner.sizes)]  # type: ignore[attr-defined]
    if isinstance(owner, memref.CastOp):
        return extents(owner.source)
    if isinstance(owner, memref.CollapseShapeOp):
        source = extents(owner.src)
        collapsed: list[Factors | None] = []
        for group in groups_of(owner.reassociation):
            members = [source[d] for d in group]
            collapsed.append(None if None in members else tuple(f for m in members if m for f in m))
        return collapsed
    return None


def extents(value: SSAValue) -> list[Factors | None]:
    """Each extent of memref `value` as factors; static dims of its type win; None if unknown."""
    value_type = value.type
    assert isinstance(value_type, MemRefType)
    stated = _stated(value)
    return [
        (extent,) if extent != DYNAMIC_INDEX else (stated[axis] if stated is not None else None)
        for axis, extent in enumerate(value_type.get_shape())
    ]


def single(factors: Factors | None) -> Dim | None:
    """The extent when it is one factor (a static int or one runtime value), else None."""
    if factors is None:
        return None
    static = 1
    dynamic = []
    for factor in factors:
        if isinstance(factor, int):
            static *= factor
        else:
            dynamic.append(factor)
    if not dynamic:
        return static
    return dynamic[0] if len(dynamic) == 1 and static == 1 else None
