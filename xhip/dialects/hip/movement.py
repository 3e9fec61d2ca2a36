"""Compute ops that move elements (transpose, concat, split, slice, gathers, expand, trilu),
generators (fill, range) and NonZero (re-exported by compute)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    DenseArrayBase,
    FloatAttr,
    StringAttr,
    f64,
    IndexType,
    IntegerAttr,
    IntegerType,
    i64,
)
from xdsl.ir import (
    Attribute,
    SSAValue,
)
from xdsl.irdl import (
    irdl_op_definition,
    prop_def,
)

from xhip.dialects.hip.common import (
    element_type_of,
    verify_error,
    normalize_axis,
    rank_of,
    shape_of,
)
from xhip.dialects.hip.dps import (
    Arity,
    DPSOp,
    ElementKind,
    ShapeRule,
)


# ---- data movement ---------------------------------------------------------------------


class DataMovementOp(DPSOp):
    """Moves elements without changing them: every data operand shares one element type."""

    TEMPLATE: ClassVar[str] = "copy"

    def data_operands(self) -> Sequence[SSAValue]:
        return [*self.inputs, *self.outputs]

    def verify_semantics(self) -> None:
        self.check_same_element(self.data_operands(), "inputs and outputs")
        self.verify_layout()

    def verify_layout(self) -> None:
        """Rank and attribute checks of the concrete op."""


@irdl_op_definition
class TransposeOp(DataMovementOp):
    """Output dim i is input dim `perm[i]`."""

    name = "hip.transpose"
    SHAPE_RULE: ClassVar[ShapeRule] = ShapeRule.TRANSPOSE
    perm = prop_def(DenseArrayBase.constr(i64))

    def verify_layout(self) -> None:
        rank = rank_of(self.inputs[0])
        perm = list(self.perm.get_values())
        if sorted(perm) != list(range(rank)):
            raise verify_error(self, f"perm {perm} is not a permutation of the input rank {rank}")
        self.check_rank(self.outputs[0], rank, "output")


@irdl_op_definition
class ConcatOp(DataMovementOp):
    """Joins the inputs along `axis`."""

    name = "hip.concat"
    SHAPE_RULE: ClassVar[ShapeRule] = ShapeRule.CONCAT
    INPUTS: ClassVar[Arity] = (1, None)
    axis = prop_def(IntegerAttr[IntegerType])

    def verify_layout(self) -> None:
        rank = rank_of(self.outputs[0])
        for i, value in enumerate(self.inputs):
            self.check_rank(value, rank, f"input #{i}")
        normalize_axis(self, self.axis.value.data, rank)


@irdl_op_definition
class SplitOp(DataMovementOp):
    """Splits `x` along `axis` into the outs, whose extents give the split sizes."""

    name = "hip.split"
    SHAPE_RULE: ClassVar[ShapeRule] = ShapeRule.FROM_INIT
    OUTPUTS: ClassVar[Arity] = (1, None)
    axis = prop_def(IntegerAttr[IntegerType], default_value=IntegerAttr(0, i64))

    def verify_layout(self) -> None:
        rank = rank_of(self.inputs[0])
        for i, value in enumerate(self.outputs):
            self.check_rank(value, rank, f"output #{i}")
        normalize_axis(self, self.axis.value.data, rank)


@irdl_op_definition
class SliceOp(DataMovementOp):
    """`y[i] = x[start + i * step]` per dim; negative steps walk backwards.

    Scalars are all the starts (one per input dim), then all the steps; the extents
    come from the out operand."""

    name = "hip.slice"
    SHAPE_RULE: ClassVar[ShapeRule] = ShapeRule.FROM_INIT

    def expected_scalar_types(self) -> Sequence[Attribute]:
        return [IndexType()] * (2 * rank_of(self.inputs[0]))

    @property
    def starts(self) -> Sequence[SSAValue]:
        return self.scalars[: len(self.scalars) // 2]

    @property
    def steps(self) -> Sequence[SSAValue]:
        return self.scalars[len(self.scalars) // 2 :]

    def verify_layout(self) -> None:
        self.check_rank(self.outputs[0], rank_of(self.inputs[0]), "output")


@irdl_op_definition
class TriluOp(DataMovementOp):
    """ONNX Trilu: keeps the elements of each matrix (the last two dims) on and above
    (`upper`) or on and below diagonal `k`, the host scalar; the others become 0."""

    name = "hip.trilu"
    upper = prop_def(IntegerAttr[IntegerType], default_value=IntegerAttr(1, i64))

    def expected_scalar_types(self) -> Sequence[Attribute]:
        return [IndexType()]

    def verify_layout(self) -> None:
        if rank_of(self.inputs[0]) < 2:
            raise verify_error(self, f"input must have rank >= 2, got {self.inputs[0].type}")
        self.check_rank(self.outputs[0], rank_of(self.inputs[0]), "output")


PAD_MODES = ("constant", "reflect", "edge", "wrap")
"""ONNX Pad's modes: a constant, the input mirrored without its edge, the edge repeated,
the input repeated."""


@irdl_op_definition
class PadOp(DataMovementOp):
    """ONNX Pad with compile-time `pads` (every dim's begin, then every dim's end; negative
    crops) and `mode`; `value` (constant mode) is the fill, in the element type."""

    name = "hip.pad"
    TEMPLATE: ClassVar[str] = "pad"
    SHAPE_RULE: ClassVar[ShapeRule] = ShapeRule.PAD
    pads = prop_def(DenseArrayBase.constr(i64))
    mode = prop_def(StringAttr, default_value=StringAttr("constant"))
    value = prop_def(FloatAttr, default_value=FloatAttr(0.0, f64))

    def verify_layout(self) -> None:
        rank = rank_of(self.inputs[0])
        self.check_rank(self.outputs[0], rank, "output")
        if len(self.pads.get_values()) != 2 * rank:
            raise verify_error(self, f"pads must have {2 * rank} entries (a begin and an end per dim), got {len(self.pads.get_values())}")
        if self.mode.data not in PAD_MODES:
            raise verify_error(self, f"mode must be one of {', '.join(PAD_MODES)}, got \"{self.mode.data}\"")


@irdl_op_definition
class ExpandOp(DataMovementOp):
    """Broadcasts `x` to the shape of `y`."""

    name = "hip.expand"
    SHAPE_RULE: ClassVar[ShapeRule] = ShapeRule.FROM_INIT

    def verify_layout(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        if rank_of(y) < rank_of(x):
            raise verify_error(self, f"cannot expand {x.type} to the lower rank of {y.type}")


class IndexedGatherOp(DataMovementOp):
    """`ins(data, indices)`: indices select elements; the output has the data's type."""

    TEMPLATE: ClassVar[str] = "gather"

    SHAPE_RULE: ClassVar[ShapeRule] = ShapeRule.GATHER
    INPUTS: ClassVar[Arity] = (2, 2)

    def data_operands(self) -> Sequence[SSAValue]:
        return [self.inputs[0], self.outputs[0]]

    def verify_layout(self) -> None:
        data, indices = self.inputs
        self.check_element(indices, ElementKind.INDICES, "indices")
        if rank_of(data) < 1:
            raise verify_error(self, f"data must have rank >= 1, got {data.type}")
        self.verify_ranks(rank_of(data), rank_of(indices))

    def verify_ranks(self, data_rank: int, indices_rank: int) -> None:
        """How data, indices and output ranks relate: each gather op says (an abstract hook)."""
        raise NotImplementedError(f"{type(self).__name__} must define verify_ranks")


