"""Device-resident feeds and outputs (`xhip.runtime.device_array`): `run(..., on_device=True)`
returns `DeviceArray`s, `run` takes them as feeds, and an array a later graph replay
overwrites is stale rather than silently another run's values.

Reference backend here (its "device" memory is host bytes behind the same protocol);
tests/gpu runs the same on a GPU, where `__cuda_array_interface__` is checked too.
"""

from __future__ import annotations

import numpy as np
import pytest

import xhip
from xhip.diagnostics import XhipError
from xhip.runtime.check import onnxruntime_outputs
from xhip.runtime.device_array import DeviceArray
from xhip.testing.models import MODELS, SHAPE_VARIANTS, feeds_at

RNG = np.random.default_rng(29)


def _compiled(name: str, **options):
    model, _ = MODELS[name](RNG)
    return model, xhip.compile(model, backend="reference", **options)


def _runs_at_one_shape(executable, count: int) -> list[tuple[dict, dict]]:
    """`count` runs of the attention model with device outputs, new inputs each time."""
    shapes = SHAPE_VARIANTS["attention"][0]
    runs = []
    for _ in range(count):
        _, feeds = feeds_at("attention", shapes, RNG)
        runs.append((executable.run(feeds, on_device=True), feeds))
    return runs


def _device_feeds(executable, feeds):
    return {name: executable.to_device(value, name) for name, value in feeds.items()}


@pytest.mark.parametrize("graphs", [False, True])
@pytest.mark.parametrize("name", ["attention", "gpt2", "concat_split"])
def test_device_feeds_and_outputs_match_onnxruntime(name, graphs):
    model, executable = _compiled(name, graphs=graphs)
    shapes = SHAPE_VARIANTS[name][0]
    for _ in range(4):  # with graphs: plain, capture, replay, replay
        _, feeds = feeds_at(name, shapes, RNG)
        outputs = executable.run(_device_feeds(executable, feeds), on_device=True)
        expected = onnxruntime_outputs(model, feeds)
        assert set(outputs) == set(expected)
        for output, value in expected.items():
            assert isinstance(outputs[output], DeviceArray)
            assert outputs[output].shape == value.shape and outputs[output].dtype == value.dtype
            np.testing.assert_allclose(outputs[output].numpy(), value, rtol=1e-4, atol=1e-5)
            np.testing.assert_array_equal(np.asarray(outputs[output]), outputs[output].numpy())
    assert executable.report.replayed == graphs


def test_a_replay_marks_the_outputs_it_overwrites_stale():
    _, executable = _compiled("attention", graphs=True)
    results = [outputs for outputs, _ in _runs_at_one_shape(executable, 3)]
    assert executable.report.replayed
    # The second run captured the graph over its output buffers; the third replayed into them.
    first, captured, replayed = (next(iter(r.values())) for r in results)
    first.numpy()  # a plain run's outputs are its own buffers
    with pytest.raises(XhipError, match="overwritten by a later run of the same input shapes"):
        captured.numpy()
    replayed.numpy()
    with pytest.raises(XhipError, match="overwritten"):
        executable.run({"X": captured}, on_device=True)


def test_outputs_without_graphs_stay_valid_across_runs():
    model, executable = _compiled("attention", graphs=False)
    for outputs, feeds in _runs_at_one_shape(executable, 3):  # all kept until the end
        for output, value in onnxruntime_outputs(model, feeds).items():
            np.testing.assert_allclose(outputs[output].numpy(), value, rtol=1e-4, atol=1e-5)


def test_a_staged_feed_is_read_in_place_and_goes_stale_when_a_replay_writes_over_it():
    """`to_device` arrays are the runs' input buffers: no copy per run. The one a graph was
    captured over stays its buffer, so a replay fed another array writes over it: stale
    then, never silently another array's values. The others keep theirs."""
    model, executable = _compiled("attention", graphs=True)
    shapes = SHAPE_VARIANTS["attention"][0]
    feeds = [feeds_at("attention", shapes, RNG)[1] for _ in range(4)]
    device = [_device_feeds(executable, f) for f in feeds]
    for f, d in zip(feeds, device):  # plain, capture (over device[1]), replay, replay
        outputs = executable.run(d)
        for output, value in onnxruntime_outputs(model, f).items():
            np.testing.assert_allclose(outputs[output], value, rtol=1e-4, atol=1e-5)
    assert executable.report.replayed
    for index in (0, 2, 3):
        for name, value in feeds[index].items():
            np.testing.assert_array_equal(device[index][name].numpy(), value)
    (name, captured_over), = device[1].items()
    with pytest.raises(XhipError, match="overwritten by another array's values"):
        captured_over.numpy()
    with pytest.raises(XhipError, match="overwritten by another array's values"):
        executable.run(device[1])


@pytest.mark.parametrize("graphs", [False, True])
def test_a_device_feed_costs_no_copy_but_into_a_graph_input(graphs):
    model, executable = _compiled("attention", graphs=graphs)
    shapes = SHAPE_VARIANTS["attention"][0]
    _, feeds = feeds_at("attention", shapes, RNG)
    staged = _device_feeds(executable, feeds)
    stats = executable.backend.stats
    for _ in range(4):  # with graphs: plain, capture, replay, replay
        before = stats.device_copies
        outputs = executable.run(staged, on_device=True)
        assert stats.device_copies == before  # outputs handed out of the pools are copies; this model has none
    assert executable.report.replayed == graphs
    (output, value), = onnxruntime_outputs(model, feeds).items()
    np.testing.assert_allclose(outputs[output].numpy(), value, rtol=1e-4, atol=1e-5)
    # Its own output fed back (X and the output are both [b, s, 64]) is not staged: a replay
    # copies it into the graph's input buffer; a run without graphs reads it in place.
    (name, _), = feeds.items()
    kept = outputs[output].numpy()
    before = stats.device_copies
    executable.run({name: outputs[output]}, on_device=not graphs)
    assert stats.device_copies == before + graphs
    if not graphs:  # a replay overwrites its outputs (stale then); without graphs they stay
        np.testing.assert_array_equal(outputs[output].numpy(), kept)


def test_device_feeds_are_checked_like_host_feeds():
    _, executable = _compiled("attention")
    shapes = SHAPE_VARIANTS["attention"][0]
    _, feeds = feeds_at("attention", shapes, RNG)
    (name, value), = feeds.items()
    with pytest.raises(XhipError, match="has dtype float64, expected float32"):
        executable.run({name: executable.to_device(value.astype(np.float64))})
    with pytest.raises(XhipError, match="has rank 2"):
        executable.run({name: executable.to_device(value[0])})
    _, other = _compiled("attention")
    with pytest.raises(XhipError, match="another executable's backend"):
        executable.run({name: other.to_device(value)})
