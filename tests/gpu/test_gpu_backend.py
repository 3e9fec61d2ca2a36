"""The test set on a real GPU backend, against onnxruntime on the CPU.

Every model at its three shapes (xhip.testing.models.SHAPE_VARIANTS) under every
pipeline YAML, and under each host-visibility strategy for the models whose host
code reads device data (NonZero, Slice from Shape). Skipped where the backend cannot
run (its one-line reason). The check is `xhip-run --check`'s float64 rule with the GPU
tolerance (`xhip.runtime.check.compare.GPU_TOLERANCE`: the GPU's fp32 sums run in another
order, tree reductions, tiles, FMA; TF32 is off).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import xhip
from xhip.api import load_pipeline_like
from xhip.diagnostics import XhipError
from xhip.pipeline import apply_overrides
from xhip.runtime.check import check_outputs, references
from xhip.runtime.device_array import DeviceArray
from xhip.testing.models import MODELS, SHAPE_VARIANTS, feeds_at, graph_model, value

pytestmark = pytest.mark.gpu
REPO = Path(__file__).resolve().parents[2]
PIPELINES = sorted(str(p.relative_to(REPO)) for p in (REPO / "pipelines").rglob("*.yaml"))
STRATEGIES = ("readback", "event", "strict")
HOST_READING_MODELS = ("nonzero", "slice_from_shape")


def _check_at_every_shape(model_name: str, pipeline, backend: str, settings: tuple[str, ...] = ()) -> None:
    rng = np.random.default_rng(sum(map(ord, model_name)))
    executable = None
    for run, shapes in enumerate(SHAPE_VARIANTS[model_name]):
        model, feeds = feeds_at(model_name, shapes, rng)
        if executable is None:
            chosen = load_pipeline_like(pipeline)
            if settings:
                chosen = apply_overrides(chosen, list(settings))
            executable = xhip.compile(model, chosen, backend=backend)
        outputs = executable.run(feeds)
        result = check_outputs(outputs, references(model, feeds), backend, executable.compute_dtype)
        assert result.passed, f"{model_name} {shapes} under {pipeline} {settings} on {backend}: {result.problems}"
        if run == 0 and executable.report.pool_bytes:
            # A fresh session allocates exactly the pools its first run asks for.
            assert executable.backend.memory.live_by_kind["pool"] == executable.report.pool_bytes


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize("model_name", sorted(MODELS))
def test_model_matches_onnxruntime_on_gpu(backend_name, pipeline, model_name):
    _check_at_every_shape(model_name, REPO / pipeline, backend_name)


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("model_name", HOST_READING_MODELS)
def test_host_visibility_strategies_on_gpu(backend_name, strategy, model_name):
    setting = (f"hip-lower-host-visibility.strategy={strategy}",)
    if (model_name, strategy) == ("nonzero", "strict"):
        # NonZero's count is device data the host must read: strict refuses to compile it.
        with pytest.raises(XhipError, match="strategy 'strict' lowers none"):
            _check_at_every_shape(model_name, "default", backend_name, setting)
        return
    _check_at_every_shape(model_name, "default", backend_name, setting)


def test_gather_index_out_of_range_is_a_located_error(backend_name):
    from onnx import TensorProto, helper

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


def test_the_report_names_the_gpu(backend_name):
    model, feeds = feeds_at("attention", SHAPE_VARIANTS["attention"][0], np.random.default_rng(0))
    executable = xhip.compile(model, backend="auto")
    executable.run(feeds)
    assert executable.report.backend.startswith(f"{backend_name}: ")


def test_a_second_process_compiles_nothing(backend_name, tmp_path):
    """The compile cache: the same model in a fresh process loads every kernel from disk."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "XHIP_CACHE_DIR": str(tmp_path / "cache")}
    command = [sys.executable, "-m", "xhip.tools.run", str(REPO / "examples" / "attention.onnx"), "--shape", "X=2x64", "--backend", backend_name]
    rows = []
    for _ in range(2):
        result = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
        rows.append(next(line for line in result.stdout.splitlines() if line.startswith("kernel compiles")))
    assert int(rows[0].split()[-1]) > 0 and int(rows[1].split()[-1]) == 0, rows


