"""What every translator sees: the register file, the plan builder and the registry.

A translator turns one op into a step (a closure over registers); it registers
itself by op name with `translates`. `xhip.runtime.plan` builds a plan from the
registry and never needs to know which translators exist.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects.builtin import DYNAMIC_INDEX, ModuleOp
from xdsl.ir import Operation, SSAValue

from xhip.constants_file import ConstantsData
from xhip.diagnostics import XhipError, op_location
from xhip.runtime.backends.base import Backend
from xhip.runtime.buffers import DeviceBuffer, MemRef
from xhip.runtime.limits import AllocationCap

Registers = list[object]
Step = Callable[[Registers], None]


@dataclass
class RunState:
    """What one run produces besides registers: outputs, requested pool bytes."""

    outputs: dict[int, MemRef] = field(default_factory=dict)
    pool_bytes: int = 0
    """The bytes the run's pools need: per pool, the largest request of its domains, summed."""
    scratch_bytes: int = 0
    pool_requests: dict[int, int] = field(default_factory=dict)

    def request_pool(self, pool: int, nbytes: int) -> None:
        """A domain asks pool `pool` for `nbytes` (domains that share a pool ask in turn)."""
        self.pool_requests[pool] = max(self.pool_requests.get(pool, 0), nbytes)
        self.pool_bytes = sum(self.pool_requests.values())


@dataclass
class Session:
    """State that outlives a run: pools, host scratch and uploaded constants."""

    backend: Backend
    constants_file: ConstantsData | None
    """The bytes of the module's constants file, checked against the IR (None: it names none)."""
    pools: dict[int, DeviceBuffer] = field(default_factory=dict)
    scratch: DeviceBuffer | None = None
    constants: dict[object, MemRef] = field(default_factory=dict)
    run: RunState = field(default_factory=RunState)
    cap: AllocationCap = field(default_factory=AllocationCap.resolve)
    generation: int = 0
    """Bumped whenever a session buffer (pool, host scratch) is allocated or grown: graphs
    captured before name the old one (`xhip.runtime.replay`)."""


class PlanBuilder:
    """Assigns registers and collects the steps of one function."""

    def __init__(self, session: Session, module: ModuleOp):
        self.session = session
        self.module = module
        self._slots: dict[SSAValue, int] = {}
        self.steps: list[Step] = []

    def slot(self, value: SSAValue) -> int:
        if value not in self._slots:
            self._slots[value] = len(self._slots)
        return self._slots[value]

    def slots(self, values: Iterable[SSAValue]) -> list[int]:
        return [self.slot(v) for v in values]

    @property
    def size(self) -> int:
        return len(self._slots)

    @property
    def slot_map(self) -> dict[SSAValue, int]:
        return dict(self._slots)

    def add(self, step: Step) -> None:
        self.steps.append(step)


Translator = Callable[[Operation, PlanBuilder], Step | None]
TRANSLATORS: dict[str, Translator] = {}


def translates(*op_names: str) -> Callable[[Translator], Translator]:
    """Register the translator of ops by name (`"arith.addi"`)."""

    def register(translator: Translator) -> Translator:
        for name in op_names:
            assert name not in TRANSLATORS, f"two translators for {name}"
            TRANSLATORS[name] = translator
        return translator

    return register


def located(op: Operation, step: Step) -> Step:
    """Errors of a step name the op it came from."""
    location = op_location(op)

    def run(regs: Registers) -> None:
        try:
            step(regs)
        except XhipError:
            raise
        except (ValueError, IndexError, TypeError, ZeroDivisionError, OverflowError) as err:
            raise XhipError(f"'{op.name}' failed at run time: {err}", location) from None

    return run



def poisoned(shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """A fresh array whose bytes are the poison pattern (an uninitialized destination)."""
    array = np.empty(shape, dtype)
    array.reshape(-1).view(np.uint8)[...] = 0xA5
    return array


MixedValues = Callable[[Registers], list[int]]


def mixed_values(static: Iterable[int], dynamic_slots: list[int]) -> MixedValues:
    """Static entries with `?` (DYNAMIC_INDEX) filled, in order, from registers."""
    pattern = list(static)
    positions = [i for i, v in enumerate(pattern) if v == DYNAMIC_INDEX]
    if len(positions) != len(dynamic_slots):
        raise XhipError(f"{len(positions)} dynamic entries but {len(dynamic_slots)} operands")

    def values(regs: Registers) -> list[int]:
        filled = list(pattern)
        for position, slot in zip(positions, dynamic_slots):
            filled[position] = int(regs[slot])  # type: ignore[arg-type]
        return filled

    return values


def offsets_sizes_strides(op: Operation, plan: PlanBuilder) -> tuple[MixedValues, MixedValues, MixedValues]:
    """The mixed static/dynamic offsets, sizes and strides of a slice-like op."""
    return tuple(  # type: ignore[return-value]
        mixed_values(getattr(op, f"static_{part}").get_values(), plan.slots(getattr(op, part)))
        for part in ("offsets", "sizes", "strides")
    )


def shape_of_type(shaped_type: object, dynamic_slots: list[int]) -> MixedValues:
    """The runtime shape of a tensor/memref type whose `?` dims are operands."""
    return mixed_values(shaped_type.get_shape(), dynamic_slots)  # type: ignore[attr-defined]


def buffer_label(op: Operation) -> str:
    """How the sanitizer and errors name the buffer `op` defines: `%name (file:line:col)`."""
    hint = op.results[0].name_hint if op.results else None
    location = op_location(op)
    return f"%{hint} ({location})" if hint else location
