"""The comparison of xhip's outputs with the references, and the rule that decides it.

A fixed tolerance against onnxruntime cannot tell a bug from fp32 itself: after a
few dozen layers (GPT-2 124M's logits) onnxruntime's own fp32 result is several
1e-6 from the exact one, and so is any other correct fp32 implementation. So a
float output is judged against the model run in float64 (`float64.py`), with
onnxruntime fp32's own distance from it as the yardstick of what fp32 can do on
this model and these inputs (`RULE`). The fixed tolerance against onnxruntime is
still measured and reported, and decides only where there is no float64 run.

Shape, dtype, integer and boolean outputs, and the positions of NaN, +Inf and
-Inf are compared exactly with onnxruntime fp32; NaN where onnxruntime has NaN
passes (it is reported, and those elements are left out of the errors).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from xhip.dtypes import float_info
from xhip.tolerances import ATOL, GPU_TOLERANCE, REFERENCE_TOLERANCE, RTOL, Tolerance, rule_text, tolerance_number, tolerances  # noqa: F401 (re-exported)
from xhip.runtime.check.float64 import Float64Outputs


REL_FLOOR = 1e-3
"""Relative errors are reported against |reference|, but never against less than this."""


@dataclass(frozen=True)
class OutputCheck:
    """One output's errors and verdict. Errors are max absolute differences over the elements
    finite in every array compared; `scale` is max |float64 output| (an error over it is its relative form)."""

    name: str
    rule: str
    """'float64' (the scaled rule), 'fixed' (rtol/atol against onnxruntime) or 'exact'."""
    passed: bool
    elements: int = 0
    err_vs_onnxruntime: float = 0.0
    rel_err_vs_onnxruntime: float = 0.0
    within_fixed_tolerance: bool = True
    err_vs_float64: float | None = None
    onnxruntime_err_vs_float64: float | None = None
    scale: float | None = None
    bound: float | None = None
    matched_nan: int = 0
    mismatches: int = 0
    """Elements of an integer or boolean output unequal to onnxruntime's."""

    def as_dict(self) -> dict[str, object]:
        fields = asdict(self)
        del fields["name"]
        return fields

    def describe(self) -> str:
        """`'y': xhip 2e-07 and ort32 3e-07 from float64, bound 2e-06; xhip vs ort32 2.4e-07 (within rtol/atol)`."""
        if self.rule == "exact":
            return f"'{self.name}': " + (f"differs in {self.mismatches} of {self.elements}" if self.mismatches else "equal")
        within = "within" if self.within_fixed_tolerance else "outside"
        text = f"xhip vs ort32 {self.err_vs_onnxruntime:.3g} ({within} rtol/atol)"
        if self.rule == "float64":
            text = (f"xhip {self.err_vs_float64:.3g} and ort32 {self.onnxruntime_err_vs_float64:.3g} from float64, "
                    f"bound {self.bound:.3g}; {text}")  # fmt: skip
        if self.matched_nan:
            text += f"; NaN where ort32 is NaN in {self.matched_nan} of {self.elements}"
        return f"'{self.name}': {text}"

    @property
    def margin(self) -> float:
        """err / bound of the float64 rule (how close to failing); 0 or inf for the fixed rule's verdict."""
        if self.rule == "float64" and self.bound:
            return (self.err_vs_float64 or 0.0) / self.bound
        return 0.0 if self.within_fixed_tolerance else float("inf")


