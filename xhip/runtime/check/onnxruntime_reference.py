"""onnxruntime (CPU) as the reference: its refusal to load or run a model is one `XhipError` line."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

import numpy as np
import onnx

from xhip.diagnostics import ECHO_LIMIT, XhipError, shorten


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
