"""Compute ops: elementwise, linear algebra, normalization, reductions, data movement."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    BoolAttr,
    DenseArrayBase,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    StringAttr,
    f32,
    f64,
    i1,
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


# ---- linear algebra and normalization -------------------------------------------------


@irdl_op_definition
class MatmulOp(DPSOp):
    """ONNX MatMul: batched, with NumPy rank-1 promotion and batch broadcast.

    `trans_b` reads B with its last two dims swapped (a weight that MatMul(x,
    Transpose(W)) reads transposed, instead of a transposed copy of it)."""

    name = "hip.matmul"
    TEMPLATE: ClassVar[str] = "matmul"
    SHAPE_RULE: ClassVar[ShapeRule] = ShapeRule.MATMUL
    INPUTS: ClassVar[Arity] = (2, 2)
    trans_b = prop_def(BoolAttr, default_value=IntegerAttr(0, i1))

    def verify_semantics(self) -> None:
        a, b = self.inputs
        self.check_element(a, ElementKind.NUMERIC, "A")
        self.check_same_element([a, b, self.outputs[0]], "A, B and output")
        ra, rb = rank_of(a), rank_of(b)
        if ra < 1 or rb < 1:
            raise verify_error(self, f"operands must have rank >= 1, got {a.type} and {b.type}")
        if self.trans_b.value.data and rb < 2:
            raise verify_error(self, f"a transposed B must have rank >= 2, got {b.type}")
        # A rank-1 operand is promoted to a matrix and its unit dim dropped again.
        expected = max(ra, rb, 2) - (ra == 1) - (rb == 1)
        self.check_rank(self.outputs[0], expected, "output")


@irdl_op_definition
class GemmOp(DPSOp):
    """`alpha * op(A) @ op(B) + beta * C`, 2-D only, C broadcast to [M, N]."""

    name = "hip.gemm"
    TEMPLATE: ClassVar[str] = "matmul"
    SHAPE_RULE: ClassVar[ShapeRule] = ShapeRule.GEMM
    INPUTS: ClassVar[Arity] = (2, 3)
    alpha = prop_def(FloatAttr, default_value=FloatAttr(1.0, f32))
    beta = prop_def(FloatAttr, default_value=FloatAttr(1.0, f32))
    trans_a = prop_def(BoolAttr, default_value=IntegerAttr(0, i1))
    trans_b = prop_def(BoolAttr, default_value=IntegerAttr(0, i1))

    def verify_semantics(self) -> None:
        self.check_element(self.inputs[0], ElementKind.NUMERIC, "A")
        self.check_same_element([*self.inputs, self.outputs[0]], "operands and output")
        for value, what in zip(self.inputs[:2], ("A", "B")):
            self.check_rank(value, 2, what)
        if len(self.inputs) == 3 and rank_of(self.inputs[2]) > 2:
            raise verify_error(self, f"C must have rank <= 2, got {self.inputs[2].type}")
        self.check_rank(self.outputs[0], 2, "output")


@irdl_op_definition
class LayerNormOp(DPSOp):
    """`ins(x, scale[, bias])`, normalizing over dims [axis, rank)."""

    name = "hip.layer_norm"
    TEMPLATE: ClassVar[str] = "row"
    MAY_ALIAS_INPUT: ClassVar[bool] = True
    SHAPE_RULE: ClassVar[ShapeRule] = ShapeRule.SAME_SHAPE_ON_AXIS
    INPUTS: ClassVar[Arity] = (2, 3)
    axis = prop_def(IntegerAttr[IntegerType], default_value=IntegerAttr(-1, i64))
    epsilon = prop_def(FloatAttr, default_value=FloatAttr(1e-5, f32))

    def verify_semantics(self) -> None:
        x = self.inputs[0]
        self.check_element(x, ElementKind.FLOAT, "input")
        self.check_same_element([*self.inputs, self.outputs[0]], "operands and output")
        normalize_axis(self, self.axis.value.data, rank_of(x))
        self.check_rank(self.outputs[0], rank_of(x), "output")


# ---- reductions and data movement ------------------------------------------------------


class ReduceOp(DPSOp):
    """Reduces over static `axes` (empty = all axes), keeping unit dims if `keepdims`."""

    SHAPE_RULE: ClassVar[ShapeRule] = ShapeRule.REDUCE
    axes = prop_def(DenseArrayBase.constr(i64), default_value=DenseArrayBase.from_list(i64, []))
    keepdims = prop_def(BoolAttr, default_value=IntegerAttr(1, i1))
    TEMPLATE: ClassVar[str] = "reduce"
    REDUCE_COMBINE: ClassVar[str] = "{a} + {b}"
    """C expression folding two partial results `{a}` and `{b}`."""
    REDUCE_IDENTITY: ClassVar[str] = "0"
    """The combine's identity; `lowest` is the compute type's lowest value."""
    REDUCE_FINISH: ClassVar[str] = "{acc}"
    """The output from the folded `{acc}` and the reduced element `{count}`."""

    def normalized_axes(self) -> list[int]:
        """The reduced axes in [0, rank), sorted; all axes when `axes` is empty."""
        rank = rank_of(self.inputs[0])
        axes = self.axes.get_values()
        if not axes:
            return list(range(rank))
        return sorted(normalize_axis(self, a, rank) for a in axes)

    def verify_semantics(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        self.check_element(x, ElementKind.NUMERIC, "input")
        self.check_same_element([x, y], "input and output")
        axes = self.normalized_axes()
        if len(set(axes)) != len(axes):
            raise verify_error(self, f"axes {list(self.axes.get_values())} repeat an axis")
        expected = rank_of(x) if self.keepdims.value.data else rank_of(x) - len(axes)
        self.check_rank(y, expected, "output")


@irdl_op_definition
class ReduceMeanOp(ReduceOp):
    name = "hip.reduce_mean"
    REDUCE_FINISH: ClassVar[str] = "{acc} / (decltype({acc})){count}"


@irdl_op_definition
class ReduceSumOp(ReduceOp):
    name = "hip.reduce_sum"


@irdl_op_definition
class ReduceMaxOp(ReduceOp):
    name = "hip.reduce_max"
    REDUCE_COMBINE: ClassVar[str] = "xhip_max({a}, {b})"
    REDUCE_IDENTITY: ClassVar[str] = "lowest"


@irdl_op_definition
class CumSumOp(DPSOp):
    """Running sums along `axis`; `exclusive` leaves out the current element and
    `reverse` sums from the end (ONNX CumSum)."""

    name = "hip.cumsum"
    TEMPLATE: ClassVar[str] = "cumsum"
    MAY_ALIAS_INPUT: ClassVar[bool] = True  # each element is read before it is written
    SHAPE_RULE: ClassVar[ShapeRule] = ShapeRule.SAME_SHAPE_ON_AXIS
    axis = prop_def(IntegerAttr[IntegerType])
    exclusive = prop_def(BoolAttr, default_value=IntegerAttr(0, i1))
    reverse = prop_def(BoolAttr, default_value=IntegerAttr(0, i1))

    def verify_semantics(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        self.check_element(x, ElementKind.NUMERIC, "input")
        self.check_same_element([x, y], "input and output")
        normalize_axis(self, self.axis.value.data, rank_of(x))
        self.check_rank(y, rank_of(x), "output")


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


COMPUTE_OPS: tuple[type[DPSOp], ...] = (
    # Elementwise.
    AddOp, SubOp, MulOp, DivOp, PowOp, MaxOp, MinOp,
    EqualOp, LessOp, GreaterOp, LessEqualOp, GreaterEqualOp, AndOp, OrOp, NotOp, WhereOp,
    ReluOp, SigmoidOp, TanhOp, ErfOp, SqrtOp, ExpOp, SinOp, CosOp, LogOp, NegOp, AbsOp, ReciprocalOp,
    IsNaNOp, CastOp, GeluOp, CopyOp,
    # Linear algebra, normalization, reductions and scans.
    MatmulOp, GemmOp, SoftmaxOp, LayerNormOp, ReduceMeanOp, ReduceSumOp, ReduceMaxOp,
    CumSumOp,
    # Data movement and generators.
    TransposeOp, ConcatOp, SplitOp, SliceOp, GatherOp, GatherElementsOp, GatherNDOp, TriluOp, ExpandOp,
    RangeOp, NonZeroOp, FillOp,
)  # fmt: skip
"""Every compute op, in the hip Dialect's order (xDSL keeps the op list beside the ops):
a new op is added here, and the dialect, its exports and the tables built from the
op classes' facts (converter, reference kernels, GPU kernels) follow."""

__all__ = [
    "COMPUTE_OPS",
    "BroadcastOp",
    "ComparisonOp",
    "DataMovementOp",
    "GeneratorOp",
    "IndexedGatherOp",
    "ReduceOp",
    "UnaryElementwiseOp",
    *(op.__name__ for op in COMPUTE_OPS),
]
