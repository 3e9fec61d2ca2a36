"""hip-fold-cast-into-matmul: a half-precision matmul whose only reader widens it to float32
writes float32 itself.

An fp32 model computed in half precision (onnx-convert-precision) casts its float32
outputs back from half at the end: GPT-2's logits are `Cast(MatMul(h, Wᵀ))`, so the
matmul writes a half-precision [batch, seq, vocab] buffer (411 MB at 8x512) that the cast
reads once more to write the float32 output. A GEMM of half operands accumulates in
float32 anyway; the vendor BLAS (cublasGemmStridedBatchedEx, hipblasGemmStridedBatchedEx)
and the tiled template write a float32 C as readily. So `FoldWideningCast` rewrites

    %y = hip.matmul ins(%a, %b) outs(%init : tensor<..xbf16>)
    %z = hip.cast ins(%y) outs(%wide : tensor<..xf32>)

into `%z = hip.matmul ins(%a, %b) outs(%wide)`: one launch and one pool buffer fewer, and
the result rounded once (into float32) instead of twice. It applies when the matmul's
operands are fp16 or bf16, the cast's output is float32 of the same shape, and the cast is
the matmul's only user. Tensor mode only (before one-shot-bufferize), and before
hip-fuse-elementwise, which would take the cast into a chain.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects.builtin import BFloat16Type, Float16Type, TensorType, f32
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from xhip.dialects.hip import CastOp, MatmulOp
from xhip.dialects.hip.common import element_type_of
from xhip.rewrite_rules.dead_operands import erase_with_dead_operands

PASS = "hip-fold-cast-into-matmul"


class FoldWideningCast(RewritePattern):
    """cast(matmul(a, b) of fp16/bf16) to float32, its only user -> matmul(a, b) into float32."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CastOp, rewriter: PatternRewriter) -> None:
        if not op.is_tensor_mode:
            return
        matmul = op.inputs[0].owner
        if not isinstance(matmul, MatmulOp) or not matmul.is_tensor_mode or matmul.res[0].uses.get_length() != 1:
            return
        wide, narrow = op.outputs[0].type, matmul.res[0].type
        if not (isinstance(wide, TensorType) and isinstance(narrow, TensorType)) or wide.get_shape() != narrow.get_shape():
            return
        if element_type_of(op.outputs[0]) != f32 or not isinstance(element_type_of(matmul.inputs[0]), Float16Type | BFloat16Type):
            return
        properties = {k: v for k, v in matmul.properties.items() if k != "operandSegmentSizes"}
        widened = MatmulOp(matmul.ctx, list(matmul.inputs), [op.outputs[0]], properties=properties)
        widened.attributes.update(matmul.attributes)
        widened.location = matmul.location
        rewriter.replace(op, widened)
        erase_with_dead_operands(matmul, rewriter.erase)


@dataclass(frozen=True)
class FoldCastIntoMatmulPass(ModulePass):
    """A half-precision matmul read only by a cast to float32 writes float32 itself."""

    name = PASS

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        PatternRewriteWalker(FoldWideningCast(), apply_recursively=False).rewrite_module(op)
