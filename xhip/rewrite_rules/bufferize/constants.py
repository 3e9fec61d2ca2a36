"""Tensor constants as read-only `memref.global`s, one per distinct (type, value)."""

from __future__ import annotations

from xdsl.dialects import memref
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    UnitAttr,
)
from xdsl.ir import Attribute, Operation
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import SymbolOpInterface

from xhip.rewrite_rules.bufferize.types import memref_of

CONSTANT_ALIGNMENT = 64


def global_name(tensor_type: TensorType[Attribute]) -> str:
    """MLIR's spelling: `__constant_4x8xf32`, `__constant_xf32` for rank 0."""
    dims = "".join(f"{extent}x" for extent in tensor_type.get_shape())
    return f"__constant_{dims or 'x'}{tensor_type.element_type}"


def _symbol(op: Operation) -> StringAttr | None:
    trait = op.get_trait(SymbolOpInterface)
    return trait.get_sym_attr_name(op) if trait is not None else None


class ConstantGlobals:
    """Declares the globals of a module's tensor constants, sharing equal ones."""

    def __init__(self, module: ModuleOp):
        self._module = module
        self._taken = {name.data for op in module.ops if (name := _symbol(op)) is not None}
        self._declared: dict[DenseIntOrFPElementsAttr, str] = {}
        self._last: Operation | None = None

    def symbol_for(self, value: DenseIntOrFPElementsAttr) -> str:
        """The symbol of a private constant global holding `value` (declared on first use)."""
        if value in self._declared:
            return self._declared[value]
        tensor_type = value.type
        assert isinstance(tensor_type, TensorType)
        base = global_name(tensor_type)
        symbol, counter = base, 0
        while symbol in self._taken:
            symbol, counter = f"{base}_{counter}", counter + 1
        declaration = memref.GlobalOp.get(
            StringAttr(symbol),
            memref_of(tensor_type),
            value,
            constant=UnitAttr(),
            alignment=CONSTANT_ALIGNMENT,
        )
        # Declarations go first, in the order they are needed.
        where = InsertPoint.after(self._last) if self._last else InsertPoint.at_start(self._module.body.block)
        Rewriter.insert_op(declaration, where)
        self._last = declaration
        self._taken.add(symbol)
        self._declared[value] = symbol
        return symbol
