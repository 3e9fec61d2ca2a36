"""Memref types of bufferized tensors, layouts, and the view ops over buffers."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DenseArrayBase,
    IntegerAttr,
    MemRefType,
    NoneAttr,
    StridedLayoutAttr,
    TensorType,
    i64,
)
from xdsl.ir import Attribute, SSAValue

Groups = list[list[int]]
"""A reassociation: for each collapsed dim, the expanded dims it covers."""

Dim = int | SSAValue
"""A static extent or a runtime `index` value."""


def memref_of(tensor_type: TensorType[Attribute]) -> MemRefType[Attribute]:
    """The identity-layout memref of a ranked tensor type (the buffer a kernel writes)."""
    return MemRefType(tensor_type.element_type, tensor_type.get_shape())


def identity_of(memref_type: MemRefType[Attribute]) -> MemRefType[Attribute]:
    return MemRefType(memref_type.element_type, memref_type.get_shape())


def is_identity(memref_type: Attribute) -> bool:
    """Whether `memref_type` is a contiguous row-major buffer (no layout attribute)."""
    return isinstance(memref_type, MemRefType) and isinstance(memref_type.layout, NoneAttr)


def with_shape(memref_type: MemRefType[Attribute], shape: Sequence[int]) -> MemRefType[Attribute]:
    """`memref_type` with another shape of the same rank and the same layout (a cast target)."""
    return MemRefType(memref_type.element_type, shape, memref_type.layout, memref_type.memory_space)


def static_or_dynamic(dims: Sequence[Dim]) -> list[int]:
    """The static shape that `dims` give a type: `?` for every runtime value."""
    return [d if isinstance(d, int) else DYNAMIC_INDEX for d in dims]


def groups_of(reassociation: ArrayAttr[ArrayAttr[IntegerAttr]]) -> Groups:
    return [[int(index.value.data) for index in group] for group in reassociation.data]


def collapsed_shape(shape: Sequence[int], groups: Groups) -> list[int]:
    """The static shape of collapsing `shape` by `groups` (`?` when a member is `?`)."""
    collapsed = []
    for group in groups:
        members = [shape[dim] for dim in group]
        extent = 1
        for member in members:
            extent *= member
        collapsed.append(DYNAMIC_INDEX if DYNAMIC_INDEX in members else extent)
    return collapsed


def collapsed_layout(source_type: MemRefType[Attribute], groups: Groups) -> StridedLayoutAttr | None:
    """The strided layout of collapsing a strided `source_type` by `groups`, where that is a
    view: in each group the dims that are not 1 lie end to end (static strides and inner
    extents say so) and the last of them closes the group, whose stride the merged dim
    takes (a unit dim's stride is free, so the run-time view reads the last dim's). None
    where a group is not such a run."""
    shape, strides = source_type.get_shape(), source_type.get_strides()
    assert strides is not None
    result: list[int | None] = []
    for group in groups:
        kept = [d for d in group if shape[d] != 1]
        if kept and kept[-1] != group[-1]:
            return None
        for outer, inner in zip(kept, kept[1:]):
            if None in (strides[outer], strides[inner]) or shape[inner] == DYNAMIC_INDEX or strides[outer] != strides[inner] * shape[inner]:  # type: ignore[operator]
                return None
        result.append(strides[group[-1]])
    return StridedLayoutAttr(result, source_type.get_offset())


def collapse(source: SSAValue, reassociation: ArrayAttr[ArrayAttr[IntegerAttr]]) -> memref.CollapseShapeOp:
    """`memref.collapse_shape` of a buffer, with the inferred result type: identity-layout,
    or strided where `collapsed_layout` gives the result a layout."""
    source_type = source.type
    assert isinstance(source_type, MemRefType)
    groups = groups_of(reassociation)
    shape = collapsed_shape(source_type.get_shape(), groups)
    if is_identity(source_type):
        result_type = MemRefType(source_type.element_type, shape)
    else:
        layout = collapsed_layout(source_type, groups)
        assert layout is not None, "collapse of a strided buffer whose groups are not contiguous"
        result_type = MemRefType(source_type.element_type, shape, layout, source_type.memory_space)
    return memref.CollapseShapeOp.build(
        operands=[source],
        result_types=[result_type],
        properties={"reassociation": reassociation},
    )


def expanded_layout(source_type: MemRefType[Attribute], groups: Groups, shape: Sequence[int]) -> StridedLayoutAttr:
    """The strided layout of expanding a strided `source_type` into `shape`: each split dim's
    stride on the group's last dim, times the extents after it on the others (an expand of
    a strided view is always a view); a stride that a dynamic extent decides is `?`."""
    strides = source_type.get_strides()
    assert strides is not None
    result: list[int | None] = [None] * len(shape)
    for source_dim, group in enumerate(groups):
        step = strides[source_dim]
        for dim in reversed(group):
            result[dim] = step
            step = None if step is None or shape[dim] == DYNAMIC_INDEX else step * shape[dim]
    return StridedLayoutAttr(result, source_type.get_offset())


def expand(source: SSAValue, reassociation: ArrayAttr[ArrayAttr[IntegerAttr]], output_shape: Sequence[Dim]) -> memref.ExpandShapeOp:
    """`memref.expand_shape` of a buffer into `output_shape`: identity-layout, or the
    strided layout `expanded_layout` gives it."""
    source_type = source.type
    assert isinstance(source_type, MemRefType)
    static = static_or_dynamic(output_shape)
    if is_identity(source_type):
        result_type = MemRefType(source_type.element_type, static)
    else:
        layout = expanded_layout(source_type, groups_of(reassociation), static)
        result_type = MemRefType(source_type.element_type, static, layout, source_type.memory_space)
    return memref.ExpandShapeOp.build(
        operands=[source, [d for d in output_shape if not isinstance(d, int)]],
        result_types=[result_type],
        properties={
            "reassociation": reassociation,
            "static_output_shape": DenseArrayBase.from_list(i64, static),
        },
    )


def whole_buffer(rank: int) -> ArrayAttr[ArrayAttr[IntegerAttr]]:
    """The reassociation that collapses all `rank` dims into one (or expands one into all)."""
    return ArrayAttr([ArrayAttr(IntegerAttr(dim, i64) for dim in range(rank))])


def subview_type(
    source_type: MemRefType[Attribute],
    offsets: Sequence[Dim],
    sizes: Sequence[Dim],
    strides: Sequence[Dim],
    result_shape: Sequence[int],
) -> MemRefType[Attribute]:
    """The strided type of a subview; unit dims are dropped to reach `result_shape`'s rank."""
    full = memref.SubviewOp.infer_result_type(source_type, offsets, sizes, strides)
    layout_strides = full.get_strides()
    assert layout_strides is not None
    kept = kept_dims(full.get_shape(), result_shape)
    layout = StridedLayoutAttr([layout_strides[i] for i in kept], full.get_offset())
    return MemRefType(source_type.element_type, result_shape, layout, source_type.memory_space)


