"""The steps of a launch program, from plain values: registers, dtypes, labels, closures.

`xhip.runtime.bind` reads each op and calls one of these with what it read; nothing
here sees IR. A step reads its operands' registers and writes its results': host
index arithmetic with the exact wrap-around of its type, views with real aliasing
(a `memref.view` starts a new logical buffer in a pool, every other view keeps its
source's), session buffers (pools, host scratch) that grow and never shrink, and the
launch of a loaded launcher after its shape contract.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from xhip.diagnostics import XhipError
from xhip.index.host_eval import canonical, to_unsigned
from xhip.index.symbolic import as_int
from xhip.kernels.family import picker
from xhip.memory.greedy import PoolPlanner
from xhip.runtime.backends.base import Launcher
from xhip.runtime.buffers import DeviceBuffer, MemRef, Owner, contiguous_strides
from xhip.runtime.program import Layouts, Registers, Session, Step

Slot = int
Shape = Callable[[Registers], tuple[int, ...]]
"""A runtime shape (or offsets, strides): static entries with `?` filled from registers."""
Check = Callable[[Registers], None]


class Last:
    """A view step's last result and what it was made from. Views are pure functions of
    their source view (by identity: memrefs are immutable) and their run-time extents, so
    a run that repeats them gets the same memref object back: no new object per view per
    run, and the launchers downstream see operands they can recognise (`is`) as last
    run's. Runs of one program are serialized (the executable's lock)."""

    __slots__ = ("key", "value")

    def __init__(self) -> None:
        self.key: object = None
        self.value: object = None


# ---- mixed static / dynamic lists ---------------------------------------------------------


def mixed(static: Sequence[int | None], dynamic: Sequence[Slot]) -> Shape:
    """Static entries with each `?` (None) filled, in order, from the `dynamic` registers."""
    positions = [i for i, v in enumerate(static) if v is None]
    pattern = tuple(0 if v is None else int(v) for v in static)
    if len(positions) != len(dynamic):
        raise XhipError(f"{len(positions)} dynamic entries but {len(dynamic)} operands")
    if not positions:
        return lambda regs: pattern
    if len(positions) == len(pattern):
        slots = tuple(dynamic)
        if len(slots) == 1:
            (only,) = slots
            return lambda regs: (as_int(regs[only]),)
        return lambda regs: tuple([as_int(regs[s]) for s in slots])
    if len(positions) == 1:  # the common view: one `?` among static extents
        (position,), (slot,) = positions, dynamic
        before, after = pattern[:position], pattern[position + 1 :]
        return lambda regs: (*before, as_int(regs[slot]), *after)
    pairs = tuple(zip(positions, dynamic))

    def values(regs: Registers) -> tuple[int, ...]:
        filled = list(pattern)
        for position, slot in pairs:
            filled[position] = as_int(regs[slot])
        return tuple(filled)

    return values


# ---- host scalar arithmetic ---------------------------------------------------------------


def integer_binary(fold: Callable[[int, int], int], lhs: Slot, rhs: Slot, out: Slot) -> Step:
    def step(regs: Registers) -> None:
        regs[out] = fold(as_int(regs[lhs]), as_int(regs[rhs]))

    return step


def select(cond: Slot, a: Slot, b: Slot, out: Slot) -> Step:
    def step(regs: Registers) -> None:
        regs[out] = regs[a] if regs[cond] else regs[b]

    return step


def signed_cast(source: Slot, out: Slot, width: int) -> Step:
    def step(regs: Registers) -> None:
        regs[out] = canonical(as_int(regs[source]), width)

    return step


def unsigned_extension(source: Slot, out: Slot, source_width: int, width: int) -> Step:
    def step(regs: Registers) -> None:
        regs[out] = canonical(to_unsigned(as_int(regs[source]), source_width), width)

    return step


def float_binary(ufunc: np.ufunc, dtype: np.dtype, lhs: Slot, rhs: Slot, out: Slot) -> Step:
    def step(regs: Registers) -> None:
        regs[out] = float(ufunc(dtype.type(regs[lhs]), dtype.type(regs[rhs])))

    return step


def float_unary(function: Callable[[np.generic], object], dtype: np.dtype, source: Slot, out: Slot) -> Step:
    def step(regs: Registers) -> None:
        regs[out] = float(function(dtype.type(regs[source])))  # type: ignore[arg-type]

    return step


def numeric_cast(dtype: np.dtype, source: Slot, out: Slot) -> Step:
    to_python = int if np.issubdtype(dtype, np.integer) else float

    def step(regs: Registers) -> None:
        regs[out] = to_python(dtype.type(regs[source]))

    return step


def dim(source: Slot, index: Slot, out: Slot) -> Step:
    def step(regs: Registers) -> None:
        regs[out] = regs[source].shape[regs[index]]  # type: ignore[attr-defined,index]

    return step


# ---- buffers and views --------------------------------------------------------------------


SizeCheck = Callable[[tuple[int, ...]], int]
"""The byte size of a buffer of these dims, checked against the session's cap."""


