"""Compute ops: the elementwise ones here; linear algebra, normalization, reductions
(`linalg`) and data movement, generators (`movement`) in their modules, re-exported
here, so that `COMPUTE_OPS` lists every one in the dialect's order."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    BoolAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    f64,
    i1,
    i64,
)
from xdsl.ir import (
    SSAValue,
)
from xdsl.irdl import (
    irdl_op_definition,
    prop_def,
)

from xhip.dialects.hip.common import (
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
from xhip.dialects.hip.linalg import (
    MatmulOp,
    GemmOp,
    LayerNormOp,
    ReduceOp,
    ReduceMeanOp,
    ReduceSumOp,
    ReduceMaxOp,
    ReduceMinOp,
    ReduceProdOp,
    ReduceL1Op,
    ReduceL2Op,
    ReduceSumSquareOp,
    ReduceLogSumExpOp,
    ArgMaxOp,
    ArgMinOp,
    CumSumOp,
    PoolOp,
    ConvOp,
    Im2ColOp,
    ConvTransposeOp,
    ResizeOp,
)
from xhip.dialects.hip.movement import (
    DataMovementOp,
    TransposeOp,
    ConcatOp,
    SplitOp,
    SliceOp,
    TriluOp,
    PadOp,
    ExpandOp,
    IndexedGatherOp,
    GatherOp,
    GatherElementsOp,
    GatherNDOp,
    GeneratorOp,
    FillOp,
    RangeOp,
    NonZeroOp,
)


# ---- elementwise --------------------------------------------------------------------


class UnaryElementwiseOp(DPSOp):
    """`ins(x) outs(y)`, same shape; same element type unless RESULT says otherwise."""

    ELEMENT: ClassVar[ElementKind] = ElementKind.FLOAT
    RESULT: ClassVar[ElementKind | None] = None
    """The output's element kind when it differs from the input's (a predicate's i1)."""
    TEMPLATE: ClassVar[str] = "elementwise"
    """The kernel template family (templates/<family>.hip.j2) that runs the op."""
    C_EXPR: ClassVar[str | None] = None
    """The op as a C expression of its operands `{a}`, `{b}`, `{c}` (in the compute type);
    `{name}` of a property spells that property's value."""
    MAY_ALIAS_INPUT: ClassVar[bool] = True
    """Whether the kernel stays correct when its output is one of its inputs."""
    ONNX: ClassVar[str | None] = None
    """The ONNX op this hip op implements one-to-one (the converter's table is built from it)."""
    REFERENCE: ClassVar[str | None] = None
    """The op as a NumPy expression of its operands `a`, `b`, `c` (all of them: `xs`) and
    `attributes`, evaluated by the reference backend in its kernel module's namespace."""

    def verify_semantics(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        self.check_element(x, self.ELEMENT, "input")
        if self.RESULT is None:
            self.check_same_element([x, y], "input and output")
        else:
            self.check_element(y, self.RESULT, "output")
        self.check_rank(y, rank_of(x), "output")


@irdl_op_definition
class ReluOp(UnaryElementwiseOp):
    name = "hip.relu"
    C_EXPR: ClassVar[str | None] = "xhip_relu({a})"
    ONNX: ClassVar[str | None] = "onnx.Relu"
    REFERENCE: ClassVar[str | None] = "np.maximum(a, a.dtype.type(0))"
    ELEMENT: ClassVar[ElementKind] = ElementKind.NUMERIC


@irdl_op_definition
class SigmoidOp(UnaryElementwiseOp):
    name = "hip.sigmoid"
    C_EXPR: ClassVar[str | None] = "xhip_sigmoid({a})"
    ONNX: ClassVar[str | None] = "onnx.Sigmoid"
    REFERENCE: ClassVar[str | None] = "sigmoid(a)"


@irdl_op_definition
class TanhOp(UnaryElementwiseOp):
    name = "hip.tanh"
    C_EXPR: ClassVar[str | None] = "tanh({a})"
    ONNX: ClassVar[str | None] = "onnx.Tanh"
    REFERENCE: ClassVar[str | None] = "np.tanh(a)"


@irdl_op_definition
class ErfOp(UnaryElementwiseOp):
    name = "hip.erf"
    C_EXPR: ClassVar[str | None] = "erf({a})"
    ONNX: ClassVar[str | None] = "onnx.Erf"
    REFERENCE: ClassVar[str | None] = "special.erf(a)"


@irdl_op_definition
class SqrtOp(UnaryElementwiseOp):
    name = "hip.sqrt"
    C_EXPR: ClassVar[str | None] = "sqrt({a})"
    ONNX: ClassVar[str | None] = "onnx.Sqrt"
    REFERENCE: ClassVar[str | None] = "np.sqrt(a)"


@irdl_op_definition
class ExpOp(UnaryElementwiseOp):
    name = "hip.exp"
    C_EXPR: ClassVar[str | None] = "exp({a})"
    ONNX: ClassVar[str | None] = "onnx.Exp"
    REFERENCE: ClassVar[str | None] = "np.exp(a)"


@irdl_op_definition
class SinOp(UnaryElementwiseOp):
    name = "hip.sin"
    C_EXPR: ClassVar[str | None] = "sin({a})"
    ONNX: ClassVar[str | None] = "onnx.Sin"
    REFERENCE: ClassVar[str | None] = "np.sin(a)"


@irdl_op_definition
class CosOp(UnaryElementwiseOp):
    name = "hip.cos"
    C_EXPR: ClassVar[str | None] = "cos({a})"
    ONNX: ClassVar[str | None] = "onnx.Cos"
    REFERENCE: ClassVar[str | None] = "np.cos(a)"


@irdl_op_definition
class LogOp(UnaryElementwiseOp):
    name = "hip.log"
    C_EXPR: ClassVar[str | None] = "log({a})"
    ONNX: ClassVar[str | None] = "onnx.Log"
    REFERENCE: ClassVar[str | None] = "np.log(a)"


@irdl_op_definition
class ReciprocalOp(UnaryElementwiseOp):
    name = "hip.reciprocal"
    C_EXPR: ClassVar[str | None] = "(decltype({a}))1 / {a}"
    ONNX: ClassVar[str | None] = "onnx.Reciprocal"
    REFERENCE: ClassVar[str | None] = "np.reciprocal(a)"


@irdl_op_definition
class NegOp(UnaryElementwiseOp):
    name = "hip.neg"
    C_EXPR: ClassVar[str | None] = "-{a}"
    ONNX: ClassVar[str | None] = "onnx.Neg"
    REFERENCE: ClassVar[str | None] = "np.negative(a)"
    ELEMENT: ClassVar[ElementKind] = ElementKind.NUMERIC


@irdl_op_definition
class AbsOp(UnaryElementwiseOp):
    name = "hip.abs"
    C_EXPR: ClassVar[str | None] = "xhip_abs({a})"
    ONNX: ClassVar[str | None] = "onnx.Abs"
    REFERENCE: ClassVar[str | None] = "np.absolute(a)"
    ELEMENT: ClassVar[ElementKind] = ElementKind.NUMERIC


@irdl_op_definition
class SignOp(UnaryElementwiseOp):
    name = "hip.sign"
    # NaN stays NaN (numpy.sign); for integers `{a} != {a}` is false.
    C_EXPR: ClassVar[str | None] = "({a} != {a} ? {a} : (decltype({a}))(({a} > (decltype({a}))0) - ({a} < (decltype({a}))0)))"
    ONNX: ClassVar[str | None] = "onnx.Sign"
    REFERENCE: ClassVar[str | None] = "np.sign(a)"
    ELEMENT: ClassVar[ElementKind] = ElementKind.NUMERIC


@irdl_op_definition
class CeilOp(UnaryElementwiseOp):
    name = "hip.ceil"
    C_EXPR: ClassVar[str | None] = "ceil({a})"
    ONNX: ClassVar[str | None] = "onnx.Ceil"
    REFERENCE: ClassVar[str | None] = "np.ceil(a)"


@irdl_op_definition
class FloorOp(UnaryElementwiseOp):
    name = "hip.floor"
    C_EXPR: ClassVar[str | None] = "floor({a})"
    ONNX: ClassVar[str | None] = "onnx.Floor"
    REFERENCE: ClassVar[str | None] = "np.floor(a)"


@irdl_op_definition
class RoundOp(UnaryElementwiseOp):
    """Halves to even, as ONNX says (rint in the default rounding mode; numpy.round)."""

    name = "hip.round"
    C_EXPR: ClassVar[str | None] = "rint({a})"
    ONNX: ClassVar[str | None] = "onnx.Round"
    REFERENCE: ClassVar[str | None] = "np.round(a)"


@irdl_op_definition
class NotOp(UnaryElementwiseOp):
    name = "hip.not"
    C_EXPR: ClassVar[str | None] = "!{a}"
    ONNX: ClassVar[str | None] = "onnx.Not"
    REFERENCE: ClassVar[str | None] = "np.logical_not(a)"
    ELEMENT: ClassVar[ElementKind] = ElementKind.BOOL


@irdl_op_definition
class IsNaNOp(UnaryElementwiseOp):
    """`y = isnan(x)`: float in, i1 out."""

    name = "hip.isnan"
    MAY_ALIAS_INPUT: ClassVar[bool] = False  # f32 in, i1 out: the elements do not line up
    C_EXPR: ClassVar[str | None] = "({a} != {a})"
    ONNX: ClassVar[str | None] = "onnx.IsNaN"
    REFERENCE: ClassVar[str | None] = "np.isnan(a)"
    RESULT: ClassVar[ElementKind | None] = ElementKind.BOOL


@irdl_op_definition
class CopyOp(UnaryElementwiseOp):
    """Copies `x` into `y` (same shape), e.g. to give an output its own buffer."""

    name = "hip.copy"
    C_EXPR: ClassVar[str | None] = "{a}"
    REFERENCE: ClassVar[str | None] = "a"
    ELEMENT: ClassVar[ElementKind] = ElementKind.ANY


@irdl_op_definition
class GeluOp(UnaryElementwiseOp):
    """Exact (erf) GELU, or its tanh approximation."""

    name = "hip.gelu"
    C_EXPR: ClassVar[str | None] = "xhip_gelu_{approximate}({a})"
    ONNX: ClassVar[str | None] = "onnx.Gelu"
    REFERENCE: ClassVar[str | None] = "gelu(a, attributes)"
    approximate = prop_def(StringAttr, default_value=StringAttr("none"))

    def verify_semantics(self) -> None:
        super().verify_semantics()
        if self.approximate.data not in ("none", "tanh"):
            got = self.approximate.data
            raise verify_error(self, f'approximate must be "none" or "tanh", got "{got}"')


@irdl_op_definition
class SoftmaxOp(UnaryElementwiseOp):
    """Softmax along one `axis` (ONNX opset >= 13 semantics) of `scale * x + bias`.

    `ins(x[, bias])`: the optional bias (an additive attention mask) broadcasts to x, and
    `scale` multiplies x only; with `zero_nan` a NaN result is written as 0. All three
    come from hip-fuse-softmax, which folds the Mul and Add before a softmax and the
    NaN guard after it into it (ONNX's Softmax is scale 1, no bias, NaN kept)."""

    name = "hip.softmax"
    TEMPLATE: ClassVar[str] = "row"
    C_EXPR: ClassVar[str | None] = None
    SHAPE_RULE: ClassVar[ShapeRule] = ShapeRule.SAME_SHAPE_ON_AXIS
    INPUTS: ClassVar[Arity] = (1, 2)
    axis = prop_def(IntegerAttr[IntegerType], default_value=IntegerAttr(-1, i64))
    scale = prop_def(FloatAttr, default_value=FloatAttr(1.0, f64))
    zero_nan = prop_def(BoolAttr, default_value=IntegerAttr(0, i1))
    """Write 0 where the result is NaN (a fully masked row): the exports' Where(IsNaN(p), 0, p)."""

    def verify_semantics(self) -> None:
        super().verify_semantics()
        x = self.inputs[0]
        normalize_axis(self, self.axis.value.data, rank_of(x))
        if len(self.inputs) == 2:
            bias = self.inputs[1]
            self.check_same_element([x, bias], "input and bias")
            if rank_of(bias) > rank_of(x):
                raise verify_error(self, f"bias must broadcast to the input, got {bias.type} for {x.type}")
            for got, want in zip(reversed(shape_of(bias)), reversed(shape_of(x))):
                if got not in (1, want) and got >= 0 and want >= 0:
                    raise verify_error(self, f"bias must broadcast to the input, got {bias.type} for {x.type}")


@irdl_op_definition
class CastOp(DPSOp):
    """Converts `x` to the element type of `y`."""

    name = "hip.cast"
    TEMPLATE: ClassVar[str] = "elementwise"
    MAY_ALIAS_INPUT: ClassVar[bool] = False  # element sizes may differ
    C_EXPR: ClassVar[str | None] = "{a}"

    def verify_semantics(self) -> None:
        self.check_rank(self.outputs[0], rank_of(self.inputs[0]), "output")


class BroadcastOp(DPSOp):
    """Elementwise over broadcast inputs; all inputs share the output element type."""

    SHAPE_RULE: ClassVar[ShapeRule] = ShapeRule.BROADCAST
    INPUTS: ClassVar[Arity] = (2, 2)
    ELEMENT: ClassVar[ElementKind] = ElementKind.NUMERIC
    TEMPLATE: ClassVar[str] = "elementwise"
    C_EXPR: ClassVar[str | None] = None
    """Binary C expression of `{a}` and `{b}`; a variadic op folds it left to right."""
    MAY_ALIAS_INPUT: ClassVar[bool] = True
    ONNX: ClassVar[str | None] = None
    """The ONNX op this hip op implements one-to-one (the converter's table is built from it)."""
    REFERENCE: ClassVar[str | None] = None
    """NumPy expression of `a`, `b`, `c`, `xs` (see UnaryElementwiseOp.REFERENCE)."""
    HOST_FOLD: ClassVar[str | None] = None
    """How the converter folds the op on host-known integer shape vectors: an IndexEmitter
    method (arithmetic) or an arith.cmpi predicate (comparisons); None keeps it on the device."""

    def data_inputs(self) -> Sequence[SSAValue]:
        """The inputs whose element type is checked against ELEMENT and the output."""
        return self.inputs

    def verify_semantics(self) -> None:
        data = self.data_inputs()
        self.check_element(data[0], self.ELEMENT, "inputs")
        self.check_same_element([*data, self.outputs[0]], "inputs and output")
        self.check_rank(self.outputs[0], max(rank_of(v) for v in self.inputs), "output")


@irdl_op_definition
class AddOp(BroadcastOp):
    name = "hip.add"
    C_EXPR: ClassVar[str | None] = "{a} + {b}"
    ONNX: ClassVar[str | None] = "onnx.Add"
    REFERENCE: ClassVar[str | None] = "np.add(a, b)"
    HOST_FOLD: ClassVar[str | None] = "add"


@irdl_op_definition
class SubOp(BroadcastOp):
    name = "hip.sub"
    C_EXPR: ClassVar[str | None] = "{a} - {b}"
    ONNX: ClassVar[str | None] = "onnx.Sub"
    REFERENCE: ClassVar[str | None] = "np.subtract(a, b)"
    HOST_FOLD: ClassVar[str | None] = "sub"


@irdl_op_definition
class MulOp(BroadcastOp):
    name = "hip.mul"
    C_EXPR: ClassVar[str | None] = "{a} * {b}"
    ONNX: ClassVar[str | None] = "onnx.Mul"
    REFERENCE: ClassVar[str | None] = "np.multiply(a, b)"
    HOST_FOLD: ClassVar[str | None] = "mul"


@irdl_op_definition
class DivOp(BroadcastOp):
    name = "hip.div"
    C_EXPR: ClassVar[str | None] = "{a} / {b}"
    ONNX: ClassVar[str | None] = "onnx.Div"
    REFERENCE: ClassVar[str | None] = "divide(a, b)"
    HOST_FOLD: ClassVar[str | None] = "div"


@irdl_op_definition
class PowOp(BroadcastOp):
    """`base ** exponent`; ONNX lets the exponent have its own numeric type."""

    name = "hip.pow"
    C_EXPR: ClassVar[str | None] = "xhip_pow({a}, {b})"
    ONNX: ClassVar[str | None] = "onnx.Pow"

    def data_inputs(self) -> Sequence[SSAValue]:
        return self.inputs[:1]

    def verify_semantics(self) -> None:
        super().verify_semantics()
        self.check_element(self.inputs[1], ElementKind.NUMERIC, "exponent")


@irdl_op_definition
class MaxOp(BroadcastOp):
    name = "hip.max"
    C_EXPR: ClassVar[str | None] = "xhip_max({a}, {b})"
    ONNX: ClassVar[str | None] = "onnx.Max"
    REFERENCE: ClassVar[str | None] = "fold(np.maximum, xs)"
    HOST_FOLD: ClassVar[str | None] = "max"
    INPUTS: ClassVar[Arity] = (1, None)


@irdl_op_definition
class MinOp(BroadcastOp):
    name = "hip.min"
    C_EXPR: ClassVar[str | None] = "xhip_min({a}, {b})"
    ONNX: ClassVar[str | None] = "onnx.Min"
    REFERENCE: ClassVar[str | None] = "fold(np.minimum, xs)"
    HOST_FOLD: ClassVar[str | None] = "min"
    INPUTS: ClassVar[Arity] = (1, None)


@irdl_op_definition
class AndOp(BroadcastOp):
    name = "hip.and"
    C_EXPR: ClassVar[str | None] = "({a} && {b})"
    ONNX: ClassVar[str | None] = "onnx.And"
    REFERENCE: ClassVar[str | None] = "np.logical_and(a, b)"
    ELEMENT: ClassVar[ElementKind] = ElementKind.BOOL


@irdl_op_definition
class OrOp(BroadcastOp):
    name = "hip.or"
    C_EXPR: ClassVar[str | None] = "({a} || {b})"
    ONNX: ClassVar[str | None] = "onnx.Or"
    REFERENCE: ClassVar[str | None] = "np.logical_or(a, b)"
    ELEMENT: ClassVar[ElementKind] = ElementKind.BOOL


class ComparisonOp(BroadcastOp):
    """Compares two inputs of one element type into an i1 output."""

    MAY_ALIAS_INPUT: ClassVar[bool] = False  # i1 out

    def verify_semantics(self) -> None:
        lhs, rhs = self.inputs
        self.check_element(lhs, self.ELEMENT, "inputs")
        self.check_same_element([lhs, rhs], "inputs")
        self.check_element(self.outputs[0], ElementKind.BOOL, "comparison output")
        self.check_rank(self.outputs[0], max(rank_of(lhs), rank_of(rhs)), "output")


@irdl_op_definition
class EqualOp(ComparisonOp):
    name = "hip.equal"
    C_EXPR: ClassVar[str | None] = "({a} == {b})"
    ONNX: ClassVar[str | None] = "onnx.Equal"
    REFERENCE: ClassVar[str | None] = "np.equal(a, b)"
    HOST_FOLD: ClassVar[str | None] = "eq"
    ELEMENT: ClassVar[ElementKind] = ElementKind.ANY


@irdl_op_definition
class LessOp(ComparisonOp):
    name = "hip.less"
    C_EXPR: ClassVar[str | None] = "({a} < {b})"
    ONNX: ClassVar[str | None] = "onnx.Less"
    REFERENCE: ClassVar[str | None] = "np.less(a, b)"
    HOST_FOLD: ClassVar[str | None] = "slt"


@irdl_op_definition
class GreaterOp(ComparisonOp):
    name = "hip.greater"
    C_EXPR: ClassVar[str | None] = "({a} > {b})"
    ONNX: ClassVar[str | None] = "onnx.Greater"
    REFERENCE: ClassVar[str | None] = "np.greater(a, b)"
    HOST_FOLD: ClassVar[str | None] = "sgt"


@irdl_op_definition
class LessEqualOp(ComparisonOp):
    name = "hip.less_equal"
    C_EXPR: ClassVar[str | None] = "({a} <= {b})"
    ONNX: ClassVar[str | None] = "onnx.LessOrEqual"
    REFERENCE: ClassVar[str | None] = "np.less_equal(a, b)"
    HOST_FOLD: ClassVar[str | None] = "sle"


@irdl_op_definition
class GreaterEqualOp(ComparisonOp):
    name = "hip.greater_equal"
    C_EXPR: ClassVar[str | None] = "({a} >= {b})"
    ONNX: ClassVar[str | None] = "onnx.GreaterOrEqual"
    REFERENCE: ClassVar[str | None] = "np.greater_equal(a, b)"
    HOST_FOLD: ClassVar[str | None] = "sge"


@irdl_op_definition
class WhereOp(BroadcastOp):
    """`ins(cond, x, y)`: x where cond else y."""

    name = "hip.where"
    C_EXPR: ClassVar[str | None] = "({a} ? {b} : {c})"
    INPUTS: ClassVar[Arity] = (3, 3)
    ELEMENT: ClassVar[ElementKind] = ElementKind.ANY

    def data_inputs(self) -> Sequence[SSAValue]:
        return self.inputs[1:]

    def verify_semantics(self) -> None:
        self.check_element(self.inputs[0], ElementKind.BOOL, "condition")
        super().verify_semantics()


COMPUTE_OPS: tuple[type[DPSOp], ...] = (
    # Elementwise.
    AddOp, SubOp, MulOp, DivOp, PowOp, MaxOp, MinOp,
    EqualOp, LessOp, GreaterOp, LessEqualOp, GreaterEqualOp, AndOp, OrOp, NotOp, WhereOp,
    ReluOp, SigmoidOp, TanhOp, ErfOp, SqrtOp, ExpOp, SinOp, CosOp, LogOp, NegOp, AbsOp, ReciprocalOp,
    SignOp, CeilOp, FloorOp, RoundOp, IsNaNOp, CastOp, GeluOp, CopyOp,
    # Linear algebra, normalization, reductions and scans.
    MatmulOp, GemmOp, SoftmaxOp, LayerNormOp, ReduceMeanOp, ReduceSumOp, ReduceMaxOp,
    ReduceMinOp, ReduceProdOp, ReduceL1Op, ReduceL2Op, ReduceSumSquareOp, ReduceLogSumExpOp, ArgMaxOp, ArgMinOp,
    CumSumOp, PoolOp, ConvOp, Im2ColOp, ConvTransposeOp, ResizeOp,
    # Data movement and generators.
    TransposeOp, ConcatOp, SplitOp, SliceOp, GatherOp, GatherElementsOp, GatherNDOp, TriluOp, PadOp, ExpandOp,
    RangeOp, NonZeroOp, FillOp,
)  # fmt: skip
"""Every compute op, in the hip Dialect's order (xDSL keeps the op list beside the ops):
a new op is added here and to `__all__`, and the dialect, its exports and the tables
built from the op classes' facts (converter, reference kernels, GPU kernels) follow."""

__all__ = [
    "COMPUTE_OPS",
    "BroadcastOp",
    "ComparisonOp",
    "DataMovementOp",
    "GeneratorOp",
    "IndexedGatherOp",
    "ReduceOp",
    "UnaryElementwiseOp",
    # Every op of COMPUTE_OPS, spelled out so that type checkers see the star re-export.
    "AddOp", "SubOp", "MulOp", "DivOp", "PowOp", "MaxOp", "MinOp", "EqualOp", "LessOp",
    "GreaterOp", "LessEqualOp", "GreaterEqualOp", "AndOp", "OrOp", "NotOp", "WhereOp",
    "ReluOp", "SigmoidOp", "TanhOp", "ErfOp", "SqrtOp", "ExpOp", "SinOp", "CosOp", "LogOp",
    "NegOp", "AbsOp", "ReciprocalOp", "SignOp", "CeilOp", "FloorOp", "RoundOp", "IsNaNOp", "CastOp", "GeluOp", "CopyOp", "MatmulOp",
    "GemmOp", "SoftmaxOp", "LayerNormOp", "ReduceMeanOp", "ReduceSumOp", "ReduceMaxOp",
    "ReduceMinOp", "ReduceProdOp", "ReduceL1Op", "ReduceL2Op", "ReduceSumSquareOp", "ReduceLogSumExpOp", "ArgMaxOp", "ArgMinOp",
    "CumSumOp", "PoolOp", "ConvOp", "Im2ColOp", "ConvTransposeOp", "ResizeOp", "TransposeOp", "ConcatOp", "SplitOp", "SliceOp", "GatherOp",
    "GatherElementsOp", "GatherNDOp", "TriluOp", "PadOp", "ExpandOp", "RangeOp", "NonZeroOp",
    "FillOp",
]  # fmt: skip
