"""The elementwise family (templates/elementwise.hip.j2): unary, binary and variadic ops,
comparisons, where, cast and fused chains (`hip.fused_elementwise`), over operands that
broadcast to the output.

Kernels: one per chain of C expressions (an op's C_EXPR, or a fused op's steps), dtypes,
rank and the way each input is read (contiguous at the output's index, a scalar, or
strided with its broadcast axes compiled out); four elements per thread where nothing is
strided. A site has two forms: the one the IR types prove for every launch, and the one
for launches whose inputs have the output's extents where the types cannot tell (no
run-time broadcast), which reads them contiguously.

Reference: each op's REFERENCE NumPy expression (xhip/dialects/hip/compute.py), evaluated
in this module's namespace with its dtypes checked by its ELEMENT, RESULT and INPUTS; pow,
where and cast are written out. A fused chain runs its steps' own reference kernels.

Arithmetic runs in the operands' dtype (float32 stays float32, like onnxruntime), half
floats in float32. erf and GELU are the exceptions: they are evaluated in float64 and
rounded, because their float32 forms cancel (1 + erf(x) for negative x)."""

from __future__ import annotations

import functools
import hashlib
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from xhip.dialects import hip
from xhip.dialects.hip.properties import FusedStep, properties_for
from xhip.kernels import special
from xhip.kernels.abi import KernelABI, Launch, Param, dims, index, pointer
from xhip.kernels.family import OpFacts, Site, Values, ViewLike, broadcast_strides
from xhip.kernels.reference import (
    BOOL_DTYPE,
    FLOAT_DTYPES,
    INT_DTYPES,
    KERNELS,
    Elements,
    KernelCall,
    compute_dtype,
    register,
    truncating_divide,
)
from xhip.kernels.spec_types import KernelSpec, OpClass, Operand, ctype, header_needs, kernel_name, pairs

TEMPLATES = ("elementwise",)

# ---- kernels ------------------------------------------------------------------------------

CONTIGUOUS, SCALAR, STRIDED, ROW = "c", "0", "s", "r"
"""How an input is read: at the output's index, one element, through strides, or as a row
(`_row_period`) repeated along the output's leading dims."""

VECTOR_BYTES = 16
"""What one thread of a contiguous elementwise kernel moves per operand: one 128-bit access."""
MAX_VEC = 8
"""Elements per thread at most (8 halves; 1-byte operands take 8, half a vector)."""


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


def _row_period(x: Operand, out: Operand) -> int | None:
    """The element count of an input that is the output's trailing dims, contiguous and of
    static extents, broadcast along the rest (a bias, a position table): element i of the
    output reads element i % period of it. None for any other input."""
    dims = list(x.shape)
    while dims and dims[0] == 1:
        dims.pop(0)
    tail = list(out.shape[len(out.shape) - len(dims) :]) if dims else []
    if not dims or len(dims) >= out.rank or not x.contiguous or dims != tail or None in dims:
        return None
    return math.prod(dims)  # type: ignore[arg-type]


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
    widest = max(x.dtype.itemsize for x in [*inputs, out])
    # 16 bytes of the widest operand per thread (4 floats, 8 halves), moved as one vector.
    vec = min(VECTOR_BYTES // widest, MAX_VEC) if widest <= 4 and out.contiguous else 1
    # Strided inputs that are rows whose length vectors divide are read as rows where that
    # leaves nothing strided: a vector of the output then reads a vector of each row (i %
    # period stays within one). Otherwise they stay strided, and nothing moves in vectors.
    periods = [_row_period(x, out) if kind == STRIDED else None for x, (kind, _) in zip(inputs, layouts)]
    if vec > 1 and all(kind != STRIDED or (p is not None and p % vec == 0) for (kind, _), p in zip(layouts, periods)):
        layouts = [(ROW, ()) if p is not None else layout for p, layout in zip(periods, layouts)]
    else:
        periods = [None] * len(inputs)
        vec = vec if all(kind != STRIDED for kind, _ in layouts) else 1
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
    codes = [
        kind + "".join("b" if d in axes else "x" for d in range(rank)) if kind == STRIDED else f"p{period}" if kind == ROW else kind
        for (kind, axes), period in zip(layouts, periods)
    ]
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
        (f"in{i}", ctype(x.dtype).compute, ctype(x.dtype).c, kind, tuple(d for d in range(rank) if d not in axes), period or 0)
        for i, (x, (kind, axes), period) in enumerate(zip(inputs, layouts, periods))
    ]
    indexed = [(f"in{i}", f"in{i}_strides", axes) for i, (*_, kind, axes, _) in enumerate(operands) if kind == STRIDED]
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


