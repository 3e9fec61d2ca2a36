"""Window ops: MaxPool, AveragePool and LpPool as hip.pool, Conv as hip.conv, ConvTranspose as
hip.conv_transpose, over pads made explicit.

`auto_pad` is resolved here: VALID pads nothing, SAME_UPPER / SAME_LOWER pad so that each
output extent is ceil(x / stride) (static spatial extents and no dilation only: the ONNX
reference and onnxruntime disagree on dilated SAME windows); NOTSET takes `pads`. The
output extents follow `shapes.pool` / `shapes.conv`. MaxPool's optional Indices output is
refused; Conv's kernel extents (W's) must be static. A 1x1 Conv of stride 1, no padding and
one group is a matmul (W [M, C] times x viewed as [N, C, D1 * ..]: cuBLAS on a GPU), not a
window kernel; any other Conv of one group is hip.im2col (its windows as the columns of a
pooled buffer) and that matmul, unless the pass's `conv-as-matmul` is off (hip.conv, the
direct kernel). Grouped and depthwise Convs stay direct: they read each input once.
"""

from __future__ import annotations

import math

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, StringAttr, i64
from xdsl.ir import Attribute, Operation

from xhip import shapes
from xhip.dialects import hip
from xhip.dialects.onnx import is_none
from xhip.rewrite_rules.onnx_to_hip.registry import converts
from xhip.rewrite_rules.onnx_to_hip.state import ConversionState, Lowered
from xhip.rewrite_rules.onnx_to_hip.views import reshape_value

AUTO_PADS = ("NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER")
POOL_KIND_OF = {"onnx.MaxPool": "max", "onnx.AveragePool": "average", "onnx.LpPool": "lp"}
"""hip.pool's kind of each ONNX pooling op."""


def _ints(attribute: object, default: list[int]) -> list[int]:
    return list(attribute.data) if attribute is not None else default  # type: ignore[attr-defined]


def _window_attributes(op: Operation, state: ConversionState, spatial: int, kernel: list[int]) -> tuple[list[int], list[int], list[int], str]:
    """The op's strides, dilations, pads (defaults filled in) and auto_pad, checked."""
    name = op.name.removeprefix("onnx.")
    strides = _ints(op.strides, [1] * spatial)  # type: ignore[attr-defined]
    dilations = _ints(op.dilations, [1] * spatial)  # type: ignore[attr-defined]
    pads = _ints(op.pads, [0] * (2 * spatial))  # type: ignore[attr-defined]
    if not len(kernel) == len(strides) == len(dilations) == spatial or len(pads) != 2 * spatial:
        raise state.error(f"{name} over {spatial} spatial dims takes {spatial} kernel extents, strides and dilations and {2 * spatial} pads")
    if min(kernel + strides + dilations) < 1 or min(pads) < 0:
        raise state.error(f"{name} kernel extents, strides and dilations must be positive and pads not negative")
    auto_pad = op.auto_pad.data  # type: ignore[attr-defined]
    if auto_pad not in AUTO_PADS:
        raise state.error(f"{name} auto_pad \"{auto_pad}\" is not one of {', '.join(AUTO_PADS)}")
    return strides, dilations, pads, auto_pad


def _static_extents(op: Operation, state: ConversionState, x_dims: list, auto_pad: str) -> list[int]:
    """x's spatial extents, which auto_pad SAME needs known at compile time."""
    extents = [e for e in x_dims[2:] if isinstance(e, int)]
    if len(extents) != len(x_dims) - 2:
        raise state.error(f"{op.name.removeprefix('onnx.')} auto_pad {auto_pad} needs static spatial extents")
    return extents


def _explicit_window(op: Operation, state: ConversionState, x_dims: list, kernel: list[int]) -> tuple[list[int], list[int], list[int]]:
    """The strides, dilations and pads of a pooling or convolution window, auto_pad resolved."""
    strides, dilations, pads, auto_pad = _window_attributes(op, state, len(x_dims) - 2, kernel)
    if auto_pad == "VALID":
        pads = [0] * len(pads)
    elif auto_pad != "NOTSET":
        extents = _static_extents(op, state, x_dims, auto_pad)
        if max(dilations) > 1:  # the ONNX reference and onnxruntime size these windows differently
            raise state.error(f"{op.name.removeprefix('onnx.')} auto_pad {auto_pad} with dilations {dilations} is not supported")
        pads = shapes.same_pool_pads(auto_pad, extents, kernel, strides, dilations)
    return strides, dilations, pads


