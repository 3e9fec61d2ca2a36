"""`hip.attention`: scaled dot-product attention as one kernel.

    %r = hip.attention(%ctx) ins(%q, %k, %v, %mask : tensor<?x12x?x64xf32>, tensor<?x12x?x64xf32>,
                                 tensor<?x12x?x64xf32>, tensor<?x1x?x?xf32>)
           outs(%init : tensor<?x12x?x64xf32>) {scale = 0.125 : f64, mask_kind = "additive"}
           -> tensor<?x12x?x64xf32>

computes, per batch index and query row i (every dim before the last two is a batch dim,
broadcast like MatMul's),

    s[i, j] = scale * (q[i, :] . k[j, :]) (+ mask[i, j])        j < Sk
    y[i, :] = sum_j softmax_j(s[i, :]) * v[j, :]

- `k` is [.., Sk, D], or [.., D, Sk] (`k_transposed`: the MatMul's own Kᵀ operand when
  no Transpose of K was there to fold away);
- `mask_kind`: "none" (three inputs), "additive" (a fourth input of the data's element
  type, added to the scaled scores) or "keep" (a fourth i1 input: `kept_value` is added
  where it is true, `masked_value` (-inf by default) where it is false: the exports'
  `Where(cond, 0, min)` mask, fused); the mask broadcasts to the scores [.., Sq, Sk];
- `zero_nan_rows`: a query row whose softmax is NaN (every key -inf, or a NaN score) gives
  zeros instead: the `Where(IsNaN(p), 0, p)` guard of the torch exports, fused;
- layouts (optional, absent = as stored): the kernel reads `transpose(q, q_perm)` (and k
  through `k_perm`, v through `v_perm`) and stores its result as `transpose(y, y_perm)`
  into the out, `perm` meaning what it means for `hip.transpose` (dim i is dim perm[i]).
  They are the Transposes around an export's attention, folded into the strides the
  kernel reads and writes with: q/k/v straight from the projection's [b, s, h, d]
  output, y straight into the [b, s, h, d] buffer the next projection reads.
  q_perm, v_perm and y_perm keep the last dim last (the head dims compiled into the
  kernel are the types' last dims); k_perm may be any permutation.

The [.., Sq, Sk] scores are never stored: the GPU kernel keeps them per key tile in
registers (templates/attention.hip.j2). hip-fuse-attention (xhip/passes/fuse_attention.py)
builds these ops.
"""

from __future__ import annotations

from typing import ClassVar, Literal, get_args

from xdsl.dialects.builtin import BoolAttr, DenseArrayBase, FloatAttr, IntegerAttr, StringAttr, f64, i1, i64
from xdsl.ir import SSAValue
from xdsl.irdl import irdl_op_definition, opt_prop_def, prop_def

from xhip.dialects.hip.common import rank_of, shape_of, verify_error
from xhip.dialects.hip.dps import Arity, DPSOp, ElementKind, ShapeRule

MaskKind = Literal["none", "additive", "keep"]
MASK_KINDS: tuple[str, ...] = get_args(MaskKind)

Perm = tuple[int, ...]

LAYOUTS: tuple[str, ...] = ("q_perm", "k_perm", "v_perm", "y_perm")
"""The layout properties, in operand order: q, k, v, then the out."""


def perm_attr(perm: Perm) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, list(perm))


@irdl_op_definition
class AttentionOp(DPSOp):
    """`ins(q, k, v[, mask]) outs(y)`: softmax(scale * q @ kᵀ (+ mask)) @ v."""

    name = "hip.attention"
    TEMPLATE: ClassVar[str] = "attention"
    SHAPE_RULE: ClassVar[ShapeRule] = ShapeRule.ATTENTION
    INPUTS: ClassVar[Arity] = (3, 4)
    MAY_ALIAS_INPUT: ClassVar[bool] = False  # every output row reads all of k and v
    scale = prop_def(FloatAttr, default_value=FloatAttr(1.0, f64))
    mask_kind = prop_def(StringAttr, default_value=StringAttr("none"))
    k_transposed = prop_def(BoolAttr, default_value=IntegerAttr(0, i1))
    zero_nan_rows = prop_def(BoolAttr, default_value=IntegerAttr(0, i1))
    kept_value = prop_def(FloatAttr, default_value=FloatAttr(0.0, f64))
    masked_value = prop_def(FloatAttr, default_value=FloatAttr(float("-inf"), f64))
    q_perm = opt_prop_def(DenseArrayBase.constr(i64))
    k_perm = opt_prop_def(DenseArrayBase.constr(i64))
    v_perm = opt_prop_def(DenseArrayBase.constr(i64))
    y_perm = opt_prop_def(DenseArrayBase.constr(i64))

    @property
    def mask(self):
        return self.inputs[3] if len(self.inputs) == 4 else None

    def verify_semantics(self) -> None:
        q, k, v, *_ = self.inputs
        self.check_element(q, ElementKind.FLOAT, "q")
        self.check_same_element([q, k, v, self.outputs[0]], "q, k, v and output")
        self._verify_mask()
        for value, what in ((q, "q"), (k, "k"), (v, "v")):
            if rank_of(value) < 2:
                raise verify_error(self, f"{what} must have rank >= 2, got {value.type}")
        self.check_rank(self.outputs[0], max(rank_of(x) for x in (q, k, v)), "output")
        self._verify_layouts()

    def layout(self, name: str) -> Perm | None:
        """The perm of layout property `name` (one of LAYOUTS), None when absent."""
        attr = self.properties.get(name)
        return tuple(attr.get_values()) if isinstance(attr, DenseArrayBase) else None

    def read_perms(self) -> list[Perm | None]:
        """q's, k's and v's layouts: the kernel reads `transpose(x, perm)`."""
        return [self.layout(name) for name in LAYOUTS[:3]]

    def _verify_layouts(self) -> None:
        operands: list[SSAValue] = [*self.inputs[:3], self.outputs[0]]
        for name, value in zip(LAYOUTS, operands):
            perm = self.layout(name)
            if perm is None:
                continue
            rank = rank_of(value)
            if sorted(perm) != list(range(rank)):
                raise verify_error(self, f"{name} {list(perm)} is not a permutation of the rank {rank} of {value.type}")
            if name != "k_perm" and perm[-1] != rank - 1:
                raise verify_error(self, f"{name} {list(perm)} must keep the last (head) dim last")

    def _verify_mask(self) -> None:
        kind = self.mask_kind.data
        if kind not in MASK_KINDS:
            raise verify_error(self, f"mask_kind must be one of {', '.join(MASK_KINDS)}, got \"{kind}\"")
        mask = self.mask
        if (mask is None) != (kind == "none"):
            raise verify_error(self, f'mask_kind "{kind}" needs {"no" if kind == "none" else "a"} fourth (mask) input')
        if mask is None:
            return
        if kind == "keep":
            self.check_element(mask, ElementKind.BOOL, "a keep mask")
        else:
            self.check_same_element([mask, self.inputs[0]], "an additive mask and q")

    def head_dims(self) -> tuple[int, int]:
        """(D, Dv): the contracted and the value head dims (-1 where dynamic)."""
        q, _, v, *_ = self.inputs
        return shape_of(q)[-1], shape_of(v)[-1]
