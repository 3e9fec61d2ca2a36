"""hip-record-model-buffers: write down the model's own intermediates before any reuse.

Runs before hip-optimize-memrefs, while every intermediate is still its own
`memref.alloc`, and leaves the IR as it is. Per function, the buffers that
hip-pool-allocs would pool, each its own (size, live interval, whether its
producer could write it over a dying input: `xhip.analysis.model_buffers`), go
into the module attribute `hip.model_buffers`; the runtime evaluates them at each
run's dims into the report's `lower_bound_bytes` and `in_place_lower_bound_bytes`.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.dialects.builtin import DictionaryAttr
from xdsl.ir import Attribute
from xdsl.passes import ModulePass

from xhip.analysis.model_buffers import MODEL_BUFFERS_ATTR, SymbolNames, format_model_buffers, model_buffers


@dataclass(frozen=True)
class RecordModelBuffersPass(ModulePass):
    """Record each function's intermediates (size, interval, in-place target) as `hip.model_buffers`."""

    name = "hip-record-model-buffers"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        names = SymbolNames()
        table: dict[str, Attribute] = {}
        for function in [f for f in op.walk() if isinstance(f, func.FuncOp)]:
            buffers = model_buffers(function, names)
            if buffers is not None:
                table[function.sym_name.data] = format_model_buffers(buffers)
        if table:
            op.attributes[MODEL_BUFFERS_ATTR] = DictionaryAttr(table)
