"""The matmul family: MatMul (batched, broadcast, rank-1 promotion, `trans_b`) and Gemm
(transposes, alpha, beta, a C broadcast to [M, N]).

A float launch whose operands a vendor BLAS can express (`gemm_call`: row and column
strides that make leading dimensions, batch strides that nest) runs on cuBLAS / hipBLAS;
everything else runs the tiled template (templates/matmul.hip.j2), whose row and column
strides per operand express transposes and rank-1 operands.

Reference: NumPy in the compute dtype, rounded once into the output.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np

from xhip.dialects import hip
from xhip.dtypes import HALF_DTYPES
from xhip.index.symbolic import same_extent
from xhip.kernels.abi import GemmCall, KernelABI, Launch, Param, dims, index, pointer, value
from xhip.kernels.family import LibraryRule, OpFacts, Site, Values, View, ViewLike, broadcast_strides, dense_strides, matrix_strides
from xhip.kernels.reference import Elements, KernelCall, compute_operands, compute_scalar, register, shape_text
from xhip.kernels.spec_types import KernelSpec, ctype, header_needs, kernel_name

TEMPLATES = ("matmul",)

BLAS_DTYPES = (np.dtype(np.float32), np.dtype(np.float64), *sorted(HALF_DTYPES, key=str))
"""The dtypes a vendor BLAS may take (a driver's `prepare_call` answers None for one it does
not: the launch runs the template then); half precision accumulates in float32."""


def widens_to_float32(a: np.dtype, c: np.dtype) -> bool:
    """Whether a matmul of `a` operands writes `c` as hip-fold-cast-into-matmul makes it:
    half operands into float32 (accumulated in float32, rounded once into it)."""
    return a in HALF_DTYPES and c == np.float32


def blas_takes(a: np.dtype, c: np.dtype) -> bool:
    """Whether a vendor BLAS may take a matmul of `a` operands into `c`: one of BLAS_DTYPES
    throughout, or half operands into float32."""
    return a in BLAS_DTYPES and (c == a or widens_to_float32(a, c))


def matmul_spec(dtype: np.dtype, batch_rank: int, has_bias: bool, out_dtype: np.dtype | None = None) -> KernelSpec:
    """`c = alpha * a @ b (+ beta * bias)`, tiled, for what BLAS cannot take (integers, odd
    strides). Row and column strides per operand express transposes and rank-1 operands.
    `out_dtype`: C's element type where it is not the operands' (float32 from half)."""
    c = ctype(dtype)
    out = ctype(dtype if out_dtype is None else out_dtype)
    params: list[Param] = [index("m"), index("n"), index("k"), dims("batch_extents", batch_rank)]
    for operand in ("a", "b", "c"):
        params += [
            pointer(operand, out.c if operand == "c" else c.c, const=operand != "c"),
            dims(f"{operand}_batch_strides", batch_rank),
            index(f"{operand}_row_stride"),
            index(f"{operand}_col_stride"),
        ]
    if has_bias:
        params += [pointer("bias", c.c), index("bias_row_stride"), index("bias_col_stride"), value("beta", "double")]
    params.append(value("alpha", "double"))
    types = c.short if out is c else f"{c.short}_{out.short}"
    name = kernel_name("matmul", types, f"b{batch_rank}") + ("_bias" if has_bias else "")
    abi = KernelABI(name, tuple(params), Launch.TILES)
    context = (("batch_rank", batch_rank), ("c", out.c), ("compute", c.compute), ("bias", has_bias), ("tile", 16))
    return KernelSpec("matmul", abi, context, header_needs(dtype, out_dtype or dtype))


def matmul_specs(facts: OpFacts) -> list[KernelSpec]:
    ins, out = facts.inputs, facts.outputs[0].dtype
    batch_rank = max(max(x.rank for x in ins[:2]), 2) - 2
    return [matmul_spec(ins[0].dtype, batch_rank, len(ins) == 3, None if out == ins[0].dtype else out)]


def _terms(facts: OpFacts) -> tuple[bool, bool, float, float]:
    """(trans_a, trans_b, alpha, beta): Gemm's properties; a MatMul is A @ B (op(B) by its
    `trans_b`)."""
    props = facts.props
    if facts.op_class is hip.GemmOp:
        return bool(props.trans_a), bool(props.trans_b), float(props.alpha), float(props.beta)
    return False, bool(props.trans_b), 1.0, 1.0


def site(facts: OpFacts) -> Site:
    trans_a, trans_b, alpha, beta = _terms(facts)

    def values(ins: Sequence[ViewLike], outs: Sequence[ViewLike], scalars: Sequence[int | float]) -> list[Values]:
        a, b, c = ins[0], ins[1], outs[0]
        batch_rank = max(len(a.shape), len(b.shape), 2) - 2
        batch = c.shape[:batch_rank]
        a_batch, a_row, a_col = matrix_strides(a, batch, vector_is_row=True)
        b_batch, b_row, b_col = matrix_strides(b, batch, vector_is_row=False)
        a_rows, a_cols = (1, a.shape[0]) if len(a.shape) == 1 else a.shape[-2:]
        b_rows, b_cols = (b.shape[0], 1) if len(b.shape) == 1 else b.shape[-2:]
        m, k = (a_rows, a_cols)
        if trans_a:
            (m, k), (a_row, a_col) = (a_cols, a_rows), (a_col, a_row)
        n = b_cols
        if trans_b:
            n, (b_row, b_col) = b_rows, (b_col, b_row)
        # A vector operand's unit dim is dropped from the output: its stride is never used.
        tail = c.strides[batch_rank:]
        c_row = tail[0] if len(a.shape) > 1 else 0
        c_col = tail[-1] if len(b.shape) > 1 else 0
        result: Values = {
            "m": m, "n": n, "k": k, "batch_extents": batch, "alpha": alpha,
            "a": a.address, "a_batch_strides": a_batch, "a_row_stride": a_row, "a_col_stride": a_col,
            "b": b.address, "b_batch_strides": b_batch, "b_row_stride": b_row, "b_col_stride": b_col,
            "c": c.address, "c_batch_strides": c.strides[:batch_rank], "c_row_stride": c_row, "c_col_stride": c_col,
        }  # fmt: skip
        if len(ins) == 3:
            bias_row, bias_col = broadcast_strides(ins[2], (m, n))
            result.update(bias=ins[2].address, bias_row_stride=bias_row, bias_col_stride=bias_col, beta=beta)
        return [result]

    a_dtype, c_dtype = facts.inputs[0].dtype, facts.outputs[0].dtype
    blas = len(facts.inputs) == 2 and blas_takes(a_dtype, c_dtype)
    library = LibraryRule("blas", functools.partial(gemm_call, dtype=a_dtype, c_dtype=c_dtype)) if blas else None
    return Site(facts, (tuple(matmul_specs(facts)),), values, library=library)


# ---- vendor BLAS --------------------------------------------------------------------------


def _matrix_layout(row: int, col: int) -> tuple[int, bool] | None:
    """(leading dimension, transposed) of a matrix with these element strides, for BLAS."""
    if col == 1:
        return row, False
    if row == 1:
        return col, True
    return None


def _batch_stride(strides: Sequence[int], extents: Sequence[int]) -> int | None:
    """The one stride that walks the flattened batch, or None if the batch dims do not nest."""
    # A dim only known to be 1 in some runs counts as live (asking would split the class).
    live = [(s, e) for s, e in zip(strides, extents) if not same_extent(e, 1)]
    if not live:
        return 0
    if all(s == 0 for s, _ in live):
        return 0
    step = live[-1][0]
    expected = step
    for stride, extent in reversed(live):
        if stride != expected:
            return None
        expected = stride * extent
    return step


_GEMM_INTS = ("m", "n", "k", "a_row_stride", "a_col_stride", "b_row_stride", "b_col_stride", "c_row_stride", "c_col_stride", "a", "b", "c")


def _gemm_ints(values: Values) -> list[int]:
    """The integer entries of a matmul's launch values that a GEMM takes, in `_GEMM_INTS` order."""
    return [values[name] for name in _GEMM_INTS]  # type: ignore[misc]  # matmul's values for these are ints


