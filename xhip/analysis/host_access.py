"""Which buffers host code loads or stores, directly or through a view.

Program order is not execution order across the host/device boundary: a host
`memref.store` takes effect at once, while the kernel queued before it may not
have run yet (seed 004). So a buffer the host touches cannot be judged by its
live interval alone, and the memory passes ask this analysis first:
`hip-materialize-host-scalars` moves tiny host-touched buffers to host scratch,
`hip-optimize-memrefs` keeps host-touched buffers out of slot reuse.

Aliasing follows `xhip.analysis.liveness.alias_roots`. A host access through a
`memref.view` touches the bytes of the buffer the view carves from as well,
so it counts for both (the view is a root of its own there).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping

from xdsl.dialects import memref
from xdsl.dialects.builtin import IndexType, IntegerType, MemRefType, NoneAttr
from xdsl.ir import Block, Operation, SSAValue

from xhip.analysis.liveness import ALIASING_VIEWS, alias_roots

HOST_ACCESS_OPS: tuple[type[Operation], ...] = (memref.LoadOp, memref.StoreOp)
"""Ops that read or write a buffer's bytes on the host, immediately."""

VIEW_OPS: tuple[type[Operation], ...] = (*ALIASING_VIEWS, memref.ViewOp)
"""Ops whose result shares bytes with their first operand."""


def accessed_buffer(op: Operation) -> SSAValue | None:
    """The memref a host load/store touches, None for any other op."""
    if isinstance(op, memref.LoadOp | memref.StoreOp):
        return op.memref
    return None


def is_view_of(op: Operation, value: SSAValue) -> bool:
    """Whether `op` is a view whose bytes come from `value` (its source operand)."""
    return isinstance(op, VIEW_OPS) and op.operands[0] is value


def forward_aliases(value: SSAValue) -> list[SSAValue]:
    """`value` and every view derived from it, transitively, in discovery order."""
    found, pending = [value], [value]
    while pending:
        current = pending.pop()
        for use in current.uses:
            if is_view_of(use.operation, current):
                view = use.operation.results[0]
                found.append(view)
                pending.append(view)
    return found


def _owners(value: SSAValue, roots: Mapping[SSAValue, SSAValue]) -> Iterator[SSAValue]:
    """The roots whose bytes `value` covers: its own, then the buffers it is carved from."""
    while True:
        owner = value.owner
        if value in roots:
            value = roots[value]
        elif isinstance(owner, ALIASING_VIEWS):
            # Defined in a nested region, which alias_roots does not map: follow by hand.
            value = owner.operands[0]
            continue
        yield value
        carver = value.owner
        if not isinstance(carver, memref.ViewOp):
            return
        value = carver.source


def host_accesses(block: Block) -> dict[SSAValue, list[Operation]]:
    """Each root that host code loads or stores (anywhere under `block`) -> those ops."""
    roots = alias_roots(block)
    found: dict[SSAValue, list[Operation]] = defaultdict(list)
    for op in block.walk():
        buffer = accessed_buffer(op)
        if buffer is not None:
            for root in _owners(buffer, roots):
                found[root].append(op)
    return dict(found)


def host_accessed_roots(block: Block) -> set[SSAValue]:
    """The roots host code loads or stores, directly or through a view."""
    return set(host_accesses(block))


HOST_SCALAR_MAX_ELEMENTS = 16
"""The largest buffer hip-materialize-host-scalars moves to host scratch, by default."""


def _fits_scratch(buffer_type: MemRefType, max_elements: int) -> bool:
    """Static, small, integer/index, identity layout, default memory space."""
    return (
        buffer_type.has_static_shape()
        and buffer_type.element_count() <= max_elements
        and isinstance(buffer_type.element_type, IntegerType | IndexType)
        and isinstance(buffer_type.layout, NoneAttr)
        and isinstance(buffer_type.memory_space, NoneAttr)
    )


def _accepts_host_mapping(user: Operation, value: SSAValue) -> bool:
    """Whether `user` of `value` means the same when `value` lives in host scratch."""
    if isinstance(user, (*HOST_ACCESS_OPS, memref.DimOp, memref.DeallocOp, memref.CopyOp)):
        return True
    # A kernel reads or writes through the pointer, host-mapped or not.
    return is_view_of(user, value) or user.name.startswith("hip.")


def is_host_scalar(alloc: memref.AllocOp, max_elements: int) -> bool:
    """A static tiny integer buffer that host code touches and whose users all accept scratch."""
    if not _fits_scratch(alloc.memref.type, max_elements):
        return False
    touched = False
    for alias in forward_aliases(alloc.memref):
        for use in alias.uses:
            if not _accepts_host_mapping(use.operation, alias):
                return False
            touched |= isinstance(use.operation, HOST_ACCESS_OPS)
    return touched
