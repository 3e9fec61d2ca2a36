"""Elementwise kernels: unary math, broadcasting binary and variadic ops, comparisons,
where and cast. Inputs broadcast (NumPy rules) to the output shape.

Arithmetic runs in the operands' dtype (float32 stays float32, like onnxruntime), half
floats in float32. erf and GELU are the exceptions: they are evaluated in float64 and
rounded, because their float32 forms cancel (1 + erf(x) for negative x)."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence

import numpy as np

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


# ---- unary ------------------------------------------------------------------------------


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, x.dtype.type(0))


def _sigmoid(x: np.ndarray) -> np.ndarray:
    """1 / (1 + exp(-x)) in x's dtype, through exp(-|x|) so that nothing overflows."""
    e = np.exp(-np.abs(x))
    one = x.dtype.type(1)
    positive = one / (one + e)
    return np.where(x >= 0, positive, e * positive)


def _erf(x: np.ndarray) -> np.ndarray:
    return special.erf(x)


def _identity(x: np.ndarray) -> np.ndarray:
    return x


_UNARY: dict[str, tuple[Elements, ArrayFn]] = {
    "relu": (Elements.NUMERIC, _relu),
    "neg": (Elements.NUMERIC, np.negative),
    "abs": (Elements.NUMERIC, np.absolute),
    "sigmoid": (Elements.FLOAT, _sigmoid),
    "tanh": (Elements.FLOAT, np.tanh),
    "erf": (Elements.FLOAT, _erf),
    "sqrt": (Elements.FLOAT, np.sqrt),
    "exp": (Elements.FLOAT, np.exp),
    "log": (Elements.FLOAT, np.log),
    "reciprocal": (Elements.FLOAT, np.reciprocal),
    "not": (Elements.BOOL, np.logical_not),
    "copy": (Elements.ANY, _identity),
}


def _unary_kernel(fn: ArrayFn) -> Callable[[KernelCall], None]:
    def compute(call: KernelCall) -> None:
        x = call.inputs[0]
        _same_dtype(call, [x], "input")
        _elementwise(call, fn, [_widen(x)])

    return compute


for _name, (_elements, _fn) in _UNARY.items():
    register(_name, elements=_elements)(_unary_kernel(_fn))


def _gelu_exact(x: np.ndarray) -> np.ndarray:
    """x * Phi(x), with the normal CDF Phi(x) = erfc(-x / sqrt 2) / 2."""
    return 0.5 * x * special.erfc(-x / math.sqrt(2.0))


def _gelu_tanh(x: np.ndarray) -> np.ndarray:
    """0.5 x (1 + tanh(u)), written as x * sigmoid(2u) so that it does not cancel."""
    u = math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)
    return x * _sigmoid(2.0 * u)


_GELU: dict[str, ArrayFn] = {"none": _gelu_exact, "tanh": _gelu_tanh}


@register("gelu", elements=Elements.FLOAT)
def gelu(call: KernelCall) -> None:
    x = call.inputs[0]
    _same_dtype(call, [x], "input")
    approximate = call.attr("approximate", "none")
    if approximate not in _GELU:
        raise call.error(f'approximate must be "none" or "tanh", got "{approximate}"')
    _elementwise(call, _GELU[approximate], [x.astype(np.float64)])


@register("isnan", elements=Elements.FLOAT)
def isnan(call: KernelCall) -> None:
    call.require_dtype(call.out, BOOL_DTYPE, "output")
    _elementwise(call, np.isnan, [call.inputs[0]])


@register("cast")
def cast(call: KernelCall) -> None:
    """ONNX Cast: floats truncate toward zero into integers, nonzero (and nan) is true."""
    # The store's unsafe NumPy cast is exactly C's conversion, which is what ONNX asks for.
    _elementwise(call, _identity, [call.inputs[0]])


# ---- binary, variadic, comparisons, where --------------------------------------------------


def _divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.dtype in INT_DTYPES:
        return truncating_divide(a, b)
    return np.true_divide(a, b)


def _broadcast_kernel(fn: ArrayFn) -> Callable[[KernelCall], None]:
    """Inputs of the output's dtype, computed in its compute dtype."""

    def compute(call: KernelCall) -> None:
        _same_dtype(call, call.inputs, "input")
        _elementwise(call, fn, [_widen(x) for x in call.inputs])

    return compute


_BROADCAST: dict[str, tuple[Elements, int | None, ArrayFn]] = {
    "add": (Elements.NUMERIC, 2, np.add),
    "sub": (Elements.NUMERIC, 2, np.subtract),
    "mul": (Elements.NUMERIC, 2, np.multiply),
    "div": (Elements.NUMERIC, 2, _divide),
    "max": (Elements.NUMERIC, None, lambda *xs: functools.reduce(np.maximum, xs)),
    "min": (Elements.NUMERIC, None, lambda *xs: functools.reduce(np.minimum, xs)),
    "and": (Elements.BOOL, 2, np.logical_and),
    "or": (Elements.BOOL, 2, np.logical_or),
}

for _name, (_elements, _count, _fn) in _BROADCAST.items():
    _arity = (2, 2) if _count == 2 else (1, None)
    register(_name, inputs=_arity, elements=_elements)(_broadcast_kernel(_fn))


def _comparison_kernel(ufunc: np.ufunc) -> Callable[[KernelCall], None]:
    def compute(call: KernelCall) -> None:
        lhs, rhs = call.inputs
        call.require_dtype(rhs, lhs.dtype, "rhs")
        call.require_dtype(call.out, BOOL_DTYPE, "output")
        _elementwise(call, ufunc, [_widen(lhs), _widen(rhs)])

    return compute


_COMPARISONS: dict[str, tuple[Elements, np.ufunc]] = {
    "equal": (Elements.ANY, np.equal),
    "less": (Elements.NUMERIC, np.less),
    "greater": (Elements.NUMERIC, np.greater),
    "less_equal": (Elements.NUMERIC, np.less_equal),
    "greater_equal": (Elements.NUMERIC, np.greater_equal),
}

for _name, (_elements, _ufunc) in _COMPARISONS.items():
    register(_name, inputs=(2, 2), elements=_elements)(_comparison_kernel(_ufunc))


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
