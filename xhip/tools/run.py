"""xhip-run: compile a model, run it, and check it against onnxruntime.

    xhip-run examples/attention.onnx --shape X=2x128 --check
    xhip-run model.onnx --shape X=2x128 --check-each-pass   # find the pass that breaks numerics

Inputs are drawn at random from the model's dtypes (`--seed`), or read from an
.npz file. Errors are one line and exit code 1; a failed check exits 1 too.
"""

from __future__ import annotations

import argparse
import io
import json
import textwrap
import zipfile
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from xhip import __version__
from xhip.tools.cli import ArgumentParser, emit, main_with

if TYPE_CHECKING:  # NumPy and the compiler load in main(), after the signal handlers (xhip.tools.cli)
    import numpy as np

    from xhip.report.request import MemoryReportRequest

EPILOG = """\
The model runs as is: an .mlir written by `xhip-opt -o OUT.mlir` finds its
constants in OUT.constants.bin beside it (refused if its size or SHA-256 is not
the one the IR records). Constants of an .onnx model compiled here stay in memory:
nothing is written but --report, --save-outputs and --memory-report, which are
checked before the run and written (exactly at the paths given) only when it completed.
"""


def _epilog() -> str:
    from xhip.tolerances import rule_text

    from xhip.environment import help_text

    rule = textwrap.fill(rule_text(), 79, initial_indent="  ", subsequent_indent="  ")
    return EPILOG + "\n--check passes when:\n" + rule + "\n\n" + help_text()


def build_arg_parser() -> argparse.ArgumentParser:
    from xhip.tools.arguments import VERIFY_EACH_HELP, add_memory_report_arguments

    ap = ArgumentParser(
        prog="xhip-run", description=__doc__.splitlines()[0], epilog_of=_epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter, allow_abbrev=False,
    )
    ap.add_argument("model", help="an .onnx model (or .mlir IR of any stage)")
    ap.add_argument(
        "--pipeline", metavar="NAME|FILE.yaml",
        help="pipeline: a YAML file or a shipped pipeline's name (default: default)",
    )
    ap.add_argument("--set", dest="settings", action="append", default=[], metavar="PASS.OPTION=VALUE")
    ap.add_argument("--stop-after", metavar="PASS", help="run the IR as it is after this pass")
    ap.add_argument(
        "--backend", default="auto", choices=("auto", "reference", "cuda", "hip"),
        help="where device work runs: auto (default: an NVIDIA GPU through cuda, else an AMD GPU through hip, "
        "else reference), reference (NumPy), cuda or hip; the report's 'backend' row says which ran",
    )
    ap.add_argument("--deferred", action="store_true", help="queue device work until a synchronization")
    ap.add_argument("--sanitize", action="store_true", help="check every device byte's writer (implies --deferred; reference backend only)")
    ap.add_argument("--shape", action="append", default=[], metavar="NAME=D0xD1", help="input shape (repeatable)")
    ap.add_argument("--inputs", metavar="FILE.npz", help="input arrays by name instead of random ones")
    ap.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    ap.add_argument("--check", action="store_true", help="compare the outputs with onnxruntime fp32 and with the model run in "
        "float64 on the CPU, by the rule below; exit 1 when they differ")
    ap.add_argument("--check-each-pass", action="store_true", help="run and check after every pass; stop at the first failure")
    ap.add_argument("--verify-each", action="store_true", help=VERIFY_EACH_HELP)
    ap.add_argument("--report", metavar="FILE.json", help="write the run report as JSON")
    ap.add_argument("--save-outputs", metavar="FILE.npz", help="write the outputs (numpy .npz, at exactly this path)")
    add_memory_report_arguments(ap, "default: the run's (offsets and sizes then as the run used them)")
    ap.add_argument("--version", action="version", version=f"xhip-run {__version__}")
    return ap


def _pipeline(args: argparse.Namespace):
    from xhip.api import load_pipeline_like
    from xhip.pipeline import apply_overrides

    chosen = load_pipeline_like(args.pipeline)
    return apply_overrides(chosen, args.settings) if args.settings else chosen


