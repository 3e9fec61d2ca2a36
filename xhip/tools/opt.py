"""xhip-opt: read MLIR or ONNX, run a pass pipeline, print MLIR.

Behaves like mlir-opt: `--pipeline FILE.yaml` or `-p 'a,b{opt=v}'` picks the
passes, `--split-input-file` runs each `// -----` chunk on its own, and with
`--verify-diagnostics` an error is printed to stdout as one line (for FileCheck)
instead of failing the run. Every user mistake ends as one line on stderr and
exit code 1; the output file is written only when everything succeeded, with its
constants file as one pair (`xhip.output_files`); SIGINT and SIGTERM end it with
one line and status 130 or 143, leaving no temp file (`xhip.tools.cli`). The
compiler's modules are imported inside functions, after the signal handlers.
"""

from __future__ import annotations

import argparse
import gc
import sys
from collections.abc import Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from xhip import __version__
from xhip.timing import Timings
from xhip.tools.cli import ArgumentParser, emit, main_with

if TYPE_CHECKING:  # the compiler's modules load in main(), after the signal handlers (xhip.tools.cli)
    from concurrent.futures import Future

    from xdsl.context import Context
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.passes import ModulePass

    from xhip.constants_file import ConstantsBytes, ConstantsStore
    from xhip.diagnostics import XhipError
    from xhip.output_files import OutputFiles
    from xhip.report.request import MemoryReportRequest

CONSTANTS_HELP = """\
externalized constants (hip-externalize-constants): with -o OUT.mlir they are
written to OUT.constants.bin beside it, and the IR records that name (relative
to the IR file), its size and SHA-256, so `xhip-run OUT.mlir` runs it as is and
refuses a file that is not the one compiled with it. Printing to stdout (or to
-o /dev/null or a FIFO) writes <input stem>.<sha256 prefix>.constants.bin in the
current directory (or the pass's externalize-output-dir): named by content, so
two models never share one. Nothing is written unless the whole command succeeds:
the constants file is written into a temp file beside its path while the later
passes run, and committed with the IR at the end, as one: a kill at any moment
leaves the old OUT.mlir and OUT.constants.bin or the new ones, never a mix.
"""

CHUNK_SEPARATOR = "// -----"


def build_arg_parser() -> argparse.ArgumentParser:
    from xhip.tools.arguments import VERIFY_EACH_HELP, add_memory_report_arguments

    ap = ArgumentParser(
        prog="xhip-opt",
        description="Run xhip passes over MLIR or ONNX input and print the resulting MLIR.",
        epilog=CONSTANTS_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,
    )
    ap.add_argument("input", nargs="?", default="-", help="input .mlir or .onnx file ('-' for stdin)")
    ap.add_argument(
        "-o", dest="output", metavar="FILE",
        help="write the output here, only on success: a regular file is replaced atomically "
        "(a new one's mode follows the umask), a symlink's target is written, /dev/null or a FIFO is written through",
    )
    ap.add_argument(
        "--pipeline", metavar="NAME|FILE.yaml",
        help="pass pipeline: a YAML file, or the name of a shipped one (default, seed-003, ...)",
    )
    ap.add_argument("-p", "--passes", dest="passes", metavar="SPEC", help="pass list, e.g. 'a,b{opt=v}'")
    ap.add_argument(
        "--set", dest="settings", action="append", default=[], metavar="PASS.OPTION=VALUE",
        help="override one pass option of the pipeline (repeatable)",
    )
    ap.add_argument("--print-ir-after-all", action="store_true", help="print the IR after every pass to stderr")
    ap.add_argument(
        "--print-ir-after", action="append", default=[], metavar="PASS",
        help="print the IR after the named pass to stderr (repeatable, or comma-separated)",
    )
    ap.add_argument(
        "--elide-elementsattrs-if-larger", type=int, metavar="N",
        help="print dense constants with more than N elements as dense_resource<__elided__>",
    )
    ap.add_argument("--split-input-file", action="store_true", help=f"process each '{CHUNK_SEPARATOR}' chunk separately")
    ap.add_argument(
        "--verify-diagnostics", action="store_true",
        help="print errors to stdout as one line each and exit 0 (for FileCheck tests)",
    )
    ap.add_argument("--allow-unregistered-dialect", action="store_true", help="accept ops of unknown dialects")
    ap.add_argument("--print-op-generic", action="store_true", help="print ops in generic form")
    ap.add_argument("--print-debuginfo", action="store_true", help="print op locations")
    ap.add_argument("--list-passes", action="store_true", help="list passes with their options and exit")
    ap.add_argument(
        "--timing", action="store_true",
        help="print where the wall time went to stderr: start-up, loading the pipeline, import (or parse), each pass "
        "in order, verification, waiting for the constants file's checksum (computed on a thread while the later "
        "passes run), printing and writing the output, 'other' (what no row measured); the rows add up "
        "to the total, the wall time of the whole command",
    )
    ap.add_argument("--verify-each", action="store_true", help=VERIFY_EACH_HELP)
    add_memory_report_arguments(ap, "needed for a .png and for numbers")
    ap.add_argument("--version", action="version", version=f"xhip-opt {__version__}")
    return ap


