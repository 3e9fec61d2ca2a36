"""xhip: an ONNX-to-HIP compiler built on xDSL.

    import xhip
    exe = xhip.compile("examples/attention.onnx")   # see xhip.api
    outputs = exe.run({"X": x})

A user's mistake (a bad model, pipeline or option) is raised as `xhip.XhipError`,
whose `str()` is one line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # what the lazy attributes below are, for a type checker
    from xhip.diagnostics import XhipError as XhipError

__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    # Lazy, so that `import xhip.diagnostics` does not load the whole compiler.
    if name == "compile":
        from xhip.api import compile

        return compile
    if name == "XhipError":  # the one error type of every user mistake (xhip.diagnostics)
        from xhip.diagnostics import XhipError

        return XhipError
    raise AttributeError(f"module 'xhip' has no attribute '{name}'")
