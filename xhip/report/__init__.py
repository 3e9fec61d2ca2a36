"""Reports on a compiled module: the memory report (`--memory-report FILE.json|.md|.png`).

`memory` reads the pool plan and the honest bounds off the IR and evaluates them
at a shape; `formats` writes JSON and Markdown, `plot` the PNG; `request` is the
command-line side that xhip-opt and xhip-run share.
"""

from xhip.report.formats import report_dict, report_from_dict, report_markdown
from xhip.report.memory import FunctionAt, FunctionMemory, MemoryReport, Rectangle, ReportBuffer, observed_layout

__all__ = [
    "FunctionAt",
    "FunctionMemory",
    "MemoryReport",
    "Rectangle",
    "ReportBuffer",
    "observed_layout",
    "report_dict",
    "report_from_dict",
    "report_markdown",
]
