"""The destination-passing base of compute ops: syntax, modes, effects, verifier hooks."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import Enum
from typing import ClassVar

from xdsl.dialects.builtin import (
    AnyFloat,
    IntegerType,
    TensorType,
    i1,
    i32,
    i64,
)
from xdsl.ir import (
    Attribute,
    Operation,
    SSAValue,
)
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    operand_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import EffectInstance, MemoryEffect, MemoryEffectKind

from xhip.dialects.hip.common import (
    DATA_CONSTR,
    SCALAR_CONSTR,
    ContextType,
    element_type_of,
    verify_error,
    memref_effects,
    rank_of,
)
from xhip.dialects.hip.reify import ShapeRule, reify_result_shapes, verify_result_shapes
from xhip.shapes import Dim, IndexEmitter, ShapeFailure

# --------------------------------------------------------------------------------------
# Destination-passing compute ops
# --------------------------------------------------------------------------------------


class ElementKind(Enum):
    """Which element types an operand accepts."""

    ANY = "any element type"
    NUMERIC = "an integer or float element type"
    FLOAT = "a float element type"
    BOOL = "i1 elements"
    INDICES = "i32 or i64 elements"

    def accepts(self, element: Attribute) -> bool:
        if self is ElementKind.ANY:
            return True
        if self is ElementKind.FLOAT:
            return isinstance(element, AnyFloat)
        if self is ElementKind.BOOL:
            return element == i1
        if self is ElementKind.INDICES:
            return element in (i32, i64)
        is_int = isinstance(element, IntegerType) and element.width.data > 1
        return is_int or isinstance(element, AnyFloat)


Arity = tuple[int, int | None]
"""(minimum, maximum) operand count of an `ins`/`outs` group; None = unbounded."""


class DPSEffects(MemoryEffect):
    """Memref mode reads each input and writes each output; tensor mode is pure."""

    @classmethod
    def get_effects(cls, op: Operation) -> set[EffectInstance]:
        assert isinstance(op, DPSOp)
        reads = memref_effects(MemoryEffectKind.READ, op.inputs)
        return reads | memref_effects(MemoryEffectKind.WRITE, op.outputs)


class DPSOp(IRDLOperation):
    """Base of every compute op: `(%ctx, scalars...) ins(...) outs(...) {attrs} [-> T...]`."""

    ctx = operand_def(ContextType)
    scalars = var_operand_def(SCALAR_CONSTR)
    inputs = var_operand_def(DATA_CONSTR)
    outputs = var_operand_def(DATA_CONSTR)
    res = var_result_def(TensorType)
    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    traits = traits_def(DPSEffects())

    SHAPE_RULE: ClassVar[ShapeRule] = ShapeRule.SAME_SHAPE
    INPUTS: ClassVar[Arity] = (1, 1)
    OUTPUTS: ClassVar[Arity] = (1, 1)

    def __init__(
        self,
        ctx: SSAValue,
        inputs: Sequence[SSAValue],
        outputs: Sequence[SSAValue],
        scalars: Sequence[SSAValue] = (),
        properties: Mapping[str, Attribute] | None = None,
    ):
        # Tensor mode returns one value per init, of the init's type.
        result_types = [out.type for out in outputs if isinstance(out.type, TensorType)]
        super().__init__(
            operands=[ctx, scalars, inputs, outputs],
            result_types=[result_types],
            properties=dict(properties or {}),
        )

    @property
    def is_tensor_mode(self) -> bool:
        return bool(self.outputs) and isinstance(self.outputs[0].type, TensorType)

    def tied_init(self, result: SSAValue) -> SSAValue | None:
        """The init a tensor-mode result is written into (and so has the shape of)."""
        for value, init in zip(self.res, self.outputs):
            if value is result:
                return init
        return None

    def reify_result_shapes(self, emitter: IndexEmitter) -> list[list[Dim]] | ShapeFailure:
        """The dims of every out, from SHAPE_RULE's rule in `xhip.shapes` (as the converter).

        Runtime dims of operands are read with `tensor.dim`/`memref.dim` and combined
        with host `arith`, all emitted through `emitter`.
        """
        return reify_result_shapes(self, emitter)

    def expected_scalar_types(self) -> Sequence[Attribute]:
        """The types of the host scalar operands this op takes (none by default)."""
        return ()

    # ---- verification -------------------------------------------------------------

    def verify_(self) -> None:
        self._verify_modes()
        self._verify_arity("ins", self.inputs, self.INPUTS)
        self._verify_arity("outs", self.outputs, self.OUTPUTS)
        self._verify_scalars()
        self.verify_semantics()
        self._verify_static_dims()

    def verify_semantics(self) -> None:
        """Op-specific checks: element types, ranks, attribute ranges."""

    def _verify_static_dims(self) -> None:
        """Static out dims must agree with the shape rule wherever both are static."""
        verify_result_shapes(self)

    def _verify_modes(self) -> None:
        data = [*self.inputs, *self.outputs]
        kinds = {isinstance(v.type, TensorType) for v in data}
        if len(kinds) > 1:
            raise verify_error(self, "mixes tensor and memref operands")
        if kinds == {True}:
            if len(self.res) != len(self.outputs):
                raise verify_error(
                    self, f"tensor mode needs one result per init: {len(self.outputs)} init(s), "
                    f"{len(self.res)} result(s)"
                )
            for i, (result, init) in enumerate(zip(self.res, self.outputs)):
                if result.type != init.type:
                    raise verify_error(
                        self, f"result #{i} type {result.type} differs from init type {init.type}"
                    )
        elif self.res:
            raise verify_error(self, "memref mode writes its outs and has no results")

    def _verify_arity(self, group: str, values: Sequence[SSAValue], arity: Arity) -> None:
        low, high = arity
        if low <= len(values) and (high is None or len(values) <= high):
            return
        if high == low:
            expected = str(low)
        elif high is None:
            expected = f"at least {low}"
        else:
            expected = f"{low} to {high}"
        raise verify_error(self, f"expects {expected} {group} operand(s), got {len(values)}")

    def _verify_scalars(self) -> None:
        expected = self.expected_scalar_types()
        if len(expected) != len(self.scalars):
            got = len(self.scalars)
            raise verify_error(self, f"expects {len(expected)} scalar operand(s), got {got}")
        for i, (scalar, want) in enumerate(zip(self.scalars, expected)):
            if scalar.type != want:
                raise verify_error(self, f"scalar operand #{i} must be {want}, got {scalar.type}")

    def check_element(self, value: SSAValue, kind: ElementKind, what: str) -> Attribute:
        element = element_type_of(value)
        if not kind.accepts(element):
            raise verify_error(self, f"{what} must have {kind.value}, got {element}")
        return element

    def check_same_element(self, values: Sequence[SSAValue], what: str) -> None:
        elements = {element_type_of(v) for v in values}
        if len(elements) > 1:
            names = ", ".join(sorted(str(e) for e in elements))
            raise verify_error(self, f"{what} must share one element type, got {names}")

    def check_rank(self, value: SSAValue, expected: int, what: str) -> None:
        if rank_of(value) != expected:
            raise verify_error(self, f"{what} must have rank {expected}, got {value.type}")

    # ---- custom syntax --------------------------------------------------------------

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        printer.print_list([self.ctx, *self.scalars], printer.print_operand)
        printer.print_string(")")
        if self.inputs:
            _print_group(printer, "ins", self.inputs)
        _print_group(printer, "outs", self.outputs)
        printer.print_op_attributes(self._printed_attributes())
        if self.res:
            printer.print_string(" -> ")
            printer.print_list(self.res.types, printer.print_attribute)

    def _printed_attributes(self) -> dict[str, Attribute]:
        """Attributes and non-default properties, without the operand segment sizes."""
        props = self.get_irdl_definition().properties
        printed = dict(self.attributes)
        for key, value in self.properties.items():
            default = props[key].default_value if key in props else None
            if key != "operandSegmentSizes" and value != default:
                printed[key] = value
        return printed

    @classmethod
    def parse(cls, parser: Parser) -> DPSOp:
        parser.parse_punctuation("(")
        ctx = parser.resolve_operand(parser.parse_unresolved_operand(), ContextType())
        scalars: list[SSAValue] = []
        while parser.parse_optional_punctuation(","):
            scalars.append(_parse_defined_operand(parser))
        parser.parse_punctuation(")")
        inputs = _parse_group(parser) if parser.parse_optional_keyword("ins") else []
        parser.parse_keyword("outs")
        outputs = _parse_group(parser)
        attributes_start = parser.pos
        attributes = parser.parse_optional_attr_dict()
        if "operandSegmentSizes" in attributes:
            parser.raise_error(
                "operandSegmentSizes is implied by the custom syntax", attributes_start
            )
        result_types: list[Attribute] = []
        if parser.parse_optional_punctuation("->"):
            result_types = parser.parse_comma_separated_list(
                parser.Delimiter.NONE, parser.parse_type
            )
        props = cls.get_irdl_definition().properties
        properties = {k: v for k, v in attributes.items() if k in props}
        discardable = {k: v for k, v in attributes.items() if k not in props}
        return cls.build(
            operands=[ctx, scalars, inputs, outputs],
            result_types=[result_types],
            properties=properties,
            attributes=discardable,
        )


def _print_group(printer: Printer, keyword: str, values: Sequence[SSAValue]) -> None:
    printer.print_string(f" {keyword}(")
    printer.print_list(values, printer.print_operand)
    printer.print_string(" : ")
    printer.print_list([v.type for v in values], printer.print_attribute)
    printer.print_string(")")


def _parse_group(parser: Parser) -> list[SSAValue]:
    """`(%a, %b : T1, T2)`; an empty group `()` is accepted too."""
    parser.parse_punctuation("(")
    if parser.parse_optional_punctuation(")"):
        return []
    start = parser.pos
    names: list[UnresolvedOperand] = parser.parse_comma_separated_list(
        parser.Delimiter.NONE, parser.parse_unresolved_operand
    )
    parser.parse_punctuation(":")
    types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
    end = parser.pos
    parser.parse_punctuation(")")
    if len(names) != len(types):
        parser.raise_error(f"{len(names)} operand(s) but {len(types)} type(s)", start, end)
    return [parser.resolve_operand(name, type) for name, type in zip(names, types)]


def _parse_defined_operand(parser: Parser) -> SSAValue:
    """A scalar operand printed without its type: it must be defined above its use."""
    operand = parser.parse_unresolved_operand()
    values = parser.ssa_values.get(operand.operand_name)
    if values is None or operand.index >= len(values):
        parser.raise_error(
            "scalar operands must be defined before the op that uses them", operand.span
        )
    return values[operand.index]
