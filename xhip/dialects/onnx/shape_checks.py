"""The result shapes the onnx verifiers check: each op's rule in `xhip.shapes`, read here.

An op class listed here has its results' static dims compared with what its rule
gives for its operands (`base.check_result_shapes`), so `onnx.Add` of tensor<4xf32>
and tensor<5xf32> is one located error at the op, not a failure deep in a later pass.
The rules are the converter's and the hip ops' own: one implementation of each shape.
Importing this module installs the checks (`base.RESULT_SHAPE_CHECKS`); the context and
the importer do.
Ops whose shapes depend on operand values (Reshape, Expand, Slice, ...) are checked by
the converter, which sees those values.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects.builtin import IntegerAttr, TensorType, UnrankedTensorType
from xdsl.ir import SSAValue
from xdsl.utils.exceptions import VerifyException

from xhip import shapes
from xhip.dialects.onnx.base import RESULT_SHAPE_CHECKS, BinaryOp, OnnxOp, UnaryOp, VariadicOp, is_none
from xhip.dialects.onnx.ops import (
    ArgMaxOp,
    ArgMinOp,
    CastOp,
    ClipOp,
    ConcatOp,
    GatherOp,
    GemmOp,
    LayerNormalizationOp,
    MatMulOp,
    PowOp,
    SoftmaxOp,
    TransposeOp,
    WhereOp,
)
from xhip.index.unknowns import UnknownsEmitter, contradicts, format_declared
from xhip.shapes import Dim, IndexEmitter, ShapeFailure, format_shape

Dims = Callable[[SSAValue], list[Dim]]
Shapes = Sequence[Sequence[Dim] | None] | ShapeFailure


def _one(result: shapes.ShapeResult) -> Shapes:
    return result if isinstance(result, ShapeFailure) else [result]


def _int(op: OnnxOp, name: str) -> int:
    value = op._property(name)
    assert isinstance(value, IntegerAttr)
    return value.value.data


Rule = Callable[[OnnxOp, IndexEmitter, Dims], Shapes]
"""(op, emitter, operand dims) -> each result's shape (None: not checked), or why the
operands do not fit."""


def check_result_shapes(op: OnnxOp, rule: Rule) -> None:
    """A VerifyException when a result's static dims contradict `rule` (or the operands do
    not fit it); runtime dims are unknowns and never contradict."""
    if any(isinstance(v.type, UnrankedTensorType) for v in (*op.operands, *op.results)):
        return
    em = UnknownsEmitter()
    computed = rule(op, em, em.operand_dims)
    if isinstance(computed, ShapeFailure):
        # The rules' messages mostly name the op already ("MatMul contraction dims differ").
        named = computed.message.startswith(op.name.removeprefix("onnx."))
        raise VerifyException(computed.message if named else f"{op.name}: {computed.message}")
    for index, (result, shape) in enumerate(zip(op.results, computed)):
        if shape is None or not isinstance(result.type, TensorType):
            continue
        declared = result.type.get_shape()
        if contradicts(declared, shape):
            raise VerifyException(
                f"{op.name}: result #{index} has shape {format_declared(declared)} but the operands give {format_shape(shape)}"
            )


def rule(*classes: type) -> Callable[[Rule], Rule]:
    """Install `read` as the result-shape check of `classes`."""

    def register(read: Rule) -> Rule:
        for cls in classes:
            RESULT_SHAPE_CHECKS[cls] = lambda op, read=read: check_result_shapes(op, read)  # type: ignore[misc]
        return read

    return register


def _subclasses(base: type) -> list[type]:
    found: list[type] = []
    pending = [base]
    while pending:
        sub: type
        for sub in pending.pop().__subclasses__():
            found.append(sub)
            pending.append(sub)
    return found


@rule(*_subclasses(UnaryOp), CastOp, ClipOp)
def _same_shape(op: OnnxOp, em: IndexEmitter, dims: Dims) -> Shapes:
    return _one(shapes.same_shape(em, dims(op.operands[0])))


@rule(*_subclasses(BinaryOp), *_subclasses(VariadicOp), PowOp, WhereOp)
def _broadcast(op: OnnxOp, em: IndexEmitter, dims: Dims) -> Shapes:
    return _one(shapes.broadcast(em, *(dims(v) for v in op.operands)))


@rule(MatMulOp)
def _matmul(op: OnnxOp, em: IndexEmitter, dims: Dims) -> Shapes:
    return _one(shapes.matmul(em, dims(op.operands[0]), dims(op.operands[1])))


@rule(GemmOp)
def _gemm(op: OnnxOp, em: IndexEmitter, dims: Dims) -> Shapes:
    a, b, c = op.operands
    c_dims = None if is_none(c) else dims(c)
    return _one(shapes.gemm(em, dims(a), dims(b), c_dims, trans_a=_int(op, "transA") != 0, trans_b=_int(op, "transB") != 0))


@rule(ArgMaxOp, ArgMinOp)
def _arg_reduce(op: OnnxOp, em: IndexEmitter, dims: Dims) -> Shapes:
    return _one(shapes.reduce(em, dims(op.operands[0]), [_int(op, "axis")], _int(op, "keepdims") != 0))


@rule(SoftmaxOp)
def _softmax(op: OnnxOp, em: IndexEmitter, dims: Dims) -> Shapes:
    return _one(shapes.same_shape_on_axis(em, dims(op.operands[0]), _int(op, "axis"), "Softmax"))


@rule(LayerNormalizationOp)
def _layer_norm(op: OnnxOp, em: IndexEmitter, dims: Dims) -> Shapes:
    x, axis = dims(op.operands[0]), _int(op, "axis")
    y = shapes.same_shape_on_axis(em, x, axis, "LayerNormalization")
    if isinstance(y, ShapeFailure):
        return y
    stats = shapes.layer_norm_stats(em, x, axis)
    if isinstance(stats, ShapeFailure):
        return stats
    return [y, *(None if is_none(r) else stats for r in op.results[1:])]


@rule(TransposeOp)
def _transpose(op: OnnxOp, em: IndexEmitter, dims: Dims) -> Shapes:
    assert isinstance(op, TransposeOp)
    perm = None if op.perm is None else list(op.perm.data)
    return _one(shapes.transpose(em, dims(op.data), perm))


@rule(ConcatOp)
def _concat(op: OnnxOp, em: IndexEmitter, dims: Dims) -> Shapes:
    return _one(shapes.concat(em, [dims(v) for v in op.operands], _int(op, "axis")))


@rule(GatherOp)
def _gather(op: OnnxOp, em: IndexEmitter, dims: Dims) -> Shapes:
    data, indices = op.operands
    return _one(shapes.gather(em, dims(data), dims(indices), _int(op, "axis")))
