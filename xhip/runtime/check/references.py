"""Both references of a check, computed once per set of inputs: onnxruntime fp32 and the float64 run."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import onnx

from xhip.runtime.check.compare import CheckResult, compare, tolerances
from xhip.runtime.check.float64 import Float64Outputs, float64_outputs
from xhip.runtime.check.onnxruntime_reference import onnxruntime_outputs


@dataclass(frozen=True)
class References:
    onnxruntime: dict[str, np.ndarray]
    float64: Float64Outputs


def references(model: str | os.PathLike[str] | onnx.ModelProto, feeds: Mapping[str, np.ndarray]) -> References:
    """onnxruntime fp32 first: its refusal of the model or the inputs is the user's one-line error."""
    return References(onnxruntime_outputs(model, feeds), float64_outputs(model, feeds))


def check_outputs(outputs: Mapping[str, np.ndarray], refs: References, backend: str) -> CheckResult:
    """`outputs`, computed by `backend`, judged by the rule of `compare` with that backend's tolerance."""
    return compare(outputs, refs.onnxruntime, refs.float64, **tolerances(backend))
