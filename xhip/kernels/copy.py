"""The copy family (templates/copy.hip.j2): transpose, slice, concat, split, expand and
trilu as strided copies `y[i] = x[i]`, each side with its own strides.

One kernel per element size serves every dtype (bits are copied). A transpose is x read
through permuted strides, an expand x's strides with 0 where it broadcasts, a slice x from
its start by its steps; concat writes each input into a window of its output, split reads
a window of its input per output; trilu keeps one side of a diagonal and writes 0 bits on
the other.

Reference: NumPy copies of the same windows; elements move, never change.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from xhip.dialects import hip
from xhip.dialects.hip.properties import properties_for
from xhip.kernels.abi import KernelABI, Launch, dims, index, pointer, value
from xhip.kernels.family import OpFacts, Site, Values, View, ViewLike, broadcast_strides
from xhip.kernels.reference import KernelCall, register, shape_text
from xhip.kernels.spec_types import UNSIGNED_OF_SIZE, KernelSpec, Operand, kernel_name

TEMPLATES = ("copy", "pad")


def copy_spec(itemsize: int, rank: int, out_contiguous: bool, triangle: str | None = None) -> KernelSpec:
    """`y[i] = x[i]` for every index i of the extents. `triangle` ("upper" or "lower",
    Trilu) keeps only the elements on that side of diagonal `k` of each matrix (the last
    two dims) and writes 0 bits elsewhere."""
    bits = UNSIGNED_OF_SIZE[itemsize]
    params = [index("n"), dims("extents", rank), pointer("x", bits), dims("x_strides", rank), pointer("y", bits, const=False)]
    if not out_contiguous:
        params.append(dims("y_strides", rank))
    if triangle:
        params.append(value("k", "long long"))
    tags = ("oc" if out_contiguous else "os", *([f"tri{triangle[0]}"] if triangle else []))
    name = kernel_name("copy", f"b{itemsize}", f"r{rank}", *tags)
    abi = KernelABI(name, tuple(params), Launch.ELEMENTS)
    return KernelSpec("copy", abi, (("rank", rank), ("c", bits), ("out_contiguous", out_contiguous), ("triangle", triangle)))


def copy_specs(facts: OpFacts) -> list[KernelSpec]:
    """One copy per piece: concat writes each input into a window of its output (never
    contiguous when there are several), split reads a window of its input per output."""
    ins, outs = facts.inputs, facts.outputs
    itemsize = outs[0].dtype.itemsize
    if facts.op_class is hip.ConcatOp:
        return [copy_spec(itemsize, outs[0].rank, outs[0].contiguous and len(ins) == 1) for _ in ins]
    if facts.op_class is hip.TriluOp:
        triangle = "upper" if int(facts.props.upper) else "lower"
        return [copy_spec(itemsize, outs[0].rank, outs[0].contiguous, triangle)]
    return [copy_spec(itemsize, out.rank, out.contiguous) for out in outs]


def copy_values(x: ViewLike, y: ViewLike, x_strides: Sequence[int] | None = None) -> Values:
    """`y[i] = x[i]` over y's extents; `x_strides` (default x's own) says where x[i] is."""
    strides = x.strides if x_strides is None else tuple(x_strides)
    return {"n": math.prod(y.shape), "extents": y.shape, "x": x.address, "x_strides": strides, "y": y.address, "y_strides": y.strides}


def _pieces(whole: ViewLike, parts: Sequence[ViewLike], axis: int) -> list[View]:
    """The windows of `whole` that `parts` cover, end to end along `axis`."""
    windows, start = [], 0
    itemsize = np.dtype(whole.dtype).itemsize
    for part in parts:
        windows.append(View(whole.address + start * whole.strides[axis] * itemsize, whole.dtype, part.shape, whole.strides))
        start += part.shape[axis]
    return windows


Launches = Callable[[Sequence[ViewLike], Sequence[ViewLike], Sequence[int | float]], list[Values]]


def _values(facts: OpFacts) -> Launches:
    """The launch values of one movement op (its class decides how x is read)."""
    op_class, props = facts.op_class, facts.props
    if op_class is hip.TransposeOp:
        perm = tuple(props.perm)
        return lambda ins, outs, scalars: [copy_values(ins[0], outs[0], [ins[0].strides[p] for p in perm])]
    if op_class is hip.ExpandOp:
        return lambda ins, outs, scalars: [copy_values(ins[0], outs[0], broadcast_strides(ins[0], outs[0].shape))]
    if op_class is hip.TriluOp:
        return lambda ins, outs, scalars: [{**copy_values(ins[0], outs[0]), "k": int(scalars[0])}]
    if op_class is hip.SliceOp:
        return _slice_values
    if op_class is hip.ConcatOp:
        axis = int(props.axis)
        return lambda ins, outs, scalars: [
            copy_values(part, window) for part, window in zip(ins, _pieces(outs[0], ins, axis % max(len(outs[0].shape), 1)))
        ]
    if op_class is hip.SplitOp:
        axis = int(props.axis)
        return lambda ins, outs, scalars: [
            copy_values(window, part) for part, window in zip(outs, _pieces(ins[0], outs, axis % max(len(ins[0].shape), 1)))
        ]
    raise ValueError(f"'{op_class.name}' is no copy")


def _slice_values(ins: Sequence[ViewLike], outs: Sequence[ViewLike], scalars: Sequence[int | float]) -> list[Values]:
    x = ins[0]
    rank = len(x.shape)
    starts, steps = scalars[:rank], scalars[rank:]
    itemsize = np.dtype(x.dtype).itemsize
    origin = x.address + sum(int(s) * st for s, st in zip(starts, x.strides)) * itemsize
    return [copy_values(View(origin, x.dtype, x.shape, x.strides), outs[0], [s * int(k) for s, k in zip(x.strides, steps)])]


def site(facts: OpFacts) -> Site:
    if facts.op_class is hip.PadOp:
        return _pad_site(facts)
    return Site(facts, (tuple(copy_specs(facts)),), _values(facts))


def pad_spec(itemsize: int, rank: int, mode: str) -> KernelSpec:
    """templates/pad.hip.j2: y over its extents from x shifted by `begins`, per `mode`."""
    bits = UNSIGNED_OF_SIZE[itemsize]
    params = (
        index("n"), dims("extents", rank), pointer("y", bits, const=False), dims("y_strides", rank),
        pointer("x", bits), dims("x_extents", rank), dims("x_strides", rank), dims("begins", rank), value("fill", bits),
    )  # fmt: skip
    abi = KernelABI(kernel_name("pad", mode, f"b{itemsize}", f"r{rank}"), params, Launch.ELEMENTS)
    return KernelSpec("pad", abi, (("rank", rank), ("mode", mode)))


def _pad_site(facts: OpFacts) -> Site:
    x, y = facts.inputs[0], facts.outputs[0]
    pads, mode = [int(p) for p in facts.props.pads], str(facts.props.mode)
    begins = tuple(pads[: x.rank])
    # The fill's bits, as the kernel writes them (a float fill rounded to the element type).
    fill = int(np.array(float(facts.props.value)).astype(y.dtype).reshape(1).view(f"u{y.dtype.itemsize}")[0])

    def values(ins: Sequence[ViewLike], outs: Sequence[ViewLike], scalars: Sequence[int | float]) -> list[Values]:
        source, target = ins[0], outs[0]
        return [{
            "n": math.prod(target.shape), "extents": target.shape, "y": target.address, "y_strides": target.strides,
            "x": source.address, "x_extents": source.shape, "x_strides": source.strides, "begins": begins, "fill": fill,
        }]  # fmt: skip

    return Site(facts, ((pad_spec(y.dtype.itemsize, y.rank, mode),),), values)


def copy_site(source: Operand, target: Operand) -> Site:
    """A copy between two views of these layouts (of one shape): a transpose by the identity
    permutation. What a backend launches for a device copy that is not one run of bytes."""
    identity = tuple(range(source.rank))
    return site(OpFacts(hip.TransposeOp, properties_for(hip.TransposeOp, {"perm": identity}), (source,), (target,)))


# ---- reference ----------------------------------------------------------------------------


def _same_dtype(call: KernelCall, arrays: Sequence[np.ndarray], what: str) -> None:
    for i, array in enumerate(arrays):
        call.require_dtype(array, call.out.dtype, f"{what} #{i}")


@register(hip.TransposeOp)
def transpose(call: KernelCall) -> None:
    x = call.inputs[0]
    _same_dtype(call, [x], "input")
    perm = [int(p) for p in call.props.perm]
    if sorted(perm) != list(range(x.ndim)):
        raise call.error(f"perm {perm} is not a permutation of the input rank {x.ndim}")
    call.store(call.out, np.transpose(x, perm))


def _windows(call: KernelCall, whole: np.ndarray, parts: Sequence[np.ndarray]) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """(part, the view of `whole` it covers) for parts laid end to end along `axis`."""
    axis = call.axis(whole.ndim)
    extents = [part.shape[axis] if part.ndim == whole.ndim else -1 for part in parts]
    rest = whole.shape[:axis] + whole.shape[axis + 1 :]
    for i, part in enumerate(parts):
        if part.ndim != whole.ndim or part.shape[:axis] + part.shape[axis + 1 :] != rest:
            raise call.error(
                f"part #{i} of shape {shape_text(part.shape)} does not fit "
                f"{shape_text(whole.shape)} along axis {axis}"
            )
    if sum(extents) != whole.shape[axis]:
        raise call.error(
            f"parts of extents {extents} along axis {axis} do not add up to {whole.shape[axis]}"
        )
    start = 0
    for part, extent in zip(parts, extents):
        window = (slice(None),) * axis + (slice(start, start + extent),)
        yield part, whole[window]
        start += extent


@register(hip.ConcatOp, inputs=(1, None))
def concat(call: KernelCall) -> None:
    _same_dtype(call, call.inputs, "input")
    for part, window in _windows(call, call.out, call.inputs):
        window[...] = part


@register(hip.SplitOp, outputs=(1, None))
def split(call: KernelCall) -> None:
    """The outputs' extents along `axis` are the split sizes."""
    x = call.inputs[0]
    _same_dtype(call, [x, *call.outputs], "operand")
    for part, window in _windows(call, x, call.outputs):
        part[...] = window


