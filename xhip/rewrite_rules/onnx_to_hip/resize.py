"""Resize as hip.resize, its output extents and per-dim scales decided here.

`scales` must be constant (the product floor(extent * scale) follows `shapes.resize`);
`sizes` may be constant or computed from shapes (a dim resized to a run-time size takes
its scale, O / D, at run time). `keep_aspect_ratio_policy` other than stretch needs the
resized extents and sizes static; `roi` (tf_crop_and_resize only) must be constant.
antialias (linear and cubic; nearest ignores it, as ONNX does) needs each resized dim's
scale when compiling: constant scales, or sizes over static extents (O / D then).
"""

from __future__ import annotations

import math

from xdsl.dialects.builtin import DenseArrayBase, FloatAttr, IntegerAttr, StringAttr, f64, i64
from xdsl.ir import Attribute, Operation

from xhip import shapes
from xhip.dialects import hip
from xhip.dialects.hip.linalg import NEAREST_MODES, RESIZE_COORDINATES, RESIZE_MODES
from xhip.dialects.onnx import is_none
from xhip.index.emitter import Dim
from xhip.onnx_nodes import constant_value, dense_array
from xhip.rewrite_rules.onnx_to_hip.registry import converts
from xhip.rewrite_rules.onnx_to_hip.state import ConversionState, Lowered

ASPECT_POLICIES = ("stretch", "not_larger", "not_smaller")


