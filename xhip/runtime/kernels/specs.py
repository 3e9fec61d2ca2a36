"""From a hip op (its class, properties and operand facts) to the kernel specializations
that run it.

A `KernelSpec` is one specialization: the template family, the Jinja variables that fix
the code (dtypes, rank, contiguity, vector width, broadcast pattern) and so the kernel's
name and argument ABI. Everything dynamic (extents, strides, offsets) is a kernel argument.

Operand facts come from the final IR (`spec_for_op`: `?` dims and strided layouts are
unknown) or from a launch (`specs_for_launch` with concrete shapes and strides): the
same rules serve both, and a spec chosen from the IR is correct for every launch. What
each op computes comes from its class (`TEMPLATE`, `C_EXPR`, `REDUCE_*`,
`MAY_ALIAS_INPUT` in xhip/dialects/hip/compute.py); nothing here lists ops again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
import hashlib
from dataclasses import dataclass, replace

import numpy as np

from xhip.runtime.kernels.abi import KernelABI, Launch, Param, dims, index, pointer, value
from xhip.runtime.kernels.attention_specs import attention_specs
# KernelSpec, Operand and pairs are re-exported: the runtime and the tests take them from here.
from xhip.runtime.kernels.spec_types import (  # noqa: F401
    UNSIGNED_OF_SIZE, Attributes, CType, KernelSpec, OpClass, Operand, ctype, header_needs, kernel_name, pairs,
)

# ---- elementwise (n-ary broadcast, with a fused chain form) -----------------------------

CONTIGUOUS, SCALAR, STRIDED = "c", "0", "s"


@dataclass(frozen=True)
class ChainStep:
    """One op of a fused elementwise chain: `expr` (a C_EXPR with its properties filled
    in) applied to `args`, each an input (`in2`) or an earlier step's result (`t0`)."""

    op: str
    expr: str
    args: tuple[str, ...]


def _layout(x: Operand, out: Operand, assume_equal: bool) -> tuple[str, tuple[int, ...]]:
    """How an input is read: contiguous at the output's index, a scalar, or strided;
    with the output axes it is known to broadcast along (their strides are compiled out)."""
    if all(d == 1 for d in x.shape):
        return SCALAR, ()
    lead = out.rank - x.rank
    broadcast = tuple(range(lead)) + tuple(
        lead + i for i, d in enumerate(x.shape) if d == 1 and out.shape[lead + i] != 1
    )
    same = lead == 0 and all(
        d == o and (d is not None or assume_equal) for d, o in zip(x.shape, out.shape)
    )
    if same and x.contiguous and out.contiguous:
        return CONTIGUOUS, ()
    return STRIDED, broadcast


