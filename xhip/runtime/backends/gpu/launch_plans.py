"""Launch plans by shape class: a launch's packed arguments with its operands' addresses as holes.

A family's launch values are a function of its operands' dtypes, extents, strides and
addresses and of the op's scalars, and every device address among them is one operand's
address plus an offset that the extents and strides decide. So launchers of equal sites
(the same op facts: GPT-2's twelve layers) at operands of equal extents and strides launch
the same kernels, grids and arguments but for the addresses. A plan is worked out once per
such shape class, from the values of operands at tag addresses (operand i at
(i + 1) << TAG_BITS, so that each address in the values names its operand and offset), and
checked against the values of the real operands (a site's first plan); every other launch
of the class fills the holes with its operands' addresses. A site whose values are not of that form (none today;
the check decides) is never planned: its launches compute their values each time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from xhip.kernels.abi import KernelABI, LibraryCall
from xhip.kernels.family import FormFn, Values, ValuesFn, View, ViewLike
from xhip.runtime.backends.gpu.driver import PreparedCall

TAG_BITS = 44
"""Operand i is placed at (i + 1) << TAG_BITS when a plan is derived: offsets up to 8 TiB
either way decode to their operand."""

Hole = tuple[int, int, int]
"""(slot in the flat argument list, operand index, byte offset from its address)."""


@dataclass(frozen=True)
class KernelPlan:
    """One kernel launch of a plan: where it sits in its form, its grid and arguments."""

    position: int
    grid: tuple[int, int, int]
    flat: tuple[int | float, ...]
    """The packed arguments in `KernelABI.flatten` order, each hole 0."""
    holes: tuple[Hole, ...]
    status_slot: int | None
    """Where the launcher's own status word goes (None: the kernel reports none)."""


@dataclass(frozen=True)
class KernelsPlan:
    form: int
    kernels: tuple[KernelPlan, ...]


class QueuedCall:
    """A prepared library call at its operands' addresses: what a launch queues on a vendor
    library."""

    __slots__ = ("run", "shape", "a", "b", "c")

    def __init__(self, run: PreparedCall, shape: LibraryCall, a: int, b: int, c: int):
        self.run, self.shape, self.a, self.b, self.c = run, shape, a, b, c
        """`shape`: the call `run` was prepared from, its addresses 0 (what decides the
        library's work but for the addresses)."""

    def __call__(self) -> None:
        self.run(self.a, self.b, self.c)


@dataclass(frozen=True)
class CallPlan:
    call: LibraryCall
    """The vendor library's call, its `a`, `b` and `c` 0."""
    run: PreparedCall
    """`call` prepared on the driver (once per shape class)."""
    holes: tuple[tuple[int, int], tuple[int, int], tuple[int, int]]
    """(operand index, byte offset) of `a`, `b` and `c`."""

    def at(self, addresses: Sequence[int]) -> QueuedCall:
        (ia, oa), (ib, ob), (ic, oc) = self.holes
        return QueuedCall(self.run, self.call, addresses[ia] + oa, addresses[ib] + ob, addresses[ic] + oc)


Plan = KernelsPlan | CallPlan


@dataclass
class PlanGroup:
    """The plans of equal sites, by shape class (None: the class has no plan)."""

    plans: dict[tuple[object, ...], Plan | None] = field(default_factory=dict)
    affine: bool | None = None
    """Whether the group's first plan passed the check (None: none made yet)."""
    sites: int = 0
    """How many launchers share the group: a plan of a single site's costs more than the
    values it saves (it is used by one launch per shape), so such groups plan nothing."""


def fill(kernel: KernelPlan, addresses: Sequence[int], status: int) -> list[int | float]:
    """The kernel's flat arguments for operands at `addresses`."""
    flat = list(kernel.flat)
    for slot, operand, offset in kernel.holes:
        flat[slot] = addresses[operand] + offset
    if kernel.status_slot is not None:
        flat[kernel.status_slot] = status
    return flat


