"""One model under every pipeline: compile each once, run every shape on the same inputs.

Two kinds of work, each a `--jobs` worker's unit (xhip.compare.schedule): a
compile job runs one pipeline on one model and hands back the final IR as text
(with its constants and every stage's IR, for the divergence); a measure job
reads the final IR of every pipeline back into Executables and runs the
model's rows. Per shape, every
pipeline runs once to warm up (kernels prepared, pools grown); that run's report
gives the exact counts (pool bytes, bounds, launches, readbacks, syncs) and its
outputs the numerics. Then `repeat` rounds each run every pipeline once,
in alternating order (A B C, C B A, A B C, ...), timed between two backend events: device time on a GPU, the
wall time of `run()` on the reference backend (its events are host clock reads
after draining the queue).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import onnx

from xhip.compare.diverge import Divergence, Stage, first_divergence, stage_text
from xhip.constants_file import ConstantsStore
from xhip.compare.suite import TESTSET_PREFIX, ShapeBinding, SuiteModel, Tolerance, shape_label
from xhip.diagnostics import XhipError, shorten
from xhip.runtime.executable import Executable, TensorSpec


@dataclass(frozen=True)
class CompileJob:
    model: SuiteModel
    pipeline: str


@dataclass(frozen=True)
class CompiledModel:
    """What a compile job hands to the measure job: the final IR as text, its constants, its stages."""

    final_ir: str
    constants: ConstantsStore
    compile_s: float
    """Import and passes, in a warmed-up worker (printing the stages is not counted)."""
    stages: tuple[Stage, ...] = ()
    """Every stage's IR as text, for the divergence (the measure job does not need them)."""


@dataclass(frozen=True)
class MeasureJob:
    model: SuiteModel
    compiled: tuple[CompiledModel, ...]
    """One per pipeline, A first."""
    backend: str
    repeat: int
    tolerance: Tolerance
    seed: int


@dataclass
class Measurement:
    """One model x shape x pipeline."""

    pool_bytes: int
    lower_bound_bytes: int | None
    in_place_lower_bound_bytes: int | None
    launches: int
    readbacks: int
    syncs: int
    compile_s: float
    latency_ms: list[float] = field(default_factory=list)
    check_passed: bool = False
    max_abs_err: float = 0.0
    """Against onnxruntime."""
    problems: tuple[str, ...] = ()
    max_abs_err_vs_baseline: float = 0.0
    identical_to_baseline: bool = True
    same_program_as_baseline: bool = False
    """The pipeline's IR is pipeline A's after every pass: the same program, so whatever
    its latency samples say, the difference is the machine's noise."""

    def as_dict(self) -> dict[str, object]:
        return {**vars(self), "problems": list(self.problems)}


@dataclass
class Row:
    model: str
    shape: str
    measurements: list[Measurement]
    """One per pipeline, in command-line order."""


@dataclass
class MeasuredModel:
    backend: str
    """What ran the device work (Report.backend)."""
    rows: list[Row]


@dataclass
class ModelResult:
    model: str
    backend: str
    rows: list[Row]
    divergences: list[Divergence | None]
    """One per pipeline after the first: where its IR first differs from pipeline A's."""


def pipeline_letter(index: int) -> str:
    """A, B, C, ...: how the table, the verdicts and the diffs name the pipelines."""
    return chr(ord("A") + index)


def model_result(model: SuiteModel, compiled: Sequence[CompiledModel], measured: MeasuredModel) -> ModelResult:
    divergences = [
        first_divergence(list(compiled[0].stages), list(entry.stages), ("A", pipeline_letter(index)))
        for index, entry in enumerate(compiled[1:], 1)
    ]
    for index, divergence in enumerate(divergences, 1):
        for row in measured.rows:
            row.measurements[index].same_program_as_baseline = divergence is None
    return ModelResult(model.label, measured.backend, measured.rows, divergences)


@dataclass(frozen=True)
class Failure:
    """An XhipError from a worker, as plain data (it crosses a process boundary)."""

    message: str
    location: str | None

    def error(self) -> XhipError:
        return XhipError(self.message, self.location)