ZIP_MAGIC = b"PK\x03\x04"


def read_npz(path: str) -> dict[str, np.ndarray]:
    """The arrays of an .npz file; anything else (text, .npy, a truncated zip) is one located line."""
    import numpy as np

    from xhip.diagnostics import XhipError

    try:
        with open(path, "rb") as handle:
            is_zip = handle.read(len(ZIP_MAGIC)) == ZIP_MAGIC
    except OSError as err:
        raise XhipError(f"cannot read inputs: {err.strerror}", path) from None
    if not is_zip:
        raise XhipError("cannot read inputs: not an .npz file (numpy.savez writes one)", path)
    try:
        with np.load(path, allow_pickle=False) as data:
            return {name: data[name] for name in data.files}
    except ValueError as err:
        if "allow_pickle" in str(err):  # NumPy's advice would be to run pickled code from the file
            raise XhipError("cannot read inputs: the .npz holds Python objects, not arrays of numbers", path) from None
        raise XhipError(f"cannot read inputs: damaged .npz file ({err})", path) from None
    except (OSError, EOFError, zipfile.BadZipFile) as err:
        raise XhipError(f"cannot read inputs: damaged .npz file ({err})", path) from None


def _feeds(args: argparse.Namespace, executable) -> dict[str, np.ndarray]:
    from xhip.runtime.check import parse_shape, random_feeds

    if args.inputs:
        return read_npz(args.inputs)
    shapes = dict(parse_shape(s) for s in args.shape)
    return random_feeds(executable.inputs, shapes, args.seed)


def _references(args: argparse.Namespace, feeds: dict[str, np.ndarray]):
    from xhip.diagnostics import XhipError

    if not args.model.endswith(".onnx"):
        raise XhipError("--check needs an .onnx model to run on onnxruntime")
    from xhip.runtime.check import references

    return references(args.model, feeds)


def _check_each_pass(args: argparse.Namespace) -> int:
    from xhip.api import compile_stages
    from xhip.diagnostics import XhipError
    from xhip.runtime.check import check_outputs
    from xhip.runtime.executable import Executable

    # Stages before bufferization are tensor-mode IR, which only the reference backend runs.
    backend = "reference" if args.backend == "auto" else args.backend
    refs = feeds = None
    emit(f"{'pass':<32} {'vs ort fp32':>12} {'vs float64':>12} {'bound':>12}  result\n")
    for name, module, store in compile_stages(
        args.model, _pipeline(args), args.stop_after, verify_each=args.verify_each
    ):
        executable = Executable(module.clone(), backend, deferred=args.deferred, sanitize=args.sanitize, constants=store)
        if feeds is None:
            feeds = _feeds(args, executable)
            refs = _references(args, feeds)
        assert refs is not None  # made with the feeds, at the first stage
        try:
            result = check_outputs(executable.run(feeds), refs, executable.backend.name, executable.compute_dtype)
            error, verdict = _stage_errors(result), "pass" if result.passed else "FAIL: " + result.problems[0]
        except XhipError as err:
            error, verdict, result = f"{'-':>12} {'-':>12} {'-':>12}", f"FAIL: {err}", None
        emit(f"{name:<32} {error}  {verdict}\n")
        if result is None or not result.passed:
            return 1
    return 0


def _stage_errors(result) -> str:
    """Max error against onnxruntime fp32, then the worst output's error against float64 and its bound."""
    worst = result.worst
    wide = [worst.err_vs_float64, worst.bound] if worst is not None and worst.rule == "float64" else [None, None]
    return " ".join(f"{value:12.3g}" if value is not None else f"{'-':>12}" for value in [result.max_abs_err, *wide])


def _or_dash(value: object) -> object:
    return "-" if value is None else value


