"""MaxPool and AveragePool: hip.pool over pads made explicit.

`auto_pad` is resolved here: VALID pads nothing, SAME_UPPER / SAME_LOWER pad so that each
output extent is ceil(x / stride) (static spatial extents and no dilation only: the ONNX
reference and onnxruntime disagree on dilated SAME windows); NOTSET takes `pads`. The
output extents follow `shapes.pool`. MaxPool's optional Indices output is refused.
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


@converts("MaxPool", "AveragePool")
def convert_window_pool(op: Operation, state: ConversionState) -> list[Lowered]:
    x = op.operands[0]
    kind_name = op.name.removeprefix("onnx.")
    if len(op.results) > 1 and not is_none(op.results[1]) and op.results[1].uses:
        raise state.error("MaxPool's Indices output is not supported")
    x_dims = state.dims(x)
    spatial = len(x_dims) - 2
    if spatial < 1:
        raise state.error(f"{kind_name} needs an input of rank 3 or more ([N, C, D1, ...]), got rank {len(x_dims)}")
    kernel = _ints(op.kernel_shape, [])  # type: ignore[attr-defined]
    strides = _ints(op.strides, [1] * spatial)  # type: ignore[attr-defined]
    dilations = _ints(op.dilations, [1] * spatial)  # type: ignore[attr-defined]
    pads = _ints(op.pads, [0] * (2 * spatial))  # type: ignore[attr-defined]
    if not len(kernel) == len(strides) == len(dilations) == spatial or len(pads) != 2 * spatial:
        raise state.error(f"{kind_name} over {spatial} spatial dims takes {spatial} kernel_shape, strides and dilations entries and {2 * spatial} pads")
    if min(kernel + strides + dilations) < 1 or min(pads) < 0:
        raise state.error(f"{kind_name} kernel_shape, strides and dilations must be positive and pads not negative")
    auto_pad = op.auto_pad.data  # type: ignore[attr-defined]
    if auto_pad not in AUTO_PADS:
        raise state.error(f"{kind_name} auto_pad \"{auto_pad}\" is not one of {', '.join(AUTO_PADS)}")
    if auto_pad == "VALID":
        pads = [0] * (2 * spatial)
    elif auto_pad != "NOTSET":
        extents = x_dims[2:]
        if not all(isinstance(e, int) for e in extents):
            raise state.error(f"{kind_name} auto_pad {auto_pad} needs static spatial extents")
        if max(dilations) > 1:  # the ONNX reference and onnxruntime size these windows differently
            raise state.error(f"{kind_name} auto_pad {auto_pad} with dilations {dilations} is not supported")
        pads = shapes.same_pool_pads(auto_pad, extents, kernel, strides, dilations)  # type: ignore[arg-type]
    ceil_mode = bool(op.ceil_mode.value.data)  # type: ignore[attr-defined]
    dims = state.fit_to_declared(state.check(shapes.pool(state.emitter, x_dims, kernel, strides, dilations, pads, ceil_mode)), op.results[0].type)
    include_pad = bool(op.count_include_pad.value.data) if op.name == "onnx.AveragePool" else False  # type: ignore[attr-defined]
    properties: dict[str, Attribute] = {
        "kind": StringAttr(POOL_KINDS[op.name]),
        **{name: DenseArrayBase.from_list(i64, values) for name, values in (("kernel_shape", kernel), ("strides", strides), ("dilations", dilations), ("pads", pads))},
        "ceil_mode": IntegerAttr.from_bool(ceil_mode), "count_include_pad": IntegerAttr.from_bool(include_pad),
    }  # fmt: skip
    lowered = state.compute(hip.PoolOp, [state.tensor(x)], [(dims, state.element_type(x))], properties=properties)
    return lowered + [Lowered(dims, i64)] * (len(op.results) - 1)  # an unused Indices: no tensor
