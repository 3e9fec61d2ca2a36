"""The resize family (templates/resize.hip.j2): hip.resize, one thread per output element.

Along each resized dim the output index maps to an input coordinate (the coordinate mode,
in float64 as ONNX's reference computes it), whose 1 (nearest), 2 (linear) or 4 (cubic)
neighbours, clamped into x, are read with their weights; an output element sums the
products of its dims' weights times x over every combination of taps, taps of weight 0
left out (0 times an infinite neighbour adds nothing). The mode, coordinate mode and each
dim's scale are compiled in; a dim resized to `sizes` takes its scale, O / D, at run time.

With antialias (linear and cubic), a downscaled dim takes a wider window of taps whose
count follows from its scale (`antialias_window`, compiled in).

Reference: the same taps and weights per dim in NumPy, summed in the same order in the
compute type."""

from __future__ import annotations

import itertools
import math
import zlib

import numpy as np

from xhip.dialects import hip
from xhip.dialects.hip.linalg import RESIZE_SUPPORT, RESIZE_TAPS
from xhip.kernels.abi import KernelABI, Launch
from xhip.kernels.family import OpFacts, Site, output_from_input_params, output_from_input_values
from xhip.kernels.reference import Elements, KernelCall, compute_dtype, register
from xhip.kernels.spec_types import KernelSpec, ctype, header_needs, kernel_name

TEMPLATES = ("resize",)


def _facts(props: object) -> dict[str, object]:
    """What the kernel compiles in, from hip.resize's properties (plain values)."""
    rank = len(props.scales)  # type: ignore[attr-defined]
    roi = [float(r) for r in props.roi] or [0.0] * rank + [1.0] * rank  # type: ignore[attr-defined]
    return {
        "mode": str(props.mode),  # type: ignore[attr-defined]
        "coordinate_mode": str(props.coordinate_mode),  # type: ignore[attr-defined]
        "nearest_mode": str(props.nearest_mode),  # type: ignore[attr-defined]
        "scales": tuple(float(s) for s in props.scales),  # type: ignore[attr-defined]
        "resized": tuple(bool(r) for r in props.resized),  # type: ignore[attr-defined]
        "roi_starts": tuple(roi[:rank]),
        "roi_ends": tuple(roi[rank:]),
        "cubic_coeff_a": float(props.cubic_coeff_a),  # type: ignore[attr-defined]
        "exclude_outside": bool(props.exclude_outside),  # type: ignore[attr-defined]
        "extrapolation_value": float(props.extrapolation_value),  # type: ignore[attr-defined]
        "antialias": bool(props.antialias),  # type: ignore[attr-defined]
    }


def antialias_window(mode: str, scale: float) -> tuple[int, int, float]:
    """(taps, first tap's offset from ceil(at) - 1, filter scale) of an antialiased dim: the
    filter widened by 1 / scale where it downscales (ONNX's reference)."""
    filter_scale = min(scale, 1.0)
    start = math.floor(-RESIZE_SUPPORT[mode] / filter_scale) + 1
    return 2 - 2 * start, start, filter_scale


def _dim_taps(compiled: dict[str, object]) -> list[tuple[int, int, float]]:
    """Per dim (taps, start, filter scale): the antialias window of a resized dim, else the mode's taps."""
    mode, plain = str(compiled["mode"]), (RESIZE_TAPS[str(compiled["mode"])], 0, 1.0)
    if not compiled["antialias"]:
        return [plain] * len(compiled["scales"])  # type: ignore[arg-type]
    return [antialias_window(mode, s) if r else plain for s, r in zip(compiled["scales"], compiled["resized"])]  # type: ignore[call-overload]


