"""Window ops: MaxPool and AveragePool as hip.pool, Conv as hip.conv, over pads made explicit.

`auto_pad` is resolved here: VALID pads nothing, SAME_UPPER / SAME_LOWER pad so that each
output extent is ceil(x / stride) (static spatial extents and no dilation only: the ONNX
reference and onnxruntime disagree on dilated SAME windows); NOTSET takes `pads`. The
output extents follow `shapes.pool` / `shapes.conv`. MaxPool's optional Indices output is
refused; Conv's kernel extents (W's) must be static.
"""

from __future__ import annotations

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, StringAttr, i64
from xdsl.ir import Attribute, Operation

from xhip import shapes
from xhip.dialects import hip
from xhip.dialects.onnx import is_none
from xhip.rewrite_rules.onnx_to_hip.registry import converts
from xhip.rewrite_rules.onnx_to_hip.state import ConversionState, Lowered

AUTO_PADS = ("NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER")
POOL_KINDS = {"onnx.MaxPool": "max", "onnx.AveragePool": "average"}
"""hip.pool's kind of each ONNX pooling op."""


def _ints(attribute: object, default: list[int]) -> list[int]:
    return list(attribute.data) if attribute is not None else default  # type: ignore[attr-defined]


def _explicit_window(op: Operation, state: ConversionState, x_dims: list, kernel: list[int]) -> tuple[list[int], list[int], list[int]]:
    """The op's strides, dilations and pads (defaults filled in, auto_pad resolved), checked."""
    name = op.name.removeprefix("onnx.")
    spatial = len(x_dims) - 2
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
    if auto_pad == "VALID":
        pads = [0] * (2 * spatial)
    elif auto_pad != "NOTSET":
        extents = x_dims[2:]
        if not all(isinstance(e, int) for e in extents):
            raise state.error(f"{name} auto_pad {auto_pad} needs static spatial extents")
        if max(dilations) > 1:  # the ONNX reference and onnxruntime size these windows differently
            raise state.error(f"{name} auto_pad {auto_pad} with dilations {dilations} is not supported")
        pads = shapes.same_pool_pads(auto_pad, extents, kernel, strides, dilations)
    return strides, dilations, pads


def _window_properties(strides: list[int], dilations: list[int], pads: list[int]) -> dict[str, Attribute]:
    return {name: DenseArrayBase.from_list(i64, values) for name, values in (("strides", strides), ("dilations", dilations), ("pads", pads))}


@converts("MaxPool", "AveragePool")
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
        "kind": StringAttr(POOL_KINDS[op.name]), "kernel_shape": DenseArrayBase.from_list(i64, kernel),
        **_window_properties(strides, dilations, pads),
        "ceil_mode": IntegerAttr.from_bool(ceil_mode), "count_include_pad": IntegerAttr.from_bool(include_pad),
    }  # fmt: skip
    lowered = state.compute(hip.PoolOp, [state.tensor(x)], [(dims, state.element_type(x))], properties=properties)
    return lowered + [Lowered(dims, i64)] * (len(op.results) - 1)  # an unused Indices: no tensor


@converts("Conv")
def convert_conv(op: Operation, state: ConversionState) -> list[Lowered]:
    x, w, b = op.operands
    x_dims, w_dims = state.dims(x), state.dims(w)
    if len(x_dims) < 3 or len(w_dims) != len(x_dims):
        raise state.error(f"Conv needs X of rank 3 or more and W of the same rank, got ranks {len(x_dims)} and {len(w_dims)}")
    kernel = [k for k in w_dims[2:] if isinstance(k, int)]
    if len(kernel) != len(w_dims) - 2:
        raise state.error("Conv's kernel extents (W's dims 2 and on) must be static")
    declared = _ints(op.kernel_shape, kernel)  # type: ignore[attr-defined]
    if declared != kernel:
        raise state.error(f"Conv kernel_shape {declared} differs from W's kernel extents {kernel}")
    strides, dilations, pads = _explicit_window(op, state, x_dims, kernel)
    group = int(op.group.value.data)  # type: ignore[attr-defined]
    if group < 1:
        raise state.error(f"Conv group must be positive, got {group}")
    dims = state.fit_to_declared(state.check(shapes.conv(state.emitter, x_dims, w_dims, strides, dilations, pads, group)), op.results[0].type)
    inputs = [state.tensor(x), state.tensor(w)] + ([] if is_none(b) else [state.tensor(b)])
    properties = {**_window_properties(strides, dilations, pads), "group": IntegerAttr(group, i64)}
    return state.compute(hip.ConvOp, inputs, [(dims, state.element_type(x))], properties=properties)
