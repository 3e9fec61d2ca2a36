"""Graphs across shapes (xhip.runtime.backends.gpu.graph_updates) on the GPU backend's host path.

A decoder step (examples/decoder_tiny.onnx) fed its own `present_*` is a new input shape
every step. From the step where its topology key comes round a second time, the step's
work is captured, and after that it runs through the captured graph with only the changed
nodes updated. The driver here models a graph as the list of its nodes' parameters: a
capture takes the launches queued meanwhile, an update sets one node, and a replay
"executes" the nodes. So the test can ask what each replay would have run, and requires
it to be exactly the work that the run's own program queued.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest

from xhip.api import compile_stages
from xhip.runtime.backends.gpu import graph_updates
from xhip.runtime.backends.gpu.backend import GpuBackend
from xhip.runtime.backends.gpu.driver import DriverError, PackedArgs
from xhip.runtime.executable import Executable
from xhip.testing.null_driver import NullDriver

ROOT = Path(__file__).resolve().parents[1]
MODEL = ROOT / "examples" / "decoder_tiny.onnx"
CONCAT_CACHES = ROOT / "pipelines" / "experiments" / "concat-caches.yaml"
"""The step without hip-append-kv-caches: fed arrays of its own, each step concatenates."""
LAYERS, HEADS, HEAD_DIM, VOCAB = 2, 4, 16, 256


class GraphModel(NullDriver):
    """A no-op driver whose graphs hold their nodes' parameters, and that logs what runs."""

    def __init__(self) -> None:
        super().__init__()
        self.executed: list[tuple] = []
        self._capturing: list[tuple] | None = None

    def _queue(self, entry: tuple) -> None:
        (self.executed if self._capturing is None else self._capturing).append(entry)

    def launch(self, function, grid, block, shared_bytes, args: PackedArgs) -> None:
        self._queue(("kernel", function, grid, block, args.snapshot()))

    def fill(self, address: int, byte: int, nbytes: int) -> None:
        if nbytes:
            self._queue(("fill", address, byte, nbytes))

    def copy(self, target: int, source: int, nbytes: int) -> None:
        if nbytes:
            self._queue(("copy", target, source, nbytes))

    def prepare_call(self, call):
        return lambda a, b, c: self._queue(("gemm", a, b, c))

    def begin_capture(self) -> None:
        self._capturing = []

    def captured_node(self) -> object:
        assert self._capturing
        return len(self._capturing) - 1

    def end_capture(self) -> object:
        graph, self._capturing = self._capturing, None
        return graph

    def update_kernel_node(self, graph, node, function, grid, block, shared_bytes, args) -> None:
        self.node_updates += 1
        graph[node] = ("kernel", function, grid, block, args.snapshot())

    def update_fill_node(self, graph, node, address, byte, nbytes) -> None:
        self.node_updates += 1
        graph[node] = ("fill", address, byte, nbytes)

    def replay(self, graph) -> None:
        self.replays += 1
        self.executed.extend(graph)


class RefusingDriver(GraphModel):
    """A driver without node queries (the hip driver today)."""

    def captured_node(self) -> object:
        raise DriverError("captured_node: not supported")


def _decode(driver: NullDriver, steps: int, batches=None, capacity: int | None = None):
    """Per step: (class_graph, nodes updated, what the driver ran, what the program queued;
    None where the recording stopped early: a pool grew, which queued the work so far).
    The caches are concatenated (CONCAT_CACHES), or with `capacity` appended in place into
    `Executable.cache_buffers` of that capacity."""
    model = onnx.load(MODEL)
    *_, (_, module, constants) = compile_stages(model, None if capacity else CONCAT_CACHES)
    exe = Executable(module, GpuBackend(driver), constants=constants)
    driver.backend = exe.backend  # (for the test that asks the backend why it recorded nothing)
    recorded: list[tuple] = []  # this step's segments, in order
    stopped: list[bool] = []
    run, stop = graph_updates.ClassGraphs.run, GpuBackend._stop_recording

    def spy(self, key, work):
        recorded.extend(_as_run(entry) for entry in work)
        return run(self, key, work)

    def stop_spy(self):
        stopped.append(self.recording is not None)
        stop(self)

    rng = np.random.default_rng(0)
    names = [f"past_{kind}_{i}" for i in range(LAYERS) for kind in ("key", "value")]
    rows = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(graph_updates.ClassGraphs, "run", spy)
        patch.setattr(GpuBackend, "_stop_recording", stop_spy)
        batch = None
        for step in range(steps):
            wanted = 3 if batches is None else batches[step]
            if wanted != batch:  # a new prompt (its cache as long as no step's before: new shapes)
                batch, length = wanted, 5 + step
                caches = {n: rng.standard_normal((batch, HEADS, length, HEAD_DIM)).astype(np.float32) for n in names}
                fed = exe.cache_buffers(caches, capacity) if capacity else {n: exe.to_device(v, n) for n, v in caches.items()}
            host = {"input_ids": rng.integers(0, VOCAB, (batch, 1)).astype(np.int64), "position_ids": np.full((batch, 1), length, np.int64)}
            length += 1
            driver.executed, recorded[:], stopped[:] = [], [], []
            outputs = exe.run({**host, **fed}, on_device=True)
            fed = {n: outputs[n.replace("past", "present")] for n in names}
            report = exe.report
            whole = bool(recorded) and not any(stopped)
            rows.append((report.class_graph, report.graph_nodes_updated, list(driver.executed), list(recorded) if whole else None,
                         (report.kernel_launches, exe.backend.stats.device_copies)))
    return rows


