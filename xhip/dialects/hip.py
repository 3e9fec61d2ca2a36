"""The hip dialect: the execution context, device buffers, readbacks and compute ops.

Infrastructure ops manage memory (`hip.alloc`, `hip.get_pool`, `hip.alloc_output`, ...)
and make device data visible to the host (`hip.readback_scalar`, `hip.readback_dim`).

Compute ops are destination-passing (DPS) and come in two modes:

    %r = hip.add(%ctx) ins(%a, %b : tensor<?xf32>, tensor<?xf32>)
                       outs(%init : tensor<?xf32>) -> tensor<?xf32>      // tensor mode
    hip.add(%ctx) ins(%a, %b : memref<?xf32>, memref<?xf32>)
                  outs(%o : memref<?xf32>)                               // memref mode

Tensor mode has one result per init and no memory effects; memref mode has no results
and reads its `ins` and writes its `outs` (per value, so analyses can tell buffers apart).
Host scalars that parameterize a kernel (slice starts, range start/delta, a fill value)
follow the context: `hip.slice(%ctx, %start0, %step0) ...`. Their types are not spelled
in the custom form: they are looked up from the (dominating) definitions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import Enum, StrEnum
from typing import ClassVar, cast

from xdsl.dialects.builtin import (
    AnyFloat,
    AnyFloatConstr,
    BoolAttr,
    DYNAMIC_INDEX,
    DenseArrayBase,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    StringAttr,
    TensorType,
    f32,
    i1,
    i32,
    i8,
    i64,
)
from xdsl.ir import Attribute, Dialect, Operation, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    BaseAttr,
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import EffectInstance, MemoryEffect, MemoryEffectKind

from xhip.diagnostics import XhipError, op_error

DataType = TensorType[Attribute] | MemRefType[Attribute]
"""A buffer-like operand: a ranked tensor (tensor mode) or a memref (memref mode)."""

DATA_CONSTR = BaseAttr(TensorType) | BaseAttr(MemRefType)
SCALAR_CONSTR = BaseAttr(IndexType) | BaseAttr(IntegerType) | AnyFloatConstr
BYTE_BUFFER = MemRefType(i8, [DYNAMIC_INDEX])
"""The type of pools and scratch buffers, `memref<?xi8>`."""


@irdl_attr_definition
class ContextType(ParametrizedAttribute, TypeAttribute):
    """The opaque execution context, always the first function argument."""

    name = "hip.context"


def _error(op: Operation, message: str) -> XhipError:
    """A located verifier error phrased like MLIR's (`'hip.x' op ...`)."""
    return op_error(op, f"'{op.name}' op {message}")


def _shape(value: SSAValue) -> tuple[int, ...]:
    return cast(DataType, value.type).get_shape()


def _rank(value: SSAValue) -> int:
    return len(_shape(value))


def _element_type(value: SSAValue) -> Attribute:
    return cast(DataType, value.type).get_element_type()


def _num_elements(shape: Sequence[int]) -> int | None:
    """The static element count of `shape`, None when a dim is dynamic."""
    count = 1
    for dim in shape:
        if dim < 0:
            return None
        count *= dim
    return count


def _normalize_axis(op: Operation, axis: int, rank: int) -> int:
    """`axis` in [0, rank), accepting ONNX negative axes; errors name the valid range."""
    if not -rank <= axis < rank:
        valid = f"[{-rank}, {rank})"
        raise _error(op, f"axis {axis} is out of range for rank {rank} (expected {valid})")
    return axis % rank


def _require_non_negative(op: Operation, name: str, attr: IntegerAttr) -> None:
    if attr.value.data < 0:
        raise _error(op, f"{name} must be >= 0, got {attr.value.data}")


# --------------------------------------------------------------------------------------
# Memory effects tied to values: pooling, liveness, CSE and DCE all need to know WHICH
# buffer an op touches, not only that it touches one.
# --------------------------------------------------------------------------------------


def _memref_effects(kind: MemoryEffectKind, values: Sequence[SSAValue]) -> set[EffectInstance]:
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
        return _memref_effects(cls.KIND, op.operands)


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


