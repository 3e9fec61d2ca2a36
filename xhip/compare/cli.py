"""xhip-compare: run two or more pipelines over the same models, shapes and inputs; say what changed.

    xhip-compare --pipelines pipelines/default.yaml pipelines/experiments/grouped-packing.yaml \\
        --suite benchmarks/suites/test-set.yaml --jobs 2 --report cmp.md --report cmp.png
    xhip-compare --pipelines default seed-003 --models examples/attention.onnx \\
        --shapes 'batch=1,seq=128;batch=4,seq=512'

The first pipeline (A) is the baseline. Errors are one line and exit code 1.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from functools import partial
from typing import TYPE_CHECKING

from xhip import __version__
from xhip.tools.cli import ArgumentParser, emit, main_with

if TYPE_CHECKING:  # the modules that load NumPy and the compiler wait until a comparison runs (and
    # the signal handlers are installed: xhip.tools.cli)
    from xhip.compare.report import PipelineInfo
    from xhip.compare.suite import Suite

EPILOG = """\
What is measured, per model x shape x pipeline:
  Each model compiles once per pipeline. Every shape runs on the same inputs under
  every pipeline (random, drawn from --seed per model input with the shape's dims,
  or a suite entry's .npz). One warm-up run per pipeline gives the exact numbers:
  pool bytes (the column xhip-run --report calls pool_bytes), the model's lower
  bounds (plain and in place), kernel launches, readbacks and syncs, and the
  outputs, checked against onnxruntime (CPU; the suite's tolerance or xhip-run
  --check's) and against pipeline A's. Then --repeat rounds run every pipeline
  once each, interleaved and alternating direction (A B C, C B A, A B C, ...),
  so drift on the machine and the cost of running right after another pipeline
  hit all alike. Latency is the time between two backend events around run():
  device time on a GPU, the wall time of run() on the reference backend.
  Compile time (the verdict line; per row in --report) is import plus passes,
  measured once in a worker that has already compiled a one-op model under
  every pipeline: a rough figure, with no noise estimate.

When a change is real (marked * in the table):
  pool bytes, launches, readbacks, syncs and the check's pass/fail are exact: any
  difference. Latency: every repetition of one pipeline is faster than every
  repetition of the other AND the gap between the two ranges exceeds the larger
  interquartile range. For equal timings that happens about once in 2000 rows
  with 5 repetitions (a range test alone: once in 125); more repetitions find
  smaller real changes. The ms/A column is the ratio of medians.

Verdicts and --fail-on-regression:
  per pipeline after A, per axis (memory = pool bytes, latency, numerics = the
  check against onnxruntime): same, better, worse or mixed over all rows.
  --fail-on-regression exits 1 when any row of any pipeline is worse than A on
  any of the three. The IR of every stage (import, then each pass) is compared
  with A's, aligned by position: the first pass whose name or printed IR
  differs is named, with a short unified diff of that pass's output.

Suite file (YAML; paths relative to it):
  tolerance: {rtol: 1.0e-4, atol: 1.0e-6}     # optional
  seed: 0                                     # optional
  models:
    - model: model.onnx                       # or testset:NAME (xhip.testing.models)
      shapes: [{batch: 1, seq: 128}, {X: [4, 512, 64]}]
    - model: other.onnx
      inputs: other.npz                       # instead of shapes

Nothing is written but the --report files, checked before the run and written
only when it completed. A model that a pipeline cannot compile or run (or a bad
shape for it) stops the comparison with that one-line error, naming the model
and the pipeline.
"""


def build_arg_parser() -> argparse.ArgumentParser:
    ap = ArgumentParser(
        prog="xhip-compare", description=__doc__.splitlines()[0], epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter, allow_abbrev=False,
    )
    ap.add_argument("--pipelines", nargs="+", required=True, metavar="PIPELINE",
                    help="two or more pipelines (YAML files or shipped names); the first is the baseline A")
    source = ap.add_mutually_exclusive_group(required=True)
    source.add_argument("--suite", metavar="SUITE.yaml", help="models, shapes and tolerance from a suite file")
    source.add_argument("--models", nargs="+", metavar="M.onnx", help="models (or testset:NAME) to run at every --shapes")
    ap.add_argument("--shapes", metavar="'d=1,e=2;X=4x8'",
                    help="with --models: shapes separated by ';', each dim parameters (NAME=N) or whole input shapes "
                    "(INPUT=D0xD1...) separated by ','; default: the models' static shapes")
    ap.add_argument("--backend", default="auto", choices=("auto", "reference", "cuda", "hip"),
                    help="where device work runs (default auto: a usable GPU, else reference)")
    ap.add_argument("--jobs", type=_positive, default=1, metavar="N",
                    help="N worker processes, BLAS pinned to one thread each: every pipeline's compile of a model is one "
                    "job, the runs of a model's rows (all pipelines, interleaved) another (default 1)")
    ap.add_argument("--repeat", type=_positive, default=5, metavar="N",
                    help="timed repetitions per pipeline and row, interleaved (A B, B A, A B, ...) (default 5)")
    ap.add_argument("--seed", type=int, default=None, help="seed of the random inputs (default: the suite's, else 0)")
    ap.add_argument("--report", action="append", default=[], metavar="FILE.json|.md|.png",
                    help="also write the comparison as JSON, Markdown or a PNG bar chart of pool and latency "
                    "ratios (needs matplotlib: pip install 'xhip[plot]'); repeatable")
    ap.add_argument("--fail-on-regression", action="store_true",
                    help="exit 1 when a pipeline is worse than A beyond noise on any row (memory, latency, numerics)")
    ap.add_argument("--version", action="version", version=f"xhip-compare {__version__}")
    return ap


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"'{text}' is not at least 1")
    return value


MAX_PIPELINES = 26
"""Pipelines are named A to Z."""


def _pipeline_paths(specs: Sequence[str]) -> tuple[str, ...]:
    from xhip.diagnostics import XhipError
    from xhip.shipped import resolve_pipeline

    if not 2 <= len(specs) <= MAX_PIPELINES:
        raise XhipError(f"--pipelines takes 2 to {MAX_PIPELINES} pipelines (A, the baseline, and those to compare)")
    return tuple(str(resolve_pipeline(spec)) for spec in specs)


def _pipelines(paths: Sequence[str]) -> list[PipelineInfo]:
    """Letter, name and path per pipeline, each loaded once here so a bad file fails before any job."""
    from xhip.compare.measure import pipeline_letter
    from xhip.compare.report import PipelineInfo
    from xhip.pipeline import load_pipeline

    infos: list[PipelineInfo] = []
    for index, path in enumerate(paths):
        letter, name = pipeline_letter(index), load_pipeline(path).name
        taken = {info.name for info in infos}
        if name in taken:  # an experiment that inherits its name: the file's, else the letter's
            name = Path(path).stem if Path(path).stem not in taken else f"{name}-{letter}"
        infos.append(PipelineInfo(letter, name, path))
    return infos


def _suite(args: argparse.Namespace) -> Suite:
    from xhip.compare.suite import load_suite, suite_from_command_line
    from xhip.diagnostics import XhipError

    if args.suite:
        if args.shapes:
            raise XhipError("--shapes goes with --models; a suite lists each model's shapes")
        return load_suite(args.suite)
    return suite_from_command_line(args.models, args.shapes)


def _check_reports(paths: Sequence[str]) -> None:
    from xhip.compare.report import REPORT_FORMATS
    from xhip.diagnostics import XhipError
    from xhip.output_files import check_writable

    for path in paths:
        if Path(path).suffix.lower() not in REPORT_FORMATS:
            raise XhipError(f"--report: cannot tell the format from the name; use one of {', '.join(REPORT_FORMATS)}", path)
        if path.lower().endswith(".png"):
            try:
                import matplotlib  # noqa: F401
            except ImportError:
                raise XhipError("--report .png needs matplotlib (pip install 'xhip[plot]')", path) from None
        check_writable(Path(path), "report")


def run(argv: Sequence[str] | None = None) -> int:
    args = build_arg_parser().parse_args(argv)
    paths = _pipeline_paths(args.pipelines)
    suite = _suite(args)
    _check_reports(args.report)
    from xhip.compare.report import Comparison, render_report, render_text
    from xhip.compare.schedule import Settings, measure_suite, worker_pool
    from xhip.output_files import OutputFiles

    seed = suite.seed if args.seed is None else args.seed
    workers = min(args.jobs, len(suite.models) * len(paths))
    settings = Settings(paths, args.backend, args.repeat, seed, workers)
    with worker_pool(settings) as pool:
        infos = _pipelines(paths)
        comparison = Comparison(infos, measure_suite(pool, suite, settings), args.repeat)
    files = OutputFiles()
    for path in args.report:
        files.add(path, render_report(comparison, path), "report")
    files.commit(then=partial(emit, render_text(comparison)))
    regressions = comparison.regressions()
    if args.fail_on_regression and regressions:
        print(f"xhip-compare: {len(regressions)} regression(s) against A, first: {regressions[0]}", file=sys.stderr)
        return 1
    return 0


def main(argv: Sequence[str] | None = None) -> None:
    main_with(run, argv, "xhip-compare")


if __name__ == "__main__":
    main()
