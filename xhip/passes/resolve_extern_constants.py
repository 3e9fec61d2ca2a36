"""hip-resolve-extern-constants: externalized weights become `hip.get_constant`.

`hip-externalize-constants` left each large constant as an uninitialized
`memref.global` with `hip.external_data = {index, offset, size}` (its place in
the constants file) read through `memref.get_global`. The runtime uploads the
whole constants file once and serves constant number `index` on request, so here
every such read becomes

    %i = arith.constant <index> : i64
    %w = hip.get_constant(%ctx, %i) : memref<...>

and the globals go away. What the runtime needs to find the bytes moves to
module attributes: `hip.constants_file` (with its recorded size and SHA-256, see
`xhip.constants_file`) stays, and `hip.constant_offsets` /
`hip.constant_sizes` (`array<i64: ...>`, entry `index` of each describes
constant `index`; -1 marks an index no global used) record the layout.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, builtin, func, memref
from xdsl.dialects.builtin import (
    DenseArrayBase,
    IntegerAttr,
    MemRefType,
    i64,
)
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xhip.diagnostics import op_error
from xhip.dialects.hip import GetConstantOp
from xhip.dialects.hip.attributes import (
    CONSTANT_OFFSETS_ATTR,
    CONSTANT_SIZES_ATTR,
    EXTERNAL_DATA_ATTR,
    ExternalData,
    parse_external_data,
)
from xhip.passes.contracts import require_context

MISSING = -1


def _external_data(declaration: memref.GlobalOp) -> ExternalData | None:
    """The `hip.external_data` of a global, checked; None for an ordinary global."""
    data = declaration.attributes.get(EXTERNAL_DATA_ATTR)
    if data is None:
        return None
    name = declaration.sym_name.data
    try:
        external = parse_external_data(data)
    except ValueError as err:
        raise op_error(declaration, f"@{name}: {err}") from None
    if not isinstance(declaration.type, MemRefType) or not declaration.type.has_static_shape():
        raise op_error(declaration, f"@{name}: an external constant needs a static memref type")
    return external


def _layout_attrs(
    constants: Iterable[tuple[memref.GlobalOp, ExternalData]],
) -> tuple[DenseArrayBase, DenseArrayBase]:
    """The offsets and sizes arrays, indexed by constant index; two globals may not share one."""
    by_index: dict[int, tuple[memref.GlobalOp, ExternalData]] = {}
    for declaration, constant in constants:
        previous = by_index.setdefault(constant.index, (declaration, constant))
        if previous[0] is not declaration:
            raise op_error(
                declaration,
                f"@{declaration.sym_name.data} has constant index {constant.index}, "
                f"already used by @{previous[0].sym_name.data}",
            )
    count = max(by_index, default=-1) + 1
    entries = [by_index[i][1] if i in by_index else None for i in range(count)]

    def array(field: str) -> DenseArrayBase:
        return DenseArrayBase.from_list(i64, [getattr(e, field) if e else MISSING for e in entries])

    return array("offset"), array("size")


def _resolve_read(read: memref.GetGlobalOp, constant: ExternalData) -> None:
    symbol = read.name_.root_reference.data
    fn: Operation | None = read.parent_op()
    while fn is not None and not isinstance(fn, func.FuncOp):
        fn = fn.parent_op()
    if fn is None:
        raise op_error(read, f"{ResolveExternConstantsPass.name}: reading @{symbol} outside a func.func")
    context = require_context(fn, ResolveExternConstantsPass.name, f"reading @{symbol}")
    index = arith.ConstantOp(IntegerAttr(constant.index, i64))
    Rewriter.insert_op(index, InsertPoint.before(read))
    Rewriter.replace_op(read, GetConstantOp(context, index.result, read.memref.type))


@dataclass(frozen=True)
class ResolveExternConstantsPass(ModulePass):
    """Replace reads of externalized globals by hip.get_constant; record the file layout."""

    name = "hip-resolve-extern-constants"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        external = {}
        for declaration in op.body.block.ops:
            if isinstance(declaration, memref.GlobalOp):
                constant = _external_data(declaration)
                if constant is not None:
                    external[declaration.sym_name.data] = (declaration, constant)
        if not external:
            return
        offsets, sizes = _layout_attrs(external.values())
        for read in [r for r in op.walk() if isinstance(r, memref.GetGlobalOp)]:
            entry = external.get(read.name_.root_reference.data)
            if entry is not None:
                _resolve_read(read, entry[1])
        for declaration, _ in external.values():
            Rewriter.erase_op(declaration)
        op.attributes[CONSTANT_OFFSETS_ATTR] = offsets
        op.attributes[CONSTANT_SIZES_ATTR] = sizes