@dataclass(frozen=True)
class CheckResult:
    reference: str
    max_abs_err: float
    """Against onnxruntime fp32, over all outputs (as before the float64 rule)."""
    max_rel_err: float
    passed: bool
    problems: tuple[str, ...]
    outputs: tuple[OutputCheck, ...] = ()
    float64_engine: str | None = None
    float64_unavailable: str | None = None
    tolerance: Tolerance = REFERENCE_TOLERANCE
    computed_in: str | None = None
    """The compute precision whose epsilon the ulp term used (None: each output's own dtype)."""

    @property
    def worst(self) -> OutputCheck | None:
        """The float output closest to its bound."""
        floats = [o for o in self.outputs if o.rule != "exact"]
        return max(floats, key=lambda o: o.margin, default=None)

    def summary(self) -> str:
        """`passed (float64 rule by onnxruntime-cpu; worst output ...)`: the verdict, the rule and the worst output."""
        if self.float64_engine is not None:
            rule = f"float64 rule, float64 by {self.float64_engine}"
            if self.reference != "onnxruntime-cpu":
                rule += f", ort32 stands for {self.reference}"
            if self.computed_in is not None:
                rule += f", ulps of {self.computed_in} (the precision it computed in)"
        else:
            rule = f"fixed rule rtol {tolerance_number(self.tolerance.rtol)} atol {tolerance_number(self.tolerance.atol)}, no float64 run: {self.float64_unavailable}"
        worst = self.worst
        verdict = "passed" if self.passed else "FAILED"
        return f"{verdict} ({rule}" + (f"; worst output {worst.describe()})" if worst else ")")

    def as_dict(self) -> dict[str, object]:
        return {
            "reference": self.reference,
            "computed_in": self.computed_in,
            "float64_reference": self.float64_engine,
            "float64_unavailable": self.float64_unavailable,
            "rule": rule_text(),
            "tolerance": asdict(self.tolerance),
            "max_abs_err": self.max_abs_err,
            "max_rel_err": self.max_rel_err,
            "passed": self.passed,
            "problems": list(self.problems),
            "outputs": {o.name: o.as_dict() for o in self.outputs},
        }


def compare(
    outputs: Mapping[str, np.ndarray],
    reference: Mapping[str, np.ndarray],
    float64: Float64Outputs | None = None,
    *,
    factor: float = REFERENCE_TOLERANCE.factor,
    ulps: float = REFERENCE_TOLERANCE.ulps,
    rtol: float = RTOL,
    atol: float = ATOL,
    reference_name: str = "onnxruntime-cpu",
    compute_dtype: np.dtype | None = None,
) -> CheckResult:
    """Every output of onnxruntime's (`reference`) present with its shape and dtype, values per `rule_text()`.

    `float64` is the float64 run of the same model on the same inputs; without it
    (None, or a run that failed) float outputs are held to rtol/atol against `reference`.
    `compute_dtype`: the float the model was computed in where narrower than its outputs
    (a float32 model through onnx-convert-precision): the ulp term counts its epsilon.
    """
    tolerance = Tolerance(factor, ulps, rtol, atol)
    wide = float64.outputs if float64 is not None and float64.outputs is not None else {}
    problems: list[str] = []
    checks: list[OutputCheck] = []
    for name, expected in reference.items():
        got = outputs.get(name)
        if got is None:
            problems.append(f"output '{name}' is missing")
        elif got.shape != expected.shape or got.dtype != expected.dtype:
            problems.append(f"output '{name}' is {list(got.shape)} {got.dtype}, onnxruntime gives {list(expected.shape)} {expected.dtype}")
        elif _is_float(expected.dtype):
            problems += _special_value_problems(name, got, expected)
            checks.append(_float_check(name, got, expected, wide.get(name), tolerance, _ulp(expected.dtype, compute_dtype)))
        else:
            checks.append(_exact_check(name, got, expected))
    problems += [_failure(check) for check in checks if not check.passed]
    return CheckResult(
        reference_name,
        max((c.err_vs_onnxruntime for c in checks), default=0.0),
        max((c.rel_err_vs_onnxruntime for c in checks), default=0.0),
        not problems,
        tuple(problems),
        tuple(checks),
        float64.engine if float64 is not None else None,
        float64.reason if float64 is not None else "not run",
        tolerance,
        None if compute_dtype is None else np.dtype(compute_dtype).name,
    )


def _ulp(output: np.dtype, compute: np.dtype | None) -> float:
    """The epsilon of the ulp term: the output dtype's, or the compute dtype's where coarser."""
    return _epsilon(output) if compute is None else max(_epsilon(output), _epsilon(np.dtype(compute)))


