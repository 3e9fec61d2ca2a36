"""Traced runs (xhip.runtime.trace) do on the device exactly what the interpreted program does.

On a driver that records every vendor call (kernels with their grid and argument bytes,
BLAS calls, copies and fills), each shape of each model runs through its traced class and
then interpreted; the two logs must be the same call for call, byte for byte, once the
buffers each run allocates for itself (its outputs) are matched up in the order the runs
allocated them (a traced run allocates before its first launch: the poison fills of fresh
buffers are compared as a set). Reports (pool bytes, the merged bound) agree too. A program a trace cannot
follow says why and runs interpreted.

Where a run-time extent is 1, a class traced at other extents (or a trace that does not ask
whether the extent is 1, so that batch 1 needs no class of its own) may pass another stride
for a unit dim than the interpreter does, or another leading dimension for a GEMM of one
row: values no kernel ever steps by. There the same calls are compared (kernels, grids,
BLAS shapes, copies and fills) without the argument bytes, and the reference backend's
outputs bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest

import xhip
from xhip.diagnostics import XhipError
from xhip.runtime.backends.gpu.backend import GpuBackend
from xhip.runtime.executable import AHEAD_EXTENTS
from xhip.runtime.trace import INTERPRETED_FIRST
from xhip.testing.models import EXAMPLES, MODELS, SHAPE_VARIANTS, feeds_at
from xhip.testing.null_driver import NullDriver

EXTRA_SHAPES = {
    "attention": ({"X": (2, 64, 64)}, {"X": (5, 200, 64)}),
    "gpt2": ({"input_ids": (3, 20)}, {"input_ids": (2, 33)}, {"input_ids": (1, 7)}),
    "concat_split": ({"x": (9, 3), "z": (9, 5)},),
    "reshape_flatten": ({"x": (5, 2, 6)},),
}


class RecordingDriver(NullDriver):
    """The no-op driver, logging what it is asked to do; allocations never overlap."""

    def __init__(self) -> None:
        super().__init__()
        self._next = 1 << 40
        self.allocations: list[tuple[int, int]] = []
        """The buffers the backend handed out (its allocator may reuse freed memory)."""
        self.log: list[tuple[object, ...]] = []

    def malloc(self, nbytes: int) -> int:
        address = self._next
        self._next += -(-max(int(nbytes), 1) // 4096) * 4096 + 4096
        return address

    def launch(self, function, grid, block, shared_bytes, args) -> None:  # type: ignore[no-untyped-def]
        super().launch(function, grid, block, shared_bytes, args)
        self.log.append(("kernel", function, tuple(grid), tuple(block), shared_bytes, args.snapshot()))

    def prepare_call(self, call):  # type: ignore[no-untyped-def]
        shape = call._replace(a=0, b=0, c=0)

        def run(a: int, b: int, c: int) -> None:
            self.log.append(("gemm", shape, a, b, c))

        return run

    def copy(self, target: int, source: int, nbytes: int) -> None:
        self.log.append(("copy", target, source, nbytes))

    def fill(self, address: int, byte: int, nbytes: int) -> None:
        self.log.append(("fill", address, byte, nbytes))

    def take(self) -> tuple[list[tuple[object, ...]], list[tuple[int, int]]]:
        taken = self.log, self.allocations
        self.log, self.allocations = [], []
        return taken


class RecordingBackend(GpuBackend):
    def __init__(self, driver: RecordingDriver):
        super().__init__(driver)
        self.recorder = driver

    def allocate(self, nbytes, label, kind):  # type: ignore[no-untyped-def]
        buffer = super().allocate(nbytes, label, kind)
        self.recorder.allocations.append((buffer.address, int(nbytes)))
        return buffer


def _translated(log: list[tuple[object, ...]], moves: dict[int, tuple[int, int]]) -> list[tuple[object, ...]]:
    """`log` with every address inside an allocation of `moves` (start -> (size, new start))
    moved to the same offset of its new allocation: argument bytes are scanned as aligned
    8-byte words (pointers are 8-aligned in the packed C layout, and fake addresses are far
    above any extent)."""
    starts = sorted(moves)

    def move(address: int) -> int:
        for start in starts:
            size, new = moves[start]
            if start <= address < start + max(size, 1):
                return new + address - start
        return address

    out = []
    for entry in log:
        if entry[0] == "kernel":
            raw = bytearray(entry[-1])  # type: ignore[arg-type]
            for at in range(0, len(raw) - 7, 8):
                word = int.from_bytes(raw[at : at + 8], "little")
                raw[at : at + 8] = move(word).to_bytes(8, "little")
            out.append((*entry[:-1], bytes(raw)))
        elif entry[0] == "gemm":
            out.append((entry[0], entry[1], *map(move, entry[2:])))  # type: ignore[arg-type]
        elif entry[0] == "copy":
            out.append((entry[0], move(entry[1]), move(entry[2]), entry[3]))  # type: ignore[arg-type]
        else:
            out.append((entry[0], move(entry[1]), *entry[2:]))  # type: ignore[arg-type]
    return out


def _run(exe, feeds, traced: bool):  # type: ignore[no-untyped-def]
    classes = exe.traced_runs
    classes.enabled = traced
    before = classes.traced
    try:
        outputs = exe.run(feeds)
    finally:
        classes.enabled = True
    return outputs, classes.traced > before


def _runtime_unit(exe, feeds) -> bool:  # type: ignore[no-untyped-def]
    """Whether a symbolic dim of the inputs is 1 in `feeds` (module doc)."""
    return any(
        isinstance(declared, str) and extent == 1
        for spec in exe.signature.inputs
        for declared, extent in zip(spec.shape, np.shape(feeds[spec.name]))
    )


def _calls(log: list[tuple[object, ...]]) -> list[tuple[object, ...]]:
    """What each call is, without the values of its unit dims: kernels by name, grid and
    block; BLAS calls by their m, n, k and batch; copies and fills as they are."""
    calls = []
    for entry in log:
        if entry[0] == "kernel":
            calls.append(entry[:-1])
        elif entry[0] == "gemm":
            call = entry[1]
            calls.append(("gemm", call.m, call.n, call.k, call.batch, call.trans_a, call.trans_b))  # type: ignore[attr-defined]
        else:
            calls.append(entry)
    return calls


def _compare_at(exe, driver: RecordingDriver, feeds) -> bool:  # type: ignore[no-untyped-def]
    """Runs `feeds` traced (until its class is traced, then once more, logged) and
    interpreted; asserts the same device work (module doc); whether the run was traced."""
    for _ in range(3):
        if _run(exe, feeds, traced=True)[1]:
            break
    driver.take()
    traced_outputs, was_traced = _run(exe, feeds, traced=True)
    traced_log, traced_allocations = driver.take()
    traced_report = exe.report
    interpreted_outputs, _ = _run(exe, feeds, traced=False)
    interpreted_log, interpreted_allocations = driver.take()
    assert [n for _, n in traced_allocations] == [n for _, n in interpreted_allocations]
    moves = {old: (n, new) for (old, n), (new, _) in zip(interpreted_allocations, traced_allocations)}
    # Allocations run before any launch in a traced run (their poison fills with them): fills
    # of fresh buffers are compared as a set, every other call in order.
    expected = _translated(interpreted_log, moves)
    if _runtime_unit(exe, feeds):
        traced_log, expected = _calls(traced_log), _calls(expected)
    assert [e for e in traced_log if e[0] != "fill"] == [e for e in expected if e[0] != "fill"]
    assert sorted(e for e in traced_log if e[0] == "fill") == sorted(e for e in expected if e[0] == "fill")
    assert traced_report.kernel_launches == exe.report.kernel_launches
    assert traced_report.pool_bytes == exe.report.pool_bytes
    assert traced_report.memory.merged == exe.report.memory.merged
    for name, value in interpreted_outputs.items():
        assert np.shape(traced_outputs[name]) == np.shape(value)
    return was_traced


@pytest.mark.parametrize("name", [n for n in MODELS if n != "nonzero"])
def test_traced_runs_launch_what_the_interpreter_launches(name):
    driver = RecordingDriver()
    rng = np.random.default_rng(7)
    shapes = (*SHAPE_VARIANTS[name], *EXTRA_SHAPES.get(name, ()))
    model, first = feeds_at(name, shapes[0], rng)
    exe = xhip.compile(model, backend=RecordingBackend(driver), graphs=False)
    exe.run(first)  # through a class traced at compile time, or interpreted
    assert exe.traced_runs.why_not is None
    traced = [_compare_at(exe, driver, feeds_at(name, shape, rng)[1]) for shape in shapes]
    assert all(traced), exe.traced_runs.why_not
    assert exe.traced_runs.why_not is None


@pytest.mark.parametrize("model", ["gpt2_2layer.onnx", "bert_tiny_64.onnx"])
def test_classes_traced_at_compile_time_take_first_runs_and_launch_what_the_interpreter_launches(model):
    """On a GPU backend an executable traces its common classes when it is made (every
    symbolic dim at each of AHEAD_EXTENTS, over operands that exist nowhere): it allocates
    nothing more than one that does not, and the first run at each never-seen shape,
    batch 1 and long sequences among them, runs traced through one of those classes with no
    trace of its own, its driver calls equal to the interpreted run's."""
    import onnx

    loaded = onnx.load(EXAMPLES / model)
    sizes = {}
    for ahead in (False, True):
        driver = RecordingDriver()
        exe = xhip.compile(loaded, backend=RecordingBackend(driver), graphs=False, trace_ahead=ahead)
        sizes[ahead] = [n for _, n in driver.take()[1]]
    assert sizes[True] == sizes[False]
    assert len(exe.traced_runs.runs) == len(AHEAD_EXTENTS) and len(exe.traced_runs.ahead_seconds) == len(AHEAD_EXTENTS)
    rng = np.random.default_rng(8)
    for batch, seq in [(1, 64), (3, 5), (1, 1), (2, 40), (4, 17)]:
        feeds = {spec.name: rng.integers(0, 2 if spec.name != "input_ids" else 100, (batch, seq)).astype(np.int64) for spec in exe.inputs}
        _, was_traced = _run(exe, feeds, traced=True)
        assert was_traced, f"{batch}x{seq}: {exe.traced_runs.why_not}"
        assert _compare_at(exe, driver, feeds)
    assert len(exe.traced_runs.runs) == len(AHEAD_EXTENTS) and exe.traced_runs.interpreted == 5


