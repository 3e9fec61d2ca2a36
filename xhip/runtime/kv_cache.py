"""KV caches appended in place: what `hip.cache_append` does at run time.

A cache is one buffer laid out at its capacity along the cache axis (row-major at that
capacity, kind "cache"), of which the first `length` rows along the axis are written.
`present` is a view of the written rows, so the dims before the axis step over the
rows not yet written; the caller feeds it back as the next step's `past`, which the
append then extends by the step's new rows, copying those alone.

A past extends its cache in place only when it is exactly the cache's written rows:
the same buffer, offset, strides and extents, `length` rows long. A past the cache has
grown beyond (the same past fed twice, as beam search or a retried step do) is copied
into a fresh cache instead, so rows some earlier `present` still shows are never
overwritten. So is a plain input (the first step, a host array), into a cache of
exactly the rows it needs, and a full cache, into one of twice the capacity: one
re-plan, then appends in place again.

`Executable.cache_buffers` makes caches of a chosen capacity holding given rows.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from xhip.diagnostics import XhipError
from xhip.runtime.buffers import KvCache, MemRef, Owner, contiguous_strides
from xhip.runtime.program import Registers, Session, Step
from xhip.runtime.steps import Shape, Slot


def allocate_cache(session: Session, like: Sequence[int], dtype: np.dtype, axis: int, capacity: int, label: str) -> KvCache:
    """A fresh cache of `capacity` rows along `axis`, its other extents those of `like`."""
    shape = list(like)
    shape[axis] = capacity
    nbytes = math.prod(shape) * dtype.itemsize
    expression = f"size = {' * '.join(map(str, [*shape, dtype.itemsize]))} bytes"
    session.cap.require(nbytes, label, expression, shape)
    owner = Owner(label)
    buffer = session.backend.allocate(nbytes, label, "cache")
    view = MemRef(buffer, 0, tuple(shape), contiguous_strides(shape), dtype, owner)
    buffer.cache = KvCache(axis, capacity, 0, view)
    return buffer.cache


def append(session: Session, past_slot: Slot, new_slot: Slot, declared: Shape, out: Slot, axis: int, label: str, location: str) -> Step:
    """The `hip.cache_append` step (module docstring); `declared` gives the result's extents
    as the op's size operands state them (what the readers' contracts were proved on).

    Its parts are the step's `place`, `write` and `in_place` too: where the rows go (a host
    decision, with the copy of a past that moves: a graph input, which no launch of the run
    writes) needs only the new rows' extents, and a trace (xhip.runtime.trace) makes it
    before the run's launches; the copy of the new rows, after the launches that compute
    them; and whether the rows go into past's own cache (a trace is made of such a run);
    and `operands`, (past, new, result) slots and the axis."""
    backend = session.backend

    def in_place(regs: Registers) -> bool:
        past: MemRef = regs[past_slot]  # type: ignore[assignment]
        new: MemRef = regs[new_slot]  # type: ignore[assignment]
        cache = past.buffer.cache
        return cache is not None and cache.extended_by(past) and past.shape[axis] + new.shape[axis] <= cache.capacity

    def place(regs: Registers) -> None:
        past: MemRef = regs[past_slot]  # type: ignore[assignment]
        new: MemRef = regs[new_slot]  # type: ignore[assignment]
        rows, added = past.shape[axis], new.shape[axis]
        if past.shape[:axis] != new.shape[:axis] or past.shape[axis + 1 :] != new.shape[axis + 1 :]:
            dim = next(d for d, (have, got) in enumerate(zip(past.shape, new.shape)) if d != axis and have != got)
            # The Concat's own contract, in its words.
            raise XhipError(f"Concat operand 1 has extent {new.shape[dim]} at dim {dim}, expected {past.shape[dim]}", location)
        cache = past.buffer.cache
        if cache is None or not cache.extended_by(past) or rows + added > cache.capacity:
            capacity = rows + added if cache is None else max(rows + added, 2 * cache.capacity)
            cache = allocate_cache(session, past.shape, past.dtype, axis, capacity, label)
            if rows:
                backend.copy(past, cache.rows(0, rows), location)
        cache.length = rows + added
        present = cache.rows(0, rows + added)
        if present.shape != tuple(declared(regs)):
            raise XhipError(f"Concat result has run-time shape {list(present.shape)}, but its output is sized {list(declared(regs))}", location)
        session.run.caches[label] = present.buffer.nbytes
        regs[out] = cache.written = present

    def write(regs: Registers) -> None:
        new: MemRef = regs[new_slot]  # type: ignore[assignment]
        present: MemRef = regs[out]  # type: ignore[assignment]
        added, length = new.shape[axis], present.shape[axis]
        if added:
            backend.copy(new, present.buffer.cache.rows(length - added, length), location)  # type: ignore[union-attr]

    def step(regs: Registers) -> None:
        place(regs)
        write(regs)

    step.place, step.write, step.in_place = place, write, in_place  # type: ignore[attr-defined]
    step.operands = (past_slot, new_slot, out, axis)  # type: ignore[attr-defined]
    return step
