"""The ONNX backend node tests of every supported op, run through xhip.

    from xhip.testing.node_tests import run_node_tests, summarize
    results = run_node_tests()            # one CaseResult per test case
    for row in summarize(results): ...    # one OpSummary per op

onnx no longer ships the node test data, but it ships the generators:
`onnx.backend.test.case.node.collect_testcases()` builds every case (a one-node
model, or its function-expanded form `*_expanded*`, with inputs and expected
outputs computed by onnx's NumPy reference). A case belongs to the op of its
one-node form. Each case of a supported op (a key of
`xhip.dialects.onnx.ONNX_OPS`, Constant included) is:

- skipped when its graph uses an op xhip does not support ("uses CastLike");
- otherwise compiled by `xhip.compile` (pipelines/default.yaml, reference
  backend) once, and run on every data set. An `XhipError` makes it an error
  with its one-line message; any other exception is an error marked `internal`
  (an xhip bug, never expected);
- compared with the expected outputs: shapes and dtypes exactly, ints and bools
  exactly, floats within the tolerance of the op (`tolerance_of`): bit-exact for
  data movement, shape, selection and Cast; rtol 1e-6 (atol 1e-7) for float
  elementwise arithmetic; rtol 1e-4 (atol 1e-6) for accumulating or
  transcendental ops (MatMul, Gemm, Softmax, LayerNormalization, ReduceMean,
  ReduceSum, CumSum, Pow, Erf, Gelu, Exp, Log, Sigmoid, Tanh). An expanded case
  takes the loosest tolerance of its ops. A mismatch is a failure.

Opsets. The generators stamp each model with the opset of its op's newest form
(Cast at 28, Reshape at 25, And at 7, Not at 1). The importer takes a model when
every node has a form of opsets 13 to 21, whichever opset names it, or a later
form that only adds element types (`xhip.importer.known_form`), so these run
unchanged.

Compile-time inputs. xhip compiles the structure of a graph ahead of time: the
axes of ReduceSum/ReduceMean/ReduceMax, Squeeze, Unsqueeze and Slice and the
axis of CumSum become attributes of hip ops or decide the result's rank, so they
must be constants. The node tests feed them as graph inputs. Like onnx-mlir's
backend tests (CONSTANT_INPUT), the driver turns exactly those inputs
(`COMPILE_TIME_INPUTS`) into initializers holding the data set's value, and
compiles once per distinct value; `CaseResult.constant_inputs` records it.
Other runtime operands (Slice starts/ends/steps, Reshape/Expand shapes, Range
integer bounds) stay graph inputs: xhip reads them on the host at run time.

Exceptions: cases of supported ops that do not pass, and why (`KNOWN_EXCEPTIONS`
holds them as case-name patterns with their reasons; `explain` maps a result to
its reason, and tests/test_node_tests.py requires one for every non-passing case):

- Element types xhip does not import: 8-bit floats (test_cast_*FLOAT8E4M3FN*,
  *FLOAT8E4M3FNUZ*, *FLOAT8E5M2*, *FLOAT8E5M2FNUZ*, test_cast_no_saturate_*,
  test_cast_e8m0_*: FLOAT8E8M0, whose Cast also sets round_mode), 4- and 2-bit
  floats and ints (*FLOAT4E2M1*, *INT4*, *UINT4*, *INT2*, *UINT2*), and STRING
  (test_equal_string, test_equal_string_broadcast). Each fails with a located
  "has element type X, which xhip does not support". 54 cases.
- BatchNormalization in training mode (test_batchnorm_*_training_mode): xhip compiles
  inference graphs; a located "training_mode=1 is not supported" error.
- Non-tensor values: test_identity_sequence (a sequence) and test_identity_opt
  (an optional); xhip imports tensors only.
- MaxPool's Indices output (test_maxpool_with_argmax_*): a located "not supported".
- test_averagepool_2d_ceil_last_window_starts_on_pad: its expected output is written
  out to 4 decimals; xhip's (and onnxruntime's) differ from it by a relative 3e-4.

Apart from that hand-rounded AveragePool case, no case fails on numbers: every case that
compiles matches onnx's reference within the tolerances above.

Skipped: the `*_expanded*` forms that use ops outside the supported set
(Gelu: CastLike and Sum; LayerNormalization: Size; Range: Loop and Ceil; Relu
at opset 18: CastLike).
"""