def elementwise_spec(
    steps: Sequence[ChainStep],
    inputs: Sequence[Operand],
    out: Operand,
    *,
    may_alias_input: bool,
    assume_equal: bool = False,
) -> KernelSpec:
    """The kernel computing `steps` (the last one's result is the output) over broadcast
    `inputs`. `assume_equal` takes unknown extents to match the output's (no broadcast
    at run time): the specialization a launch with equal shapes picks."""
    rank = out.rank
    layouts = [_layout(x, out, assume_equal) for x in inputs]
    vector = all(kind != STRIDED for kind, _ in layouts) and out.contiguous
    small = all(x.dtype.itemsize <= 4 for x in [*inputs, out])
    vec = 4 if vector and small else 1
    strided = [kind == STRIDED for kind, _ in layouts]
    params: list[Param] = [index("n")]
    if any(strided) or not out.contiguous:
        params.append(dims("extents", rank))
    for i, (x, is_strided) in enumerate(zip(inputs, strided)):
        params.append(pointer(f"in{i}", ctype(x.dtype).c))
        if is_strided:
            params.append(dims(f"in{i}_strides", rank))
    params.append(pointer("out", ctype(out.dtype).c, const=False))
    if not out.contiguous:
        params.append(dims("out_strides", rank))
    codes = [kind + "".join("b" if d in axes else "x" for d in range(rank)) if kind == STRIDED else kind for kind, axes in layouts]
    name = kernel_name(
        "ew",
        "_".join(dict.fromkeys(s.op for s in steps)),
        "_".join(ctype(x.dtype).short for x in inputs),
        ctype(out.dtype).short,
        f"r{rank}",
        "_".join(codes) or "none",
        "oc" if out.contiguous else "os",
        f"v{vec}",
    )
    abi = KernelABI(name, tuple(params), Launch.ELEMENTS, per_thread=vec, may_alias_input=may_alias_input)
    operands = [
        (f"in{i}", ctype(x.dtype).compute, ctype(x.dtype).c, kind, tuple(d for d in range(rank) if d not in axes))
        for i, (x, (kind, axes)) in enumerate(zip(inputs, layouts))
    ]
    indexed = [(f"in{i}", f"in{i}_strides", axes) for i, (*_, kind, axes) in enumerate(operands) if kind == STRIDED]
    if not out.contiguous:
        indexed.append(("out", "out_strides", tuple(range(rank))))
    context = (
        ("rank", rank),
        ("vec", vec),
        ("operands", tuple(operands)),
        ("indexed", tuple((n, s, pairs(axes)) for n, s, axes in indexed)),
        ("steps", tuple((s.expr, tuple(a + "_v" if a.startswith("in") else a for a in s.args)) for s in steps)),
        ("out_c", ctype(out.dtype).c),
        ("out_contiguous", out.contiguous),
    )
    return KernelSpec("elementwise", abi, context, header_needs(*(x.dtype for x in inputs), out.dtype))


def op_chain_steps(op_class: OpClass, attributes: Attributes, arity: int) -> list[ChainStep]:
    """An op's C_EXPR as chain steps over inputs in0..: a binary expression of a variadic
    op folds left to right."""
    expr: str = op_class.C_EXPR
    name = op_class.name.removeprefix("hip.")
    props = {k: v for k, v in attributes.items() if isinstance(v, str)}
    # A property the expression spells is part of the kernel's name (gelu_tanh).
    name += "".join(f"_{v}" for k, v in sorted(props.items()) if f"{{{k}}}" in expr)
    # Properties are spelled in now; the operands stay placeholders for the chain.
    filled = expr.format(**props, a="{a}", b="{b}", c="{c}")
    uses = sum(f"{{{letter}}}" in expr for letter in "abc")
    if arity == 1 and uses == 2:  # a variadic op of one input is a copy
        return [ChainStep(name, "{a}", ("in0",))]
    if uses >= arity:
        return [ChainStep(name, filled, tuple(f"in{i}" for i in range(uses)))]
    steps = [ChainStep(name, filled, ("in0", "in1"))]
    for i in range(2, arity):
        steps.append(ChainStep(name, filled, (f"t{i - 2}", f"in{i}")))
    return steps


@dataclass(frozen=True)
class FusedStep:
    """One step of `hip.fused_elementwise` as plain values (its `#hip.step` attribute, read
    by xhip.runtime.kernels.collect): the step op's name, its arguments (`in2`, `t0`), the
    element type of its result and the op's own properties."""

    op: str
    args: tuple[str, ...]
    dtype: np.dtype
    attributes: tuple[tuple[str, object], ...] = ()


def fused_chain_steps(op_class: OpClass, attributes: Attributes) -> list[ChainStep]:
    """A fused op's steps as one chain: each step's C_EXPR filled in as a single op's is
    (`op_chain_steps`, so a variadic step folds too), its arguments renamed to the fused
    op's inputs and chain results. An intermediate result is converted to its step's
    element type and back, as if the unfused op had stored it and the next had read it."""
    steps: Sequence[FusedStep] = attributes["steps"]  # type: ignore[assignment]
    chain: list[ChainStep] = []
    results: dict[str, str] = {}  # a step's result (t1) -> its chain variable (t3)
    for number, step in enumerate(steps):
        own = op_chain_steps(op_class.step_class(step.op), dict(step.attributes), len(step.args))
        operands = [results.get(arg, arg) for arg in step.args]
        base = len(chain)
        for part in own:
            args = tuple(operands[int(a[2:])] if a.startswith("in") else f"t{base + int(a[1:])}" for a in part.args)
            chain.append(ChainStep(part.op, part.expr, args))
        if number < len(steps) - 1:
            c, last = ctype(step.dtype), chain[-1]
            chain[-1] = ChainStep(last.op, f"({c.compute})({c.c})({last.expr})", last.args)
        results[f"t{number}"] = f"t{len(chain) - 1}"
    return chain