def checked_size(session: Session, itemsize: int, location: str, expression: str) -> SizeCheck:
    def size(dims: tuple[int, ...]) -> int:
        nbytes = math.prod(dims) * itemsize
        session.cap.require(nbytes, location, expression, dims)
        return nbytes

    return size


def allocation(session: Session, shape: Shape, size: SizeCheck, dtype: np.dtype, owner: Owner, kind: str, out: Slot, output_index: int | None = None) -> Step:
    """A fresh buffer of its own (`memref.alloc`, `hip.alloc`, `hip.alloc_output`)."""

    def step(regs: Registers) -> None:
        dims = shape(regs)
        view = MemRef.contiguous(session.backend.allocate(size(dims), owner.label, kind), dims, dtype, owner)
        if output_index is not None:
            session.run.outputs[output_index] = view
        regs[out] = view

    # What a trace (xhip.runtime.trace) knows of the result without the run: row-major
    # extents of these registers, at offset 0 of a buffer of its own.
    step.allocated = Allocated(shape, dtype)  # type: ignore[attr-defined]
    return step


def view(shape: Shape, source: Slot, shift: Slot, dtype: np.dtype, owner: Owner, out: Slot, strides: tuple[int, ...] | None = None) -> Step:
    """`memref.view`: a new logical buffer at a byte shift into a pool; `strides` when the
    type fixes them (no `?` but the leading dim), else row-major strides of each run's dims."""

    last = Last()

    def step(regs: Registers) -> None:
        pool: MemRef = regs[source]  # type: ignore[assignment]
        dims = shape(regs)
        start = pool.offset + as_int(regs[shift])
        key = (pool, start, dims)
        if key != last.key:
            last.key, last.value = key, MemRef(pool.buffer, start, dims, strides or contiguous_strides(dims), dtype, owner, start)
        regs[out] = last.value

    return step


Within = Callable[[Sequence[int], Sequence[int], Sequence[int], Sequence[int]], None]
Kept = Callable[[tuple[int, ...]], Sequence[int]]


def subview(offsets: Shape, sizes: Shape, strides: Shape, source: Slot, out: Slot, within: Within, kept: Kept | None, layouts: Layouts, config: int) -> Step:
    """`memref.subview`: a window of the same logical buffer, unit dims dropped as `kept`
    (None: the result keeps every dim)."""

    last = Last()
    shared = layouts.table

    def step(regs: Registers) -> None:
        view: MemRef = regs[source]  # type: ignore[assignment]
        starts, dims, slice_strides = offsets(regs), sizes(regs), strides(regs)
        key = (view, starts, dims, slice_strides)
        if key == last.key:
            regs[out] = last.value
            return
        source_strides = view.strides
        layout_key = (config, view.shape, source_strides, starts, dims, slice_strides)
        layout: tuple[int, tuple[int, ...], tuple[int, ...]] | None = shared.get(layout_key)  # type: ignore[assignment]
        if layout is None:
            within(view.shape, starts, dims, slice_strides)
            shift = sum([o * s for o, s in zip(starts, source_strides)]) * view.dtype.itemsize
            steps = tuple([st * s for st, s in zip(slice_strides, source_strides)])
            if kept is not None:
                keep = kept(dims)
                dims, steps = tuple([dims[i] for i in keep]), tuple([steps[i] for i in keep])
            layout = (shift, dims, steps)
            layouts.remember(layout_key, layout)
        shift, dims, steps = layout
        last.key, last.value = key, MemRef(view.buffer, view.offset + shift, dims, steps, view.dtype, view.owner, view.base)
        regs[out] = last.value

    return step


CountCheck = Callable[[Sequence[int], Sequence[int]], None]
"""Fails unless two shapes hold the same number of elements."""