from __future__ import annotations

import re
import time
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Literal

import numpy as np
import onnx
from onnx import ModelProto, TensorProto, numpy_helper

from xhip.api import compile as compile_model
from xhip.diagnostics import XhipError
from xhip.dialects.onnx import ONNX_OPS

if TYPE_CHECKING:
    from xhip.runtime.executable import Executable

Status = Literal["pass", "fail", "error", "skipped"]

DEFAULT_DOMAINS = ("", "ai.onnx")

EXACT_OPS = frozenset(
    {
        # Data movement and shapes: the result is a copy of input elements or of dims.
        "Concat", "Constant", "ConstantOfShape", "Expand", "Flatten", "Gather", "GatherElements", "GatherND",
        "Identity", "NonZero", "Range", "Reshape", "Shape", "Slice", "Split", "Squeeze",
        "Transpose", "Trilu", "Unsqueeze", "Tile", "Pad",
        # Selection, sign and conversion: no rounding beyond the target type's.
        "Abs", "Cast", "Max", "Min", "Neg", "Relu", "Where", "IsNaN", "Sign", "Ceil", "Floor", "Round",
        "ReduceMin", "Clip", "ArgMax", "ArgMin", "GlobalMaxPool", "MaxPool",
    }
)  # fmt: skip
"""Ops whose float results must match bit for bit."""

ACCUMULATING_OPS = frozenset(
    {
        "MatMul", "Gemm", "Softmax", "LayerNormalization", "ReduceMean", "ReduceSum", "CumSum",
        "Pow", "Erf", "Gelu", "Exp", "Log", "Sigmoid", "Tanh", "Sin", "Cos",
        "ReduceProd", "ReduceL1", "ReduceL2", "ReduceSumSquare", "ReduceLogSumExp",
        "BatchNormalization", "InstanceNormalization", "GroupNormalization", "GlobalAveragePool", "AveragePool", "LpPool", "Conv", "ConvTranspose",
    }
)  # fmt: skip
"""Ops that sum in another order than NumPy, or call a libm other than NumPy's."""



@dataclass(frozen=True)
class Tolerance:
    """How closely float results must match: |got - expected| <= atol + rtol * |expected|."""

    rtol: float
    atol: float

    @property
    def exact(self) -> bool:
        return self.rtol == 0 and self.atol == 0


EXACT = Tolerance(0.0, 0.0)
ELEMENTWISE = Tolerance(1e-6, 1e-7)
"""Float elementwise arithmetic (Add, Div, Sqrt, ...): NumPy and the kernels round alike."""
ACCUMULATING = Tolerance(1e-4, 1e-6)
"""ACCUMULATING_OPS: the project tolerance of xhip.runtime.check."""

COMPILE_TIME_INPUTS: dict[str, tuple[int, ...]] = {
    "ReduceSum": (1,),
    "ReduceMean": (1,),
    "ReduceMax": (1,),
    "ReduceMin": (1,),
    "ReduceProd": (1,),
    "ReduceL1": (1,),
    "ReduceL2": (1,),
    "ReduceSumSquare": (1,),
    "ReduceLogSumExp": (1,),
    "Tile": (1,),
    "Pad": (1, 2, 3),
    "BatchNormalization": (1, 2, 3, 4),
    "InstanceNormalization": (1, 2),
    "GroupNormalization": (1, 2),
    "CumSum": (1,),
    "Slice": (3,),
    "Squeeze": (1,),
    "Unsqueeze": (1,),
    "Resize": (1, 2, 3),
}
"""Node inputs (by position) that xhip needs when compiling: axes and axis, Resize's roi,
scales and sizes."""