@register(hip.SliceOp, scalars=(0, None))
def slice_(call: KernelCall) -> None:
    """`y[i] = x[start + i * step]` per dim: scalars are every start, then every step."""
    x = call.inputs[0]
    _same_dtype(call, [x], "input")
    if len(call.scalars) != 2 * x.ndim:
        raise call.error(
            f"expected {2 * x.ndim} scalars (a start and a step per dim), got {len(call.scalars)}"
        )
    if call.out.ndim != x.ndim:
        raise call.error(f"output rank {call.out.ndim} differs from the input rank {x.ndim}")
    starts, steps = call.scalars[: x.ndim], call.scalars[x.ndim :]
    window = tuple(
        _window(call, dim, int(start), int(step), extent, extent_in)
        for dim, (start, step, extent, extent_in) in enumerate(
            zip(starts, steps, call.out.shape, x.shape)
        )
    )
    call.store(call.out, x[window])


def _window(call: KernelCall, dim: int, start: int, step: int, extent: int, size: int) -> slice:
    """The Python slice reading `extent` elements from `start` by `step` in a dim of `size`."""
    if extent == 0:
        return slice(0, 0)
    last = start + (extent - 1) * step
    if step == 0 or not (0 <= start < size and 0 <= last < size):
        raise call.error(
            f"dim {dim}: {extent} elements from {start} by step {step} leave [0, {size})"
        )
    stop = last + (1 if step > 0 else -1)
    # A backward slice that ends at index 0 must stop at None, not at -1 (the last element).
    return slice(start, stop if stop >= 0 else None, step)


