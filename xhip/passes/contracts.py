"""The contracts xhip's passes share, each checked in one place with one message.

A pass module imports what it needs from here, never from another pass:

- `function_body`: the passes work on single-block function bodies;
- `function_context` / `require_context`: `!hip.context` is argument #0 of any
  function a pass emits runtime calls into (hip-add-context-arg puts it there);
- `require_bufferized_results`: a pass that hands out result buffers runs after
  one-shot-bufferize, so no result is a tensor;
- `erase_deallocs`: the `memref.dealloc`s of a buffer and of every view of it,
  for passes that hand the buffer's bytes to an owner that frees them itself
  (a pool, host scratch, the output allocator) or that re-place them;
- `escapes`: whether liveness (xhip.analysis.liveness) follows every use of a
  buffer, which a pass must know before it lets other buffers share the
  bytes (in-place reuse, pool packing);
- `is_pure`: whether an op may run earlier than it is written.

This module defines no pass; the registry (xhip/passes/__init__.py) only takes
ModulePass classes, so it is not one.
"""

from __future__ import annotations

from xdsl.dialects import arith, builtin, func, memref
from xdsl.dialects.builtin import MemRefType, TensorType
from xdsl.ir import Block, Operation, SSAValue
from xdsl.rewriter import Rewriter
from xdsl.traits import IsTerminator, is_side_effect_free, is_speculatable

from xhip.analysis.host_access import forward_aliases
from xhip.analysis.liveness import ALIASING_VIEWS
from xhip.diagnostics import op_error
from xhip.dialects.hip import ContextType
from xhip.dialects.hip.common import ResultAliasesOperand
from xhip.index import facts as index_facts
from xhip.index.host_eval import constant_int

# -- function shape ---------------------------------------------------------------------


def function_body(fn: func.FuncOp, pass_name: str) -> Block | None:
    """The single block of `fn` (None for a declaration); more blocks are a located error."""
    blocks = list(fn.body.blocks)
    if len(blocks) > 1:
        what = f"'@{fn.sym_name.data}' has {len(blocks)} blocks"
        raise op_error(fn, f"{pass_name}: {what}; only single-block functions are supported")
    return blocks[0] if blocks else None


def function_context(fn: func.FuncOp) -> SSAValue | None:
    """The `!hip.context` argument of `fn` (argument #0), if it has one."""
    block = fn.body.blocks.first
    if block is None or not block.args or not isinstance(block.args[0].type, ContextType):
        return None
    return block.args[0]


def require_context(fn: func.FuncOp, pass_name: str, what: str) -> SSAValue:
    """The context of `fn`, after checking it has one block and `!hip.context` first.

    `what` names the work that needs the context, for the message."""
    function_body(fn, pass_name)
    context = function_context(fn)
    if context is None:
        raise op_error(
            fn,
            f"{pass_name}: '@{fn.sym_name.data}' has no !hip.context as argument #0; "
            f"{what} needs one (run hip-add-context-arg first)",
        )
    return context


def require_bufferized_results(fn: func.FuncOp, ret: func.ReturnOp, pass_name: str) -> None:
    """No result of `fn` (returned by `ret`) is a tensor: one-shot-bufferize ran."""
    for index, value in enumerate(ret.arguments):
        if isinstance(value.type, TensorType):
            raise op_error(
                ret,
                f"{pass_name}: result #{index} of '@{fn.sym_name.data}' is a tensor; run one-shot-bufferize first",
            )


# -- buffers ------------------------------------------------------------------------------


def erase_deallocs(buffer: SSAValue) -> bool:
    """Erase the `memref.dealloc`s of `buffer` and of its views; whether there were any."""
    found = False
    for alias in forward_aliases(buffer):
        for use in list(alias.uses):
            if isinstance(use.operation, memref.DeallocOp):
                Rewriter.erase_op(use.operation)
                found = True
    return found


def escapes(buffer: SSAValue) -> bool:
    """Whether some use of `buffer` (through views) is one liveness cannot follow.

    Liveness (xhip.analysis.liveness) follows a buffer through its aliasing
    views and counts a use inside an op's regions at that op. It cannot follow
    a terminator that passes the buffer on (returned bytes belong to the caller,
    a yielded buffer lives on after its region), nor a non-view op whose memref
    or tensor result may carry the bytes (a `memref.view` of the buffer, a call
    that returns it). A buffer with such a use must not share its bytes with
    another one: its live interval would end too early.
    """
    for alias in forward_aliases(buffer):
        for use in alias.uses:
            user = use.operation
            if user.has_trait(IsTerminator):
                return True
            tracked_view = isinstance(user, ALIASING_VIEWS) and use.index == 0
            aliased = user.get_trait(ResultAliasesOperand)
            if aliased is not None and use.index != aliased.index:
                continue  # only read: its bytes are copied, not carried by the result
            if not tracked_view and any(isinstance(r.type, MemRefType | builtin.TensorType) for r in user.results):
                return True
    return False


# -- ops ----------------------------------------------------------------------------------

SIGNED_DIVISIONS: tuple[type[Operation], ...] = (arith.DivSIOp, arith.CeilDivSIOp, arith.FloorDivSIOp, arith.RemSIOp)


def is_pure(op: Operation) -> bool:
    """Safe to execute earlier: no effects, cannot fault, no regions."""
    if op.regions or not is_side_effect_free(op):
        return False
    if isinstance(op, memref.DimOp):
        # xDSL does not mark memref.dim speculatable; with a constant in-range index it is.
        axis, source = constant_int(op.index), op.source.type
        return axis is not None and isinstance(source, MemRefType) and 0 <= axis < source.get_num_dims()
    if isinstance(op, SIGNED_DIVISIONS):
        # arith marks division by a value it cannot see as unsafe to hoist; a
        # divisor proven >= 1 (Reshape's `n / max(known, 1)`) cannot fault.
        low = index_facts.lower_bound(op.operands[1])
        return low is not None and low >= 1
    return is_speculatable(op)
