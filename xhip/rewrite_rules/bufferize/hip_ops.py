"""Bufferization of hip ops: DPS compute ops to memref mode, other hip ops in place."""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation

from xhip.dialects.hip import DPSOp
from xhip.rewrite_rules.bufferize.state import BufferizationState
from xhip.rewrite_rules.bufferize.tensor_ops import fresh_buffer

SEGMENT_SIZES = "operandSegmentSizes"


def bufferize_dps(op: DPSOp, state: BufferizationState) -> None:
    """The memref-mode twin of `op`, writing a buffer of its own for every init.

    An init is never written in place: cse may have merged the `tensor.empty` of
    several ops into one, and an init with content may still be read elsewhere.
    """
    inputs = [state.buffer(value) for value in op.inputs]
    outputs = [fresh_buffer(init, state) for init in op.outputs]
    properties = {k: v for k, v in op.properties.items() if k != SEGMENT_SIZES}
    twin = type(op)(op.ctx, inputs, outputs, op.scalars, properties)
    twin.attributes.update(op.attributes)
    state.insert(twin)
    for result, buffer in zip(op.res, outputs, strict=True):
        state.bind(result, buffer)


def bufferize_in_place(op: Operation, state: BufferizationState) -> None:
    """A hip op that only reads tensors (a readback) reads their buffers instead."""
    assert not any(isinstance(t, TensorType) for t in op.result_types)
    op.operands = [state.buffer(value) for value in op.operands]
