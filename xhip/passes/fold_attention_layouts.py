"""hip-fold-attention-layouts: the copies around each fused attention become layouts.

Runs right after hip-fuse-attention, on tensor-mode hip IR. The exports split heads
with Reshape + Transpose around every attention, and each Transpose is a kernel writing
a fresh buffer: q, k and v to [b, h, s, d], Kᵀ once more, the result back to
[b, s, h, d] for the output projection. The attention kernel takes any strides, so each
of them folds into the op's layouts (q_perm, k_perm, v_perm, y_perm; see
xhip/dialects/hip/attention.py). Tensor IR has value semantics: every rewrite computes
the same values, only one-shot-bufferize then sees views instead of copies:

    x = Transpose(w, p), read by the attention       -> w, with x_perm p (chains compose)
    Reshape(Transpose(Reshape(K) [N, S, D], [0, 2, 1]), [*A, D, S])  with K [*A, S, D]
                                                     -> K, through a swap of its last dims
    Transpose(Attention(...), p)                     -> Attention(...) writing the
                                                        Transpose's init, y_perm p
    ExpandShape(ExtractSlice(X) of whole rows, [.., h, d])
                                                     -> ExtractSlice(ExpandShape(X))

The last one is GPT-2's fused QKV projection [b, s, 3*h*d] split into q, k, v:
one-shot-bufferize copies a strided slice before reshaping it, but a slice of the
reshaped whole is a strided view of the GEMM's buffer (q, k and v of one projection
share one ExpandShape).

Kᵀ's extents are checked, not assumed: the merged dims are the ones split back, the key
extent of the first Reshape is K's (or `select(S == 0, c, S)`, ONNX Reshape's "0 copies
the input dim", which is S whenever K has elements at all). K ends up read with its
head dim where the kernel loads it coalesced (`k_transposed` flips with the swap);
q_perm, v_perm and y_perm must keep the head dim last (hip.attention), else that
operand keeps its Transposes. The ops left without uses are erased. Memref-mode
attentions are left alone (reading a Transpose's source instead would need a proof
that nothing writes it in between). A second run finds nothing to fold.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import prod

from xdsl.context import Context
from xdsl.dialects import arith, builtin, func, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, IntegerAttr, TensorType, i1
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.transforms.dead_code_elimination import is_trivially_dead

from xhip.dialects.hip import AttentionOp, DPSOp, TransposeOp
from xhip.dialects.hip.attention import LAYOUTS, Perm, perm_attr
from xhip.dialects.hip.common import element_type_of, shape_of
from xhip.index.host_eval import constant_int
from xhip.passes.contracts import function_body
from xhip.rewrite_rules.bufferize.extents import mixed_dims
from xhip.rewrite_rules.bufferize.hip_ops import SEGMENT_SIZES
from xhip.rewrite_rules.bufferize.types import Dim, groups_of, static_or_dynamic

PASS = "hip-fold-attention-layouts"

Step = tuple[SSAValue, Perm]
"""`value` is `transpose(source, perm)`: (source, perm)."""


# ---- extents --------------------------------------------------------------------------


def tensor_dims(value: SSAValue) -> list[Dim | None]:
    """Each extent of tensor `value`: static from its type, else the value the defining
    op sized it with (None where that is not one value)."""
    shape = shape_of(value)
    stated = _stated_dims(value)
    return [d if d != DYNAMIC_INDEX else (stated[i] if stated is not None else None) for i, d in enumerate(shape)]


def _stated_dims(value: SSAValue) -> Sequence[Dim | None] | None:
    op = value.owner
    if isinstance(op, tensor.EmptyOp):
        return mixed_dims(shape_of(value), op.dynamic_sizes)
    if isinstance(op, DPSOp):
        init = op.tied_init(value)
        return tensor_dims(init) if init is not None else None
    if isinstance(op, tensor.ExpandShapeOp):
        return mixed_dims(op.static_output_shape.get_values(), op.dynamic_output_shape)
    if isinstance(op, tensor.ReshapeOp) and isinstance(op.shape.owner, tensor.FromElementsOp):
        return list(op.shape.owner.elements)
    if isinstance(op, tensor.ExtractSliceOp) and len(op.static_sizes) == len(shape_of(value)):
        return mixed_dims(op.static_sizes.get_values(), op.sizes)
    if isinstance(op, tensor.CollapseShapeOp):
        source = tensor_dims(op.src)
        return [source[group[0]] if len(group) == 1 else None for group in groups_of(op.reassociation)]
    return None


def _static(dim: Dim | None) -> Dim | None:
    """`dim`, an index constant as its int."""
    if isinstance(dim, SSAValue) and (value := constant_int(dim)) is not None:
        return value
    return dim


def same_extent(a: Dim | None, b: Dim | None) -> bool:
    """Whether two extents are equal on every run: equal ints, or one SSA value."""
    a, b = _static(a), _static(b)
    if a is None or b is None:
        return False
    return a is b if isinstance(a, SSAValue) or isinstance(b, SSAValue) else a == b


def is_extent_of(extent: Dim | None, value: SSAValue, axis: int) -> bool:
    """Whether `extent` is dim `axis` of tensor `value` on every run."""
    dim = extent.owner if isinstance(extent, SSAValue) else None
    if isinstance(dim, tensor.DimOp) and dim.source is value and constant_int(dim.index) == axis:
        return True
    return same_extent(extent, tensor_dims(value)[axis])


def _same_unless_empty(extent: Dim | None, dim: Dim | None) -> bool:
    """Whether `extent` is `dim` whenever `dim` is not 0: `dim` itself, or ONNX Reshape's
    `select(dim == 0, c, dim)`."""
    if same_extent(extent, dim):
        return True
    select = extent.owner if isinstance(extent, SSAValue) else None
    if not isinstance(select, arith.SelectOp) or select.rhs is not dim:
        return False
    compare = select.cond.owner
    if not isinstance(compare, arith.CmpiOp) or compare.predicate.value.data != 0:  # eq
        return False
    return (compare.lhs is dim and constant_int(compare.rhs) == 0) or (compare.rhs is dim and constant_int(compare.lhs) == 0)


# ---- what an operand reads through -------------------------------------------------------


def _transposed(value: SSAValue) -> Step | None:
    op = value.owner
    if isinstance(op, TransposeOp) and op.is_tensor_mode:
        return op.inputs[0], tuple(op.perm.get_values())
    return None


def _swap_through_reshapes(value: SSAValue) -> Step | None:
    """(K, swap of its last two dims) when `value` is the exports' Kᵀ made on merged batch
    dims: Reshape(Transpose(Reshape(K) -> [N, S, D], [0, 2, 1]), [*A, D, S]), K [*A, S, D]."""
    outer = value.owner
    if not isinstance(outer, tensor.ReshapeOp):
        return None
    swap = _transposed(outer.source)
    if swap is None or swap[1] != (0, 2, 1) or not isinstance(inner := swap[0].owner, tensor.ReshapeOp):
        return None
    k = inner.source
    dims, merged, result = tensor_dims(k), tensor_dims(inner.result), tensor_dims(value)
    if len(dims) < 3 or len(result) != len(dims):
        return None
    *batch, s, d = dims
    _, merged_s, merged_d = merged
    *result_batch, result_d, result_s = result
    equal = [(merged_d, d), (result_d, d), (result_s, s), *zip(result_batch, batch)]
    if not (_same_unless_empty(merged_s, s) and all(same_extent(a, b) for a, b in equal)):
        return None
    rank = len(dims)
    return k, (*range(rank - 2), rank - 1, rank - 2)


def read_through(value: SSAValue, perm: Perm | None) -> tuple[SSAValue, Perm | None]:
    """The value under `value`'s Transposes (and Kᵀ reshapes), with the perm that reads
    it as `transpose(value, perm)` did."""
    while (step := _transposed(value) or _swap_through_reshapes(value)) is not None:
        value, inner = step
        perm = inner if perm is None else tuple(inner[p] for p in perm)
    return value, perm


def _is_identity(perm: Perm) -> bool:
    return list(perm) == list(range(len(perm)))


def _set_layout(attention: AttentionOp, name: str, perm: Perm | None) -> None:
    if perm is None or _is_identity(perm):
        attention.properties.pop(name, None)
    else:
        attention.properties[name] = perm_attr(perm)


def _coalesced_k(attention: AttentionOp, perm: Perm) -> Perm:
    """`perm` with K's head dim stored last where the swap allows it, `k_transposed`
    flipped to match (the kernel loads K along its stored last dim)."""
    last = len(perm) - 1
    if perm[-1] == last or perm[-2] != last:
        return perm
    transposed = attention.k_transposed.value.data != 0
    attention.properties["k_transposed"] = IntegerAttr(int(not transposed), i1)
    return (*perm[:-2], perm[-1], perm[-2])


# ---- whole rows of a slice ---------------------------------------------------------------


def _row_window(value: SSAValue) -> tuple[SSAValue, int, int, int] | None:
    """(source, axis, offset, size) when `value` is a unit-stride ExtractSlice that cuts
    one dim of its source at static bounds and takes every other dim whole."""
    op = value.owner
    if not isinstance(op, tensor.ExtractSliceOp) or len(op.static_sizes) != len(shape_of(value)):
        return None
    offsets = [_static(d) for d in mixed_dims(op.static_offsets.get_values(), op.offsets)]
    sizes = [_static(d) for d in mixed_dims(op.static_sizes.get_values(), op.sizes)]
    strides = [_static(d) for d in mixed_dims(op.static_strides.get_values(), op.strides)]
    cut = [axis for axis in range(len(sizes)) if not (offsets[axis] == 0 and is_extent_of(sizes[axis], op.source, axis))]
    if any(stride != 1 for stride in strides) or len(cut) != 1:
        return None
    offset, size = offsets[cut[0]], sizes[cut[0]]
    if not isinstance(offset, int) or not isinstance(size, int):
        return None
    return op.source, cut[0], offset, size


def hoist_slice(value: SSAValue) -> SSAValue | None:
    """`ExtractSlice(ExpandShape(X))` computing `value` = `ExpandShape(ExtractSlice(X))`,
    when the slice takes whole rows of the dim the expand splits (GPT-2's q, k, v out of
    [b, s, 3*h*d]: [.., 12, 64] rows 0, 12, 24 of [.., 36, 64]); None otherwise."""
    expand = value.owner
    if not isinstance(expand, tensor.ExpandShapeOp) or (window := _row_window(expand.src)) is None:
        return None
    source, axis, offset, size = window
    group = groups_of(expand.reassociation)[axis]
    out = mixed_dims(expand.static_output_shape.get_values(), expand.dynamic_output_shape)
    inner = [out[d] for d in group[1:]]
    extent = shape_of(source)[axis]
    if not all(isinstance(d, int) for d in inner) or extent == DYNAMIC_INDEX:
        return None
    row = prod(inner)  # type: ignore[arg-type]
    if row == 0 or offset % row or size % row or extent % row:
        return None
    whole = [*out[: group[0]], extent // row, *out[group[0] + 1 :]]
    static = static_or_dynamic(whole)
    reshaped = tensor.ExpandShapeOp(
        source, [d for d in whole if isinstance(d, SSAValue)], expand.reassociation, static,
        TensorType(element_type_of(source), static),
    )  # fmt: skip
    shared = _equal_earlier(reshaped, expand)
    if shared is None:
        Rewriter.insert_op(reshaped, InsertPoint.before(expand))
    else:
        reshaped.erase()  # never inserted: drop its use of the source
    offsets = [offset // row if d == group[0] else 0 for d in range(len(out))]
    rows = tensor.ExtractSliceOp(shared or reshaped, offsets, out, [1] * len(out), value.type)
    Rewriter.insert_op(rows, InsertPoint.before(expand))
    return rows.result


def _equal_earlier(new: tensor.ExpandShapeOp, before: Operation) -> tensor.ExpandShapeOp | None:
    """An ExpandShape of the same source into the same shape before `before` (q, k and v
    of one projection share one), so the hoisted slices view one value."""
    for use in new.src.uses:
        op = use.operation
        if (
            isinstance(op, tensor.ExpandShapeOp) and op.parent is before.parent and op.is_before_in_block(before)
            and op.result.type == new.result.type and op.reassociation == new.reassociation
            and op.static_output_shape == new.static_output_shape and tuple(op.dynamic_output_shape) == tuple(new.dynamic_output_shape)
        ):  # fmt: skip
            return op
    return None


# ---- folding ---------------------------------------------------------------------------


def _fold_input(attention: AttentionOp, index: int) -> SSAValue | None:
    """Reads input #index (q, k, v) through its Transposes; the operand it read before,
    or None when nothing folded."""
    name = LAYOUTS[index]
    operand = attention.inputs[index]
    base, perm = read_through(operand, attention.layout(name))
    if base is operand or perm is None:
        return None
    if name == "k_perm":
        perm = _coalesced_k(attention, perm)
    elif perm[-1] != len(perm) - 1:
        return None  # the head dim would not be the type's last: keep the Transposes
    _set_layout(attention, name, perm)
    attention.operands[1 + len(attention.scalars) + index] = base
    return operand


def _fold_output(attention: AttentionOp) -> AttentionOp | None:
    """The attention writing the init of the Transpose that is its result's one use,
    through y_perm; None when there is no such Transpose."""
    (result,) = attention.res
    use = result.get_unique_use()
    transpose = use.operation if use is not None else None
    if not isinstance(transpose, TransposeOp) or not transpose.is_tensor_mode:
        return None
    outer = tuple(transpose.perm.get_values())
    if outer[-1] != len(outer) - 1:
        return None
    inner = attention.layout("y_perm")
    properties = {k: v for k, v in attention.properties.items() if k != SEGMENT_SIZES}
    folded = AttentionOp(attention.ctx, list(attention.inputs), list(transpose.outputs), list(attention.scalars), properties)
    _set_layout(folded, "y_perm", outer if inner is None else tuple(inner[p] for p in outer))
    folded.attributes.update(attention.attributes)
    folded.location = attention.location
    Rewriter.replace_op(transpose, folded)
    erase_dead([attention.outputs[0]], attention)
    return folded


def erase_dead(values: Sequence[SSAValue], *ops: Operation) -> None:
    """Erases `ops`, then the definitions of `values` and everything under them that is
    left without uses and without effects (the Transposes, reshapes and their extents)."""
    for op in ops:
        Rewriter.erase_op(op)
    work = [v.owner for v in values if isinstance(v.owner, Operation)]
    while work:
        op = work.pop()
        if op.parent is None or not is_trivially_dead(op):
            continue
        work += [v.owner for v in op.operands if isinstance(v.owner, Operation)]
        Rewriter.erase_op(op)


def fold_layouts(attention: AttentionOp) -> AttentionOp:
    """`attention` (or the op that replaced it) reading and writing through layouts
    instead of the Transposes and copies around it; a tensor-mode op (value semantics
    make every rewrite safe)."""
    assert attention.is_tensor_mode
    replaced = [old for index in range(3) if (old := _fold_input(attention, index)) is not None]
    for operand in dict.fromkeys(attention.inputs[:3]):
        hoisted = hoist_slice(operand)
        if hoisted is not None:
            operand.replace_all_uses_with(hoisted)  # the same value: every reader may take it
            replaced.append(operand)
    erase_dead(replaced)
    while (folded := _fold_output(attention)) is not None:
        attention = folded
    return attention


@dataclass(frozen=True)
class FoldAttentionLayoutsPass(ModulePass):
    """The Transposes and slice copies around each fused attention become its operand layouts."""

    name = PASS

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for function in [f for f in op.walk() if isinstance(f, func.FuncOp)]:
            block = function_body(function, PASS)
            if block is None:
                continue
            for attention in [o for o in block.ops if isinstance(o, AttentionOp) and o.is_tensor_mode]:
                fold_layouts(attention)
