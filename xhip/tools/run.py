"""xhip-run: compile a model, run it, and check it against onnxruntime.

    xhip-run examples/attention.onnx --shape X=2x128 --check
    xhip-run model.onnx --shape X=2x128 --check-each-pass   # find the pass that breaks numerics

Inputs are drawn at random from the model's dtypes (`--seed`), or read from an
.npz file. Errors are one line and exit code 1; a failed check exits 1 too.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from xhip.diagnostics import XhipError
from xhip.tools.cli import ArgumentParser, main_with


def build_arg_parser() -> argparse.ArgumentParser:
    ap = ArgumentParser(prog="xhip-run", description=__doc__.splitlines()[0], allow_abbrev=False)
    ap.add_argument("model", help="an .onnx model (or .mlir IR of any stage)")
    ap.add_argument("--pipeline", metavar="FILE.yaml", help="pipeline YAML (default: pipelines/default.yaml)")
    ap.add_argument("--set", dest="settings", action="append", default=[], metavar="PASS.OPTION=VALUE")
    ap.add_argument("--stop-after", metavar="PASS", help="run the IR as it is after this pass")
    ap.add_argument("--backend", default="reference", help="reference (default), hip, cuda or auto")
    ap.add_argument("--deferred", action="store_true", help="queue device work until a synchronization")
    ap.add_argument("--sanitize", action="store_true", help="check every device byte's writer (implies --deferred)")
    ap.add_argument("--shape", action="append", default=[], metavar="NAME=D0xD1", help="input shape (repeatable)")
    ap.add_argument("--inputs", metavar="FILE.npz", help="input arrays by name instead of random ones")
    ap.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    ap.add_argument("--check", action="store_true", help="compare the outputs with onnxruntime (CPU)")
    ap.add_argument("--check-each-pass", action="store_true", help="run and check after every pass; stop at the first failure")
    ap.add_argument("--report", metavar="FILE.json", help="write the run report as JSON")
    ap.add_argument("--save-outputs", metavar="FILE.npz", help="write the outputs")
    return ap


def _pipeline(args: argparse.Namespace):
    from xhip.api import DEFAULT_PIPELINE
    from xhip.pipeline import apply_overrides, load_pipeline

    chosen = load_pipeline(args.pipeline or DEFAULT_PIPELINE)
    return apply_overrides(chosen, args.settings) if args.settings else chosen


def _feeds(args: argparse.Namespace, executable) -> dict[str, np.ndarray]:
    from xhip.runtime.check import parse_shape, random_feeds

    if args.inputs:
        try:
            with np.load(args.inputs) as data:
                return {name: data[name] for name in data.files}
        except (OSError, ValueError) as err:
            raise XhipError(f"cannot read inputs: {err}", args.inputs) from None
    shapes = dict(parse_shape(s) for s in args.shape)
    return random_feeds(executable.inputs, shapes, args.seed)


def _reference(args: argparse.Namespace, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    if not args.model.endswith(".onnx"):
        raise XhipError("--check needs an .onnx model to run on onnxruntime")
    from xhip.runtime.check import onnxruntime_outputs

    return onnxruntime_outputs(args.model, feeds)


def _check_each_pass(args: argparse.Namespace) -> int:
    from xhip.api import compile_stages
    from xhip.runtime.check import compare
    from xhip.runtime.executable import Executable

    reference = feeds = None
    print(f"{'pass':<32} {'max abs err':>12}  result")
    for name, module, constants_dir in compile_stages(args.model, _pipeline(args), args.stop_after):
        executable = Executable(module.clone(), args.backend, deferred=args.deferred, sanitize=args.sanitize, constants_dir=constants_dir)
        if feeds is None:
            feeds = _feeds(args, executable)
            reference = _reference(args, feeds)
        try:
            result = compare(executable.run(feeds), reference)
            error, verdict = f"{result.max_abs_err:12.3g}", "pass" if result.passed else "FAIL: " + result.problems[0]
        except XhipError as err:
            error, verdict, result = f"{'-':>12}", f"FAIL: {err}", None
        print(f"{name:<32} {error}  {verdict}")
        if result is None or not result.passed:
            return 1
    return 0


def _print_report(report) -> None:
    rows = [
        ("backend", report.backend),
        ("pool bytes", report.pool_bytes),
        ("liveness lower bound", "-" if report.lower_bound_bytes is None else report.lower_bound_bytes),
        ("host scratch bytes", report.host_scratch_bytes),
        ("kernel launches", report.kernel_launches),
        ("readbacks", report.readbacks),
        ("syncs", report.syncs),
        ("event waits", report.event_waits),
        ("compile s", f"{report.compile_s:.3f}"),
        ("run ms", f"{report.run_ms:.2f}"),
    ]
    for name, info in report.outputs.items():
        rows.append((f"output {name}", f"{info['shape']} {info['dtype']}"))
    for label, value in rows:
        print(f"{label:<24} {value}")


def run(argv: Sequence[str] | None = None) -> int:
    args = build_arg_parser().parse_args(argv)
    if args.check_each_pass:
        return _check_each_pass(args)
    from xhip.api import compile

    executable = compile(
        args.model, _pipeline(args), args.backend, args.stop_after, deferred=args.deferred, sanitize=args.sanitize
    )
    feeds = _feeds(args, executable)
    outputs = executable.run(feeds)
    status = 0
    if args.check:
        from xhip.runtime.check import compare

        result = compare(outputs, _reference(args, feeds))
        executable.report.check = result.as_dict()
        print(f"check against onnxruntime: {'passed' if result.passed else 'FAILED'} "
              f"(max abs err {result.max_abs_err:.3g}, max rel err {result.max_rel_err:.3g})")
        for problem in result.problems:
            print(f"  {problem}")
        status = 0 if result.passed else 1
    _print_report(executable.report)
    if args.report:
        Path(args.report).write_text(json.dumps(executable.report.as_dict(), indent=2) + "\n")
    if args.save_outputs:
        np.savez(args.save_outputs, **outputs)
    return status


def main(argv: Sequence[str] | None = None) -> None:
    main_with(run, argv)

if __name__ == "__main__":
    main()