def _tagged(views: Sequence[ViewLike], first: int) -> list[View]:
    return [View((first + i + 1) << TAG_BITS, x.dtype, x.shape, x.strides) for i, x in enumerate(views)]


def _hole(address: int, operands: int) -> tuple[int, int] | None:
    """(operand, offset) of a tagged address; None for one that names no operand (0: absent)."""
    operand = ((address + (1 << (TAG_BITS - 1))) >> TAG_BITS) - 1
    if not 0 <= operand < operands:
        return None
    return operand, address - ((operand + 1) << TAG_BITS)


@dataclass(frozen=True)
class Planner:
    """What a plan is derived from: the site's values, forms and library call."""

    values: ValuesFn
    form: FormFn | None
    abis: Sequence[Sequence[KernelABI]]
    """Per form, its kernels' ABIs."""
    grids: Sequence[Sequence[Callable[[dict], tuple[int, int, int]]]]
    library: Callable[[Values], LibraryCall | None] | None
    """The site's vendor-library call of a launch's values (None: it has none)."""
    prepare_call: Callable[[LibraryCall], PreparedCall | None]
    """The driver's: None where its library does not take the call (then the kernels run)."""

    def plan(self, inputs: Sequence[ViewLike], outputs: Sequence[ViewLike], scalars: Sequence[int | float], check: bool) -> Plan | None:
        """The plan of these operands' shape class, or None where the values do not follow
        from the tags. With `check`, the plan filled with the operands' addresses must give
        the values the real operands give (a site's first plan: whether its family's values
        are affine in the addresses is a fact of its code, not of the shapes)."""
        count = len(inputs) + len(outputs)
        addresses = [x.address for x in (*inputs, *outputs)]
        tagged = self.values(_tagged(inputs, 0), _tagged(outputs, len(inputs)), scalars)
        real = self.values(inputs, outputs, scalars) if check else tagged
        if self.library is not None:
            call, expected = self.library(tagged[0]), self.library(real[0])
            if (call is None) != (expected is None):
                return None
            if call is not None:
                shape = call._replace(a=0, b=0, c=0)
                run = self.prepare_call(shape)
                if run is not None:
                    return self._call_plan(shape, run, call, expected, count, addresses, check)
        form = self.form(inputs, outputs) if self.form is not None else 0
        kernels = []
        for position, (abi, grid_of, values, real_values) in enumerate(zip(self.abis[form], self.grids[form], tagged, real)):
            grid = grid_of(values)
            if check and grid != grid_of(real_values):
                return None
            if 0 in grid:
                continue
            status_slot = abi.flat_slots.get("status") if abi.reports_status else None
            if status_slot is not None:
                values["status"] = real_values["status"] = 0
            flat = abi.flatten(values)
            expected_flat = abi.flatten(real_values) if check else None
            holes = []
            for slot in abi.pointer_slots:
                if slot == status_slot:
                    continue
                hole = _hole(int(flat[slot]), count)
                if hole is not None:
                    holes.append((slot, *hole))
                    flat[slot] = 0
            kernel = KernelPlan(position, grid, tuple(flat), tuple(holes), status_slot)
            if check and fill(kernel, addresses, 0) != expected_flat:
                return None
            kernels.append(kernel)
        return KernelsPlan(form, tuple(kernels))

    @staticmethod
    def _call_plan(shape: LibraryCall, run: PreparedCall, call: LibraryCall, expected: LibraryCall | None, count: int, addresses: Sequence[int], check: bool) -> CallPlan | None:
        a, b, c = (_hole(address, count) for address in (call.a, call.b, call.c))
        if a is None or b is None or c is None:
            return None
        plan = CallPlan(shape, run, (a, b, c))
        if not check:
            return plan
        queued = plan.at(addresses)
        return plan if expected == shape._replace(a=queued.a, b=queued.b, c=queued.c) else None