class DPSEffects(MemoryEffect):
    """Memref mode reads each input and writes each output; tensor mode is pure."""

    @classmethod
    def get_effects(cls, op: Operation) -> set[EffectInstance]:
        assert isinstance(op, DPSOp)
        reads = _memref_effects(MemoryEffectKind.READ, op.inputs)
        return reads | _memref_effects(MemoryEffectKind.WRITE, op.outputs)


# --------------------------------------------------------------------------------------
# Infrastructure ops
# --------------------------------------------------------------------------------------


class _SizedBufferOp(IRDLOperation):
    """Shared shape of `hip.alloc` and `hip.alloc_output`: one size per `?` dim."""

    ctx = operand_def(ContextType)
    dynamic_sizes = var_operand_def(IndexType)
    result = result_def(MemRefType)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "`(` $ctx (`,` $dynamic_sizes^)? `)` attr-dict `:` type($result)"

    def __init__(
        self,
        ctx: SSAValue,
        result_type: MemRefType,
        dynamic_sizes: Sequence[SSAValue] = (),
        properties: Mapping[str, Attribute] | None = None,
    ):
        super().__init__(
            operands=[ctx, dynamic_sizes], result_types=[result_type], properties=properties
        )

    def verify_(self) -> None:
        expected = sum(1 for dim in self.result.type.get_shape() if dim < 0)
        if expected != len(self.dynamic_sizes):
            raise _error(
                self,
                f"expected {expected} dynamic size operand(s) for {self.result.type}, "
                f"got {len(self.dynamic_sizes)}",
            )


@irdl_op_definition
class AllocOp(_SizedBufferOp):
    """A device allocation owned by the program (freed by `hip.free`)."""

    name = "hip.alloc"
    traits = traits_def(AllocatesResult())


@irdl_op_definition
class AllocOutputOp(_SizedBufferOp):
    """Graph output `out_idx`, allocated by the runtime's output allocator.

    It has a Write effect and no Allocate effect, so the pool planner never absorbs it
    and CSE/DCE never merge or drop it."""

    name = "hip.alloc_output"
    out_idx = prop_def(IntegerAttr[IntegerType])
    traits = traits_def(WritesResult())

    def __init__(
        self,
        ctx: SSAValue,
        result_type: MemRefType,
        out_idx: int,
        dynamic_sizes: Sequence[SSAValue] = (),
    ):
        super().__init__(ctx, result_type, dynamic_sizes, {"out_idx": IntegerAttr(out_idx, i64)})

    def verify_(self) -> None:
        _require_non_negative(self, "out_idx", self.out_idx)
        super().verify_()


@irdl_op_definition
class FreeOp(IRDLOperation):
    """Releases a `hip.alloc` buffer."""

    name = "hip.free"
    ctx = operand_def(ContextType)
    memref = operand_def(MemRefType)
    traits = traits_def(FreesMemrefOperands())
    assembly_format = "`(` $ctx `,` $memref `)` attr-dict `:` type($memref)"

    def __init__(self, ctx: SSAValue, memref: SSAValue):
        super().__init__(operands=[ctx, memref])


class _ByteBufferOp(IRDLOperation):
    """A runtime-owned, grow-on-demand byte buffer of at least `size` bytes."""

    ctx = operand_def(ContextType)
    size = operand_def(IndexType)
    result = result_def(MemRefType)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(AllocatesResult())
    assembly_format = "`(` $ctx `,` $size `)` attr-dict `:` type($result)"

    def verify_(self) -> None:
        if self.result.type != BYTE_BUFFER:
            raise _error(self, f"result must be {BYTE_BUFFER}, got {self.result.type}")


@irdl_op_definition
class GetPoolOp(_ByteBufferOp):
    """The memory pool of dominance domain `domain_id`; views into it hold transients."""

    name = "hip.get_pool"
    domain_id = prop_def(IntegerAttr[IntegerType], default_value=IntegerAttr(0, i64))

    def __init__(self, ctx: SSAValue, size: SSAValue, domain_id: int = 0):
        super().__init__(
            operands=[ctx, size],
            result_types=[BYTE_BUFFER],
            properties={"domain_id": IntegerAttr(domain_id, i64)},
        )

    def verify_(self) -> None:
        _require_non_negative(self, "domain_id", self.domain_id)
        super().verify_()


