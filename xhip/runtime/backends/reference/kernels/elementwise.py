"""Elementwise kernels: unary math, broadcasting binary and variadic ops, comparisons,
where and cast. Inputs broadcast (NumPy rules) to the output shape.

Most kernels are built from the hip op classes' facts: each op's `REFERENCE` NumPy
expression is evaluated in this module's namespace, its dtypes checked by its `ELEMENT`,
`RESULT` and `INPUTS`. Only pow, where and cast are written out here.

Arithmetic runs in the operands' dtype (float32 stays float32, like onnxruntime), half
floats in float32. erf and GELU are the exceptions: they are evaluated in float64 and
rounded, because their float32 forms cancel (1 + erf(x) for negative x)."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from xhip.dialects import hip
from xhip.runtime.backends.reference.kernels import special
from xhip.runtime.backends.reference.kernels.base import (
    BOOL_DTYPE,
    FLOAT_DTYPES,
    INT_DTYPES,
    Elements,
    KernelCall,
    compute_dtype,
    register,
    truncating_divide,
)

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
    approximate = attributes.get("approximate", "none")
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
            value = evaluate(inputs, call.attributes)
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
        kernel_name = op_class.name.removeprefix("hip.")
        elements = Elements[op_class.ELEMENT.name]  # type: ignore[attr-defined]
        register(kernel_name, inputs=getattr(op_class, "INPUTS", (1, 1)), elements=elements)(_fact_kernel(op_class))


_register_from_facts()


def _identity(x: np.ndarray) -> np.ndarray:
    return x


@register("cast")
def cast(call: KernelCall) -> None:
    """ONNX Cast: floats truncate toward zero into integers, nonzero (and nan) is true."""
    # The store's unsafe NumPy cast is exactly C's conversion, which is what ONNX asks for.
    _elementwise(call, _identity, [call.inputs[0]])


# ---- binary, variadic, comparisons, where --------------------------------------------------


def _power(base: np.ndarray, exponent: np.ndarray) -> np.ndarray:
    return np.power(base, exponent)


@register("pow", inputs=(2, 2), elements=Elements.NUMERIC)
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


@register("where", inputs=(3, 3))
def where(call: KernelCall) -> None:
    condition, x, y = call.inputs
    call.require_dtype(condition, BOOL_DTYPE, "condition")
    _same_dtype(call, [x, y], "value")
    _elementwise(call, np.where, [condition, x, y])
