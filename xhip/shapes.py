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

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeAlias

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint

from xhip.analysis import index_facts
from xhip.analysis.host_index_eval import compare, fold_binary
from xhip.diagnostics import XhipError, op_error

Dim: TypeAlias = int | SSAValue
"""A static extent or a runtime `index` value."""

Cond: TypeAlias = bool | SSAValue
"""A static truth value or a runtime `i1` value."""

Shape: TypeAlias = Sequence[Dim]

INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)


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
# Emitter
# --------------------------------------------------------------------------------------


# `x <predicate> c` for a static c, decided by a lower bound of x:
# predicate -> (whether (bound, c) decides it, the answer).
_BOUNDED_COMPARISONS: dict[str, tuple[Callable[[int, int], bool], bool]] = {
    "eq": (lambda low, c: low > c, False),
    "ne": (lambda low, c: low > c, True),
    "slt": (lambda low, c: low >= c, False),
    "sle": (lambda low, c: low > c, False),
    "sgt": (lambda low, c: low > c, True),
    "sge": (lambda low, c: low >= c, True),
}


_COMMUTATIVE = frozenset({arith.AddiOp, arith.MuliOp, arith.MaxSIOp, arith.MinSIOp})


class IndexEmitter:
    """Creates host `arith` ops on `index` values at one insertion point.

    Every method folds when its inputs are static, so static shapes produce no
    IR, and applies the identities that keep forwarded dims as the operand's
    own SSA value (`x + 0`, `x * 1`, `select(c, x, x)`, ...). Ops it creates are
    remembered: asking twice for the same expression returns the same value,
    so equal extents reach the pool planner as one SSA value.

    The emitter also knows which values are extents (>= 0): operand dims the
    rules register with `mark_extents`, and whatever `xhip.analysis.index_facts`
    proves from the defining ops (`tensor.dim` results, sums, products, selects
    and maxima of extents, `seq + 1 >= 1`). That lets `x == -1` fold for an extent
    (Reshape) without emitting a comparison, and `min(seq, seq + 1)` be `seq`.
    """

    def __init__(self, insertion_point: InsertPoint):
        self.builder = Builder(insertion_point)
        self._constants: dict[int, SSAValue] = {}
        self._created: dict[tuple[object, ...], SSAValue] = {}
        self._extents: set[SSAValue] = set()

    def moved_to(self, insertion_point: InsertPoint) -> IndexEmitter:
        """An emitter at a later point of the same block that reuses what this one built.

        Everything built so far dominates the new point, so a walk in program order
        (the ONNX-to-HIP conversion) defines each expression once for the whole
        function, whichever op asks for it first.
        """
        moved = IndexEmitter(insertion_point)
        moved._constants, moved._created, moved._extents = self._constants, self._created, self._extents
        return moved

    # -- values -------------------------------------------------------------------------

    def constant(self, value: int) -> SSAValue:
        if value not in self._constants:
            op = arith.ConstantOp.from_int_and_width(value, IndexType())
            self._constants[value] = self.builder.insert(op).result
        return self._constants[value]

    def materialize(self, dim: Dim) -> SSAValue:
        """`dim` as an SSA value (a constant for a static dim)."""
        return self.constant(dim) if isinstance(dim, int) else dim

    def mark_extents(self, dims: Shape) -> None:
        """Record that the runtime dims of an operand shape are extents (>= 0)."""
        self._extents.update(d for d in dims if not isinstance(d, int))

    def lower_bound(self, dim: Dim) -> int | None:
        return index_facts.lower_bound(dim, self._extents)

    def is_extent(self, dim: Dim) -> bool:
        low = self.lower_bound(dim)
        return low is not None and low >= 0

    def at_most(self, lhs: Dim, rhs: Dim) -> bool:
        """Whether lhs <= rhs is known for every run."""
        return lhs == INT64_MIN or rhs == INT64_MAX or index_facts.at_most(lhs, rhs, self._extents)

    def _create(
        self, op_type: type[Operation], *operands: Dim, extent: bool = False, **kw: object
    ) -> SSAValue:
        """The result of `op_type(*operands, **kw)`, built once per emitter."""
        values = tuple(self.materialize(d) for d in operands)
        key = (op_type, *values, *sorted(kw.items()))
        if op_type in _COMMUTATIVE:
            # `seq + 1` and `1 + seq` are one extent.
            swapped = (op_type, *reversed(values))
            key = swapped if swapped in self._created else key
        if key not in self._created:
            op = op_type(*values, **kw) if kw else op_type(*values)
            result = self.builder.insert(op).results[0]
            self._created[key] = result
            if extent:
                self._extents.add(result)
        return self._created[key]

    def _binary(self, op_type: type[Operation], lhs: Dim, rhs: Dim, extent: bool = False) -> Dim:
        if isinstance(lhs, int) and isinstance(rhs, int):
            return fold_binary(op_type, lhs, rhs)
        return self._create(op_type, lhs, rhs, extent=extent)

    # -- arithmetic ---------------------------------------------------------------------

    def add(self, lhs: Dim, rhs: Dim) -> Dim:
        if lhs == 0:
            return rhs
        if rhs == 0:
            return lhs
        both = self.is_extent(lhs) and self.is_extent(rhs)
        return self._binary(arith.AddiOp, lhs, rhs, extent=both)

    def sub(self, lhs: Dim, rhs: Dim) -> Dim:
        if rhs == 0:
            return lhs
        known = index_facts.difference(lhs, rhs)
        if known is not None:
            return known
        return self._binary(arith.SubiOp, lhs, rhs)

    def mul(self, lhs: Dim, rhs: Dim) -> Dim:
        if lhs == 1 or rhs == 0:
            return rhs
        if rhs == 1 or lhs == 0:
            return lhs
        both = self.is_extent(lhs) and self.is_extent(rhs)
        return self._binary(arith.MuliOp, lhs, rhs, extent=both)

    def div(self, lhs: Dim, rhs: Dim) -> Dim:
        """Signed division rounding toward zero (`arith.divsi`)."""
        if rhs == 1:
            return lhs
        return self._binary(arith.DivSIOp, lhs, rhs)

    def ceildiv(self, lhs: Dim, rhs: Dim) -> Dim:
        """Signed division rounding up (`arith.ceildivsi`)."""
        if rhs == 1:
            return lhs
        extent = self.is_extent(lhs) and isinstance(rhs, int) and rhs > 0
        return self._binary(arith.CeilDivSIOp, lhs, rhs, extent=extent)

    def max(self, lhs: Dim, rhs: Dim) -> Dim:
        if isinstance(lhs, int) and isinstance(rhs, int):
            return max(lhs, rhs)
        if self.at_most(rhs, lhs):
            return lhs
        if self.at_most(lhs, rhs):
            return rhs
        either = self.is_extent(lhs) or self.is_extent(rhs)
        return self._binary(arith.MaxSIOp, lhs, rhs, extent=either)

    def min(self, lhs: Dim, rhs: Dim) -> Dim:
        # Every index value is at most INT64_MAX, ONNX's "to the end" bound.
        if isinstance(lhs, int) and isinstance(rhs, int):
            return min(lhs, rhs)
        if self.at_most(lhs, rhs):
            return lhs
        if self.at_most(rhs, lhs):
            return rhs
        both = self.is_extent(lhs) and self.is_extent(rhs)
        return self._binary(arith.MinSIOp, lhs, rhs, extent=both)

    def sum(self, dims: Shape) -> Dim:
        total: Dim = 0
        for d in dims:
            total = self.add(total, d)
        return total

    def product(self, dims: Shape) -> Dim:
        total: Dim = 1
        for d in dims:
            total = self.mul(total, d)
        return total

    # -- comparisons and selection ------------------------------------------------------

    def cmp(self, predicate: str, lhs: Dim, rhs: Dim) -> Cond:
        """`arith.cmpi predicate` (eq, ne, slt, sle, sgt, sge, ...), folded when possible."""
        if isinstance(lhs, int) and isinstance(rhs, int):
            return compare(predicate, lhs, rhs)
        signed = predicate in _BOUNDED_COMPARISONS
        # a against a + k: the sign of k decides (index arithmetic does not wrap).
        k = index_facts.offset(lhs, rhs)
        if signed and k is not None:
            return compare(predicate, 0, k)
        if signed and isinstance(rhs, int) and (low := self.lower_bound(lhs)) is not None:
            decides, answer = _BOUNDED_COMPARISONS[predicate]
            if decides(low, rhs):
                return answer
        return self._create(arith.CmpiOp, lhs, rhs, arg=predicate)

    def eq(self, lhs: Dim, rhs: Dim) -> Cond:
        return self.cmp("eq", lhs, rhs)

    def lt(self, lhs: Dim, rhs: Dim) -> Cond:
        return self.cmp("slt", lhs, rhs)

    def select_lazy(self, condition: Cond, if_true: Callable[[], Dim], if_false: Callable[[], Dim]) -> Dim:
        """`select` that builds only the chosen side when the condition is static."""
        if isinstance(condition, bool):
            return if_true() if condition else if_false()
        return self.select(condition, if_true(), if_false())

    def select(self, condition: Cond, if_true: Dim, if_false: Dim) -> Dim:
        if isinstance(condition, bool):
            return if_true if condition else if_false
        if if_true is if_false or (isinstance(if_true, int) and if_true == if_false):
            return if_true
        folded = index_facts.select_fold(condition, if_true, if_false)
        if folded is not None:
            return folded
        extent = self.is_extent(if_true) and self.is_extent(if_false)
        return self._create(arith.SelectOp, condition, if_true, if_false, extent=extent)


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


