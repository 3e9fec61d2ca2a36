"""Numerical checks of xhip's outputs: random feeds, the references and the comparison rule."""

from xhip.runtime.check.compare import ATOL, RTOL, CheckResult, compare, tolerances
from xhip.runtime.check.feeds import available_memory_bytes, parse_shape, random_feeds
from xhip.runtime.check.onnxruntime_reference import onnxruntime_outputs

__all__ = [
    "ATOL", "RTOL", "CheckResult", "available_memory_bytes", "compare", "onnxruntime_outputs",
    "parse_shape", "random_feeds", "tolerances",
]
