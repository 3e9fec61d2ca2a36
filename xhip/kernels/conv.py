"""The convolution family: the direct Conv (templates/conv.hip.j2) and ConvTranspose
(templates/conv_transpose.hip.j2, the transpose as a gather) over 1 to 3 (or more) spatial
dims with groups, one thread per output element, the window's shape, strides, dilations and
pad begins compiled in, the channels per group counted at run time; and im2col
(templates/im2col.hip.j2), the columns that make a Conv of one group a GEMM (W [M, C * K]
times [N, C * K, O1 * ..]: cuBLAS or hipBLAS through hip.matmul), one thread per column
element, in 32-bit index arithmetic where every index fits.

A Conv whose operands are contiguous and whose pads are symmetric may run on the vendor DNN
library instead (`conv_call`: cuDNN on the cuda backend; a driver without one runs the
template).

Reference: per tap of the window, x gathered at every output position (Conv and im2col: the
strided window as the pooling family's, 0 outside x; ConvTranspose: the input position a tap
reaches, where the stride divides it); im2col stacks the taps, Conv and ConvTranspose contract
each with that tap of w over each group's channels (np.einsum), in the compute type, plus the
bias."""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np

from xhip.dialects import hip
from xhip.dtypes import HALF_DTYPES
from xhip.kernels.abi import ConvCall, KernelABI, Launch, dims, index, pointer
from xhip.kernels.family import LibraryRule, OpFacts, Site, Values, ViewLike, dense_strides
from xhip.kernels.pool import along, gather_at, inside_x, tap_positions, window_of
from xhip.kernels.reference import Elements, KernelCall, compute_operands, register
from xhip.kernels.spec_types import KernelSpec, ctype, header_needs, kernel_name

TEMPLATES = ("conv", "conv_transpose", "im2col")
NARROW = 1 << 31
"""Index values below this fit a 32-bit int (im2col's `narrow` launches)."""


def conv_spec(facts: OpFacts) -> KernelSpec:
    """templates/conv.hip.j2, or conv_transpose.hip.j2 for hip.conv_transpose (the same ABI)."""
    x, w = facts.inputs[0], facts.inputs[1]
    template = str(facts.op_class.TEMPLATE)
    c, rank = ctype(x.dtype), x.rank
    kernel = tuple(int(k) for k in w.shape[2:])  # type: ignore[arg-type]  # static: shapes.conv
    strides, dilations = (tuple(int(v) for v in getattr(facts.props, name)) for name in ("strides", "dilations"))
    begins = tuple(int(p) for p in facts.props.pads)[: rank - 2]
    bias = len(facts.inputs) == 3
    params = (
        index("n"), dims("extents", rank), pointer("y", c.c, const=False), dims("y_strides", rank),
        pointer("x", c.c), dims("x_extents", rank), dims("x_strides", rank), pointer("w", c.c), dims("w_strides", rank),
        *((pointer("b", c.c), index("b_stride")) if bias else ()), index("in_per_group"), index("out_per_group"),
    )  # fmt: skip
    shape = "_".join("x".join(map(str, values)) for values in (kernel, strides, dilations, begins))
    name = kernel_name(template, c.short, f"r{rank}", shape) + ("_bias" if bias else "")
    abi = KernelABI(name, params, Launch.ELEMENTS)
    context = (
        ("rank", rank), ("spatial", rank - 2), ("bias", bias), ("c_type", c.c), ("compute", c.compute),
        ("kernel", kernel), ("strides", strides), ("dilations", dilations), ("begins", begins),
    )  # fmt: skip
    return KernelSpec(template, abi, context, header_needs(x.dtype))


def windows(x_spatial: Sequence[int], window: dict[str, tuple[int, ...]]) -> tuple[int, ...]:
    """The output positions along each spatial dim of x: (x + begin + end - span) / stride + 1."""
    return tuple(
        (x + b + e - (k - 1) * d - 1) // s + 1
        for x, k, s, d, b, e in zip(x_spatial, *(window[key] for key in ("kernel", "strides", "dilations", "begins", "ends")))
    )


