"""hip-lower-host-visibility: make every host read of device data safe.

Normalized IR says which value the host needs (`memref.load`); this pass
decides how it becomes visible (seed RFC, Problem 3). Reads that
xhip.analysis.host_readiness proves ready stay plain loads. Every other read:

- `strategy: readback`: a `hip.readback_scalar` of a one-element subview, which
  drains the stream, then copies the element;
- `strategy: event`: the same readback with `wait = "producer"`: it waits only
  for the work up to the buffer's last write (an event after its producer), so
  kernels queued after it keep running;
- `strategy: strict`: a located error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from xdsl.context import Context
from xdsl.dialects import builtin, func, memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType, StridedLayoutAttr
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xhip.analysis.host_readiness import host_reads
from xhip.diagnostics import op_error
from xhip.dialects.hip import ReadbackScalarOp
from xhip.passes.contracts import require_context


def _one_element_view(load: memref.LoadOp) -> memref.SubviewOp:
    """`subview %m[%i, %j][1, 1][1, 1]`: the element the load reads, as a buffer."""
    source_type = load.memref.type
    assert isinstance(source_type, MemRefType)
    rank = source_type.get_num_dims()
    result_type = MemRefType(
        source_type.element_type,
        [1] * rank,
        StridedLayoutAttr([None] * rank, None),
    )
    return memref.SubviewOp(
        load.memref, list(load.indices), [], [], [DYNAMIC_INDEX] * rank, [1] * rank, [1] * rank, result_type
    )


@dataclass(frozen=True)
class LowerHostVisibilityPass(ModulePass):
    """Turn host reads of possibly unfinished device data into synchronizing readbacks."""

    name = "hip-lower-host-visibility"

    strategy: Literal["readback", "event", "strict"] = "readback"
    """How an unproven host read waits: drain the stream (readback), wait for the producer (event), or fail (strict)."""

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for fn in [f for f in op.walk() if isinstance(f, func.FuncOp) and f.body.blocks]:
            block = fn.body.blocks.first
            assert block is not None
            waits = {"readback": "stream", "event": "producer"}.get(self.strategy)
            reads = [r for r in host_reads(block, lowered_reads_wait=waits) if not r.ready]
            if not reads:
                continue
            if self.strategy == "strict":
                raise op_error(
                    reads[0].load,
                    f"host read of a buffer {reads[0].reason}: it needs a synchronization "
                    "(strategy 'strict' lowers none)",
                )
            context = require_context(fn, self.name, "reading device data back")
            for read in reads:
                view = _one_element_view(read.load)
                readback = ReadbackScalarOp(context, view.result, wait="producer" if waits == "producer" else None)
                Rewriter.insert_op([view, readback], InsertPoint.before(read.load))
                Rewriter.replace_op(read.load, [], [readback.result])