def op_chain_steps(op_class: OpClass, props: Mapping[str, object], arity: int) -> list[ChainStep]:
    """An op's C_EXPR as chain steps over inputs in0..: a binary expression of a variadic
    op folds left to right."""
    expr: str = op_class.C_EXPR
    name = op_class.name.removeprefix("hip.")
    props = {k: v for k, v in props.items() if isinstance(v, str)}
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


def fused_chain_steps(op_class: OpClass, props: Mapping[str, object]) -> list[ChainStep]:
    """A fused op's steps as one chain: each step's C_EXPR filled in as a single op's is
    (`op_chain_steps`, so a variadic step folds too), its arguments renamed to the fused
    op's inputs and chain results. An intermediate result is converted to its step's
    element type and back, as if the unfused op had stored it and the next had read it."""
    steps: Sequence[FusedStep] = props["steps"]  # type: ignore[assignment]
    chain: list[ChainStep] = []
    results: dict[str, str] = {}  # a step's result (t1) -> its chain variable (t3)
    for number, step in enumerate(steps):
        step_class = op_class.step_class(step.op)
        own = op_chain_steps(step_class, properties_for(step_class, dict(step.attributes)), len(step.args))
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
    op_class: OpClass, props: Mapping[str, object], ins: Sequence[Operand], out: Operand, *, assume_equal: bool = False
) -> KernelSpec:
    """The one kernel of a fused chain. Its name lists the step ops and a digest of the
    chain's expressions and wiring: two chains of the same ops wired differently are two
    kernels."""
    chain = fused_chain_steps(op_class, props)
    spec = elementwise_spec(chain, ins, out, may_alias_input=op_class.MAY_ALIAS_INPUT, assume_equal=assume_equal)
    wiring = hashlib.sha256(repr([(s.expr, s.args) for s in chain]).encode()).hexdigest()[:8]
    name = spec.name.replace("xhip_ew_", f"xhip_ew_fused_{wiring}_", 1)
    # An intermediate may be of a type no operand has (a float32 chain through a cast to half).
    steps: Sequence[FusedStep] = props["steps"]  # type: ignore[assignment]
    needs = tuple(sorted({*spec.needs, *header_needs(*(step.dtype for step in steps))}))
    return replace(spec, abi=replace(spec.abi, name=name), needs=needs)


def op_specs(facts: OpFacts, *, assume_equal: bool = False) -> list[KernelSpec]:
    """The kernel of one op; `assume_equal` takes unknown input extents to be the output's."""
    op_class, ins, out = facts.op_class, facts.inputs, facts.outputs[0]
    if op_class is hip.FusedElementwiseOp:
        return [fused_elementwise_spec(op_class, facts.props, ins, out, assume_equal=assume_equal)]
    steps = op_chain_steps(op_class, facts.props, len(ins))
    # A same-shape op's input has the output's extents whatever the IR types can show.
    same_shape = str(getattr(op_class, "SHAPE_RULE", "")) == "same_shape"
    alias = op_class.MAY_ALIAS_INPUT
    return [elementwise_spec(steps, ins, out, may_alias_input=alias, assume_equal=assume_equal or same_shape)]


def site(facts: OpFacts) -> Site:
    general, equal = op_specs(facts), op_specs(facts, assume_equal=True)
    if general == equal:
        return Site(facts, (tuple(general),), values)
    out = facts.outputs[0]
    # The inputs the equal form reads as the output's own elements although their types
    # leave some extent open: a launch takes that form when each has the output's shape.
    checked = tuple(
        i for i, x in enumerate(facts.inputs)
        if _layout(x, out, True)[0] == CONTIGUOUS and _layout(x, out, False)[0] != CONTIGUOUS
    )

    def form(ins: Sequence[ViewLike], outs: Sequence[ViewLike]) -> int:
        shape = outs[0].shape
        return 1 if all(ins[i].shape == shape for i in checked) else 0

    return Site(facts, (tuple(general), tuple(equal)), values, form)


_INPUT_NAMES = [(f"in{i}", f"in{i}_strides") for i in range(64)]
"""The parameter names of input i (spelled once, not per launch)."""