KNOWN_EXCEPTIONS: tuple[tuple[str, str], ...] = (
    (
        r"test_batchnorm_\w*_training_mode",
        "BatchNormalization in training mode (batch statistics, running-mean outputs): xhip compiles inference graphs",
    ),
    (
        r"test_cast_(no_saturate_)?\w*(FLOAT8E4M3FN|FLOAT8E4M3FNUZ|FLOAT8E5M2|FLOAT8E5M2FNUZ|FLOAT4E2M1|U?INT4|U?INT2)\w*",
        "8-bit floats and 4- and 2-bit floats and ints: xhip imports f16, bf16, f32, f64, bool and 8- to 64-bit ints",
    ),
    (
        r"test_cast_e8m0_\w+",
        "FLOAT8E8M0 (and Cast's round_mode, which only applies to it) is not an element type xhip imports",
    ),
    (r"test_equal_string\w*", "STRING tensors: xhip compiles numeric and bool tensors only"),
    (r"test_identity_(sequence|opt)", "sequence and optional values: xhip imports tensors only"),
    (r"test_maxpool_with_argmax_\w+", "MaxPool's Indices output: a located \"Indices output is not supported\""),
    (
        r"test_averagepool_2d_ceil_last_window_starts_on_pad",
        "its expected values are written to 4 decimals (0.1511 for 0.151056, a relative 3e-4): xhip matches onnxruntime exactly",
    ),
)
"""(case-name pattern, reason) for every case of a supported op that is expected not to pass."""


# --------------------------------------------------------------------------------------
# Cases
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NodeTest:
    """One backend test case: the op it belongs to, its model and its data sets."""

    name: str
    op_type: str
    model: ModelProto
    data_sets: Sequence[tuple[Sequence[object], Sequence[object]]]

    @property
    def unsupported_ops(self) -> list[str]:
        """Op types of the graph that xhip does not support, spelled with a non-default domain."""
        used = set()
        for node in self.model.graph.node:
            if node.domain not in DEFAULT_DOMAINS:
                used.add(f"{node.domain}.{node.op_type}")
            elif node.op_type not in ONNX_OPS:
                used.add(node.op_type)
        return sorted(used)


def supported_ops() -> tuple[str, ...]:
    """The ONNX op types xhip imports and converts: every key of ONNX_OPS."""
    return tuple(sorted(ONNX_OPS))


def _one_node_name(name: str) -> str:
    """`test_x_expanded_ver18` -> `test_x`: a function-expanded case names its one-node case."""
    cut = name.find("_expanded")
    return name if cut < 0 else name[:cut]


@cache
def _all_onnx_cases() -> tuple[object, ...]:
    """Every node test case onnx generates (seconds; the generators share global state, so once)."""
    from onnx.backend.test.case import node as node_cases

    with warnings.catch_warnings():
        # Some generators compute expected values through overflow or log(0) on purpose.
        warnings.simplefilter("ignore")
        return tuple(node_cases.collect_testcases(None))


def collect_node_tests(ops: Iterable[str] | None = None) -> list[NodeTest]:
    """The cases of `ops` (default: every supported op), in onnx's generation order."""
    wanted = set(supported_ops() if ops is None else ops)
    cases = _all_onnx_cases()
    by_name = {case.name: case for case in cases}  # type: ignore[attr-defined]
    tests = []
    for case in cases:
        one_node = by_name.get(_one_node_name(case.name))  # type: ignore[attr-defined]
        if one_node is None or case.model is None or len(one_node.model.graph.node) != 1:  # type: ignore[attr-defined]
            continue
        op_type = one_node.model.graph.node[0].op_type  # type: ignore[attr-defined]
        if op_type in wanted:
            tests.append(NodeTest(case.name, op_type, case.model, case.data_sets))  # type: ignore[attr-defined]
    return tests


# --------------------------------------------------------------------------------------
# Tolerances and comparison
# --------------------------------------------------------------------------------------


def tolerance_of(op_type: str) -> Tolerance:
    """How closely float results of `op_type` must match the expected ones."""
    if op_type in ACCUMULATING_OPS:
        return ACCUMULATING
    if op_type in EXACT_OPS:
        return EXACT
    return ELEMENTWISE


def graph_tolerance(model: ModelProto) -> Tolerance:
    """The loosest tolerance of the ops in the graph (an expanded case chains several)."""
    tolerances = [tolerance_of(node.op_type) for node in model.graph.node] or [EXACT]
    return max(tolerances, key=lambda t: (t.rtol, t.atol))