def im2col_spec(facts: OpFacts) -> KernelSpec:
    x = facts.inputs[0]
    c, rank = ctype(x.dtype), x.rank
    window = window_of(facts.props)
    params = (
        index("n"), index("narrow"), dims("windows", rank - 2), pointer("y", c.c, const=False), dims("y_strides", 3),
        pointer("x", c.c), dims("x_extents", rank), dims("x_strides", rank),
    )  # fmt: skip
    shape = "_".join("x".join(map(str, window[key])) for key in ("kernel", "strides", "dilations", "begins"))
    abi = KernelABI(kernel_name("im2col", c.short, f"r{rank}", shape), params, Launch.ELEMENTS)
    context = (("spatial", rank - 2), ("c", c.c), ("compute", c.compute), *window.items())
    return KernelSpec("im2col", abi, context, header_needs(x.dtype))


def _reach(view: ViewLike) -> int:
    """The largest element offset from a view's first element."""
    return sum([(extent - 1) * abs(stride) for extent, stride in zip(view.shape, view.strides) if extent > 0])


def _im2col_site(facts: OpFacts) -> Site:
    window = window_of(facts.props)

    def values(ins: Sequence[ViewLike], outs: Sequence[ViewLike], scalars: Sequence[int | float]) -> list[Values]:
        x, y = ins[0], outs[0]
        n = math.prod(y.shape)
        narrow = n < NARROW and _reach(x) < NARROW and _reach(y) < NARROW
        return [{
            "n": n, "narrow": int(narrow), "windows": windows(x.shape[2:], window), "y": y.address, "y_strides": y.strides,
            "x": x.address, "x_extents": x.shape, "x_strides": x.strides,
        }]  # fmt: skip

    return Site(facts, ((im2col_spec(facts),),), values)


DNN_DTYPES = frozenset({np.dtype(np.float32), np.dtype(np.float64), *HALF_DTYPES})
"""The element types a DNN library's convolution takes (in float32 arithmetic for half)."""


def conv_call(values: Values, w_shape: tuple[int, ...], pads: tuple[int, ...], strides: tuple[int, ...],
              dilations: tuple[int, ...], group: int, dtype: np.dtype) -> ConvCall | None:  # fmt: skip
    """A Conv launch's values as a DNN library call, or None where the library cannot take
    it: an operand that is not dense, or pads whose begin and end differ (cuDNN pads both
    sides alike). (A trace asks it of symbolic extents and addresses: they stay as given.)"""
    x_shape, y_shape = tuple(values["x_extents"]), tuple(values["extents"])  # type: ignore[arg-type]
    spatial = len(x_shape) - 2
    if pads[:spatial] != pads[spatial:] or 0 in x_shape or 0 in y_shape:
        return None
    for shape, given in ((x_shape, values["x_strides"]), (w_shape, values["w_strides"]), (y_shape, values["y_strides"])):
        if tuple(given) != dense_strides(shape):  # type: ignore[arg-type]
            return None
    if "b" in values and values["b_stride"] != 1:
        return None
    return ConvCall(
        x_shape, w_shape, y_shape, pads[:spatial], strides, dilations, group, dtype,
        values.get("b", 0), values["x"], values["w"], values["y"],  # type: ignore[arg-type]
    )  # fmt: skip


def _library(facts: OpFacts) -> LibraryRule | None:
    """The DNN library's rule for a Conv of float operands and a weight of fixed extents
    (None for ConvTranspose)."""
    dtype, w_shape = facts.inputs[0].dtype, facts.inputs[1].shape
    if facts.op_class is not hip.ConvOp or dtype not in DNN_DTYPES or facts.outputs[0].dtype != dtype or None in w_shape:
        return None  # (a weight of run-time extents is no model's: the kernel takes it)
    props = facts.props
    call = functools.partial(
        conv_call, w_shape=tuple(int(e) for e in w_shape),  # type: ignore[arg-type]  # checked above
        pads=tuple(int(p) for p in props.pads), strides=tuple(int(v) for v in props.strides),
        dilations=tuple(int(v) for v in props.dilations), group=int(props.group), dtype=dtype,
    )  # fmt: skip
    return LibraryRule("dnn", call)


