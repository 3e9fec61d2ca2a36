"""Host microseconds per launch: what a run costs the host, at repeated and at new input shapes.

    python benchmarks/host_cost.py [--json benchmarks/results/host_cost.json] [--gpt2 GPT2.onnx]
                                   [--backends reference null cuda] [--samples 12] [--decoder STEP.onnx]

Models: every model of the test set (xhip/testing/models.py) and a GPT-2-width model:
GPT-2 124M (12 layers, width 768) from transformers' GPT2Config with random weights,
exported with torch.onnx (dynamo, opset 18, dynamic batch and seq): `--gpt2 PATH`, or
exported here when torch and transformers are importable (else that row is skipped).

Backends (graphs off: every run executes its launch program):
- reference: the NumPy backend. What it spends on a device's work (`DeviceStats.device_seconds`:
  its NumPy kernels, device copies, the poison fill of fresh memory) is subtracted; the rest of
  the run's wall time is host work. A large NumPy kernel leaves the core's caches and
  predictors cold for the host code after it (on this 2-core VM a 200-step Python loop
  takes 5.9 us alone and 23 us right after a 512x768x3072 matmul), so the same host code
  runs slower between kernels than without them (on GPT-2 124M about 2.3x): the
  `no-op kernels` column is the host work of the same runs with every NumPy kernel replaced
  by one that does nothing (an ablation: the launch program's own cost; "-" for models that
  read device data on the host, whose values a no-op kernel does not make).
- null: the GPU backend over `xhip.testing.null_driver` (every driver call returns at
  once): the cuda backend's whole host path, kernels chosen, arguments packed, pools
  planned, without a device.
- cuda (on an NVIDIA GPU): the run's wall time, the device work asynchronous (at these
  shapes the host is what a run waits for; the closing sync is in the time).

Inputs are device arrays (`Executable.to_device`) and outputs stay on the device
(`run(on_device=True)`) on every backend, as gpu_bench measures: moving a model's
inputs and outputs is the bus's work, not the launch program's.

`--decoder STEP.onnx` (a benchmarks/decoder_step.py export) adds rows of its decode steps at
batch 4 from a cache of 128, each fed the last step's `present_*` and reading its logits, on
each GPU backend asked for: with graphs off (traced; `+interp`: interpreted) and on
(`+graphs`: each step through graphs captured at earlier steps with the changed nodes
updated, the launch program re-running only what changed). `new` is then host us per launch of a step (median of 3 x `--samples` steps
after 8); on the no-op driver the graphs' recording shows as a cost, on a GPU the driver calls
they save (a launch ~5 us, a cuBLAS call ~15 us on the H200) do not.

Columns, per model and backend: launches per run; `new` = host us per launch of a run at
an input shape the executable has never run (after a first run at the largest shape, so
pools are allocated: a new shape plans its pools but does not grow them), median over
`--samples` shapes, through traced runs (`xhip.runtime.trace`: one Python function per
class of shapes, traced from the second run of a new class on); the runs that traced a
class are not in it but in `trace ms` (median ms of such a run) and `classes` (how many
there are after the new shapes: on a GPU backend, those traced at compile time, whose
times are `ahead ms`, included); `first` = host us per launch of the executable's first
run (at the largest shape: on a GPU backend, traced where a class traced at compile time
takes it); `interpreted` = `new` of a second executable whose runs all go
through the interpreted launch program; `repeated` = `new` at one shape run again and
again; `no-op kernels` (reference only) = `new` with the NumPy kernels replaced by no-ops;
then the share of the interpreted program's host time each stage took, from a further
pass over new shapes (those past the first `--samples`, where the model has more) with
every step timed: `launch`
(hip compute ops: shape contracts, argument values, packing, the driver or NumPy call),
`views` (memref view ops), `pools` (hip.get_pool, hip.plan_pool: the run-time planner
at new sizes), `arith` (host index arithmetic), and `run` (signature checks, inputs,
outputs: the executable's own work around the program). The JSON keeps every sample.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import xhip  # noqa: E402
from xhip.diagnostics import XhipError  # noqa: E402
from xhip.runtime.backends.gpu.backend import GpuBackend  # noqa: E402
from xhip.runtime.program import Program  # noqa: E402
from xhip.testing.models import MODELS, SHAPE_VARIANTS, feeds_at  # noqa: E402
from xhip.testing.null_driver import NullDriver  # noqa: E402

GPT2_SHAPES = [(b, s) for b in (1, 2, 3, 4) for s in (7, 13, 19, 26, 33, 41, 50, 63)]
"""Never-seen (batch, seq) for the GPT-2-width model; the first run is at the largest."""

STAGES = ("launch", "views", "pools", "arith", "run")


def _stage(name: str) -> str:
    if name in ("hip.get_pool", "hip.plan_pool", "hip.get_host_scratch", "hip.alloc_output", "hip.alloc"):
        return "pools"
    if name.startswith("hip.") and not name.startswith("hip.readback"):
        return "launch"
    if name.startswith("memref."):
        return "views"
    return "arith"


class StageClock:
    """Times each step of a program by its stage, less what the backend spent on device
    work inside it (installed on one Program)."""

    def __init__(self, program: Program, stats):
        self.seconds: dict[str, float] = defaultdict(float)
        stages = [_stage(name) for name in program.names]
        steps = program.steps
        clock = self

        def timed(step, stage):
            def run(regs):
                start, device = time.perf_counter(), stats.device_seconds
                step(regs)
                clock.seconds[stage] += time.perf_counter() - start - (stats.device_seconds - device)

            return run

        program.steps = [timed(step, stage) for step, stage in zip(steps, stages)]
        self._plain = steps
        self.program = program

    def remove(self) -> None:
        self.program.steps = self._plain


def _backend(name: str):
    if name == "null":
        return GpuBackend(NullDriver())
    return name


def _run_once(exe, feeds) -> tuple[float, float]:
    """(wall seconds, device seconds) of one run."""
    stats = exe.backend.stats
    device_before = stats.device_seconds
    start = time.perf_counter()
    exe.run(feeds, on_device=True)
    exe.backend.sync()
    return time.perf_counter() - start, stats.device_seconds - device_before


def _new_shapes(model, feeds_list: list[dict], backend: str, samples: int, traced: bool):  # type: ignore[no-untyped-def]
    """A fresh executable run at feeds_list[0], then once at each of the next `samples`
    shapes: (the executable, device feeds, launches, host us per launch of the first run and
    of each new shape, ms of each run that traced a class of its own); None for a program
    the no-op driver cannot run (it reads device data back)."""
    exe = xhip.compile(model, backend=_backend(backend), graphs=False)
    if backend == "null" and _reads_back(exe):
        return None
    exe.traced_runs.enabled = traced
    feeds_list = [{k: exe.to_device(v, k) for k, v in feeds.items()} for feeds in feeds_list]
    wall, device = _run_once(exe, feeds_list[0])
    launches = max(exe.report.kernel_launches, 1)
    first = (wall - device) / launches * 1e6
    new, tracing = [], []
    for feeds in feeds_list[1 : samples + 1]:
        classes = len(exe.traced_runs.runs)
        wall, device = _run_once(exe, feeds)
        (tracing if len(exe.traced_runs.runs) > classes else new).append((wall - device) / launches * 1e6)
    return exe, feeds_list, launches, first, new, [us * launches / 1e3 for us in tracing]


def measure(model, feeds_list: list[dict], backend: str, samples: int) -> dict:
    """Host us per launch at new shapes (each of feeds_list[1:] run once, after a first run
    at feeds_list[0]), traced and, on an executable of its own, interpreted; at a repeated
    shape (feeds_list[0]); then the interpreter's stages' shares, from a second pass over
    the shapes with each step timed (the timers are not in the figures)."""
    host_feeds = feeds_list
    interpreted_run = _new_shapes(model, host_feeds, backend, samples, traced=False)
    if interpreted_run is None:
        return {"skipped": "reads device data on the host (a readback): the null driver has none to read"}
    interpreted = interpreted_run[4]
    exe, feeds_list, launches, first, new, tracing = _new_shapes(model, host_feeds, backend, samples, traced=True)  # type: ignore[misc]
    new_shapes = feeds_list[1 : samples + 1]
    repeated = []
    for _ in range(samples):
        wall, device = _run_once(exe, feeds_list[0])
        repeated.append((wall - device) / launches * 1e6)
    classes, why_not = len(exe.traced_runs.runs), exe.traced_runs.why_not
    exe.traced_runs.enabled = False  # the stages are the interpreted program's
    clock = StageClock(exe.bound.program, exe.backend.stats)
    stage_seconds: dict[str, float] = defaultdict(float)
    for feeds in feeds_list[samples + 1 : 2 * samples + 1] or new_shapes:
        clock.seconds.clear()
        wall, device = _run_once(exe, feeds)
        program_host = sum(clock.seconds.values())
        for stage, seconds in clock.seconds.items():
            stage_seconds[stage] += seconds
        # Whatever the timed steps did not take: the executable's own work (and device work
        # outside the program: output copies).
        stage_seconds["run"] += max(wall - device - program_host, 0.0)
    clock.remove()
    total = sum(stage_seconds.values()) or 1.0
    noop = _noop_kernels_new(model, host_feeds, samples) if backend == "reference" and not _reads_back(exe) else []
    return {
        "launches": exe.report.kernel_launches,
        "noop_kernels_new_us_per_launch": statistics.median(noop) if noop else None,
        "noop_kernels_samples": noop,
        "new_us_per_launch": statistics.median(new) if new else None,
        "interpreted_new_us_per_launch": statistics.median(interpreted) if interpreted else None,
        "first_us_per_launch": first,
        "traced_classes": classes,
        "trace_ms": tracing,
        "ahead_ms": [seconds * 1e3 for seconds in exe.traced_runs.ahead_seconds],
        "why_not_traced": why_not,
        "repeated_us_per_launch": statistics.median(repeated),
        "stages": {stage: stage_seconds.get(stage, 0.0) / total for stage in STAGES},
        "new_samples": new,
        "interpreted_new_samples": interpreted,
        "repeated_samples": repeated,
    }


def _reads_back(exe) -> bool:
    return any(name.startswith("hip.readback") for name in exe.bound.program.names)


class _NoopKernel:
    """A reference kernel that computes nothing (the `no-op kernels` ablation)."""

    def __init__(self, kernel) -> None:
        self.name = kernel.name

    def __call__(self, call) -> None:
        pass


def _noop_kernels_new(model, feeds_list: list[dict], samples: int) -> list[float]:
    """Host us per launch at new shapes, as `measure`'s `new`, of an executable whose
    reference kernels do nothing (its launchers take their kernel when it binds)."""
    import xhip.runtime.backends.reference.backend as reference_backend

    kernel_of = reference_backend.kernel_of
    reference_backend.kernel_of = lambda op_class, location: _NoopKernel(kernel_of(op_class, location))
    try:
        exe = xhip.compile(model, backend="reference", graphs=False)
    finally:
        reference_backend.kernel_of = kernel_of
    feeds_list = [{k: exe.to_device(v, k) for k, v in feeds.items()} for feeds in feeds_list]
    _run_once(exe, feeds_list[0])
    launches = max(exe.report.kernel_launches, 1)
    new = []
    for feeds in feeds_list[1 : samples + 1]:
        classes = len(exe.traced_runs.runs)
        wall, device = _run_once(exe, feeds)
        if len(exe.traced_runs.runs) == classes:  # a run that traces its class is `trace ms`'s
            new.append((wall - device) / launches * 1e6)
    return new


def _testset_cases() -> list[tuple[str, object, list[dict]]]:
    cases = []
    for name in MODELS:
        shapes = SHAPE_VARIANTS[name]
        largest = max(shapes, key=lambda s: sum(np.prod(v) for v in s.values()))
        ordered = [largest] + [s for s in shapes if s is not largest]
        model = None
        feeds_list = []
        for shape in ordered:
            model, feeds = feeds_at(name, shape, np.random.default_rng(0))
            feeds_list.append(feeds)
        cases.append((name, model, feeds_list))
    return cases


def _gpt2_model(path: Path | None) -> Path | None:
    if path is not None:
        return path
    try:
        import torch
        import transformers  # noqa: F401
    except ImportError:
        return None
    sys.path.insert(0, str(ROOT / "benchmarks"))

    from gpu_bench import export_gpt2

    _, _, exported = export_gpt2(torch, 12, Path(tempfile.mkdtemp(prefix="xhip-host-cost-")))
    return exported


def _gpt2_case(path: Path) -> tuple[str, object, list[dict]]:
    import onnx

    rng = np.random.default_rng(0)
    shapes = sorted(GPT2_SHAPES, key=lambda s: -s[0] * s[1])
    feeds_list = [{"input_ids": rng.integers(0, 50257, shape).astype(np.int64)} for shape in shapes]
    return "gpt2-124m", onnx.load(path), feeds_list


def decode_measure(model, backend: str, graphs: bool, steps: int, batch: int = 4, past: int = 128, traced: bool = True) -> dict:
    """Host us per launch of a decoder step (decoder_step.py's export) fed its own `present_*`,
    every step a new shape: with graphs on a GPU backend, each step runs through graphs
    captured at earlier steps with the changed nodes updated and the launch program re-runs
    only what changed (xhip.runtime.backends.gpu.graph_updates, Program.execute_recorded);
    with graphs off, through its traced class (`traced`) or interpreted."""
    exe = xhip.compile(model, backend=_backend(backend), graphs=graphs)
    exe.traced_runs.enabled = traced
    caches = [i for i in model.graph.input if i.name.startswith("past_")]
    names = [i.name for i in caches]
    _, heads, _, head_dim = (d.dim_value for d in caches[0].type.tensor_type.shape.dim)
    rng = np.random.default_rng(0)
    fed = {n: exe.to_device(rng.standard_normal((batch, heads, past, head_dim)).astype(np.float32), n) for n in names}
    per_launch, ran = [], defaultdict(int)
    for step in range(8 + steps):
        feeds = {"input_ids": rng.integers(0, 1000, (batch, 1)).astype(np.int64), "position_ids": np.full((batch, 1), past + step, np.int64), **fed}
        start = time.perf_counter()
        outputs = exe.run(feeds, on_device=True)
        outputs["logits"].numpy()  # what generation reads
        wall = time.perf_counter() - start
        fed = {n: outputs[n.replace("past", "present")] for n in names}
        if step >= 8:
            per_launch.append(wall / max(exe.report.kernel_launches, 1) * 1e6)
            ran[("traced " if exe.report.traced else "") + (exe.report.class_graph or "launched")] += 1
    return {
        "launches": exe.report.kernel_launches, "new_us_per_launch": statistics.median(per_launch),
        "repeated_us_per_launch": None, "stages": None, "new_samples": per_launch, "steps_by_graph": dict(ran),
    }  # fmt: skip


def _us(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def print_table(rows: list[dict]) -> None:
    print(
        f"{'model':<22} {'backend':<10} {'launches':>8} {'new us/launch':>14} {'interpreted':>11} {'repeated':>9} "
        f"{'no-op kernels':>14} {'first':>6} {'classes':>7} {'trace ms':>9} {'ahead ms':>9}  " + " ".join(f"{s:>6}" for s in STAGES)
    )
    for row in rows:
        if "error" in row or "skipped" in row:
            print(f"{row['model']:<22} {row['backend']:<10} {'error: ' + row['error'] if 'error' in row else row['skipped']}")
            continue
        stages = " ".join(f"{row['stages'][s] * 100:>5.0f}%" for s in STAGES) if row["stages"] else f"steps: {row.get('steps_by_graph')}"
        traces = row.get("trace_ms") or []
        trace = f"{statistics.median(traces):.1f}" if traces else "-"
        ahead = "+".join(f"{ms:.0f}" for ms in row.get("ahead_ms") or []) or "-"
        print(
            f"{row['model']:<22} {row['backend']:<10} {row['launches']:>8} {_us(row['new_us_per_launch']):>14} "
            f"{_us(row.get('interpreted_new_us_per_launch')):>11} {_us(row['repeated_us_per_launch']):>9} "
            f"{_us(row.get('noop_kernels_new_us_per_launch')):>14} {_us(row.get('first_us_per_launch')):>6} "
            f"{row.get('traced_classes', '-'):>7} {trace:>9} {ahead:>9}  {stages}"
        )
    for row in rows:
        if row.get("why_not_traced"):
            print(f"  {row['model']} on {row['backend']}: interpreted: {row['why_not_traced']}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=Path, help="write every row (samples included) to this file")
    ap.add_argument("--gpt2", type=Path, help="an export of GPT-2 124M (input_ids -> logits); default: export it here")
    ap.add_argument("--backends", nargs="+", default=["reference", "null"], choices=["reference", "null", "cuda"])
    ap.add_argument("--samples", type=int, default=12, help="new shapes (and repeats) per row (default 12)")
    ap.add_argument("--models", nargs="+", help="only these rows (test-set model names, gpt2-124m)")
    ap.add_argument("--decoder", type=Path, help="a decoder step export (benchmarks/decoder_step.py): rows of its decode steps "
                    "on the GPU backends asked for, graphs off and on")
    args = ap.parse_args(argv)
    os.environ.setdefault("XHIP_CACHE_DIR", tempfile.mkdtemp(prefix="xhip-host-cost-cache-"))

    cases = _testset_cases()
    if args.models is None or "gpt2-124m" in args.models:
        gpt2 = _gpt2_model(args.gpt2)
        if gpt2 is None:
            print("host_cost: no --gpt2 export and no torch/transformers to export one: the GPT-2 row is skipped")
        else:
            cases.append(_gpt2_case(gpt2))
    if args.models:
        cases = [case for case in cases if case[0] in args.models]
    rows = []
    for name, model, feeds_list in cases:
        for backend in args.backends:
            row = {"model": name, "backend": backend}
            try:
                row.update(measure(model, feeds_list, backend, args.samples))
            except XhipError as err:  # a model a backend cannot run (the message says why)
                row["error"] = str(err)
            rows.append(row)
            if args.json:
                args.json.parent.mkdir(parents=True, exist_ok=True)
                args.json.write_text(json.dumps({"rows": rows, "complete": False}, indent=1) + "\n")
    if args.decoder:
        import onnx

        decoder = onnx.load(args.decoder)
        for backend in [b for b in args.backends if b != "reference"]:
            for graphs, traced in ((False, True), (False, False), (True, True)):
                row = {"model": "decoder step b4", "backend": backend + ("+graphs" if graphs else "" if traced else "+interp")}
                row.update(decode_measure(decoder, backend, graphs, args.samples * 3, traced=traced))
                rows.append(row)
    print_table(rows)
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "complete": True}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