def reinterpret_cast(offsets: Shape, sizes: Shape, strides: Shape, source: Slot, out: Slot, dtype: np.dtype, owner: Owner | None, count: CountCheck | None) -> Step:
    """A reshape (`owner` None: the same logical buffer) or a slot taken over in place by a
    new logical buffer (`owner`); `count` checks a reshape of a dynamic shape."""

    last = Last()

    def step(regs: Registers) -> None:
        source_view: MemRef = regs[source]  # type: ignore[assignment]
        (offset,) = offsets(regs) or (0,)
        dims, element_strides = sizes(regs), strides(regs)
        key = (source_view, offset, dims, element_strides)
        if key != last.key:
            if count is not None:
                count(source_view.shape, dims)
            last.key, last.value = key, MemRef(
                source_view.buffer, source_view.base + offset * dtype.itemsize, dims, element_strides, dtype,
                owner or source_view.owner, source_view.base,
            )  # fmt: skip
        regs[out] = last.value

    return step


def expand_shape(groups: Sequence[Sequence[int]], output_shape: Shape, source: Slot, out: Slot, count: CountCheck, layouts: Layouts, config: int) -> Step:
    """`memref.expand_shape`: each source dim split into its group's dims (row-major within
    the group), the group's extents checked to multiply to the source's."""
    reversed_groups = [tuple(reversed(group)) for group in groups]
    singles = all(len(group) == 1 for group in groups)

    last = Last()
    shared = layouts.table

    def derive(source_shape: tuple[int, ...], source_strides: tuple[int, ...], dims: tuple[int, ...]) -> tuple[int, ...]:
        strides = [0] * len(dims)
        if singles:  # only unit dims added: every stride is its source dim's
            for source_dim, (d,) in enumerate(reversed_groups):
                strides[d] = source_strides[source_dim]
                if dims[d] != source_shape[source_dim]:
                    count(source_shape[source_dim : source_dim + 1], [dims[d]])
            return tuple(strides)
        for source_dim, group in enumerate(reversed_groups):
            step_size, elements = source_strides[source_dim], 1
            for d in group:
                strides[d] = step_size
                step_size *= max(dims[d], 1)
                elements *= dims[d]
            if elements != source_shape[source_dim]:
                count(source_shape[source_dim : source_dim + 1], [dims[d] for d in reversed(group)])
        return tuple(strides)

    def step(regs: Registers) -> None:
        view: MemRef = regs[source]  # type: ignore[assignment]
        dims = output_shape(regs)
        key = (view, dims)
        if key == last.key:
            regs[out] = last.value
            return
        layout_key = (config, view.shape, view.strides, dims)
        strides: tuple[int, ...] | None = shared.get(layout_key)  # type: ignore[assignment]
        if strides is None:
            strides = derive(view.shape, view.strides, dims)
            layouts.remember(layout_key, strides)
        last.key, last.value = key, MemRef(view.buffer, view.offset, dims, strides, view.dtype, view.owner, view.base)
        regs[out] = last.value

    return step


def collapse_shape(groups: Sequence[Sequence[int]], source: Slot, out: Slot, layouts: Layouts, config: int) -> Step:
    """`memref.collapse_shape`: each group of dims merged into one (their extents multiplied,
    the stride of the group's last dim)."""
    groups = [tuple(group) for group in groups]
    if all(groups):
        strides_of: Callable[[tuple[int, ...]], tuple[int, ...]] = picker([group[-1] for group in groups])
    else:  # an empty group (a unit dim of its own) has stride 1
        strides_of = lambda strides: tuple([strides[g[-1]] if g else 1 for g in groups])  # noqa: E731

    last = Last()
    shared = layouts.table

    def step(regs: Registers) -> None:
        view: MemRef = regs[source]  # type: ignore[assignment]
        if view is not last.key:
            layout_key = (config, view.shape, view.strides)
            layout: tuple[tuple[int, ...], tuple[int, ...]] | None = shared.get(layout_key)  # type: ignore[assignment]
            if layout is None:
                shape = view.shape
                layout = (tuple([math.prod([shape[d] for d in group]) for group in groups]), strides_of(view.strides))
                layouts.remember(layout_key, layout)
            last.key, last.value = view, MemRef(view.buffer, view.offset, *layout, view.dtype, view.owner, view.base)
        regs[out] = last.value

    return step


def host_load(session: Session, source: Slot, indices: Sequence[Slot], out: Slot, location: str) -> Step:
    backend = session.backend

    def step(regs: Registers) -> None:
        regs[out] = backend.host_load(regs[source], [regs[i] for i in indices], location)  # type: ignore[arg-type,misc]

    return step


def host_store(session: Session, value: Slot, target: Slot, indices: Sequence[Slot], location: str) -> Step:
    backend = session.backend

    def step(regs: Registers) -> None:
        backend.host_store(regs[target], [regs[i] for i in indices], regs[value], location)  # type: ignore[arg-type,misc]

    return step


def copy(session: Session, source: Slot, target: Slot, location: str) -> Step:
    backend = session.backend

    def step(regs: Registers) -> None:
        backend.copy(regs[source], regs[target], location)  # type: ignore[arg-type]

    return step


