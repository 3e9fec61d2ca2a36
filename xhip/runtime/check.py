"""Numerical checks against onnxruntime (CPU), and random inputs that are never zeros."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import onnx

from xhip.diagnostics import XhipError
from xhip.runtime.executable import TensorSpec

RTOL = 1e-4
"""Matmul and softmax accumulate in different orders than onnxruntime (CPU)."""
ATOL = 1e-6
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
        raise XhipError(f"--shape '{text}' is not NAME=D0xD1x...")
    try:
        shape = tuple(int(d) for d in dims.split("x")) if dims else ()
    except ValueError:
        raise XhipError(f"--shape '{text}': dims must be integers separated by 'x'") from None
    if any(d < 0 for d in shape):
        raise XhipError(f"--shape '{text}': dims must not be negative")
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


def random_feeds(specs: Sequence[TensorSpec], shapes: Mapping[str, tuple[int, ...]], seed: int) -> dict[str, np.ndarray]:
    """Random inputs of the declared dtypes: normal floats, small positive ints, random bools."""
    unknown = sorted(set(shapes) - {s.name for s in specs})
    if unknown:
        raise XhipError(f"--shape names '{unknown[0]}', which is not an input")
    rng = np.random.default_rng(seed)
    symbols: dict[str, int] = {}
    feeds: dict[str, np.ndarray] = {}
    for spec in specs:
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
        if np.issubdtype(spec.dtype, np.floating):
            values = rng.standard_normal(shape).astype(spec.dtype)
        elif spec.dtype == np.bool_:
            values = rng.random(shape) < 0.5
        else:
            values = rng.integers(1, 8, size=shape).astype(spec.dtype)
        feeds[spec.name] = values
    return feeds


def onnxruntime_outputs(model: str | os.PathLike[str] | onnx.ModelProto, feeds: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    source = model.SerializeToString() if isinstance(model, onnx.ModelProto) else os.fspath(model)
    session = onnxruntime.InferenceSession(source, options, providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(names, dict(feeds))))


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
            diff = np.abs(got.astype(np.float64) - expected.astype(np.float64))
            finite = np.isfinite(expected)
            if not np.array_equal(np.isnan(got), np.isnan(expected)):
                problems.append(f"output '{name}' has NaN where onnxruntime has none (an element never written?)")
            diff = np.where(finite, diff, 0.0)
            max_abs = max(max_abs, float(np.nanmax(diff)))
            rel = diff / np.maximum(np.abs(expected.astype(np.float64)), REL_FLOOR)
            max_rel = max(max_rel, float(np.nanmax(np.where(finite, rel, 0.0))))
            if not np.allclose(got, expected, rtol=rtol, atol=atol, equal_nan=True):
                problems.append(f"output '{name}' differs: max abs error {float(np.nanmax(diff)):.3g}")
        elif not np.array_equal(got, expected):
            mismatches = int(np.sum(got != expected))
            max_abs = max(max_abs, float(np.max(np.abs(got.astype(np.float64) - expected.astype(np.float64)))))
            problems.append(f"output '{name}' differs in {mismatches} of {got.size} elements")
    return CheckResult("onnxruntime-cpu", max_abs, max_rel, not problems, tuple(problems))