def test_the_reference_backend_traces_ahead_when_asked():
    """The reference backend traces no class at compile time unless asked (its tests compare
    traced and interpreted runs); asked, the first run is traced and computes what the
    interpreter computes, bit for bit."""
    assert not xhip.compile(EXAMPLES / "gpt2_2layer.onnx", backend="reference", graphs=False).traced_runs.runs
    exe = xhip.compile(EXAMPLES / "gpt2_2layer.onnx", backend="reference", graphs=False, trace_ahead=True)
    feeds = {"input_ids": np.random.default_rng(2).integers(0, 256, (2, 11)).astype(np.int64)}
    traced, was_traced = _run(exe, feeds, traced=True)
    interpreted, _ = _run(exe, feeds, traced=False)
    assert was_traced
    np.testing.assert_array_equal(traced["logits"], interpreted["logits"])


def test_a_program_that_reads_device_data_is_interpreted_and_says_why():
    """NonZero reads a count back through host scratch to size its output: a trace cannot
    follow host reads (the no-op driver reads zeros, so the run itself may fail on the
    sizes it read)."""
    driver = RecordingDriver()
    rng = np.random.default_rng(3)
    model, feeds = feeds_at("nonzero", SHAPE_VARIANTS["nonzero"][0], rng)
    exe = xhip.compile(model, backend=RecordingBackend(driver), graphs=False)
    for shape in SHAPE_VARIANTS["nonzero"]:
        try:
            exe.run(feeds_at("nonzero", shape, rng)[1])
        except XhipError:
            pass
    assert "a step a trace cannot follow" in (exe.traced_runs.why_not or ""), exe.traced_runs.why_not
    assert exe.traced_runs.traced == 0


