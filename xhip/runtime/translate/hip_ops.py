"""hip ops: compute kernels (tensor and memref mode), pools, scratch, outputs, readbacks."""

from __future__ import annotations

import numpy as np
from xdsl.ir import Operation

from xhip.diagnostics import op_location
from xhip.dialects import hip
from xhip.memory.greedy import plan_at_sizes
from xhip.runtime.backends.reference.kernels import run_kernel
from xhip.runtime.buffers import DeviceBuffer, MemRef, Owner, numpy_dtype
from xhip.runtime.contracts import dps_contract
from xhip.runtime.kernels.collect import kernel_attributes, operand_facts
from xhip.runtime.limits import byte_size_expression
from xhip.runtime.translate.base import PlanBuilder, Registers, Session, Step, buffer_label, shape_of_type, translates
from xhip.runtime.translate.memref_ops import load_constant, sized_allocation



def _as_array(value: object) -> np.ndarray:
    return value if isinstance(value, np.ndarray) else value.array()  # type: ignore[attr-defined]


def _translate_compute(op: Operation, plan: PlanBuilder) -> Step:
    assert isinstance(op, hip.DPSOp)
    run = _compute_step(op, plan)
    contract = dps_contract(op, plan.slot)
    if contract is None:
        return run

    def checked(regs: Registers) -> None:
        contract(regs)
        run(regs)

    return checked


def _compute_step(op: hip.DPSOp, plan: PlanBuilder) -> Step:
    kernel, attributes, location = op.name.removeprefix("hip."), kernel_attributes(op), op_location(op)
    scalars, inputs, outputs = plan.slots(op.scalars), plan.slots(op.inputs), plan.slots(op.outputs)
    backend = plan.session.backend
    if not op.is_tensor_mode:
        # What the IR fixes of the operands (dtypes, ranks, static extents, layouts) is
        # enough to choose and compile the kernels once, before any run.
        backend.prepare(type(op), attributes, [operand_facts(v) for v in op.inputs], [operand_facts(v) for v in op.outputs])

        def launch(regs: Registers) -> None:
            backend.launch(
                kernel,
                [regs[i] for i in inputs],  # type: ignore[misc]
                [regs[o] for o in outputs],  # type: ignore[misc]
                attributes,
                [regs[s] for s in scalars],  # type: ignore[misc]
                location,
            )

        return launch
    results = plan.slots(op.res)

    def compute(regs: Registers) -> None:
        # Tensor mode has value semantics: the kernel writes a fresh copy of each init.
        fresh = [np.array(_as_array(regs[o])) for o in outputs]
        backend.stats.kernel_launches += 1
        run_kernel(kernel, [_as_array(regs[i]) for i in inputs], fresh, attributes, [regs[s] for s in scalars], location=location)
        for slot, value in zip(results, fresh):
            regs[slot] = value

    return compute


for _op in hip.HIP.operations:
    if issubclass(_op, hip.DPSOp):
        translates(_op.name)(_translate_compute)


def _byte_buffer(session: Session, current: DeviceBuffer | None, nbytes: int, label: str, kind: str) -> DeviceBuffer:
    """The session's buffer, grown (never shrunk) to hold `nbytes`."""
    if current is None:
        session.generation += 1
        return session.backend.allocate(nbytes, label, kind)
    if current.nbytes < nbytes:
        session.generation += 1
        return session.backend.grow(current, nbytes)
    return current


@translates("hip.get_pool")
def translate_get_pool(op: Operation, plan: PlanBuilder) -> Step:
    assert isinstance(op, hip.GetPoolOp)
    size, out = plan.slot(op.operands[1]), plan.slot(op.results[0])
    domain, session = op.domain_id.value.data, plan.session
    owner, location, expression = Owner(buffer_label(op)), op_location(op), byte_size_expression(op.operands[1])

    def step(regs: Registers) -> None:
        nbytes = int(regs[size])  # type: ignore[arg-type]
        session.cap.require(nbytes, location, expression)
        session.run.request_pool(domain, nbytes)
        pool = _byte_buffer(session, session.pools.get(domain), nbytes, owner.label, "pool")
        session.pools[domain] = pool
        regs[out] = MemRef.contiguous(pool, [nbytes], np.dtype(np.uint8), owner)

    return step


