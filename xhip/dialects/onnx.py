"""The onnx dialect: ONNX operators (opset 18 forms) as the importer produces them.

Ops are printed in generic form with onnx-mlir's spellings, so imported IR reads
like the seed documents:

    %7 = "onnx.Transpose"(%5) <{perm = [0, 2, 1]}> {onnx_node_name = "k_transpose"}
           : (tensor<?x?x64xf32>) -> tensor<?x64x?xf32>

ONNX attributes are properties: `int` -> `IntegerAttr` of `si64`, `ints` ->
`IntsAttr` (printed `[0, 2, 1]`), `float` -> `f32` FloatAttr, `string` -> StringAttr,
`Cast.to` -> the element type itself, `ConstantOfShape.value` -> a dense tensor. An
attribute with an ONNX default is an optional property whose accessor returns the
default when it is absent (MLIR's DefaultValuedAttr). `onnx.Constant` keeps `value`
as a plain attribute, and `onnx_node_name` is a discardable attribute on any op.

Optional ONNX inputs and outputs are always present as operands/results, as in
onnx-mlir: an absent one is a value of type `none` (from `onnx.NoValue`), so no op
needs segment sizes. Variadic inputs and outputs (Concat, Max, Min, Split) are
variadic operands/results.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    NoneType,
    Signedness,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    UnitAttr,
    UnrankedTensorType,
    f16,
    f32,
    f64,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, BuiltinAttribute, Data, Dialect, Operation, SSAValue, TypeAttribute
from xdsl.irdl import (
    AnyAttr,
    AttrConstraint,
    BaseAttr,
    EqAttrConstraint,
    IRDLOperation,
    ParamAttrConstraint,
    VarOperandDef,
    VarResultDef,
    attr_def,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_attr_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.traits import (
    ConstantLike,
    EffectInstance,
    HasParent,
    MemoryEffect,
    MemoryEffectKind,
    Pure,
    SymbolTable,
)
from xdsl.utils.exceptions import VerifyException

NODE_NAME_ATTR = "onnx_node_name"
"""The discardable attribute that keeps an op's ONNX node name."""

SI64 = IntegerType(64, Signedness.SIGNED)

FLOAT_TYPES = (f16, BFloat16Type(), f32, f64)
"""The element types of ONNX's float tensors."""


@irdl_attr_definition
class IntsAttr(Data[tuple[int, ...]], BuiltinAttribute):
    """An ONNX `ints` attribute, printed like MLIR's i64 array: `[0, 2, 1]`.

    xDSL prints an `ArrayAttr` of i64 integers as `[0 : i64, 2 : i64, 1 : i64]`;
    onnx-mlir (and the seed IR) print `[0, 2, 1]`. The bare square-bracket syntax is
    builtin, so this attribute marks itself builtin to control its printing; the
    parser reads `[0, 2, 1]` as an `ArrayAttr`, which `OnnxOp` converts on creation.
    """

    name = "onnx.ints"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> tuple[int, ...]:
        # The dialect spelling `#onnx.ints<[0, 2, 1]>`, for completeness.
        with parser.in_angle_brackets():
            return tuple(parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer))

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            self.print_builtin(printer)

    def print_builtin(self, printer: Printer) -> None:
        with printer.in_square_brackets():
            printer.print_list(self.data, printer.print_int)

    @staticmethod
    def from_array(array: ArrayAttr) -> IntsAttr | None:
        """The IntsAttr spelled by an array of i64 integers, or None if it is not one."""
        if all(isinstance(e, IntegerAttr) and e.type == i64 for e in array.data):
            return IntsAttr(tuple(e.value.data for e in array.data))  # pyright: ignore
        return None


# Constraints and ONNX attribute declarations

TENSOR = BaseAttr(TensorType) | BaseAttr(UnrankedTensorType)
"""Any ONNX tensor: ranked or unranked, any element type."""

TENSOR_OR_NONE = TENSOR | EqAttrConstraint(NoneType())
"""An optional ONNX input or output: a tensor, or `none` when it is absent."""

INT_CONSTR = IntegerAttr.constr(EqAttrConstraint(SI64))
INTS_CONSTR = BaseAttr(IntsAttr)
FLOAT_CONSTR = ParamAttrConstraint(FloatAttr, (AnyAttr(), EqAttrConstraint(f32)))
DENSE_CONSTR = BaseAttr(DenseIntOrFPElementsAttr)
STRING_CONSTR = BaseAttr(StringAttr)