def test_one_class_serves_many_shapes_of_gpt2():
    """GPT-2 (2 layers), no class traced at compile time: after its first class is traced, new
    (batch, seq) shapes of the same kernel forms run traced, with no trace of their own."""
    import onnx

    driver = RecordingDriver()
    exe = xhip.compile(onnx.load(EXAMPLES / "gpt2_2layer.onnx"), backend=RecordingBackend(driver), graphs=False, trace_ahead=False)
    rng = np.random.default_rng(5)
    shapes = [(1, 9), (2, 17), (3, 11), (2, 30), (4, 25), (1, 40), (3, 5)]
    for b, s in shapes:
        exe.run({"input_ids": rng.integers(0, 256, (b, s)).astype(np.int64)})
    classes = exe.traced_runs
    assert classes.why_not is None
    # One class: batch 1 is no class of its own (an operand that broadcasts along the batch
    # reads stride 0 there whatever the batch, xhip.kernels.family.broadcast_strides).
    assert len(classes.runs) == 1
    assert classes.traced == len(shapes) - INTERPRETED_FIRST


@pytest.mark.parametrize("name", [n for n in MODELS if n != "nonzero"])
def test_traced_runs_compute_what_the_interpreter_computes_on_the_reference_backend(name):
    """The reference backend's NumPy kernels run the traced launches: every output equals
    the interpreted run's bit for bit, at every shape of the model's variants."""
    rng = np.random.default_rng(11)
    shapes = (*SHAPE_VARIANTS[name], *EXTRA_SHAPES.get(name, ()))
    model, first = feeds_at(name, shapes[0], rng)
    exe = xhip.compile(model, backend="reference", graphs=False)
    exe.run(first)
    for shape in shapes:
        feeds = feeds_at(name, shape, rng)[1]
        exe.run(feeds)  # traces the class where it is new
        traced, was_traced = _run(exe, feeds, traced=True)
        assert was_traced and exe.report.traced, exe.traced_runs.why_not
        interpreted, _ = _run(exe, feeds, traced=False)
        assert not exe.report.traced
        assert traced.keys() == interpreted.keys()
        for key, value in interpreted.items():
            np.testing.assert_array_equal(traced[key], value, err_msg=f"{name} {shape} {key}")