def gemm_call(values: Values, dtype: np.dtype, c_dtype: np.dtype | None = None) -> GemmCall | None:
    """The strided-batched GEMM of a matmul's launch values (operands of `dtype`, C of
    `c_dtype` where that differs), or None when BLAS cannot express it. (On every BLAS
    launch's path: plain ints, no conversions.)"""
    batch: tuple[int, ...] = values["batch_extents"]  # type: ignore[assignment]
    m, n, k, a_row, a_col, b_row, b_col, c_row, c_col, a_address, b_address, c_address = _gemm_ints(values)
    a = _matrix_layout(a_row, a_col)
    b = _matrix_layout(b_row, b_col)
    if a is None or b is None or c_col not in (1, 0) or m < 1 or n < 1 or k < 1:
        return None
    strides: list[int | None]
    if batch:
        strides = [_batch_stride(values[f"{x}_batch_strides"], batch) for x in "abc"]  # type: ignore[arg-type]
        if None in strides:
            return None
    else:
        strides = [0, 0, 0]
    a_batch, b_batch, c_batch = (0 if s is None else s for s in strides)
    lda, trans_a = a
    ldb, trans_b = b
    ldc = n if same_extent(m, 1) else c_row  # a single row's stride is never stepped
    # A stride of 0 on a unit dim (a vector operand) is any valid leading dimension.
    lda = lda or (m if trans_a else k)
    ldb = ldb or (k if trans_b else n)
    # BLAS reads each matrix column-major with these leading dimensions: they must not overlap rows.
    if lda < (m if trans_a else k) or ldb < (k if trans_b else n) or ldc < n:
        return None
    batch_count = math.prod(batch)
    if b_batch == 0 and not trans_a and a_batch == m * lda and c_batch == m * ldc and batch_count != 0:
        # B broadcast over a batch of A whose matrices follow each other row after row (a
        # weight applied to [batch, seq, k] activations): one GEMM of batch * m rows, which
        # BLAS tiles far better than `batch` GEMMs of m rows.
        m, batch_count, a_batch, b_batch, c_batch = m * batch_count, 1, 0, 0, 0
    return GemmCall(
        m, n, k,
        a_address, max(lda, 1), a_batch, trans_a,
        b_address, max(ldb, 1), b_batch, trans_b,
        c_address, max(ldc, 1), c_batch,
        batch_count, dtype, values["alpha"],  # type: ignore[arg-type]
        c_dtype=None if c_dtype == dtype else c_dtype,
    )  # fmt: skip