def fused_elementwise_spec(
    op_class: OpClass, attributes: Attributes, ins: Sequence[Operand], out: Operand, *, assume_equal: bool = False
) -> KernelSpec:
    """The one kernel of a fused chain. Its name lists the step ops and a digest of the
    chain's expressions and wiring: two chains of the same ops wired differently are two
    kernels."""
    chain = fused_chain_steps(op_class, attributes)
    spec = elementwise_spec(chain, ins, out, may_alias_input=op_class.MAY_ALIAS_INPUT, assume_equal=assume_equal)
    wiring = hashlib.sha256(repr([(s.expr, s.args) for s in chain]).encode()).hexdigest()[:8]
    name = spec.name.replace("xhip_ew_", f"xhip_ew_fused_{wiring}_", 1)
    return replace(spec, abi=replace(spec.abi, name=name))


def render_chain_expr(expr: str, args: Sequence[str]) -> str:
    """`expr` with `{a}`, `{b}`, `{c}` replaced by the C variables `args`."""
    for letter, arg in zip("abc", args):
        expr = expr.replace(f"{{{letter}}}", arg)
    return expr


# ---- families over one output ----------------------------------------------------------


def _row_params(picked: str, folded: str, picked_rank: int, folded_rank: int, length: str, c: CType, *, y_folded: bool) -> list[Param]:
    """The ABI head shared by row and reduction kernels: the `picked` dims choose a row
    (one per block), the `folded` dims (`length` elements) make it; x strides for both,
    y strides for both (rows) or only for the picked dims (reductions)."""
    params = [
        index("rows"), dims(f"{picked}_extents", picked_rank), dims(f"{folded}_extents", folded_rank), index(length),
        pointer("x", c.c), dims(f"x_{picked}_strides", picked_rank), dims(f"x_{folded}_strides", folded_rank),
        pointer("y", c.c, const=False), dims(f"y_{picked}_strides", picked_rank),
    ]  # fmt: skip
    return params + [dims(f"y_{folded}_strides", folded_rank)] if y_folded else params


def _rows_spec(
    op: str, x: Operand, outer: int, inner: int, extra: Sequence[Param] = (), flags: Mapping[str, object] = {}, *, alias: bool
) -> KernelSpec:
    c = ctype(x.dtype)
    params = [*_row_params("outer", "inner", outer, inner, "row_length", c, y_folded=True), *extra]
    tags = "".join(f"_{k}" for k, v in flags.items() if v is True)
    name = kernel_name("row", op, c.short, f"o{outer}", f"i{inner}") + tags
    abi = KernelABI(name, tuple(params), Launch.ROWS, count="rows", may_alias_input=alias)
    context = (("op", op), ("outer", outer), ("inner", inner), ("c", c.c), ("compute", c.compute), *flags.items())
    return KernelSpec("row", abi, tuple(context), header_needs(x.dtype))


SOFTMAX_CACHED = 8
"""Elements of a softmax row each thread keeps in registers: a row of up to this many
times the block (2048 at 256 threads) is read from memory once, not three times."""


def row_specs(op_class: OpClass, attributes: Attributes, ins: Sequence[Operand], outs: Sequence[Operand]) -> list[KernelSpec]:
    x, rank, alias = ins[0], ins[0].rank, op_class.MAY_ALIAS_INPUT
    axis = int(attributes.get("axis", -1)) % max(rank, 1)
    name = op_class.name.removeprefix("hip.")
    if name == "softmax":
        extra = [value("scale", ctype(x.dtype).compute)]
        has_bias = len(ins) == 2
        if has_bias:
            extra += [pointer("bias", ctype(x.dtype).c), dims("bias_outer_strides", rank - 1), dims("bias_inner_strides", 1)]
        flags = {"bias": has_bias, "zero_nan": bool(attributes.get("zero_nan", False)), "cache": SOFTMAX_CACHED}
        return [_rows_spec(name, x, rank - 1, 1, extra, flags, alias=alias)]
    compute = ctype(x.dtype).compute
    inner = rank - axis
    extra = [pointer("scale", ctype(x.dtype).c), dims("scale_strides", inner)]
    has_bias = len(ins) == 3
    if has_bias:
        extra += [pointer("bias", ctype(x.dtype).c), dims("bias_strides", inner)]
    extra.append(value("epsilon", compute))
    return [_rows_spec(name, x, axis, inner, extra, {"bias": has_bias}, alias=alias)]


