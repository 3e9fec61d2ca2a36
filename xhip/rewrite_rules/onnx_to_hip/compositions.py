"""Conversion of ops that are compositions of other hip ops (which hip-fuse-elementwise
makes few kernels):

- Clip: Max(input, min), then Min(., max), each bound an optional scalar;
- BatchNormalization (inference): its four per-channel constants folded at compile time
  into y = x * a + b, a = scale / sqrt(var + epsilon), b = bias - mean * a (in float64,
  rounded once to x's type), shaped [C, 1, ..] to broadcast over the spatial dims;
- InstanceNormalization: mean and variance over the spatial dims per (batch, channel),
  (x - mean) / sqrt(var + epsilon) * scale + bias, scale and bias constants [C, 1, ..];
- GroupNormalization: x viewed as [N, G, C / G, ..], normalized over all but its first two
  dims as InstanceNormalization is over the spatial ones, viewed back, scale and bias per
  channel (a per-group pair, opset 18's, repeated over each group's channels);
- GlobalAveragePool / GlobalMaxPool: ReduceMean / ReduceMax over the spatial dims, kept.

The normalizations' per-channel operands must be initializers (what exporters write): a run-time one is a
one-line error naming the op.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import DenseArrayBase, FloatAttr, IntegerAttr, i64
from xdsl.ir import Attribute, Operation, SSAValue

from xhip import shapes
from xhip.dialects import hip
from xhip.dialects.onnx import is_none
from xhip.onnx_nodes import constant_value, dense_array, dense_attr
from xhip.rewrite_rules.onnx_to_hip.registry import converts
from xhip.rewrite_rules.onnx_to_hip.state import ConversionState, Lowered
from xhip.rewrite_rules.onnx_to_hip.statistics import moments
from xhip.rewrite_rules.onnx_to_hip.views import reshape_value
from xhip.shapes import Dim


def _channel_constant(state: ConversionState, value: SSAValue, what: str, channels: Dim | None) -> np.ndarray:
    """The elements of a per-channel initializer, as float64, checked against C (unless None)."""
    dense = constant_value(value)
    if dense is None:
        raise state.error(f"{what} must be an initializer (a constant), not a value computed at run time")
    elements = dense_array(dense).astype(np.float64).reshape(-1)
    if isinstance(channels, int) and elements.size != channels:
        raise state.error(f"{what} has {elements.size} elements for {channels} channels")
    return elements


def _broadcast_constant(state: ConversionState, values: np.ndarray, element_type: Attribute, rank: int) -> SSAValue:
    """`values` [C] as a constant [C, 1, ..] of `rank - 1` dims: it lines up with dim 1 of a
    rank-`rank` operand under NumPy broadcasting."""
    shaped = values.reshape(values.size, *([1] * (rank - 2)))
    return state.insert(arith.ConstantOp(dense_attr(shaped, element_type))).results[0]


def _spatial(state: ConversionState, what: str, x_dims: list[Dim]) -> list[int]:
    if len(x_dims) < 2:
        raise state.error(f"{what} needs an input of rank >= 2 ([N, C, ...]), got rank {len(x_dims)}")
    return list(range(2, len(x_dims)))


@converts("Clip")
def convert_clip(op: Operation, state: ConversionState) -> list[Lowered]:
    """max(input, min), then min(., max): NaN stays NaN, and a min above max gives max, as
    numpy.clip (onnxruntime) does; an absent bound is no op."""
    x, low, high = op.operands
    result = state.lowered(x)
    dims, element = state.dims(x), state.element_type(x)
    for bound, hip_op in ((low, hip.MaxOp), (high, hip.MinOp)):
        if is_none(bound):
            continue
        if state.dims(bound):
            raise state.error(f"Clip's bounds must be scalars, got one of rank {len(state.dims(bound))}")
        source = state.tensor(x) if result is state.lowered(x) else result.value
        assert source is not None
        (result,) = state.compute(hip_op, [source, state.tensor(bound)], [(dims, element)])
    return [result]


@converts("BatchNormalization")
def convert_batch_norm(op: Operation, state: ConversionState) -> list[Lowered]:
    x, scale, bias, mean, var = op.operands
    if op.training_mode.value.data:  # type: ignore[attr-defined]
        raise state.error("BatchNormalization with training_mode=1 is not supported (inference only)")
    x_dims, element_type = state.dims(x), state.element_type(x)
    _spatial(state, "BatchNormalization", x_dims)
    epsilon = op.epsilon.value.data  # type: ignore[attr-defined]
    s, b, m, v = (_channel_constant(state, value, f"BatchNormalization's {name}", x_dims[1])
                  for value, name in ((scale, "scale"), (bias, "B"), (mean, "input_mean"), (var, "input_var")))  # fmt: skip
    a = s / np.sqrt(v + epsilon)
    dims = state.fit_to_declared(x_dims, op.results[0].type)
    scaled = state.compute_value(hip.MulOp, [state.tensor(x), _broadcast_constant(state, a, element_type, len(x_dims))], dims, element_type)
    shifted = state.compute_value(hip.AddOp, [scaled, _broadcast_constant(state, b - m * a, element_type, len(x_dims))], dims, element_type)
    return [Lowered(dims, element_type, shifted), *(Lowered(list(x_dims[1:2]), element_type) for _ in op.results[1:])]


def _normalized(state: ConversionState, source: SSAValue, dims: list[Dim], element_type: Attribute, epsilon: Attribute) -> SSAValue:
    """(x - mean) / sqrt(var + epsilon), the statistics over every dim from 2 on."""
    assert isinstance(epsilon, FloatAttr)
    stats_dims = state.check(shapes.reduce(state.emitter, dims, list(range(2, len(dims))), True))
    stats = moments(state, source, dims, 2, stats_dims, element_type, epsilon.value.data)
    return state.compute_value(hip.DivOp, [stats.centered, stats.std_dev], dims, element_type)


def _scaled(state: ConversionState, value: SSAValue, dims: list[Dim], element_type: Attribute, s: np.ndarray, b: np.ndarray) -> Lowered:
    """value * s + b, s and b per channel (dim 1)."""
    scaled = state.compute_value(hip.MulOp, [value, _broadcast_constant(state, s, element_type, len(dims))], dims, element_type)
    return Lowered(dims, element_type, state.compute_value(hip.AddOp, [scaled, _broadcast_constant(state, b, element_type, len(dims))], dims, element_type))


@converts("InstanceNormalization")
def convert_instance_norm(op: Operation, state: ConversionState) -> list[Lowered]:
    x, scale, bias = op.operands
    x_dims, element_type = state.dims(x), state.element_type(x)
    if not _spatial(state, "InstanceNormalization", x_dims):
        raise state.error(f"InstanceNormalization needs spatial dims ([N, C, D1, ...]), got rank {len(x_dims)}")
    s, b = (_channel_constant(state, value, f"InstanceNormalization's {name}", x_dims[1]) for value, name in ((scale, "scale"), (bias, "B")))
    dims = state.fit_to_declared(x_dims, op.results[0].type)
    normalized = _normalized(state, state.tensor(x), dims, element_type, op.epsilon)  # type: ignore[attr-defined]
    return [_scaled(state, normalized, dims, element_type, s, b)]


@converts("GroupNormalization")
def convert_group_norm(op: Operation, state: ConversionState) -> list[Lowered]:
    x, scale, bias = op.operands
    x_dims, element_type = state.dims(x), state.element_type(x)
    _spatial(state, "GroupNormalization", x_dims)
    groups, channels = op.num_groups.value.data, x_dims[1]  # type: ignore[attr-defined]
    if not isinstance(channels, int) or groups <= 0 or channels % groups:
        raise state.error(f"GroupNormalization needs a static channel count that num_groups ({groups}) divides, got {channels}")
    per_group = channels // groups
    pair = []
    for value, name in ((scale, "scale"), (bias, "bias")):
        elements = _channel_constant(state, value, f"GroupNormalization's {name}", None)
        if elements.size == groups and groups != channels:
            elements = np.repeat(elements, per_group)  # opset 18: one value per group
        if elements.size != channels:
            raise state.error(f"GroupNormalization's {name} has {elements.size} elements for {channels} channels in {groups} groups")
        pair.append(elements)
    dims = state.fit_to_declared(x_dims, op.results[0].type)
    grouped_dims = [x_dims[0], groups, per_group, *x_dims[2:]]
    grouped, grouped_dims = reshape_value(state, state.tensor(x), x_dims, grouped_dims, grouped_dims)
    normalized = _normalized(state, grouped, grouped_dims, element_type, op.epsilon)  # type: ignore[attr-defined]
    back, dims = reshape_value(state, normalized, grouped_dims, x_dims, dims)
    return [_scaled(state, back, dims, element_type, *pair)]


GLOBAL_POOLS: dict[str, type[hip.DPSOp]] = {"onnx.GlobalAveragePool": hip.ReduceMeanOp, "onnx.GlobalMaxPool": hip.ReduceMaxOp}


@converts("GlobalAveragePool", "GlobalMaxPool")
def convert_global_pool(op: Operation, state: ConversionState) -> list[Lowered]:
    (x,) = op.operands
    x_dims = state.dims(x)
    axes = _spatial(state, op.name.removeprefix("onnx."), x_dims)
    if not axes:  # [N, C]: no spatial dims to pool (empty hip axes would mean all of them)
        return [state.lowered(x)]
    dims = state.fit_to_declared(state.check(shapes.reduce(state.emitter, x_dims, axes, True)), op.results[0].type)
    properties: dict[str, Attribute] = {"axes": DenseArrayBase.from_list(i64, axes), "keepdims": IntegerAttr.from_bool(True)}
    return state.compute(GLOBAL_POOLS[op.name], [state.tensor(x)], [(dims, state.element_type(x))], properties=properties)
