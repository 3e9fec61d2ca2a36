"""The cumulative-sum family (templates/cumsum.hip.j2): CumSum along one axis, inclusive
or exclusive, forward or reversed, one thread per row.

Reference: NumPy's cumsum in x's dtype (integers wrap as on the device)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from xhip.dialects import hip
from xhip.kernels.abi import KernelABI, Launch, dims, index, pointer
from xhip.kernels.family import OpFacts, Site, Values, ViewLike, split_axes
from xhip.kernels.reference import Elements, KernelCall, compute_operands, register
from xhip.kernels.spec_types import KernelSpec, ctype, header_needs, kernel_name

TEMPLATES = ("cumsum",)


def cumsum_spec(facts: OpFacts) -> KernelSpec:
    x = facts.inputs[0]
    c, outer = ctype(x.dtype), x.rank - 1
    exclusive, reverse = bool(facts.props.exclusive), bool(facts.props.reverse)
    params = (
        index("rows"),
        dims("outer_extents", outer),
        index("length"),
        pointer("x", c.c),
        dims("x_outer_strides", outer),
        index("x_stride"),
        pointer("y", c.c, const=False),
        dims("y_outer_strides", outer),
        index("y_stride"),
    )
    name = kernel_name("cumsum", c.short, f"r{x.rank}") + ("_excl" if exclusive else "") + ("_rev" if reverse else "")
    abi = KernelABI(name, params, Launch.ELEMENTS, count="rows", may_alias_input=facts.op_class.MAY_ALIAS_INPUT)
    context = (("outer", outer), ("c", c.c), ("compute", c.compute), ("exclusive", exclusive), ("reverse", reverse))
    return KernelSpec("cumsum", abi, context, header_needs(x.dtype))


def site(facts: OpFacts) -> Site:
    axis_property = int(facts.props.axis)

    def values(ins: Sequence[ViewLike], outs: Sequence[ViewLike], scalars: Sequence[int | float]) -> list[Values]:
        x, y = ins[0], outs[0]
        axis = axis_property % max(len(x.shape), 1)
        outer, (length,) = split_axes(x.shape, [axis])
        (x_outer, (x_stride,)), (y_outer, (y_stride,)) = split_axes(x.strides, [axis]), split_axes(y.strides, [axis])
        return [{
            "rows": math.prod(outer), "outer_extents": outer, "length": length, "x": x.address, "x_outer_strides": x_outer,
            "x_stride": x_stride, "y": y.address, "y_outer_strides": y_outer, "y_stride": y_stride,
        }]  # fmt: skip

    return Site(facts, ((cumsum_spec(facts),),), values)


@register(hip.CumSumOp, elements=Elements.NUMERIC)
def cumsum(call: KernelCall) -> None:
    """Running sums along `axis`; `exclusive` shifts them by one element (the first is 0)
    and `reverse` runs them from the end, in x's dtype like onnxruntime."""
    (x,) = compute_operands(call, call.inputs)
    axis = call.axis(x.ndim)
    reverse, exclusive = bool(call.props.reverse), bool(call.props.exclusive)
    ordered = np.flip(x, axis) if reverse else x
    sums = np.cumsum(ordered, axis=axis, dtype=ordered.dtype)
    if exclusive:
        # Element i takes the sum of the elements before it: shift by one, 0 first.
        before = np.zeros_like(sums)
        lead = [slice(None)] * x.ndim
        lead[axis] = slice(1, None)
        trail = [slice(None)] * x.ndim
        trail[axis] = slice(None, -1)
        before[tuple(lead)] = sums[tuple(trail)]
        sums = before
    call.store(call.out, np.flip(sums, axis) if reverse else sums)
