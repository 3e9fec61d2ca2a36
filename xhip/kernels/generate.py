"""The generator family (templates/generate.hip.j2): Range (`y[i] = start + i * delta`,
rank 1) and fill (every element one host scalar), from host scalars, no inputs."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from xhip.dialects import hip
from xhip.kernels.abi import KernelABI, Launch, Param, dims, index, pointer, value
from xhip.kernels.family import OpFacts, Site, Values, ViewLike
from xhip.kernels.reference import Elements, KernelCall, compute_dtype, register, shape_text
from xhip.kernels.spec_types import KernelSpec, ctype, header_needs, kernel_name

TEMPLATES = ("generate",)


def generate_spec(facts: OpFacts) -> KernelSpec:
    out = facts.outputs[0]
    c = ctype(out.dtype)
    if facts.op_class is hip.RangeOp:
        params: tuple[Param, ...] = (index("n"), pointer("y", c.c, const=False), index("y_stride"), value("start", c.compute), value("delta", c.compute))
        op, name = "range", kernel_name("range", c.short)
    else:
        params = (index("n"), dims("extents", out.rank), pointer("y", c.c, const=False), dims("y_strides", out.rank), value("value", c.compute))
        op, name = "fill", kernel_name("fill", c.short, f"r{out.rank}")
    context = (("op", op), ("rank", out.rank), ("c", c.c))
    return KernelSpec("generate", KernelABI(name, params, Launch.ELEMENTS), context, header_needs(out.dtype))


def values(ins: Sequence[ViewLike], outs: Sequence[ViewLike], scalars: Sequence[int | float]) -> list[Values]:
    y = outs[0]
    result: Values = {"n": math.prod(y.shape), "extents": y.shape, "y": y.address, "y_strides": y.strides}
    if len(scalars) == 2:
        result.update(start=scalars[0], delta=scalars[1], y_stride=y.strides[0])
    else:
        result["value"] = scalars[0]
    return [result]


def site(facts: OpFacts) -> Site:
    return Site(facts, ((generate_spec(facts),),), values)


@register(hip.RangeOp, inputs=(0, 0), scalars=(2, 2), elements=Elements.NUMERIC)
def range_(call: KernelCall) -> None:
    """`y[i] = start + i * delta` in the output dtype (not a running sum, so no drift)."""
    out = call.out
    if out.ndim != 1:
        raise call.error(f"output must have rank 1, got {shape_text(out.shape)}")
    dtype = compute_dtype(out.dtype)
    start, delta = (dtype.type(s) for s in call.scalars)
    call.store(out, start + np.arange(out.shape[0], dtype=dtype) * delta)


@register(hip.FillOp, inputs=(0, 0), scalars=(1, 1))
def fill(call: KernelCall) -> None:
    call.store(call.out, np.asarray(call.scalars[0]).astype(call.out.dtype), broadcast=True)