def as_array(value: object) -> np.ndarray:
    """A data-set entry (ndarray, NumPy scalar or TensorProto) as an ndarray."""
    if isinstance(value, TensorProto):
        return numpy_helper.to_array(value)
    if isinstance(value, np.ndarray | np.generic):
        return np.asarray(value)
    raise XhipError(f"a data-set value of type {type(value).__name__} is not a tensor")


def mismatch(name: str, got: np.ndarray, expected: np.ndarray, tolerance: Tolerance) -> str | None:
    """Why `got` is not `expected` (shape, dtype, or values beyond tolerance), or None."""
    if got.shape != expected.shape or got.dtype != expected.dtype:
        return f"output '{name}' is {list(got.shape)} {got.dtype}, expected {list(expected.shape)} {expected.dtype}"
    if np.issubdtype(expected.dtype, np.integer) or expected.dtype == np.bool_:
        wrong = int(np.count_nonzero(got != expected))
        return f"output '{name}' differs in {wrong} of {got.size} elements" if wrong else None
    # Floats of every width (bfloat16 included) compare in float64.
    got64, expected64 = got.astype(np.float64), expected.astype(np.float64)
    if tolerance.exact:
        equal = (got64 == expected64) | (np.isnan(got64) & np.isnan(expected64))
    else:
        equal = np.isclose(got64, expected64, rtol=tolerance.rtol, atol=tolerance.atol, equal_nan=True)
    if bool(np.all(equal)):
        return None
    bad = ~equal
    error = np.abs(got64 - expected64)[bad]
    worst = float(np.nanmax(error)) if np.any(~np.isnan(error)) else float("nan")
    return (
        f"output '{name}' differs in {int(np.count_nonzero(bad))} of {got.size} elements "
        f"(max abs error {worst:.3g}, rtol {tolerance.rtol:g})"
    )


# --------------------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CaseResult:
    name: str
    op_type: str
    status: Status
    reason: str = ""
    """One line: the first mismatch, the error message, or the unsupported ops."""
    internal: bool = False
    """The error was an exception other than XhipError: a bug, not a diagnostic."""
    constant_inputs: tuple[str, ...] = ()
    """Graph inputs the driver turned into initializers (COMPILE_TIME_INPUTS)."""
    seconds: float = 0.0

    def as_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "op": self.op_type,
            "status": self.status,
            "reason": self.reason,
            "internal": self.internal,
            "constant_inputs": list(self.constant_inputs),
            "seconds": round(self.seconds, 4),
        }


def explain(result: CaseResult) -> str | None:
    """The documented reason why `result` does not pass (skips explain themselves), or None."""
    if result.status == "skipped":
        return f"the graph {result.reason}, which xhip does not support"
    for pattern, reason in KNOWN_EXCEPTIONS:
        if re.fullmatch(pattern, result.name):
            return reason
    return None


def compile_time_inputs(model: ModelProto) -> list[str]:
    """Graph inputs that feed a COMPILE_TIME_INPUTS position of some node."""
    graph_inputs = {v.name for v in model.graph.input} - {t.name for t in model.graph.initializer}
    names: list[str] = []
    for node in model.graph.node:
        for position in COMPILE_TIME_INPUTS.get(node.op_type, ()):
            if position < len(node.input) and node.input[position] in graph_inputs and node.input[position] not in names:
                names.append(node.input[position])
    return names


def with_constants(model: ModelProto, values: dict[str, np.ndarray]) -> ModelProto:
    """`model` with the graph inputs named in `values` turned into initializers."""
    folded = ModelProto()
    folded.CopyFrom(model)
    kept = [v for v in folded.graph.input if v.name not in values]
    del folded.graph.input[:]
    folded.graph.input.extend(kept)
    folded.graph.initializer.extend(numpy_helper.from_array(array, name) for name, array in values.items())
    return folded


def _first_line(err: BaseException) -> str:
    lines = [line for line in str(err).splitlines() if line.strip()]
    return lines[0] if lines else ""