def _select_passes(args: argparse.Namespace) -> list[ModulePass]:
    from xhip import pipeline as pipelines
    from xhip.diagnostics import XhipError
    from xhip.shipped import resolve_pipeline

    if args.pipeline and args.passes:
        raise XhipError("use either --pipeline or -p, not both")
    if args.pipeline:
        chosen = pipelines.load_pipeline(resolve_pipeline(args.pipeline))
    elif args.passes:
        chosen = pipelines.parse_pass_spec(args.passes)
    else:
        chosen = pipelines.parse_pass_spec("")
    if args.settings:
        chosen = pipelines.apply_overrides(chosen, args.settings)
    return pipelines.instantiate(chosen)


def _print_after_names(args: argparse.Namespace, passes: Sequence[ModulePass]) -> set[str]:
    from xhip.diagnostics import XhipError, did_you_mean, shorten

    requested = {n.strip() for item in args.print_ir_after for n in item.split(",") if n.strip()}
    known = [p.name for p in passes]
    for name in sorted(requested):
        if name not in known:
            hint = did_you_mean(name, known) or f"; the pipeline has: {', '.join(known) or 'no passes'}"
            raise XhipError(f"--print-ir-after: pass '{shorten(name)}' is not in the pipeline{hint}")
    return requested


def _read_chunks(args: argparse.Namespace) -> list[tuple[str, int]]:
    """The input text split into (chunk, line offset) pairs."""
    from xhip.diagnostics import XhipError

    if args.input == "-":
        text = sys.stdin.read()
    else:
        try:
            text = Path(args.input).read_text()
        except (OSError, UnicodeDecodeError) as err:
            raise XhipError(f"cannot read input: {err.strerror if isinstance(err, OSError) else err}", args.input) from None
    if not args.split_input_file:
        return [(text, 0)]
    chunks: list[tuple[str, int]] = []
    offset = 0
    for chunk in text.split(CHUNK_SEPARATOR):
        chunks.append((chunk, offset))
        offset += chunk.count("\n")
    return chunks


