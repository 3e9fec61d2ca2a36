"""The NumPy reference kernels against onnxruntime's CPU kernels.

Every case runs one op on random data (never all zeros) twice:
* onnxruntime runs the equivalent one-node ONNX model (opset 18, Gelu 20); its outputs
  give the expected values and the output shapes and dtypes;
* the kernel reads strided copies of the inputs and writes into outputs that are
  transposed, strided, offset views into byte buffers, once with every byte 0x5A and
  once with every byte 0xA5. Bytes outside the views must keep their pattern (the
  writes land in the right bytes) and the two runs must agree inside them (every
  output element is written, whatever was there before).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import helper

from xhip.diagnostics import XhipError
from xhip.dialects.hip import HIP, DPSOp
from xhip.kernels.families import run_kernel, supported_ops
from xhip.kernels.reference import KERNELS
from xhip.kernels.special import erf, erfc

OPSET = 18
F16, F32, F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
I32, I64, BOOL = np.dtype(np.int32), np.dtype(np.int64), np.dtype(np.bool_)
PATTERNS = (0x5A, 0xA5)
LINALG_RTOL = 1e-4

_SESSION_OPTIONS = ort.SessionOptions()
_SESSION_OPTIONS.intra_op_num_threads = 1
_SESSION_OPTIONS.inter_op_num_threads = 1
_SESSION_OPTIONS.log_severity_level = 3


# --------------------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------------------


def data(
    shape: Sequence[int],
    dtype: np.dtype,
    seed: int,
    *,
    low: float = -4,
    high: float = 4,
    nonzero: bool = False,
) -> np.ndarray:
    """Random data: normal floats scaled to about [low, high], integers in [low, high],
    random bools; never all zeros unless empty. `nonzero` also excludes every zero."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype == BOOL:
        values = np.asarray(rng.integers(0, 2, shape)).astype(bool)
        values.flat[:1] = True
        return values
    if dtype.kind in "iu":
        values = np.asarray(rng.integers(int(low), int(high) + 1, shape)).astype(dtype)
    else:
        middle, spread = (high + low) / 2, (high - low) / 4
        values = np.asarray(middle + spread * rng.standard_normal(shape)).astype(dtype)
    if nonzero or not values.any():
        values[values == 0] = 1
    return values


# --------------------------------------------------------------------------------------
# onnxruntime
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Onnx:
    """The ONNX equivalent of a kernel call."""

    op_type: str
    attributes: Mapping[str, object] = field(default_factory=dict)
    extra: Sequence[np.ndarray | None] = ()
    """Operands only ONNX has (axes, shapes, ...), after the kernel's inputs; None = absent."""
    opset: int = OPSET
    outputs: int = 1


def run_onnxruntime(node: Onnx, inputs: Sequence[np.ndarray | None]) -> list[np.ndarray]:
    names = [f"in{i}" if x is not None else "" for i, x in enumerate(inputs)]
    outputs = [f"out{i}" for i in range(node.outputs)]
    graph = helper.make_graph(
        [helper.make_node(node.op_type, names, outputs, **node.attributes)],
        "kernel",
        [
            helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(x.dtype), x.shape)
            for n, x in zip(names, inputs)
            if x is not None
        ],
        [helper.make_value_info(o, onnx.TypeProto()) for o in outputs],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", node.opset)])
    model = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    session = ort.InferenceSession(
        model.SerializeToString(), _SESSION_OPTIONS, providers=["CPUExecutionProvider"]
    )
    feeds = {n: x for n, x in zip(names, inputs) if x is not None}
    return session.run(None, feeds)


# --------------------------------------------------------------------------------------
# Strided destinations
# --------------------------------------------------------------------------------------


@dataclass
class Buffer:
    """A byte buffer and a view into it: transposed, every dim strided by 2, offset by 1."""

    raw: np.ndarray
    view: np.ndarray
    inside: np.ndarray
    """Per byte of `raw`: does `view` cover it?"""


def buffer(shape: Sequence[int], dtype: np.dtype, pattern: int) -> Buffer:
    dtype = np.dtype(dtype)
    outer = tuple(2 * d + 1 for d in reversed(shape)) or (3,)
    raw = np.full(math.prod(outer) * dtype.itemsize, pattern, np.uint8)
    elements = raw.view(dtype).reshape(outer)
    if shape:
        window = tuple(slice(1, 1 + 2 * d, 2) for d in reversed(shape))
        view = elements[window].T
    else:
        window = (slice(1, 2),)
        view = elements[window].reshape(())
    covered = np.zeros(outer, bool)
    covered[window] = True
    assert view.shape == tuple(shape)
    return Buffer(raw, view, np.repeat(covered.ravel(), dtype.itemsize))


def strided_copy(x: np.ndarray) -> np.ndarray:
    """`x` laid out like an output view: inputs are read through strides too."""
    copy = buffer(x.shape, x.dtype, 0).view
    copy[...] = x
    return copy