def _check_data_set(
    case: NodeTest, executable: Executable, inputs: dict[str, np.ndarray], expected: Sequence[object]
) -> str | None:
    outputs = executable.run(inputs)
    tolerance = graph_tolerance(case.model)
    for value_info, wanted in zip(case.model.graph.output, expected, strict=True):
        got = outputs.get(value_info.name)
        if got is None:
            return f"output '{value_info.name}' is missing"
        problem = mismatch(value_info.name, np.asarray(got), as_array(wanted), tolerance)
        if problem is not None:
            return problem
    return None


def _first_mismatch(case: NodeTest, folded: Sequence[str]) -> str | None:
    """Compile once per distinct value of the `folded` inputs, run every data set; raises on errors."""
    input_names = [v.name for v in case.model.graph.input]
    executables: dict[bytes, Executable] = {}
    for number, (inputs, expected) in enumerate(case.data_sets):
        values = dict(zip(input_names, inputs, strict=True))
        constants = {name: as_array(values.pop(name)) for name in folded}
        key = b"".join(array.tobytes() + str(array.shape).encode() for array in constants.values())
        if key not in executables:
            executables[key] = compile_model(with_constants(case.model, constants) if constants else case.model)
        # Converted after compiling, so that a non-tensor input is the importer's diagnostic.
        feeds = {name: as_array(value) for name, value in values.items()}
        problem = _check_data_set(case, executables[key], feeds, expected)
        if problem is not None:
            return f"data set {number}: {problem}" if len(case.data_sets) > 1 else problem
    return None


def run_node_test(case: NodeTest) -> CaseResult:
    """Skip, or compile and run `case` and classify it: pass, fail (numbers, shapes) or error."""
    unsupported = case.unsupported_ops
    if unsupported:
        return CaseResult(case.name, case.op_type, "skipped", f"uses {', '.join(unsupported)}")
    start = time.perf_counter()
    folded = tuple(compile_time_inputs(case.model))
    status: Status
    internal = False
    try:
        reason = _first_mismatch(case, folded)
        status = "pass" if reason is None else "fail"
    except XhipError as err:
        status, reason = "error", _first_line(err)
    except Exception as err:  # noqa: BLE001 - any other exception is an xhip bug: report it, never hide it
        status, reason, internal = "error", f"{type(err).__name__}: {_first_line(err)}", True
    seconds = time.perf_counter() - start
    return CaseResult(case.name, case.op_type, status, reason or "", internal, folded, seconds)


def run_node_tests(ops: Iterable[str] | None = None) -> list[CaseResult]:
    """Every case of `ops` (default: every supported op), in onnx's order."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NaN/inf inputs on purpose
        return [run_node_test(case) for case in collect_node_tests(ops)]


# --------------------------------------------------------------------------------------
# Summaries
# --------------------------------------------------------------------------------------


@dataclass
class OpSummary:
    op_type: str
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(("pass", "fail", "error", "skipped"), 0))

    @property
    def cases(self) -> int:
        return sum(self.counts.values())

    @property
    def run(self) -> int:
        """Cases that were compiled: all but the skipped ones."""
        return self.cases - self.counts["skipped"]

    @property
    def pass_rate(self) -> float:
        return self.counts["pass"] / self.run if self.run else 0.0

    def as_dict(self) -> dict[str, object]:
        return {"op": self.op_type, "cases": self.cases, **self.counts, "pass_rate": round(self.pass_rate, 4)}


def summarize(results: Iterable[CaseResult], ops: Iterable[str] | None = None) -> list[OpSummary]:
    """One row per op (every op of `ops`, even one without cases), sorted by op type."""
    rows = {op: OpSummary(op) for op in (supported_ops() if ops is None else ops)}
    for result in results:
        rows.setdefault(result.op_type, OpSummary(result.op_type)).counts[result.status] += 1
    return [rows[op] for op in sorted(rows)]


def total(rows: Iterable[OpSummary]) -> OpSummary:
    overall = OpSummary("total")
    for row in rows:
        for status, count in row.counts.items():
            overall.counts[status] += count
    return overall


def onnx_version() -> str:
    return onnx.__version__