WARM_ROWS = (1, 16, 64, 128, 256, 512, 1024, 2048)
"""The rows at which a BLAS matmul's GEMM is run once when it is loaded (`warmup_calls`):
a vendor BLAS picks its kernels per shape and the driver loads each on its first call
(CUDA's lazy loading: 10 to 40 ms a kernel on the H200, and over 100 ms for cuBLAS's very
first call), which a first run at a new shape would otherwise wait for."""


def _dense(shape: tuple[int, ...], dtype: np.dtype, address: int) -> tuple[View, int]:
    """A row-major view at `address`, and its bytes."""
    return View(address, dtype, shape, dense_strides(shape)), math.prod(shape) * dtype.itemsize  # type: ignore[arg-type]


def _with_rows(shape: tuple[int | None, ...], rows: int) -> tuple[int, ...]:
    """`shape` with its last run-time extent `rows` and every other one 1."""
    last = max(d for d, extent in enumerate(shape) if extent is None)
    return tuple(rows if d == last else (1 if extent is None else extent) for d, extent in enumerate(shape))


def warmup_calls(site: Site, scratch: int, scratch_bytes: int) -> list[GemmCall]:
    """The GEMMs the site's launches make when its rows (the last run-time extent of A and of
    C, every other one 1) are each of `WARM_ROWS`, with dense operands in the `scratch_bytes`
    at `scratch`; none where B or the extents of k and n are not fixed at compile time, or an
    operand is strided (the sizes a run will meet are guesses, the layouts would be too)."""
    facts = site.facts
    if site.library is None or site.library.kind != "blas":
        return []
    a, b, c = facts.inputs[0], facts.inputs[1], facts.outputs[0]
    if not (a.contiguous and b.contiguous and c.contiguous) or None in b.shape or None in (a.shape[-1], c.shape[-1]):
        return []
    if None not in a.shape or None not in c.shape:
        return []
    calls = []
    for rows in WARM_ROWS:
        view_a, bytes_a = _dense(_with_rows(a.shape, rows), a.dtype, scratch)
        view_b, bytes_b = _dense(tuple(e for e in b.shape if e is not None), b.dtype, scratch + bytes_a)
        view_c, bytes_c = _dense(_with_rows(c.shape, rows), c.dtype, scratch + bytes_a + bytes_b)
        if bytes_a + bytes_b + bytes_c > scratch_bytes:
            break
        call = site.library.call(site.values([view_a, view_b], [view_c], [])[0])
        if isinstance(call, GemmCall):
            calls.append(call)
    return calls