def _onnx_attr(constr: AttrConstraint, default: Attribute | None, required: bool, prop_name: str | None):
    if required:
        return prop_def(constr, prop_name=prop_name)
    return opt_prop_def(constr, default_value=default, prop_name=prop_name)


def int_attr(default: int | None = None, *, required: bool = False, prop_name: str | None = None):
    """An ONNX `int` attribute (`axis = -1 : si64`)."""
    value = None if default is None else IntegerAttr(default, SI64)
    return _onnx_attr(INT_CONSTR, value, required, prop_name)


def ints_attr(*, required: bool = False, prop_name: str | None = None):
    """An ONNX `ints` attribute (`perm = [0, 2, 1]`); none in our op set has a default."""
    return _onnx_attr(INTS_CONSTR, None, required, prop_name)


def float_attr(default: float, *, prop_name: str | None = None):
    """An ONNX `float` attribute (`epsilon = 1.000000e-05 : f32`)."""
    return _onnx_attr(FLOAT_CONSTR, FloatAttr(default, f32), False, prop_name)


def str_attr(default: str, *, prop_name: str | None = None):
    """An ONNX `string` attribute (`approximate = "tanh"`)."""
    return _onnx_attr(STRING_CONSTR, StringAttr(default), False, prop_name)


# Base class


def element_type(value: SSAValue) -> Attribute | None:
    """The element type of a tensor value, None for a `none` value."""
    if isinstance(value.type, TensorType | UnrankedTensorType):
        return value.type.element_type
    return None


def rank(value: SSAValue) -> int | None:
    """The rank of a ranked tensor value, None when unranked or `none`."""
    return value.type.get_num_dims() if isinstance(value.type, TensorType) else None


def is_none(value: SSAValue) -> bool:
    """True for an absent optional input (a value of type `none`)."""
    return isinstance(value.type, NoneType)


@dataclass(frozen=True)
class Checks:
    """The structural ONNX constraints of an op, naming operands/results by Python field.

    `same`: values sharing the type variable T; `bools`: tensor(bool); `floats`:
    tensor(float16/bfloat16/float/double); `int64`: tensor(int64); `index`:
    tensor(int32) or tensor(int64); `none` values (absent optional inputs) are skipped. `axis`: the value whose dims the `axis` property
    indexes (`axis_past_end`: it may also name the end, as Flatten's does).
    `flags`: properties that must be 0 or 1. `nonempty`: variadic fields that need
    at least one value.
    """

    same: tuple[str, ...] = ()
    bools: tuple[str, ...] = ()
    floats: tuple[str, ...] = ()
    int64: tuple[str, ...] = ()
    index: tuple[str, ...] = ()
    axis: str | None = None
    axis_past_end: bool = False
    flags: tuple[str, ...] = ()
    nonempty: tuple[str, ...] = ()