def kept_dims(shape: Sequence[int], result_shape: Sequence[int]) -> list[int]:
    """Which dims of a slice of `shape` a rank-reducing slice to `result_shape` keeps.

    Only unit dims can be dropped: the kept dims, in order, must fit the wanted
    extents (equal, or any extent where the result says `?`, as it does for the
    runtime's concrete shapes). Where a 1 could be kept or dropped, both are
    tried, so a leading unit dim before a `?` is dropped rather than taken for
    it (`[1, ?] -> [?]` keeps dim 1, whose stride is the one that counts). No
    fit is a ValueError, never a guess. The runtime's slice steps are to use it too.
    """
    kept = _fit_dims(tuple(shape), tuple(result_shape), 0)
    if kept is None:
        shown = ["?" if d == DYNAMIC_INDEX else d for d in result_shape]
        raise ValueError(f"a slice of shape {list(shape)} cannot drop unit dims to get {shown}")
    return kept


def _fit_dims(shape: tuple[int, ...], wanted: tuple[int, ...], position: int) -> list[int] | None:
    if not wanted:
        return [] if all(extent == 1 for extent in shape[position:]) else None
    if len(shape) - position < len(wanted):
        return None
    extent = shape[position]
    if wanted[0] in (extent, DYNAMIC_INDEX):
        rest = _fit_dims(shape, wanted[1:], position + 1)
        if rest is not None:
            return [position, *rest]
    return _fit_dims(shape, wanted, position + 1) if extent == 1 else None
