"""hip-add-context-arg: make `!hip.context` the first argument of every function.

Every later stage threads the context explicitly (allocation, pools, kernels), so
the signature is fixed first. Functions that already start with a context are
left alone, which makes the pass idempotent; calls between functions pass the
caller's context on.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr
from xdsl.passes import ModulePass

from xhip.diagnostics import op_error
from xhip.dialects.hip import ContextType


def _starts_with_context(inputs: tuple) -> bool:
    return bool(inputs) and isinstance(inputs[0], ContextType)


def _prepend_context(fn: func.FuncOp) -> None:
    fn_type = fn.function_type
    fn.function_type = builtin.FunctionType.from_lists(
        [ContextType(), *fn_type.inputs.data], list(fn_type.outputs.data)
    )
    if fn.arg_attrs is not None:
        fn.arg_attrs = ArrayAttr([DictionaryAttr({}), *fn.arg_attrs.data])
    if (entry := fn.body.blocks.first) is not None:
        entry.insert_arg(ContextType(), 0).name_hint = "ctx"


@dataclass(frozen=True)
class AddContextArgPass(ModulePass):
    """Prepend `!hip.context` to every func.func that lacks it."""

    name = "hip-add-context-arg"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        functions = [f for f in op.walk() if isinstance(f, func.FuncOp)]
        for fn in functions:
            inputs = fn.function_type.inputs.data
            misplaced = [i for i, t in enumerate(inputs) if isinstance(t, ContextType) and i > 0]
            if misplaced:
                raise op_error(
                    fn,
                    f"'@{fn.sym_name.data}' has !hip.context as argument #{misplaced[0]}; "
                    "it must be argument #0",
                )
        changed = {fn.sym_name.data for fn in functions if not _starts_with_context(fn.function_type.inputs.data)}
        for fn in functions:
            if fn.sym_name.data in changed:
                _prepend_context(fn)
        for call in [c for c in op.walk() if isinstance(c, func.CallOp)]:
            if call.callee.root_reference.data not in changed:
                continue
            caller = call.parent_op()
            while caller is not None and not isinstance(caller, func.FuncOp):
                caller = caller.parent_op()
            entry = caller.body.blocks.first if caller is not None else None
            if entry is None:
                raise op_error(call, "call outside a function body cannot receive a !hip.context")
            context = entry.args[0]
            call.operands = [context, *call.operands]