def reduce_specs(op_class: OpClass, attributes: Attributes, ins: Sequence[Operand], outs: Sequence[Operand]) -> list[KernelSpec]:
    x = ins[0]
    axes = [int(a) % x.rank for a in attributes.get("axes", ())] or list(range(x.rank))
    kept, reduced = x.rank - len(set(axes)), len(set(axes))
    c, op = ctype(x.dtype), op_class.name.removeprefix("hip.")
    identity = "xhip_lowest<ACC>()" if op_class.REDUCE_IDENTITY == "lowest" else f"(ACC){op_class.REDUCE_IDENTITY}"
    params = tuple(_row_params("kept", "reduced", kept, reduced, "count", c, y_folded=False))
    abi = KernelABI(kernel_name("reduce", op.removeprefix("reduce_"), c.short, f"k{kept}", f"r{reduced}"), params, Launch.ROWS, count="rows")
    context = (
        ("kept", kept),
        ("reduced", reduced),
        ("c", c.c),
        ("compute", c.compute),
        ("combine", op_class.REDUCE_COMBINE),
        ("identity", identity),
        ("finish", op_class.REDUCE_FINISH),
    )
    return [KernelSpec("reduce", abi, context, header_needs(x.dtype))]


def copy_spec(itemsize: int, rank: int, out_contiguous: bool, triangle: str | None = None) -> KernelSpec:
    """The strided copy behind transpose, slice, concat, split, expand and reshape copies:
    `y[i] = x[i]` for every index i of the extents, each side with its own strides.
    `triangle` ("upper" or "lower", Trilu) keeps only the elements on that side of
    diagonal `k` of each matrix (the last two dims) and writes 0 bits elsewhere."""
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


def copy_specs(op_class: OpClass, attributes: Attributes, ins: Sequence[Operand], outs: Sequence[Operand]) -> list[KernelSpec]:
    """One copy per piece: concat writes each input into a window of its output (never
    contiguous when there are several), split reads a window of its input per output."""
    itemsize, name = outs[0].dtype.itemsize, op_class.name
    if name == "hip.concat":
        return [copy_spec(itemsize, outs[0].rank, outs[0].contiguous and len(ins) == 1) for _ in ins]
    if name == "hip.trilu":
        triangle = "upper" if int(attributes.get("upper", 1)) else "lower"
        return [copy_spec(itemsize, outs[0].rank, outs[0].contiguous, triangle)]
    return [copy_spec(itemsize, out.rank, out.contiguous) for out in outs]


def gather_specs(op_class: OpClass, attributes: Attributes, ins: Sequence[Operand], outs: Sequence[Operand]) -> list[KernelSpec]:
    data, indices = ins
    out_rank, axis = outs[0].rank, int(attributes.get("axis", 0)) % data.rank
    return [gather_spec("gather", data.dtype.itemsize, indices.dtype, data.rank, indices.rank, out_rank, axis=axis)]


def gather_elements_specs(op_class: OpClass, attributes: Attributes, ins: Sequence[Operand], outs: Sequence[Operand]) -> list[KernelSpec]:
    data, indices = ins
    axis = int(attributes.get("axis", 0)) % data.rank
    return [gather_spec("gather_elements", data.dtype.itemsize, indices.dtype, data.rank, indices.rank, outs[0].rank, axis=axis)]


