"""The register machinery of bind: what a reader of one op gets, and the reader registry.

`xhip.runtime.bind` (the final IR) and `xhip.runtime.bind_tensor` (the stages before
bufferization) register their readers here by op class; `bind` walks a function and
calls them. A reader reads its op and returns a step (`xhip.runtime.steps`) or presets a
register; nothing it returns holds IR.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from xdsl.dialects.builtin import DYNAMIC_INDEX, ModuleOp
from xdsl.ir import Attribute, Operation, SSAValue

from xhip.analysis.memref_extents import RootDim
from xhip.diagnostics import op_location
from xhip.runtime import steps
from xhip.runtime.contracts import static_extents
from xhip.runtime.program import ALWAYS, Program, Registers, Session, Step, StepKind
from xhip.runtime.steps import Shape

Reader = Callable[[Operation, "Binder"], Step | None]
READERS: dict[type[Operation], Reader] = {}
STEP_KINDS: dict[type[Operation], StepKind] = {}
"""What a step of an op of each class does besides computing its results (`StepKind`; an
op class not here is `ALWAYS`)."""


def reads(*op_classes: type[Operation], kind: StepKind = ALWAYS) -> Callable[[Reader], Reader]:
    """Register the reader of ops of these classes, and what their steps are (`StepKind`)."""

    def register(reader: Reader) -> Reader:
        for op_class in op_classes:
            assert op_class not in READERS, f"two readers of {op_class.name}"
            READERS[op_class] = reader
            STEP_KINDS[op_class] = kind
        return reader

    return register


@dataclass
class Binder:
    """The registers, initial values and steps of one function while it is read."""

    session: Session
    module: ModuleOp
    symbols: dict[RootDim, str] = field(default_factory=dict)
    """Function-input dims by their onnx.dim_params symbol (what contract proofs unify)."""
    slots: dict[SSAValue, int] = field(default_factory=dict)
    initial: dict[int, object] = field(default_factory=dict)
    steps: list[Step] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    locations: list[str] = field(default_factory=list)
    reads: list[tuple[int, ...]] = field(default_factory=list)
    writes: list[tuple[int, ...]] = field(default_factory=list)
    kinds: list[StepKind] = field(default_factory=list)

    def slot(self, value: SSAValue) -> int:
        if value not in self.slots:
            self.slots[value] = len(self.slots)
        return self.slots[value]

    def slots_of(self, values: Iterable[SSAValue]) -> list[int]:
        return [self.slot(v) for v in values]

    def preset(self, value: SSAValue, contents: object) -> None:
        """A register whose value is known before the run (a constant)."""
        self.initial[self.slot(value)] = contents

    def shape(self, shaped_type: Attribute, dynamic: Sequence[SSAValue]) -> Shape:
        """The runtime shape of a tensor/memref type whose `?` dims are `dynamic`."""
        return self.mixed(shaped_type.get_shape(), dynamic)  # type: ignore[attr-defined]

    def mixed(self, static: Sequence[int], dynamic: Sequence[SSAValue]) -> Shape:
        return steps.mixed([None if d == DYNAMIC_INDEX else d for d in static], self.slots_of(dynamic))

    def add(self, op: Operation, step: Step) -> None:
        self.steps.append(step)
        self.names.append(op.name)
        self.locations.append(op_location(op))
        # A step reads its op's operands and writes its results: nothing else (SSA, one block).
        self.reads.append(tuple(self.slots_of(op.operands)))
        self.writes.append(tuple(self.slots_of(op.results)))
        self.kinds.append(ALWAYS if op.regions else STEP_KINDS.get(type(op), ALWAYS))

    def program(self, arguments: list[int], results: list[int]) -> Program:
        registers: Registers = [None] * len(self.slots)
        for slot, value in self.initial.items():
            registers[slot] = value
        return Program(self.steps, registers, arguments, results, self.names, self.locations, self.reads, self.writes, self.kinds)


def buffer_label(op: Operation) -> str:
    """How the sanitizer and errors name the buffer `op` defines: `%name (file:line:col)`."""
    hint = op.results[0].name_hint if op.results else None
    location = op_location(op)
    return f"%{hint} ({location})" if hint else location


def cast_step(op: Operation, b: Binder) -> Step:
    """`memref.cast` / `tensor.cast`: the same value, a static extent it declares asserted
    (a Squeeze of a `?` that must be 1)."""
    source, out = b.slot(op.operands[0]), b.slot(op.results[0])
    require = static_extents(op_location(op), op.results[0].type.get_shape())  # type: ignore[attr-defined]

    def step(regs: Registers) -> None:
        require(regs[source].shape)  # type: ignore[attr-defined]
        regs[out] = regs[source]

    return step
