"""Which host reads of buffers are proven to see finished data (DESIGN.md §6).

Device work is asynchronous: a kernel launch returns before the kernel runs,
while a host `memref.load` happens at once. A host read is *ready* when the
bytes it reads cannot be pending device writes:

- the buffer is a constant (`memref.get_global`, `hip.get_constant`): uploaded
  synchronously before any run;
- no device operation writes the buffer (or any view of it) before the read:
  function inputs, host scratch and buffers only the host stores into;
- a synchronization lies between the last device write of the buffer and the
  read, with no device write in between: a readback that drains the stream, or
  one that waits for the producer of this very buffer.

Everything else is *unproven*: the read needs a synchronization first.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from xdsl.dialects import memref
from xdsl.ir import Block, Operation, SSAValue

from xhip.analysis.liveness import alias_roots
from xhip.dialects.hip import DPSOp, GetConstantOp, ReadbackDimOp, ReadbackScalarOp

SYNCHRONIZING = (ReadbackScalarOp, ReadbackDimOp)
CONSTANT_SOURCES: tuple[type[Operation], ...] = (memref.GetGlobalOp, GetConstantOp)


@dataclass(frozen=True)
class HostRead:
    load: memref.LoadOp
    root: SSAValue
    ready: bool
    reason: str


def _device_writes(op: Operation, roots: dict[SSAValue, SSAValue]) -> set[SSAValue]:
    """The buffers (roots) a device operation writes."""
    if isinstance(op, DPSOp) and not op.is_tensor_mode:
        return {roots.get(out, out) for out in op.outputs}
    if isinstance(op, memref.CopyOp):
        return {roots.get(op.destination, op.destination)}
    return set()


def host_reads(block: Block, lowered_reads_wait: str | None = None) -> Iterator[HostRead]:
    """Every `memref.load` of the block, with whether it is proven ready and why.

    `lowered_reads_wait` says what lowering each unproven read will wait for, so
    later reads can count on it: "stream" (everything queued so far is done) or
    "producer" (the read buffer's writes are done); None: nothing.
    """
    roots = alias_roots(block)
    pending: set[SSAValue] = set()  # written by device work not yet synchronized
    written: set[SSAValue] = set()  # ever written by device work
    for op in block.ops:
        if isinstance(op, SYNCHRONIZING):
            if op.waits_for_producer:
                pending.discard(roots.get(op.source, op.source))
            else:
                pending.clear()
        pending |= _device_writes(op, roots)
        written |= _device_writes(op, roots)
        if not isinstance(op, memref.LoadOp):
            continue
        root = roots.get(op.memref, op.memref)
        owner = root.owner
        if isinstance(owner, CONSTANT_SOURCES):
            yield HostRead(op, root, True, "a constant")
        elif root not in written:
            yield HostRead(op, root, True, "no device operation writes it")
        elif root not in pending:
            yield HostRead(op, root, True, "synchronized since its last device write")
        else:
            yield HostRead(op, root, False, "written by device work that may still be running")
            if lowered_reads_wait == "stream":
                pending.clear()
            elif lowered_reads_wait == "producer":
                pending.discard(root)