def values(ins: Sequence[ViewLike], outs: Sequence[ViewLike], scalars: Sequence[int | float]) -> list[Values]:
    out = outs[0]
    shape = out.shape
    result: Values = {"n": math.prod(shape), "extents": shape, "out": out.address, "out_strides": out.strides}
    for (address, strides), x in zip(_INPUT_NAMES, ins):
        result[address], result[strides] = x.address, broadcast_strides(x, shape)
    return [result]


# ---- reference ----------------------------------------------------------------------------

ArrayFn = Callable[..., np.ndarray]


def _widen(array: np.ndarray) -> np.ndarray:
    return array.astype(compute_dtype(array.dtype), copy=False)


def _same_dtype(call: KernelCall, arrays: Sequence[np.ndarray], what: str) -> None:
    """Every array in `arrays` has the output's dtype."""
    for i, array in enumerate(arrays):
        call.require_dtype(array, call.out.dtype, f"{what} #{i}")


def _elementwise(call: KernelCall, fn: ArrayFn, operands: Sequence[np.ndarray]) -> None:
    """Writes `fn(*operands)` into the output; each operand broadcasts to its shape."""
    for i, operand in enumerate(operands):
        call.require_broadcast(operand.shape, call.out.shape, f"input #{i}")
    if isinstance(fn, np.ufunc):
        # Straight into the (possibly strided) output, without a temporary.
        fn(*operands, out=call.out)
    else:
        call.store(call.out, fn(*operands), broadcast=True)


# ---- functions the ops' REFERENCE expressions name ---------------------------------------
# Only what a NumPy expression cannot say in place: float64 evaluation, truncating integer
# division, a variadic fold, an attribute check. A plain op names NumPy directly.


class BadAttribute(ValueError):
    """A REFERENCE function's complaint about an attribute; the kernel names the op."""


def sigmoid(x: np.ndarray) -> np.ndarray:
    """1 / (1 + exp(-x)) in x's dtype, through exp(-|x|) so that nothing overflows."""
    e = np.exp(-np.abs(x))
    one = x.dtype.type(1)
    positive = one / (one + e)
    return np.where(x >= 0, positive, e * positive)


def _gelu_exact(x: np.ndarray) -> np.ndarray:
    """x * Phi(x), with the normal CDF Phi(x) = erfc(-x / sqrt 2) / 2."""
    return 0.5 * x * special.erfc(-x / math.sqrt(2.0))


def _gelu_tanh(x: np.ndarray) -> np.ndarray:
    """0.5 x (1 + tanh(u)), written as x * sigmoid(2u) so that it does not cancel."""
    u = math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)
    return x * sigmoid(2.0 * u)


_GELU: dict[str, ArrayFn] = {"none": _gelu_exact, "tanh": _gelu_tanh}


def gelu(x: np.ndarray, attributes: Mapping[str, object]) -> np.ndarray:
    """GELU in float64 (its float32 forms cancel), exact or tanh-approximated."""
    approximate = attributes["approximate"]
    if approximate not in _GELU:
        raise BadAttribute(f'approximate must be "none" or "tanh", got "{approximate}"')
    return _GELU[approximate](x.astype(np.float64))  # type: ignore[index]


def divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Integer division truncates toward zero (C, onnxruntime), floats divide."""
    if a.dtype in INT_DTYPES:
        return truncating_divide(a, b)
    return np.true_divide(a, b)


def fold(fn: ArrayFn, xs: Sequence[np.ndarray]) -> np.ndarray:
    """A variadic op (Max, Min) as its binary form folded left to right."""
    return functools.reduce(fn, xs)


# ---- kernels built from the op classes' facts ------------------------------------------------


def _expression(op_class: type) -> Callable[[Sequence[np.ndarray], Mapping[str, object]], np.ndarray]:
    """The op's REFERENCE expression as a function of the (widened) inputs and attributes."""
    code = compile(op_class.REFERENCE, f"<{op_class.name} REFERENCE>", "eval")  # type: ignore[attr-defined]

    def evaluate(xs: Sequence[np.ndarray], attributes: Mapping[str, object]) -> np.ndarray:
        named = dict(zip("abc", xs), xs=xs, attributes=attributes)
        return eval(code, globals(), named)  # noqa: S307 -- the dialect's own expression

    return evaluate


def _check_dtypes(op_class: type, call: KernelCall) -> None:
    """Comparisons: one input dtype, bool out; a RESULT kind (IsNaN): bool out; otherwise
    every input has the output's dtype."""
    comparison = issubclass(op_class, hip.ComparisonOp)
    if comparison:
        call.require_dtype(call.inputs[1], call.inputs[0].dtype, "rhs")
    elif getattr(op_class, "RESULT", None) is None:
        _same_dtype(call, call.inputs, "input")
    if comparison or getattr(op_class, "RESULT", None) is not None:
        call.require_dtype(call.out, BOOL_DTYPE, "output")


