"""hip-materialize-host-scalars: tiny host-touched integer buffers to host scratch.

Shape scalars, counts and indices that host code stores (or loads) live in tiny
integer buffers. In device memory every host access would be a copy and a wait;
and as pool slots they could be reused by a later buffer while a queued kernel
still reads them (seed 004). So a static `memref.alloc` of at most `max-elements`
integer/index elements that host code loads or stores (also through views) becomes
a `memref.view` into ONE `hip.get_host_scratch(%ctx, %total)` per function, each at
a 64-byte aligned offset of its own.

A buffer qualifies only if every user, through views, is one whose meaning does
not change when the bytes are host-mapped: host loads/stores, `memref.dim`,
`memref.dealloc` (dropped: the scratch is runtime-owned), `memref.copy`, hip ops,
and views of it. Anything else (a `func.return`, a call) keeps it where it is.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, builtin, func, memref
from xdsl.dialects.builtin import IndexType, IntegerType, MemRefType
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xhip.analysis.host_access import HOST_SCALAR_MAX_ELEMENTS, is_host_scalar
from xhip.diagnostics import XhipError, op_error
from xhip.dialects.hip import GetHostScratchOp
from xhip.passes.contracts import erase_deallocs, require_context

PASS = "hip-materialize-host-scalars"

SCRATCH_ALIGNMENT = 64


def _align(value: int) -> int:
    return -(-value // SCRATCH_ALIGNMENT) * SCRATCH_ALIGNMENT


def _element_bytes(element: object) -> int:
    """Bytes per element in scratch: index is 8, an integer its width rounded up to bytes."""
    if isinstance(element, IndexType):
        return 8
    assert isinstance(element, IntegerType)
    return max(1, -(-element.width.data // 8))


def _scratch_bytes(buffer_type: MemRefType) -> int:
    return buffer_type.element_count() * _element_bytes(buffer_type.element_type)


def _existing_scratch(entry: Block) -> tuple[GetHostScratchOp | None, int]:
    """The function's scratch if an earlier run made one, and its constant size."""
    for op in entry.ops:
        if isinstance(op, GetHostScratchOp):
            size = op.size.owner
            if not (isinstance(size, arith.ConstantOp) and isinstance(size.value, builtin.IntegerAttr)):
                raise op_error(op, "cannot add host scalars to a host scratch whose size is not a constant")
            return op, size.value.value.data
    return None, 0


def _index_constant(value: int, point: InsertPoint) -> SSAValue:
    op = arith.ConstantOp.from_int_and_width(value, IndexType())
    op.result.name_hint = f"c{value}"
    Rewriter.insert_op(op, point)
    return op.result


def _scratch_for(function: func.FuncOp, total: int) -> GetHostScratchOp:
    """The function's one host scratch, created or grown to `total` bytes."""
    context = require_context(function, PASS, "moving host scalar buffers to host scratch")
    entry = function.body.blocks.first
    assert entry is not None
    scratch, _ = _existing_scratch(entry)
    if scratch is None:
        start = InsertPoint.at_start(entry)
        scratch = GetHostScratchOp(context, _index_constant(total, start))
        scratch.result.name_hint = "host_scratch"
        Rewriter.insert_op(scratch, start)
        return scratch
    old_size = scratch.size.owner
    scratch.operands = [scratch.ctx, _index_constant(total, InsertPoint.before(scratch))]
    if isinstance(old_size, Operation) and not old_size.results[0].uses:
        Rewriter.erase_op(old_size)
    return scratch


def _replace_by_view(alloc: memref.AllocOp, scratch: SSAValue, offset: int) -> None:
    at_alloc = InsertPoint.before(alloc)
    view = memref.ViewOp(scratch, _index_constant(offset, at_alloc), [], alloc.memref.type)
    view.result.name_hint = alloc.memref.name_hint
    Rewriter.insert_op(view, at_alloc)
    erase_deallocs(alloc.memref)  # the scratch is runtime-owned: nothing frees it
    alloc.memref.replace_all_uses_with(view.result)
    Rewriter.erase_op(alloc)


def materialize(function: func.FuncOp, max_elements: int) -> None:
    """Move every host scalar of `function` into its host scratch."""
    allocs = [op for op in function.walk() if isinstance(op, memref.AllocOp) and is_host_scalar(op, max_elements)]
    if not allocs:
        return
    entry = function.body.blocks.first
    assert entry is not None
    _, cursor = _existing_scratch(entry)
    offsets = []
    for alloc in allocs:
        cursor = _align(cursor)
        offsets.append(cursor)
        cursor += _scratch_bytes(alloc.memref.type)
    scratch = _scratch_for(function, _align(cursor))
    for alloc, offset in zip(allocs, offsets, strict=True):
        _replace_by_view(alloc, scratch.result, offset)


@dataclass(frozen=True)
class MaterializeHostScalarsPass(ModulePass):
    """Static integer buffers of at most `max-elements` elements touched by host code -> host scratch."""

    name = PASS

    max_elements: int = HOST_SCALAR_MAX_ELEMENTS
    """The largest element count of a buffer that moves to host scratch (at least 1)."""

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        if self.max_elements < 1:
            raise XhipError(f"{PASS}: option max-elements must be >= 1, got {self.max_elements}")
        for function in op.walk():
            if isinstance(function, func.FuncOp) and function.body.blocks:
                materialize(function, self.max_elements)
