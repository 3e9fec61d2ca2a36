"""Mean and standard deviation over a value's trailing dims, as the ONNX function bodies
of the normalizations compute them (mean, x - mean, its square, their mean, + epsilon,
sqrt): shared by LayerNormalization's statistics outputs (linalg) and Instance and
GroupNormalization (compositions).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, i64
from xdsl.ir import Attribute, SSAValue

from xhip.dialects import hip
from xhip.onnx_nodes import dense_attr
from xhip.rewrite_rules.onnx_to_hip.state import ConversionState
from xhip.shapes import Dim


@dataclass(frozen=True)
class Moments:
    mean: SSAValue
    centered: SSAValue
    """x - mean, of x's dims."""
    std_dev: SSAValue
    """sqrt(mean(centered²) + epsilon)."""


def moments(
    state: ConversionState, source: SSAValue, dims: Sequence[Dim], axis: int, stats_dims: Sequence[Dim], element_type: Attribute, epsilon: float,
) -> Moments:
    """The moments of `source` (of `dims`) over dims [axis, rank), kept as unit dims
    (`stats_dims`), in `element_type`."""
    reduce: dict[str, Attribute] = {"axes": DenseArrayBase.from_list(i64, list(range(axis, len(dims)))), "keepdims": IntegerAttr.from_bool(True)}
    mean = state.compute_value(hip.ReduceMeanOp, [source], stats_dims, element_type, reduce)
    centered = state.compute_value(hip.SubOp, [source, mean], dims, element_type)
    squares = state.compute_value(hip.MulOp, [centered, centered], dims, element_type)
    variance = state.compute_value(hip.ReduceMeanOp, [squares], stats_dims, element_type, reduce)
    eps = state.insert(arith.ConstantOp(dense_attr(np.asarray(epsilon), element_type))).results[0]
    shifted = state.compute_value(hip.AddOp, [variance, eps], stats_dims, element_type)
    return Moments(mean, centered, state.compute_value(hip.SqrtOp, [shifted], stats_dims, element_type))