class OnnxOp(IRDLOperation):
    """Base of the ONNX compute ops: pure, with the ONNX structural constraints checked."""

    traits = traits_def(Pure())
    CHECKS: ClassVar[Checks] = Checks()

    def __post_init__(self):
        # The parser reads `[0, 2, 1]` as an ArrayAttr; store ONNX ints as IntsAttr.
        for name, prop in self.get_irdl_definition().properties.items():
            value = self.properties.get(name)
            if isinstance(value, ArrayAttr) and prop.constr == INTS_CONSTR:
                if (ints := IntsAttr.from_array(value)) is not None:
                    self.properties[name] = ints
        super().__post_init__()

    @property
    def node_name(self) -> str | None:
        """The ONNX node this op was imported from, if it had a name."""
        attr = self.attributes.get(NODE_NAME_ATTR)
        return attr.data if isinstance(attr, StringAttr) else None

    @classmethod
    def input_kinds(cls) -> tuple[str, ...]:
        """Per ONNX input: 'required', 'optional' (may be `none`) or 'variadic'."""
        return tuple(_kind(d) for _, d in cls.get_irdl_definition().operands)

    @classmethod
    def output_kinds(cls) -> tuple[str, ...]:
        """Per ONNX output: 'required', 'optional' (may be `none`) or 'variadic'."""
        return tuple(_kind(d) for _, d in cls.get_irdl_definition().results)

    def _values(self, *fields: str) -> list[SSAValue]:
        values: list[SSAValue] = []
        for field in fields:
            got = getattr(self, field)
            values.extend(got if isinstance(got, Sequence) else [got])
        return [v for v in values if not is_none(v)]

    def verify_(self) -> None:
        checks = self.CHECKS
        for field in checks.nonempty:
            if not self._values(field):
                raise VerifyException(f"{self.name} needs at least one value in '{field}'")
        types = {element_type(v) for v in self._values(*checks.same)}
        if len(types) > 1:
            names = ", ".join(checks.same)
            raise VerifyException(f"{self.name}: {names} must have one element type, got {_list(types)}")
        self._check_element_types(checks.bools, (i1,), "tensor(bool)")
        self._check_element_types(checks.floats, FLOAT_TYPES, "a float tensor")
        self._check_element_types(checks.int64, (i64,), "tensor(int64)")
        self._check_element_types(checks.index, (i32, i64), "tensor(int32) or tensor(int64)")
        for flag in checks.flags:
            value = self._property(flag)
            if isinstance(value, IntegerAttr) and value.value.data not in (0, 1):
                raise VerifyException(f"{self.name}: {flag} must be 0 or 1, got {value.value.data}")
        if checks.axis is not None:
            self._check_axis(checks.axis, checks.axis_past_end)

    def _property(self, name: str) -> Attribute | None:
        """A property's value, or its default when absent."""
        default = self.get_irdl_definition().properties[name].default_value
        return self.properties.get(name, default)

    def _check_element_types(self, fields: Sequence[str], allowed: Sequence[Attribute], spelled: str) -> None:
        for field in fields:
            for value in self._values(field):
                if element_type(value) not in allowed:
                    raise VerifyException(f"{self.name}: '{field}' must be {spelled}, got {value.type}")

    def _check_axis(self, field: str, past_end: bool) -> None:
        """`axis` must index a dim of `field`'s (first) value, or its end when `past_end`."""
        axis, values = self._property("axis"), self._values(field)
        if not isinstance(axis, IntegerAttr) or not values or (r := rank(values[0])) is None:
            return
        high = r if past_end else r - 1
        if not -r <= axis.value.data <= high:
            raise VerifyException(f"{self.name}: axis {axis.value.data} is out of range [{-r}, {high}] for rank {r}")


def _kind(definition: VarOperandDef | VarResultDef | object) -> str:
    if isinstance(definition, VarOperandDef | VarResultDef):
        return "variadic"
    if definition.constr.verifies((NoneType(),)):  # pyright: ignore[reportAttributeAccessIssue]
        return "optional"
    return "required"


def _list(types: set[Attribute | None]) -> str:
    return ", ".join(sorted(str(t) for t in types))


# Elementwise families


class UnaryOp(OnnxOp):
    """X -> Y, same element type (Relu, Exp, ...)."""

    x = operand_def(TENSOR)
    y = result_def(TENSOR)
    CHECKS: ClassVar = Checks(same=("x", "y"))


class BinaryOp(OnnxOp):
    """A, B -> C with multidirectional broadcasting, one element type."""

    a = operand_def(TENSOR)
    b = operand_def(TENSOR)
    c = result_def(TENSOR)
    CHECKS: ClassVar = Checks(same=("a", "b", "c"))


class LogicalBinaryOp(BinaryOp):
    CHECKS: ClassVar = Checks(bools=("a", "b", "c"))


class CompareOp(BinaryOp):
    """A, B -> bool C."""

    CHECKS: ClassVar = Checks(same=("a", "b"), bools=("c",))


class VariadicOp(OnnxOp):
    """data_0, data_1, ... -> result, broadcast at every step (Max, Min)."""

    data = var_operand_def(TENSOR)
    result = result_def(TENSOR)
    CHECKS: ClassVar = Checks(same=("data", "result"), nonempty=("data",))


class ReduceOp(OnnxOp):
    """data, axes? -> reduced. Axes are an input since opset 18 (13 for ReduceSum)."""

    data = operand_def(TENSOR)
    axes = operand_def(TENSOR_OR_NONE)
    reduced = result_def(TENSOR)
    keepdims = int_attr(1)
    noop_with_empty_axes = int_attr(0)
    CHECKS: ClassVar = Checks(same=("data", "reduced"), int64=("axes",), flags=("keepdims", "noop_with_empty_axes"))


@irdl_op_definition
class AddOp(BinaryOp):
    name = "onnx.Add"


@irdl_op_definition
class SubOp(BinaryOp):
    name = "onnx.Sub"


