"""Numerical checks of xhip's outputs: random feeds, the references and the comparison rule."""

from xhip.runtime.check.compare import (
    ATOL, GPU_TOLERANCE, REFERENCE_TOLERANCE, RTOL, CheckResult, OutputCheck, Tolerance, compare, rule_text, tolerances,
)
from xhip.runtime.check.feeds import available_memory_bytes, parse_shape, random_feeds
from xhip.runtime.check.float64 import Float64Outputs, float64_outputs, to_float64
from xhip.runtime.check.onnxruntime_reference import onnxruntime_outputs
from xhip.runtime.check.references import References, check_outputs, references

__all__ = [
    "ATOL", "GPU_TOLERANCE", "REFERENCE_TOLERANCE", "RTOL", "CheckResult", "Float64Outputs", "OutputCheck", "References",
    "Tolerance", "available_memory_bytes", "check_outputs", "compare", "float64_outputs", "onnxruntime_outputs",
    "parse_shape", "random_feeds", "references", "rule_text", "to_float64", "tolerances",
]