def _fact_kernel(op_class: type) -> Callable[[KernelCall], None]:
    evaluate = _expression(op_class)

    def compute(call: KernelCall) -> None:
        _check_dtypes(op_class, call)
        inputs = [_widen(x) for x in call.inputs]
        for i, operand in enumerate(inputs):
            call.require_broadcast(operand.shape, call.out.shape, f"input #{i}")
        try:
            value = evaluate(inputs, call.props)
        except BadAttribute as err:
            raise call.error(str(err)) from None
        call.store(call.out, value, broadcast=True)

    return compute


def _register_from_facts() -> None:
    """A kernel for every hip op with a REFERENCE expression, checked by its ELEMENT kind
    and INPUTS arity: a plain elementwise op needs nothing here."""
    for op_class in hip.COMPUTE_OPS:
        if getattr(op_class, "REFERENCE", None) is None:
            continue
        elements = Elements[op_class.ELEMENT.name]  # type: ignore[attr-defined]
        register(op_class, inputs=getattr(op_class, "INPUTS", (1, 1)), elements=elements)(_fact_kernel(op_class))


_register_from_facts()


def _identity(x: np.ndarray) -> np.ndarray:
    return x


@register(hip.CastOp)
def cast(call: KernelCall) -> None:
    """ONNX Cast: floats truncate toward zero into integers, nonzero (and nan) is true."""
    # The store's unsafe NumPy cast is exactly C's conversion, which is what ONNX asks for.
    _elementwise(call, _identity, [call.inputs[0]])


# ---- binary, variadic, comparisons, where --------------------------------------------------


def _power(base: np.ndarray, exponent: np.ndarray) -> np.ndarray:
    return np.power(base, exponent)


@register(hip.PowOp, inputs=(2, 2), elements=Elements.NUMERIC)
def power(call: KernelCall) -> None:
    """`base ** exponent`; the exponent may have its own numeric dtype.

    Like onnxruntime (std::pow): float ** float in the base's dtype, anything involving an
    integer in float64, converted to the output dtype (truncating toward zero)."""
    base, exponent = call.inputs
    _same_dtype(call, [base], "base")
    call.require_elements(exponent, Elements.NUMERIC, "exponent")
    if base.dtype in FLOAT_DTYPES and exponent.dtype in FLOAT_DTYPES:
        dtype = compute_dtype(base.dtype)
    else:
        dtype = np.dtype(np.float64)
    # Not the ufunc itself: its out= refuses the float64 -> integer conversion.
    _elementwise(call, _power, [base.astype(dtype), exponent.astype(dtype)])


@register(hip.WhereOp, inputs=(3, 3))
def where(call: KernelCall) -> None:
    condition, x, y = call.inputs
    call.require_dtype(condition, BOOL_DTYPE, "condition")
    _same_dtype(call, [x, y], "value")
    _elementwise(call, np.where, [condition, x, y])


@register(hip.FusedElementwiseOp, inputs=(1, None))
def fused_elementwise(call: KernelCall) -> None:
    """The steps in order, each run by the step op's own reference kernel (its REFERENCE
    expression, or pow's, where's and cast's), so a fused chain computes exactly what the
    unfused ops did. Intermediates are NumPy temporaries of each step's element type and
    broadcast shape, as the unfused ops' outputs were; the last step writes the output."""
    steps: tuple[FusedStep, ...] = call.props.steps
    if not steps:
        raise call.error("needs at least one step")
    values = {f"in{i}": x for i, x in enumerate(call.inputs)}
    for number, step in enumerate(steps[:-1]):
        args = [values[a] for a in step.args]
        result = np.empty(np.broadcast_shapes(*(a.shape for a in args)), step.dtype)
        _run_step(call, step, args, result)
        values[f"t{number}"] = result
    last = steps[-1]
    _run_step(call, last, [values[a] for a in last.args], call.out)


def _run_step(call: KernelCall, step: FusedStep, args: list[np.ndarray], out: np.ndarray) -> None:
    step_class = hip.FusedElementwiseOp.step_class(step.op)
    kernel = KERNELS[step_class]  # a step's op is an elementwise op: registered above
    kernel(KernelCall(kernel.name, args, [out], properties_for(step_class, dict(step.attributes)), [], call.location))