@irdl_op_definition
class MulOp(BinaryOp):
    name = "onnx.Mul"


@irdl_op_definition
class DivOp(BinaryOp):
    name = "onnx.Div"


@irdl_op_definition
class AndOp(LogicalBinaryOp):
    name = "onnx.And"


@irdl_op_definition
class OrOp(LogicalBinaryOp):
    name = "onnx.Or"


@irdl_op_definition
class EqualOp(CompareOp):
    name = "onnx.Equal"


@irdl_op_definition
class LessOp(CompareOp):
    name = "onnx.Less"


@irdl_op_definition
class GreaterOp(CompareOp):
    name = "onnx.Greater"


@irdl_op_definition
class LessOrEqualOp(CompareOp):
    name = "onnx.LessOrEqual"


@irdl_op_definition
class GreaterOrEqualOp(CompareOp):
    name = "onnx.GreaterOrEqual"


@irdl_op_definition
class PowOp(OnnxOp):
    """X ^ Y; the exponent may have another numeric type (T1)."""

    name = "onnx.Pow"
    x = operand_def(TENSOR)
    y = operand_def(TENSOR)
    z = result_def(TENSOR)
    CHECKS: ClassVar = Checks(same=("x", "z"))


@irdl_op_definition
class MaxOp(VariadicOp):
    name = "onnx.Max"


@irdl_op_definition
class MinOp(VariadicOp):
    name = "onnx.Min"


@irdl_op_definition
class ReluOp(UnaryOp):
    name = "onnx.Relu"


@irdl_op_definition
class SigmoidOp(UnaryOp):
    name = "onnx.Sigmoid"


@irdl_op_definition
class TanhOp(UnaryOp):
    name = "onnx.Tanh"


@irdl_op_definition
class ErfOp(UnaryOp):
    name = "onnx.Erf"


@irdl_op_definition
class SqrtOp(UnaryOp):
    name = "onnx.Sqrt"


@irdl_op_definition
class ExpOp(UnaryOp):
    name = "onnx.Exp"


@irdl_op_definition
class LogOp(UnaryOp):
    name = "onnx.Log"


@irdl_op_definition
class NegOp(UnaryOp):
    name = "onnx.Neg"


@irdl_op_definition
class AbsOp(UnaryOp):
    name = "onnx.Abs"


@irdl_op_definition
class ReciprocalOp(UnaryOp):
    name = "onnx.Reciprocal"


@irdl_op_definition
class NotOp(UnaryOp):
    name = "onnx.Not"
    CHECKS: ClassVar = Checks(bools=("x", "y"))


@irdl_op_definition
class IsNaNOp(UnaryOp):
    name = "onnx.IsNaN"
    CHECKS: ClassVar = Checks(floats=("x",), bools=("y",))


@irdl_op_definition
class IdentityOp(UnaryOp):
    name = "onnx.Identity"


@irdl_op_definition
class GeluOp(UnaryOp):
    name = "onnx.Gelu"
    approximate = str_attr("none")

    def verify_(self) -> None:
        super().verify_()
        if self.approximate.data not in ("none", "tanh"):
            raise VerifyException(f"onnx.Gelu: approximate must be \"none\" or \"tanh\", got \"{self.approximate.data}\"")


@irdl_op_definition
class ReduceMeanOp(ReduceOp):
    name = "onnx.ReduceMean"


@irdl_op_definition
class ReduceSumOp(ReduceOp):
    name = "onnx.ReduceSum"


@irdl_op_definition
class ReduceMaxOp(ReduceOp):
    name = "onnx.ReduceMax"


@irdl_op_definition
class CumSumOp(OnnxOp):
    """Running sums of `x` along the dim named by the scalar `axis` input."""

    name = "onnx.CumSum"
    x = operand_def(TENSOR)
    axis = operand_def(TENSOR)
    y = result_def(TENSOR)
    exclusive = int_attr(0)
    reverse = int_attr(0)
    CHECKS: ClassVar = Checks(same=("x", "y"), index=("axis",), flags=("exclusive", "reverse"))

    def verify_(self) -> None:
        super().verify_()
        # ONNX asks for a 0-D axis; onnxruntime also takes a one-element vector.
        axis_type = self.axis.type
        if isinstance(axis_type, TensorType) and axis_type.get_shape() not in ((), (1,)):
            raise VerifyException(f"onnx.CumSum: 'axis' must be a scalar, got {axis_type}")