def site(facts: OpFacts) -> Site:
    if facts.op_class is hip.Im2ColOp:
        return _im2col_site(facts)
    group = int(facts.props.group)
    # Conv's w is [M, C / group, ..]; ConvTranspose's [C, M / group, ..].
    transposed = facts.op_class is hip.ConvTransposeOp

    def values(ins: Sequence[ViewLike], outs: Sequence[ViewLike], scalars: Sequence[int | float]) -> list[Values]:
        x, w, y = ins[0], ins[1], outs[0]
        bias = {"b": ins[2].address, "b_stride": ins[2].strides[0]} if len(ins) == 3 else {}
        return [{
            "n": math.prod(y.shape), "extents": y.shape, "y": y.address, "y_strides": y.strides,
            "x": x.address, "x_extents": x.shape, "x_strides": x.strides, "w": w.address, "w_strides": w.strides,
            **bias, "in_per_group": w.shape[0] // group if transposed else w.shape[1],
            "out_per_group": w.shape[1] if transposed else max(w.shape[0] // group, 1),
        }]  # fmt: skip

    return Site(facts, ((conv_spec(facts),),), values, library=_library(facts))


@register(hip.Im2ColOp, elements=Elements.FLOAT)
def im2col(call: KernelCall) -> None:
    """Per tap (row-major over the kernel): x at that tap of every output position, 0 outside
    x; the taps stacked after the channel dim, then rows and positions flattened."""
    (x,) = call.inputs
    window = window_of(call.props)
    out_spatial = windows(x.shape[2:], window)
    taps = []
    for tap in np.ndindex(*window["kernel"]):
        positions = tap_positions(out_spatial, window["strides"], window["begins"], tap, window["dilations"])
        taps.append(np.where(inside_x(positions, x.shape[2:]), gather_at(x, positions), 0).astype(x.dtype, copy=False))
    call.store(call.out, np.stack(taps, axis=2).reshape(call.out.shape))


@register(hip.ConvOp, inputs=(2, 3), elements=Elements.FLOAT)
def conv(call: KernelCall) -> None:
    """Per tap: x at that tap of every output position (0 outside x) times w's tap, summed
    over each group's channels; then the bias."""
    x, w, *bias = compute_operands(call, call.inputs)
    group = int(call.props.group)
    out_spatial, x_spatial = call.out.shape[2:], x.shape[2:]
    n, m = call.out.shape[:2]
    per_group = w.shape[1]
    begins = [int(p) for p in call.props.pads][: len(x_spatial)]
    strides, dilations = ([int(v) for v in getattr(call.props, name)] for name in ("strides", "dilations"))
    acc = np.zeros((n, group, m // group, *out_spatial), x.dtype)
    for tap in np.ndindex(*w.shape[2:]):
        positions = tap_positions(out_spatial, strides, begins, tap, dilations)
        gathered = np.where(inside_x(positions, x_spatial), gather_at(x, positions), 0).reshape(n, group, per_group, *out_spatial)
        filters = w[(slice(None), slice(None), *tap)].reshape(group, m // group, per_group)
        acc += np.einsum("ngc...,gmc->ngm...", gathered, filters)
    out = acc.reshape(n, m, *out_spatial)
    if bias:
        out = out + bias[0].reshape(m, *([1] * len(out_spatial)))
    call.store(call.out, out)


@register(hip.ConvTransposeOp, inputs=(2, 3), elements=Elements.FLOAT)
def conv_transpose(call: KernelCall) -> None:
    """Per tap: at every output position the input position t / stride it reaches (where the
    stride divides t = o + begin - k * dilation and the position is inside x), that x times
    w's tap, summed over each group's input channels; then the bias."""
    x, w, *bias = compute_operands(call, call.inputs)
    group = int(call.props.group)
    out_spatial, x_spatial = call.out.shape[2:], x.shape[2:]
    n, m = call.out.shape[:2]
    per_group = x.shape[1] // group
    begins = [int(p) for p in call.props.pads][: len(x_spatial)]
    strides, dilations = ([int(v) for v in getattr(call.props, name)] for name in ("strides", "dilations"))
    acc = np.zeros((n, group, m // group, *out_spatial), x.dtype)
    for tap in np.ndindex(*w.shape[2:]):
        reach = [np.arange(o) + b - k * d for o, b, k, d in zip(out_spatial, begins, tap, dilations)]
        positions = [t // s for t, s in zip(reach, strides)]
        divides = functools.reduce(np.logical_and, [along(t % s == 0, dim, len(reach)) for dim, (t, s) in enumerate(zip(reach, strides))])
        inside = divides & inside_x(positions, x_spatial)
        gathered = np.where(inside, gather_at(x, positions), 0).reshape(n, group, per_group, *out_spatial)
        filters = w[(slice(None), slice(None), *tap)].reshape(group, per_group, m // group)
        acc += np.einsum("ngc...,gcm->ngm...", gathered, filters)
    out = acc.reshape(n, m, *out_spatial)
    if bias:
        out = out + bias[0].reshape(m, *([1] * len(out_spatial)))
    call.store(call.out, out)
