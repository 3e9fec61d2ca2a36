"""A Transpose that moves only unit dims is a reshape: a CollapseShape and an ExpandShape.

A decoder step's one new token makes its head transposes [b, 1, h, d] -> [b, h, 1, d]:
the dims that are not 1 keep their order, so the bytes do not move and the kernel that
copies them is not needed. Both sides are viewed as their dims that are not 1 (each unit
dim merged into the group of the next such dim, trailing ones into the last group); after
bufferization those are views of the source, strided or not (a unit dim's stride is free).
Tensor IR has value semantics: the rewrite computes the same value.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import tensor
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, TensorType, i64
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from xhip.dialects.hip import TransposeOp
from xhip.dialects.hip.common import element_type_of, shape_of


def _groups_around(shape: Sequence[int], kept: Sequence[int]) -> ArrayAttr[ArrayAttr[IntegerAttr]]:
    """Contiguous groups, one per kept dim: each unit dim joins the next kept dim's group,
    the unit dims after the last kept one join its group."""
    groups: list[list[int]] = [[] for _ in kept]
    position = 0
    for dim in range(len(shape)):
        groups[position].append(dim)
        if dim == kept[position] and position < len(kept) - 1:
            position += 1
    return ArrayAttr([ArrayAttr([IntegerAttr(d, i64) for d in group]) for group in groups])


class UnitDimTransposeIsReshape(RewritePattern):
    """transpose(x, perm) -> expand(collapse(x)) when `perm` keeps the order of x's dims that
    are not statically 1 (and there is at least one)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TransposeOp, rewriter: PatternRewriter) -> None:
        if not op.is_tensor_mode or not isinstance(init := op.outputs[0].owner, tensor.EmptyOp):
            return
        source = op.inputs[0]
        perm = list(op.perm.get_values())
        in_shape, out_shape = shape_of(source), shape_of(op.res[0])
        moved = [d for d in perm if in_shape[d] != 1]
        if not moved or moved != sorted(moved) or len(moved) == len(perm):
            return  # nothing but units, a real transpose, or no unit dim (the identity is not this pattern's)
        kept_in = [d for d in range(len(in_shape)) if in_shape[d] != 1]
        kept_out = [d for d in range(len(out_shape)) if out_shape[d] != 1]
        merged = [in_shape[d] for d in kept_in]
        collapse = tensor.CollapseShapeOp.build(
            operands=[source],
            result_types=[TensorType(element_type_of(source), merged)],
            properties={"reassociation": _groups_around(in_shape, kept_in)},
        )
        expand = tensor.ExpandShapeOp(
            collapse.results[0], list(init.dynamic_sizes), _groups_around(out_shape, kept_out), list(out_shape), op.res[0].type
        )
        rewriter.replace(op, [collapse, expand], [expand.result])
