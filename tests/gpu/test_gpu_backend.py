"""Models of the test set on a real GPU backend, against onnxruntime on the CPU.

Skipped where the backend cannot run (its one-line reason). Tolerance rtol 1e-3 /
atol 1e-4: the GPU's fp32 sums run in another order than onnxruntime's (tree
reductions, FMA), TF32 stays off.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import xhip
from xhip.runtime.backends import make_backend
from xhip.runtime.backends.gpu.driver import DriverUnavailable
from xhip.runtime.check import compare, onnxruntime_outputs
from xhip.testing.models import MODELS

pytestmark = pytest.mark.gpu
REPO = Path(__file__).resolve().parents[2]
PIPELINES = sorted(str(p.relative_to(REPO)) for p in (REPO / "pipelines").rglob("*.yaml"))
BACKENDS = ("cuda", "hip")


@pytest.fixture(scope="module", params=BACKENDS)
def backend_name(request):
    try:
        make_backend(request.param)
    except DriverUnavailable as err:
        pytest.skip(str(err))
    return request.param


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize("model_name", sorted(MODELS))
def test_model_matches_onnxruntime_on_gpu(backend_name, pipeline, model_name):
    model, feeds = MODELS[model_name](np.random.default_rng(sum(map(ord, model_name))))
    expected = onnxruntime_outputs(model, feeds)
    executable = xhip.compile(model, REPO / pipeline, backend=backend_name)
    result = compare(executable.run(feeds), expected, rtol=1e-3, atol=1e-4)
    assert result.passed, f"{model_name} under {pipeline} on {backend_name}: {result.problems}"


def test_gather_index_out_of_range_is_a_located_error(backend_name):
    from onnx import TensorProto, helper

    from xhip.diagnostics import XhipError
    from xhip.testing.models import graph_model, value

    model = graph_model(
        [helper.make_node("Gather", ["data", "indices"], ["y"], axis=0, name="pick_rows")],
        [value("data", TensorProto.FLOAT, ["n", 4]), value("indices", TensorProto.INT64, ["k"])],
        [value("y", TensorProto.FLOAT, None)],
    )
    executable = xhip.compile(model, backend=backend_name)
    data = np.random.default_rng(3).standard_normal((5, 4)).astype(np.float32)
    good = executable.run({"data": data, "indices": np.array([4, -5, 2], np.int64)})
    np.testing.assert_array_equal(good["y"], data[[4, 0, 2]])
    with pytest.raises(XhipError, match="index 7 is out of range"):
        executable.run({"data": data, "indices": np.array([1, 7, 2], np.int64)})