@dataclass
class _Ready:
    executable: Executable
    compile_s: float


def model_source(model: SuiteModel) -> str | onnx.ModelProto:
    """What the importer and onnxruntime read: the path, or the built test-set model."""
    if not model.is_testset:
        return model.source
    from xhip.testing.models import MODELS

    built, _ = MODELS[model.source.removeprefix(TESTSET_PREFIX)](np.random.default_rng(0))
    return built


def compile_model(job: CompileJob) -> CompiledModel | Failure:
    """Compile once, keeping every stage's text; printing the stages is not compile time."""
    from xhip.api import compile_stages
    from xhip.printing import print_ir

    stages: list[Stage] = []
    printing = 0.0
    start = time.perf_counter()
    module = store = None
    try:
        for name, module, store in compile_stages(model_source(job.model), job.pipeline):
            before = time.perf_counter()
            stages.append((name, stage_text(module)))
            printing += time.perf_counter() - before
    except XhipError as err:
        return Failure(f"{job.model.label} under {job.pipeline}: {err.message}", err.location)
    assert module is not None and store is not None
    compile_s = time.perf_counter() - start - printing
    return CompiledModel(print_ir(module), store, compile_s, tuple(stages))


def _ready(compiled: CompiledModel, backend: str) -> _Ready:
    """The compiled IR, read back, as an Executable."""
    from xhip.context import make_context
    from xhip.parsing import parse_module

    module = parse_module(make_context(), compiled.final_ir, "compiled.mlir")
    return _Ready(Executable(module, backend, constants=compiled.constants), compiled.compile_s)


WARM_UP_MODEL = SuiteModel(f"{TESTSET_PREFIX}max_4x1_4x8")
"""A one-op model every worker compiles and runs under every pipeline before any job."""


def warm_up(pipelines: Sequence[str]) -> None:
    """Pay a worker's first-use costs (imports, pass and kernel set-up) before anything is timed.

    Otherwise the first pipeline a worker compiles (A, mostly) would carry them in its compile time.
    A pipeline that fails on the one-op model is left for its compile job to report.
    """
    from xhip.api import compile
    from xhip.testing.models import MODELS

    model, feeds = MODELS[WARM_UP_MODEL.label](np.random.default_rng(0))
    for pipeline in pipelines:
        try:
            compile(model, pipeline, "reference").run(feeds)
        except Exception:  # noqa: BLE001 - whatever it is, the pipeline's own compile jobs report it, located
            continue


def _input_shapes(specs: Sequence[TensorSpec], binding: ShapeBinding) -> dict[str, tuple[int, ...]]:
    """Each input's whole shape from dim parameters and given input shapes."""
    names = {spec.name for spec in specs}
    params = {d for spec in specs for d in spec.shape if isinstance(d, str)}
    for key in binding:
        if key not in names and key not in params:
            known = ", ".join(spec.describe() for spec in specs)
            raise XhipError(f"shape '{shorten(shape_label(binding))}' names '{shorten(key)}', which is neither an "
                            f"input nor a dim parameter of the model (inputs: {known})")
    extents = {k: v for k, v in binding.items() if isinstance(v, int) and k in params}
    shapes = {}
    for spec in specs:
        given = binding.get(spec.name)
        if given is not None:
            shapes[spec.name] = given if isinstance(given, tuple) else (given,)
            extents.update((d, e) for d, e in zip(spec.shape, shapes[spec.name]) if isinstance(d, str))
    for spec in specs:
        if spec.name in shapes:
            continue
        missing = [d for d in spec.shape if not isinstance(d, int) and d not in extents]
        if missing:
            shape = f"shape '{shorten(shape_label(binding))}'" if binding else "no shape (see --shapes)"
            raise XhipError(f"{shape} does not fix dim '{missing[0] or '?'}' of input {spec.describe()}")
        shapes[spec.name] = tuple(d if isinstance(d, int) else extents[str(d)] for d in spec.shape)  # (None dims are missing above)
    return shapes


