"""onnxruntime (CPU) as the reference: its refusal to load or run a model is one `XhipError` line."""

from __future__ import annotations

import importlib.util
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
    if importlib.util.find_spec("onnxruntime") is None:
        raise XhipError("checking needs onnxruntime, which is not installed (pip install onnxruntime)")
    where = None if isinstance(model, onnx.ModelProto) else os.fspath(model)
    try:
        session = onnxruntime_session(model)
    except Exception as err:  # onnxruntime's pybind errors share no useful base class
        raise XhipError(f"onnxruntime cannot load the model: {onnxruntime_reason(err)}", where) from None
    try:
        return run_session(session, feeds)
    except Exception as err:
        reason = onnxruntime_reason(err)
        raise XhipError(f"onnxruntime cannot run the model on these inputs: {reason}", where) from None


def onnxruntime_session(model: str | os.PathLike[str] | onnx.ModelProto | bytes, optimize: bool = True):
    """A single-threaded CPU session of a model (a path, a proto or its bytes); `optimize=False` runs the
    graph as written (no fused kernels)."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 3  # its warnings are not ours to print
    if not optimize:
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
    source = model.SerializeToString() if isinstance(model, onnx.ModelProto) else model
    source = source if isinstance(source, bytes) else os.fspath(source)
    return onnxruntime.InferenceSession(source, options, providers=["CPUExecutionProvider"])


def run_session(session, feeds: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(names, dict(feeds))))


def onnxruntime_reason(err: Exception) -> str:
    """onnxruntime's message without its `[ONNXRuntimeError] : 2 : INVALID_ARGUMENT :` prefix."""
    text = " ".join(line.strip() for line in str(err).splitlines() if line.strip()) or type(err).__name__
    text = re.sub(r"^\[ONNXRuntimeError\] : \d+ : [A-Z_]+ : ", "", text)
    # Drop the C++ source position and function signature it names: `/src/model.cc:256 ns::F(...) reason`.
    text = re.sub(r"/\S+\.(?:cc|h|cpp):\d+ \S+?\(.*\) (?=\S)", " ", text)
    return shorten(text, 2 * ECHO_LIMIT)