@translates("hip.plan_pool")
def translate_plan_pool(op: Operation, plan: PlanBuilder) -> Step:
    """The run-time planner at this run's sizes, remembered per distinct set of sizes."""
    assert isinstance(op, hip.PlanPoolOp)
    sizes = [plan.slot(size) for size in op.sizes]
    total, offsets = plan.slot(op.total), [plan.slot(offset) for offset in op.offsets]
    intervals, alignment = op.interval_pairs(), op.alignment.value.data
    planned: dict[tuple[int, ...], tuple[list[int], int]] = {}

    def step(regs: Registers) -> None:
        key = tuple(int(regs[size]) for size in sizes)  # type: ignore[arg-type]
        if key not in planned:
            planned[key] = plan_at_sizes(key, intervals, alignment)
        placed, regs[total] = planned[key]
        for slot, offset in zip(offsets, placed):
            regs[slot] = offset

    return step


@translates("hip.get_host_scratch")
def translate_get_host_scratch(op: Operation, plan: PlanBuilder) -> Step:
    size, out, session = plan.slot(op.operands[1]), plan.slot(op.results[0]), plan.session
    owner, location, expression = Owner(buffer_label(op)), op_location(op), byte_size_expression(op.operands[1])

    def step(regs: Registers) -> None:
        nbytes = int(regs[size])  # type: ignore[arg-type]
        session.cap.require(nbytes, location, expression)
        session.run.scratch_bytes = max(session.run.scratch_bytes, nbytes)
        session.scratch = _byte_buffer(session, session.scratch, nbytes, owner.label, "scratch")
        regs[out] = MemRef.contiguous(session.scratch, [nbytes], np.dtype(np.uint8), owner)

    return step


def _allocating(op: Operation, plan: PlanBuilder, kind: str, record_output: bool) -> Step:
    result_type = op.results[0].type
    shape = shape_of_type(result_type, plan.slots(op.operands[1:]))
    dtype, out = numpy_dtype(result_type.element_type), plan.slot(op.results[0])  # type: ignore[attr-defined]
    owner, session = Owner(buffer_label(op)), plan.session
    index = op.out_idx.value.data if record_output else None  # type: ignore[attr-defined]
    checked_size = sized_allocation(op, result_type, op.operands[1:], session)

    def step(regs: Registers) -> None:
        dims = shape(regs)
        buffer = session.backend.allocate(checked_size(dims), owner.label, kind)
        view = MemRef.contiguous(buffer, dims, dtype, owner)
        if index is not None:
            session.run.outputs[index] = view
        regs[out] = view

    return step


@translates("hip.alloc_output")
def translate_alloc_output(op: Operation, plan: PlanBuilder) -> Step:
    return _allocating(op, plan, "output", record_output=True)


@translates("hip.alloc")
def translate_alloc(op: Operation, plan: PlanBuilder) -> Step:
    return _allocating(op, plan, "alloc", record_output=False)


@translates("hip.free")
def translate_free(op: Operation, plan: PlanBuilder) -> None:
    return None


@translates("hip.readback_scalar", "hip.readback_dim")
def translate_readback(op: Operation, plan: PlanBuilder) -> Step:
    source, out = plan.slot(op.operands[1]), plan.slot(op.results[0])
    backend, location = plan.session.backend, op_location(op)
    producer_only = op.waits_for_producer  # type: ignore[attr-defined]

    def step(regs: Registers) -> None:
        value = regs[source]
        array = backend.download(value, location, producer_only) if isinstance(value, MemRef) else np.asarray(value)
        regs[out] = array.reshape(-1)[0].item()

    return step


@translates("hip.get_constant")
def translate_get_constant(op: Operation, plan: PlanBuilder) -> Step:
    assert isinstance(op, hip.GetConstantOp)
    index_slot, out = plan.slot(op.operands[1]), plan.slot(op.results[0])
    module, session = plan.module, plan.session
    result_type = op.results[0].type

    def step(regs: Registers) -> None:
        regs[out] = load_constant(module, session, op, int(regs[index_slot]), result_type)  # type: ignore[arg-type]

    return step