@pytest.mark.parametrize("ahead", [False, True])
def test_a_decoder_appending_to_its_caches_runs_traced_and_computes_what_the_interpreter_does(ahead):
    """examples/decoder_tiny.onnx (present = Concat(past, new), appended in place): 6 steps
    fed their own presents, traced and interpreted on executables of their own, give the
    same logits and presents bit for bit; the traced steps extend the caller's buffers.
    With classes traced at compile time (each past a cache's written rows), every step is
    traced, the first included, and none traces a class of its own."""
    import onnx

    model = onnx.load(EXAMPLES / "decoder_tiny.onnx")
    traced, interpreted = (xhip.compile(model, backend="reference", graphs=False, trace_ahead=ahead) for _ in range(2))
    interpreted.traced_runs.enabled = False
    names = [f"past_{kind}_{i}" for i in range(2) for kind in ("key", "value")]
    rng = np.random.default_rng(9)
    host = {name: rng.standard_normal((2, 4, 5, 16)).astype(np.float32) for name in names}
    fed = {exe: exe.cache_buffers(host, capacity=16) for exe in (traced, interpreted)}
    buffers = {name: fed[traced][name]._memref.buffer for name in names}
    for step in range(6):
        tokens = {"input_ids": rng.integers(0, 256, (2, 1)).astype(np.int64), "position_ids": np.full((2, 1), 5 + step, np.int64)}
        outputs = {exe: exe.run({**tokens, **fed[exe]}, on_device=True) for exe in (traced, interpreted)}
        for name, value in outputs[interpreted].items():
            np.testing.assert_array_equal(np.asarray(outputs[traced][name]), np.asarray(value), err_msg=f"step {step} {name}")
        fed = {exe: {past: outputs[exe][present] for past, present in exe.cache_inputs.items()} for exe in fed}
    assert traced.traced_runs.why_not is None and traced.traced_runs.traced >= 6 - INTERPRETED_FIRST
    assert traced.report.traced and not interpreted.report.traced
    if ahead:
        assert traced.traced_runs.traced == 6 and len(traced.traced_runs.runs) == len(AHEAD_EXTENTS)
    for past, present in traced.cache_inputs.items():
        assert outputs[traced][present]._memref.buffer is buffers[past]  # extended in place


def test_a_decoder_at_batch_1_runs_through_the_class_traced_at_batch_2():
    """examples/decoder_tiny.onnx decoded at batch 2, then at batch 1 on fresh caches: the
    batch-1 steps run through the class the batch-2 steps traced (no trace of their own),
    compute what the interpreter computes bit for bit, and extend their caches in place. A
    class of another batch fails its guards before it places a step's rows (a guard on the
    placed rows' extents would come after, and the interpreted rerun would find the cache
    extended and move it)."""
    import onnx

    model = onnx.load(EXAMPLES / "decoder_tiny.onnx")
    traced, interpreted = (xhip.compile(model, backend="reference", graphs=False) for _ in range(2))
    interpreted.traced_runs.enabled = False
    names = [f"past_{kind}_{i}" for i in range(2) for kind in ("key", "value")]
    rng = np.random.default_rng(21)
    for batch in (2, 1):
        host = {name: rng.standard_normal((batch, 4, 5, 16)).astype(np.float32) for name in names}
        fed = {exe: exe.cache_buffers(host, capacity=16) for exe in (traced, interpreted)}
        buffers = {name: fed[traced][name]._memref.buffer for name in names}
        classes = len(traced.traced_runs.runs)
        for step in range(4):
            tokens = {"input_ids": rng.integers(0, 256, (batch, 1)).astype(np.int64), "position_ids": np.full((batch, 1), 5 + step, np.int64)}
            outputs = {exe: exe.run({**tokens, **fed[exe]}, on_device=True) for exe in (traced, interpreted)}
            for name, value in outputs[interpreted].items():
                np.testing.assert_array_equal(np.asarray(outputs[traced][name]), np.asarray(value), err_msg=f"batch {batch} step {step} {name}")
            fed = {exe: {past: outputs[exe][present] for past, present in exe.cache_inputs.items()} for exe in fed}
            if batch == 1:
                assert traced.report.traced and len(traced.traced_runs.runs) == classes, traced.traced_runs.why_not
        for past, present in traced.cache_inputs.items():
            assert outputs[traced][present]._memref.buffer is buffers[past]  # extended in place
    assert traced.traced_runs.why_not is None and len(traced.traced_runs.runs) == 1