@irdl_op_definition
class GetHostScratchOp(_ByteBufferOp):
    """Host-mapped scratch for tiny buffers that host code reads and writes."""

    name = "hip.get_host_scratch"

    def __init__(self, ctx: SSAValue, size: SSAValue):
        super().__init__(operands=[ctx, size], result_types=[BYTE_BUFFER])


@irdl_op_definition
class GetConstantOp(IRDLOperation):
    """The uploaded constant number `index` of the constants file, as a device buffer."""

    name = "hip.get_constant"
    ctx = operand_def(ContextType)
    index = operand_def(i64)
    result = result_def(MemRefType)
    traits = traits_def(ReadsResult())
    assembly_format = "`(` $ctx `,` $index `)` attr-dict `:` type($result)"

    def __init__(self, ctx: SSAValue, index: SSAValue, result_type: MemRefType):
        super().__init__(operands=[ctx, index], result_types=[result_type])

    def verify_(self) -> None:
        if not self.result.type.has_static_shape():
            raise _error(self, f"constants have static shapes, got {self.result.type}")


class _ReadbackOp(IRDLOperation):
    """Waits for the stream and copies the single element of `source` to the host."""

    ctx = operand_def(ContextType)
    source = operand_def(DATA_CONSTR)
    result = result_def(SCALAR_CONSTR)
    traits = traits_def(ReadsMemrefOperands())
    assembly_format = "`(` $ctx `,` $source `)` attr-dict `:` type($source) `->` type($result)"

    def verify_(self) -> None:
        count = _num_elements(_shape(self.source))
        if count != 1:
            raise _error(self, f"source must hold exactly one element, got {self.source.type}")


@irdl_op_definition
class ReadbackScalarOp(_ReadbackOp):
    """The scalar itself, or an integer scalar widened to `index`."""

    name = "hip.readback_scalar"

    def __init__(self, ctx: SSAValue, source: SSAValue, result_type: Attribute | None = None):
        result_type = result_type or _element_type(source)
        super().__init__(operands=[ctx, source], result_types=[result_type])

    def verify_(self) -> None:
        super().verify_()
        element = _element_type(self.source)
        result_type = self.result.type
        is_int = isinstance(element, IntegerType)
        if result_type != element and not (is_int and isinstance(result_type, IndexType)):
            allowed = f"{element} or index" if is_int else str(element)
            source = self.source.type
            raise _error(
                self, f"result must be {allowed} (from the source {source}), got {result_type}"
            )


@irdl_op_definition
class ReadbackDimOp(_ReadbackOp):
    """A device-computed count (i32 or i64) read back and widened to `index`."""

    name = "hip.readback_dim"
    result = result_def(IndexType)

    def __init__(self, ctx: SSAValue, source: SSAValue):
        super().__init__(operands=[ctx, source], result_types=[IndexType()])

    def verify_(self) -> None:
        super().verify_()
        element = _element_type(self.source)
        if element not in (i32, i64):
            raise _error(self, f"source element type must be i32 or i64, got {element}")


# --------------------------------------------------------------------------------------
# Destination-passing compute ops
# --------------------------------------------------------------------------------------


