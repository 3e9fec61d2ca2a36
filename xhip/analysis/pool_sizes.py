"""What a pooled buffer is and how big: poolability, the names dims print with, and
byte sizes as `SizeExpr`s over the extents they are computed from.

hip-pool-allocs plans with these sizes and hip-record-model-buffers records the model's
own buffers with the same ones, so a bound and a pool are measured alike.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from xdsl.dialects import arith, func, memref, tensor
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, NoneAttr
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue
from xdsl.utils.hints import isa

from xhip.diagnostics import op_error
from xhip.dialects.onnx import entry_attributes, parse_dim_params
from xhip.index import facts as index_facts
from xhip.index.host_eval import constant_int
from xhip.memory import SizeExpr


def element_bytes(element: Attribute) -> int | None:
    """Bytes per element in device memory (`index` is 64-bit, i1 one byte), None if unknown."""
    if isinstance(element, IndexType):
        return 8
    width = getattr(element, "bitwidth", None)
    return -(-width // 8) if isinstance(width, int) and width > 0 else None


def is_poolable(alloc: memref.AllocOp) -> bool:
    """A `memref.view` of an i8 pool can stand for it: identity layout, default memory space."""
    result_type = alloc.memref.type
    return (
        isa(result_type, MemRefType)
        and isinstance(result_type.layout, NoneAttr)
        and isinstance(result_type.memory_space, NoneAttr)
        and element_bytes(result_type.element_type) is not None
    )


def symbolic_dim(value: SSAValue) -> str | None:
    """The ONNX name of a dim read from a graph input (`memref.dim %x, 0` with
    `onnx.dim_params = "0:batch"` on %x gives "batch"), else None."""
    owner = value.owner
    if not isinstance(owner, memref.DimOp | tensor.DimOp):
        return None
    source, axis = owner.operands[0], owner.operands[1].owner
    if not isinstance(source, BlockArgument) or not isinstance(axis, arith.ConstantOp):
        return None
    function = source.owner.parent_op()
    if not isinstance(function, func.FuncOp):
        return None
    if not isinstance(axis.value, IntegerAttr):
        return None
    try:
        symbols = parse_dim_params(entry_attributes(function.arg_attrs, source.index))
    except ValueError as err:
        raise op_error(function, f"hip-pool-allocs: argument #{source.index}: {err}") from None
    return symbols.get(axis.value.value.data)


class DimNames:
    """How dims print in sizes: the ONNX symbol of a graph input's dim (`batch`),
    else `%` + the SSA name; unique, so two different values never read alike."""

    def __init__(self) -> None:
        self._names: dict[SSAValue, str] = {}
        self._taken: set[str] = set()

    def __call__(self, value: SSAValue) -> str:
        if value not in self._names:
            symbol = symbolic_dim(value)
            if symbol:
                base = symbol
            elif value.name_hint:
                base = f"%{value.name_hint}"
            elif isinstance(value, BlockArgument):
                base = f"%arg{value.index}"
            else:
                assert isinstance(value.owner, Operation)
                base = f"%{value.owner.name.partition('.')[2]}"  # %load, %readback_dim, ...
            name, suffix = base, 0
            while name in self._taken:
                suffix += 1
                name = f"{base}_{suffix}"
            self._taken.add(name)
            self._names[value] = name
        return self._names[value]


_SIZE_ARITHMETIC: dict[type[Operation], Callable[[SizeExpr, SizeExpr], SizeExpr]] = {
    arith.AddiOp: SizeExpr.__add__,
    arith.MuliOp: SizeExpr.__mul__,
    arith.MaxSIOp: SizeExpr.max,
    arith.MaxUIOp: SizeExpr.max,
}


def _is_extent(value: SSAValue) -> bool:
    bound = index_facts.lower_bound(value)
    return bound is not None and bound >= 0


def size_expr(value: SSAValue, names: DimNames) -> SizeExpr:
    """A size operand as a SizeExpr over the extents it is computed from: sums,
    products and maxima of values known to be >= 0 are looked through (exact for
    extents), so `batch * seq` and `256 * batch * seq` compare as they should.
    Anything else is one runtime dim, keyed by its SSA value."""
    owner = value.owner
    constant = constant_int(value)
    if constant is not None and constant >= 0:
        return SizeExpr.const(constant)
    if (
        isinstance(owner, Operation)
        and (combine := _SIZE_ARITHMETIC.get(type(owner))) is not None
        and all(_is_extent(operand) for operand in owner.operands)
    ):
        lhs, rhs = (size_expr(operand, names) for operand in owner.operands)
        return combine(lhs, rhs)
    return SizeExpr.dim(value, names(value))


def byte_size(alloc: memref.AllocOp, names: DimNames) -> SizeExpr:
    """Element bytes x static dims x the dynamic size operands."""
    result_type = alloc.memref.type
    assert isa(result_type, MemRefType)
    bytes_per_element = element_bytes(result_type.element_type)
    assert bytes_per_element is not None
    static = math.prod(d for d in result_type.get_shape() if d >= 0)
    size = SizeExpr.const(bytes_per_element * static)
    for operand in alloc.dynamic_sizes:
        size = size * size_expr(operand, names)
    return size