@pytest.mark.parametrize("pipeline", ["pipelines/default.yaml", "pipelines/experiments/seed-003.yaml"])
@pytest.mark.parametrize("model_name", sorted(MODELS))
def test_repeated_shapes_replay_a_graph_with_new_inputs(backend_name, pipeline, model_name):
    """Graphs are on by default on a GPU: from the third run at a shape the run replays
    (where the plan allows it), and every run, replayed or not, matches onnxruntime."""
    rng = np.random.default_rng(31)
    model, _ = MODELS[model_name](rng)
    executable = xhip.compile(model, REPO / pipeline, backend=backend_name)
    for shapes in SHAPE_VARIANTS[model_name][:2]:
        replayed = []
        for _ in range(4):
            _, feeds = feeds_at(model_name, shapes, rng)  # new values every run
            result = check_outputs(executable.run(feeds), references(model, feeds), backend_name)
            assert result.passed, f"{model_name} {shapes} run {len(replayed)}: {result.problems}"
            replayed.append(executable.report.replayed)
        if executable.report.replay:  # why this plan never replays
            assert not any(replayed)
        else:
            assert replayed[2:] == [True, True], replayed


@pytest.mark.parametrize("model_name", sorted(MODELS))
def test_device_feeds_and_outputs_on_gpu(backend_name, model_name):
    """`run(on_device=True)` over device feeds, through capture and replays: the same values
    as onnxruntime, and on cuda the arrays read in place through __cuda_array_interface__."""
    rng = np.random.default_rng(37)
    model, _ = MODELS[model_name](rng)
    executable = xhip.compile(model, backend=backend_name)
    shapes = SHAPE_VARIANTS[model_name][0]
    for _ in range(4):
        _, feeds = feeds_at(model_name, shapes, rng)
        device_feeds = {name: executable.to_device(value, name) for name, value in feeds.items()}
        outputs = executable.run(device_feeds, on_device=True)
        result = check_outputs({n: np.asarray(a) for n, a in outputs.items()}, references(model, feeds), backend_name)
        assert result.passed, f"{model_name} {shapes}: {result.problems}"
    if backend_name == "cuda":
        cupy = pytest.importorskip("cupy")
        for array in outputs.values():
            if isinstance(array, DeviceArray) and array.nbytes:
                np.testing.assert_array_equal(cupy.asnumpy(cupy.asarray(array)), array.numpy())


def test_one_executable_runs_from_other_threads_at_new_shapes(backend_name):
    """A CUDA context (a HIP device) is current per thread: an executable built in one thread
    runs in another, at shapes that allocate and plan anew, and agrees with onnxruntime.
    Before, a second thread's first allocation failed ('cuMemAlloc failed: invalid device
    context')."""
    import threading

    model, _ = feeds_at("gpt2", SHAPE_VARIANTS["gpt2"][0], np.random.default_rng(0))
    executable = xhip.compile(model, backend=backend_name)
    failures: list[str] = []

    def worker(k: int) -> None:
        rng = np.random.default_rng(k)
        for shape in ((1, 3 + k), (2, 9 + k)):
            feeds = {"input_ids": rng.integers(0, 256, shape).astype(np.int64)}
            try:
                for _ in range(3):  # new shape, then seen, then replayed
                    result = check_outputs(executable.run(feeds), references(model, feeds), backend_name)
                    if not result.passed:
                        failures.append(f"{shape}: {result.problems}")
                array = executable.run(feeds, on_device=True)["logits"]
                assert array.numpy().shape == (*shape, 256)
            except XhipError as err:
                failures.append(str(err))

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
