"""What bufferizing one function knows: the buffer of each tensor value, and how to make buffers.

Ops are bufferized in program order; the memref ops of a tensor op go right
before it (`at`), and the tensor op itself is erased at the end, when no tensor
value is used any more. Buffers that may never be needed (the contents of a
`tensor.empty` read as an input, a `tensor.from_elements` only used as a reshape's
shape) are made on first request, right after the op that defined the tensor.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    IndexType,
    IntegerAttr,
    MemRefType,
    TensorType,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xhip.diagnostics import op_error
from xhip.rewrite_rules.bufferize.constants import ConstantGlobals
from xhip.rewrite_rules.bufferize.extents import extents, single
from xhip.rewrite_rules.bufferize.types import Dim, identity_of, is_identity

BUFFER_ALIGNMENT = 64

LazyBuffer = Callable[[Builder], SSAValue]
"""Builds a buffer (and whatever fills it) with the given builder; returns the buffer."""


class BufferizationState:
    """The memref of each tensor value of one single-block function, and buffer builders."""

    def __init__(self, block: Block, constants: ConstantGlobals):
        self.block = block
        self.constants = constants
        self._buffers: dict[SSAValue, SSAValue] = {}
        self._lazy: dict[SSAValue, tuple[Operation, LazyBuffer]] = {}
        self._index: dict[int, SSAValue] = {}
        self._last_index: Operation | None = None
        self._unhoisted_index = {
            op.value.value.data: op
            for op in reversed(list(block.ops))
            if isinstance(op, arith.ConstantOp)
            and isinstance(op.result.type, IndexType)
            and isinstance(op.value, IntegerAttr)
        }
        """The function's own index constants, reused (moved to the top) when asked for."""
        self.at: Operation | None = None
        """The tensor op being bufferized: new ops go right before it."""

    # -- the value map ------------------------------------------------------------------

    def bind(self, tensor: SSAValue, buffer: SSAValue) -> None:
        self._buffers[tensor] = buffer

    def bind_lazily(self, tensor: SSAValue, build: LazyBuffer) -> None:
        """`tensor`'s buffer, built by `build` right after its definition if anyone asks."""
        assert isinstance(tensor.owner, Operation)
        self._lazy[tensor] = (tensor.owner, build)

    def buffer(self, value: SSAValue) -> SSAValue:
        """The memref holding `value` (a memref is its own buffer)."""
        if not isinstance(value.type, TensorType):
            return value
        if value not in self._buffers and value in self._lazy:
            definition, build = self._lazy.pop(value)
            self._buffers[value] = build(Builder(InsertPoint.after(definition)))
        if value not in self._buffers:
            owner = value.owner
            where = owner if isinstance(owner, Operation) else self.at
            assert where is not None
            raise op_error(where, f"one-shot-bufferize: no buffer for a tensor of '{where.name}'")
        return self._buffers[value]

    # -- building -----------------------------------------------------------------------

    def insert(self, op: Operation) -> Operation:
        """Insert `op` before the tensor op being bufferized, at its location."""
        assert self.at is not None
        op.location = self.at.location
        Rewriter.insert_op(op, InsertPoint.before(self.at))
        return op

    def index(self, value: int) -> SSAValue:
        """An `index` constant at the top of the function, shared by all users."""
        if value not in self._index:
            op = self._unhoisted_index.pop(value, None)
            if op is not None:
                op.detach()
            else:
                op = arith.ConstantOp(IntegerAttr(value, IndexType()))
            where = InsertPoint.after(self._last_index) if self._last_index else InsertPoint.at_start(self.block)
            Rewriter.insert_op(op, where)
            self._last_index = op
            self._index[value] = op.result
        return self._index[value]

    def dims(self, buffer: SSAValue, builder: Builder | None = None) -> list[Dim]:
        """The extents of `buffer`: static ones from its type, the others read at run time."""
        buffer_type = buffer.type
        assert isinstance(buffer_type, MemRefType)
        dims: list[Dim] = []
        for axis, factors in enumerate(extents(buffer)):
            known = single(factors)
            if known is None:
                dim = memref.DimOp(buffer, self.index(axis))
                known = (builder.insert(dim) if builder else self.insert(dim)).results[0]
            dims.append(known)
        return dims

    def alloc(
        self, memref_type: MemRefType[Attribute], dims: Sequence[Dim], builder: Builder | None = None
    ) -> SSAValue:
        """A fresh identity-layout buffer of `memref_type`'s element type and shape `dims`."""
        shape = memref_type.get_shape()
        dynamic = [
            self.index(d) if isinstance(d, int) else d
            for d, extent in zip(dims, shape, strict=True)
            if extent == DYNAMIC_INDEX
        ]
        op = memref.AllocOp.get(memref_type.element_type, BUFFER_ALIGNMENT, shape, dynamic)
        return (builder.insert(op) if builder else self.insert(op)).results[0]

    def copy_of(self, buffer: SSAValue) -> SSAValue:
        """A fresh identity-layout buffer holding a copy of `buffer` (value semantics)."""
        buffer_type = buffer.type
        assert isinstance(buffer_type, MemRefType)
        copy = self.alloc(identity_of(buffer_type), self.dims(buffer))
        self.insert(memref.CopyOp(buffer, copy))
        return copy

    def contiguous(self, buffer: SSAValue) -> SSAValue:
        """`buffer` itself if it is identity-layout, else an identity-layout copy of it."""
        return buffer if is_identity(buffer.type) else self.copy_of(buffer)

    def cast(self, buffer: SSAValue, target: Attribute) -> SSAValue:
        """`buffer` as `target` (a type that differs at most in static-ness of dims)."""
        if buffer.type == target:
            return buffer
        return self.insert(memref.CastOp.get(buffer, target)).results[0]  # type: ignore[arg-type]
