"""Attribute constraints, the structural checks and the base classes of onnx ops."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from xdsl.dialects.builtin import (
    ArrayAttr,
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    NoneType,
    Signedness,
    StringAttr,
    TensorType,
    UnrankedTensorType,
    f16,
    f32,
    f64,
    i1,
    i32,
    i64,
)
from xdsl.ir import (
    Attribute,
    BuiltinAttribute,
    Data,
    SSAValue,
)
from xdsl.irdl import (
    AnyAttr,
    AttrConstraint,
    BaseAttr,
    EqAttrConstraint,
    IRDLOperation,
    OperandDef,
    ParamAttrConstraint,
    ResultDef,
    VarOperandDef,
    VarResultDef,
    irdl_attr_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.traits import (
    Pure,
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
        ints = tuple(e.value.data for e in array.data if isinstance(e, IntegerAttr) and e.type == i64)
        return IntsAttr(ints) if len(ints) == len(array.data) else None


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


RESULT_SHAPE_CHECKS: dict[type, Callable[["OnnxOp"], None]] = {}
"""Per op class, the check of its results' static dims against its shape rule (raising
VerifyException), installed by `xhip.dialects.onnx.shape_checks`, which the context and
the importer load (the rules live in xhip.shapes, which imports the diagnostics, which
import this module)."""


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

    def verify(self, verify_nested_ops: bool = True) -> None:
        super().verify(verify_nested_ops)
        # After every structural check of the op's class (a shape rule assumes them).
        check = RESULT_SHAPE_CHECKS.get(type(self))
        if check is not None:
            try:
                check(self)
            except VerifyException as err:
                self.emit_error(f"Operation does not verify: {err}", err)

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


def _kind(definition: OperandDef | ResultDef) -> str:
    if isinstance(definition, VarOperandDef | VarResultDef):
        return "variadic"
    if definition.constr.verifies((NoneType(),)):
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
