"""Views of converted tensors: `reshape_value`, the cheapest reshape a conversion can prove
(nothing when every dim is unchanged, `tensor.expand_shape` / `collapse_shape` when the
dims group into equal products, `tensor.reshape` otherwise), shared by the family modules
that reshape (shape_ops: the reshape family and Tile; compositions: GroupNormalization);
and `strided_window`, a window with steps (movement: Slice; einsum: a diagonal).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, ArrayAttr, DenseIntOrFPElementsAttr, IndexType, IntegerAttr, TensorType, i64
from xdsl.ir import Attribute, SSAValue

from xhip.dialects import hip
from xhip.index.host_eval import constant_int
from xhip.rewrite_rules.onnx_to_hip.state import ConversionState, Lowered, tensor_type
from xhip.shapes import Dim


class _Product:
    """A dim as a static coefficient times a multiset of runtime values.

    Two dims with equal products are equal for every run, whatever the values;
    that is the proof a reshape needs to become a collapse or an expand.
    """

    def __init__(self, coefficient: int = 1, factors: Counter[SSAValue] | None = None):
        self.coefficient = coefficient
        self.factors: Counter[SSAValue] = factors or Counter()

    def __mul__(self, other: _Product) -> _Product:
        return _Product(self.coefficient * other.coefficient, self.factors + other.factors)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _Product):
            return NotImplemented
        return self.coefficient == other.coefficient and self.factors == other.factors

    def divides(self, other: _Product) -> bool:
        """True when `other` is this product times more factors."""
        if self.coefficient == 0 or other.coefficient % self.coefficient:
            return False
        return not self.factors - other.factors

    def quotient(self, divisor: _Product) -> _Product | None:
        if not divisor.divides(self):
            return None
        return _Product(self.coefficient // divisor.coefficient, self.factors - divisor.factors)


_EXACT_DIVISIONS = (arith.DivSIOp, arith.DivUIOp, arith.CeilDivSIOp, arith.CeilDivUIOp)


def _factor(dim: Dim) -> _Product:
    """`dim` through the products and exact divisions that built it."""
    if isinstance(dim, int):
        return _Product(dim)
    if (constant := constant_int(dim)) is not None:
        return _Product(constant)
    owner = dim.owner
    if isinstance(owner, arith.MuliOp):
        return _factor(owner.lhs) * _factor(owner.rhs)
    if isinstance(owner, _EXACT_DIVISIONS):
        # numel / known (Reshape's -1): a product divided by some of its factors.
        exact = _factor(owner.lhs).quotient(_factor(_reshape_divisor(owner.rhs)))
        if exact is not None:
            return exact
    return _Product(1, Counter({dim: 1}))


def _reshape_divisor(divisor: SSAValue) -> SSAValue:
    """`known` for Reshape's `numel / max(known, 1)`, the inferred -1 extent.

    The max only keeps the division defined on paths where no -1 is selected;
    where one is, ONNX cannot infer it from a zero product (onnxruntime rejects
    the input), so for every valid input the divisor is `known` itself.
    """
    owner = divisor.owner
    if isinstance(owner, arith.MaxSIOp):
        for value, other in ((owner.lhs, owner.rhs), (owner.rhs, owner.lhs)):
            if _factor(other) == _Product(1):
                return value
    return divisor


Group = tuple[list[int], list[int]]
"""Consecutive source dims and consecutive result dims with equal products."""


def _reassociation(source: Sequence[Dim], result: Sequence[Dim]) -> list[Group] | None:
    """Groups covering both shapes in order, or None when no grouping is provable."""
    src = [_factor(d) for d in source]
    dst = [_factor(d) for d in result]
    groups: list[Group] = []
    i = j = 0
    while i < len(src) and j < len(dst):
        group: Group = ([i], [j])
        left, right = src[i], dst[j]
        i, j = i + 1, j + 1
        while left != right:
            # Grow the side whose product is a part of the other's; if neither
            # is, grow either (statics may still meet: [2, 3] -> [3, 2]).
            grow_source = i < len(src) and (left.divides(right) or not right.divides(left) or j == len(dst))
            if grow_source:
                left, i = left * src[i], i + 1
                group[0].append(i - 1)
            elif j < len(dst):
                right, j = right * dst[j], j + 1
                group[1].append(j - 1)
            else:
                return None
        groups.append(group)
    # Trailing unit dims join the last group.
    one = _Product(1)
    if not groups or any(p != one for p in (*src[i:], *dst[j:])):
        return None
    groups[-1][0].extend(range(i, len(src)))
    groups[-1][1].extend(range(j, len(dst)))
    return groups


def reshape_value(
    state: ConversionState,
    source: SSAValue,
    source_dims: Sequence[Dim],
    dims: Sequence[Dim],
    fitted: Sequence[Dim],
) -> tuple[SSAValue, list[Dim]]:
    """`source` viewed with the rule's `dims`, typed by `fitted` (dims refined by the model).

    Returns the value and its dims. A view is proven, never assumed: the
    result's runtime dims must equal products of the source's (`_Product`).
    """
    assert isinstance(source.type, TensorType)
    element_type = source.type.element_type
    if not source_dims and not dims:
        return source, []
    if not source_dims or not dims:
        # Rank 0 on either side: every dim of the other side is 1.
        value = reshape_through_ones(state, source, len(dims))
        return state.cast(value, fitted), list(fitted)
    groups = _reassociation(source_dims, dims)
    if groups is None:
        # Not provable: the shape operand decides at run time.
        shape = _index_vector(state, fitted)
        reshape = state.insert(tensor.ReshapeOp(source, shape, tensor_type(fitted, element_type)))
        return reshape.results[0], list(fitted)
    dims = _as_source_products(state, source_dims, dims)
    fitted = [f if isinstance(f, int) else d for f, d in zip(fitted, dims)]
    if all(len(s) == 1 and len(d) == 1 for s, d in groups):
        # Every dim proven unchanged: no op; keep the source's SSA extents.
        kept = [f if isinstance(f, int) else s for s, f in zip(source_dims, fitted)]
        return state.cast(source, kept), kept
    value = source
    if any(len(s) > 1 for s, _ in groups):
        value = _collapse(state, value, [s for s, _ in groups])
    if any(len(d) > 1 for _, d in groups):
        value = _expand(state, value, [d for _, d in groups], dims)
    return state.cast(value, fitted), list(fitted)


def _as_source_products(state: ConversionState, source_dims: Sequence[Dim], dims: Sequence[Dim]) -> list[Dim]:
    """Each runtime dim rebuilt as the product of the source extents it equals.

    Reshape's inferred `(b * s * 768) / 768` becomes the `b * s` that other ops
    build too, so after cse each distinct extent is one SSA value.
    """
    order: dict[SSAValue, int] = {}
    for dim in source_dims:
        for factor in _factor(dim).factors:
            order.setdefault(factor, len(order))
    rebuilt: list[Dim] = []
    for dim in dims:
        if isinstance(dim, int):
            rebuilt.append(dim)
            continue
        product = _factor(dim)
        factors = sorted(product.factors.elements(), key=lambda v: order.get(v, len(order)))
        rebuilt.append(state.emitter.product([*factors, product.coefficient]))
    return rebuilt


def _reassociation_attr(groups: Sequence[Sequence[int]]) -> ArrayAttr[ArrayAttr[IntegerAttr]]:
    return ArrayAttr([ArrayAttr([IntegerAttr(i, i64) for i in group]) for group in groups])


def _collapse(state: ConversionState, value: SSAValue, groups: list[list[int]]) -> SSAValue:
    assert isinstance(value.type, TensorType)
    shape = value.type.get_shape()
    collapsed = [
        DYNAMIC_INDEX if any(shape[i] == DYNAMIC_INDEX for i in group) else math.prod(shape[i] for i in group)
        for group in groups
    ]
    result_type = TensorType(value.type.element_type, collapsed)
    op = tensor.CollapseShapeOp(
        operands=[value], result_types=[result_type], properties={"reassociation": _reassociation_attr(groups)}
    )
    return state.insert(op).results[0]


def _expand(state: ConversionState, value: SSAValue, groups: list[list[int]], dims: Sequence[Dim]) -> SSAValue:
    """`value` split into `dims`, with `output_shape` naming each runtime extent exactly."""
    assert isinstance(value.type, TensorType)
    renumbered, position = [], 0
    for group in groups:
        renumbered.append(list(range(position, position + len(group))))
        position += len(group)
    static = [d if isinstance(d, int) else DYNAMIC_INDEX for d in dims]
    dynamic = [d for d in dims if not isinstance(d, int)]
    op = tensor.ExpandShapeOp(
        value, dynamic, _reassociation_attr(renumbered), static, tensor_type(dims, value.type.element_type)
    )
    return state.insert(op).results[0]


def reshape_through_ones(state: ConversionState, source: SSAValue, rank: int) -> SSAValue:
    """A reshape to or from rank 0: both sides hold one element, so all dims are 1.

    Static unit types on both sides of the `tensor.reshape` keep it checkable.
    """
    assert isinstance(source.type, TensorType)
    element_type = source.type.element_type
    ones = [1] * source.type.get_num_dims()
    value = state.cast(source, ones)
    shape = _index_vector(state, [1] * rank)
    return state.insert(tensor.ReshapeOp(value, shape, tensor_type([1] * rank, element_type))).results[0]


def _index_vector(state: ConversionState, dims: Sequence[Dim]) -> SSAValue:
    """A `tensor<N x index>` holding `dims` (a shape operand)."""
    vector_type = TensorType(IndexType(), [len(dims)])
    static = [d for d in dims if isinstance(d, int)]
    if len(static) == len(dims):
        attr = DenseIntOrFPElementsAttr.from_list(vector_type, static)
        return state.insert(arith.ConstantOp(attr, vector_type)).results[0]
    values = [state.emitter.materialize(d) for d in dims]
    return state.insert(tensor.FromElementsOp(*values, result_type=vector_type)).results[0]


# --------------------------------------------------------------------------------------
# Generators: ConstantOfShape, Range, NonZero
# --------------------------------------------------------------------------------------


def strided_window(state: ConversionState, value: SSAValue, first: Sequence[Dim], dims: Sequence[Dim], strides: Sequence[Dim], element_type: Attribute) -> Lowered:
    """value[first + i * strides] for i < dims, per dim: a `tensor.extract_slice` view where
    every stride is a positive constant, else the slice kernel (backward or run-time steps)."""
    if all(isinstance(s, int) and s > 0 for s in strides):
        view = tensor.ExtractSliceOp(value, first, dims, strides, tensor_type(dims, element_type))
        return Lowered(list(dims), element_type, state.insert(view).results[0])
    scalars = [state.emitter.materialize(d) for d in (*first, *strides)]
    (sliced,) = state.compute(hip.SliceOp, [value], [(dims, element_type)], scalars=scalars)
    return sliced
