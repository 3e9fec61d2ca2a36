"""From IR to a flat host plan: a list of steps over a register file.

`build_plan` walks the entry function once. Every SSA value gets a register;
every op becomes a step (a closure reading and writing registers) made by the
translator registered for its type. Running the plan is a loop over steps:
no IR is touched on the hot path.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue

from xhip.constants_file import ConstantsData
from xhip.diagnostics import XhipError, op_error, op_location
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
    scratch_bytes: int = 0


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


@dataclass
class Plan:
    steps: list[Step]
    size: int
    arguments: list[int]
    results: list[int]
    slots: dict[SSAValue, int]

    def execute(self, arguments: list[object], observe: Iterable[int] = ()) -> tuple[list[object], dict[int, object]]:
        """The function's results, and the final values of the `observe` registers."""
        regs: Registers = [None] * self.size
        for slot, value in zip(self.arguments, arguments):
            regs[slot] = value
        for step in self.steps:
            step(regs)
        return [regs[slot] for slot in self.results], {slot: regs[slot] for slot in observe}


def entry_function(module: ModuleOp) -> func.FuncOp:
    functions = [op for op in module.ops if isinstance(op, func.FuncOp) and op.body.blocks]
    for fn in functions:
        if fn.sym_name.data == "main_graph":
            return fn
    if len(functions) == 1:
        return functions[0]
    raise XhipError("the module has no @main_graph function to run")


def build_plan(module: ModuleOp, session: Session) -> tuple[Plan, func.FuncOp]:
    from xhip.runtime import translate  # noqa: F401 (registers the translators)

    fn = entry_function(module)
    if len(fn.body.blocks) != 1:
        raise op_error(fn, "the runtime executes single-block functions only")
    builder = PlanBuilder(session, module)
    block = fn.body.blocks.first
    assert block is not None
    arguments = builder.slots(block.args)
    results: list[int] = []
    reference_only = session.backend.name != "reference"
    for op in block.ops:
        if reference_only:
            _require_buffers(op, session.backend.name)
        if isinstance(op, func.ReturnOp):
            results = builder.slots(op.operands)
            continue
        translator = TRANSLATORS.get(op.name)
        if translator is None:
            raise op_error(op, f"the runtime cannot execute '{op.name}'")
        step = translator(op, builder)
        if step is not None:
            builder.add(located(op, step))
    return Plan(builder.steps, builder.size, arguments, results, builder.slot_map), fn


def _require_buffers(op: Operation, backend: str) -> None:
    """A GPU backend runs final IR: device work on memrefs. Tensor values (value
    semantics, ONNX ops) are the reference backend's to evaluate."""
    values = [*op.results, *(arg for region in op.regions for block in region.blocks for arg in block.args)]
    if isinstance(op, func.ReturnOp):
        values = list(op.operands)
    if any(isinstance(value.type, TensorType) for value in values):
        raise op_error(
            op,
            f"'{op.name}' computes on tensors: tensor-mode IR runs on the reference backend only, not on "
            f"'{backend}' (compile through one-shot-bufferize, or use --backend reference)",
        )


def poisoned(shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """A fresh array whose bytes are the poison pattern (an uninitialized destination)."""
    array = np.empty(shape, dtype)
    array.reshape(-1).view(np.uint8)[...] = 0xA5
    return array


MixedValues = Callable[[Registers], list[int]]


def mixed_values(static: Iterable[int], dynamic_slots: list[int]) -> MixedValues:
    """Static entries with `?` (DYNAMIC_INDEX) filled, in order, from registers."""
    from xdsl.dialects.builtin import DYNAMIC_INDEX

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
