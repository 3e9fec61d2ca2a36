"""The comparison of xhip's outputs with the references.

A comparison requires NaN and infinities exactly where onnxruntime has them,
and fails when onnxruntime's own output is NaN (a NaN reference checks nothing).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

RTOL = 1e-4
"""Matmul and softmax accumulate in different orders than onnxruntime (CPU)."""
ATOL = 1e-6
GPU_RTOL = 1e-3
GPU_ATOL = 1e-5
"""On a GPU, fp32 sums run in another order (tree reductions, BLAS tiles, FMA) than on the
CPU: a dot product of K terms differs by about sqrt(K) ulps of its terms, which near a zero
output (GPT-2's logits over 768-wide rows) is a few 1e-6 absolute."""
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
