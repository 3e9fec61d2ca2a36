"""Option texts and arguments that xhip-opt and xhip-run share, importable without the
compiler: building the argument parser (and so `--help` and `--version`) loads no xDSL,
no dialect and no pass."""

from __future__ import annotations

import argparse

VERIFY_EACH_HELP = (
    "verify the whole module after every pass (default: after each pass only the ops it changed, "
    "and the whole module once at the end)"
)
"""--verify-each of xhip-opt and xhip-run."""

SHAPE_EXAMPLE = "batch=4,seq=512"
"""How --report-shape is spelled (the help and the errors about it show it)."""


def add_memory_report_arguments(ap: argparse.ArgumentParser, shape_default: str) -> None:
    ap.add_argument(
        "--memory-report", metavar="FILE.json|FILE.md|FILE.png",
        help="write the memory report, the format picked by the suffix: per pooled buffer its size, live "
        "interval, offset and domain, the pool sizes and the model's two honest bounds, as expressions and at "
        "--report-shape in bytes (.json, .md), or drawn (.png: ops by MiB, one rectangle per buffer; needs the "
        "'plot' extra)",
    )  # fmt: skip
    ap.add_argument(
        "--report-shape", metavar=SHAPE_EXAMPLE,
        help=f"the graph inputs' symbolic dims (their ONNX dim_params) at which --memory-report gives numbers; {shape_default}",
    )