def _float_check(name: str, got: np.ndarray, expected: np.ndarray, wide: np.ndarray | None, tol: Tolerance, eps: float) -> OutputCheck:
    """The errors of one float output, and the verdict of the float64 rule (or the fixed one without f64)."""
    usable = wide is not None and wide.shape == expected.shape
    finite = np.isfinite(got) & np.isfinite(expected)
    if wide is not None and usable:
        finite &= np.isfinite(wide)
    ours, theirs = got[finite].astype(np.float64), expected[finite].astype(np.float64)
    diff = np.abs(ours - theirs)
    err = float(np.max(diff, initial=0.0))
    rel = float(np.max(diff / np.maximum(np.abs(theirs), REL_FLOOR), initial=0.0))
    within = bool(np.all(diff <= tol.atol + tol.rtol * np.abs(theirs)))
    common: dict[str, Any] = {"elements": got.size, "err_vs_onnxruntime": err, "rel_err_vs_onnxruntime": rel, "within_fixed_tolerance": within,
              "matched_nan": int(np.count_nonzero(np.isnan(got) & np.isnan(expected)))}  # fmt: skip
    if wide is None or not usable:
        return OutputCheck(name, "fixed", within, **common)
    exact = wide[finite].astype(np.float64)
    err_x = float(np.max(np.abs(ours - exact), initial=0.0))
    err_o = float(np.max(np.abs(theirs - exact), initial=0.0))
    scale = float(np.max(np.abs(exact), initial=0.0))
    bound = tol.factor * err_o + tol.ulps * eps * scale
    return OutputCheck(name, "float64", err_x <= bound, **common, err_vs_float64=err_x,
                       onnxruntime_err_vs_float64=err_o, scale=scale, bound=bound)  # fmt: skip


def _is_float(dtype: np.dtype) -> bool:
    """NumPy's floats, and ml_dtypes' bfloat16 (which NumPy does not count as floating)."""
    return bool(np.issubdtype(dtype, np.floating)) or dtype.name == "bfloat16"


def _epsilon(dtype: np.dtype) -> float:
    return float(float_info(dtype).eps)


def _exact_check(name: str, got: np.ndarray, expected: np.ndarray) -> OutputCheck:
    mismatches = int(np.count_nonzero(got != expected))
    if not mismatches:
        return OutputCheck(name, "exact", True, got.size)
    err = float(np.max(np.abs(got.astype(np.float64) - expected.astype(np.float64))))
    return OutputCheck(name, "exact", False, got.size, err, err, False, mismatches=mismatches)


def _failure(check: OutputCheck) -> str:
    if check.rule == "exact":
        return f"output '{check.name}' differs in {check.mismatches} of {check.elements} elements"
    if check.rule == "fixed":
        return f"output '{check.name}' differs: max abs error {check.err_vs_onnxruntime:.3g} against onnxruntime"
    return (
        f"output '{check.name}' differs: max abs error {check.err_vs_float64:.3g} against float64, over the bound "
        f"{check.bound:.3g} (onnxruntime fp32's own error {check.onnxruntime_err_vs_float64:.3g})"
    )


def _special_value_problems(name: str, got: np.ndarray, expected: np.ndarray) -> list[str]:
    """NaN, +Inf and -Inf must sit exactly where onnxruntime has them (NaN at its NaN passes)."""
    problems: list[str] = []
    for label, where in (("NaN", np.isnan), ("+Inf", np.isposinf), ("-Inf", np.isneginf)):
        ours, theirs = where(got), where(expected)
        extra, missing = int(np.count_nonzero(ours & ~theirs)), int(np.count_nonzero(theirs & ~ours))
        if extra:
            problems.append(f"output '{name}' is {label} in {extra} of {got.size} elements where onnxruntime is not")
        if missing:
            problems.append(f"output '{name}' is not {label} in {missing} of {got.size} elements where onnxruntime is")
    return problems