def _choice(state: ConversionState, what: str, value: str, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise state.error(f"Resize {what} \"{value}\" is not one of {', '.join(allowed)}")
    return value


def _constant_floats(state: ConversionState, value, what: str) -> list[float] | None:
    """A constant float input's elements; None for an absent or empty one."""
    if is_none(value):
        return None
    dense = constant_value(value)
    if dense is None:
        raise state.error(f"Resize {what} must be constant")
    values = [float(v) for v in dense_array(dense).reshape(-1)]
    return values or None


def _axes(op: Operation, state: ConversionState, rank: int) -> list[int]:
    given = list(op.axes.data) if op.axes is not None else list(range(rank))  # type: ignore[attr-defined]
    axes = [a + rank if a < 0 else a for a in given]
    if any(not 0 <= a < rank for a in axes) or len(set(axes)) != len(axes):
        raise state.error(f"Resize axes {given} are not distinct dims of an input of rank {rank}")
    return axes


def _sized(op: Operation, state: ConversionState, x_dims: list[Dim], axes: list[int], sizes: list[Dim]) -> tuple[list[Dim], list[float]]:
    """The output extents and per-dim scales (0: O / D at run time) of a Resize to `sizes`."""
    rank = len(x_dims)
    policy = _choice(state, "keep_aspect_ratio_policy", op.keep_aspect_ratio_policy.data, ASPECT_POLICIES)  # type: ignore[attr-defined]
    dims, scales = list(x_dims), [1.0] * rank
    if policy == "stretch":
        for axis, size in zip(axes, sizes):
            same = size is x_dims[axis] or (isinstance(size, int) and size == x_dims[axis])
            dims[axis], scales[axis] = size, 1.0 if same else 0.0  # an unchanged extent keeps x's index
        return dims, scales
    extents = [x_dims[a] for a in axes]
    if not all(isinstance(e, int) and e > 0 for e in [*extents, *sizes]):
        raise state.error(f"Resize keep_aspect_ratio_policy {policy} needs static resized extents and sizes")
    ratios = [size / extent for size, extent in zip(sizes, extents)]  # type: ignore[operator]
    scale = min(ratios) if policy == "not_larger" else max(ratios)
    for axis, extent in zip(axes, extents):
        dims[axis], scales[axis] = int(math.floor(scale * extent + 0.5)), scale  # type: ignore[operator]
    return dims, scales


@converts("Resize")
def convert_resize(op: Operation, state: ConversionState) -> list[Lowered]:
    x, roi_value, scales_value, sizes_value = op.operands
    mode = _choice(state, "mode", op.mode.data, RESIZE_MODES)  # type: ignore[attr-defined]
    coordinate = _choice(state, "coordinate_transformation_mode", op.coordinate_transformation_mode.data, RESIZE_COORDINATES)  # type: ignore[attr-defined]
    nearest = _choice(state, "nearest_mode", op.nearest_mode.data, NEAREST_MODES)  # type: ignore[attr-defined]
    antialias = bool(op.antialias.value.data) and mode != "nearest"  # type: ignore[attr-defined]
    x_dims = state.dims(x)
    rank = len(x_dims)
    if rank == 0:
        raise state.error("Resize needs an input of rank 1 or more")
    axes = _axes(op, state, rank)
    given_scales = _constant_floats(state, scales_value, "scales")
    sizes = None if is_none(sizes_value) else state.host(sizes_value)
    if not is_none(sizes_value) and sizes is None:
        raise state.error("Resize sizes must be constant or computed from shapes")
    if (given_scales is None) == (not sizes):
        raise state.error("Resize takes one of scales and sizes")
    if sizes:
        if len(sizes) != len(axes):
            raise state.error(f"Resize over {len(axes)} axes takes {len(axes)} sizes, got {len(sizes)}")
        out, scales = _sized(op, state, x_dims, axes, sizes)
        dims = state.check(shapes.resize(state.emitter, x_dims, None, out))
    else:
        assert given_scales is not None
        if len(given_scales) != len(axes):
            raise state.error(f"Resize over {len(axes)} axes takes {len(axes)} scales, got {len(given_scales)}")
        scales = [1.0] * rank
        for axis, scale in zip(axes, given_scales):
            scales[axis] = scale
        dims = state.check(shapes.resize(state.emitter, x_dims, scales, None))
    roi = [0.0] * rank + [1.0] * rank
    if coordinate == "tf_crop_and_resize":
        given_roi = _constant_floats(state, roi_value, "roi")
        if given_roi is None or len(given_roi) != 2 * len(axes):
            raise state.error(f"Resize tf_crop_and_resize over {len(axes)} axes takes a constant roi of {2 * len(axes)} values")
        for i, axis in enumerate(axes):
            roi[axis], roi[rank + axis] = given_roi[i], given_roi[len(axes) + i]
    # A dim keeps x's index where its scale is 1, its extent unchanged and its roi whole.
    resized = [
        not (scales[d] == 1.0 and roi[d] == 0.0 and roi[rank + d] == 1.0 and (dims[d] is x_dims[d] or dims[d] == x_dims[d]))
        for d in range(rank)
    ]  # fmt: skip
    dims = state.fit_to_declared(dims, op.results[0].type)
    if not any(resized):
        return [state.lowered(x)]
    if antialias:
        for d in range(rank):
            out_extent, in_extent = dims[d], x_dims[d]
            if resized[d] and not scales[d]:
                if not (isinstance(out_extent, int) and isinstance(in_extent, int)):
                    raise state.error("Resize antialias needs each resized dim's scale when compiling: constant scales, or sizes over static extents")
                scales[d] = out_extent / in_extent  # the scale ONNX's reference takes: O / D
    properties: dict[str, Attribute] = {
        "mode": StringAttr(mode), "coordinate_mode": StringAttr(coordinate), "nearest_mode": StringAttr(nearest),
        "scales": DenseArrayBase.from_list(f64, scales), "resized": DenseArrayBase.from_list(i64, [int(r) for r in resized]),
        "roi": DenseArrayBase.from_list(f64, roi if coordinate == "tf_crop_and_resize" else []),
        "cubic_coeff_a": FloatAttr(float(op.cubic_coeff_a.value.data), f64),  # type: ignore[attr-defined]
        "exclude_outside": IntegerAttr.from_bool(bool(op.exclude_outside.value.data)),  # type: ignore[attr-defined]
        "extrapolation_value": FloatAttr(float(op.extrapolation_value.value.data), f64),  # type: ignore[attr-defined]
    }  # fmt: skip
    if antialias:
        properties["antialias"] = IntegerAttr.from_bool(True)
    return state.compute(hip.ResizeOp, [state.tensor(x)], [(dims, state.element_type(x))], properties=properties)