def _window_properties(strides: list[int], dilations: list[int], pads: list[int]) -> dict[str, Attribute]:
    return {name: DenseArrayBase.from_list(i64, values) for name, values in (("strides", strides), ("dilations", dilations), ("pads", pads))}


def _filters(op: Operation, state: ConversionState) -> tuple[list, list, list[int], int]:
    """Conv's and ConvTranspose's x and W dims, W's kernel extents (static) and the group count, checked."""
    name = op.name.removeprefix("onnx.")
    x_dims, w_dims = state.dims(op.operands[0]), state.dims(op.operands[1])
    if len(x_dims) < 3 or len(w_dims) != len(x_dims):
        raise state.error(f"{name} needs X of rank 3 or more and W of the same rank, got ranks {len(x_dims)} and {len(w_dims)}")
    kernel = [k for k in w_dims[2:] if isinstance(k, int)]
    if len(kernel) != len(w_dims) - 2:
        raise state.error(f"{name}'s kernel extents (W's dims 2 and on) must be static")
    declared = _ints(op.kernel_shape, kernel)  # type: ignore[attr-defined]
    if declared != kernel:
        raise state.error(f"{name} kernel_shape {declared} differs from W's kernel extents {kernel}")
    group = int(op.group.value.data)  # type: ignore[attr-defined]
    if group < 1:
        raise state.error(f"{name} group must be positive, got {group}")
    return x_dims, w_dims, kernel, group


def _filter_inputs(op: Operation, state: ConversionState) -> list:
    x, w, b = op.operands
    return [state.tensor(x), state.tensor(w)] + ([] if is_none(b) else [state.tensor(b)])


@converts("MaxPool", "AveragePool", "LpPool")
def convert_window_pool(op: Operation, state: ConversionState) -> list[Lowered]:
    x = op.operands[0]
    if len(op.results) > 1 and not is_none(op.results[1]) and op.results[1].uses:
        raise state.error("MaxPool's Indices output is not supported")
    x_dims = state.dims(x)
    if len(x_dims) < 3:
        raise state.error(f"{op.name.removeprefix('onnx.')} needs an input of rank 3 or more ([N, C, D1, ...]), got rank {len(x_dims)}")
    kernel = _ints(op.kernel_shape, [])  # type: ignore[attr-defined]
    strides, dilations, pads = _explicit_window(op, state, x_dims, kernel)
    ceil_mode = bool(op.ceil_mode.value.data)  # type: ignore[attr-defined]
    dims = state.fit_to_declared(state.check(shapes.pool(state.emitter, x_dims, kernel, strides, dilations, pads, ceil_mode)), op.results[0].type)
    include_pad = bool(op.count_include_pad.value.data) if op.name == "onnx.AveragePool" else False  # type: ignore[attr-defined]
    properties: dict[str, Attribute] = {
        "kind": StringAttr(POOL_KIND_OF[op.name]), "kernel_shape": DenseArrayBase.from_list(i64, kernel),
        **_window_properties(strides, dilations, pads),
        "ceil_mode": IntegerAttr.from_bool(ceil_mode), "count_include_pad": IntegerAttr.from_bool(include_pad),
    }  # fmt: skip
    if op.name == "onnx.LpPool":
        properties["p"] = IntegerAttr(op.p.value.data, i64)  # type: ignore[attr-defined]
    lowered = state.compute(hip.PoolOp, [state.tensor(x)], [(dims, state.element_type(x))], properties=properties)
    return lowered + [Lowered(dims, i64)] * (len(op.results) - 1)  # an unused Indices: no tensor