def _feeds(job: MeasureJob, specs: Sequence[TensorSpec], binding: ShapeBinding | None) -> dict[str, np.ndarray]:
    from xhip.runtime.check import random_feeds
    from xhip.tools.run import read_npz

    if binding is None:
        assert job.model.inputs is not None
        return read_npz(job.model.inputs)
    return random_feeds(specs, _input_shapes(specs, binding), job.seed)


def _tolerance(job: MeasureJob, backend: str) -> dict[str, float]:
    from xhip.runtime.check import tolerances

    chosen = tolerances(backend)
    if job.tolerance.rtol is not None:
        chosen["rtol"] = job.tolerance.rtol
    if job.tolerance.atol is not None:
        chosen["atol"] = job.tolerance.atol
    return chosen


def _timed_run(executable: Executable, feeds: Mapping[str, np.ndarray]) -> float:
    backend = executable.backend
    start = backend.record_event()
    executable.run(feeds)
    return backend.elapsed_ms(start, backend.record_event())


def _same_arrays(outputs: Mapping[str, np.ndarray], baseline: Mapping[str, np.ndarray]) -> bool:
    return outputs.keys() == baseline.keys() and all(
        np.array_equal(outputs[name], value, equal_nan=True) for name, value in baseline.items()
    )


def _warm_up(entry: _Ready, feeds, reference, baseline, tolerance) -> tuple[Measurement, dict[str, np.ndarray]]:
    """The first run: exact counts, and outputs against onnxruntime and pipeline A's (`baseline`, None for A)."""
    from xhip.runtime.check import compare

    outputs = entry.executable.run(feeds)
    report = entry.executable.report
    check = compare(outputs, reference, **tolerance)
    baseline = outputs if baseline is None else baseline
    measurement = Measurement(
        report.pool_bytes, report.lower_bound_bytes, report.in_place_lower_bound_bytes,
        report.kernel_launches, report.readbacks, report.syncs, entry.compile_s,
        check_passed=check.passed, max_abs_err=check.max_abs_err, problems=check.problems,
        max_abs_err_vs_baseline=compare(outputs, baseline, **tolerance).max_abs_err,
        identical_to_baseline=_same_arrays(outputs, baseline),
    )
    return measurement, outputs


def _measure_shape(job: MeasureJob, compiled: list[_Ready], source, binding: ShapeBinding | None) -> Row:
    from xhip.runtime.check import onnxruntime_outputs

    feeds = _feeds(job, compiled[0].executable.inputs, binding)
    reference = onnxruntime_outputs(source, feeds)
    tolerance = _tolerance(job, compiled[0].executable.backend.name)
    measurements: list[Measurement] = []
    baseline = None
    for entry in compiled:
        measurement, outputs = _warm_up(entry, feeds, reference, baseline, tolerance)
        measurements.append(measurement)
        baseline = outputs if baseline is None else baseline
    pairs = list(zip(compiled, measurements))
    for round_index in range(job.repeat):
        # A B C, then C B A: drift and the cost of running just after another pipeline hit all alike.
        for entry, measurement in pairs if round_index % 2 == 0 else reversed(pairs):
            measurement.latency_ms.append(_timed_run(entry.executable, feeds))
    label = shape_label(binding) if binding is not None else f"inputs={job.model.inputs}"
    return Row(job.model.label, label, measurements)


def measure_model(job: MeasureJob) -> MeasuredModel | Failure:
    """Every row of one model; a user error comes back as a `Failure` naming the model."""
    try:
        source = model_source(job.model)
        ready = [_ready(compiled, job.backend) for compiled in job.compiled]
        shapes: Sequence[ShapeBinding | None] = job.model.shapes or (None,)
        rows = [_measure_shape(job, ready, source, binding) for binding in shapes]
    except XhipError as err:
        return Failure(f"{job.model.label}: {err.message}", err.location)
    return MeasuredModel(ready[0].executable.report.backend, rows)
