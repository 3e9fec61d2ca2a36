"""onnx-fold-conv-batch-norm: a BatchNormalization after a Conv goes into the Conv's weights and bias.

In inference a BatchNormalization is y = x * a + c per channel, with a = scale /
sqrt(var + epsilon) and c = bias - mean * a (what convert-onnx-to-hip lowers it to). When x
is a Conv of constant weights W [M, C / group, K1, ..] and bias B [M] (or none), then

    y = conv(X, W * a[m]) + (B * a + c)

holds the same numbers with one op fewer: no launch and no pass over the activations for
the normalization. `FoldBatchNormIntoConv` rewrites

    %h = onnx.Conv(%x, %w[, %b])    %y = onnx.BatchNormalization(%h, %scale, %bias, %mean, %var)

into `%y = onnx.Conv(%x, %w', %b')` with two new constants, computed in float64 and stored
in W's element type. torch.onnx folds a module's batch norms into its convolutions
already (its optimizer); this takes the graphs that keep them (other exporters, models
exported without that optimizer).

Only when the BatchNormalization is in inference form (training_mode 0, its running
statistics unread), the Conv's result is read by it alone, and W, B and the four
per-channel operands are dense constants, the latter of M elements. The old weights (and
an absent bias's `onnx.NoValue`) are erased where nothing else reads them. The pass runs
on the imported ONNX IR after onnx-fold-constants (weights computed from initializers are
constants by then) and before convert-onnx-to-hip.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects.builtin import StringAttr
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xhip.dialects.onnx import BatchNormalizationOp, ConstantOp, ConvOp, NoValueOp
from xhip.dialects.onnx.base import NODE_NAME_ATTR, is_none
from xhip.onnx_nodes import constant_op, constant_value, dense_array, dense_attr
from xhip.rewrite_rules.dead_operands import erase_with_dead_operands

PASS = "onnx-fold-conv-batch-norm"


def _per_channel(value: SSAValue, channels: int) -> np.ndarray | None:
    """The float64 elements of a dense constant of `channels` elements; None otherwise."""
    dense = constant_value(value)
    if dense is None:
        return None
    elements = dense_array(dense).astype(np.float64).reshape(-1)
    return elements if elements.size == channels else None


def _foldable(norm: BatchNormalizationOp) -> ConvOp | None:
    """The Conv `norm` normalizes, when the fold applies (see the module docstring)."""
    conv = norm.x.owner
    if (
        not isinstance(conv, ConvOp)
        or norm.training_mode.value.data != 0  # type: ignore[attr-defined]
        or any(result.uses for result in norm.results[1:])
        or not conv.y.has_one_use()
        or constant_value(conv.w) is None
        or not (is_none(conv.b) or constant_value(conv.b) is not None)
    ):
        return None
    return conv


def fold(norm: BatchNormalizationOp, conv: ConvOp) -> None:
    """Replace `conv` and `norm` by one Conv of scaled weights and a shifted bias; nothing
    changes when a per-channel operand is not a constant of W's M elements."""
    weight = constant_value(conv.w)
    assert weight is not None
    w = dense_array(weight).astype(np.float64)
    channels = w.shape[0]
    scale, shift, mean, var = (_per_channel(v, channels) for v in (norm.scale, norm.b, norm.input_mean, norm.input_var))
    bias = np.zeros(channels) if is_none(conv.b) else _per_channel(conv.b, channels)
    if scale is None or shift is None or mean is None or var is None or bias is None:
        return
    a = scale / np.sqrt(var + norm.epsilon.value.data)  # type: ignore[attr-defined]
    element_type = weight.get_element_type()
    new_w = constant_op(dense_attr(w * a.reshape(channels, *([1] * (w.ndim - 1))), element_type))
    new_b = constant_op(dense_attr(bias * a + (shift - mean * a), element_type))
    folded = ConvOp.create(
        operands=[conv.x, new_w.results[0], new_b.results[0]],
        result_types=[norm.y.type],
        properties=dict(conv.properties),
        attributes=dict(conv.attributes),
    )
    names = [name.data for op in (conv, norm) if isinstance(name := op.attributes.get(NODE_NAME_ATTR), StringAttr)]
    if names:
        folded.attributes[NODE_NAME_ATTR] = StringAttr("+".join(names))
    folded.location = conv.location
    Rewriter.insert_op([new_w, new_b, folded], InsertPoint.before(conv))
    norm.y.replace_all_uses_with(folded.results[0])  # its running statistics are unread (`_foldable`)
    for op in (norm, conv):  # each with the constants (and an absent bias) only it read
        erase_with_dead_operands(op, Rewriter.erase_op, (ConstantOp, NoValueOp))


@dataclass(frozen=True)
class FoldConvBatchNormPass(ModulePass):
    """A BatchNormalization (inference) of a Conv's result goes into the Conv's weights and bias."""

    name = PASS

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for norm in [o for o in op.walk() if isinstance(o, BatchNormalizationOp)]:
            conv = _foldable(norm)
            if conv is not None:
                fold(norm, conv)