def test_a_class_of_another_batch_never_moves_a_cache_it_does_not_serve():
    """The decoder with graphs across shapes on the no-op driver, batch 2 then batch 1: every
    batch-1 step runs traced through the batch-2 class and extends the caller's caches in
    place. The class's guards about the appended rows are guards about the inputs (the rows'
    extents are past's grown by new's, not values read back after the rows are placed): a
    guard that failed after the placing would leave the cache extended, and the
    interpreted rerun would move it into a new one twice the size, at every step."""
    import onnx

    model = onnx.load(EXAMPLES / "decoder_tiny.onnx")
    # The batch-2 steps trace the class (none traced at compile time takes them first).
    exe = xhip.compile(model, backend=GpuBackend(NullDriver()), graphs=True, trace_ahead=False)
    names = [f"past_{kind}_{i}" for i in range(2) for kind in ("key", "value")]
    rng = np.random.default_rng(5)
    for batch in (2, 1):
        fed = exe.cache_buffers({name: rng.standard_normal((batch, 4, 5, 16)).astype(np.float32) for name in names}, capacity=16)
        buffers = {name: fed[name]._memref.buffer for name in names}
        for step in range(6):
            tokens = {"input_ids": np.zeros((batch, 1), np.int64), "position_ids": np.full((batch, 1), 5 + step, np.int64)}
            outputs = exe.run({**tokens, **fed}, on_device=True)
            fed = {past: outputs[present] for past, present in exe.cache_inputs.items()}
            assert all(fed[name]._memref.buffer is buffers[name] for name in names), f"batch {batch} step {step}: a cache moved"
            if batch == 1:
                assert exe.report.traced, exe.traced_runs.why_not
    assert len(exe.traced_runs.runs) == 1


def test_recorded_runs_go_through_traced_runs_too():
    """With graphs on, a run at a new shape is recorded (graphs across shapes); its work comes
    from its traced class all the same, into the recording (tests/test_graph_updates.py's
    decode loops, traced from their second step, check that each graph runs exactly the
    recorded work)."""
    import onnx

    driver = RecordingDriver()
    exe = xhip.compile(onnx.load(EXAMPLES / "gpt2_2layer.onnx"), backend=RecordingBackend(driver), graphs=True)
    rng = np.random.default_rng(4)
    for b, s in [(2, 9), (2, 17), (3, 11), (2, 30), (4, 25)]:
        exe.run({"input_ids": rng.integers(0, 256, (b, s)).astype(np.int64)}, on_device=True)
    assert exe.traced_runs.traced >= 5 - INTERPRETED_FIRST and exe.report.traced
    assert exe.report.class_graph in ("updated", "captured", "")


def test_a_bert_serving_stream_runs_traced_across_its_classes():
    """examples/bert_tiny_64.onnx over requests of several batches and lengths, batch 1
    among them, no class traced at compile time: one class serves them all (the mask's
    batch is the ids' batch, and batch 1 broadcasts without a class of its own). Every
    request's driver calls equal the interpreted run's."""
    import onnx

    driver = RecordingDriver()
    exe = xhip.compile(onnx.load(EXAMPLES / "bert_tiny_64.onnx"), backend=RecordingBackend(driver), graphs=False, trace_ahead=False)
    rng = np.random.default_rng(12)

    def request(batch: int, seq: int) -> dict[str, np.ndarray]:
        return {
            "input_ids": rng.integers(0, 100, (batch, seq)).astype(np.int64),
            "attention_mask": (rng.random((batch, seq)) < 0.9).astype(np.int64),
            "token_type_ids": rng.integers(0, 2, (batch, seq)).astype(np.int64),
        }

    exe.run(request(3, 40))
    for batch, seq in [(2, 17), (1, 9), (4, 64), (1, 33), (3, 5)]:
        assert _compare_at(exe, driver, request(batch, seq)), exe.traced_runs.why_not
    assert exe.traced_runs.why_not is None and len(exe.traced_runs.runs) == 1
