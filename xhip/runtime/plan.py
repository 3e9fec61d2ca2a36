"""From IR to a flat host plan: a list of steps over a register file.

`build_plan` walks the entry function once. Every SSA value gets a register;
every op becomes a step (a closure reading and writing registers) made by the
translator registered for its type (`xhip.runtime.translate`). Running the plan
is a loop over steps: no IR is touched on the hot path.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue

from xhip.diagnostics import XhipError, op_error
from xhip.runtime.translate import arith_ops, hip_ops, memref_ops, onnx_ops, tensor_ops  # noqa: F401 (importing registers them)
from xhip.runtime.translate.base import TRANSLATORS, PlanBuilder, Registers, Session, Step, located


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
