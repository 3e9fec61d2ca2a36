"""xhip: an ONNX-to-HIP compiler built on xDSL.

    import xhip
    exe = xhip.compile("examples/attention.onnx")   # see xhip.api
    outputs = exe.run({"X": x})
"""

from __future__ import annotations

__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    # Lazy, so that `import xhip.diagnostics` does not load the whole compiler.
    if name == "compile":
        from xhip.api import compile

        return compile
    raise AttributeError(f"module 'xhip' has no attribute '{name}'")