@irdl_op_definition
class WhereOp(OnnxOp):
    name = "onnx.Where"
    condition = operand_def(TENSOR)
    x = operand_def(TENSOR)
    y = operand_def(TENSOR)
    output = result_def(TENSOR)
    CHECKS: ClassVar = Checks(same=("x", "y", "output"), bools=("condition",))


@irdl_op_definition
class CastOp(OnnxOp):
    """Element type conversion; `to` is the target element type (`to = f32`)."""

    name = "onnx.Cast"
    input = operand_def(TENSOR)
    output = result_def(TENSOR)
    to = prop_def(BaseAttr(TypeAttribute))
    saturate = int_attr(1)
    CHECKS: ClassVar = Checks(flags=("saturate",))

    def verify_(self) -> None:
        super().verify_()
        if not isinstance(self.to, IntegerType | AnyFloat):
            raise VerifyException(f"onnx.Cast: 'to' must be an integer or float type, got {self.to}")
        if element_type(self.output) != self.to:
            raise VerifyException(f"onnx.Cast: result element type {element_type(self.output)} is not 'to' ({self.to})")


# Linear algebra and normalization


@irdl_op_definition
class MatMulOp(OnnxOp):
    name = "onnx.MatMul"
    a = operand_def(TENSOR)
    b = operand_def(TENSOR)
    y = result_def(TENSOR)
    CHECKS: ClassVar = Checks(same=("a", "b", "y"))


@irdl_op_definition
class GemmOp(OnnxOp):
    """Y = alpha * A' @ B' + beta * C, C optional and broadcast to [M, N]."""

    name = "onnx.Gemm"
    a = operand_def(TENSOR)
    b = operand_def(TENSOR)
    c = operand_def(TENSOR_OR_NONE)
    y = result_def(TENSOR)
    alpha = float_attr(1.0)
    beta = float_attr(1.0)
    trans_a = int_attr(0, prop_name="transA")
    trans_b = int_attr(0, prop_name="transB")
    CHECKS: ClassVar = Checks(same=("a", "b", "c", "y"), flags=("transA", "transB"))

    def verify_(self) -> None:
        super().verify_()
        for field in ("a", "b"):
            if (r := rank(getattr(self, field))) not in (None, 2):
                raise VerifyException(f"onnx.Gemm: '{field}' must be rank 2, got rank {r}")


@irdl_op_definition
class SoftmaxOp(OnnxOp):
    name = "onnx.Softmax"
    input = operand_def(TENSOR)
    output = result_def(TENSOR)
    axis = int_attr(-1)
    CHECKS: ClassVar = Checks(same=("input", "output"), axis="input")


@irdl_op_definition
class LayerNormalizationOp(OnnxOp):
    """Normalizes over dims [axis, rank); Mean and InvStdDev are optional outputs."""

    name = "onnx.LayerNormalization"
    x = operand_def(TENSOR)
    scale = operand_def(TENSOR)
    b = operand_def(TENSOR_OR_NONE)
    y = result_def(TENSOR)
    mean = result_def(TENSOR_OR_NONE)
    inv_std_dev = result_def(TENSOR_OR_NONE)
    axis = int_attr(-1)
    epsilon = float_attr(1e-5)
    stash_type = int_attr(1)
    CHECKS: ClassVar = Checks(same=("x", "scale", "b", "y"), axis="x")


# Data movement and shapes


@irdl_op_definition
class TransposeOp(OnnxOp):
    name = "onnx.Transpose"
    data = operand_def(TENSOR)
    transposed = result_def(TENSOR)
    perm = ints_attr()
    CHECKS: ClassVar = Checks(same=("data", "transposed"))

    def verify_(self) -> None:
        super().verify_()
        r = rank(self.data)
        if self.perm is not None and r is not None and sorted(self.perm.data) != list(range(r)):
            raise VerifyException(f"onnx.Transpose: perm {list(self.perm.data)} is not a permutation of 0..{r - 1}")


@irdl_op_definition
class ReshapeOp(OnnxOp):
    name = "onnx.Reshape"
    data = operand_def(TENSOR)
    shape = operand_def(TENSOR)
    reshaped = result_def(TENSOR)
    allowzero = int_attr(0)
    CHECKS: ClassVar = Checks(same=("data", "reshaped"), int64=("shape",), flags=("allowzero",))