def gather_nd_specs(op_class: OpClass, attributes: Attributes, ins: Sequence[Operand], outs: Sequence[Operand]) -> list[KernelSpec]:
    data, indices = ins
    depth = indices.shape[-1]
    if depth is None:
        raise ValueError("gather_nd needs a static index depth (the last dim of indices)")
    batch = int(attributes.get("batch_dims", 0))
    return [gather_spec("gather_nd", data.dtype.itemsize, indices.dtype, data.rank, indices.rank, outs[0].rank, depth=depth, batch=batch)]


def gather_spec(
    kind: str, itemsize: int, index_dtype: np.dtype, data_rank: int, indices_rank: int, out_rank: int, *, axis: int = 0, depth: int = 0, batch: int = 0
) -> KernelSpec:
    """gather (along `axis`), gather_nd (`depth` leading data dims per index row after
    `batch` shared dims) or gather_elements (same rank everywhere, along `axis`)."""
    bits, idx = UNSIGNED_OF_SIZE[itemsize], ctype(index_dtype)
    params = (
        index("n"),
        dims("extents", out_rank),
        pointer("data", bits),
        dims("data_extents", data_rank),
        dims("data_strides", data_rank),
        pointer("indices", idx.c),
        dims("indices_strides", indices_rank),
        pointer("out", bits, const=False),
        dims("out_strides", out_rank),
        pointer("status", "long long", const=False),
    )
    tag = {"gather": f"a{axis}", "gather_elements": f"a{axis}", "gather_nd": f"q{depth}_bd{batch}"}[kind]
    name = kernel_name(kind, f"b{itemsize}", idx.short, f"d{data_rank}", f"i{indices_rank}", tag)
    context = (
        ("kind", kind), ("c", bits), ("idx", idx.c), ("data_rank", data_rank), ("indices_rank", indices_rank),
        ("out_rank", out_rank), ("axis", axis), ("depth", depth), ("batch", batch),
    )  # fmt: skip
    return KernelSpec("gather", KernelABI(name, params, Launch.ELEMENTS), context)


def cumsum_specs(op_class: OpClass, attributes: Attributes, ins: Sequence[Operand], outs: Sequence[Operand]) -> list[KernelSpec]:
    x = ins[0]
    c, outer = ctype(x.dtype), x.rank - 1
    exclusive, reverse = bool(attributes.get("exclusive", False)), bool(attributes.get("reverse", False))
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
    abi = KernelABI(name, params, Launch.ELEMENTS, count="rows", may_alias_input=op_class.MAY_ALIAS_INPUT)
    context = (("outer", outer), ("c", c.c), ("compute", c.compute), ("exclusive", exclusive), ("reverse", reverse))
    return [KernelSpec("cumsum", abi, context, header_needs(x.dtype))]


def generate_specs(op_class: OpClass, attributes: Attributes, ins: Sequence[Operand], outs: Sequence[Operand]) -> list[KernelSpec]:
    """range: `y[i] = start + i * delta` (rank 1); fill: every element is `value`."""
    out = outs[0]
    c, op = ctype(out.dtype), op_class.name.removeprefix("hip.")
    if op == "range":
        params: tuple[Param, ...] = (index("n"), pointer("y", c.c, const=False), index("y_stride"), value("start", c.compute), value("delta", c.compute))
        name = kernel_name("range", c.short)
    else:
        params = (index("n"), dims("extents", out.rank), pointer("y", c.c, const=False), dims("y_strides", out.rank), value("value", c.compute))
        name = kernel_name("fill", c.short, f"r{out.rank}")
    context = (("op", op), ("rank", out.rank), ("c", c.c))
    return [KernelSpec("generate", KernelABI(name, params, Launch.ELEMENTS), context, header_needs(out.dtype))]


def nonzero_specs(op_class: OpClass, attributes: Attributes, ins: Sequence[Operand], outs: Sequence[Operand]) -> list[KernelSpec]:
    """One block scans the input in order and writes the indices of nonzero elements as
    columns of `indices` (row stride `capacity`), then their number into `count`."""
    x, count = ins[0], outs[1]
    c, cnt = ctype(x.dtype), ctype(count.dtype)
    params = (
        index("n"),
        dims("extents", x.rank),
        pointer("x", c.c),
        dims("x_strides", x.rank),
        pointer("indices", "long long", const=False),
        index("capacity"),
        pointer("count", cnt.c, const=False),
    )
    abi = KernelABI(kernel_name("nonzero", c.short, f"r{x.rank}", cnt.short), params, Launch.SINGLE_BLOCK)
    return [KernelSpec("nonzero", abi, (("rank", x.rank), ("c", c.c), ("count_c", cnt.c)), header_needs(x.dtype))]