@register(hip.TriluOp, scalars=(1, 1))
def trilu(call: KernelCall) -> None:
    """Keeps each matrix's elements on and above (`upper`) or below diagonal k; zeros the rest."""
    x = call.inputs[0]
    _same_dtype(call, [x], "input")
    if x.ndim < 2:
        raise call.error(f"input must have rank >= 2, got {shape_text(x.shape)}")
    rows, cols = x.shape[-2:]
    k = int(call.scalars[0])
    offsets = np.arange(cols)[None, :] - np.arange(rows)[:, None]  # col - row per element
    keep = offsets >= k if int(call.props.upper) else offsets <= k
    call.store(call.out, np.where(keep, x, np.zeros((), x.dtype)))


@register(hip.ExpandOp)
def expand(call: KernelCall) -> None:
    """Broadcasts the input to the output shape."""
    x = call.inputs[0]
    _same_dtype(call, [x], "input")
    call.store(call.out, x, broadcast=True)


@register(hip.PadOp)
def pad(call: KernelCall) -> None:
    """numpy.pad of the positive pads, after cropping by the negative ones."""
    x = call.inputs[0]
    _same_dtype(call, [x], "input")
    pads = [int(p) for p in call.props.pads]
    rank = x.ndim
    if len(pads) != 2 * rank:
        raise call.error(f"pads {pads} need 2 entries per dim of the input of rank {rank}")
    begins, ends = pads[:rank], pads[rank:]
    cropped = x[tuple(slice(max(-b, 0), x.shape[d] - max(-e, 0)) for d, (b, e) in enumerate(zip(begins, ends)))]
    widths = [(max(b, 0), max(e, 0)) for b, e in zip(begins, ends)]
    mode = str(call.props.mode)
    if mode != "constant" and cropped.size == 0 and any(w != (0, 0) for w in widths):
        raise call.error(f"cannot pad an empty input in {mode} mode")
    if mode == "constant":
        fill = np.array(float(call.props.value)).astype(x.dtype)
        padded = np.pad(cropped, widths, mode="constant", constant_values=fill)
    elif mode == "reflect":
        padded = np.pad(cropped, widths, mode="reflect")
    elif mode == "edge":
        padded = np.pad(cropped, widths, mode="edge")
    elif mode == "wrap":
        padded = np.pad(cropped, widths, mode="wrap")
    else:
        raise call.error(f"unknown pad mode \"{mode}\"")
    call.store(call.out, padded)
