"""hip-lower-allocs: leftover `memref.alloc`s become `hip.alloc` + `hip.free`.

After pooling, the only `memref.alloc`s left are the ones the planner could not
take (buffers inside regions, layouts a pool view cannot express). Each becomes
a runtime allocation on the function's `!hip.context`. A `memref.dealloc` of
such a buffer (or of a view of it) becomes `hip.free` of the buffer where the
dealloc was; a buffer without one is freed right after the last op that uses it
or any view of it, and a buffer that escapes through a terminator (a returned
buffer, a region result) is never freed here: its owner is the caller.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin, func, memref
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import IsTerminator

from xhip.analysis.host_access import forward_aliases
from xhip.dialects.hip import AllocOp, FreeOp
from xhip.passes.contracts import require_context


def ancestor_in(block: Block, op: Operation) -> Operation | None:
    """`op` itself or its enclosing op that sits directly in `block`."""
    current: Operation | None = op
    while current is not None and current.parent_block() is not block:
        current = current.parent_op()
    return current


@dataclass(frozen=True)
class BufferUses:
    """How a buffer and its views are used, seen from the buffer's block."""

    deallocs: list[memref.DeallocOp]
    last_user: Operation
    """The last op of the buffer's block that uses it, directly or in a region."""
    escapes: bool
    """Whether a terminator passes the buffer (or a view of it) on."""


def buffer_uses(buffer: SSAValue) -> BufferUses:
    owner = buffer.owner
    assert isinstance(owner, Operation)
    block = owner.parent_block()
    assert block is not None
    deallocs: list[memref.DeallocOp] = []
    last_user, escapes = owner, False
    for alias in forward_aliases(buffer):
        for use in alias.uses:
            user = use.operation
            if isinstance(user, memref.DeallocOp):
                deallocs.append(user)
                continue
            escapes |= user.has_trait(IsTerminator)
            anchor = ancestor_in(block, user)
            if anchor is not None and last_user.is_before_in_block(anchor):
                last_user = anchor
    return BufferUses(deallocs, last_user, escapes)


def lower_alloc(alloc: memref.AllocOp, context: SSAValue) -> None:
    """Replace `alloc` by `hip.alloc` and free it where its lifetime ends."""
    uses = buffer_uses(alloc.memref)
    replacement = AllocOp(context, alloc.memref.type, list(alloc.dynamic_sizes))
    Rewriter.replace_op(alloc, replacement)
    buffer = replacement.result
    last_user = replacement if uses.last_user is alloc else uses.last_user
    for dealloc in uses.deallocs:
        Rewriter.replace_op(dealloc, FreeOp(context, buffer))
    if not uses.deallocs and not uses.escapes:
        Rewriter.insert_op(FreeOp(context, buffer), InsertPoint.after(last_user))


def lower_deallocs_of_device_allocs(fn: func.FuncOp) -> None:
    """`memref.dealloc` of a `hip.alloc` buffer (or a view of it) becomes `hip.free`."""
    for alloc in [op for op in fn.walk() if isinstance(op, AllocOp)]:
        for dealloc in buffer_uses(alloc.result).deallocs:
            Rewriter.replace_op(dealloc, FreeOp(alloc.ctx, alloc.result))


@dataclass(frozen=True)
class LowerAllocsPass(ModulePass):
    """Turn every remaining memref.alloc into hip.alloc, freed after its last aliased use."""

    name = "hip-lower-allocs"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for fn in [f for f in op.walk() if isinstance(f, func.FuncOp)]:
            allocs = [a for a in fn.walk() if isinstance(a, memref.AllocOp)]
            if allocs:
                context = require_context(fn, self.name, "lowering memref.alloc to hip.alloc")
                for alloc in allocs:
                    lower_alloc(alloc, context)
            lower_deallocs_of_device_allocs(fn)