def resize_spec(facts: OpFacts) -> KernelSpec:
    x = facts.inputs[0]
    c, rank = ctype(x.dtype), x.rank
    compiled = _facts(facts.props)
    params = output_from_input_params(c.c, rank)
    mode, coordinate = str(compiled["mode"]), str(compiled["coordinate_mode"])
    tags = [mode, coordinate, c.short, f"r{rank}", "".join("r" if r else "k" for r in compiled["resized"])]  # type: ignore[attr-defined]
    if mode == "nearest":
        tags.append(str(compiled["nearest_mode"]))
    if compiled["antialias"]:
        tags.append("aa")
    # The float facts (scales, roi, A, the extrapolation value) by a digest: too many digits for a name.
    detail = (compiled["scales"], compiled["roi_starts"], compiled["roi_ends"], compiled["cubic_coeff_a"], compiled["exclude_outside"], compiled["extrapolation_value"])
    tags.append(f"{zlib.crc32(repr(detail).encode()):08x}")
    abi = KernelABI(kernel_name("resize", *tags), params, Launch.ELEMENTS)
    windows = _dim_taps(compiled)
    per_dim = (("dim_taps", [w[0] for w in windows]), ("dim_starts", [w[1] for w in windows]), ("filter_scales", [w[2] for w in windows]))
    context = (("rank", rank), ("c", c.c), ("compute", c.compute), ("taps", RESIZE_TAPS[mode]), *per_dim, *compiled.items())
    return KernelSpec("resize", abi, context, header_needs(x.dtype))


def site(facts: OpFacts) -> Site:
    return Site(facts, ((resize_spec(facts),),), output_from_input_values)