def _report_table(report) -> str:
    rows = [
        ("backend", report.backend),
        ("compute precision", report.compute_precision or "as declared"),
        ("pool bytes", report.pool_bytes),
        ("lower bound (model)", _or_dash(report.lower_bound_bytes)),
        ("lower bound (in place)", _or_dash(report.in_place_lower_bound_bytes)),
        ("lower bound (merged IR)", _or_dash(report.merged_lower_bound_bytes)),
        ("pool / bound", "-" if report.pool_over_bound is None else f"{report.pool_over_bound:.3f}"),
        ("host scratch bytes", report.host_scratch_bytes),
        ("KV cache bytes", report.cache_bytes),
        ("kernel launches", report.kernel_launches),
        ("readbacks", report.readbacks),
        ("syncs", report.syncs),
        ("event waits", report.event_waits),
        ("kernel compiles", report.kernel_compiles),
        ("compile s", f"{report.compile_s:.3f}"),
        ("run ms", f"{report.run_ms:.2f}"),
    ]
    for name, info in report.outputs.items():
        rows.append((f"output {name}", f"{info['shape']} {info['dtype']}"))
    return "".join(f"{label:<24} {value}\n" for label, value in rows)


def _check_output_paths(args: argparse.Namespace) -> None:
    """An unwritable --report or --save-outputs fails before the run, not after it."""
    from xhip.output_files import check_writable

    for path, what in ((args.report, "report"), (args.save_outputs, "outputs")):
        if path is not None:
            check_writable(Path(path), what)


def _npz_bytes(arrays: dict[str, np.ndarray]) -> bytes:
    import numpy as np

    buffer = io.BytesIO()
    np.savez(buffer, **arrays)  # type: ignore[arg-type]  # (the stub's allow_pickle: no output is named so)
    return buffer.getvalue()


def _write_files(
    args: argparse.Namespace, executable, outputs: dict[str, np.ndarray], memory_report: MemoryReportRequest | None,
    text: str,
) -> None:
    """The files, then `text` to stdout; if stdout fails, the files this commit created go again."""
    from xhip.output_files import OutputFiles

    files = OutputFiles()
    if args.report:
        files.add(args.report, json.dumps(executable.report.as_dict(), indent=2) + "\n", "report")
    if args.save_outputs:
        files.add(args.save_outputs, _npz_bytes(outputs), "outputs")
    if memory_report is not None:
        memory_report.add_run(files, executable)
    files.commit(then=partial(emit, text))


def _check_text(result) -> str:
    against = "onnxruntime" if result.reference == "onnxruntime-cpu" else "the float64 run"  # bfloat16: no ort32
    lines = [f"check against {against}: {result.summary()}"]
    if len(result.outputs) > 1:
        lines += [f"  output {output.describe()}" for output in result.outputs]
    lines += [f"  {problem}" for problem in result.problems]
    return "\n".join(lines) + "\n"


def run(argv: Sequence[str] | None = None) -> int:
    args = build_arg_parser().parse_args(argv)  # before the compiler loads: --help and --version stay light
    from xhip.diagnostics import XhipError
    from xhip.report.request import MemoryReportRequest

    memory_report = MemoryReportRequest.from_args(args, infers_shape=True)
    if args.check_each_pass:
        if memory_report is not None:
            raise XhipError("--memory-report does not apply to --check-each-pass")
        return _check_each_pass(args)
    _check_output_paths(args)
    from xhip.api import compile

    executable = compile(
        args.model, _pipeline(args), args.backend, args.stop_after,
        deferred=args.deferred, sanitize=args.sanitize, verify_each=args.verify_each,
    )
    if memory_report is not None:
        memory_report.check_runnable(executable)
    feeds = _feeds(args, executable)
    outputs = executable.run(feeds)
    status, text = 0, ""
    if args.check:
        from xhip.runtime.check import check_outputs

        result = check_outputs(outputs, _references(args, feeds), executable.backend.name, executable.compute_dtype)
        executable.report.check = result.as_dict()
        text += _check_text(result)
        status = 0 if result.passed else 1
    if args.sanitize:
        text += "sanitizer: clean\n"
    text += _report_table(executable.report)
    _write_files(args, executable, outputs, memory_report, text)
    return status


def main(argv: Sequence[str] | None = None) -> None:
    main_with(run, argv, "xhip-run")

if __name__ == "__main__":
    main()