@irdl_op_definition
class FlattenOp(OnnxOp):
    name = "onnx.Flatten"
    input = operand_def(TENSOR)
    output = result_def(TENSOR)
    axis = int_attr(1)
    CHECKS: ClassVar = Checks(same=("input", "output"), axis="input", axis_past_end=True)


@irdl_op_definition
class SqueezeOp(OnnxOp):
    name = "onnx.Squeeze"
    data = operand_def(TENSOR)
    axes = operand_def(TENSOR_OR_NONE)
    squeezed = result_def(TENSOR)
    CHECKS: ClassVar = Checks(same=("data", "squeezed"), int64=("axes",))


@irdl_op_definition
class UnsqueezeOp(OnnxOp):
    name = "onnx.Unsqueeze"
    data = operand_def(TENSOR)
    axes = operand_def(TENSOR)
    expanded = result_def(TENSOR)
    CHECKS: ClassVar = Checks(same=("data", "expanded"), int64=("axes",))


@irdl_op_definition
class ConcatOp(OnnxOp):
    name = "onnx.Concat"
    inputs = var_operand_def(TENSOR)
    concat_result = result_def(TENSOR)
    axis = int_attr(required=True)
    CHECKS: ClassVar = Checks(same=("inputs", "concat_result"), axis="inputs", nonempty=("inputs",))


@irdl_op_definition
class SplitOp(OnnxOp):
    """Split along `axis` by the `split` sizes, or into `num_outputs` (opset 18) parts."""

    name = "onnx.Split"
    input = operand_def(TENSOR)
    split = operand_def(TENSOR_OR_NONE)
    outputs = var_result_def(TENSOR)
    axis = int_attr(0)
    num_outputs = int_attr()
    CHECKS: ClassVar = Checks(same=("input", "outputs"), int64=("split",), axis="input", nonempty=("outputs",))

    def verify_(self) -> None:
        super().verify_()
        if self.num_outputs is None:
            return
        if not is_none(self.split):
            raise VerifyException("onnx.Split: give either the 'split' input or num_outputs, not both")
        if self.num_outputs.value.data != len(self.outputs):
            raise VerifyException(
                f"onnx.Split: num_outputs is {self.num_outputs.value.data} but the op has {len(self.outputs)} results"
            )


@irdl_op_definition
class SliceOp(OnnxOp):
    name = "onnx.Slice"
    data = operand_def(TENSOR)
    starts = operand_def(TENSOR)
    ends = operand_def(TENSOR)
    axes = operand_def(TENSOR_OR_NONE)
    steps = operand_def(TENSOR_OR_NONE)
    output = result_def(TENSOR)
    CHECKS: ClassVar = Checks(same=("data", "output"), index=("starts", "ends", "axes", "steps"))


@irdl_op_definition
class GatherOp(OnnxOp):
    name = "onnx.Gather"
    data = operand_def(TENSOR)
    indices = operand_def(TENSOR)
    output = result_def(TENSOR)
    axis = int_attr(0)
    CHECKS: ClassVar = Checks(same=("data", "output"), index=("indices",), axis="data")


@irdl_op_definition
class GatherNDOp(OnnxOp):
    name = "onnx.GatherND"
    data = operand_def(TENSOR)
    indices = operand_def(TENSOR)
    output = result_def(TENSOR)
    batch_dims = int_attr(0)
    CHECKS: ClassVar = Checks(same=("data", "output"), int64=("indices",))


@irdl_op_definition
class ExpandOp(OnnxOp):
    name = "onnx.Expand"
    input = operand_def(TENSOR)
    shape = operand_def(TENSOR)
    output = result_def(TENSOR)
    CHECKS: ClassVar = Checks(same=("input", "output"), int64=("shape",))


@irdl_op_definition
class ShapeOp(OnnxOp):
    """The dims of `data` (optionally the slice [start, end)) as a 1-D int64 tensor."""

    name = "onnx.Shape"
    data = operand_def(TENSOR)
    shape = result_def(TENSOR)
    start = int_attr(0)
    end = int_attr()
    CHECKS: ClassVar = Checks(int64=("shape",))