def _conv_as_matmul(state: ConversionState, inputs: list, x_dims: list, w_dims: list, dims: list, window: tuple[list[int], list[int], list[int]] | None) -> Lowered:
    """A convolution of one group as one matmul: W [M, C * K] (K the window's taps) times the
    columns [N, C * K, O1 * ..] is y [N, M, O1 * ..] (NCHW as it is), viewed back, plus b [M]
    viewed as [M, 1, ..] (a broadcast add). The columns are x viewed as [N, C, D1 * ..] for a
    1x1 window of stride 1 and no padding (`window` None), else hip.im2col's."""
    x, w = inputs[:2]
    element = w.type.element_type
    em = state.emitter
    matrix = [w_dims[0], em.mul(w_dims[1], math.prod(w_dims[2:]))]
    weights, weight_dims = reshape_value(state, w, w_dims, matrix, matrix)
    if window is None:
        spatial = em.product(x_dims[2:])
        columns, column_dims = reshape_value(state, x, x_dims, [*x_dims[:2], spatial], [*x_dims[:2], spatial])
    else:
        column_dims = state.check(shapes.im2col(em, x_dims, w_dims[2:], *window))
        properties = {"kernel_shape": DenseArrayBase.from_list(i64, w_dims[2:]), **_window_properties(*window)}
        columns = state.compute_value(hip.Im2ColOp, [x], column_dims, element, properties=properties)
    product_dims = state.check(shapes.matmul(em, weight_dims, column_dims))
    product = state.compute_value(hip.MatmulOp, [weights, columns], product_dims, element)
    value, value_dims = reshape_value(state, product, product_dims, dims, dims)
    if len(inputs) == 3:
        bias, _ = reshape_value(state, inputs[2], [w_dims[0]], [w_dims[0], *[1] * (len(dims) - 2)], [w_dims[0], *[1] * (len(dims) - 2)])
        value = state.compute_value(hip.AddOp, [value, bias], value_dims, element)
    return Lowered(value_dims, element, value)


@converts("Conv")
def convert_conv(op: Operation, state: ConversionState) -> list[Lowered]:
    x_dims, w_dims, kernel, group = _filters(op, state)
    strides, dilations, pads = _explicit_window(op, state, x_dims, kernel)
    dims = state.fit_to_declared(state.check(shapes.conv(state.emitter, x_dims, w_dims, strides, dilations, pads, group)), op.results[0].type)
    if group == 1 and all(k == 1 for k in kernel) and all(s == 1 for s in strides) and not any(pads):
        return [_conv_as_matmul(state, _filter_inputs(op, state), x_dims, w_dims, dims, None)]
    if group == 1 and state.conv_as_matmul:
        return [_conv_as_matmul(state, _filter_inputs(op, state), x_dims, w_dims, dims, (strides, dilations, pads))]
    properties = {**_window_properties(strides, dilations, pads), "group": IntegerAttr(group, i64)}
    return state.compute(hip.ConvOp, _filter_inputs(op, state), [(dims, state.element_type(op.operands[0]))], properties=properties)


@converts("ConvTranspose")
def convert_conv_transpose(op: Operation, state: ConversionState) -> list[Lowered]:
    x_dims, w_dims, kernel, group = _filters(op, state)
    spatial = len(x_dims) - 2
    padding = _ints(op.output_padding, [0] * spatial)  # type: ignore[attr-defined]
    output_shape = _ints(op.output_shape, [])  # type: ignore[attr-defined]
    if len(padding) != spatial or len(output_shape) not in (0, spatial):
        raise state.error(f"ConvTranspose over {spatial} spatial dims takes {spatial} output_padding and output_shape entries")
    strides, dilations, pads, auto_pad = _window_attributes(op, state, spatial, kernel)
    if auto_pad == "VALID":
        pads = [0] * len(pads)
    elif auto_pad != "NOTSET":
        # SAME: the pads follow from the output extents (x * stride unless output_shape says).
        extents = _static_extents(op, state, x_dims, auto_pad)
        targets = output_shape or [e * s for e, s in zip(extents, strides)]
        totals = [s * (e - 1) + p + shapes.pool_window(k, d) - t for e, s, p, k, d, t in zip(extents, strides, padding, kernel, dilations, targets)]
        if min(totals) < 0:
            raise state.error(f"ConvTranspose output extents {targets} are beyond what its input reaches")
        small, large = [t // 2 for t in totals], [t - t // 2 for t in totals]
        pads, output_shape = (small + large if auto_pad == "SAME_UPPER" else large + small), []
    dims = state.check(shapes.conv_transpose(state.emitter, x_dims, w_dims, strides, dilations, pads, padding, group, output_shape))
    dims = state.fit_to_declared(dims, op.results[0].type)
    properties = {
        **_window_properties(strides, dilations, pads), "group": IntegerAttr(group, i64),
        "output_padding": DenseArrayBase.from_list(i64, padding), "output_shape": DenseArrayBase.from_list(i64, output_shape),
    }  # fmt: skip
    return state.compute(hip.ConvTransposeOp, _filter_inputs(op, state), [(dims, state.element_type(op.operands[0]))], properties=properties)