def matmul_spec(dtype: np.dtype, batch_rank: int, has_bias: bool) -> KernelSpec:
    """`c = alpha * a @ b (+ beta * bias)`, tiled, for what BLAS cannot take (integers, odd
    strides). Row and column strides per operand express transposes and rank-1 operands."""
    c = ctype(dtype)
    params: list[Param] = [index("m"), index("n"), index("k"), dims("batch_extents", batch_rank)]
    for operand in ("a", "b", "c"):
        params += [
            pointer(operand, c.c, const=operand != "c"),
            dims(f"{operand}_batch_strides", batch_rank),
            index(f"{operand}_row_stride"),
            index(f"{operand}_col_stride"),
        ]
    if has_bias:
        params += [pointer("bias", c.c), index("bias_row_stride"), index("bias_col_stride"), value("beta", "double")]
    params.append(value("alpha", "double"))
    name = kernel_name("matmul", c.short, f"b{batch_rank}") + ("_bias" if has_bias else "")
    abi = KernelABI(name, tuple(params), Launch.TILES)
    context = (("batch_rank", batch_rank), ("c", c.c), ("compute", c.compute), ("bias", has_bias), ("tile", 16))
    return KernelSpec("matmul", abi, context, header_needs(dtype))


def matmul_specs(op_class: OpClass, attributes: Attributes, ins: Sequence[Operand], outs: Sequence[Operand]) -> list[KernelSpec]:
    batch_rank = max(max(x.rank for x in ins[:2]), 2) - 2
    return [matmul_spec(outs[0].dtype, batch_rank, len(ins) == 3)]


def elementwise_specs(
    op_class: OpClass, attributes: Attributes, ins: Sequence[Operand], outs: Sequence[Operand], *, assume_equal: bool = False
) -> list[KernelSpec]:
    if hasattr(op_class, "step_class"):  # hip.fused_elementwise names its steps' classes
        return [fused_elementwise_spec(op_class, attributes, ins, outs[0], assume_equal=assume_equal)]
    steps = op_chain_steps(op_class, attributes, len(ins))
    # A same-shape op's input has the output's extents whatever the IR types can show.
    same_shape = str(getattr(op_class, "SHAPE_RULE", "")) == "same_shape"
    alias = op_class.MAY_ALIAS_INPUT
    return [elementwise_spec(steps, ins, outs[0], may_alias_input=alias, assume_equal=assume_equal or same_shape)]


Builder = Callable[[OpClass, Attributes, Sequence[Operand], Sequence[Operand]], list[KernelSpec]]

FAMILIES: dict[str, Builder] = {
    "elementwise": elementwise_specs,
    "row": row_specs,
    "reduce": reduce_specs,
    "copy": copy_specs,
    "gather": gather_specs,
    "gather_elements": gather_elements_specs,
    "gather_nd": gather_nd_specs,
    "cumsum": cumsum_specs,
    "generate": generate_specs,
    "nonzero": nonzero_specs,
    "matmul": matmul_specs,
    "attention": attention_specs,
}
"""Spec builders by the TEMPLATE an op class names."""


def specs_for_launch(
    op_class: OpClass, attributes: Attributes, ins: Sequence[Operand], outs: Sequence[Operand], *, assume_equal: bool = False
) -> list[KernelSpec]:
    """The kernels that run one op over operands with these facts (launch order)."""
    template = getattr(op_class, "TEMPLATE", None)
    if template not in FAMILIES:
        raise ValueError(f"'{op_class.name}' names no kernel template")
    if template == "elementwise":
        return elementwise_specs(op_class, attributes, ins, outs, assume_equal=assume_equal)
    return FAMILIES[template](op_class, attributes, ins, outs)