# ---- reference ----------------------------------------------------------------------------


@register(hip.MatmulOp, inputs=(2, 2), elements=Elements.NUMERIC)
def matmul(call: KernelCall) -> None:
    """NumPy matmul: rank-1 operands are promoted and batch dims broadcast; `trans_b`
    reads B with its last two dims swapped; half operands may write a float32 output."""
    operands = call.inputs[0].dtype
    a, b = compute_operands(call, call.inputs, operands if widens_to_float32(operands, call.out.dtype) else None)
    if a.ndim < 1 or b.ndim < 1:
        raise call.error(
            f"operands must have rank >= 1, got {shape_text(a.shape)} and {shape_text(b.shape)}"
        )
    if call.props.trans_b:
        if b.ndim < 2:
            raise call.error(f"a transposed B must have rank >= 2, got {shape_text(b.shape)}")
        b = np.swapaxes(b, -1, -2)
    try:
        product = np.matmul(a, b)
    except ValueError:
        raise call.error(
            f"cannot multiply {shape_text(a.shape)} by {shape_text(b.shape)}"
        ) from None
    call.store(call.out, product)


@register(hip.GemmOp, inputs=(2, 3), elements=Elements.NUMERIC)
def gemm(call: KernelCall) -> None:
    """`alpha * op(A) @ op(B) + beta * C`, C broadcast to [M, N]."""
    a, b, *c = compute_operands(call, call.inputs)
    if a.ndim != 2 or b.ndim != 2:
        raise call.error(
            f"A and B must be matrices, got {shape_text(a.shape)} and {shape_text(b.shape)}"
        )
    a = a.T if call.props.trans_a else a
    b = b.T if call.props.trans_b else b
    if a.shape[1] != b.shape[0]:
        raise call.error(
            f"cannot multiply op(A) {shape_text(a.shape)} by op(B) {shape_text(b.shape)}"
        )
    result = compute_scalar(call, call.props.alpha) * (a @ b)
    beta = compute_scalar(call, call.props.beta)
    # ONNX: C does not take part when beta is 0 (so a nan in it does not leak through).
    if c and beta != 0:
        call.require_broadcast(c[0].shape, result.shape, "C")
        result = result + beta * c[0]
    call.store(call.out, result)
