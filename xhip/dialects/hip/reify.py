"""Result shapes of hip compute ops, from the same `xhip.shapes` rules the converter uses.

Each DPS op names its rule in `SHAPE_RULE`; the table below reads the op's operand
dims and attributes and calls that rule. No shape logic lives here: a rule changed
in `xhip.shapes` changes the converter's destinations, the reified shapes and the
verifier's static check together.

Operand dims are supplied by the caller: `tensor.dim`/`memref.dim` ops at an
insertion point (reification proper), or placeholder `index` arguments of a
detached block (the verifier, which must not touch the function).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import ClassVar, Protocol, TypeAlias, cast

from xdsl.dialects import memref, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, IntegerAttr, TensorType
from xdsl.ir import Operation, SSAValue

from xhip import shapes
from xhip.dialects.hip.common import verify_error, shape_of
from xhip.index.unknowns import UnknownsEmitter, contradicts, format_declared
from xhip.shapes import Dim, IndexEmitter, ShapeFailure, ShapeResult


class ShapeRule(StrEnum):
    """Names of the result-shape rules in `xhip.shapes`; every DPS op names one."""

    SAME_SHAPE = "same_shape"  # the shape of the first input
    SAME_SHAPE_ON_AXIS = "same_shape_on_axis"  # the first input's shape; `axis` must fit it
    BROADCAST = "broadcast"  # ONNX multidirectional broadcast of all data inputs
    MATMUL = "matmul"
    ATTENTION = "attention"  # the scores' MatMul, then scores @ V
    GEMM = "gemm"
    REDUCE = "reduce"
    TRANSPOSE = "transpose"
    CONCAT = "concat"
    GATHER = "gather"
    GATHER_ELEMENTS = "gather_elements"
    GATHER_ND = "gather_nd"
    NONZERO = "nonzero"  # [rank, capacity] indices and a rank-0 count
    PAD = "pad"  # each extent plus its begin and end pads
    POOL = "pool"  # [N, C] and the windows along each spatial dim
    CONV = "conv"  # [N, M] and the windows along each spatial dim
    IM2COL = "im2col"  # [N, C * taps, windows]: the columns of a convolution
    CONV_TRANSPOSE = "conv_transpose"  # [N, M] and each spatial extent spread by its stride
    FROM_INIT = "from_init"  # extents known only to whoever built the init


class ShapedOp(Protocol):
    """What a reifier reads of a destination-passing op (`xhip.dialects.hip.dps.DPSOp`),
    besides the attributes its rule names.

    The op classes name their rule with `ShapeRule` and call into this module, so
    this module knows them by this shape rather than by importing them.
    """

    SHAPE_RULE: ClassVar[ShapeRule]

    @property
    def name(self) -> str: ...

    @property
    def inputs(self) -> Sequence[SSAValue]: ...

    @property
    def outputs(self) -> Sequence[SSAValue]: ...


OperandDims: TypeAlias = Callable[[SSAValue], list[Dim]]
"""The dims of a data operand: static ints, runtime values for `?`."""

ResultShapes: TypeAlias = list[list[Dim]] | ShapeFailure
"""One shape per out (and result), or why the operands do not fit the op."""

Reifier: TypeAlias = Callable[[ShapedOp, IndexEmitter, OperandDims], ResultShapes]


def _int(attr: object) -> int:
    return cast(IntegerAttr, attr).value.data


def _flag(attr: object) -> bool:
    # An i1 `true` is stored as -1: test for non-zero, never compare with 1.
    return _int(attr) != 0


def _one(result: ShapeResult) -> ResultShapes:
    return result if isinstance(result, ShapeFailure) else [result]


# ---- reading operands and attributes, then calling the rule --------------------------------


def _same_shape(op: ShapedOp, em: IndexEmitter, dims: OperandDims) -> ResultShapes:
    return _one(shapes.same_shape(em, dims(op.inputs[0])))


def _same_shape_on_axis(op: ShapedOp, em: IndexEmitter, dims: OperandDims) -> ResultShapes:
    axis = _int(getattr(op, "axis"))
    return _one(shapes.same_shape_on_axis(em, dims(op.inputs[0]), axis, op.name))


def _broadcast(op: ShapedOp, em: IndexEmitter, dims: OperandDims) -> ResultShapes:
    return _one(shapes.broadcast(em, *(dims(v) for v in op.inputs)))


def _matmul(op: ShapedOp, em: IndexEmitter, dims: OperandDims) -> ResultShapes:
    a, b = op.inputs
    return _one(shapes.matmul(em, dims(a), dims(b), trans_b=_flag(getattr(op, "trans_b"))))


def _attention(op: ShapedOp, em: IndexEmitter, dims: OperandDims) -> ResultShapes:
    # q, k, v as the kernel reads them (through their layout perms); the result as the
    # out stores it (through y_perm). The verifier has checked that the perms are perms.
    q, k, v, *mask = op.inputs
    read = [dims(x) if p is None else [dims(x)[i] for i in p] for x, p in zip((q, k, v), getattr(op, "read_perms")())]
    q_dims, k_dims, v_dims = read
    mask_dims = dims(mask[0]) if mask else None
    result = shapes.attention(em, q_dims, k_dims, v_dims, mask_dims, _flag(getattr(op, "k_transposed")))
    y_perm = getattr(op, "layout")("y_perm")
    if y_perm is None or isinstance(result, ShapeFailure):
        return _one(result)
    return [[result[i] for i in y_perm]]


def _gemm(op: ShapedOp, em: IndexEmitter, dims: OperandDims) -> ResultShapes:
    a, b, *c = op.inputs
    c_dims = dims(c[0]) if c else None
    trans_a, trans_b = _flag(getattr(op, "trans_a")), _flag(getattr(op, "trans_b"))
    return _one(shapes.gemm(em, dims(a), dims(b), c_dims, trans_a=trans_a, trans_b=trans_b))


def _reduce(op: ShapedOp, em: IndexEmitter, dims: OperandDims) -> ResultShapes:
    axes = list(getattr(op, "axes").get_values())
    keepdims = _flag(getattr(op, "keepdims"))
    # hip reductions spell "every axis" as empty axes, as ONNX does by default.
    return _one(shapes.reduce(em, dims(op.inputs[0]), axes, keepdims))


def _transpose(op: ShapedOp, em: IndexEmitter, dims: OperandDims) -> ResultShapes:
    perm = list(getattr(op, "perm").get_values())
    return _one(shapes.transpose(em, dims(op.inputs[0]), perm))


def _concat(op: ShapedOp, em: IndexEmitter, dims: OperandDims) -> ResultShapes:
    return _one(shapes.concat(em, [dims(v) for v in op.inputs], _int(getattr(op, "axis"))))


def _gather(op: ShapedOp, em: IndexEmitter, dims: OperandDims) -> ResultShapes:
    data, indices = op.inputs
    return _one(shapes.gather(em, dims(data), dims(indices), _int(getattr(op, "axis"))))


def _gather_elements(op: ShapedOp, em: IndexEmitter, dims: OperandDims) -> ResultShapes:
    data, indices = op.inputs
    return _one(shapes.gather_elements(em, dims(data), dims(indices), _int(getattr(op, "axis"))))


def _gather_nd(op: ShapedOp, em: IndexEmitter, dims: OperandDims) -> ResultShapes:
    data, indices = op.inputs
    batch_dims = _int(getattr(op, "batch_dims"))
    return _one(shapes.gather_nd(em, dims(data), dims(indices), batch_dims))


def _nonzero(op: ShapedOp, em: IndexEmitter, dims: OperandDims) -> ResultShapes:
    indices = shapes.nonzero_capacity(em, dims(op.inputs[0]))
    # The count is a rank-0 tensor.
    return indices if isinstance(indices, ShapeFailure) else [indices, []]


def _pad(op: ShapedOp, em: IndexEmitter, dims: OperandDims) -> ResultShapes:
    return _one(shapes.pad(em, dims(op.inputs[0]), list(getattr(op, "pads").get_values())))


def _pool(op: ShapedOp, em: IndexEmitter, dims: OperandDims) -> ResultShapes:
    kernel, strides, dilations, pads = (list(getattr(op, name).get_values()) for name in ("kernel_shape", "strides", "dilations", "pads"))
    return _one(shapes.pool(em, dims(op.inputs[0]), kernel, strides, dilations, pads, bool(getattr(op, "ceil_mode").value.data)))


def _conv(op: ShapedOp, em: IndexEmitter, dims: OperandDims) -> ResultShapes:
    strides, dilations, pads = (list(getattr(op, name).get_values()) for name in ("strides", "dilations", "pads"))
    group = getattr(op, "group").value.data
    return _one(shapes.conv(em, dims(op.inputs[0]), dims(op.inputs[1]), strides, dilations, pads, group))


def _im2col(op: ShapedOp, em: IndexEmitter, dims: OperandDims) -> ResultShapes:
    kernel, strides, dilations, pads = (list(getattr(op, name).get_values()) for name in ("kernel_shape", "strides", "dilations", "pads"))
    return _one(shapes.im2col(em, dims(op.inputs[0]), kernel, strides, dilations, pads))


def _conv_transpose(op: ShapedOp, em: IndexEmitter, dims: OperandDims) -> ResultShapes:
    values = [list(getattr(op, name).get_values()) for name in ("strides", "dilations", "pads", "output_padding", "output_shape")]
    strides, dilations, pads, output_padding, output_shape = values
    group = getattr(op, "group").value.data
    return _one(shapes.conv_transpose(em, dims(op.inputs[0]), dims(op.inputs[1]), strides, dilations, pads, output_padding, group, output_shape))


def _from_init(op: ShapedOp, em: IndexEmitter, dims: OperandDims) -> ResultShapes:
    return [dims(out) for out in op.outputs]


REIFIERS: dict[ShapeRule, Reifier] = {
    ShapeRule.SAME_SHAPE: _same_shape,
    ShapeRule.SAME_SHAPE_ON_AXIS: _same_shape_on_axis,
    ShapeRule.BROADCAST: _broadcast,
    ShapeRule.MATMUL: _matmul,
    ShapeRule.ATTENTION: _attention,
    ShapeRule.GEMM: _gemm,
    ShapeRule.REDUCE: _reduce,
    ShapeRule.TRANSPOSE: _transpose,
    ShapeRule.CONCAT: _concat,
    ShapeRule.GATHER: _gather,
    ShapeRule.GATHER_ELEMENTS: _gather_elements,
    ShapeRule.GATHER_ND: _gather_nd,
    ShapeRule.NONZERO: _nonzero,
    ShapeRule.PAD: _pad,
    ShapeRule.POOL: _pool,
    ShapeRule.CONV: _conv,
    ShapeRule.IM2COL: _im2col,
    ShapeRule.CONV_TRANSPOSE: _conv_transpose,
    ShapeRule.FROM_INIT: _from_init,
}

# How the verifier names what the rule computed: "out #0 has shape [4, 1] but ...".
RULE_PHRASES: dict[ShapeRule, str] = {
    ShapeRule.SAME_SHAPE: "the input has shape",
    ShapeRule.SAME_SHAPE_ON_AXIS: "the input has shape",
    ShapeRule.BROADCAST: "the operands broadcast to",
    ShapeRule.MATMUL: "the operands multiply to",
    ShapeRule.ATTENTION: "softmax(Q @ K^T) @ V has shape",
    ShapeRule.GEMM: "op(A) x op(B) has shape",
    ShapeRule.REDUCE: "the reduction has shape",
    ShapeRule.TRANSPOSE: "the permuted input has shape",
    ShapeRule.CONCAT: "the inputs concatenate to",
    ShapeRule.GATHER: "the gather has shape",
    ShapeRule.GATHER_ELEMENTS: "the indices have shape",
    ShapeRule.GATHER_ND: "the gather has shape",
    ShapeRule.NONZERO: "the input's nonzero output has shape",
    ShapeRule.PAD: "the padded input has shape",
    ShapeRule.POOL: "the pooled input has shape",
    ShapeRule.CONV: "the convolution has shape",
    ShapeRule.IM2COL: "the windows' columns have shape",
    ShapeRule.CONV_TRANSPOSE: "the transposed convolution has shape",
}


# ---- operand dims -----------------------------------------------------------------------


def _operand_dims(runtime_dim: Callable[[SSAValue, int], SSAValue]) -> OperandDims:
    """Operand dims from the types; `runtime_dim(value, axis)` is asked once per `?`."""
    known: dict[tuple[SSAValue, int], SSAValue] = {}

    def dim(value: SSAValue, axis: int) -> SSAValue:
        if (value, axis) not in known:
            known[value, axis] = runtime_dim(value, axis)
        return known[value, axis]

    return lambda value: [
        dim(value, axis) if extent == DYNAMIC_INDEX else extent
        for axis, extent in enumerate(shape_of(value))
    ]


def emitted_dims(em: IndexEmitter) -> OperandDims:
    """Operand dims read with `tensor.dim`/`memref.dim` at the emitter's insertion point."""

    def read(value: SSAValue, axis: int) -> SSAValue:
        dim_op = tensor.DimOp if isinstance(value.type, TensorType) else memref.DimOp
        return em.builder.insert(dim_op(value, em.constant(axis))).results[0]

    return _operand_dims(read)


