"""Graph replay (`xhip.runtime.replay`): the third run at an input-shape signature replays
the graph the second one captured, with new inputs, and gives what a plain run gives.

On the reference backend graphs are taken when asked (`graphs=True`); the same tests
run on a GPU (tests/gpu) where they are the default.
"""

from __future__ import annotations

import numpy as np
import pytest

import xhip
from xhip.runtime.check import onnxruntime_outputs
from xhip.testing.models import MODELS, SHAPE_VARIANTS, feeds_at

RNG = np.random.default_rng(13)


def _executable(name: str, **options):
    model, _ = MODELS[name](RNG)
    return model, xhip.compile(model, backend="reference", **options)


@pytest.mark.parametrize("name", ["attention", "gpt2", "concat_split"])
def test_the_third_run_at_a_shape_replays_and_matches_onnxruntime(name):
    model, executable = _executable(name, graphs=True)
    shapes = SHAPE_VARIANTS[name][0]
    replayed = []
    for _ in range(4):
        _, feeds = feeds_at(name, shapes, RNG)  # new values every run
        outputs = executable.run(feeds)
        expected = onnxruntime_outputs(model, feeds)
        for output, value in expected.items():
            np.testing.assert_allclose(outputs[output], value, rtol=1e-4, atol=1e-5)
        replayed.append(executable.report.replayed)
    assert replayed == [False, False, True, True]
    assert executable.report.kernel_launches > 0 and executable.report.pool_bytes > 0


def test_new_shapes_capture_again_and_a_grown_pool_drops_the_graphs():
    model, executable = _executable("attention", graphs=True)
    small, large = ({"X": (1, 16, 64)}, {"X": (4, 64, 64)})
    runs = []
    for shapes in [small, small, small, large, large, large, small, small, small]:
        _, feeds = feeds_at("attention", shapes, RNG)
        outputs = executable.run(feeds)
        np.testing.assert_allclose(outputs["out"], onnxruntime_outputs(model, feeds)["out"], rtol=1e-4, atol=1e-5)
        runs.append(executable.report.replayed)
    # The large shape grows the pool: the small shape's graph names the old one and is
    # dropped; the small shape, seen before, captures again at once and replays after.
    assert runs == [False, False, True, False, False, True, False, True, True]


def test_a_plan_that_reads_device_data_on_the_host_never_replays():
    model, executable = _executable("nonzero", graphs=True)
    assert "reads device data on the host" in executable.report.replay
    for _ in range(3):
        _, feeds = feeds_at("nonzero", SHAPE_VARIANTS["nonzero"][0], RNG)
        outputs = executable.run(feeds)
        np.testing.assert_array_equal(outputs["y"], onnxruntime_outputs(model, feeds)["y"])
        assert not executable.report.replayed


def test_graphs_are_off_by_default_on_the_reference_backend():
    _, executable = _executable("attention")
    for _ in range(3):
        executable.run(feeds_at("attention", SHAPE_VARIANTS["attention"][0], RNG)[1])
    assert not executable.report.replayed and executable.report.replay == ""


def test_a_replay_reports_the_layout_of_its_own_shape():
    """After a run at another shape, a replay restores its signature's pooled views (what a
    memory report of the run reads), not those of the run before it."""
    _, executable = _executable("attention", graphs=True)
    large, small = ({"X": (4, 64, 64)}, {"X": (1, 16, 64)})
    for shapes in [large, small, small, large, small]:  # the last plain run is large
        executable.run(feeds_at("attention", shapes, RNG)[1])
    assert executable.report.replayed
    assert {view.shape[0] for view in executable.pooled_views.values()} == {1}


def test_a_model_without_inputs_replays_too():
    """Its signature is the empty tuple: still a signature (it was once taken for none, so
    every run from the second captured a graph and none replayed)."""
    from onnx import TensorProto, helper, numpy_helper

    weights = numpy_helper.from_array(RNG.standard_normal((20, 30)).astype(np.float32), "w")
    graph = helper.make_graph(
        [helper.make_node("Relu", ["w"], ["y"])], "no_inputs", [],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [20, 30])], [weights],
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    executable = xhip.compile(model, backend="reference", graphs=True)
    replayed = []
    for _ in range(4):
        np.testing.assert_array_equal(executable.run({})["y"], onnxruntime_outputs(model, {})["y"])
        replayed.append(executable.report.replayed)
    assert replayed == [False, False, True, True]
