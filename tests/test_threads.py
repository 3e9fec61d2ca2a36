"""One Executable shared by many threads: every output equal to a serial run's.

Runs of one Executable share its pools, host scratch and captured graphs; before runs
were serialized, two threads at two shapes planned into the same pool bytes and returned
each other's (or half-written) values with no error. Each case runs a real export
(examples/gpt2_2layer.onnx) from 8 threads at 4 input shapes, with the interpreter
switching threads every few microseconds, and compares every output with the serial
run's bit for bit (the same backend, shapes and values compute the same bytes).
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import xhip
from xhip.diagnostics import XhipError

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SHAPES = [(1, 5), (2, 12), (3, 7), (4, 3)]
THREADS = 8


@pytest.fixture(scope="module")
def feeds() -> list[dict[str, np.ndarray]]:
    rng = np.random.default_rng(21)
    return [{"input_ids": rng.integers(0, 256, shape).astype(np.int64)} for shape in SHAPES]


@pytest.fixture(autouse=True)
def quick_switches():
    """Switch threads every 5 us (default 5 ms), so that runs interleave inside ops."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(5e-6)
    yield
    sys.setswitchinterval(before)


def _hammer(exe, feeds, expected, runs: int, on_device: bool = False) -> tuple[int, int, list[str]]:
    """(wrong outputs, stale reads, errors) of `THREADS` threads doing `runs` runs each,
    thread t starting at shape t % 4 and cycling through all four."""
    wrong, stale, errors = [0], [0], []
    count = threading.Lock()
    start = threading.Barrier(THREADS)

    def worker(t: int) -> None:
        start.wait()
        for i in range(runs):
            k = (t + i) % len(feeds)
            try:
                outputs = exe.run(feeds[k], on_device=on_device)
                logits = outputs["logits"]
                values = logits.numpy() if on_device else logits
                report_shape = exe.report.outputs["logits"]["shape"]
            except XhipError as err:
                with count:
                    if "stale" in str(err) or "overwritten" in str(err):
                        stale[0] += 1
                    else:
                        errors.append(str(err))
                continue
            except Exception as err:  # noqa: BLE001 - any other failure is a finding
                with count:
                    errors.append(f"{type(err).__name__}: {err}")
                continue
            with count:
                if not np.array_equal(values, expected[k]) or report_shape != list(expected[k].shape):
                    wrong[0] += 1

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return wrong[0], stale[0], errors


def _serial(exe, feeds) -> list[np.ndarray]:
    return [exe.run(f)["logits"] for f in feeds]


@pytest.mark.parametrize(
    "options, runs",
    [
        pytest.param({}, 200, id="plain"),
        pytest.param({"graphs": True}, 50, id="graph-replay"),
        pytest.param({"deferred": True}, 50, id="deferred"),
    ],
)
def test_one_executable_from_eight_threads_at_four_shapes(feeds, options, runs):
    exe = xhip.compile(EXAMPLES / "gpt2_2layer.onnx", backend="reference", **options)
    expected = _serial(exe, feeds)
    assert all(np.isfinite(e).all() and np.abs(e).max() > 0 for e in expected)
    wrong, stale, errors = _hammer(exe, feeds, expected, runs)
    assert errors == []
    assert (wrong, stale) == (0, 0)


def test_device_arrays_from_threads_are_right_or_stale(feeds):
    """With replay, a run overwrites the outputs an earlier run of its shapes returned: a
    thread reading its DeviceArray gets its own run's values or a stale error, never
    another run's values."""
    exe = xhip.compile(EXAMPLES / "gpt2_2layer.onnx", backend="reference", graphs=True)
    expected = _serial(exe, feeds)
    wrong, stale, errors = _hammer(exe, feeds, expected, 40, on_device=True)
    assert errors == []
    assert wrong == 0
    assert stale < THREADS * 40


def test_reports_are_per_thread(feeds):
    """Each thread's `report` and `run_symbols` are those of its own last run."""
    exe = xhip.compile(EXAMPLES / "gpt2_2layer.onnx", backend="reference")
    seen: dict[int, tuple[list[int], dict[str, int]]] = {}
    barrier = threading.Barrier(len(SHAPES))

    def worker(k: int) -> None:
        barrier.wait()
        for _ in range(5):
            exe.run(feeds[k])
        seen[k] = (exe.report.outputs["logits"]["shape"][:2], dict(exe.run_symbols))

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(len(SHAPES))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for k, shape in enumerate(SHAPES):
        assert seen[k][0] == list(shape)
        assert sorted(seen[k][1].values()) == sorted(shape)


@pytest.mark.parametrize("feeds_value", [[np.zeros((1, 3), np.int64)], None, "input_ids"])
def test_feeds_that_are_not_a_mapping_are_one_line(feeds_value):
    exe = xhip.compile(EXAMPLES / "gpt2_2layer.onnx", backend="reference")
    with pytest.raises(XhipError, match=r"run takes a mapping of input name -> array, not \w+ \(inputs: input_ids"):
        exe.run(feeds_value)