def reify_result_shapes(op: ShapedOp, em: IndexEmitter) -> ResultShapes:
    """The dims of every out of `op`; runtime dims are host `arith` emitted through `em`."""
    return REIFIERS[op.SHAPE_RULE](op, em, emitted_dims(em))


# ---- the verifier's static check ---------------------------------------------------------



def verify_result_shapes(op: ShapedOp) -> None:
    """Raise a located error when an out's static dims contradict the op's shape rule.

    Nothing is added to the function: runtime dims stay unknowns and only statically
    decided extents are compared.
    """
    if op.SHAPE_RULE is ShapeRule.FROM_INIT:
        return  # the outs define the extents: nothing to contradict
    assert isinstance(op, Operation)  # a DPSOp: its errors are located at the op
    em = UnknownsEmitter()
    computed = REIFIERS[op.SHAPE_RULE](op, em, em.operand_dims)
    if isinstance(computed, ShapeFailure):
        raise verify_error(op, computed.message)
    for index, (out, dims) in enumerate(zip(op.outputs, computed, strict=True)):
        declared = shape_of(out)
        if contradicts(declared, dims):
            raise verify_error(
                op,
                f"out #{index} has shape {format_declared(declared)} but "
                f"{RULE_PHRASES[op.SHAPE_RULE]} {shapes.format_shape(dims)}",
            )