def _ran_program(executed: list[tuple], queued: list[tuple]) -> bool:
    """The driver ran the feeds' copies, then exactly the program's work."""
    feeds = executed[: len(executed) - len(queued)]
    return executed[len(feeds) :] == queued and all(entry[0] == "copy" for entry in feeds)


def _as_run(entry: tuple) -> tuple:
    """A recorded entry as the modelled driver logs it when it runs."""
    kind = entry[0]
    if kind == graph_updates.KERNEL:
        return ("kernel", entry[1], entry[2], entry[3], entry[5])
    if kind == graph_updates.LIBRARY:
        return ("gemm", *entry[2:])
    if kind == graph_updates.COPY:
        return ("copy", *entry[1:])
    return ("fill", *entry[1:])


@pytest.mark.parametrize("capacity", [None, 32])
def test_decode_steps_run_through_an_updated_graph_that_is_exactly_their_work(capacity):
    rows = _decode(GraphModel(), 10, capacity=capacity)
    kinds = [kind for kind, *_ in rows]
    # The logits buffer alternates between two blocks (the caller still holds the last
    # step's while the next runs): two keys, each captured at its second sighting.
    assert kinds.count("captured") == 2 and kinds[-5:] == ["updated"] * 5, kinds
    for step, (kind, updated, executed, queued, _) in enumerate(rows):
        # What ran is what the step's program queued, in order, whichever way it ran (after
        # the copies of the fed caches into the step's input buffers).
        assert _ran_program(executed, queued), f"step {step} ({kind})"
        if kind == "updated":
            # Only the kernels and fills that read or write the grown caches change.
            assert 0 < updated < len(queued) // 2
    if capacity:  # appended: each step copies one row into each of the 4 caches
        copies = [counts[1] for *_, counts in rows]  # (the stats count since the executable was made)
        assert [later - earlier for earlier, later in zip(copies, copies[1:])] == [4] * 9


def test_a_changed_blas_call_is_a_new_topology():
    """At another batch the projections' m differs: the step launches as it stands. Back at
    the first batch, graphs serve the steps again (once the logits buffers are among the
    blocks a graph was captured over, or captured anew)."""
    batches = [2] * 6 + [3] * 2 + [2] * 6
    rows = _decode(GraphModel(), len(batches), batches)
    kinds = [kind for kind, *_ in rows]
    assert kinds[5] == "updated" and kinds[6:8] == ["", ""], kinds
    assert kinds[-2:] == ["updated", "updated"], kinds
    for kind, _, executed, queued, _ in rows:
        assert queued is None or _ran_program(executed, queued), kind
    assert [row[3] is None for row in rows].count(True) == 1  # the first step at batch 3 grows the pools


def test_a_driver_without_node_queries_launches_every_step():
    driver = RefusingDriver()
    rows = _decode(driver, 6)
    assert [kind for kind, *_ in rows] == [""] * 6
    for _, _, executed, queued, _ in rows[:3]:  # (later steps record nothing)
        assert _ran_program(executed, queued)
    assert [row[3] for row in rows[3:]] == [None] * 3
    assert driver.backend.graphs_refused == "captured_node: not supported"  # what reports name


def test_an_incremental_step_queues_what_a_whole_step_queues():
    """Program.execute_recorded runs only the steps whose operands changed and queues the
    work the others recorded at the step before: the driver runs byte for byte what a run of
    every step runs (two executables on drivers that hand out the same addresses)."""
    from xhip.runtime.program import Program

    incremental = _decode(GraphModel(), 8)
    with pytest.MonkeyPatch.context() as patch:
        whole_run = Program.execute_recorded

        def forgetful(self, arguments, recording, stats):
            self._memo = None  # nothing kept from the step before: every step runs
            return whole_run(self, arguments, recording, stats)

        patch.setattr(Program, "execute_recorded", forgetful)
        whole = _decode(GraphModel(), 8)
    for step, (mine, theirs) in enumerate(zip(incremental, whole)):
        assert mine[:3] == theirs[:3], f"step {step}"
        assert mine[4] == theirs[4], f"step {step}: launches and device copies counted"


def test_runs_that_never_find_a_graph_pause_the_recording():
    """A server at ever new shapes (GPT-2-shaped test model, 30 new sequence lengths): after
    8 recorded runs in a row with work launched as it stood, recording pauses for 8 runs,
    then for 16 after one more miss, and so on; a decode loop never pauses (the tests above)."""
    from xhip.testing.models import MODELS

    model, _ = MODELS["gpt2"](np.random.default_rng(0))
    *_, (_, module, constants) = compile_stages(model)
    exe = Executable(module, GpuBackend(NullDriver()), constants=constants)
    recorded = []
    begin = GpuBackend.begin_recording

    def counting(self):
        begin(self)
        recorded.append(self.recording is not None)

    rng = np.random.default_rng(1)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(GpuBackend, "begin_recording", counting)
        for seq in range(3, 33):
            exe.run({"input_ids": rng.integers(0, 256, (1, seq)).astype(np.int64)})
    assert recorded == [True] * 8 + [False] * 8 + [True] + [False] * 13, recorded
