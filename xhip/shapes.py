"""Result-shape rules of the ONNX ops xhip supports: the one implementation.

The converter sizes every DPS destination with these rules, each hip op's
shape reification calls the same rule, and verifiers check static dims with
it, so the three can never disagree (the RFC's Problem 1, where a converter
built a [4, 1] destination for Max([4, 1], [4, 8])).

A dim is `int | SSAValue` (an OpFoldResult): a static extent, or an `index`
value known only at run time. A rule takes operand shapes as sequences of
dims, the op's attributes, and an `IndexEmitter` that creates the host `arith`
ops a runtime extent needs. It returns the result dims (rank 0 is `[]`) or a
`ShapeFailure` naming what does not fit; an empty list is never a failure.

Rules are pure functions of (dims, attributes, emitter): they never walk IR and
know nothing of the onnx or hip dialects. Statically decidable mistakes are
failures; mistakes that only runtime values reveal (a `?` that turns out to be
5 against a static 3) are not detectable here and are the runtime's to report.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeAlias

from xdsl.ir import Operation

from xhip.diagnostics import XhipError, op_error
from xhip.index.emitter import INT64_MAX, INT64_MIN, Cond, Dim, IndexEmitter, Shape  # noqa: F401 (re-exported for the rules' callers)


@dataclass(frozen=True)
class ShapeFailure:
    """Why a rule has no result shape: the operands or attributes do not fit the op."""

    message: str

    def error(self, op: Operation) -> XhipError:
        """The located diagnostic for `op`, for passes and verifiers to raise."""
        return op_error(op, self.message)


ShapeResult: TypeAlias = list[Dim] | ShapeFailure


def format_shape(shape: Shape) -> str:
    return "[" + ", ".join(str(d) if isinstance(d, int) else "?" for d in shape) + "]"


# --------------------------------------------------------------------------------------
# Helpers shared by the rules
# --------------------------------------------------------------------------------------


def _normalize_axis(axis: int, rank: int, what: str, inclusive_end: bool = False) -> int | ShapeFailure:
    """`axis` in [0, rank) (or [0, rank] for insert positions), accepting negatives."""
    last = rank if inclusive_end else rank - 1
    if not -rank <= axis <= last:
        return ShapeFailure(f"{what} {axis} is out of range [{-rank}, {last}] for rank {rank}")
    return axis + rank if axis < 0 else axis


def _normalize_axes(axes: Sequence[int], rank: int, what: str) -> list[int] | ShapeFailure:
    normalized: list[int] = []
    for axis in axes:
        n = _normalize_axis(axis, rank, what)
        if isinstance(n, ShapeFailure):
            return n
        if n in normalized:
            return ShapeFailure(f"{what} {axis} is repeated in {list(axes)}")
        normalized.append(n)
    return normalized


def _broadcast_dim(em: IndexEmitter, a: Dim, b: Dim) -> Dim | None:
    """ONNX broadcast of two extents; None when static extents cannot broadcast."""
    if a is b or (isinstance(a, int) and a == b):
        return a
    if a == 1:
        return b
    if b == 1:
        return a
    if isinstance(a, int) and isinstance(b, int):
        return None
    # A static extent other than 1 decides: the runtime side must be 1 or equal to it
    # (this includes 0: `? with 0` is 0 for every valid input).
    if isinstance(a, int):
        return a
    if isinstance(b, int):
        return b
    # The RFC's select-on-1 form. Integer max would be wrong: 0 with 1 is 0.
    return em.select(em.eq(a, 1), b, a)


def _expand_dim(em: IndexEmitter, a: Dim, target: Dim) -> Dim | None:
    """Expand's extent: the target's, unless the target is 1 (then the input's).

    Unlike a symmetric broadcast, a runtime input extent never decides over a
    target other than 1: the out then has the target's extent and the runtime's
    Expand contract refuses an input extent that is neither 1 nor the target's.
    """
    if a is target or a == 1 or (isinstance(a, int) and a == target):
        return target
    if target == 1:
        return a
    if isinstance(target, int):
        return None if isinstance(a, int) else target
    return em.select(em.eq(target, 1), a, target)


def _broadcast_pair(
    em: IndexEmitter, lhs: Shape, rhs: Shape, what: str, dim_rule: Callable[[IndexEmitter, Dim, Dim], Dim | None] = _broadcast_dim
) -> ShapeResult:
    rank = max(len(lhs), len(rhs))
    lhs_padded = [1] * (rank - len(lhs)) + list(lhs)
    rhs_padded = [1] * (rank - len(rhs)) + list(rhs)
    result: list[Dim] = []
    for i, (a, b) in enumerate(zip(lhs_padded, rhs_padded)):
        d = dim_rule(em, a, b)
        if d is None:
            return ShapeFailure(
                f"{what}: cannot broadcast {format_shape(lhs)} with {format_shape(rhs)} "
                f"(extents {a} and {b} at result dim {i})"
            )
        result.append(d)
    return result


def _all_static(dims: Shape) -> bool:
    return all(isinstance(d, int) for d in dims)


def _unify_dim(a: Dim, b: Dim) -> Dim | None:
    """Two extents that must be equal: the static one if any; None if statics differ."""
    if isinstance(a, int) and isinstance(b, int):
        return a if a == b else None
    return a if isinstance(a, int) else b if isinstance(b, int) else a


# --------------------------------------------------------------------------------------
# Elementwise, broadcast and variadic ops
# --------------------------------------------------------------------------------------


def same_shape(em: IndexEmitter, shape: Shape) -> ShapeResult:
    """Unary elementwise ops, Cast, and others whose result has the input's shape."""
    return list(shape)


def broadcast(em: IndexEmitter, *shapes: Shape) -> ShapeResult:
    """Multidirectional ONNX broadcast of any number of operands (Add, Where, Max, ...).

    Right-aligned; 1 stretches; 0 with 1 is 0; ? with 1 is ?; ? with static s != 1
    is s; ? with ? is `select(a == 1, b, a)`. Variadic Max/Min/Sum/Mean fold
    left and broadcast at every step, which this is.
    """
    if not shapes:
        return ShapeFailure("broadcast needs at least one operand")
    for shape in shapes:
        em.mark_extents(shape)
    result: list[Dim] = list(shapes[0])
    for i, shape in enumerate(shapes[1:], start=1):
        what = f"operand {i}" if len(shapes) > 2 else "operands"
        pair = _broadcast_pair(em, result, shape, what)
        if isinstance(pair, ShapeFailure):
            return pair
        result = pair
    return result


def expand(em: IndexEmitter, shape: Shape, target: Shape) -> ShapeResult:
    """Expand: broadcast of the input shape with the shape operand's values, each
    extent the target's unless that is 1 (`_expand_dim`)."""
    em.mark_extents(shape)
    return _broadcast_pair(em, shape, target, "Expand", _expand_dim)


# --------------------------------------------------------------------------------------
# Contractions
# --------------------------------------------------------------------------------------


def _contraction_check(ka: Dim, kb: Dim, what: str) -> ShapeFailure | None:
    if isinstance(ka, int) and isinstance(kb, int) and ka != kb:
        return ShapeFailure(f"{what} contraction dims differ: {ka} vs {kb}")
    return None


def matmul(em: IndexEmitter, a: Shape, b: Shape, trans_b: bool = False) -> ShapeResult:
    """MatMul with NumPy semantics: rank-1 operands are promoted and the added dim removed.

    `trans_b`: B is read with its last two dims swapped (a weight read transposed)."""
    if not a or not b:
        return ShapeFailure(
            f"MatMul operands need rank >= 1, got {format_shape(a)} and {format_shape(b)}"
        )
    if trans_b and len(b) < 2:
        return ShapeFailure(f"MatMul with a transposed B needs B of rank >= 2, got {format_shape(b)}")
    if trans_b:
        b = [*b[:-2], b[-1], b[-2]]
    em.mark_extents(a)
    em.mark_extents(b)
    a2 = [1, *a] if len(a) == 1 else list(a)
    b2 = [*b, 1] if len(b) == 1 else list(b)
    if failure := _contraction_check(a2[-1], b2[-2], "MatMul"):
        return failure
    batch = _broadcast_pair(em, a2[:-2], b2[:-2], "MatMul batch dims")
    if isinstance(batch, ShapeFailure):
        return batch
    rows = [a2[-2]] if len(a) > 1 else []
    cols = [b2[-1]] if len(b) > 1 else []
    return [*batch, *rows, *cols]


def attention(
    em: IndexEmitter, q: Shape, k: Shape, v: Shape, mask: Shape | None = None, k_transposed: bool = False
) -> ShapeResult:
    """Fused attention `softmax(Q @ Kᵀ + mask) @ V` as the two MatMuls it replaces: K is
    [.., Sk, D] (or [.., D, Sk] when `k_transposed`), the mask broadcasts to the scores
    [.., Sq, Sk] without growing them; the result is [.., Sq, Dv]."""
    for name, shape in (("Q", q), ("K", k), ("V", v)):
        if len(shape) < 2:
            return ShapeFailure(f"attention {name} needs rank >= 2, got {format_shape(shape)}")
    k_t = list(k) if k_transposed else [*k[:-2], k[-1], k[-2]]
    scores = matmul(em, q, k_t)
    if isinstance(scores, ShapeFailure):
        return ShapeFailure(f"attention Q @ K^T: {scores.message}")
    if mask is not None:
        masked = broadcast(em, scores, mask)
        grows = isinstance(masked, list) and len(masked) != len(scores)
        if isinstance(masked, ShapeFailure) or grows or any(
            isinstance(m, int) and isinstance(s, int) and m != s for m, s in zip(masked, scores)
        ):
            return ShapeFailure(f"attention mask {format_shape(mask)} does not broadcast to the scores {format_shape(scores)}")
    result = matmul(em, scores, v)
    return ShapeFailure(f"attention scores @ V: {result.message}") if isinstance(result, ShapeFailure) else result


def gemm(
    em: IndexEmitter,
    a: Shape,
    b: Shape,
    c: Shape | None = None,
    trans_a: bool = False,
    trans_b: bool = False,
) -> ShapeResult:
    """Gemm: [M, N] from A and B after transA/transB; C must broadcast to [M, N]."""
    if len(a) != 2 or len(b) != 2:
        return ShapeFailure(f"Gemm needs rank-2 A and B, got {format_shape(a)} and {format_shape(b)}")
    m, ka = (a[1], a[0]) if trans_a else (a[0], a[1])
    kb, n = (b[1], b[0]) if trans_b else (b[0], b[1])
    if failure := _contraction_check(ka, kb, "Gemm"):
        return failure
    if c is not None:
        # C broadcasts one way only: each of its dims is 1 or the result's.
        if len(c) > 2 or any(
            isinstance(cd, int) and cd != 1 and isinstance(rd, int) and cd != rd
            for cd, rd in zip(reversed(c), (n, m))
        ):
            return ShapeFailure(f"Gemm C {format_shape(c)} does not broadcast to {format_shape([m, n])}")
    return [m, n]


# --------------------------------------------------------------------------------------
# Layout and axis ops
# --------------------------------------------------------------------------------------


def transpose(em: IndexEmitter, shape: Shape, perm: Sequence[int] | None = None) -> ShapeResult:
    """Transpose: out[i] = in[perm[i]]; perm defaults to reversing the dims."""
    rank = len(shape)
    if perm is None:
        perm = list(reversed(range(rank)))
    if sorted(perm) != list(range(rank)):
        return ShapeFailure(f"Transpose perm {list(perm)} is not a permutation of {rank} dims")
    return [shape[p] for p in perm]


def same_shape_on_axis(em: IndexEmitter, shape: Shape, axis: int, op_name: str = "Softmax") -> ShapeResult:
    """Softmax, LogSoftmax, LayerNormalization's Y: the input shape; `axis` must be in range."""
    normalized = _normalize_axis(axis, len(shape), f"{op_name} axis")
    if isinstance(normalized, ShapeFailure):
        return normalized
    return list(shape)


def layer_norm_stats(em: IndexEmitter, shape: Shape, axis: int = -1) -> ShapeResult:
    """LayerNormalization's Mean and InvStdDev: dims from `axis` on become 1."""
    normalized = _normalize_axis(axis, len(shape), "LayerNormalization axis")
    if isinstance(normalized, ShapeFailure):
        return normalized
    return [*shape[:normalized], *[1] * (len(shape) - normalized)]


def reduce(
    em: IndexEmitter,
    shape: Shape,
    axes: Sequence[int] | None = None,
    keepdims: bool = True,
    noop_with_empty_axes: bool = False,
) -> ShapeResult:
    """Reduce* (and ArgMax/ArgMin with one axis): reduced dims become 1 or disappear.

    Repeated axes count once, as onnxruntime accepts them.
    """
    rank = len(shape)
    if not axes:
        if noop_with_empty_axes:
            return list(shape)
        reduced = set(range(rank))
    else:
        reduced = set()
        for axis in axes:
            n = _normalize_axis(axis, rank, "reduction axis")
            if isinstance(n, ShapeFailure):
                return n
            reduced.add(n)
    if keepdims:
        return [1 if i in reduced else d for i, d in enumerate(shape)]
    return [d for i, d in enumerate(shape) if i not in reduced]


def flatten(em: IndexEmitter, shape: Shape, axis: int = 1) -> ShapeResult:
    """Flatten: [prod(dims[:axis]), prod(dims[axis:])]; axis in [-r, r]."""
    em.mark_extents(shape)
    normalized = _normalize_axis(axis, len(shape), "Flatten axis", inclusive_end=True)
    if isinstance(normalized, ShapeFailure):
        return normalized
    return [em.product(shape[:normalized]), em.product(shape[normalized:])]


def squeeze(em: IndexEmitter, shape: Shape, axes: Sequence[int] | None = None) -> ShapeResult:
    """Squeeze: drop the given size-1 dims, or every static 1 when no axes are given."""
    if axes is None:
        if any(not isinstance(d, int) for d in shape):
            return ShapeFailure(
                f"Squeeze without axes needs static dims to know which are 1, got {format_shape(shape)}"
            )
        return [d for d in shape if d != 1]
    normalized = _normalize_axes(axes, len(shape), "Squeeze axis")
    if isinstance(normalized, ShapeFailure):
        return normalized
    for axis in normalized:
        if isinstance(shape[axis], int) and shape[axis] != 1:
            return ShapeFailure(f"Squeeze axis {axis} has extent {shape[axis]}, not 1")
    return [d for i, d in enumerate(shape) if i not in normalized]


def unsqueeze(em: IndexEmitter, shape: Shape, axes: Sequence[int]) -> ShapeResult:
    """Unsqueeze: insert 1s at `axes`, which index the result (rank + len(axes))."""
    out_rank = len(shape) + len(axes)
    normalized = _normalize_axes(axes, out_rank, "Unsqueeze axis")
    if isinstance(normalized, ShapeFailure):
        return normalized
    remaining = iter(shape)
    return [1 if i in normalized else next(remaining) for i in range(out_rank)]


def pool_window(kernel: int, dilation: int) -> int:
    """The input extent one pooling window spans: its taps, `dilation` apart."""
    return (kernel - 1) * dilation + 1


def same_pool_pads(auto_pad: str, spatial: Sequence[int], kernel: Sequence[int], strides: Sequence[int], dilations: Sequence[int]) -> list[int]:
    """MaxPool / AveragePool's `auto_pad` SAME_UPPER / SAME_LOWER as explicit pads (the begins,
    then the ends) over static spatial extents: the output extent ceil(x / stride), the pads
    that make the windows reach it, the odd one at the end (UPPER) or the begin (LOWER)."""
    totals = [
        max(0, ((x - 1) // s) * s + pool_window(k, d) - x) for x, k, s, d in zip(spatial, kernel, strides, dilations)
    ]
    small, large = [total // 2 for total in totals], [total - total // 2 for total in totals]
    return small + large if auto_pad == "SAME_UPPER" else large + small


def _window_extents(em: IndexEmitter, spatial: Shape, kernel: Sequence[int], strides: Sequence[int], dilations: Sequence[int], pads: Sequence[int], ceil_mode: bool) -> ShapeResult:
    """Per spatial dim: (x + begin + end - window) / stride + 1 windows, rounded down (up with
    `ceil_mode`, but never a window starting in the end padding)."""
    count = len(spatial)
    if not len(kernel) == len(strides) == len(dilations) == count or len(pads) != 2 * count:
        return ShapeFailure(f"a window over {count} spatial dims takes {count} kernel extents, strides and dilations and {2 * count} pads")
    out: list[Dim] = []
    for d, x in enumerate(spatial):
        begin, end, step = pads[d], pads[count + d], strides[d]
        window = pool_window(kernel[d], dilations[d])
        if not isinstance(x, int):
            if ceil_mode:
                return ShapeFailure(f"pooling with ceil_mode needs static spatial extents (dim {d + 2} is known only at run time)")
            out.append(em.add(em.div(em.add(x, begin + end - window), step), 1))
            continue
        span = x + begin + end - window
        if span < 0:
            return ShapeFailure(f"a window of {window} does not fit dim {d + 2} of extent {x} padded by {begin} and {end}")
        extent = -(-span // step) + 1 if ceil_mode else span // step + 1
        if ceil_mode and (extent - 1) * step >= x + begin:
            extent -= 1  # that window would start in the end padding
        out.append(extent)
    return out


def pool(em: IndexEmitter, shape: Shape, kernel: Sequence[int], strides: Sequence[int], dilations: Sequence[int], pads: Sequence[int], ceil_mode: bool) -> ShapeResult:
    """MaxPool / AveragePool over explicit `pads`: [N, C] and the windows along each spatial dim."""
    if len(shape) < 3:
        return ShapeFailure(f"pooling needs an input of rank 3 or more ([N, C, D1, ...]), got rank {len(shape)}")
    windows = _window_extents(em, shape[2:], kernel, strides, dilations, pads, ceil_mode)
    return windows if isinstance(windows, ShapeFailure) else [*shape[:2], *windows]


def resize(em: IndexEmitter, x: Shape, scales: Sequence[float] | None, sizes: Sequence[Dim] | None) -> ShapeResult:
    """Resize: each extent floor(extent * scale) (the scale a float32 value, the product in
    float64, as ONNX computes it), or the given `sizes`. A run-time extent takes only scales
    whose product stays exact in index arithmetic: 1, an integer, or 1 / 2^k."""
    if sizes is not None:
        if len(sizes) != len(x):
            return ShapeFailure(f"Resize of an input of rank {len(x)} takes {len(x)} sizes, got {len(sizes)}")
        return list(sizes)
    assert scales is not None
    if len(scales) != len(x):
        return ShapeFailure(f"Resize of an input of rank {len(x)} takes {len(x)} scales, got {len(scales)}")
    out: list[Dim] = []
    for d, (extent, scale) in enumerate(zip(x, scales)):
        if not scale > 0:
            return ShapeFailure(f"Resize scales must be positive, got {scale} for dim {d}")
        if isinstance(extent, int):
            out.append(int(math.floor(extent * float(scale))))
        elif scale == 1:
            out.append(extent)
        elif float(scale).is_integer():
            out.append(em.mul(extent, int(scale)))
        elif (1 / scale).is_integer() and int(1 / scale) & (int(1 / scale) - 1) == 0:
            out.append(em.div(extent, int(1 / scale)))
        else:
            return ShapeFailure(f"Resize scale {scale} of dim {d} (known only at run time) gives an extent index arithmetic cannot floor exactly: use sizes, or a scale of 1, an integer or 1 / 2^k")
    return out


def conv(em: IndexEmitter, x: Shape, w: Shape, strides: Sequence[int], dilations: Sequence[int], pads: Sequence[int], group: int) -> ShapeResult:
    """Conv over explicit `pads`: x [N, C, D1, ..] and w [M, C / group, K1, ..] (static K) give
    [N, M] and the windows along each spatial dim."""
    if len(x) < 3 or len(w) != len(x):
        return ShapeFailure(f"Conv needs x of rank 3 or more and W of the same rank, got ranks {len(x)} and {len(w)}")
    kernel = w[2:]
    if not all(isinstance(k, int) for k in kernel):
        return ShapeFailure("Conv's kernel extents (W's dims 2 and on) must be static")
    channels, per_group, out_channels = x[1], w[1], w[0]
    if isinstance(channels, int) and isinstance(per_group, int) and channels != per_group * group:
        return ShapeFailure(f"Conv with group {group} takes x with {per_group * group} channels (W has {per_group} per group), got {channels}")
    if isinstance(out_channels, int) and out_channels % group:
        return ShapeFailure(f"Conv's {out_channels} output channels do not split into {group} groups")
    windows = _window_extents(em, x[2:], kernel, strides, dilations, pads, False)  # type: ignore[arg-type]
    return windows if isinstance(windows, ShapeFailure) else [x[0], out_channels, *windows]


def im2col(em: IndexEmitter, x: Shape, kernel: Sequence[int], strides: Sequence[int], dilations: Sequence[int], pads: Sequence[int]) -> ShapeResult:
    """The columns of a convolution's windows over explicit `pads`: x [N, C, D1, ..] gives
    [N, C * K1 * .., O1 * ..], one row per channel and tap, one column per output position."""
    if len(x) < 3:
        return ShapeFailure(f"im2col needs an input of rank 3 or more ([N, C, D1, ...]), got rank {len(x)}")
    windows = _window_extents(em, x[2:], kernel, strides, dilations, pads, False)
    if isinstance(windows, ShapeFailure):
        return windows
    return [x[0], em.mul(x[1], math.prod(kernel)), em.product(windows)]


def conv_transpose(em: IndexEmitter, x: Shape, w: Shape, strides: Sequence[int], dilations: Sequence[int], pads: Sequence[int], output_padding: Sequence[int], group: int, output_shape: Sequence[int]) -> ShapeResult:
    """ConvTranspose: x [N, C, D1, ..] and w [C, M / group, K1, ..] (static K) give [N, M] and
    per spatial dim stride * (x - 1) + output_padding + window - begin - end, or the given
    `output_shape` (empty: none given)."""
    if len(x) < 3 or len(w) != len(x):
        return ShapeFailure(f"ConvTranspose needs x of rank 3 or more and W of the same rank, got ranks {len(x)} and {len(w)}")
    spatial = len(x) - 2
    kernel = w[2:]
    if not all(isinstance(k, int) for k in kernel):
        return ShapeFailure("ConvTranspose's kernel extents (W's dims 2 and on) must be static")
    if not len(strides) == len(dilations) == len(output_padding) == spatial or len(pads) != 2 * spatial or len(output_shape) not in (0, spatial):
        return ShapeFailure(f"ConvTranspose over {spatial} spatial dims takes {spatial} strides, dilations and output paddings and {2 * spatial} pads")
    if isinstance(x[1], int) and isinstance(w[0], int) and x[1] != w[0]:
        return ShapeFailure(f"ConvTranspose's W takes {w[0]} input channels, x has {x[1]}")
    out: list[Dim] = [x[0], em.mul(w[1], group)]
    for d, extent in enumerate(x[2:]):
        if output_shape:
            out.append(output_shape[d])
            continue
        grown = pool_window(kernel[d], dilations[d]) + output_padding[d] - pads[d] - pads[spatial + d]  # type: ignore[arg-type]
        out.append(em.add(em.mul(em.sub(extent, 1), strides[d]), grown))
    return out


def pad(em: IndexEmitter, shape: Shape, pads: Sequence[int]) -> ShapeResult:
    """Pad: each extent plus its begin and end pads (`pads` = all begins, then all ends;
    negative pads crop), never below 0."""
    rank = len(shape)
    if len(pads) != 2 * rank:
        return ShapeFailure(f"Pad pads has {len(pads)} entries for an input of rank {rank} (2 per dim)")
    out: list[Dim] = []
    for d, extent in enumerate(shape):
        grown = em.add(extent, pads[d] + pads[rank + d])
        if isinstance(grown, int) and grown < 0:
            return ShapeFailure(f"Pad pads {list(pads)} crop dim {d} of extent {extent} below 0")
        out.append(grown)
    return out


def tile(em: IndexEmitter, shape: Shape, repeats: Sequence[Dim]) -> ShapeResult:
    """Tile: each extent times its repeat count (one count per dim, none negative; a count
    known only at run time is a dim like an extent)."""
    if len(repeats) != len(shape):
        return ShapeFailure(f"Tile repeats has {len(repeats)} entries for an input of rank {len(shape)}")
    if any(isinstance(r, int) and r < 0 for r in repeats):
        return ShapeFailure(f"Tile repeats must not be negative, got {format_shape(repeats)}")
    return [em.mul(d, r) for d, r in zip(shape, repeats)]


# --------------------------------------------------------------------------------------
# Gather, Concat, Split, Slice
# --------------------------------------------------------------------------------------


def gather(em: IndexEmitter, data: Shape, indices: Shape, axis: int = 0) -> ShapeResult:
    """Gather: data[:axis] + indices + data[axis+1:]."""
    normalized = _normalize_axis(axis, len(data), "Gather axis")
    if isinstance(normalized, ShapeFailure):
        return normalized
    return [*data[:normalized], *indices, *data[normalized + 1 :]]


def gather_elements(em: IndexEmitter, data: Shape, indices: Shape, axis: int = 0) -> ShapeResult:
    """GatherElements: the indices' shape; ranks must agree."""
    if len(data) != len(indices):
        return ShapeFailure(
            f"GatherElements data {format_shape(data)} and indices {format_shape(indices)} differ in rank"
        )
    normalized = _normalize_axis(axis, len(data), "GatherElements axis")
    if isinstance(normalized, ShapeFailure):
        return normalized
    # Off the axis an output coordinate addresses data directly: it must exist there.
    for i, (d, n) in enumerate(zip(data, indices)):
        if i != normalized and isinstance(d, int) and isinstance(n, int) and n > d:
            return ShapeFailure(
                f"GatherElements indices {format_shape(indices)} exceed data {format_shape(data)} in dim {i}"
            )
    return list(indices)


def gather_nd(em: IndexEmitter, data: Shape, indices: Shape, batch_dims: int = 0) -> ShapeResult:
    """GatherND: indices[:-1] + data[batch_dims + indices[-1]:]."""
    r, q = len(data), len(indices)
    if r < 1 or q < 1:
        return ShapeFailure(f"GatherND needs rank >= 1 data and indices, got ranks {r} and {q}")
    if not 0 <= batch_dims < min(r, q):
        return ShapeFailure(f"GatherND batch_dims {batch_dims} must be in [0, {min(r, q) - 1}]")
    width = indices[-1]
    if not isinstance(width, int):
        return ShapeFailure("GatherND needs a static last dim of indices (the index tuple width)")
    if not 1 <= width <= r - batch_dims:
        return ShapeFailure(f"GatherND index tuple width {width} must be in [1, {r - batch_dims}]")
    batch: list[Dim] = []
    for i in range(batch_dims):
        d = _unify_dim(data[i], indices[i])
        if d is None:
            return ShapeFailure(f"GatherND batch dim {i} differs: {data[i]} in data vs {indices[i]} in indices")
        batch.append(d)
    return [*batch, *indices[batch_dims:-1], *data[batch_dims + width :]]


def concat(em: IndexEmitter, shapes: Sequence[Shape], axis: int) -> ShapeResult:
    """Concat: the axis extent is the sum; every other dim must agree."""
    if not shapes:
        return ShapeFailure("Concat needs at least one operand")
    rank = len(shapes[0])
    if any(len(s) != rank for s in shapes):
        return ShapeFailure(f"Concat operands differ in rank: {', '.join(map(format_shape, shapes))}")
    normalized = _normalize_axis(axis, rank, "Concat axis")
    if isinstance(normalized, ShapeFailure):
        return normalized
    for shape in shapes:
        em.mark_extents(shape)
    result = list(shapes[0])
    for i, shape in enumerate(shapes[1:], start=1):
        for dim in range(rank):
            if dim == normalized:
                continue
            d = _unify_dim(result[dim], shape[dim])
            if d is None:
                return ShapeFailure(
                    f"Concat operand {i} has extent {shape[dim]} at dim {dim}, expected {result[dim]}"
                )
            result[dim] = d
    result[normalized] = em.sum([s[normalized] for s in shapes])
    return result


def split(
    em: IndexEmitter,
    shape: Shape,
    axis: int = 0,
    sizes: Shape | None = None,
    num_outputs: int | None = None,
) -> list[list[Dim]] | ShapeFailure:
    """Split: one shape per output, from explicit `sizes` or `num_outputs` equal chunks.

    Without sizes every chunk is ceil(d / n) and the last takes the rest
    (ONNX's uneven-last-chunk rule); a negative last chunk is a failure.
    """
    normalized = _normalize_axis(axis, len(shape), "Split axis")
    if isinstance(normalized, ShapeFailure):
        return normalized
    em.mark_extents(shape)
    extent = shape[normalized]
    if sizes is not None:
        if any(isinstance(s, int) and s < 0 for s in sizes):
            return ShapeFailure(f"Split sizes {format_shape(sizes)} must not be negative")
        total = em.sum(sizes)
        if isinstance(total, int) and isinstance(extent, int) and total != extent:
            return ShapeFailure(f"Split sizes {format_shape(sizes)} sum to {total}, not the axis extent {extent}")
        chunks = list(sizes)
    else:
        if num_outputs is None or num_outputs < 1:
            return ShapeFailure(f"Split needs sizes or num_outputs >= 1, got num_outputs={num_outputs}")
        chunk = em.ceildiv(extent, num_outputs)
        last = em.sub(extent, em.mul(chunk, num_outputs - 1))
        if isinstance(last, int) and last < 0:
            return ShapeFailure(
                f"Split of extent {extent} into {num_outputs} outputs leaves a negative last chunk"
            )
        chunks = [chunk] * (num_outputs - 1) + [last]
    return [[*shape[:normalized], c, *shape[normalized + 1 :]] for c in chunks]


def _from_end_if_negative(em: IndexEmitter, index: Dim, dim: Dim) -> Dim:
    """ONNX's negative index counts from the end of the axis."""
    return em.select_lazy(em.lt(index, 0), lambda: em.add(index, dim), lambda: index)


def _slice_bounds(em: IndexEmitter, dim: Dim, start: Dim, end: Dim, step: Dim) -> tuple[Dim, Dim]:
    """(first index read, elements kept) on one Slice axis, with ONNX's clamping."""
    backward = em.lt(step, 0)
    start = _from_end_if_negative(em, start, dim)
    end = _from_end_if_negative(em, end, dim)
    # Forward steps clamp both bounds to [0, dim]; backward steps clamp start to
    # [0, dim - 1] and end to [-1, dim - 1].
    upper = em.select_lazy(backward, lambda: em.sub(dim, 1), lambda: dim)
    start = em.min(em.max(start, 0), upper)
    end = em.min(em.max(end, em.select(backward, -1, 0)), upper)
    return start, em.max(em.ceildiv(em.sub(end, start), step), 0)


def _slice_axes(
    shape: Shape, starts: Shape, ends: Shape, axes: Sequence[int] | None, steps: Shape | None
) -> tuple[list[int], Shape] | ShapeFailure:
    """Slice's axes normalized and its steps defaulted, or why they do not fit."""
    if axes is None:
        axes = list(range(len(starts)))
    if steps is None:
        steps = [1] * len(starts)
    if not len(starts) == len(ends) == len(axes) == len(steps):
        return ShapeFailure(
            f"Slice starts, ends, axes and steps differ in length: "
            f"{len(starts)}, {len(ends)}, {len(axes)}, {len(steps)}"
        )
    normalized = _normalize_axes(axes, len(shape), "Slice axis")
    if isinstance(normalized, ShapeFailure):
        return normalized
    if 0 in steps:
        return ShapeFailure("Slice step must not be 0")
    return normalized, steps


def slice_(
    em: IndexEmitter,
    shape: Shape,
    starts: Shape,
    ends: Shape,
    axes: Sequence[int] | None = None,
    steps: Shape | None = None,
) -> ShapeResult:
    """Slice with dims for starts/ends/steps (static axes): ONNX bounds semantics."""
    checked = _slice_axes(shape, starts, ends, axes, steps)
    if isinstance(checked, ShapeFailure):
        return checked
    axes, steps = checked
    em.mark_extents(shape)
    result = list(shape)
    for axis, start, end, step in zip(axes, starts, ends, steps):
        result[axis] = _slice_bounds(em, shape[axis], start, end, step)[1]
    return result


def slice_window(
    em: IndexEmitter,
    shape: Shape,
    starts: Shape,
    ends: Shape,
    axes: Sequence[int] | None = None,
    steps: Shape | None = None,
) -> tuple[list[Dim], list[Dim], list[Dim]] | ShapeFailure:
    """Per input dim: (first index read, step, extent) of a Slice; untouched dims read all."""
    checked = _slice_axes(shape, starts, ends, axes, steps)
    if isinstance(checked, ShapeFailure):
        return checked
    axes, steps = checked
    em.mark_extents(shape)
    first: list[Dim] = [0] * len(shape)
    strides: list[Dim] = [1] * len(shape)
    extents = list(shape)
    for axis, start, end, step in zip(axes, starts, ends, steps):
        first[axis], extents[axis] = _slice_bounds(em, shape[axis], start, end, step)
        strides[axis] = step
    return first, strides, extents


# --------------------------------------------------------------------------------------
# Reshape and friends
# --------------------------------------------------------------------------------------


def reshape(em: IndexEmitter, shape: Shape, target: Shape, allowzero: bool = False) -> ShapeResult:
    """Reshape to the shape operand's values, which may be runtime dims.

    0 copies the input dim at the same position (unless allowzero); one -1 is
    inferred from the element count. A runtime target entry may itself turn
    out to be 0 or -1, so it gets the same treatment with `select`s, unless
    it is a known extent (never -1).
    """
    em.mark_extents(shape)
    static_target = [t for t in target if isinstance(t, int)]
    if any(t < -1 for t in static_target):
        return ShapeFailure(f"Reshape target {format_shape(target)} has a negative entry other than -1")
    if static_target.count(-1) > 1:
        return ShapeFailure(f"Reshape target {format_shape(target)} has more than one -1")
    if allowzero and 0 in static_target and -1 in static_target:
        return ShapeFailure(f"Reshape target {format_shape(target)} has both 0 and -1 with allowzero")
    resolved: list[Dim] = []
    for i, t in enumerate(target):
        if not allowzero and t == 0:
            if i >= len(shape):
                return ShapeFailure(f"Reshape target entry {i} is 0 but the input has rank {len(shape)}")
            t = shape[i]
        elif not allowzero and not isinstance(t, int) and i < len(shape):
            t = em.select(em.eq(t, 0), shape[i], t)
        resolved.append(t)
    inferable = [t for t in resolved if t == -1 or not em.is_extent(t)]
    if not inferable:
        if _all_static(shape) and _all_static(resolved):
            numel, product = em.product(shape), em.product(resolved)
            if product != numel:
                return ShapeFailure(
                    f"Reshape of {format_shape(shape)} ({numel} elements) to {format_shape(target)} "
                    f"({product} elements)"
                )
        return resolved
    numel = em.product(shape)
    known = em.product([em.select(em.eq(t, -1), 1, t) for t in resolved])
    if -1 in static_target and isinstance(known, int):
        if known == 0 or (isinstance(numel, int) and numel % known):
            return ShapeFailure(
                f"Reshape cannot infer -1 of {format_shape(target)} from {format_shape(shape)}"
            )
    # max(known, 1) keeps the division defined when no -1 is selected at run time.
    inferred = em.div(numel, em.max(known, 1))
    return [em.select(em.eq(t, -1), inferred, t) for t in resolved]


def range_(em: IndexEmitter, start: Dim, limit: Dim, delta: Dim) -> ShapeResult:
    """Range: [max(ceil((limit - start) / delta), 0)]."""
    if delta == 0:
        return ShapeFailure("Range delta must not be 0")
    return [em.max(em.ceildiv(em.sub(limit, start), delta), 0)]


def nonzero_capacity(em: IndexEmitter, shape: Shape) -> ShapeResult:
    """NonZero's destination: [rank, numel], the most indices it can produce."""
    em.mark_extents(shape)
    return [len(shape), em.product(shape)]


def shape_of(em: IndexEmitter, shape: Shape, start: int = 0, end: int | None = None) -> ShapeResult:
    """Shape (opset 15 start/end): a 1-D result whose length is always static."""
    rank = len(shape)

    def clamp(bound: int) -> int:
        return min(max(bound + rank if bound < 0 else bound, 0), rank)

    return [max(clamp(rank if end is None else end) - clamp(start), 0)]


def size(em: IndexEmitter, shape: Shape) -> ShapeResult:
    """Size: a rank-0 result."""
    return []
