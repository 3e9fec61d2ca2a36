"""hip-fuse-attention: scaled dot-product attention becomes one `hip.attention`.

Runs on tensor-mode hip IR after convert-onnx-to-hip/canonicalize/cse and before
hip-fuse-softmax and hip-fuse-elementwise (which would otherwise take the scale and
mask into the softmax and the NaN guard into chains; a softmax that already has a
scale or bias is not matched). Matched, from the last MatMul back:

    [Transpose(K, swap of the last two dims)]  or any Kᵀ          -> k
    [Mul(Q, c)] [Mul(Kᵀ, c)]                    c a scalar constant -> folded into scale
    S = MatMul(Q, Kᵀ)
    [Mul(S, c) | Mul(c, S) | Div(S, c)]         c a scalar constant -> scale
    [Add(S, M) | Add(M, S)]                     M broadcast to S    -> additive mask
    P = Softmax(S) over the last axis
    [Where(IsNaN(P), 0, P)]                     the torch exports' guard -> zero_nan_rows
    Y = MatMul(P, V)

Every intermediate has its uses inside the pattern (the scores have exactly one), so
nothing of [batch, Sq, Sk] survives: the fused op replaces the last MatMul and the rest
is erased with the inits only it used. A Transpose of K whose only use is the MatMul is
folded away too (the kernel reads K in either layout: `k_transposed` when no Transpose
was there, as in the exports, whose Kᵀ comes out of reshapes around a 3-d transpose).

A mask made by `Where(cond, a, b)` of scalar constants (the exports' `Where(cond, 0,
min)`, one shared by every layer) becomes a keep mask once only fused attentions read
it: they take the i1 `cond` and add `a` or `b` themselves, which is what the Where and
the Add computed, and the float mask buffer and its kernel go. Where `cond` is a constant
that is true everywhere (ViT's and DeiT's exports broadcast an all-true [1, 1, S, 1]) and
`a` is 0, the mask adds 0 to every score: the attentions read no mask at all.

hip-fold-attention-layouts, run next, folds the Transposes and copies that split and
merge heads around each fused attention into its operand layouts.

Not fused: a scale or mask that is not as above (a per-head scale tensor, a mask that
would broadcast the scores to a bigger shape), a head dim that is dynamic or above
`max-head-dim`, rank-1 operands, memref-mode ops. Causal masks are not recognized as
such: the exports build them as boolean tensors, then an additive Where(cond, 0, min)
mask, which is fused as the additive mask it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, builtin, func, tensor
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, StringAttr, f64, i1
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from xhip.dialects.hip import (
    AddOp,
    AttentionOp,
    DivOp,
    ExpandOp,
    IsNaNOp,
    MatmulOp,
    MulOp,
    SoftmaxOp,
    TransposeOp,
    WhereOp,
)
from xhip.dialects.hip.common import rank_of, shape_of
from xhip.passes.contracts import function_body
from xhip.rewrite_rules.dead_operands import erase_with_dead_operands
from xhip.rewrite_rules.scalar_constants import uniform_constant, unit_float_constant

PASS = "hip-fuse-attention"


def _used_only_by(value: SSAValue, *users: Operation) -> bool:
    return bool(value.uses) and all(use.operation in users for use in value.uses)


@dataclass(frozen=True)
class _Scaled:
    """`base` times `factor` (a Mul or Div by a scalar constant), computed by `op`."""

    base: SSAValue
    factor: float
    op: Operation


def _scaled(value: SSAValue, user: Operation) -> _Scaled | None:
    """`value` as a scaled value, when a Mul/Div by a scalar made it for `user` alone."""
    op = value.owner
    if not isinstance(op, MulOp | DivOp) or not _used_only_by(value, user):
        return None
    x, y = op.inputs
    candidates = [(x, y)] if isinstance(op, DivOp) else [(x, y), (y, x)]
    for base, other in candidates:
        c = unit_float_constant(other)
        if c is not None and rank_of(other) <= rank_of(base) and c != 0 and value.type == base.type:
            return _Scaled(base, 1.0 / c if isinstance(op, DivOp) else c, op)
    return None


def _strip_scale(value: SSAValue, user: Operation, erased: list[Operation]) -> tuple[SSAValue, float]:
    scaled = _scaled(value, user)
    if scaled is None:
        return value, 1.0
    erased.append(scaled.op)
    return scaled.base, scaled.factor


def _swapped_last_two(op: TransposeOp) -> bool:
    perm = list(op.perm.get_values())
    rank = len(perm)
    return rank >= 2 and perm == [*range(rank - 2), rank - 1, rank - 2]


def _same_shape(a: SSAValue, b: SSAValue) -> bool:
    """Whether two values are known to have one shape: one type, and either all static or
    written into the same init (cse makes equal `tensor.empty`s one value)."""
    if a.type != b.type:
        return False
    if all(d >= 0 for d in shape_of(a)):
        return True
    return _init_of(a) is not None and _init_of(a) is _init_of(b)


def _init_of(value: SSAValue) -> SSAValue | None:
    op = value.owner
    tied = getattr(op, "tied_init", None)
    return tied(value) if tied is not None else None


@dataclass
class _Match:
    """What the fused op takes, and the ops it replaces (consumers first)."""

    v: SSAValue
    q: SSAValue | None = None
    k: SSAValue | None = None
    mask: SSAValue | None = None
    scale: float = 1.0
    k_transposed: bool = True
    zero_nan_rows: bool = False
    erased: list[Operation] = field(default_factory=list)


def _nan_guard(p: SSAValue, user: Operation, match: _Match) -> SSAValue:
    """The softmax behind `Where(IsNaN(P), 0, P)` (the guard recorded in `match`), else `p`."""
    where = p.owner
    if not isinstance(where, WhereOp) or not _used_only_by(p, user):
        return p
    cond, zero, probs = where.inputs
    isnan = cond.owner
    if (
        isinstance(isnan, IsNaNOp)
        and isnan.inputs[0] is probs
        and unit_float_constant(zero) == 0.0
        and _used_only_by(cond, where)
        and _used_only_by(probs, where, isnan)
        and _same_shape(p, probs)
    ):
        match.erased += [where, isnan]
        match.zero_nan_rows = True
        return probs
    return p


def _softmax_input(p: SSAValue, users: Sequence[Operation], match: _Match) -> SSAValue | None:
    softmax = p.owner
    if not isinstance(softmax, SoftmaxOp) or not _used_only_by(p, *users):
        return None
    if len(softmax.inputs) != 1 or softmax.scale.value.data != 1.0:
        return None  # hip-fuse-softmax's scale and bias: this pass runs before it
    rank = rank_of(p)
    if softmax.axis.value.data % max(rank, 1) != rank - 1:
        return None
    match.erased.append(softmax)
    return softmax.inputs[0]


Step = tuple[SSAValue, Operation]
"""A value of the pattern and the one op of the pattern that reads it."""


def _strip_mask(s: SSAValue, user: Operation, match: _Match) -> Step:
    """The scores before `Add(S, M)` or `Add(M, S)` (M recorded as the mask), else `s`."""
    add = s.owner
    if not isinstance(add, AddOp) or not _used_only_by(s, user):
        return s, user
    for scores, mask in (add.inputs, reversed(add.inputs)):
        if isinstance(scores.owner, MatmulOp | MulOp | DivOp) and scores is not mask and _same_shape(s, scores):
            if rank_of(mask) <= rank_of(scores):
                match.erased.append(add)
                match.mask = mask
                return scores, add
    return s, user


def _strip_scores_scale(s: SSAValue, user: Operation, match: _Match) -> Step:
    scaled = _scaled(s, user)
    if scaled is None or not _same_shape(s, scaled.base):
        return s, user
    match.erased.append(scaled.op)
    match.scale *= scaled.factor
    return scaled.base, scaled.op


def _read_scores(s: SSAValue, user: Operation, match: _Match) -> bool:
    """Q, K and their scales from the scores' MatMul, when `user` alone reads the scores."""
    qk = s.owner
    if not isinstance(qk, MatmulOp) or qk.trans_b.value.data or not _used_only_by(s, user):
        return False  # (a MatMul reading B transposed is not matched: its K layout is the other one)
    q, kt = qk.inputs
    if min(rank_of(q), rank_of(kt)) < 2:
        return False
    match.erased.append(qk)
    q, q_scale = _strip_scale(q, qk, match.erased)
    k_scaled = _scaled(kt, qk)
    k_user = k_scaled.op if k_scaled is not None else qk  # the op that reads K^T
    kt, k_scale = _strip_scale(kt, qk, match.erased)
    match.q, match.k, match.scale = q, kt, match.scale * q_scale * k_scale
    transpose = kt.owner
    if isinstance(transpose, TransposeOp) and _swapped_last_two(transpose) and _used_only_by(kt, k_user):
        match.erased.append(transpose)
        match.k, match.k_transposed = transpose.inputs[0], False
    return True