@irdl_op_definition
class ConstantOfShapeOp(OnnxOp):
    """A tensor of the given shape filled with the one element of `value` (0.0 f32)."""

    name = "onnx.ConstantOfShape"
    input = operand_def(TENSOR)
    output = result_def(TENSOR)
    value = opt_prop_def(
        DENSE_CONSTR, default_value=DenseIntOrFPElementsAttr.from_list(TensorType(f32, [1]), [0.0])
    )
    CHECKS: ClassVar = Checks(int64=("input",))

    def verify_(self) -> None:
        super().verify_()
        if len(self.value) != 1:
            raise VerifyException(f"onnx.ConstantOfShape: value must hold one element, got {len(self.value)}")
        if element_type(self.output) != self.value.get_element_type():
            raise VerifyException("onnx.ConstantOfShape: result element type differs from value's")


@irdl_op_definition
class RangeOp(OnnxOp):
    name = "onnx.Range"
    start = operand_def(TENSOR)
    limit = operand_def(TENSOR)
    delta = operand_def(TENSOR)
    output = result_def(TENSOR)
    CHECKS: ClassVar = Checks(same=("start", "limit", "delta", "output"))

    def verify_(self) -> None:
        super().verify_()
        for field in ("start", "limit", "delta"):
            if (r := rank(getattr(self, field))) not in (None, 0):
                raise VerifyException(f"onnx.Range: '{field}' must be a scalar, got rank {r}")


@irdl_op_definition
class NonZeroOp(OnnxOp):
    """Indices of the non-zero elements: int64 [rank(X), count], count data-dependent."""

    name = "onnx.NonZero"
    x = operand_def(TENSOR)
    y = result_def(TENSOR)
    CHECKS: ClassVar = Checks(int64=("y",))


# Constants and module structure


@irdl_op_definition
class ConstantOp(OnnxOp):
    """A constant tensor; initializers and Constant nodes both import to this."""

    name = "onnx.Constant"
    output = result_def(TENSOR)
    value = attr_def(DENSE_CONSTR | BaseAttr(DenseResourceAttr))
    traits = traits_def(Pure(), ConstantLike())

    def verify_(self) -> None:
        super().verify_()
        if self.value.type != self.output.type:
            raise VerifyException(f"onnx.Constant: result type {self.output.type} differs from value type {self.value.type}")


@irdl_op_definition
class NoValueOp(IRDLOperation):
    """The absent value of an optional input (`none`), as in onnx-mlir."""

    name = "onnx.NoValue"
    none = result_def(NoneType())
    value = opt_attr_def(UnitAttr)  # onnx-mlir prints `{value}`
    traits = traits_def(Pure())


class EntryPointEffect(MemoryEffect):
    """Exporting a function is visible outside the module, so dce must keep the op."""

    @classmethod
    def get_effects(cls, op: Operation) -> set[EffectInstance]:
        assert isinstance(op, EntryPointOp)
        return {EffectInstance(MemoryEffectKind.WRITE, op.func)}


@irdl_op_definition
class EntryPointOp(IRDLOperation):
    """Names the function that runs the model (`<{func = @main_graph}>`)."""

    name = "onnx.EntryPoint"
    func = prop_def(SymbolRefAttr)
    traits = traits_def(HasParent(ModuleOp), EntryPointEffect())

    def verify_(self) -> None:
        if SymbolTable.lookup_symbol(self, self.func) is None:
            raise VerifyException(f"onnx.EntryPoint: no function named {self.func}")


ONNX_OPS: dict[str, type[OnnxOp]] = {
    op.name.removeprefix("onnx."): op
    for op in (
        AddOp, SubOp, MulOp, DivOp, PowOp, MaxOp, MinOp, EqualOp, LessOp, GreaterOp,
        LessOrEqualOp, GreaterOrEqualOp, AndOp, OrOp, NotOp, IsNaNOp, WhereOp, ReluOp,
        SigmoidOp, TanhOp, ErfOp, SqrtOp, ExpOp, LogOp, NegOp, AbsOp, ReciprocalOp, CastOp,
        GeluOp, MatMulOp, GemmOp, SoftmaxOp, LayerNormalizationOp, ReduceMeanOp, ReduceSumOp,
        ReduceMaxOp, CumSumOp, TransposeOp, ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp,
        ConcatOp, SplitOp, SliceOp, GatherOp, GatherNDOp, ExpandOp, ShapeOp, ConstantOfShapeOp,
        RangeOp, NonZeroOp, IdentityOp, ConstantOp,
    )  # fmt: skip
}
"""ONNX op type -> op class, for every ONNX operator the dialect models."""

ONNX = Dialect("onnx", [*ONNX_OPS.values(), NoValueOp, EntryPointOp], [IntsAttr])
