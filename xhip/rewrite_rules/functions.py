"""Function-level preconditions shared by the passes that work on whole bodies."""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.ir import Block

from xhip.diagnostics import op_error


def function_body(fn: func.FuncOp, pass_name: str) -> Block | None:
    """The single block of `fn` (None for a declaration); more blocks are a located error."""
    blocks = list(fn.body.blocks)
    if len(blocks) > 1:
        what = f"'@{fn.sym_name.data}' has {len(blocks)} blocks"
        raise op_error(fn, f"{pass_name}: {what}; only single-block functions are supported")
    return blocks[0] if blocks else None