def match_attention(pv: MatmulOp) -> _Match | None:
    """The attention that ends in `pv` (MatMul(P, V)), if it is one."""
    p, v = pv.inputs
    if not pv.is_tensor_mode or pv.trans_b.value.data or rank_of(v) < 2:
        return None
    match = _Match(v)
    probs = _nan_guard(p, pv, match)
    users = [pv] if probs is p else match.erased[-2:]  # the guard's IsNaN and Where
    s = _softmax_input(probs, users, match)
    if s is None:
        return None
    softmax = probs.owner
    assert isinstance(softmax, SoftmaxOp)  # what _softmax_input matched
    s, user = _strip_mask(s, softmax, match)
    s, user = _strip_scores_scale(s, user, match)
    return match if _read_scores(s, user, match) else None


@dataclass(frozen=True)
class _Fuser:
    """Fuses the attentions of one block (the pass's options)."""

    max_head_dim: int

    def fits(self, match: _Match) -> bool:
        assert match.q is not None
        d, dv = shape_of(match.q)[-1], shape_of(match.v)[-1]
        return 0 < d <= self.max_head_dim and 0 < dv <= self.max_head_dim

    def fuse(self, pv: MatmulOp, match: _Match) -> AttentionOp:
        assert match.q is not None and match.k is not None
        inputs = [match.q, match.k, match.v, *([match.mask] if match.mask is not None else [])]
        properties = {
            "scale": FloatAttr(match.scale, f64),
            "mask_kind": StringAttr("none" if match.mask is None else "additive"),
            "k_transposed": IntegerAttr(int(match.k_transposed), i1),
            "zero_nan_rows": IntegerAttr(int(match.zero_nan_rows), i1),
        }
        fused = AttentionOp(pv.ctx, inputs, list(pv.outputs), properties=properties)
        fused.attributes.update(pv.attributes)
        fused.location = pv.location
        Rewriter.replace_op(pv, fused)
        for op in match.erased:
            _erase(op)
        return fused