def _load_modules(args: argparse.Namespace, timings: Timings) -> Iterator[tuple[Context, ModuleOp | XhipError]]:
    """Yield (module or error) per input chunk, parsed and verified."""
    from xhip.context import make_context
    from xhip.diagnostics import XhipError, check_not_directory
    from xhip.parsing import parse_module
    from xhip.verify import verify_module

    ctx = make_context(allow_unregistered=args.allow_unregistered_dialect)
    if args.input.endswith(".onnx"):
        if args.split_input_file:
            raise XhipError("--split-input-file does not apply to .onnx input")
        from xhip.importer import import_model  # not xhip.api: it brings the runtime (30 ms of start-up)

        check_not_directory(args.input)
        with timings.measure("import"):
            module = import_model(args.input, map_weights=True)  # the process ends with the compile
        yield ctx, module
        return
    name = "<stdin>" if args.input == "-" else args.input
    for text, offset in _read_chunks(args):
        try:
            with timings.measure("parse", merge=True):
                module = parse_module(ctx, text, name, offset)
            with timings.measure("verify (parsed input)", merge=True):
                verify_module(module)
        except XhipError as err:
            yield ctx, err
            continue
        yield ctx, module


def _constants_store(args: argparse.Namespace, files: OutputFiles) -> ConstantsStore:
    """Constants go beside a real -o file; otherwise, content-named, into the current directory.

    Each file is written (into its temp file) from the moment a pass adds it, while the
    later passes run; it takes its place with the IR, at the end, if everything succeeded:
    a file beside a real -o file commits with it, as one (`referenced`: the IR records its checksum)."""
    from xhip.constants_file import ConstantsStore
    from xhip.output_files import writes_through

    content_named = args.output is None or writes_through(Path(args.output))

    def write_early(path: Path, data: ConstantsBytes) -> Future[str | None] | None:
        # Hashed as it is written, unless its name needed the checksum already.
        return files.add(
            path, data, "constants file", early=True, hashed=not content_named, referenced=not content_named
        )

    if not content_named:
        output = Path(args.output)
        return ConstantsStore(stem=output.stem, directory=output.parent, on_add=write_early)
    stem = "model" if args.input == "-" else Path(args.input).stem
    return ConstantsStore(stem=stem, content_named=True, on_add=write_early)


def _write_outputs(
    text: str, args: argparse.Namespace, files: OutputFiles, timings: Timings,
    memory_report: MemoryReportRequest | None = None, reported: ModuleOp | None = None,
) -> None:
    """The IR after the constants files (added by then: an IR on disk never names a missing file), then the
    memory report; IR to stdout last, and if stdout fails the files this commit created go again."""
    if args.output is not None:
        files.add(args.output, text)
    with timings.measure("write output"):
        if memory_report is not None and reported is not None:
            memory_report.add_to(files, reported)
        files.commit(then=partial(emit, text) if args.output is None else None)


def run(argv: Sequence[str] | None = None, timings: Timings | None = None) -> int:
    """The command; `timings` (main's counts the process's start-up) collects the --timing rows."""
    # Parsed before the compiler loads: --help, --version and usage errors stay light.
    return _run_parsed(build_arg_parser().parse_args(argv), Timings() if timings is None else timings)


def _run_parsed(args: argparse.Namespace, timings: Timings) -> int:
    from xhip.diagnostics import XhipError
    from xhip.output_files import OutputFiles, check_writable
    from xhip.report.request import MemoryReportRequest

    if args.list_passes:
        from xhip.pipeline import describe_passes

        emit(describe_passes())
        return 0
    if args.output is not None:
        check_writable(Path(args.output), "output")
    memory_report = MemoryReportRequest.from_args(args, infers_shape=False)
    if memory_report is not None and args.split_input_file:
        raise XhipError("--memory-report reports one module: it does not apply with --split-input-file")
    files = OutputFiles()
    try:
        _compile(args, files, memory_report, timings)
    finally:
        files.discard()  # after a failure: no temp file stays (after commit: nothing left to do)
    if args.timing:
        sys.stderr.write(timings.table("xhip-opt"))
    return 0