def run_strided(
    name: str,
    inputs: Sequence[np.ndarray],
    outputs: Sequence[tuple[Sequence[int], np.dtype]],
    attributes: Mapping[str, object] | None = None,
    scalars: Sequence[int | float] = (),
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Runs the kernel once per byte pattern. Returns the outputs (contiguous copies) and
    per output a per-byte mask of what the two runs wrote differently."""
    strided_inputs = [strided_copy(x) for x in inputs]
    runs: list[list[Buffer]] = []
    for pattern in PATTERNS:
        buffers = [buffer(shape, dtype, pattern) for shape, dtype in outputs]
        run_kernel(name, strided_inputs, [b.view for b in buffers], attributes or {}, scalars)
        for b in buffers:
            assert np.all(b.raw[~b.inside] == pattern), f"{name} wrote outside its output view"
        runs.append(buffers)
    differs = [(first.raw != second.raw) & first.inside for first, second in zip(*runs)]
    return [b.view.copy() for b in runs[0]], differs


def run_kernel_checked(
    name: str,
    inputs: Sequence[np.ndarray],
    outputs: Sequence[tuple[Sequence[int], np.dtype]],
    attributes: Mapping[str, object] | None = None,
    scalars: Sequence[int | float] = (),
) -> list[np.ndarray]:
    """`run_strided`, requiring every output byte to be written."""
    results, differs = run_strided(name, inputs, outputs, attributes, scalars)
    for i, mask in enumerate(differs):
        assert not mask.any(), f"{name} left elements of output #{i} unwritten"
    return results


def assert_matches(got: np.ndarray, want: np.ndarray, rtol: float = 0.0, atol: float = 0.0) -> None:
    assert got.shape == want.shape and got.dtype == want.dtype, (
        got.shape,
        got.dtype,
        want.shape,
        want.dtype,
    )
    if rtol == 0 and atol == 0:
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


def check(
    name: str,
    node: Onnx,
    inputs: Sequence[np.ndarray],
    attributes: Mapping[str, object] | None = None,
    scalars: Sequence[int | float] = (),
    rtol: float = 0.0,
    atol: float = 0.0,
) -> list[np.ndarray]:
    """Runs `hip.<name>` and its ONNX equivalent and compares every output."""
    expected = run_onnxruntime(node, [*inputs, *node.extra])
    got = run_kernel_checked(
        name, inputs, [(e.shape, e.dtype) for e in expected], attributes, scalars
    )
    for g, e in zip(got, expected):
        assert_matches(g, e, rtol, atol)
    return got


# --------------------------------------------------------------------------------------
# Registry
# --------------------------------------------------------------------------------------


def test_every_hip_compute_op_has_a_kernel():
    compute_ops = {op.name.removeprefix("hip.") for op in HIP.operations if issubclass(op, DPSOp)}
    assert len(compute_ops) > 40
    assert compute_ops <= supported_ops(), sorted(compute_ops - supported_ops())
    # One kernel per op class, each registered under its own class.
    assert set(KERNELS) == {op for op in HIP.operations if issubclass(op, DPSOp)}
    assert all(kernel.name == op.name.removeprefix("hip.") for op, kernel in KERNELS.items())


def test_unknown_kernel_is_a_located_error():
    with pytest.raises(
        XhipError,
        match=r"model.mlir:3:5: error: no reference kernel for 'hip.softmx'; "
        r"did you mean 'softmax'\?",
    ):
        run_kernel("softmx", [], [], {}, [], location="model.mlir:3:5")


@pytest.mark.parametrize(
    "name, inputs, output, message",
    [
        (
            "sigmoid",
            [np.ones(3, I32)],
            np.zeros(3, I32),
            r"'hip.sigmoid' kernel: input has unsupported dtype int32 \(expected a float dtype\)",
        ),
        (
            "add",
            [np.ones(3, np.complex64)] * 2,
            np.zeros(3, np.complex64),
            r"'hip.add' kernel: operand #0 has unsupported dtype complex64",
        ),
        (
            "add",
            [np.ones(3, F32), np.ones(3, F64)],
            np.zeros(3, F32),
            r"'hip.add' kernel: input #1 has dtype float64, expected float32",
        ),
        ("add", [np.ones(3, F32)], np.zeros(3, F32), r"'hip.add' kernel: expected 2 inputs, got 1"),
        (
            "add",
            [np.ones(3, F32), np.ones(4, F32)],
            np.zeros(3, F32),
            r"input #1 of shape \[4\] does not broadcast to \[3\]",
        ),
        (
            "not",
            [np.ones(3, F32)],
            np.zeros(3, F32),
            r"'hip.not' kernel: input has unsupported dtype float32 \(expected bool\)",
        ),
        (
            "matmul",
            [np.ones((2, 3), F32), np.ones((2, 3), F32)],
            np.zeros((2, 3), F32),
            r"cannot multiply \[2, 3\] by \[2, 3\]",
        ),
        (
            "gather",
            [np.ones(4, F32), np.array([1, 4], I64)],
            np.zeros(2, F32),
            r"'hip.gather' kernel: index 4 is out of range for axis 0 of extent 4",
        ),
        (
            "transpose",
            [np.ones((2, 3), F32)],
            np.zeros((3, 2), F32),
            r"perm \[0, 0\] is not a permutation",
        ),
        (
            "reduce_sum",
            [np.ones((2, 3), F32)],
            np.zeros((3,), F32),
            r"result of shape \[2\] does not match the output shape \[3\]",
        ),
    ],
)
def test_mistakes_are_one_line_errors_naming_the_op(name, inputs, output, message):
    attributes = {"perm": (0, 0), "axes": (1,), "keepdims": False}
    with pytest.raises(XhipError, match=message) as error:
        run_kernel(name, inputs, [output], attributes, [])
    assert "\n" not in str(error.value)


def test_writes_land_in_a_transposed_view_of_a_bigger_buffer():
    """One case spelled out: the helper's layout, checked element by element."""
    a, b = data((2, 3), F32, 1), data((3,), F32, 2)
    storage = np.full((4, 5), np.nan, F32)
    view = storage[1:4, 2:4].T  # [2, 3], strides (4, 20) bytes
    run_kernel("add", [a, b], [view], {}, [])
    expected = np.full((4, 5), np.nan, F32)
    expected[1:4, 2:4] = (a + b).T
    np.testing.assert_array_equal(storage, expected)


def test_erf_and_erfc_match_math_to_float64_precision():
    x = np.concatenate([np.linspace(-7, 7, 20001), [0.0, -0.0, 1e-300, 2.0, -2.0, 30.0]])
    np.testing.assert_allclose(erf(x), [math.erf(v) for v in x], rtol=2e-15, atol=0)
    np.testing.assert_allclose(erfc(x), [math.erfc(v) for v in x], rtol=3e-14, atol=0)
    assert list(erf(np.array([np.inf, -np.inf]))) == [1.0, -1.0]
    assert list(erfc(np.array([np.inf, -np.inf]))) == [0.0, 2.0]
    assert np.isnan(erf(np.array([np.nan]))).all() and np.isnan(erfc(np.array([np.nan]))).all()


# --------------------------------------------------------------------------------------
# Elementwise
# --------------------------------------------------------------------------------------

UNARY_SHAPES = [(), (7,), (2, 3, 4), (0, 3)]
UNARY = {
    # name: (ONNX op, dtypes, data range, float32 rtol, float32 atol); float16 gets rtol 1e-3
    "relu": ("Relu", [F32, I32, F64], (-4, 4), 0.0, 0.0),
    "neg": ("Neg", [F32, I64], (-4, 4), 0.0, 0.0),
    "abs": ("Abs", [F32, I32], (-4, 4), 0.0, 0.0),
    # onnxruntime's float32 Sigmoid is a rational approximation with an absolute error of
    # ~1.5e-7, i.e. large relative error far left; the kernel is within 1e-6 relative of
    # the exact value (test_transcendentals_are_accurate_in_float32).
    "sigmoid": ("Sigmoid", [F32, F64, F16], (-16, 16), 1e-6, 2e-7),
    "tanh": ("Tanh", [F32, F64], (-5, 5), 1e-6, 0.0),
    "erf": ("Erf", [F32], (-4, 4), 1e-6, 0.0),  # onnxruntime has no float64 Erf
    "sqrt": ("Sqrt", [F32, F64], (0.01, 9), 1e-6, 0.0),
    "exp": ("Exp", [F32, F64], (-6, 6), 1e-6, 0.0),
    "log": ("Log", [F32, F64], (0.01, 9), 1e-6, 0.0),
    "reciprocal": ("Reciprocal", [F32, F64], (-4, 4), 1e-6, 0.0),
    "not": ("Not", [BOOL], (0, 1), 0.0, 0.0),
    "copy": ("Identity", [F32, I64, BOOL, F16], (-4, 4), 0.0, 0.0),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(name):
    op_type, dtypes, (low, high), rtol, atol = UNARY[name]
    for dtype in dtypes:
        tolerance = {F16: (1e-3, 0.0), F32: (rtol, atol)}.get(dtype, (rtol, 0.0))
        for seed, shape in enumerate(UNARY_SHAPES):
            x = data(shape, dtype, seed, low=low, high=high, nonzero=name == "reciprocal")
            check(name, Onnx(op_type), [x], rtol=tolerance[0], atol=tolerance[1])


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu(approximate):
    for seed, shape in enumerate(UNARY_SHAPES):
        x = data(shape, F32, seed, low=-6, high=6)
        # onnxruntime evaluates 0.5x(1 + erf) in float32, which cancels for x << 0; the
        # kernel does not, so near zero the two differ by a float32 ulp of 0.5|x|.
        check(
            "gelu",
            Onnx("Gelu", {"approximate": approximate}, opset=20),
            [x],
            {"approximate": approximate},
            rtol=1e-6,
            atol=4e-7,
        )


def _gelu_tanh_exact(v: float) -> float:
    # 0.5 v (1 + tanh(u)) = v / (1 + exp(-2u)): the same value, without cancellation in float64.
    return v / (1 + math.exp(-2 * math.sqrt(2 / math.pi) * (v + 0.044715 * v**3)))


TRANSCENDENTALS = {
    # name, attributes: (float64 truth, argument range)
    ("sigmoid", "-"): (lambda v: 1 / (1 + math.exp(-v)), 16),
    ("tanh", "-"): (math.tanh, 10),
    ("erf", "-"): (math.erf, 5),
    ("gelu", "none"): (lambda v: 0.5 * v * math.erfc(-v / math.sqrt(2)), 6),
    ("gelu", "tanh"): (_gelu_tanh_exact, 6),
}


@pytest.mark.parametrize("name, approximate", sorted(TRANSCENDENTALS))
@pytest.mark.parametrize("dtype", [F32, F64])
def test_transcendentals_are_accurate_in_float32(name, approximate, dtype):
    """Within 1e-6 relative of the float64 truth everywhere (float32 math must not be
    sloppier than that); float64 inputs within 1e-13."""
    truth, reach = TRANSCENDENTALS[(name, approximate)]
    x = np.linspace(-reach, reach, 20001).astype(dtype)
    (got,) = run_kernel_checked(name, [x], [(x.shape, dtype)], {"approximate": approximate})
    expected = np.array([truth(v) for v in x.astype(np.float64)])
    np.testing.assert_allclose(got, expected, rtol=1e-6 if dtype == F32 else 1e-13, atol=0)


def test_gelu_rejects_an_unknown_approximation():
    with pytest.raises(XhipError, match='approximate must be "none" or "tanh", got "fast"'):
        run_kernel("gelu", [np.ones(2, F32)], [np.zeros(2, F32)], {"approximate": "fast"}, [])


@pytest.mark.parametrize("dtype", [F32, F64, F16])
def test_isnan(dtype):
    for seed, shape in enumerate(UNARY_SHAPES):
        x = data(shape, dtype, seed)
        # About a third NaN, and infinities, which are not NaN.
        rng = np.random.default_rng(seed)
        x[rng.random(shape) < 0.3] = np.nan
        x[rng.random(shape) < 0.1] = -np.inf
        got = check("isnan", Onnx("IsNaN"), [x])
        assert got[0].dtype == BOOL


def test_isnan_needs_a_bool_output():
    with pytest.raises(XhipError, match="output has dtype float32, expected bool"):
        run_kernel("isnan", [np.ones(2, F32)], [np.zeros(2, F32)], {}, [])


CASTS = [
    (F32, I32),
    (F32, BOOL),
    (F32, F16),
    (F64, F32),
    (I64, F32),
    (BOOL, F32),
    (F16, F32),
    (I32, I64),
    (I64, BOOL),
    (F32, np.dtype(np.int8)),
]


@pytest.mark.parametrize("source, target", CASTS, ids=[f"{s}-{t}" for s, t in CASTS])
def test_cast(source, target):
    for seed, shape in enumerate(UNARY_SHAPES):
        x = data(shape, source, seed, low=-100, high=100)
        to = helper.np_dtype_to_tensor_dtype(target)
        check("cast", Onnx("Cast", {"to": to}), [x])


def test_cast_truncates_toward_zero():
    (got,) = run_kernel_checked("cast", [np.array([-2.7, -0.5, 0.5, 2.7], F32)], [((4,), I32)])
    assert got.tolist() == [-2, 0, 0, 2]


BROADCAST_SHAPES = [
    [(), ()],
    [(5,), ()],
    [(2, 3), (3,)],
    [(2, 1, 4), (3, 1)],
    [(1,), (4, 2)],
    [(0, 3), (1, 3)],
    [(2, 0, 1), (1, 5)],
]
BINARY = {
    # name: (ONNX op, dtypes); IEEE arithmetic is correctly rounded, so results are exact
    "add": ("Add", [F32, I32, I64, F64]),
    "sub": ("Sub", [F32, I64]),
    "mul": ("Mul", [F32, I32]),
    "div": ("Div", [F32, I32, I64]),
    "and": ("And", [BOOL]),
    "or": ("Or", [BOOL]),
    "equal": ("Equal", [F32, I64, BOOL]),
    "less": ("Less", [F32, I32]),
    "greater": ("Greater", [F32, I64]),
    "less_equal": ("LessOrEqual", [F32, I32]),
    "greater_equal": ("GreaterOrEqual", [F32, I64]),
}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary(name):
    op_type, dtypes = BINARY[name]
    for dtype in dtypes:
        for seed, shapes in enumerate(BROADCAST_SHAPES):
            # Small integer ranges make equal operands (and inexact integer quotients) common.
            a = data(shapes[0], dtype, seed, low=-9, high=9, nonzero=name == "div")
            b = data(shapes[1], dtype, seed + 100, low=-9, high=9, nonzero=name == "div")
            check(name, Onnx(op_type), [a, b])
            check(name, Onnx(op_type), [b, a])


def test_integer_division_truncates_toward_zero():
    a = np.array([7, -7, 7, -7, 6, -1], I32)
    b = np.array([2, 2, -2, -2, 3, 5], I32)
    got = check("div", Onnx("Div"), [a, b])
    assert got[0].tolist() == [3, -3, -3, 3, 2, 0]


POW_CASES = [
    (F32, F32, (0.1, 4)),
    (F64, F64, (0.1, 4)),
    (F32, I64, (-3, 3)),
    (I64, I64, (-5, 5)),
    (I32, F32, (1, 9)),
]


@pytest.mark.parametrize("base_dtype, exponent_dtype, base_range", POW_CASES)
def test_pow(base_dtype, exponent_dtype, base_range):
    for seed, shapes in enumerate(BROADCAST_SHAPES):
        base = data(shapes[0], base_dtype, seed, low=base_range[0], high=base_range[1])
        # Integer exponents stay >= 0 for integer bases (negative ones are 0 or +-1 anyway).
        low = 0 if base_dtype.kind == "i" and exponent_dtype.kind == "i" else -3
        exponent = data(shapes[1], exponent_dtype, seed + 7, low=low, high=3)
        check("pow", Onnx("Pow"), [base, exponent], rtol=1e-6)


VARIADIC_SHAPES = [[(4,)], [(2, 3), (3,)], [(2, 1), (1, 3), ()], [(0, 2), (2,), (1, 1)], [(), ()]]


@pytest.mark.parametrize("name, op_type", [("max", "Max"), ("min", "Min")])
def test_variadic_max_min(name, op_type):
    for dtype in (F32, I32):
        for seed, shapes in enumerate(VARIADIC_SHAPES):
            inputs = [data(s, dtype, seed * 10 + i, low=-9, high=9) for i, s in enumerate(shapes)]
            check(name, Onnx(op_type), inputs)


def test_where():
    cases = [
        [(2, 3), (2, 3), (2, 3)],
        [(3,), (2, 1), ()],
        [(2, 1, 1), (4,), (3, 1)],
        [(0,), (1,), ()],
    ]
    for dtype in (F32, I64):
        for seed, (c, x, y) in enumerate(cases):
            inputs = [data(c, BOOL, seed), data(x, dtype, seed + 1), data(y, dtype, seed + 2)]
            check("where", Onnx("Where"), inputs)


# --------------------------------------------------------------------------------------
# Linear algebra, normalization, reductions
# --------------------------------------------------------------------------------------

MATMUL_SHAPES = [
    [(3, 4), (4, 5)],
    [(4,), (4, 5)],
    [(3, 4), (4,)],
    [(4,), (4,)],
    [(2, 1, 3, 4), (5, 4, 2)],
    [(2, 3, 4), (4, 6)],
    [(0, 4), (4, 3)],
    [(3, 0), (0, 2)],
    [(7,), (2, 7, 3)],
]


def test_matmul():
    for seed, (a, b) in enumerate(MATMUL_SHAPES):
        check(
            "matmul",
            Onnx("MatMul"),
            [data(a, F32, seed), data(b, F32, seed + 50)],
            rtol=LINALG_RTOL,
            atol=1e-5,
        )
    # Integers accumulate exactly.
    check(
        "matmul",
        Onnx("MatMul"),
        [data((3, 5), I32, 1, low=-9, high=9), data((5, 2), I32, 2, low=-9, high=9)],
    )


@pytest.mark.parametrize("trans_a", [False, True])
@pytest.mark.parametrize("trans_b", [False, True])
def test_gemm(trans_a, trans_b):
    m, k, n = 3, 4, 5
    for seed, (c_shape, alpha, beta) in enumerate(
        [
            (None, 1.0, 1.0),
            ((), 0.5, 2.0),
            ((n,), 1.0, -1.0),
            ((m, 1), 2.0, 0.5),
            ((m, n), 1.5, 0.0),
        ]
    ):
        a = data((k, m) if trans_a else (m, k), F32, seed)
        b = data((n, k) if trans_b else (k, n), F32, seed + 1)
        inputs = [a, b] + ([data(c_shape, F32, seed + 2)] if c_shape is not None else [])
        attributes = {"alpha": alpha, "beta": beta, "transA": int(trans_a), "transB": int(trans_b)}
        check(
            "gemm",
            Onnx("Gemm", attributes),
            inputs,
            {"alpha": alpha, "beta": beta, "trans_a": trans_a, "trans_b": trans_b},
            rtol=LINALG_RTOL,
            atol=1e-5,
        )


def test_gemm_ignores_c_when_beta_is_zero():
    a, b = data((2, 3), F32, 1), data((3, 2), F32, 2)
    c = np.full((2, 2), np.nan, F32)
    (got,) = run_kernel_checked("gemm", [a, b, c], [((2, 2), F32)], {"beta": 0.0})
    np.testing.assert_allclose(got, a @ b, rtol=1e-6)


def test_softmax():
    for seed, (shape, axis) in enumerate(
        [((2, 3, 4), -1), ((2, 3, 4), 0), ((2, 3, 4), 1), ((5,), 0), ((0, 3), 1), ((3, 0), -1)]
    ):
        x = data(shape, F32, seed, low=-20, high=20)
        check(
            "softmax",
            Onnx("Softmax", {"axis": axis}),
            [x],
            {"axis": axis},
            rtol=LINALG_RTOL,
            atol=1e-7,
        )


def test_layer_norm():
    cases = [
        ((2, 3, 4), -1, True),
        ((2, 3, 4), 1, False),
        ((2, 3, 4), 0, True),
        ((5,), 0, True),
        ((0, 4), -1, True),
        ((3, 1), -1, False),
    ]
    for seed, (shape, axis, with_bias) in enumerate(cases):
        normalized = shape[axis:]
        inputs = [data(shape, F32, seed, low=-5, high=7), data(normalized, F32, seed + 1)]
        inputs += [data(normalized, F32, seed + 2)] if with_bias else []
        attributes = {"axis": axis, "epsilon": 1e-3}
        check(
            "layer_norm",
            Onnx("LayerNormalization", attributes),
            inputs,
            attributes,
            rtol=LINALG_RTOL,
            atol=1e-5,
        )


REDUCTIONS = {"reduce_mean": "ReduceMean", "reduce_sum": "ReduceSum", "reduce_max": "ReduceMax"}
REDUCE_CASES = [
    ((2, 3, 4), ()),
    ((2, 3, 4), (1,)),
    ((2, 3, 4), (0, 2)),
    ((2, 3, 4), (-1,)),
    ((5,), (0,)),
    ((), ()),
    ((2, 0, 3), (1,)),
    ((2, 0, 3), (2,)),
    ((3, 4), (-2, -1)),
]


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@pytest.mark.parametrize("keepdims", [False, True])
def test_reductions(name, keepdims):
    for dtype in (F32, I32):
        for seed, (shape, axes) in enumerate(REDUCE_CASES):
            x = data(shape, dtype, seed, low=-9, high=9)
            axes_operand = np.array(axes, I64) if axes else None
            node = Onnx(REDUCTIONS[name], {"keepdims": int(keepdims)}, extra=[axes_operand])
            tolerance = {"rtol": LINALG_RTOL, "atol": 1e-6} if dtype == F32 else {}
            check(name, node, [x], {"axes": axes, "keepdims": keepdims}, **tolerance)


def test_integer_reduce_mean_truncates_toward_zero():
    x = np.array([[1, 2], [-3, -6]], I32)
    got = check(
        "reduce_mean",
        Onnx("ReduceMean", {"keepdims": 0}, extra=[np.array([1], I64)]),
        [x],
        {"axes": (1,), "keepdims": False},
    )
    assert got[0].tolist() == [1, -4]


CUMSUM_CASES = [
    ((7,), 0),
    ((2, 3, 4), 1),
    ((2, 3, 4), -1),
    ((3, 5), 0),
    ((0, 4), 1),
    ((4, 0), 0),
    ((1,), 0),
]


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("axis_dtype", [I64, I32])
def test_cumsum(exclusive, reverse, axis_dtype):
    for dtype in (F32, F64, I32, I64):
        for seed, (shape, axis) in enumerate(CUMSUM_CASES):
            x = data(shape, dtype, seed, low=-9, high=9)
            node = Onnx(
                "CumSum",
                {"exclusive": int(exclusive), "reverse": int(reverse)},
                extra=[np.array(axis, axis_dtype)],
            )
            attributes = {"axis": axis, "exclusive": exclusive, "reverse": reverse}
            tolerance = {"rtol": 1e-6, "atol": 1e-5} if dtype == F32 else {}
            check("cumsum", node, [x], attributes, **tolerance)


def test_cumsum_wraps_in_int32_like_the_device():
    x = np.array([2**31 - 1, 1, 5], I32)
    got = check("cumsum", Onnx("CumSum", extra=[np.array(0, I64)]), [x], {"axis": 0})
    assert got[0].tolist() == [2**31 - 1, -(2**31), -(2**31) + 5]


# --------------------------------------------------------------------------------------
# Data movement and generators
# --------------------------------------------------------------------------------------


def test_transpose():
    for seed, (shape, perm) in enumerate(
        [
            ((2, 3, 4), (2, 0, 1)),
            ((2, 3, 4), (0, 1, 2)),
            ((3, 5), (1, 0)),
            ((), ()),
            ((0, 3), (1, 0)),
        ]
    ):
        for dtype in (F32, BOOL):
            # onnx.helper cannot type an empty list attribute; rank 0 uses the default perm.
            node = Onnx("Transpose", {"perm": list(perm)} if perm else {})
            check("transpose", node, [data(shape, dtype, seed)], {"perm": perm})


def test_concat():
    cases = [
        ([(2, 3), (4, 3)], 0),
        ([(2, 1), (2, 3), (2, 2)], -1),
        ([(5,)], 0),
        ([(0, 3), (2, 3)], 0),
        ([(2, 0), (2, 0)], 1),
        ([(1, 2, 3), (1, 4, 3)], 1),
    ]
    for seed, (shapes, axis) in enumerate(cases):
        inputs = [data(s, I64, seed * 10 + i) for i, s in enumerate(shapes)]
        check("concat", Onnx("Concat", {"axis": axis}), inputs, {"axis": axis})


def test_split():
    cases = [((6, 2), [2, 4], 0), ((2, 7), [3, 0, 4], -1), ((5,), [5], 0), ((2, 0, 3), [1, 1], 0)]
    for seed, (shape, sizes, axis) in enumerate(cases):
        node = Onnx("Split", {"axis": axis}, extra=[np.array(sizes, I64)], outputs=len(sizes))
        check("split", node, [data(shape, F32, seed)], {"axis": axis})


SLICES = [
    # input shape, then per dim (first index, step, extent)
    ((10,), [(2, 3, 3)]),
    ((10,), [(9, -1, 10)]),
    ((10,), [(8, -3, 3)]),
    ((4, 6), [(1, 1, 2), (5, -2, 3)]),
    ((3, 4, 5), [(0, 1, 3), (3, -1, 0), (1, 2, 2)]),
    ((3, 0), [(0, 1, 3), (0, 1, 0)]),
]


@pytest.mark.parametrize("shape, windows", SLICES)
def test_slice(shape, windows):
    starts = [first for first, _, _ in windows]
    steps = [step for _, step, _ in windows]
    # An end one step past the last element; past index 0 backwards is any very negative end.
    ends = [
        first + extent * step if first + extent * step >= 0 else -(2**62)
        for first, step, extent in windows
    ]
    node = Onnx(
        "Slice", extra=[np.array(v, I64) for v in (starts, ends, list(range(len(shape))), steps)]
    )
    got = check("slice", node, [data(shape, F32, len(shape))], scalars=[*starts, *steps])
    assert got[0].shape == tuple(extent for _, _, extent in windows)


def test_slice_rejects_a_window_outside_the_input():
    with pytest.raises(XhipError, match=r"dim 0: 3 elements from 8 by step 1 leave \[0, 10\)"):
        run_kernel("slice", [np.ones(10, F32)], [np.zeros(3, F32)], {}, [8, 1])


def test_gather():
    cases = [
        ((5,), (3,), 0),
        ((4, 3), (2, 2), 0),
        ((4, 3), (5,), 1),
        ((2, 3, 4), (), -1),
        ((3, 4), (0,), 0),
        ((0, 4), (2,), 1),
    ]
    for seed, (data_shape, indices_shape, axis) in enumerate(cases):
        extent = data_shape[axis]
        for index_dtype in (I64, I32):
            rng = np.random.default_rng(seed)
            indices = rng.integers(-extent, extent, indices_shape).astype(index_dtype)
            check(
                "gather",
                Onnx("Gather", {"axis": axis}),
                [data(data_shape, F32, seed), indices],
                {"axis": axis},
            )


def test_gather_elements():
    """Every axis of ranks 1 to 4 (negative spellings too), negative indices, indices
    smaller than the data off the axis, and a longer index run along it."""
    cases = [
        ((5,), (7,), 0),
        ((4, 3), (2, 3), 0),
        ((4, 3), (4, 5), -1),
        ((2, 3, 4), (2, 2, 4), 1),
        ((2, 3, 4), (1, 3, 2), -3),
        ((2, 3, 4, 5), (2, 1, 4, 3), 3),
        ((3, 4), (0, 4), 0),
    ]
    for seed, (data_shape, indices_shape, axis) in enumerate(cases):
        extent = data_shape[axis]
        for index_dtype in (I64, I32):
            indices = np.random.default_rng(seed).integers(-extent, extent, indices_shape).astype(index_dtype)
            node = Onnx("GatherElements", {"axis": axis})
            check("gather_elements", node, [data(data_shape, F32, seed), indices], {"axis": axis})


def test_gather_elements_rejects_an_index_out_of_range():
    with pytest.raises(XhipError, match=r"index 3 is out of range for axis 1 of extent 3"):
        run_kernel("gather_elements", [np.ones((2, 3), F32), np.array([[0, 3]], I64)], [np.zeros((1, 2), F32)], {"axis": 1}, [])


def test_trilu():
    """Upper and lower, diagonals inside, on the edge of and past the matrix, batched and empty."""
    cases = [((4, 5), 0), ((4, 5), 2), ((4, 5), -3), ((3, 4), 7), ((2, 3, 4), -1), ((2, 0, 3), 1), ((1, 1), 0)]
    for seed, (shape, k) in enumerate(cases):
        for upper in (1, 0):
            node = Onnx("Trilu", {"upper": upper}, extra=[np.array(k, I64)])
            check("trilu", node, [data(shape, F32, seed)], {"upper": upper}, scalars=[k])


def test_gather_nd():
    cases = [
        ((3, 4), (2, 2), 0),
        ((3, 4), (5, 1), 0),
        ((2, 3, 4), (2, 2), 1),
        ((2, 3, 4), (2, 3, 1), 1),
        ((2, 3, 4, 2), (2, 3, 2), 2),
        ((3, 4), (0, 2), 0),
        ((2, 2), (1,), 0),
    ]
    for seed, (data_shape, indices_shape, batch_dims) in enumerate(cases):
        rng = np.random.default_rng(seed)
        depth = indices_shape[-1]
        extents = np.array(data_shape[batch_dims : batch_dims + depth])
        indices = rng.integers(-extents, extents, indices_shape).astype(I64)
        node = Onnx("GatherND", {"batch_dims": batch_dims})
        check("gather_nd", node, [data(data_shape, I32, seed), indices], {"batch_dims": batch_dims})


def test_expand():
    for seed, (shape, target) in enumerate(
        [((3, 1), (2, 3, 4)), ((), (2, 2)), ((1,), (0,)), ((4,), (3, 4)), ((2, 1), (2, 1))]
    ):
        check("expand", Onnx("Expand", extra=[np.array(target, I64)]), [data(shape, F32, seed)])


@pytest.mark.parametrize("dtype", [F32, I32, I64])
def test_range(dtype):
    for start, delta, count in [(0, 1, 5), (3, -2, 7), (-1.5, 0.25, 12), (2, 3, 0), (5, 1, 1)]:
        if dtype.kind == "i":
            start, delta = int(start), int(delta) or 1
            limit = start + count * delta
        else:
            # Half a step short of the end, so the float count is not on a rounding edge.
            limit = start + (count - 0.5) * delta
        scalars = [np.array(v, dtype) for v in (start, limit, delta)]
        expected = run_onnxruntime(Onnx("Range"), scalars)[0]
        assert expected.shape == (count,)
        (got,) = run_kernel_checked("range", [], [((count,), dtype)], scalars=[start, delta])
        assert_matches(got, expected, rtol=1e-6)


def test_range_is_start_plus_index_times_delta_without_drift():
    (got,) = run_kernel_checked("range", [], [((10000,), F32)], scalars=[0.1, 0.1])
    expected = np.float32(0.1) + np.arange(10000, dtype=F32) * np.float32(0.1)
    assert_matches(got, expected)


@pytest.mark.parametrize("dtype, value", [(F32, 2.5), (I64, -7), (BOOL, True), (F16, -0.125)])
def test_fill(dtype, value):
    for shape in [(3, 4), (), (0, 2)]:
        node = Onnx(
            "ConstantOfShape",
            {
                "value": helper.make_tensor(
                    "v", helper.np_dtype_to_tensor_dtype(dtype), [1], [value]
                )
            },
            extra=[np.array(shape, I64)],
        )
        (expected,) = run_onnxruntime(node, [*node.extra])
        (got,) = run_kernel_checked("fill", [], [(shape, dtype)], scalars=[value])
        assert_matches(got, expected)


@pytest.mark.parametrize("count_dtype", [I64, I32])
def test_nonzero(count_dtype):
    """Only the first `count` columns are written; the rest keep whatever was there."""
    rng = np.random.default_rng(3)
    cases = [
        rng.integers(-2, 3, (3, 4)).astype(F32),  # about 40% zeros
        rng.integers(0, 2, (2, 3, 2)).astype(BOOL),
        np.zeros((4,), I32),
        np.ones((0, 3), F32),
        np.array(5.0, F32),
        np.array(0, I64),
    ]
    for x in cases:
        (expected,) = run_onnxruntime(Onnx("NonZero"), [x])
        rows, count = expected.shape
        capacity = max(x.size, 1)
        (indices, written), (indices_differ, count_differ) = run_strided(
            "nonzero", [x], [((rows, capacity), I64), ((), count_dtype)]
        )
        assert int(written) == count and not count_differ.any()
        assert_matches(indices[:, :count], expected)
        # The two byte patterns survive exactly in the unused columns.
        unused = np.ones((rows, capacity), bool)
        unused[:, :count] = False
        per_element = buffer((rows, capacity), I64, 0)
        per_element.raw[per_element.inside] = indices_differ[per_element.inside]
        assert np.array_equal(per_element.view != 0, unused)


def test_nonzero_rejects_more_elements_than_capacity():
    with pytest.raises(XhipError, match="3 nonzero elements exceed the capacity 2"):
        run_kernel("nonzero", [np.ones(3, F32)], [np.zeros((1, 2), I64), np.zeros((), I64)], {}, [])