def coordinates(coordinate_mode: str, size: int, out: int, scale: float, roi: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    """Each output index's input coordinate along one dim (float64), and where it falls
    outside x (tf_crop_and_resize only)."""
    o = np.arange(out, dtype=np.float64)
    scale = scale or out / size
    width = scale * size  # the output extent as ONNX's reference has it: a float
    outside = np.zeros(out, bool)
    if coordinate_mode == "align_corners":
        at = np.zeros(out) if width == 1 else o * (size - 1) / (width - 1)
    elif coordinate_mode == "asymmetric":
        at = o / scale
    elif coordinate_mode == "tf_crop_and_resize":
        start, end = roi
        at = np.full(out, (end - start) * (size - 1) / 2) if width == 1 else o * (end - start) * (size - 1) / (width - 1)
        at = at + start * (size - 1)
        outside = (at < 0) | (at > size - 1)
    elif coordinate_mode == "pytorch_half_pixel":
        at = np.full(out, -0.5) if width == 1 else (o + 0.5) / scale - 0.5
    elif coordinate_mode == "half_pixel_symmetric":
        at = size / 2 * (1 - out / width) + (o + 0.5) / scale - 0.5
    elif coordinate_mode == "tf_half_pixel_for_nn":
        at = (o + 0.5) / scale
    else:  # half_pixel
        at = (o + 0.5) / scale - 0.5
    return at, outside


def _cubic_near(t: np.ndarray, a: float) -> np.ndarray:
    """The cubic-convolution filter at distance |t| <= 1."""
    return ((a + 2) * t - (a + 3)) * t * t + 1


def _cubic_far(t: np.ndarray, a: float) -> np.ndarray:
    """The cubic-convolution filter at distance 1 < |t| < 2."""
    return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a


def cubic_weights(r: np.ndarray, a: float) -> list[np.ndarray]:
    """The 4 cubic-convolution weights of neighbours floor - 1 .. floor + 2 at fraction r."""
    return [_cubic_far(r + 1, a), _cubic_near(r, a), _cubic_near(1 - r, a), _cubic_far(2 - r, a)]


def antialias_taps(mode: str, a: float, exclude_outside: bool, at: np.ndarray, size: int, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """`taps` of an antialiased dim (`antialias_window`): the window from ceil(at) - 1 + start,
    weights of the filter at filter_scale x distance, normalized."""
    count, start, filter_scale = antialias_window(mode, scale)
    base = np.ceil(at) - 1.0
    ratio = at - base
    offsets = np.arange(start, start + count, dtype=np.float64)
    t = np.abs(filter_scale * (offsets[None, :] - ratio[:, None]))
    if mode == "linear":
        w = np.clip(1.0 - t, 0.0, None)
    else:
        w = np.where(t <= 1.0, _cubic_near(t, a), np.where(t < 2.0, _cubic_far(t, a), 0.0))
    indices = base.astype(np.int64)[:, None] + np.arange(start, start + count)[None, :]
    if exclude_outside:
        w = w / w.sum(axis=1, keepdims=True)
        w = np.where((indices >= 0) & (indices < size), w, 0.0)
    return np.clip(indices, 0, size - 1), w / w.sum(axis=1, keepdims=True)


def taps(mode: str, nearest_mode: str, a: float, exclude_outside: bool, at: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """(indices, weights), each [out, taps]: the neighbours of each coordinate, clamped into x."""
    floor = np.floor(at)
    r = at - floor
    first = floor.astype(np.int64)
    if mode == "nearest":
        up = {"round_prefer_floor": r > 0.5, "round_prefer_ceil": r >= 0.5, "floor": np.zeros_like(r, bool), "ceil": r > 0}[nearest_mode]
        return np.clip(first + up, 0, size - 1)[:, None], np.ones((len(at), 1))
    if mode == "linear":
        offsets, weights = [0, 1], [1 - r, r]
    else:
        offsets, weights = [-1, 0, 1, 2], cubic_weights(r, a)
    indices = np.stack([first + k for k in offsets], axis=1)
    w = np.stack(weights, axis=1)
    if exclude_outside:
        w = np.where((indices >= 0) & (indices < size), w, 0.0)
        w = w / w.sum(axis=1, keepdims=True)
    return np.clip(indices, 0, size - 1), w


@register(hip.ResizeOp, elements=Elements.FLOAT)
def resize(call: KernelCall) -> None:
    """Per resized dim its taps and weights; then each combination of taps as one gather over
    every output element, weighted by the product of its dims' weights (float64, rounded to
    the compute type), summed in the kernel's order."""
    (x,) = call.inputs
    compiled = _facts(call.props)
    dtype = compute_dtype(call.out.dtype)
    x = x.astype(dtype, copy=False)
    out_shape = call.out.shape
    per_dim: list[tuple[np.ndarray, np.ndarray]] = []
    outside = np.zeros(out_shape, bool)
    for d, (size, out) in enumerate(zip(x.shape, out_shape)):
        if not compiled["resized"][d]:  # type: ignore[index]
            per_dim.append((np.arange(out)[:, None], np.ones((out, 1))))
            continue
        at, away = coordinates(str(compiled["coordinate_mode"]), size, out, compiled["scales"][d], (compiled["roi_starts"][d], compiled["roi_ends"][d]))  # type: ignore[index]
        outside |= away.reshape([-1 if e == d else 1 for e in range(len(out_shape))])
        if compiled["antialias"]:
            scale = float(compiled["scales"][d])  # type: ignore[index]
            per_dim.append(antialias_taps(str(compiled["mode"]), float(compiled["cubic_coeff_a"]), bool(compiled["exclude_outside"]), at, size, scale))  # type: ignore[arg-type]
            continue
        per_dim.append(taps(str(compiled["mode"]), str(compiled["nearest_mode"]), float(compiled["cubic_coeff_a"]), bool(compiled["exclude_outside"]), at, size))  # type: ignore[arg-type]
    acc = np.zeros(out_shape, dtype)
    with np.errstate(invalid="ignore", over="ignore"):
        for combination in itertools.product(*(range(w.shape[1]) for _, w in per_dim)):
            index = np.ix_(*[j[:, t] for (j, _), t in zip(per_dim, combination)])
            weight = np.ones(out_shape)
            for d, ((_, w), t) in enumerate(zip(per_dim, combination)):
                weight = weight * w[:, t].reshape([-1 if e == d else 1 for e in range(len(out_shape))])
            acc = acc + np.where(weight != 0, weight.astype(dtype) * x[index], dtype.type(0))
    call.store(call.out, np.where(outside, dtype.type(compiled["extrapolation_value"]), acc))