class ShapeRule(StrEnum):
    """Names of the result-shape rules in `xhip.shapes`; every DPS op names one."""

    SAME_SHAPE = "same_shape"  # the shape of the first input
    BROADCAST = "broadcast"  # ONNX multidirectional broadcast of all data inputs
    MATMUL = "matmul"
    GEMM = "gemm"
    REDUCE = "reduce"
    TRANSPOSE = "transpose"
    CONCAT = "concat"
    GATHER = "gather"
    GATHER_ND = "gather_nd"
    NONZERO = "nonzero"  # [rank, capacity] indices and a rank-0 count
    FROM_INIT = "from_init"  # extents known only to whoever built the init


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

    def verify_semantics(self) -> None:
        """Op-specific checks: element types, ranks, attribute ranges."""

    def _verify_modes(self) -> None:
        data = [*self.inputs, *self.outputs]
        kinds = {isinstance(v.type, TensorType) for v in data}
        if len(kinds) > 1:
            raise _error(self, "mixes tensor and memref operands")
        if kinds == {True}:
            if len(self.res) != len(self.outputs):
                raise _error(
                    self, f"tensor mode needs one result per init: {len(self.outputs)} init(s), "
                    f"{len(self.res)} result(s)"
                )
            for i, (result, init) in enumerate(zip(self.res, self.outputs)):
                if result.type != init.type:
                    raise _error(
                        self, f"result #{i} type {result.type} differs from init type {init.type}"
                    )
        elif self.res:
            raise _error(self, "memref mode writes its outs and has no results")

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
        raise _error(self, f"expects {expected} {group} operand(s), got {len(values)}")

    def _verify_scalars(self) -> None:
        expected = self.expected_scalar_types()
        if len(expected) != len(self.scalars):
            got = len(self.scalars)
            raise _error(self, f"expects {len(expected)} scalar operand(s), got {got}")
        for i, (scalar, want) in enumerate(zip(self.scalars, expected)):
            if scalar.type != want:
                raise _error(self, f"scalar operand #{i} must be {want}, got {scalar.type}")

    def check_element(self, value: SSAValue, kind: ElementKind, what: str) -> Attribute:
        element = _element_type(value)
        if not kind.accepts(element):
            raise _error(self, f"{what} must have {kind.value}, got {element}")
        return element

    def check_same_element(self, values: Sequence[SSAValue], what: str) -> None:
        elements = {_element_type(v) for v in values}
        if len(elements) > 1:
            names = ", ".join(sorted(str(e) for e in elements))
            raise _error(self, f"{what} must share one element type, got {names}")

    def check_rank(self, value: SSAValue, expected: int, what: str) -> None:
        if _rank(value) != expected:
            raise _error(self, f"{what} must have rank {expected}, got {value.type}")

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


# ---- elementwise --------------------------------------------------------------------


