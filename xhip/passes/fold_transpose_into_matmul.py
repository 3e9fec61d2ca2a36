"""hip-fold-transpose-into-matmul: a matmul reads its B operand transposed instead of a transposed copy.

Attention computes MatMul(Q, Transpose(K)): unfused, a `hip.transpose` kernel
writes Kᵀ into a buffer of its own, which the matmul then reads once. The
matmul can read K transposed for free (`hip.matmul {trans_b}`: the kernels take
row and column strides, BLAS an op flag, batched and batch-broadcast B alike),
so `FoldTransposeIntoMatmul` rewrites

    %t = hip.transpose ins(%k) outs(%init) {perm = [0, .., r-1, r-2]}
    %y = hip.matmul ins(%a, %t) outs(%out)

into `%y = hip.matmul {trans_b} ins(%a, %k) outs(%out)`: one launch and one
[.., n, k] buffer fewer. It applies when the transpose swaps only the last two
dims (`is_last_two_swap`, the rule ONNX-level weights use:
xhip.rewrite_rules.transposed_weights) and every user of its result is a
tensor-mode `hip.matmul` that reads it as B, without `trans_b`; the transpose
and its init then go. A transpose with any other user stays (it is computed
either way, so reading it is as cheap as reading through it).

Tensor mode only (after hip-fuse-elementwise, before one-shot-bufferize);
memref-mode IR is left as it is, like the other hip fusions.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import SSAValue, Use
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from xhip.dialects.hip import MatmulOp, TransposeOp
from xhip.dialects.hip.common import rank_of
from xhip.rewrite_rules.dead_operands import erase_with_dead_operands
from xhip.rewrite_rules.transposed_weights import is_last_two_swap

PASS = "hip-fold-transpose-into-matmul"
B_OPERAND = 1
"""The position of B among a hip.matmul's `ins`."""


def _reads_as_plain_b(use: Use, value: SSAValue) -> bool:
    """Whether `use` (of `value`) is the only use of it by a tensor-mode hip.matmul,
    as B, read as it is."""
    matmul = use.operation
    return (
        isinstance(matmul, MatmulOp)
        and matmul.is_tensor_mode
        and not matmul.trans_b.value.data
        and matmul.inputs[B_OPERAND] is value
        and matmul.inputs[0] is not value
        and value not in matmul.outputs
    )


def _reading_transposed(matmul: MatmulOp, source: SSAValue) -> MatmulOp:
    """`matmul` with B replaced by `source`, read with its last two dims swapped."""
    properties = {k: v for k, v in matmul.properties.items() if k != "operandSegmentSizes"}
    properties["trans_b"] = IntegerAttr.from_bool(True)
    new = MatmulOp(matmul.ctx, [matmul.inputs[0], source], list(matmul.outputs), properties=properties)
    new.attributes.update(matmul.attributes)
    new.location = matmul.location
    return new


class FoldTransposeIntoMatmul(RewritePattern):
    """matmul(a, transpose(k) swapping the last two dims) -> matmul {trans_b} (a, k)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TransposeOp, rewriter: PatternRewriter) -> None:
        if not op.is_tensor_mode or not is_last_two_swap(op.perm.get_values(), rank_of(op.inputs[0])):
            return
        uses = list(op.res[0].uses)
        if not uses or not all(_reads_as_plain_b(use, op.res[0]) for use in uses):
            return
        for matmul in dict.fromkeys(use.operation for use in uses):
            assert isinstance(matmul, MatmulOp)
            rewriter.replace(matmul, _reading_transposed(matmul, op.inputs[0]))
        erase_with_dead_operands(op, rewriter.erase)


@dataclass(frozen=True)
class FoldTransposeIntoMatmulPass(ModulePass):
    """A transpose of the last two dims that only matmuls read as B becomes their trans_b."""

    name = PASS

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        PatternRewriteWalker(FoldTransposeIntoMatmul(), apply_recursively=False).rewrite_module(op)
