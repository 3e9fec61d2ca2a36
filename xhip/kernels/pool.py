"""The window-pooling family (templates/pool.hip.j2): MaxPool, AveragePool and LpPool over 1 to 3
(or more) spatial dims, one thread per output element, the window's shape, strides,
dilations and pads compiled in.

Reference: NumPy over every window position at once (a strided view per tap), the same
arithmetic as the kernel: a max over the taps inside x, or a float sum divided by the
taps inside x (inside its padded extent with count_include_pad), or the p-th root of the
sum of |x|^p."""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence

import numpy as np

from xhip.dialects import hip
from xhip.kernels.abi import KernelABI, Launch
from xhip.kernels.family import OpFacts, Site, output_from_input_params, output_from_input_values
from xhip.kernels.reference import Elements, KernelCall, compute_operands, register
from xhip.kernels.spec_types import KernelSpec, ctype, header_needs, kernel_name

TEMPLATES = ("pool",)


def window_of(props: object) -> dict[str, tuple[int, ...]]:
    """The window's compile-time facts: kernel extents, strides, dilations, pad begins and ends."""
    pads = tuple(int(p) for p in props.pads)  # type: ignore[attr-defined]
    spatial = len(pads) // 2
    return {
        "kernel": tuple(int(k) for k in props.kernel_shape),  # type: ignore[attr-defined]
        "strides": tuple(int(s) for s in props.strides),  # type: ignore[attr-defined]
        "dilations": tuple(int(d) for d in props.dilations),  # type: ignore[attr-defined]
        "begins": pads[:spatial],
        "ends": pads[spatial:],
    }


def pool_spec(facts: OpFacts) -> KernelSpec:
    x = facts.inputs[0]
    c, rank = ctype(x.dtype), x.rank
    kind, include_pad = str(facts.props.kind), bool(facts.props.count_include_pad)
    window = window_of(facts.props)
    params = output_from_input_params(c.c, rank)
    shape = "_".join("x".join(map(str, window[key])) for key in ("kernel", "strides", "dilations", "begins", "ends"))
    power = int(facts.props.p) if kind == "lp" else 0
    name = kernel_name("pool", kind, c.short, f"r{rank}", shape) + ("_incl" if include_pad and kind == "average" else "") + (f"_p{power}" if power else "")
    abi = KernelABI(name, params, Launch.ELEMENTS)
    context = (
        ("rank", rank), ("spatial", rank - 2), ("kind", kind), ("count_include_pad", include_pad), ("p", power),
        ("c", c.c), ("compute", c.compute), *window.items(),
    )  # fmt: skip
    return KernelSpec("pool", abi, context, header_needs(x.dtype))


def site(facts: OpFacts) -> Site:
    return Site(facts, ((pool_spec(facts),),), output_from_input_values)


def along(values: np.ndarray, dim: int, spatial: int) -> np.ndarray:
    """A vector over spatial dim `dim`, shaped to broadcast against the other spatial dims."""
    return values.reshape([-1 if d == dim else 1 for d in range(spatial)])


def tap_positions(out_spatial: Sequence[int], strides: Sequence[int], begins: Sequence[int], tap: Sequence[int], dilations: Sequence[int]) -> list[np.ndarray]:
    """Along each spatial dim, the x index of window tap `tap` at every output position."""
    return [np.arange(o) * s - b + k * d for o, s, b, k, d in zip(out_spatial, strides, begins, tap, dilations)]


def inside_x(positions: Sequence[np.ndarray], x_spatial: Sequence[int]) -> np.ndarray:
    """Whether the x index of every spatial dim (`positions`, one vector per dim) is inside x,
    broadcast over the output positions."""
    spatial = len(positions)
    return functools.reduce(np.logical_and, [along((p >= 0) & (p < e), d, spatial) for d, (p, e) in enumerate(zip(positions, x_spatial))])


def gather_at(x: np.ndarray, positions: Sequence[np.ndarray]) -> np.ndarray:
    """x [N, C, ..] at these spatial indices (clipped into x: mask the outside ones)."""
    clipped = [np.clip(p, 0, e - 1) for p, e in zip(positions, x.shape[2:])]
    return x[(slice(None), slice(None), *np.ix_(*clipped))]


@register(hip.PoolOp, elements=Elements.NUMERIC)
def pool(call: KernelCall) -> None:
    """Each tap of the window as one gather over every output position: a max over the taps
    inside x, or their sum in the compute type over the count of taps inside x (inside its
    padded extent with count_include_pad)."""
    (x,) = compute_operands(call, call.inputs)
    window = window_of(call.props)
    out_spatial, x_spatial = call.out.shape[2:], x.shape[2:]
    spatial = len(out_spatial)
    kind = str(call.props.kind)
    maximum = kind == "max"
    if kind == "lp":  # the mean's sum, of |x|^p
        x = np.abs(x) ** int(call.props.p)
    lowest = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    acc = np.full(call.out.shape, lowest, x.dtype) if maximum else np.zeros(call.out.shape, x.dtype)
    taps = np.zeros(out_spatial, np.int64)
    for tap in itertools.product(*(range(k) for k in window["kernel"])):
        positions = tap_positions(out_spatial, window["strides"], window["begins"], tap, window["dilations"])
        inside = inside_x(positions, x_spatial)
        if call.props.count_include_pad:
            padded = [along(p < e + end, d, spatial) for d, (p, e, end) in enumerate(zip(positions, x_spatial, window["ends"]))]
            taps = taps + functools.reduce(np.logical_and, padded)
        else:
            taps = taps + inside
        gathered = gather_at(x, positions)
        acc = np.where(inside, np.maximum(acc, gathered), acc) if maximum else acc + np.where(inside, gathered, 0)
    if maximum:
        call.store(call.out, acc)
        return
    if kind == "lp":
        call.store(call.out, acc ** (1.0 / int(call.props.p)))
        return
    with np.errstate(invalid="ignore", divide="ignore"):  # no tap inside: 0 / 0, as the kernel
        call.store(call.out, acc / taps.astype(acc.dtype))