@irdl_op_definition
class GatherOp(IndexedGatherOp):
    """ONNX Gather: `indices` pick slices of `data` along `axis`."""

    name = "hip.gather"
    axis = prop_def(IntegerAttr[IntegerType], default_value=IntegerAttr(0, i64))

    def verify_ranks(self, data_rank: int, indices_rank: int) -> None:
        normalize_axis(self, self.axis.value.data, data_rank)
        self.check_rank(self.outputs[0], data_rank + indices_rank - 1, "output")


@irdl_op_definition
class GatherElementsOp(IndexedGatherOp):
    """ONNX GatherElements: `out[i..] = data[i..]` with the `axis` coordinate replaced by
    `indices[i..]`; data, indices and output share one rank."""

    name = "hip.gather_elements"
    TEMPLATE: ClassVar[str] = "gather_elements"
    SHAPE_RULE: ClassVar[ShapeRule] = ShapeRule.GATHER_ELEMENTS
    axis = prop_def(IntegerAttr[IntegerType], default_value=IntegerAttr(0, i64))

    def verify_ranks(self, data_rank: int, indices_rank: int) -> None:
        normalize_axis(self, self.axis.value.data, data_rank)
        self.check_rank(self.inputs[1], data_rank, "indices")
        self.check_rank(self.outputs[0], data_rank, "output")