class UnaryElementwiseOp(DPSOp):
    """`ins(x) outs(y)`, same element type and shape."""

    ELEMENT: ClassVar[ElementKind] = ElementKind.FLOAT

    def verify_semantics(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        self.check_element(x, self.ELEMENT, "input")
        self.check_same_element([x, y], "input and output")
        self.check_rank(y, _rank(x), "output")


@irdl_op_definition
class ReluOp(UnaryElementwiseOp):
    name = "hip.relu"
    ELEMENT: ClassVar[ElementKind] = ElementKind.NUMERIC


@irdl_op_definition
class SigmoidOp(UnaryElementwiseOp):
    name = "hip.sigmoid"


@irdl_op_definition
class TanhOp(UnaryElementwiseOp):
    name = "hip.tanh"


@irdl_op_definition
class ErfOp(UnaryElementwiseOp):
    name = "hip.erf"


@irdl_op_definition
class SqrtOp(UnaryElementwiseOp):
    name = "hip.sqrt"


@irdl_op_definition
class ExpOp(UnaryElementwiseOp):
    name = "hip.exp"


@irdl_op_definition
class LogOp(UnaryElementwiseOp):
    name = "hip.log"


@irdl_op_definition
class ReciprocalOp(UnaryElementwiseOp):
    name = "hip.reciprocal"


@irdl_op_definition
class NegOp(UnaryElementwiseOp):
    name = "hip.neg"
    ELEMENT: ClassVar[ElementKind] = ElementKind.NUMERIC


@irdl_op_definition
class AbsOp(UnaryElementwiseOp):
    name = "hip.abs"
    ELEMENT: ClassVar[ElementKind] = ElementKind.NUMERIC


@irdl_op_definition
class NotOp(UnaryElementwiseOp):
    name = "hip.not"
    ELEMENT: ClassVar[ElementKind] = ElementKind.BOOL


@irdl_op_definition
class CopyOp(UnaryElementwiseOp):
    """Copies `x` into `y` (same shape), e.g. to give an output its own buffer."""

    name = "hip.copy"
    ELEMENT: ClassVar[ElementKind] = ElementKind.ANY


@irdl_op_definition
class GeluOp(UnaryElementwiseOp):
    """Exact (erf) GELU, or its tanh approximation."""

    name = "hip.gelu"
    approximate = prop_def(StringAttr, default_value=StringAttr("none"))

    def verify_semantics(self) -> None:
        super().verify_semantics()
        if self.approximate.data not in ("none", "tanh"):
            got = self.approximate.data
            raise _error(self, f'approximate must be "none" or "tanh", got "{got}"')


@irdl_op_definition
class SoftmaxOp(UnaryElementwiseOp):
    """Softmax along one `axis` (ONNX opset >= 13 semantics)."""

    name = "hip.softmax"
    axis = prop_def(IntegerAttr[IntegerType], default_value=IntegerAttr(-1, i64))

    def verify_semantics(self) -> None:
        super().verify_semantics()
        _normalize_axis(self, self.axis.value.data, _rank(self.inputs[0]))


@irdl_op_definition
class CastOp(DPSOp):
    """Converts `x` to the element type of `y`."""

    name = "hip.cast"

    def verify_semantics(self) -> None:
        self.check_rank(self.outputs[0], _rank(self.inputs[0]), "output")


class BroadcastOp(DPSOp):
    """Elementwise over broadcast inputs; all inputs share the output element type."""

    SHAPE_RULE: ClassVar[ShapeRule] = ShapeRule.BROADCAST
    INPUTS: ClassVar[Arity] = (2, 2)
    ELEMENT: ClassVar[ElementKind] = ElementKind.NUMERIC

    def data_inputs(self) -> Sequence[SSAValue]:
        """The inputs whose element type is checked against ELEMENT and the output."""
        return self.inputs

    def verify_semantics(self) -> None:
        data = self.data_inputs()
        self.check_element(data[0], self.ELEMENT, "inputs")
        self.check_same_element([*data, self.outputs[0]], "inputs and output")
        self.check_rank(self.outputs[0], max(_rank(v) for v in self.inputs), "output")


@irdl_op_definition
class AddOp(BroadcastOp):
    name = "hip.add"


@irdl_op_definition
class SubOp(BroadcastOp):
    name = "hip.sub"


@irdl_op_definition
class MulOp(BroadcastOp):
    name = "hip.mul"


@irdl_op_definition
class DivOp(BroadcastOp):
    name = "hip.div"


@irdl_op_definition
class PowOp(BroadcastOp):
    """`base ** exponent`; ONNX lets the exponent have its own numeric type."""

    name = "hip.pow"

    def data_inputs(self) -> Sequence[SSAValue]:
        return self.inputs[:1]

    def verify_semantics(self) -> None:
        super().verify_semantics()
        self.check_element(self.inputs[1], ElementKind.NUMERIC, "exponent")


@irdl_op_definition
class MaxOp(BroadcastOp):
    name = "hip.max"
    INPUTS: ClassVar[Arity] = (1, None)


@irdl_op_definition
class MinOp(BroadcastOp):
    name = "hip.min"
    INPUTS: ClassVar[Arity] = (1, None)


@irdl_op_definition
class AndOp(BroadcastOp):
    name = "hip.and"
    ELEMENT: ClassVar[ElementKind] = ElementKind.BOOL


@irdl_op_definition
class OrOp(BroadcastOp):
    name = "hip.or"
    ELEMENT: ClassVar[ElementKind] = ElementKind.BOOL


class ComparisonOp(BroadcastOp):
    """Compares two inputs of one element type into an i1 output."""

    def verify_semantics(self) -> None:
        lhs, rhs = self.inputs
        self.check_element(lhs, self.ELEMENT, "inputs")
        self.check_same_element([lhs, rhs], "inputs")
        self.check_element(self.outputs[0], ElementKind.BOOL, "comparison output")
        self.check_rank(self.outputs[0], max(_rank(lhs), _rank(rhs)), "output")


@irdl_op_definition
class EqualOp(ComparisonOp):
    name = "hip.equal"
    ELEMENT: ClassVar[ElementKind] = ElementKind.ANY


@irdl_op_definition
class LessOp(ComparisonOp):
    name = "hip.less"


@irdl_op_definition
class GreaterOp(ComparisonOp):
    name = "hip.greater"


@irdl_op_definition
class LessEqualOp(ComparisonOp):
    name = "hip.less_equal"


@irdl_op_definition
class GreaterEqualOp(ComparisonOp):
    name = "hip.greater_equal"


@irdl_op_definition
class WhereOp(BroadcastOp):
    """`ins(cond, x, y)`: x where cond else y."""

    name = "hip.where"
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
    """ONNX MatMul: batched, with NumPy rank-1 promotion and batch broadcast."""

    name = "hip.matmul"
    SHAPE_RULE: ClassVar[ShapeRule] = ShapeRule.MATMUL
    INPUTS: ClassVar[Arity] = (2, 2)

    def verify_semantics(self) -> None:
        a, b = self.inputs
        self.check_element(a, ElementKind.NUMERIC, "A")
        self.check_same_element([a, b, self.outputs[0]], "A, B and output")
        ra, rb = _rank(a), _rank(b)
        if ra < 1 or rb < 1:
            raise _error(self, f"operands must have rank >= 1, got {a.type} and {b.type}")
        # A rank-1 operand is promoted to a matrix and its unit dim dropped again.
        expected = max(ra, rb, 2) - (ra == 1) - (rb == 1)
        self.check_rank(self.outputs[0], expected, "output")


@irdl_op_definition
class GemmOp(DPSOp):
    """`alpha * op(A) @ op(B) + beta * C`, 2-D only, C broadcast to [M, N]."""

    name = "hip.gemm"
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
        if len(self.inputs) == 3 and _rank(self.inputs[2]) > 2:
            raise _error(self, f"C must have rank <= 2, got {self.inputs[2].type}")
        self.check_rank(self.outputs[0], 2, "output")


@irdl_op_definition
class LayerNormOp(DPSOp):
    """`ins(x, scale[, bias])`, normalizing over dims [axis, rank)."""

    name = "hip.layer_norm"
    INPUTS: ClassVar[Arity] = (2, 3)
    axis = prop_def(IntegerAttr[IntegerType], default_value=IntegerAttr(-1, i64))
    epsilon = prop_def(FloatAttr, default_value=FloatAttr(1e-5, f32))

    def verify_semantics(self) -> None:
        x = self.inputs[0]
        self.check_element(x, ElementKind.FLOAT, "input")
        self.check_same_element([*self.inputs, self.outputs[0]], "operands and output")
        _normalize_axis(self, self.axis.value.data, _rank(x))
        self.check_rank(self.outputs[0], _rank(x), "output")


# ---- reductions and data movement ------------------------------------------------------


class ReduceOp(DPSOp):
    """Reduces over static `axes` (empty = all axes), keeping unit dims if `keepdims`."""

    SHAPE_RULE: ClassVar[ShapeRule] = ShapeRule.REDUCE
    axes = prop_def(DenseArrayBase.constr(i64), default_value=DenseArrayBase.from_list(i64, []))
    keepdims = prop_def(BoolAttr, default_value=IntegerAttr(1, i1))

    def normalized_axes(self) -> list[int]:
        """The reduced axes in [0, rank), sorted; all axes when `axes` is empty."""
        rank = _rank(self.inputs[0])
        axes = self.axes.get_values()
        if not axes:
            return list(range(rank))
        return sorted(_normalize_axis(self, a, rank) for a in axes)

    def verify_semantics(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        self.check_element(x, ElementKind.NUMERIC, "input")
        self.check_same_element([x, y], "input and output")
        axes = self.normalized_axes()
        if len(set(axes)) != len(axes):
            raise _error(self, f"axes {list(self.axes.get_values())} repeat an axis")
        expected = _rank(x) if self.keepdims.value.data else _rank(x) - len(axes)
        self.check_rank(y, expected, "output")


@irdl_op_definition
class ReduceMeanOp(ReduceOp):
    name = "hip.reduce_mean"


@irdl_op_definition
class ReduceSumOp(ReduceOp):
    name = "hip.reduce_sum"


@irdl_op_definition
class ReduceMaxOp(ReduceOp):
    name = "hip.reduce_max"


class DataMovementOp(DPSOp):
    """Moves elements without changing them: every data operand shares one element type."""

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
        rank = _rank(self.inputs[0])
        perm = list(self.perm.get_values())
        if sorted(perm) != list(range(rank)):
            raise _error(self, f"perm {perm} is not a permutation of the input rank {rank}")
        self.check_rank(self.outputs[0], rank, "output")


@irdl_op_definition
class ConcatOp(DataMovementOp):
    """Joins the inputs along `axis`."""

    name = "hip.concat"
    SHAPE_RULE: ClassVar[ShapeRule] = ShapeRule.CONCAT
    INPUTS: ClassVar[Arity] = (1, None)
    axis = prop_def(IntegerAttr[IntegerType])

    def verify_layout(self) -> None:
        rank = _rank(self.outputs[0])
        for i, value in enumerate(self.inputs):
            self.check_rank(value, rank, f"input #{i}")
        _normalize_axis(self, self.axis.value.data, rank)


@irdl_op_definition
class SplitOp(DataMovementOp):
    """Splits `x` along `axis` into the outs, whose extents give the split sizes."""

    name = "hip.split"
    SHAPE_RULE: ClassVar[ShapeRule] = ShapeRule.FROM_INIT
    OUTPUTS: ClassVar[Arity] = (1, None)
    axis = prop_def(IntegerAttr[IntegerType], default_value=IntegerAttr(0, i64))

    def verify_layout(self) -> None:
        rank = _rank(self.inputs[0])
        for i, value in enumerate(self.outputs):
            self.check_rank(value, rank, f"output #{i}")
        _normalize_axis(self, self.axis.value.data, rank)


@irdl_op_definition
class SliceOp(DataMovementOp):
    """`y[i] = x[start + i * step]` per dim; negative steps walk backwards.

    Scalars are all the starts (one per input dim), then all the steps; the extents
    come from the out operand."""

    name = "hip.slice"
    SHAPE_RULE: ClassVar[ShapeRule] = ShapeRule.FROM_INIT

    def expected_scalar_types(self) -> Sequence[Attribute]:
        return [IndexType()] * (2 * _rank(self.inputs[0]))

    @property
    def starts(self) -> Sequence[SSAValue]:
        return self.scalars[: len(self.scalars) // 2]

    @property
    def steps(self) -> Sequence[SSAValue]:
        return self.scalars[len(self.scalars) // 2 :]

    def verify_layout(self) -> None:
        self.check_rank(self.outputs[0], _rank(self.inputs[0]), "output")


@irdl_op_definition
class ExpandOp(DataMovementOp):
    """Broadcasts `x` to the shape of `y`."""

    name = "hip.expand"
    SHAPE_RULE: ClassVar[ShapeRule] = ShapeRule.FROM_INIT

    def verify_layout(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        if _rank(y) < _rank(x):
            raise _error(self, f"cannot expand {x.type} to the lower rank of {y.type}")


class IndexedGatherOp(DataMovementOp):
    """`ins(data, indices)`: indices select elements; the output has the data's type."""

    SHAPE_RULE: ClassVar[ShapeRule] = ShapeRule.GATHER
    INPUTS: ClassVar[Arity] = (2, 2)

    def data_operands(self) -> Sequence[SSAValue]:
        return [self.inputs[0], self.outputs[0]]

    def verify_layout(self) -> None:
        data, indices = self.inputs
        self.check_element(indices, ElementKind.INDICES, "indices")
        if _rank(data) < 1:
            raise _error(self, f"data must have rank >= 1, got {data.type}")
        self.verify_ranks(_rank(data), _rank(indices))

    def verify_ranks(self, data_rank: int, indices_rank: int) -> None:
        raise NotImplementedError()


@irdl_op_definition
class GatherOp(IndexedGatherOp):
    """ONNX Gather: `indices` pick slices of `data` along `axis`."""

    name = "hip.gather"
    axis = prop_def(IntegerAttr[IntegerType], default_value=IntegerAttr(0, i64))

    def verify_ranks(self, data_rank: int, indices_rank: int) -> None:
        _normalize_axis(self, self.axis.value.data, data_rank)
        self.check_rank(self.outputs[0], data_rank + indices_rank - 1, "output")


@irdl_op_definition
class GatherNDOp(IndexedGatherOp):
    """ONNX GatherND: the last dim of `indices` addresses the leading data dims."""

    name = "hip.gather_nd"
    SHAPE_RULE: ClassVar[ShapeRule] = ShapeRule.GATHER_ND
    batch_dims = prop_def(IntegerAttr[IntegerType], default_value=IntegerAttr(0, i64))

    def verify_ranks(self, data_rank: int, indices_rank: int) -> None:
        batch = self.batch_dims.value.data
        if indices_rank < 1:
            raise _error(self, "indices must have rank >= 1")
        if not 0 <= batch < min(data_rank, indices_rank):
            raise _error(
                self, f"batch_dims {batch} must be in [0, {min(data_rank, indices_rank)})"
            )
        depth = _shape(self.inputs[1])[-1]
        if depth < 0:
            return
        if depth > data_rank - batch:
            raise _error(
                self, f"indices depth {depth} exceeds data rank {data_rank} - batch_dims {batch}"
            )
        self.check_rank(self.outputs[0], data_rank + indices_rank - depth - 1 - batch, "output")


# ---- generators -----------------------------------------------------------------------


class GeneratorOp(DPSOp):
    """No data inputs: the output is computed from host scalars of its element type."""

    SHAPE_RULE: ClassVar[ShapeRule] = ShapeRule.FROM_INIT
    INPUTS: ClassVar[Arity] = (0, 0)
    SCALARS: ClassVar[int] = 1

    def expected_scalar_types(self) -> Sequence[Attribute]:
        return [_element_type(self.outputs[0])] * self.SCALARS


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
    SHAPE_RULE: ClassVar[ShapeRule] = ShapeRule.NONZERO
    OUTPUTS: ClassVar[Arity] = (2, 2)

    def verify_semantics(self) -> None:
        x = self.inputs[0]
        indices, count = self.outputs
        self.check_rank(indices, 2, "indices output")
        rows = _shape(indices)[0]
        if rows >= 0 and rows != _rank(x):
            raise _error(
                self, f"indices output must have {_rank(x)} rows (the input rank), got {rows}"
            )
        element = _element_type(indices)
        if element != i64:
            raise _error(self, f"indices output must have i64 elements, got {element}")
        self.check_rank(count, 0, "count output")
        self.check_element(count, ElementKind.INDICES, "count output")


HIP = Dialect(
    "hip",
    [
        # Infrastructure.
        AllocOp, AllocOutputOp, FreeOp, GetPoolOp, GetHostScratchOp, GetConstantOp,
        ReadbackScalarOp, ReadbackDimOp,
        # Elementwise.
        AddOp, SubOp, MulOp, DivOp, PowOp, MaxOp, MinOp,
        EqualOp, LessOp, GreaterOp, LessEqualOp, GreaterEqualOp, AndOp, OrOp, NotOp, WhereOp,
        ReluOp, SigmoidOp, TanhOp, ErfOp, SqrtOp, ExpOp, LogOp, NegOp, AbsOp, ReciprocalOp,
        CastOp, GeluOp, CopyOp,
        # Linear algebra, normalization, reductions.
        MatmulOp, GemmOp, SoftmaxOp, LayerNormOp, ReduceMeanOp, ReduceSumOp, ReduceMaxOp,
        # Data movement and generators.
        TransposeOp, ConcatOp, SplitOp, SliceOp, GatherOp, GatherNDOp, ExpandOp,
        RangeOp, NonZeroOp, FillOp,
    ],  # fmt: skip
    [ContextType],
)
