"""Bind for the stages before bufferization (the reference backend only): ONNX ops,
tensor ops and hip ops in tensor mode, on host arrays with value semantics (every
result is new). `xhip-run --check-each-pass` runs every stage this way, which shows
whether a pass kept the model's meaning before anything runs on a device.

ONNX ops run on ONNX's own reference evaluator (each op a one-node model, built at bind
time); hip ops in tensor mode run their family's NumPy reference kernel on a fresh copy
of each init.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from onnx.reference import ReferenceEvaluator
from xdsl.dialects import bufferization, tensor
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, NoneType, TensorType
from xdsl.ir import Operation, SSAValue

from xhip.diagnostics import op_error, op_location
from xhip.dialects import hip
from xhip.dialects.hip.properties import properties_of
from xhip.dialects.onnx import ONNX_OPS
from xhip.dialects.onnx.ops import NoValueOp
from xhip.dtypes import numpy_dtype
from xhip.kernels.families import kernel_of
from xhip.kernels.reference import KernelCall
from xhip.onnx_nodes import dense_array, node_model
from xhip.rewrite_rules.bufferize.types import kept_dims
from xhip.runtime.binder import READERS, Binder, cast_step, reads
from xhip.runtime.contracts import same_count, within
from xhip.runtime.program import Registers, Step


def _array(value: object) -> np.ndarray:
    """A tensor register holds an ndarray; a memref (to_tensor) is read through its view."""
    return value if isinstance(value, np.ndarray) else value.array()  # type: ignore[attr-defined]


def poisoned(shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """A fresh array whose bytes are the poison pattern (an uninitialized destination)."""
    array = np.empty(shape, dtype)
    array.reshape(-1).view(np.uint8)[...] = 0xA5
    return array


def tensor_compute(op: hip.DPSOp, b: Binder) -> Step:
    """A hip op in tensor mode: its reference kernel writes a fresh copy of each init."""
    location = op_location(op)
    kernel, props = kernel_of(type(op), location), properties_of(op)
    scalars, inputs, outputs = b.slots_of(op.scalars), b.slots_of(op.inputs), b.slots_of(op.outputs)
    results, stats = b.slots_of(op.res), b.session.backend.stats

    def compute(regs: Registers) -> None:
        fresh = [np.array(_array(regs[o])) for o in outputs]
        stats.kernel_launches += 1
        kernel(KernelCall(kernel.name, [_array(regs[i]) for i in inputs], fresh, props, [regs[s] for s in scalars], location))  # type: ignore[misc]
        for slot, value in zip(results, fresh):
            regs[slot] = value

    return compute


@reads(tensor.EmptyOp)
def _empty(op: Operation, b: Binder) -> Step:
    assert isinstance(op, tensor.EmptyOp)
    shape, dtype, out = b.shape(op.tensor.type, op.dynamic_sizes), numpy_dtype(op.tensor.type.element_type), b.slot(op.tensor)

    def step(regs: Registers) -> None:
        regs[out] = poisoned(tuple(shape(regs)), dtype)

    return step


@reads(tensor.DimOp)
def _dim(op: Operation, b: Binder) -> Step:
    source, index = b.slots_of(op.operands)
    out = b.slot(op.results[0])

    def step(regs: Registers) -> None:
        regs[out] = regs[source].shape[regs[index]]  # type: ignore[attr-defined,index]

    return step


@reads(tensor.ExtractOp)
def _extract(op: Operation, b: Binder) -> Step:
    source, *indices = b.slots_of(op.operands)
    out = b.slot(op.results[0])

    def step(regs: Registers) -> None:
        regs[out] = _array(regs[source])[tuple([regs[i] for i in indices])].item()  # type: ignore[misc]  # index registers hold ints

    return step


@reads(tensor.FromElementsOp)
def _from_elements(op: Operation, b: Binder) -> Step:
    elements, out = b.slots_of(op.operands), b.slot(op.results[0])
    result_type = op.results[0].type
    shape, dtype = result_type.get_shape(), numpy_dtype(result_type.element_type)  # type: ignore[attr-defined]

    def step(regs: Registers) -> None:
        regs[out] = np.array([regs[e] for e in elements], dtype=dtype).reshape(shape)

    return step


def _window(op: Operation, b: Binder, sliced: SSAValue) -> Callable[[Registers], tuple[slice, ...]]:
    """The NumPy window of a slice op into `sliced`, checked to lie inside it."""
    offsets, sizes, strides = (
        b.mixed(getattr(op, f"static_{part}").get_values(), getattr(op, part)) for part in ("offsets", "sizes", "strides")
    )
    sliced_slot, require = b.slot(sliced), within(op_location(op))

    def window(regs: Registers) -> tuple[slice, ...]:
        starts, extents, steps = offsets(regs), sizes(regs), strides(regs)
        require(_array(regs[sliced_slot]).shape, starts, extents, steps)
        return tuple(slice(o, o + s * st, st) if s else slice(o, o) for o, s, st in zip(starts, extents, steps))

    return window


@reads(tensor.ExtractSliceOp)
def _extract_slice(op: Operation, b: Binder) -> Step:
    assert isinstance(op, tensor.ExtractSliceOp)
    window, source, out = _window(op, b, op.source), b.slot(op.source), b.slot(op.result)
    result_shape = op.result.type.get_shape()

    def step(regs: Registers) -> None:
        part = _array(regs[source])[window(regs)]
        regs[out] = np.array(part.reshape([part.shape[i] for i in kept_dims(part.shape, result_shape)]))

    return step


@reads(tensor.InsertSliceOp)
def _insert_slice(op: Operation, b: Binder) -> Step:
    window = _window(op, b, op.operands[1])
    source, dest, out = b.slot(op.operands[0]), b.slot(op.operands[1]), b.slot(op.results[0])

    def step(regs: Registers) -> None:
        result = np.array(regs[dest])
        target = result[window(regs)]
        target[...] = _array(regs[source]).reshape(target.shape)
        regs[out] = result

    return step


@reads(tensor.ExpandShapeOp, tensor.CollapseShapeOp)
def _reshape_like(op: Operation, b: Binder) -> Step:
    source, out = b.slot(op.operands[0]), b.slot(op.results[0])
    if isinstance(op, tensor.ExpandShapeOp):
        shape = b.mixed(op.static_output_shape.get_values(), op.operands[1:])

        def expand(regs: Registers) -> None:
            regs[out] = _array(regs[source]).reshape(shape(regs))

        return expand
    static = op.results[0].type.get_shape()  # type: ignore[attr-defined]
    groups = [[int(i.value.data) for i in group] for group in op.reassociation.data]  # type: ignore[attr-defined]

    def collapse(regs: Registers) -> None:
        array = _array(regs[source])
        target = [int(np.prod([array.shape[i] for i in group])) for group in groups]
        regs[out] = array.reshape(target if target else static)

    return collapse


@reads(tensor.ReshapeOp)
def _reshape(op: Operation, b: Binder) -> Step:
    source, shape, out = b.slot(op.operands[0]), b.slot(op.operands[1]), b.slot(op.results[0])
    require = same_count(op_location(op))

    def step(regs: Registers) -> None:
        array, dims = _array(regs[source]), [int(d) for d in _array(regs[shape]).reshape(-1)]
        require(array.shape, dims)
        regs[out] = array.reshape(dims)

    return step


reads(tensor.CastOp)(cast_step)


@reads(bufferization.ToTensorOp)
def _to_tensor(op: Operation, b: Binder) -> Step:
    source, out = b.slot(op.operands[0]), b.slot(op.results[0])

    def step(regs: Registers) -> None:
        regs[out] = np.array(_array(regs[source]))

    return step


# ---- onnx -------------------------------------------------------------------------------------


def _onnx(op: Operation, b: Binder) -> Step:
    try:
        evaluator = ReferenceEvaluator(node_model(op))
    except Exception as err:  # onnx raises many kinds for a node it cannot build
        raise op_error(op, f"cannot run '{op.name}' on the ONNX reference evaluator: {err}") from None
    feeds = [(f"in{i}", b.slot(v)) for i, v in enumerate(op.operands) if not isinstance(v.type, NoneType)]
    results = b.slots_of(op.results)
    dtypes = [numpy_dtype(r.type.element_type) if isinstance(r.type, TensorType) else None for r in op.results]

    def step(regs: Registers) -> None:
        values = evaluator.run(None, {name: np.asarray(regs[slot]) for name, slot in feeds})
        for slot, value, dtype in zip(results, values, dtypes):
            regs[slot] = np.asarray(value, dtype=dtype) if dtype is not None else value

    return step


def _onnx_constant(op: Operation, b: Binder) -> None:
    value = op.attributes["value"]
    if not isinstance(value, DenseIntOrFPElementsAttr):
        raise op_error(op, "onnx.Constant without a dense value cannot run")
    b.preset(op.results[0], dense_array(value).copy())


@reads(NoValueOp)
def _no_value(op: Operation, b: Binder) -> None:
    return None


def _register_onnx() -> None:
    for op_type, op_class in ONNX_OPS.items():
        READERS.setdefault(op_class, _onnx_constant if op_type == "Constant" else _onnx)


_register_onnx()