def _compile(
    args: argparse.Namespace, files: OutputFiles, memory_report: MemoryReportRequest | None, timings: Timings
) -> None:
    """Load, run the passes over each module, print, and write `files` (the constants files come in as passes add them)."""
    from xhip.diagnostics import XhipError
    from xhip.pass_runner import PassRunner
    from xhip.passes.externalize_constants import storing_constants_into
    from xhip.printing import print_ir
    from xhip.report.request import graph_symbols

    store = _constants_store(args, files)
    with timings.measure("load pipeline"):
        passes = storing_constants_into(_select_passes(args), store)
    print_after = _print_after_names(args, passes)

    def after_pass(module_pass: ModulePass, module: ModuleOp) -> None:
        if args.print_ir_after_all or module_pass.name in print_after:
            sys.stderr.write(f"// -----// IR Dump After {module_pass.name} //----- //\n")
            sys.stderr.write(print_ir(module, args.print_op_generic, args.elide_elementsattrs_if_larger))

    outputs: list[str] = []
    reported = None
    for ctx, loaded in _load_modules(args, timings):
        try:
            if isinstance(loaded, XhipError):
                raise loaded
            if memory_report is not None:
                memory_report.check_symbols(graph_symbols(loaded))
            # A hook makes the runner record the constants checksum after every pass: only when it prints.
            printing = args.print_ir_after_all or bool(print_after)
            runner = PassRunner(ctx, verify_each=args.verify_each, timings=timings, after_pass=after_pass if printing else None)
            runner.run(loaded, passes)
            runner.finish(loaded)
            with timings.measure("print", merge=True):
                outputs.append(
                    print_ir(loaded, args.print_op_generic, args.elide_elementsattrs_if_larger, args.print_debuginfo)
                )
            reported = loaded
        except XhipError as err:
            if not args.verify_diagnostics:
                raise
            outputs.append(f"{err}\n")
    _write_outputs(f"{CHUNK_SEPARATOR}\n".join(outputs), args, files, timings, memory_report, reported)


COMPILE_GC_THRESHOLD = (20_000, 20, 20)
"""A compile makes ~10^6 long-lived IR objects; at Python's default (700, 10, 10) the collector
rescans them 400 times (0.15 s of GPT-2 124M's 2 s of CPU), at this 11 times."""

COMPILE_SWITCH_INTERVAL = 0.0005
"""Seconds the passes may hold the GIL while the background thread that hashes and writes the
constants file waits for it (Python's default: 0.005). That thread takes the GIL twice per chunk
of the file (GPT-2 124M: some 70 chunks); at the default it mostly waited while the passes ran
and did its work after them. GPT-2 124M with `-o`, medians of 8 cold processes on the 2-core dev
machine, alternated: into tmpfs 2.02 s wall at the default, 1.53-1.62 s at 0.1, 0.5 or 1 ms; onto
its disk 2.30 against 2.16 s (there writing the 475 MB file into fresh pages varies by 0.7 s)."""


def _import_compiler() -> None:
    """What every compile loads, imported before --timing's clock starts (its start-up row)."""
    import xhip.output_files  # noqa: F401
    import xhip.parsing  # noqa: F401
    import xhip.pass_runner  # noqa: F401
    import xhip.passes.externalize_constants  # noqa: F401
    import xhip.printing  # noqa: F401
    import xhip.report.request  # noqa: F401


def _process_command(argv: Sequence[str] | None) -> int:
    """`run` as the whole process: the collector tuned for a compile, start-up in --timing."""
    gc.set_threshold(*COMPILE_GC_THRESHOLD)
    sys.setswitchinterval(COMPILE_SWITCH_INTERVAL)
    args = build_arg_parser().parse_args(argv)  # --help, --version and usage errors end here, before the compiler loads
    _import_compiler()
    code = _run_parsed(args, Timings.since_process_start())
    # The process ends here: the OS takes the IR back at once, while the collector at
    # interpreter exit would walk its million objects first (0.2 s after --timing's total).
    gc.freeze()
    return code


def main(argv: Sequence[str] | None = None) -> None:
    # Without argv this is the process's command; with argv a caller (a test, a script) goes on after it.
    main_with(_process_command if argv is None else partial(run, timings=Timings()), argv, "xhip-opt")

if __name__ == "__main__":
    main()
