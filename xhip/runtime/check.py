"""Numerical checks against onnxruntime (CPU), and random inputs that are never zeros.

Random inputs are drawn in each input's own dtype (no float64 copy) after their
total size is checked against the memory available. A comparison requires NaN
and infinities exactly where onnxruntime has them, and fails when onnxruntime's
own output is NaN (a NaN reference checks nothing). onnxruntime's refusal to
load or run a model is one `XhipError` line.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from math import prod

import numpy as np
import onnx

from xhip.diagnostics import ECHO_LIMIT, XhipError, shorten
from xhip.runtime.executable import TensorSpec

RTOL = 1e-4
"""Matmul and softmax accumulate in different orders than onnxruntime (CPU)."""
ATOL = 1e-6
GPU_RTOL = 1e-3
GPU_ATOL = 1e-5
"""On a GPU, fp32 sums run in another order (tree reductions, BLAS tiles, FMA) than on the
CPU: a dot product of K terms differs by about sqrt(K) ulps of its terms, which near a zero
output (GPT-2's logits over 768-wide rows) is a few 1e-6 absolute."""
DRAW_CHUNK_ELEMENTS = 1 << 20
"""Random values are drawn this many at a time, so drawing never needs a second full-size array."""
REL_FLOOR = 1e-3
"""Relative errors are reported against |reference|, but never against less than this."""


@dataclass(frozen=True)
class CheckResult:
    reference: str
    max_abs_err: float
    max_rel_err: float
    passed: bool
    problems: tuple[str, ...]

    def as_dict(self) -> dict[str, object]:
        return {
            "reference": self.reference,
            "max_abs_err": self.max_abs_err,
            "max_rel_err": self.max_rel_err,
            "passed": self.passed,
            "problems": list(self.problems),
        }


def parse_shape(text: str) -> tuple[str, tuple[int, ...]]:
    """`X=2x128` -> ("X", (2, 128)); `s=` is a rank-0 input."""
    name, sep, dims = text.partition("=")
    if not sep or not name:
        raise XhipError(f"--shape '{shorten(text)}' is not NAME=D0xD1x...")
    try:
        shape = tuple(int(d) for d in dims.split("x")) if dims else ()
    except ValueError:
        raise XhipError(f"--shape '{shorten(text)}': dims must be integers separated by 'x'") from None
    if any(d < 0 for d in shape):
        raise XhipError(f"--shape '{shorten(text)}': dims must not be negative")
    return name, shape


def _full_shape(spec: TensorSpec, given: tuple[int, ...]) -> tuple[int, ...]:
    """`--shape` gives either every dim or just the dynamic ones, in order."""
    if len(given) == len(spec.shape):
        return given
    dynamic = [i for i, d in enumerate(spec.shape) if not isinstance(d, int)]
    if len(given) != len(dynamic):
        raise XhipError(
            f"--shape {spec.name}={'x'.join(map(str, given))} fits neither {spec.describe()} "
            f"nor its {len(dynamic)} dynamic dims"
        )
    dims = list(spec.shape)
    for axis, extent in zip(dynamic, given):
        dims[axis] = extent
    return tuple(dims)  # type: ignore[arg-type]


def random_feeds(
    specs: Sequence[TensorSpec], shapes: Mapping[str, tuple[int, ...]], seed: int, max_bytes: int | None = None
) -> dict[str, np.ndarray]:
    """Random inputs of the declared dtypes: normal floats, small positive ints, random bools.

    Their total size is checked against `max_bytes` (default: the memory available now)
    before each input is allocated, so a mistyped `--shape` is an error, not a swap storm.
    """
    unknown = sorted(set(shapes) - {s.name for s in specs})
    if unknown:
        raise XhipError(f"--shape names '{shorten(unknown[0])}', which is not an input")
    available = available_memory_bytes() if max_bytes is None else None
    limit = max_bytes if max_bytes is not None else available or sys.maxsize
    rng = np.random.default_rng(seed)
    symbols: dict[str, int] = {}
    shaped = [(spec, _feed_shape(spec, shapes, symbols)) for spec in specs]
    total = 0
    for spec, shape in shaped:
        size = prod(shape) * spec.dtype.itemsize
        total += size
        if total > limit:
            before = f" ({_bytes(total)} with the inputs before it)" if total > size else ""
            budget = f"the {_bytes(limit)} of memory available" if available else f"the limit of {_bytes(limit)}"
            raise XhipError(
                f"random input {spec.name} {list(shape)} {spec.dtype} needs {_bytes(size)}{before}, more than {budget}"
            )
    return {spec.name: _random_array(rng, spec.dtype, shape) for spec, shape in shaped}


def _feed_shape(spec: TensorSpec, shapes: Mapping[str, tuple[int, ...]], symbols: dict[str, int]) -> tuple[int, ...]:
    """The input's shape: from `--shape`, else its static dims and symbols fixed by earlier inputs."""
    if spec.name in shapes:
        shape = _full_shape(spec, shapes[spec.name])
    else:
        dims = []
        for declared in spec.shape:
            if isinstance(declared, int):
                dims.append(declared)
            elif isinstance(declared, str) and declared in symbols:
                dims.append(symbols[declared])
            else:
                raise XhipError(f"input {spec.describe()} has a dynamic dim: give --shape {spec.name}=...")
        shape = tuple(dims)
    for declared, extent in zip(spec.shape, shape):
        if isinstance(declared, str):
            symbols.setdefault(declared, extent)
    return shape


def available_memory_bytes() -> int | None:
    """Memory the system can give without swapping (MemAvailable), or None when unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def _bytes(count: float) -> str:
    """`8 TiB`, `512 B`: a byte count as people read it."""
    units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]
    while count >= 1024 and len(units) > 1:
        count, units = count / 1024, units[1:]
    return f"{count:.3g} {units[0]}"


def _random_array(rng: np.random.Generator, dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    """Random values drawn straight into an array of `dtype`, a chunk at a time (no float64 copy)."""
    out = np.empty(shape, dtype)
    flat = out.reshape(-1)
    if dtype in (np.float32, np.float64):
        rng.standard_normal(out=flat, dtype=dtype)
        return out
    for start in range(0, flat.size, DRAW_CHUNK_ELEMENTS):
        stop = min(start + DRAW_CHUNK_ELEMENTS, flat.size)
        flat[start:stop] = _draw(rng, dtype, stop - start)
    return out


def _draw(rng: np.random.Generator, dtype: np.dtype, count: int) -> np.ndarray:
    """Normal floats, random bools, small positive ints (never zeros: no division by zero)."""
    if np.issubdtype(dtype, np.floating) or dtype.name == "bfloat16":
        return rng.standard_normal(count, dtype=np.float32).astype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, count, dtype=np.bool_)
    drawn = dtype if np.issubdtype(dtype, np.integer) else np.dtype(np.int64)
    return rng.integers(1, 8, size=count, dtype=drawn).astype(dtype, copy=False)


def onnxruntime_outputs(
    model: str | os.PathLike[str] | onnx.ModelProto, feeds: Mapping[str, np.ndarray]
) -> dict[str, np.ndarray]:
    """The reference outputs; onnxruntime's refusal (to load or to run) is one XhipError line."""
    try:
        import onnxruntime
    except ImportError:
        raise XhipError("checking needs onnxruntime, which is not installed (pip install onnxruntime)") from None
    where = None if isinstance(model, onnx.ModelProto) else os.fspath(model)
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 3  # its warnings are not ours to print
    source = model.SerializeToString() if isinstance(model, onnx.ModelProto) else os.fspath(model)
    try:
        session = onnxruntime.InferenceSession(source, options, providers=["CPUExecutionProvider"])
    except Exception as err:  # onnxruntime's pybind errors share no useful base class
        raise XhipError(f"onnxruntime cannot load the model: {_onnxruntime_reason(err)}", where) from None
    names = [o.name for o in session.get_outputs()]
    try:
        return dict(zip(names, session.run(names, dict(feeds))))
    except Exception as err:
        reason = _onnxruntime_reason(err)
        raise XhipError(f"onnxruntime cannot run the model on these inputs: {reason}", where) from None


def _onnxruntime_reason(err: Exception) -> str:
    """onnxruntime's message without its `[ONNXRuntimeError] : 2 : INVALID_ARGUMENT :` prefix."""
    text = " ".join(line.strip() for line in str(err).splitlines() if line.strip()) or type(err).__name__
    text = re.sub(r"^\[ONNXRuntimeError\] : \d+ : [A-Z_]+ : ", "", text)
    # Drop the C++ source position and function signature it names: `/src/model.cc:256 ns::F(...) reason`.
    text = re.sub(r"/\S+\.(?:cc|h|cpp):\d+ \S+?\(.*\) (?=\S)", " ", text)
    return shorten(text, 2 * ECHO_LIMIT)


def tolerances(backend: str) -> dict[str, float]:
    """The rtol/atol `compare` uses for outputs computed by `backend` (its `--backend` name)."""
    if backend == "reference":
        return {"rtol": RTOL, "atol": ATOL}
    return {"rtol": GPU_RTOL, "atol": GPU_ATOL}


def compare(outputs: Mapping[str, np.ndarray], reference: Mapping[str, np.ndarray], rtol: float = RTOL, atol: float = ATOL) -> CheckResult:
    """Every output present with the reference's shape and dtype, values within tolerance."""
    problems: list[str] = []
    max_abs = max_rel = 0.0
    for name, expected in reference.items():
        got = outputs.get(name)
        if got is None:
            problems.append(f"output '{name}' is missing")
            continue
        if got.shape != expected.shape or got.dtype != expected.dtype:
            problems.append(f"output '{name}' is {list(got.shape)} {got.dtype}, onnxruntime gives {list(expected.shape)} {expected.dtype}")
            continue
        if got.size == 0:
            continue
        if np.issubdtype(expected.dtype, np.floating):
            problems += _special_value_problems(name, got, expected)
            finite = np.isfinite(expected) & np.isfinite(got)
            diff = np.where(finite, np.abs(got.astype(np.float64) - expected.astype(np.float64)), 0.0)
            max_abs = max(max_abs, float(np.max(diff)))
            rel = diff / np.maximum(np.abs(expected.astype(np.float64)), REL_FLOOR)
            max_rel = max(max_rel, float(np.max(rel)))
            if not np.allclose(got[finite], expected[finite], rtol=rtol, atol=atol):
                problems.append(f"output '{name}' differs: max abs error {float(np.max(diff)):.3g}")
        elif not np.array_equal(got, expected):
            mismatches = int(np.sum(got != expected))
            max_abs = max(max_abs, float(np.max(np.abs(got.astype(np.float64) - expected.astype(np.float64)))))
            problems.append(f"output '{name}' differs in {mismatches} of {got.size} elements")
    return CheckResult("onnxruntime-cpu", max_abs, max_rel, not problems, tuple(problems))


def _special_value_problems(name: str, got: np.ndarray, expected: np.ndarray) -> list[str]:
    """NaN, +Inf and -Inf must sit exactly where onnxruntime has them; NaN in the reference checks nothing.

    A tolerance test with `equal_nan` passes an all-NaN output against an all-NaN
    reference with error 0, so a reference NaN is reported rather than trusted.
    """
    reference_nan = int(np.count_nonzero(np.isnan(expected)))
    if reference_nan:
        return [
            f"output '{name}': onnxruntime's own output is NaN in {reference_nan} of {expected.size} elements, "
            "which no comparison can check (try other inputs)"
        ]
    problems: list[str] = []
    for label, where in (("NaN", np.isnan), ("+Inf", np.isposinf), ("-Inf", np.isneginf)):
        ours, theirs = where(got), where(expected)
        extra, missing = int(np.count_nonzero(ours & ~theirs)), int(np.count_nonzero(theirs & ~ours))
        if extra:
            problems.append(f"output '{name}' is {label} in {extra} of {got.size} elements where onnxruntime is not")
        if missing:
            problems.append(f"output '{name}' is not {label} in {missing} of {got.size} elements where onnxruntime is")
    return problems