def _broadcast_pair(em: IndexEmitter, lhs: Shape, rhs: Shape, what: str) -> ShapeResult:
    rank = max(len(lhs), len(rhs))
    lhs_padded = [1] * (rank - len(lhs)) + list(lhs)
    rhs_padded = [1] * (rank - len(rhs)) + list(rhs)
    result: list[Dim] = []
    for i, (a, b) in enumerate(zip(lhs_padded, rhs_padded)):
        d = _broadcast_dim(em, a, b)
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
    result: ShapeResult = list(shapes[0])
    for i, shape in enumerate(shapes[1:], start=1):
        what = f"operand {i}" if len(shapes) > 2 else "operands"
        result = _broadcast_pair(em, result, shape, what)
        if isinstance(result, ShapeFailure):
            return result
    return result


def expand(em: IndexEmitter, shape: Shape, target: Shape) -> ShapeResult:
    """Expand: broadcast of the input shape with the shape operand's values."""
    em.mark_extents(shape)
    return _broadcast_pair(em, shape, target, "Expand")


# --------------------------------------------------------------------------------------
# Contractions
# --------------------------------------------------------------------------------------


def _contraction_check(ka: Dim, kb: Dim, what: str) -> ShapeFailure | None:
    if isinstance(ka, int) and isinstance(kb, int) and ka != kb:
        return ShapeFailure(f"{what} contraction dims differ: {ka} vs {kb}")
    return None


def matmul(em: IndexEmitter, a: Shape, b: Shape) -> ShapeResult:
    """MatMul with NumPy semantics: rank-1 operands are promoted and the added dim removed."""
    if not a or not b:
        return ShapeFailure(
            f"MatMul operands need rank >= 1, got {format_shape(a)} and {format_shape(b)}"
        )
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