@irdl_op_definition
class GatherNDOp(IndexedGatherOp):
    """ONNX GatherND: the last dim of `indices` addresses the leading data dims."""

    name = "hip.gather_nd"
    TEMPLATE: ClassVar[str] = "gather_nd"
    SHAPE_RULE: ClassVar[ShapeRule] = ShapeRule.GATHER_ND
    batch_dims = prop_def(IntegerAttr[IntegerType], default_value=IntegerAttr(0, i64))

    def verify_ranks(self, data_rank: int, indices_rank: int) -> None:
        batch = self.batch_dims.value.data
        if indices_rank < 1:
            raise verify_error(self, "indices must have rank >= 1")
        if not 0 <= batch < min(data_rank, indices_rank):
            raise verify_error(
                self, f"batch_dims {batch} must be in [0, {min(data_rank, indices_rank)})"
            )
        depth = shape_of(self.inputs[1])[-1]
        if depth < 0:
            return
        if depth > data_rank - batch:
            raise verify_error(
                self, f"indices depth {depth} exceeds data rank {data_rank} - batch_dims {batch}"
            )
        self.check_rank(self.outputs[0], data_rank + indices_rank - depth - 1 - batch, "output")


# ---- generators -----------------------------------------------------------------------


class GeneratorOp(DPSOp):
    """No data inputs: the output is computed from host scalars of its element type."""

    TEMPLATE: ClassVar[str] = "generate"

    SHAPE_RULE: ClassVar[ShapeRule] = ShapeRule.FROM_INIT
    INPUTS: ClassVar[Arity] = (0, 0)
    SCALARS: ClassVar[int] = 1

    def expected_scalar_types(self) -> Sequence[Attribute]:
        return [element_type_of(self.outputs[0])] * self.SCALARS


@irdl_op_definition
class FillOp(GeneratorOp):
    """Sets every element of `y` to the scalar value."""

    name = "hip.fill"


@irdl_op_definition
class RangeOp(GeneratorOp):
    """`y[i] = start + i * delta`; the scalars are start and delta."""

    name = "hip.range"
    SCALARS: ClassVar[int] = 2

    def verify_semantics(self) -> None:
        self.check_element(self.outputs[0], ElementKind.NUMERIC, "output")
        self.check_rank(self.outputs[0], 1, "output")


@irdl_op_definition
class NonZeroOp(DPSOp):
    """`outs(indices : [rank x capacity] i64, count : rank-0 i32/i64)`.

    Only the first `count` columns of `indices` are meaningful; the host reads `count`
    back to trim them."""

    name = "hip.nonzero"
    TEMPLATE: ClassVar[str] = "nonzero"
    SHAPE_RULE: ClassVar[ShapeRule] = ShapeRule.NONZERO
    OUTPUTS: ClassVar[Arity] = (2, 2)

    def verify_semantics(self) -> None:
        x = self.inputs[0]
        indices, count = self.outputs
        self.check_rank(indices, 2, "indices output")
        rows = shape_of(indices)[0]
        if rows >= 0 and rows != rank_of(x):
            raise verify_error(
                self, f"indices output must have {rank_of(x)} rows (the input rank), got {rows}"
            )
        element = element_type_of(indices)
        if element != i64:
            raise verify_error(self, f"indices output must have i64 elements, got {element}")
        self.check_rank(count, 0, "count output")
        self.check_element(count, ElementKind.INDICES, "count output")
