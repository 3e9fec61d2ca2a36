"""Both references of a check, computed once per set of inputs: onnxruntime fp32 and the float64 run.

Where onnxruntime's CPU provider has no kernel for the model's types (bfloat16 Add, for one),
the float64 run rounded to each output's declared type stands in for it: the yardstick is
then what the output's own precision can do (its rounding of the exact result)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import onnx

from xhip.diagnostics import XhipError
from xhip.runtime.check.compare import CheckResult, compare, tolerances
from xhip.runtime.check.float64 import Float64Outputs, float64_outputs
from xhip.runtime.check.onnxruntime_reference import onnxruntime_outputs


NO_KERNEL = "Could not find an implementation"
"""onnxruntime's words for a type its CPU provider has no kernel of."""

ROUNDED_FLOAT64 = "float64 rounded to the output types"


@dataclass(frozen=True)
class References:
    onnxruntime: dict[str, np.ndarray]
    float64: Float64Outputs
    name: str = "onnxruntime-cpu"
    """What `onnxruntime` holds: onnxruntime's outputs, or ROUNDED_FLOAT64 and why."""


def references(model: str | os.PathLike[str] | onnx.ModelProto, feeds: Mapping[str, np.ndarray]) -> References:
    """onnxruntime fp32 first: its refusal of the model or the inputs is the user's one-line error,
    except a type it has no kernel for, when the float64 run can stand in (see the module)."""
    try:
        ort = onnxruntime_outputs(model, feeds)
    except XhipError as err:
        if NO_KERNEL not in str(err):
            raise
        wide = float64_outputs(model, feeds)
        if wide.outputs is None:
            raise
        declared = _output_dtypes(model if isinstance(model, onnx.ModelProto) else onnx.load(os.fspath(model)))
        rounded = {name: value.astype(declared.get(name, value.dtype)) for name, value in wide.outputs.items()}
        return References(rounded, wide, f"{ROUNDED_FLOAT64} (onnxruntime: {err.message})")
    return References(ort, float64_outputs(model, feeds))


def _output_dtypes(model: onnx.ModelProto) -> dict[str, np.dtype]:
    return {
        o.name: np.dtype(onnx.helper.tensor_dtype_to_np_dtype(o.type.tensor_type.elem_type))
        for o in model.graph.output
        if o.type.tensor_type.elem_type
    }


def check_outputs(outputs: Mapping[str, np.ndarray], refs: References, backend: str, compute_dtype: np.dtype | None = None) -> CheckResult:
    """`outputs`, computed by `backend` (in `compute_dtype` where the pipeline narrowed the
    model's floats), judged by the rule of `compare` with that backend's tolerance."""
    return compare(outputs, refs.onnxruntime, refs.float64, reference_name=refs.name, compute_dtype=compute_dtype, **tolerances(backend))