# ---- session buffers ----------------------------------------------------------------------


def _grown(session: Session, current: DeviceBuffer | None, nbytes: int, label: str, kind: str) -> DeviceBuffer:
    """The session's buffer, grown (never shrunk) to hold `nbytes`."""
    if current is None:
        session.generation += 1
        return session.backend.allocate(nbytes, label, kind)
    if current.nbytes < nbytes:
        session.generation += 1
        return session.backend.grow(current, nbytes)
    return current


def get_pool(session: Session, domain: int, size: Slot, out: Slot, owner: Owner, location: str, expression: str) -> Step:
    uint8 = np.dtype(np.uint8)
    last = Last()

    def step(regs: Registers) -> None:
        nbytes = int(regs[size])  # type: ignore[call-overload]
        session.cap.require(nbytes, location, expression)
        session.run.request_pool(domain, nbytes)
        pool = session.pools[domain] = _grown(session, session.pools.get(domain), nbytes, owner.label, "pool")
        key = (pool, nbytes)
        if key != last.key:
            last.key, last.value = key, MemRef(pool, 0, (nbytes,), (1,), uint8, owner, 0)
        regs[out] = last.value

    step.allocated = Allocated(lambda regs: (regs[size],), uint8)  # type: ignore[attr-defined]
    return step


def plan_pool(sizes: Sequence[Slot], intervals: Sequence[tuple[int, int]], alignment: int, total: Slot, offsets: Sequence[Slot]) -> Step:
    """The run-time planner at this run's sizes, remembered per distinct set of sizes."""
    planned: dict[tuple[int, ...], tuple[list[int], int]] = {}
    planner = PoolPlanner(intervals, alignment)

    def step(regs: Registers) -> None:
        key = tuple([int(regs[size]) for size in sizes])  # type: ignore[call-overload]
        plan = planned.get(key)
        if plan is None:
            plan = planned[key] = planner.plan(key)
        placed, regs[total] = plan
        for slot, offset in zip(offsets, placed):
            regs[slot] = offset

    return step


def host_scratch(session: Session, size: Slot, out: Slot, owner: Owner, location: str, expression: str) -> Step:
    uint8 = np.dtype(np.uint8)

    def step(regs: Registers) -> None:
        nbytes = int(regs[size])  # type: ignore[call-overload]
        session.cap.require(nbytes, location, expression)
        session.run.scratch_bytes = max(session.run.scratch_bytes, nbytes)
        session.scratch = _grown(session, session.scratch, nbytes, owner.label, "scratch")
        regs[out] = MemRef(session.scratch, 0, (nbytes,), (1,), uint8, owner, 0)

    return step


def readback(session: Session, source: Slot, out: Slot, producer_only: bool, location: str) -> Step:
    backend = session.backend

    def step(regs: Registers) -> None:
        value = regs[source]
        array = backend.download(value, location, producer_only) if isinstance(value, MemRef) else np.asarray(value)  # type: ignore[arg-type]
        regs[out] = array.reshape(-1)[0].item()

    return step


# ---- device work --------------------------------------------------------------------------


def launch(launcher: Launcher, inputs: Sequence[Slot], outputs: Sequence[Slot], scalars: Sequence[Slot], contract: Check | None) -> Step:
    """The op's launcher over its operands, after its shape contract where one is left to check."""
    # One C call reads several registers (`picker`: an itemgetter) on every launch's path.
    ins, outs, host = picker(inputs), picker(outputs), picker(scalars)
    if contract is None:

        def step(regs: Registers) -> None:
            launcher(ins(regs), outs(regs), host(regs))  # type: ignore[arg-type]

    else:

        def step(regs: Registers) -> None:
            contract(regs)
            launcher(ins(regs), outs(regs), host(regs))  # type: ignore[arg-type]

    # What a trace (xhip.runtime.trace) runs instead: the contract and the launcher's choices
    # over traced operands, nothing launched.
    step.launch = Launch(launcher, ins, outs, host, contract)  # type: ignore[attr-defined]
    return step


class Allocated(NamedTuple):
    """What a step that allocates makes, from its registers: a buffer of its own (a new
    one, or a session's pool), viewed row-major at offset 0 with these extents."""

    shape: Callable[[Registers], tuple[object, ...]]
    dtype: np.dtype


class Launch(NamedTuple):
    """A launch step's parts."""

    launcher: Launcher
    inputs: Callable[..., Sequence[object]]
    outputs: Callable[..., Sequence[object]]
    scalars: Callable[..., Sequence[object]]
    contract: Check | None
