"""What the ONNX-to-HIP conversion knows about each value while it walks a function.

Every ONNX value becomes a `Lowered`: the tensor that now holds it (if any), its
extents as `xhip.shapes` dims, and, for small integer tensors whose elements are
known on the host (shapes, constants, arithmetic on them), those elements. The
host elements are what lets shape subgraphs (Shape -> Gather -> Concat ->
Reshape) become index arithmetic instead of device work: a host-only value gets
a tensor only if some device op really consumes it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from xdsl.builder import Builder
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    TensorType,
    UnknownLoc,
    UnrankedTensorType,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint

from xhip.diagnostics import node_location, op_error
from xhip.dialects.hip import DPSOp
from xhip.dialects.onnx.signature import ArgumentAxis
from xhip.shapes import Dim, IndexEmitter, ShapeFailure

MAX_HOST_ELEMENTS = 64
"""Integer tensors up to this size are tracked element-wise (shape vectors)."""


_Element = TypeVar("_Element", bound=Attribute)
_Answer = TypeVar("_Answer")


def tensor_type(dims: Sequence[Dim], element_type: _Element) -> TensorType[_Element]:
    """The tensor type of `dims`: static where a dim is an int, `?` elsewhere."""
    return TensorType(element_type, [d if isinstance(d, int) else DYNAMIC_INDEX for d in dims])


@dataclass
class Lowered:
    """One ONNX value after conversion."""

    dims: list[Dim]
    element_type: Attribute
    value: SSAValue | None = None
    """The tensor holding it; None while only its host elements exist."""
    host: list[Dim] | None = None
    """Its elements (row-major) when known on the host: ints or index values."""


class ConversionState:
    """Converted values of one function, and the builders that create new IR."""

    def __init__(self, context: SSAValue, entry: Block, *, conv_as_matmul: bool = True):
        self.context = context
        self.conv_as_matmul = conv_as_matmul
        """Whether a Conv of one group is lowered to im2col and a matmul (the pass's option)."""
        self._values: dict[SSAValue, Lowered] = {}
        self._prologue = IndexEmitter(InsertPoint.at_start(entry))
        self.current: Operation | None = None
        self.emitter: IndexEmitter = self._prologue

    # -- position ------------------------------------------------------------------------

    def move_before(self, op: Operation) -> None:
        """New IR for `op`'s conversion goes right before `op`.

        Ops are converted in program order, so index arithmetic built for earlier
        ops (and the argument dims at entry) dominates `op` and is reused: each
        extent is one SSA value during the conversion, not only after cse.
        """
        self.current = op
        self.emitter = self._prologue.moved_to(InsertPoint.before(op))

    @property
    def builder(self) -> Builder:
        return self.emitter.builder

    def insert(self, op: Operation) -> Operation:
        """Insert `op` at the location of the ONNX op it implements.

        That is the ONNX op's source position when it has one, else a name location
        of its ONNX node: errors at run time name the node. A location, unlike an
        attribute, leaves cse free to merge equal ops of different nodes.
        """
        if isinstance(op.location, UnknownLoc) and self.current is not None:
            op.location = node_location(self.current)
        return self.builder.insert(op)

    def error(self, message: str):
        assert self.current is not None
        return op_error(self.current, message)

    def check(self, result: _Answer | ShapeFailure) -> _Answer:
        """A shape rule's answer (dims, or several lists of them), or the located error of its failure."""
        if isinstance(result, ShapeFailure):
            raise result.error(self.current)  # type: ignore[arg-type]
        return result

    # -- values --------------------------------------------------------------------------

    def define(self, onnx_value: SSAValue, lowered: Lowered) -> None:
        self._values[onnx_value] = lowered

    def define_arguments(self, arguments: Sequence[BlockArgument], shared: Mapping[ArgumentAxis, ArgumentAxis]) -> None:
        """Function arguments: their runtime dims are read once, at function entry.

        A dim whose symbol an earlier dim already names (`shared`, from the
        arguments' `onnx.dim_params`) is that dim's value, not a `tensor.dim` of
        its own: one SSA value per symbol, so the shape rules and the pool
        planner see equal extents as equal.
        """
        dims_of: dict[int, list[Dim]] = {}
        for argument in arguments:
            arg_type = argument.type
            if not isinstance(arg_type, TensorType):
                continue
            dims = dims_of[argument.index] = []
            for axis, extent in enumerate(arg_type.get_shape()):
                source = shared.get((argument.index, axis))
                if extent != DYNAMIC_INDEX:
                    dims.append(extent)
                elif source is not None and source[0] in dims_of:  # a tensor argument's dim
                    dims.append(dims_of[source[0]][source[1]])
                else:
                    dim_op = tensor.DimOp(argument, self._prologue.constant(axis))
                    dims.append(self._prologue.builder.insert(dim_op).result)
            self.define(argument, Lowered(dims, arg_type.element_type, argument))

    def lowered(self, onnx_value: SSAValue) -> Lowered:
        found = self._values.get(onnx_value)
        if found is None:
            if isinstance(onnx_value.type, UnrankedTensorType):
                raise self.error(f"unranked operand {onnx_value.type} is not supported: its rank must be known")
            raise self.error(f"operand of type {onnx_value.type} has no converted value")
        return found

    def dims(self, onnx_value: SSAValue) -> list[Dim]:
        return list(self.lowered(onnx_value).dims)

    def element_type(self, onnx_value: SSAValue) -> Attribute:
        return self.lowered(onnx_value).element_type

    def host(self, onnx_value: SSAValue) -> list[Dim] | None:
        """The value's elements if known on the host, without emitting anything."""
        return self.lowered(onnx_value).host

    def tensor(self, onnx_value: SSAValue) -> SSAValue:
        """The converted tensor, materializing a host-only value on first use."""
        lowered = self.lowered(onnx_value)
        if lowered.value is None:
            assert lowered.host is not None
            lowered.value = self._materialize_host(lowered)
        return lowered.value

    def elements(self, onnx_value: SSAValue) -> list[Dim]:
        """The elements of a small integer tensor as index dims.

        Host-known values need no IR. Others are read with `tensor.extract`:
        normalized IR states which element the host needs, and a later pass
        decides how it becomes visible (seed RFC, Problem 3).
        """
        known = self.host(onnx_value)
        if known is not None:
            return known
        dims = self.dims(onnx_value)
        if not all(isinstance(d, int) for d in dims):
            raise self.error("a shape or index operand must have a static number of elements")
        count = 1
        for d in dims:
            count *= d  # type: ignore[operator]
        source = self.tensor(onnx_value)
        values: list[Dim] = []
        for flat in range(count):
            indices, rest = [], flat
            for extent in reversed(dims):
                indices.append(self.emitter.constant(rest % extent))  # type: ignore[operator]
                rest //= extent  # type: ignore[operator]
            extract = self.insert(tensor.ExtractOp(source, list(reversed(indices)), self.element_type(onnx_value)))
            values.append(self.to_index(extract.results[0]))
        return values

    def static_ints(self, onnx_value: SSAValue, what: str) -> list[int]:
        """Elements that must be known when compiling (axes, perms): a located error otherwise."""
        known = self.host(onnx_value)
        if known is None or not all(isinstance(e, int) for e in known):
            raise self.error(f"{what} must be constant")
        return known  # type: ignore[return-value]

    def to_index(self, value: SSAValue) -> SSAValue:
        if isinstance(value.type, IndexType):
            return value
        return self.insert(arith.IndexCastOp(value, IndexType())).results[0]

    def _materialize_host(self, lowered: Lowered) -> SSAValue:
        """A tensor holding host elements: a dense constant, or from_elements of casts."""
        elements = lowered.host
        assert elements is not None
        element_type = lowered.element_type
        assert isinstance(element_type, IntegerType)  # host elements are integers
        result_type = tensor_type(lowered.dims, element_type)
        static = [e for e in elements if isinstance(e, int)]
        if len(static) == len(elements):
            attr = DenseIntOrFPElementsAttr.from_list(result_type, static)
            return self.insert(arith.ConstantOp(attr, result_type)).results[0]
        casted = []
        for e in elements:
            cast: Operation
            if isinstance(e, int):
                cast = arith.ConstantOp(IntegerAttr(e, element_type))
            else:
                cast = arith.IndexCastOp(e, element_type)
            casted.append(self.insert(cast).results[0])
        return self.insert(tensor.FromElementsOp(*casted, result_type=result_type)).results[0]

    # -- building ------------------------------------------------------------------------

    def fit_to_declared(self, dims: Sequence[Dim], declared: Attribute) -> list[Dim]:
        """Refine computed dims with the static dims of the imported result type.

        ONNX shape inference may know an extent our rule leaves symbolic (a
        value-dependent Reshape); a static dim of the declared type then wins.
        Two different static extents mean the model contradicts itself.
        """
        if not isinstance(declared, TensorType):
            return list(dims)
        shape = declared.get_shape()
        if len(shape) != len(dims):
            raise self.error(f"result has rank {len(dims)} but the model declares {declared}")
        fitted: list[Dim] = []
        for axis, (dim, static) in enumerate(zip(dims, shape)):
            if static == DYNAMIC_INDEX:
                fitted.append(dim)
            elif isinstance(dim, int) and dim != static:
                raise self.error(f"result dim {axis} is {dim} but the model declares {declared}")
            else:
                fitted.append(static)
        return fitted

    def cast(self, value: SSAValue, dims: Sequence[Dim]) -> SSAValue:
        """`value` with the type of `dims`, through `tensor.cast` when the types differ
        (the runtime checks a cast to static extents)."""
        assert isinstance(value.type, TensorType)
        wanted = tensor_type(dims, value.type.element_type)
        if value.type == wanted:
            return value
        return self.insert(tensor.CastOp(value, wanted)).results[0]

    def empty(self, dims: Sequence[Dim], element_type: Attribute) -> SSAValue:
        """A `tensor.empty` destination of `dims` (runtime dims as size operands)."""
        dynamic = [d for d in dims if not isinstance(d, int)]
        return self.insert(tensor.EmptyOp(dynamic, tensor_type(dims, element_type))).results[0]

    def compute(
        self,
        op_type: type[DPSOp],
        inputs: Sequence[SSAValue],
        outputs: Sequence[tuple[Sequence[Dim], Attribute]],
        scalars: Sequence[SSAValue] = (),
        properties: Mapping[str, Attribute] | None = None,
    ) -> list[Lowered]:
        """A tensor-mode hip op writing fresh destinations of the given dims and types."""
        inits = [self.empty(dims, element_type) for dims, element_type in outputs]
        op = self.insert(op_type(self.context, list(inputs), inits, list(scalars), properties))
        return [
            Lowered(list(dims), element_type, result)
            for (dims, element_type), result in zip(outputs, op.results, strict=True)
        ]

    def compute_value(
        self,
        op_type: type[DPSOp],
        inputs: Sequence[SSAValue],
        dims: Sequence[Dim],
        element_type: Attribute,
        properties: Mapping[str, Attribute] | None = None,
    ) -> SSAValue:
        """`compute` of a one-result op: the tensor it writes."""
        (result,) = self.compute(op_type, inputs, [(dims, element_type)], properties=properties)
        assert result.value is not None
        return result.value
