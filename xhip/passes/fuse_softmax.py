"""hip-fuse-softmax: the scale and the additive mask before a softmax, and the NaN guard after it, go into it.

Attention computes softmax(Q Kᵀ * c + mask): unfused, the scores are written by
the matmul, read and written again by the Mul and by the Add, and read by the
softmax; each pass over [batch, heads, seq, seq] costs what the softmax itself
does. `hip.softmax` computes softmax(scale * x + bias) as it reads x, so

- `ScaleIntoSoftmax`: softmax(mul(x, c)) and softmax(div(x, c)), c a constant
  splat of unit extents (a scalar that broadcasts nothing), become softmax of x
  with its scale times c (or divided by c). Valid with a bias too:
  scale * (c * x) + bias = (scale * c) * x + bias.
- `BiasIntoSoftmax`: softmax(add(x, m)), with x of the add's own type and m
  broadcasting to it, becomes softmax(x, bias m), when the softmax has no bias
  and scale 1 (a scale would multiply the mask too).
- `NanGuardIntoSoftmax`: where(isnan(p), 0, p) of a softmax p (the torch exports'
  guard for fully masked rows) becomes that softmax with `zero_nan`: each element
  is the same function of the softmax's own result, so the kernel applies it as it
  writes, and the [batch, heads, seq, seq] pass over the probabilities goes.

Only a Mul/Div/Add whose result the softmax alone uses, in tensor mode (before
one-shot-bufferize; memref-mode IR is left as it is). It runs before
hip-fuse-elementwise, which would otherwise take the Mul and the Add into a
chain of their own.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, f64, i1
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from xhip.dialects.hip import AddOp, DivOp, DPSOp, IsNaNOp, MulOp, SoftmaxOp, WhereOp
from xhip.rewrite_rules.dead_operands import erase_with_dead_operands
from xhip.rewrite_rules.producers import sole_use_producer
from xhip.rewrite_rules.scalar_constants import unit_float_constant

PASS = "hip-fuse-softmax"


def _only_feeding(value: SSAValue, softmax: SoftmaxOp) -> DPSOp | None:
    """The tensor-mode op producing `value` when the softmax is its one user, in one block."""
    producer = sole_use_producer(value, DPSOp)
    return producer if producer is not None and producer.parent_block() is softmax.parent_block() else None


def _softmax_like(softmax: SoftmaxOp, inputs: list[SSAValue], outputs: list[SSAValue], **changed) -> SoftmaxOp:
    """A copy of `softmax` over `inputs` into `outputs`, with some properties `changed`."""
    properties = {k: v for k, v in softmax.properties.items() if k != "operandSegmentSizes"}
    properties.update(changed)
    new = SoftmaxOp(softmax.ctx, inputs, outputs, properties=properties)
    new.attributes.update(softmax.attributes)
    new.location = softmax.location
    return new


def _rebuilt(softmax: SoftmaxOp, inputs: list[SSAValue], scale: float, rewriter: PatternRewriter, fused: DPSOp) -> None:
    """The softmax over `inputs` with `scale`, in place of the old one; `fused` (now unused) erased."""
    rewriter.replace(softmax, [_softmax_like(softmax, inputs, list(softmax.outputs), scale=FloatAttr(scale, f64))])
    erase_with_dead_operands(fused, rewriter.erase)


class ScaleIntoSoftmax(RewritePattern):
    """softmax(x * c), softmax(c * x), softmax(x / c) -> softmax(x) with scale * c (or / c)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: SoftmaxOp, rewriter: PatternRewriter) -> None:
        if not op.is_tensor_mode:
            return
        producer = _only_feeding(op.inputs[0], op)
        if not isinstance(producer, MulOp | DivOp):
            return
        a, b = producer.inputs
        operands = [(a, b)] if isinstance(producer, DivOp) else [(a, b), (b, a)]
        for x, constant in operands:
            c = unit_float_constant(constant)
            if c is None or x.type != producer.res[0].type or (isinstance(producer, DivOp) and c == 0):
                continue
            factor = c if isinstance(producer, MulOp) else 1.0 / c
            _rebuilt(op, [x, *op.inputs[1:]], op.scale.value.data * factor, rewriter, producer)
            return


class BiasIntoSoftmax(RewritePattern):
    """softmax(x + m) -> softmax(x, bias m), m broadcasting to x (an attention mask)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: SoftmaxOp, rewriter: PatternRewriter) -> None:
        if not op.is_tensor_mode or len(op.inputs) != 1 or op.scale.value.data != 1.0:
            return
        producer = _only_feeding(op.inputs[0], op)
        if not isinstance(producer, AddOp):
            return
        a, b = producer.inputs
        for x, mask in ((a, b), (b, a)):
            if x.type == producer.res[0].type:
                _rebuilt(op, [x, mask], 1.0, rewriter, producer)
                return


class NanGuardIntoSoftmax(RewritePattern):
    """where(isnan(p), 0, p), p a softmax -> that softmax with zero_nan."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: WhereOp, rewriter: PatternRewriter) -> None:
        if not op.is_tensor_mode:
            return
        cond, zero, p = op.inputs
        softmax, isnan = p.owner, cond.owner
        if (
            not isinstance(softmax, SoftmaxOp)
            or not softmax.is_tensor_mode
            or softmax.parent_block() is not op.parent_block()
            or not isinstance(isnan, IsNaNOp)
            or isnan.inputs[0] is not p
            or unit_float_constant(zero) != 0.0
            or p.type != op.res[0].type
            or any(use.operation is not op for use in cond.uses)
            or any(use.operation not in (op, isnan) for use in p.uses)
        ):
            return
        guarded = _softmax_like(softmax, list(softmax.inputs), list(op.outputs), zero_nan=IntegerAttr(1, i1))
        rewriter.replace(op, [guarded])
        erase_with_dead_operands(isnan, rewriter.erase)
        erase_with_dead_operands(softmax, rewriter.erase)


@dataclass(frozen=True)
class FuseSoftmaxPass(ModulePass):
    """The scalar scale and the additive mask before a softmax, and the NaN guard after it,
    become its own scale, bias and zero_nan."""

    name = PASS

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier([ScaleIntoSoftmax(), BiasIntoSoftmax(), NanGuardIntoSoftmax()]), apply_recursively=True
        ).rewrite_module(op)


