"""tensor and bufferization ops on host arrays (value semantics: every result is new)."""

from __future__ import annotations

import numpy as np
from xdsl.dialects import tensor
from xdsl.ir import Operation, SSAValue

from xhip.rewrite_rules.bufferize.types import kept_dims
from xhip.runtime.buffers import numpy_dtype
from xhip.runtime.contracts import require_same_count, require_static_extents, require_within
from xhip.runtime.translate.base import (
    PlanBuilder,
    Registers,
    Step,
    mixed_values,
    offsets_sizes_strides,
    poisoned,
    shape_of_type,
    translates,
)


def _array(value: object) -> np.ndarray:
    """A tensor register holds an ndarray; a memref (to_tensor) is read through its view."""
    return value if isinstance(value, np.ndarray) else value.array()  # type: ignore[attr-defined]


@translates("tensor.empty")
def translate_empty(op: Operation, plan: PlanBuilder) -> Step:
    assert isinstance(op, tensor.EmptyOp)
    shape = shape_of_type(op.tensor.type, plan.slots(op.dynamic_sizes))
    dtype, out = numpy_dtype(op.tensor.type.element_type), plan.slot(op.tensor)

    def step(regs: Registers) -> None:
        regs[out] = poisoned(tuple(shape(regs)), dtype)

    return step


@translates("tensor.dim", "memref.dim")
def translate_dim(op: Operation, plan: PlanBuilder) -> Step:
    source, index = plan.slots(op.operands)
    out = plan.slot(op.results[0])

    def step(regs: Registers) -> None:
        regs[out] = regs[source].shape[regs[index]]  # type: ignore[attr-defined,index]

    return step


@translates("tensor.extract")
def translate_extract(op: Operation, plan: PlanBuilder) -> Step:
    source, *indices = plan.slots(op.operands)
    out = plan.slot(op.results[0])

    def step(regs: Registers) -> None:
        regs[out] = _array(regs[source])[tuple(regs[i] for i in indices)].item()

    return step


@translates("tensor.from_elements")
def translate_from_elements(op: Operation, plan: PlanBuilder) -> Step:
    elements, out = plan.slots(op.operands), plan.slot(op.results[0])
    result_type = op.results[0].type
    shape, dtype = result_type.get_shape(), numpy_dtype(result_type.element_type)  # type: ignore[attr-defined]

    def step(regs: Registers) -> None:
        regs[out] = np.array([regs[e] for e in elements], dtype=dtype).reshape(shape)

    return step


def _slice_steps(op: Operation, plan: PlanBuilder, sliced: SSAValue):
    """The NumPy window of a slice op into `sliced`, checked to lie inside it."""
    offsets, sizes, strides = offsets_sizes_strides(op, plan)
    sliced_slot = plan.slot(sliced)

    def window(regs: Registers) -> tuple[slice, ...]:
        starts, extents, steps = offsets(regs), sizes(regs), strides(regs)
        require_within(op, _array(regs[sliced_slot]).shape, starts, extents, steps)
        return tuple(
            slice(o, o + s * st, st) if s else slice(o, o)
            for o, s, st in zip(starts, extents, steps)
        )

    return window


@translates("tensor.extract_slice")
def translate_extract_slice(op: Operation, plan: PlanBuilder) -> Step:
    assert isinstance(op, tensor.ExtractSliceOp)
    window, source, out = _slice_steps(op, plan, op.source), plan.slot(op.source), plan.slot(op.result)
    result_shape = op.result.type.get_shape()

    def step(regs: Registers) -> None:
        part = _array(regs[source])[window(regs)]
        regs[out] = np.array(part.reshape([part.shape[i] for i in kept_dims(part.shape, result_shape)]))

    return step


@translates("tensor.insert_slice")
def translate_insert_slice(op: Operation, plan: PlanBuilder) -> Step:
    window = _slice_steps(op, plan, op.operands[1])
    source, dest, out = plan.slot(op.operands[0]), plan.slot(op.operands[1]), plan.slot(op.results[0])

    def step(regs: Registers) -> None:
        result = np.array(regs[dest])
        target = result[window(regs)]
        target[...] = _array(regs[source]).reshape(target.shape)
        regs[out] = result

    return step


@translates("tensor.expand_shape", "tensor.collapse_shape")
def translate_reshape_like(op: Operation, plan: PlanBuilder) -> Step:
    result_type = op.results[0].type
    dynamic = plan.slots(op.operands[1:])
    source, out = plan.slot(op.operands[0]), plan.slot(op.results[0])
    if op.name == "tensor.expand_shape":
        shape = mixed_values(op.static_output_shape.get_values(), dynamic)  # type: ignore[attr-defined]
    else:
        static = result_type.get_shape()  # type: ignore[attr-defined]
        shape = None

    def step(regs: Registers) -> None:
        array = _array(regs[source])
        if shape is not None:
            regs[out] = array.reshape(shape(regs))
            return
        groups = op.reassociation  # type: ignore[attr-defined]
        target = [int(np.prod([array.shape[i] for i in group])) for group in _groups(groups)]
        regs[out] = array.reshape(target if target else static)

    return step


def _groups(reassociation) -> list[list[int]]:
    return [[int(i.value.data) for i in group] for group in reassociation.data]


@translates("tensor.reshape")
def translate_reshape(op: Operation, plan: PlanBuilder) -> Step:
    source, shape, out = plan.slot(op.operands[0]), plan.slot(op.operands[1]), plan.slot(op.results[0])

    def step(regs: Registers) -> None:
        array, dims = _array(regs[source]), [int(d) for d in _array(regs[shape]).reshape(-1)]
        require_same_count(op, array.shape, dims)
        regs[out] = array.reshape(dims)

    return step


@translates("tensor.cast", "memref.cast")
def translate_cast(op: Operation, plan: PlanBuilder) -> Step:
    source, out = plan.slot(op.operands[0]), plan.slot(op.results[0])
    declared = op.results[0].type.get_shape()  # type: ignore[attr-defined]

    def step(regs: Registers) -> None:
        # A cast to a static extent asserts it (Squeeze of a `?` that must be 1).
        require_static_extents(op, regs[source].shape, declared)  # type: ignore[attr-defined]
        regs[out] = regs[source]

    return step


@translates("bufferization.to_tensor")
def translate_to_tensor(op: Operation, plan: PlanBuilder) -> Step:
    source, out = plan.slot(op.operands[0]), plan.slot(op.results[0])

    def step(regs: Registers) -> None:
        regs[out] = np.array(_array(regs[source]))

    return step
