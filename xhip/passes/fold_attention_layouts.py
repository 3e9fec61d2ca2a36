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
    ExpandShape(Transpose(CollapseShape(K) [N, S, D], [0, 2, 1]), [*A, D, S])  likewise
                                                        (a decoder's: its Reshapes are views)
    Transpose(Attention(...), p)                     -> Attention(...) writing the
                                                        Transpose's init, y_perm p
    ExpandShape(ExtractSlice(X) of whole rows, [.., h, d])
                                                     -> ExtractSlice(ExpandShape(X))
    K, V = CollapseShape(Expand(x [b, G, 1, S, D]) -> [b, G, R, S, D]) -> [b, G*R, S, D]
                                                     -> x, over batch dims [b, G, R]

The fourth one is GPT-2's fused QKV projection [b, s, 3*h*d] split into q, k, v: a
slice of the reshaped whole is a strided view of the GEMM's buffer, and q, k and v of
one projection share one ExpandShape (one-shot-bufferize views an expand of a strided
slice too; the hoist makes the three one view and leaves no reshape between a slice
and the attention).

The last one is Llama's grouped-query attention (repeat_kv): the kernel broadcasts a
unit batch dim with stride 0, so K and V need no repeated copy once q, the mask and y
are viewed with their head dim split into [G, R] (q must be a buffer of its own, so the
split is a view; y is written into a [.., G, R, ..] buffer merged back for its users).
A grouped K or V that is a Transpose with the unit dim added (Llama's V) is read through
the Transpose too: the unit dim goes onto its source instead.

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
from xdsl.dialects.builtin import DYNAMIC_INDEX, ArrayAttr, IntegerAttr, TensorType, i1, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.transforms.dead_code_elimination import is_trivially_dead

from xhip.dialects.hip import AttentionOp, DPSOp, ExpandOp, TransposeOp
from xhip.dialects.hip.attention import LAYOUTS, Perm, perm_attr
from xhip.dialects.hip.common import element_type_of, rank_of, shape_of
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


def _swapped_between(value: SSAValue, outer_class: type[Operation], inner_class: type[Operation]) -> tuple[Operation, Operation] | None:
    """(outer, inner) when `value` is outer(Transpose(inner(K), [0, 2, 1])): Kᵀ on merged
    batch dims, `outer` and `inner` the ops that merge and split them."""
    outer = value.owner
    if not isinstance(outer, outer_class):
        return None
    swap = _transposed(outer.operands[0])
    if swap is None or swap[1] != (0, 2, 1) or not isinstance(inner := swap[0].owner, inner_class):
        return None
    return outer, inner


def _swap_through_reshapes(value: SSAValue) -> Step | None:
    """(K, swap of its last two dims) when `value` is the exports' Kᵀ made on merged batch
    dims: Reshape(Transpose(Reshape(K) -> [N, S, D], [0, 2, 1]), [*A, D, S]), K [*A, S, D]."""
    if (ops := _swapped_between(value, tensor.ReshapeOp, tensor.ReshapeOp)) is None:
        return None
    inner = ops[1]
    assert isinstance(inner, tensor.ReshapeOp)
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


def _swap_through_views(value: SSAValue) -> Step | None:
    """(K, swap of its last two dims) when `value` is Kᵀ made on merged batch dims with
    the reshapes canonicalized into views: ExpandShape(Transpose(CollapseShape(K) ->
    [N, S, D], [0, 2, 1]), [*A, D, S]), K [*A, S, D] (a decoder's K: the Concat of its
    cache and the new key, whose Reshapes folded to views)."""
    if (ops := _swapped_between(value, tensor.ExpandShapeOp, tensor.CollapseShapeOp)) is None:
        return None
    outer, inner = ops
    assert isinstance(outer, tensor.ExpandShapeOp) and isinstance(inner, tensor.CollapseShapeOp)
    k = inner.src
    dims, result = tensor_dims(k), tensor_dims(value)
    rank = len(dims)
    merged = [list(range(rank - 2)), [rank - 2], [rank - 1]]
    if rank < 3 or len(result) != rank or groups_of(inner.reassociation) != merged or groups_of(outer.reassociation) != merged:
        return None
    *batch, s, d = dims
    *result_batch, result_d, result_s = result
    if not all(same_extent(a, b) for a, b in [(result_d, d), (result_s, s), *zip(result_batch, batch)]):
        return None
    return k, (*range(rank - 2), rank - 1, rank - 2)


def read_through(value: SSAValue, perm: Perm | None) -> tuple[SSAValue, Perm | None]:
    """The value under `value`'s Transposes (and Kᵀ reshapes), with the perm that reads
    it as `transpose(value, perm)` did."""
    while (step := _transposed(value) or _swap_through_reshapes(value) or _swap_through_views(value)) is not None:
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


# ---- grouped-query heads -----------------------------------------------------------------


def _repeated_heads(value: SSAValue) -> tuple[SSAValue, int, tuple[int, int]] | None:
    """(x, axis, (G, R)) when `value` repeats grouped K/V heads (Llama's repeat_kv):
    CollapseShape(Expand(x [.., G, 1, S, D]) -> [.., G, R, S, D]) merging G and R back
    into dim `axis`. Over batch dims [.., G, R] the attention reads x itself, its unit
    dim broadcast like any batch dim (stride 0)."""
    collapse = value.owner
    if not isinstance(collapse, tensor.CollapseShapeOp):
        return None
    groups = groups_of(collapse.reassociation)
    merged = [index for index, group in enumerate(groups) if len(group) != 1]
    repeat = collapse.src.owner
    if len(merged) != 1 or len(groups[merged[0]]) != 2 or not isinstance(repeat, ExpandOp) or not repeat.is_tensor_mode:
        return None
    axis, (outer, inner) = merged[0], groups[merged[0]]
    source, shape = repeat.inputs[0], shape_of(collapse.src)
    if shape_of(source)[inner:inner + 1] != (1,) or len(shape_of(source)) != len(shape) or inner >= len(shape) - 2:
        return None
    before, after = tensor_dims(source), tensor_dims(collapse.src)
    if min(shape[outer], shape[inner]) < 1 or not all(same_extent(before[d], after[d]) for d in range(len(shape)) if d != inner):
        return None
    return source, axis, (shape[outer], shape[inner])


def _split_dims(value: SSAValue, axis: int, extents: tuple[int, int]) -> list[Dim] | None:
    """`value`'s extents with dim `axis` split into `extents`; None if one is unknown or
    dim `axis` is neither G*R nor 1 (then 1, 1)."""
    dims = tensor_dims(value)
    extent = shape_of(value)[axis]
    if extent == 1:
        extents = (1, 1)
    if any(d is None for d in dims) or extent != extents[0] * extents[1]:
        return None
    return [*dims[:axis], *extents, *dims[axis + 1 :]]  # type: ignore[list-item]


def _split_groups(rank: int, axis: int) -> ArrayAttr[ArrayAttr[IntegerAttr]]:
    """The reassociation between rank `rank` and rank + 1 with dim `axis` split in two."""
    groups = [[d] for d in range(axis)] + [[axis, axis + 1]] + [[d + 1] for d in range(axis + 1, rank)]
    return ArrayAttr([ArrayAttr([IntegerAttr(d, i64) for d in group]) for group in groups])


def _split(value: SSAValue, axis: int, dims: list[Dim]) -> tensor.ExpandShapeOp:
    """`value` viewed with dim `axis` split (`dims`, from `_split_dims`): an ExpandShape."""
    static = static_or_dynamic(dims)
    result = TensorType(element_type_of(value), static)
    return tensor.ExpandShapeOp(value, [d for d in dims if isinstance(d, SSAValue)], _split_groups(len(dims) - 1, axis), static, result)


def _split_perm(perm: Perm, axis: int) -> Perm:
    """y_perm over the split dims: stored dim t is logical dim perm[t]; the logical head
    dim `axis` (at stored dim perm.index(axis)) becomes logical dims axis, axis + 1."""
    split: list[int] = []
    for logical in perm:
        split += [axis, axis + 1] if logical == axis else [logical + (logical > axis)]
    return tuple(split)


def _mask_split(mask: SSAValue, rank: int, axis: int, extents: tuple[int, int]) -> tuple[int, list[Dim]] | None | bool:
    """(dim, split extents) of the mask over the split dims where it has the head dim (its
    dims are right-aligned); True where it starts after it (it lines up with the same
    dims either way, as it is); None where an extent is unknown."""
    at = axis - (rank - rank_of(mask))
    if at < 0:
        return True
    dims = _split_dims(mask, at, extents)
    return None if dims is None else (at, dims)


def _unit_dim_over_transpose(value: SSAValue) -> tuple[tensor.ExpandShapeOp, Perm] | None:
    """(W5, p5), `value` = `transpose(W5, p5)`, when `value` is ExpandShape(Transpose(W, p))
    adding one unit dim (Llama's grouped V: [b, G, 1, S, D] of the [b, G, S, D] Transpose
    of the projection's [b, S, G, D]); W5 is W with the unit dim added (not inserted).
    Read through p5, the grouped heads need no Transpose of their own."""
    expand = value.owner
    if not isinstance(expand, tensor.ExpandShapeOp) or (step := _transposed(expand.src)) is None:
        return None
    source, perm = step
    groups = groups_of(expand.reassociation)
    wide = [g for g, group in enumerate(groups) if len(group) != 1]
    if len(wide) != 1 or len(groups[wide[0]]) != 2:
        return None
    dim = wide[0]
    unit = next((d for d in groups[dim] if shape_of(value)[d] == 1), None)
    dims = tensor_dims(source)
    if unit is None or any(d is None for d in dims):
        return None
    at = perm[dim]  # W gets its unit dim just before the dim that dim `dim` reads
    shifted = [p + (p >= at) for p in perm]
    split_perm = tuple(at if d == unit else shifted[d - (d > unit)] for d in range(len(perm) + 1))
    return _split(source, at, [*dims[:at], 1, *dims[at:]]), split_perm  # type: ignore[list-item]


def _group_heads(attention: AttentionOp) -> AttentionOp | None:
    """The attention over batch dims [.., G, R] instead of [.., G*R] when K and V are G
    grouped heads repeated R times: it reads the grouped K and V (broadcast over R)
    instead of the repeated copies; q, the mask and y are views split the same way.
    None when K and V are not such repeats, or a layout, Kᵀ or an unknown extent is in
    the way (q must be a buffer of its own, read as stored: a contiguous split)."""
    q, k, v, *mask = attention.inputs
    k_heads, v_heads = _repeated_heads(k), _repeated_heads(v)
    if k_heads is None or v_heads is None or k_heads[1:] != v_heads[1:] or attention.k_transposed.value.data:
        return None
    if any(attention.layout(name) is not None for name in LAYOUTS[:3]) or not isinstance(q.owner, DPSOp):
        return None
    _, axis, extents = k_heads
    out = attention.outputs[0]
    y_perm = attention.layout("y_perm") or tuple(range(rank_of(out)))
    stored_axis = y_perm.index(axis)
    q_dims, out_dims = _split_dims(q, axis, extents), _split_dims(out, stored_axis, extents)
    mask_split = _mask_split(mask[0], rank_of(q), axis, extents) if mask else True
    if q_dims is None or out_dims is None or mask_split is None or not isinstance(out.owner, tensor.EmptyOp):
        return None
    views = [_split(q, axis, q_dims)]
    if isinstance(mask_split, tuple):
        views.append(_split(mask[0], *mask_split))
    masks = [views[-1].result] if isinstance(mask_split, tuple) else mask
    kv: list[SSAValue] = [k_heads[0], v_heads[0]]
    layouts: dict[str, Perm] = {}
    for index, name in ((1, "k_perm"), (2, "v_perm")):
        through = _unit_dim_over_transpose(kv[index - 1])
        if through is not None and through[1][-1] == len(through[1]) - 1:
            views.append(through[0])
            kv[index - 1], layouts[name] = through[0].result, through[1]
    init = tensor.EmptyOp([d for d in out_dims if isinstance(d, SSAValue)], TensorType(element_type_of(out), static_or_dynamic(out_dims)))
    properties = {key: value for key, value in attention.properties.items() if key not in (SEGMENT_SIZES, *LAYOUTS)}
    grouped = AttentionOp(attention.ctx, [views[0].result, *kv, *masks], [init.tensor], list(attention.scalars), properties)
    layouts["y_perm"] = _split_perm(y_perm, axis)
    for name in LAYOUTS:  # in operand order, as the other folds leave them
        _set_layout(grouped, name, layouts.get(name))
    grouped.attributes.update(attention.attributes)
    grouped.location = attention.location
    merged = tensor.CollapseShapeOp.build(
        operands=[grouped.res[0]], result_types=[out.type], properties={"reassociation": _split_groups(rank_of(out), stored_axis)}
    )
    Rewriter.insert_op([*views, init, grouped, merged], InsertPoint.before(attention))
    attention.res[0].replace_all_uses_with(merged.results[0])
    erase_dead([k, v, out], attention)
    return grouped


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
    return _group_heads(attention) or attention


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
