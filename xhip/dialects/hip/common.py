"""Types, constraints, verifier helpers and memory effects shared by all hip ops."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, cast

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloatConstr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    TensorType,
    i8,
)
from xdsl.ir import (
    Attribute,
    Operation,
    ParametrizedAttribute,
    SSAValue,
    TypeAttribute,
)
from xdsl.irdl import (
    BaseAttr,
    irdl_attr_definition,
)
from xdsl.traits import EffectInstance, MemoryEffect, MemoryEffectKind, OpTrait

from xhip.diagnostics import XhipError, op_error

DataType = TensorType[Attribute] | MemRefType[Attribute]
"""A buffer-like operand: a ranked tensor (tensor mode) or a memref (memref mode)."""

DATA_CONSTR = BaseAttr(TensorType) | BaseAttr(MemRefType)
SCALAR_CONSTR = BaseAttr(IndexType) | BaseAttr(IntegerType) | AnyFloatConstr
BYTE_BUFFER = MemRefType(i8, [DYNAMIC_INDEX])
"""The type of pools and scratch buffers, `memref<?xi8>`."""


@dataclass(frozen=True)
class ResultAliasesOperand(OpTrait):
    """The op's memref result may carry the bytes of operand `index` alone: every other
    memref operand is only read (copied), so its buffer does not escape through the op."""

    index: int


@irdl_attr_definition
class ContextType(ParametrizedAttribute, TypeAttribute):
    """The opaque execution context, always the first function argument."""

    name = "hip.context"


def verify_error(op: Operation, message: str) -> XhipError:
    """A located verifier error phrased like MLIR's (`'hip.x' op ...`)."""
    return op_error(op, f"'{op.name}' op {message}")


def shape_of(value: SSAValue) -> tuple[int, ...]:
    return cast(DataType, value.type).get_shape()


def rank_of(value: SSAValue) -> int:
    return len(shape_of(value))


def element_type_of(value: SSAValue) -> Attribute:
    return cast(DataType, value.type).get_element_type()


def num_elements(shape: Sequence[int]) -> int | None:
    """The static element count of `shape`, None when a dim is dynamic."""
    count = 1
    for dim in shape:
        if dim < 0:
            return None
        count *= dim
    return count


def normalize_axis(op: Operation, axis: int, rank: int) -> int:
    """`axis` in [0, rank), accepting ONNX negative axes; errors name the valid range."""
    if not -rank <= axis < rank:
        valid = f"[{-rank}, {rank})"
        raise verify_error(op, f"axis {axis} is out of range for rank {rank} (expected {valid})")
    return axis % rank


def require_non_negative(op: Operation, name: str, attr: IntegerAttr) -> None:
    if attr.value.data < 0:
        raise verify_error(op, f"{name} must be >= 0, got {attr.value.data}")


# --------------------------------------------------------------------------------------
# Memory effects tied to values: pooling, liveness, CSE and DCE all need to know WHICH
# buffer an op touches, not only that it touches one.
# --------------------------------------------------------------------------------------


def memref_effects(kind: MemoryEffectKind, values: Sequence[SSAValue]) -> set[EffectInstance]:
    return {EffectInstance(kind, v) for v in values if isinstance(v.type, MemRefType)}


class _ResultEffect(MemoryEffect):
    """An effect of kind KIND on the op's (single) result buffer."""

    KIND: ClassVar[MemoryEffectKind]

    @classmethod
    def get_effects(cls, op: Operation) -> set[EffectInstance]:
        return {EffectInstance(cls.KIND, op.results[0])}


class _MemrefOperandsEffect(MemoryEffect):
    """An effect of kind KIND on every memref operand; tensor operands have none."""

    KIND: ClassVar[MemoryEffectKind]

    @classmethod
    def get_effects(cls, op: Operation) -> set[EffectInstance]:
        return memref_effects(cls.KIND, op.operands)


class AllocatesResult(_ResultEffect):
    """DCE may drop an unused allocation; CSE never merges two."""

    KIND = MemoryEffectKind.ALLOC


class WritesResult(_ResultEffect):
    """Graph outputs: never pooled (no Allocate), merged nor erased."""

    KIND = MemoryEffectKind.WRITE


class ReadsResult(_ResultEffect):
    """Uploaded constants are only ever read."""

    KIND = MemoryEffectKind.READ


class ReadsMemrefOperands(_MemrefOperandsEffect):
    KIND = MemoryEffectKind.READ


class FreesMemrefOperands(_MemrefOperandsEffect):
    KIND = MemoryEffectKind.FREE
