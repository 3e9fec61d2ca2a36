"""`--memory-report FILE` and `--report-shape NAME=N,...`, as xhip-opt and xhip-run take them.

The suffix picks the format (.json, .md, .png). Everything that can be wrong with
the request (suffix, path, shape syntax, matplotlib for a .png, a .png without a
shape where none can be inferred) is one line before any work; names the graph
does not declare are one line once the graph is known, before its passes run.
The file goes through `OutputFiles`, with the command's other outputs.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from xhip.diagnostics import XhipError, did_you_mean, shorten
from xhip.dialects.onnx.signature import entry_attributes, parse_dim_params
from xhip.output_files import OutputFiles, check_writable
from xhip.report.plot import require_matplotlib
from xhip.tools.arguments import SHAPE_EXAMPLE

if TYPE_CHECKING:
    from xhip.report.memory import Observed
    from xhip.runtime.executable import Executable

SUFFIXES = (".json", ".md", ".png")


def parse_report_shape(text: str) -> dict[str, int]:
    """`batch=4,seq=512` -> {"batch": 4, "seq": 512}."""
    shape: dict[str, int] = {}
    for entry in text.split(","):
        name, sep, value = (part.strip() for part in entry.partition("="))
        if not sep or not name or not value.isdigit():
            raise XhipError(f"--report-shape '{shorten(text)}' is not NAME=N,... (e.g. {SHAPE_EXAMPLE})")
        if name in shape:
            raise XhipError(f"--report-shape gives '{shorten(name)}' twice")
        shape[name] = int(value)
    return shape


def graph_symbols(module: ModuleOp) -> set[str]:
    """The symbolic dims (ONNX dim_params) that the functions' arguments declare."""
    symbols: set[str] = set()
    for function in module.walk():
        if isinstance(function, func.FuncOp):
            for index in range(len(function.function_type.inputs.data)):
                try:
                    symbols |= set(parse_dim_params(entry_attributes(function.arg_attrs, index)).values())
                except ValueError:
                    continue  # a malformed entry is the passes' diagnostic to give
    return symbols


@dataclass(frozen=True)
class MemoryReportRequest:
    path: Path
    shape: dict[str, int] | None

    @staticmethod
    def from_args(args: argparse.Namespace, infers_shape: bool) -> MemoryReportRequest | None:
        """The request on the command line, checked; None without --memory-report.

        `infers_shape`: the tool knows a shape of its own (xhip-run: the feeds')."""
        if args.memory_report is None:
            if args.report_shape is not None:
                raise XhipError("--report-shape goes with --memory-report")
            return None
        path = Path(args.memory_report)
        if path.suffix not in SUFFIXES:
            raise XhipError(
                f"--memory-report: unknown format '{path.suffix or path.name}' (use {', '.join(SUFFIXES)})",
                str(path),
            )
        shape = None if args.report_shape is None else parse_report_shape(args.report_shape)
        if path.suffix == ".png":
            require_matplotlib()
            if shape is None and not infers_shape:
                raise XhipError(f"--memory-report {path.name} needs --report-shape NAME=N,... (e.g. {SHAPE_EXAMPLE})")
        check_writable(path, "memory report")
        return MemoryReportRequest(path, shape)

    def check_symbols(self, known: Iterable[str]) -> None:
        """Every --report-shape name is a symbolic dim the graph declares."""
        declared = sorted(set(known))
        for name in self.shape or {}:
            if name not in declared:
                hint = did_you_mean(name, declared) or f"; the graph inputs declare: {', '.join(declared) or 'none'}"
                raise XhipError(f"--report-shape: '{shorten(name)}' is not a symbolic dim of the graph inputs{hint}")

    def render(
        self, module: ModuleOp, shape: Mapping[str, int] | None, observed: Mapping[str, Observed] | None = None
    ) -> bytes:
        from xhip.report.formats import report_dict, report_markdown
        from xhip.report.memory import MemoryReport
        from xhip.report.plot import report_png

        report = MemoryReport.from_module(module)
        if self.path.suffix == ".json":
            return (json.dumps(report_dict(report, shape, observed), indent=2) + "\n").encode()
        if self.path.suffix == ".md":
            return report_markdown(report, shape, observed).encode()
        return report_png(report.at(shape or {}, observed), shape)

    def add_to(
        self,
        files: OutputFiles,
        module: ModuleOp,
        shape: Mapping[str, int] | None = None,
        observed: Mapping[str, Observed] | None = None,
    ) -> None:
        """Render at --report-shape, else at `shape`, and stage the file with the command's outputs;
        `observed` (what a run at `shape` used) counts only at that shape."""
        chosen = self.shape if self.shape is not None else shape
        if chosen is None:
            sys.stderr.write(f"note: --memory-report without --report-shape gives expressions only (e.g. --report-shape {SHAPE_EXAMPLE})\n")
        files.add(self.path, self.render(module, chosen, observed if chosen == shape else None), "memory report")

    def check_runnable(self, executable: Executable) -> None:
        """Before a run: the names are the inputs' symbolic dims, and the IR holds a pool plan."""
        from xhip.report.memory import MemoryReport

        self.check_symbols(d for spec in executable.inputs for d in spec.shape if isinstance(d, str))
        MemoryReport.from_module(executable.module)

    def add_run(self, files: OutputFiles, executable: Executable) -> None:
        """After a run: the report at the run's shape (or --report-shape), with what the run used."""
        from xhip.report.memory import observed_layout

        self.add_to(files, executable.module, executable.run_symbols, observed_layout(executable))