def _erase(op: Operation) -> None:
    """Erases `op` and the inits and scalar constants that only it used."""
    erase_with_dead_operands(op, Rewriter.erase_op, (tensor.EmptyOp, arith.ConstantOp))


def _select_mask(value: SSAValue) -> tuple[SSAValue, float, float] | None:
    """(cond, a, b) when `value` is `Where(cond, a, b)` of scalar constants, of cond's shape."""
    where = value.owner
    if not isinstance(where, WhereOp):
        return None
    cond, a, b = where.inputs
    kept, masked = unit_float_constant(a), unit_float_constant(b)
    if kept is None or masked is None or shape_of(cond) != shape_of(value):
        return None
    return cond, kept, masked


def _reads_as_additive_mask(value: SSAValue) -> bool:
    """Whether every use of `value` is the additive mask of a fused attention."""
    return bool(value.uses) and all(
        isinstance(use.operation, AttentionOp)
        and use.operation.mask_kind.data == "additive"
        and use.index == len(use.operation.operands) - 2  # the mask: the last input, before the init
        for use in value.uses
    )


def fold_select_masks(block: Block) -> None:
    """A mask `Where(cond, a, b)` of scalars that only fused attentions read (every layer
    of the exports reads one) becomes their keep mask: they read the i1 `cond` and add
    `a` or `b` themselves, exactly what the Where and the Add computed, and the float
    [.., Sq, Sk] mask buffer and its kernel are gone."""
    for where in [op for op in block.ops if isinstance(op, WhereOp)]:
        mask = where.results[0]
        select = _select_mask(mask)
        if select is None or not _reads_as_additive_mask(mask):
            continue
        cond, kept, masked = select
        if kept == 0.0 and uniform_constant(cond) == 1.0:
            for use in list(mask.uses):
                _without_mask(use.operation)  # type: ignore[arg-type]
            _erase(where)
            _erase_if_dead(cond.owner)
            continue
        for use in list(mask.uses):
            attention = use.operation
            attention.properties.update(
                mask_kind=StringAttr("keep"), kept_value=FloatAttr(kept, f64), masked_value=FloatAttr(masked, f64)
            )
        mask.replace_all_uses_with(cond)
        _erase(where)


def _without_mask(attention: AttentionOp) -> None:
    """`attention` with no mask input: its additive mask is 0 everywhere."""
    properties = {**attention.properties, "mask_kind": StringAttr("none")}
    plain = AttentionOp(attention.ctx, list(attention.inputs[:3]), list(attention.outputs), properties=properties)
    plain.attributes.update(attention.attributes)
    plain.location = attention.location
    Rewriter.replace_op(attention, plain)


def _erase_if_dead(op: Operation | Block) -> None:
    """Erases the broadcasts of a constant that nothing reads any more, down to the constant
    (`_erase` takes a constant that only the last broadcast read with it)."""
    while isinstance(op, ExpandOp) and not op.results[0].uses:
        source = op.inputs[0].owner
        _erase(op)
        op = source
    if isinstance(op, arith.ConstantOp) and op.parent is not None and not op.results[0].uses:
        _erase(op)


@dataclass(frozen=True)
class FuseAttentionPass(ModulePass):
    """MatMul(Q, Kᵀ) -> scale -> mask -> Softmax -> MatMul(P, V) becomes one flash-style kernel."""

    name = PASS

    max_head_dim: int = 128
    """The largest head dim (of Q/K and of V) fused: past 64 the kernel is the one with a
    thread per query row, which holds the row and its output accumulator in registers."""

    def __post_init__(self):
        if self.max_head_dim < 1:
            raise ValueError(f"max-head-dim must be at least 1, not {self.max_head_dim}")

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        fuser = _Fuser(self.max_head_dim)
        for function in [f for f in op.walk() if isinstance(f, func.FuncOp)]:
            block = function_body(function, PASS)
            if block is None:
                continue
            for pv in [o for o in block.ops if isinstance(o, MatmulOp)]:
                if pv.parent is None:  # erased as part of an earlier match
                    continue
                match = match_attention(pv)
                if match is not None and fuser.fits(match):
                    fuser.fuse(pv, match)
            fold_select_masks(block)
