"""onnx-merge-sibling-matmuls: MatMuls of one input by constant weights become one MatMul and a Split.

Attention projects its input three times, `Q = X @ Wq`, `K = X @ Wk`,
`V = X @ Wv` (each maybe followed by its own bias Add): three launches that
each read X, and three GEMMs too small to fill the GPU at short sequences.
`X @ [Wq | Wk | Wv]` computes the same numbers in one GEMM (each output column
is the same dot product of a row of X with a column of its weight), so
`MergeSiblingMatmuls` rewrites every group of two or more

    %yi = onnx.MatMul(%x, %wi)      %wi = onnx.Constant : tensor<K x Ni>

of one `%x` into

    %w = onnx.Constant (the Wi side by side, in program order) : tensor<K x sum(Ni)>
    %y = onnx.MatMul(%x, %w)
    %y0, %y1, ... = onnx.Split(%y, [N0, N1, ...]) {axis = -1}

in place of the first of them. convert-onnx-to-hip turns the Split into views
(`tensor.extract_slice`), which the consumers read with a row stride of
sum(Ni): no copy and no buffer per part. When every sibling's one user is the Add
of a constant bias [Ni] (a Linear's), the Adds become one, `%y + [b0 | b1 | ...]`,
before the Split, if each sum's readers take their window as a view too; otherwise
the Adds stay where they were, reading their part.

A MatMul joins when its weight is a dense `onnx.Constant` of rank 2 that only
it uses (a weight read elsewhere too would then be stored twice), of the
group's row count K and element type, and when every user of its result reads
a window in place: not a Flatten, Squeeze or Unsqueeze, nor the function's return,
nor a Reshape other than one that splits the product's last dim into heads. Those may
need their operand contiguous (one-shot-bufferize copies a strided view before a
reshape that is not a split of dims, and an output is its own buffer), so each such
part would cost a copy kernel and a buffer, more than the launch the merge saves.
Llama's Q, K and V projections, each split into heads ([.., 256] -> [.., 4, 64]), merge
(a split of a strided window is a view of it), and so do its gate and up projections,
read by elementwise ops. The merged weights are erased, so only
the merged one reaches the constants file. The pass runs on the imported ONNX
IR after onnx-fold-constants (which leaves weights computed from initializers
as constants) and before convert-onnx-to-hip.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, IntegerAttr, StringAttr, TensorType, i64
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xhip.dialects.onnx import AddOp, ConstantOp, MatMulOp, SplitOp
from xhip.dialects.onnx.base import NODE_NAME_ATTR, SI64
from xhip.onnx_nodes import constant_op, dense_array, dense_attr

PASS = "onnx-merge-sibling-matmuls"

NEEDS_CONTIGUOUS = frozenset({"onnx.Reshape", "onnx.Flatten", "onnx.Squeeze", "onnx.Unsqueeze", func.ReturnOp.name})
"""Users that would copy a Split part (a strided window) into a buffer of its own (a
Reshape that splits only the part's last dim is not one of them: `_splits_last_dim`)."""


def _splits_last_dim(user: Operation, part: TensorType) -> bool:
    """Whether `user` is a Reshape that keeps the leading dims of `part` (its type says so:
    equal static extents, `?` for `?`) and splits its last dim into static dims ([.., 768]
    -> [.., 12, 64], heads): a window of columns split that way is a strided view
    (one-shot-bufferize expands a strided view in place)."""
    result = user.results[0].type if user.name == "onnx.Reshape" and user.results else None
    if not isinstance(result, TensorType):
        return False
    *leading, width = part.get_shape()
    shape = result.get_shape()
    product, split = 1, 0
    while split < len(shape) - len(leading) and shape[-1 - split] >= 0:
        product *= shape[-1 - split]
        split += 1
    return width >= 0 and product == width and split == len(shape) - len(leading) and list(shape[: len(leading)]) == leading


def _copies_a_window(value: SSAValue) -> bool:
    """Whether some user of `value` would copy it, once a window of a wider one."""
    part = value.type
    assert isinstance(part, TensorType)
    return any(use.operation.name in NEEDS_CONTIGUOUS and not _splits_last_dim(use.operation, part) for use in value.uses)


def _bias_of(matmul: MatMulOp) -> tuple[AddOp, ConstantOp] | None:
    """The Add of a dense 1-D constant of the product's width that is the product's one
    user (a Linear's bias), and that constant; None otherwise."""
    use = matmul.y.get_unique_use()
    add = use.operation if use is not None else None
    if not isinstance(add, AddOp) or add.c.type != matmul.y.type:
        return None
    bias = (add.b if add.a is matmul.y else add.a).owner
    product = matmul.y.type
    assert isinstance(product, TensorType)
    if not isinstance(bias, ConstantOp) or not isinstance(bias.value, DenseIntOrFPElementsAttr):
        return None
    if list(bias.value.get_shape()) != [product.get_shape()[-1]] or bias.value.get_element_type() != product.element_type:
        return None
    return add, bias


def _weight(matmul: MatMulOp) -> DenseIntOrFPElementsAttr | None:
    """The dense rank-2 constant `matmul` multiplies by, when nothing else reads it and
    every user of the product can read it as a window of a wider one."""
    b = matmul.b
    owner = b.owner
    if (
        not isinstance(owner, ConstantOp)
        or not isinstance(owner.value, DenseIntOrFPElementsAttr)
        or len(owner.value.get_shape()) != 2
        or not b.has_one_use()
        or not isinstance(matmul.y.type, TensorType)
        or _copies_a_window(matmul.y)
    ):
        return None
    return owner.value


def _group_key(matmul: MatMulOp, weight: DenseIntOrFPElementsAttr) -> tuple[SSAValue, int, Attribute]:
    """Matmuls with equal keys multiply one input by weights that can stand side by side."""
    return matmul.a, weight.get_shape()[0], weight.get_element_type()


def sibling_groups(block: Block) -> list[list[MatMulOp]]:
    """The groups of two or more MatMuls of `block` that merge, each in program order."""
    groups: dict[tuple[SSAValue, int, Attribute], list[MatMulOp]] = {}
    for op in block.ops:
        if isinstance(op, MatMulOp) and (weight := _weight(op)) is not None:
            groups.setdefault(_group_key(op, weight), []).append(op)
    return [group for group in groups.values() if len(group) > 1]


def _side_by_side(values: list[DenseIntOrFPElementsAttr]) -> DenseIntOrFPElementsAttr:
    """One constant holding `values` one after the other along their last dim (weights as
    consecutive column blocks, biases end to end)."""
    return dense_attr(np.concatenate([dense_array(v) for v in values], axis=-1), values[0].get_element_type())


def _named(op: Operation, group: list[MatMulOp]) -> Operation:
    """`op` at the first sibling's location, named after every sibling's node (for errors)."""
    names = [m.node_name for m in group if m.node_name]
    if names:
        op.attributes[NODE_NAME_ATTR] = StringAttr("+".join(names))
    op.location = group[0].location
    return op


def _merged_type(group: list[MatMulOp], columns: int) -> TensorType:
    """The first sibling's result type, with `columns` last."""
    first = group[0].y.type
    assert isinstance(first, TensorType)
    return TensorType(first.element_type, [*first.get_shape()[:-1], columns])


def merge(group: list[MatMulOp]) -> None:
    """Replace the sibling MatMuls of `group` by one MatMul of their weights side by side and
    a Split (of the sum with their biases side by side, where their bias Adds merge too)."""
    weights = [w for m in group if (w := _weight(m)) is not None]
    assert len(weights) == len(group)
    widths = [w.get_shape()[1] for w in weights]
    weight = constant_op(_side_by_side(weights))
    sizes = constant_op(DenseIntOrFPElementsAttr.from_list(TensorType(i64, [len(widths)]), widths))
    product_type = _merged_type(group, sum(widths))
    product = _named(MatMulOp.create(operands=[group[0].a, weight.output], result_types=[product_type]), group)
    new_ops: list[Operation] = [weight, sizes, product]
    # Every sibling's bias Add becomes one Add of the biases side by side, when each sum's
    # readers take its window as a view: one launch instead of one per sibling.
    biases = [_bias_of(m) for m in group]
    added = [b for b in biases if b is not None]
    if len(added) != len(group) or any(_copies_a_window(add.c) for add, _ in added):
        added = []
    if added:
        bias = constant_op(_side_by_side([constant.value for _, constant in added]))  # type: ignore[misc]
        new_ops += [bias, _named(AddOp.create(operands=[product.results[0], bias.output], result_types=[product_type]), group)]
    split = _named(
        SplitOp.create(
            operands=[new_ops[-1].results[0], sizes.output],
            result_types=[m.y.type for m in group],
            properties={"axis": IntegerAttr(-1, SI64)},
        ),
        group,
    )
    Rewriter.insert_op([*new_ops, split], InsertPoint.before(group[0]))
    for index, (matmul, part) in enumerate(zip(group, split.results, strict=True)):
        old_weight = matmul.b.owner
        if added:
            add, constant = added[index]
            Rewriter.replace_op(add, [], [part])
            Rewriter.erase_op(matmul)
            if not constant.output.uses:
                Rewriter.erase_op(constant)
        else:
            Rewriter.replace_op(matmul, [], [part])
        Rewriter.erase_op(old_weight)  # type: ignore[arg-type]


@dataclass(frozen=True)
class MergeSiblingMatmulsPass(ModulePass):
    """MatMuls of one input by constant 2-D weights of one row count become one MatMul
    of the weights side by side, and a Split."""

    name = PASS

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        blocks = dict.fromkeys(o.parent_block() for o in op.walk() if isinstance(o, MatMulOp))
        for block in blocks:
            assert block is not None
            for group in sibling_groups(block):
                merge(group)
