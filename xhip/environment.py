"""The environment variables xhip reads, each named once; `xhip-run --help` lists them.

Only the standard library: the tools' --help reads this module without loading anything a
compile needs.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

CACHE_DIR = "XHIP_CACHE_DIR"
CUDNN = "XHIP_CUDNN"
MAX_DEVICE_BYTES = "XHIP_MAX_DEVICE_BYTES"
DEBUG = "XHIP_DEBUG"

DESCRIPTIONS = (
    (CACHE_DIR, "compiled kernels' cache (default ~/.cache/xhip)"),
    (CUDNN, "0: convolutions on xhip's kernel, never on cuDNN"),
    (MAX_DEVICE_BYTES, "the largest single device allocation, in bytes"),
    (DEBUG, "1: a pass's internal error shows its traceback"),
)
"""(variable, what it does), as --help prints them."""


def help_text() -> str:
    """The 'Environment:' paragraph of a tool's --help."""
    width = max(len(name) for name, _ in DESCRIPTIONS)
    return "Environment:\n" + "".join(f"  {name:<{width}}  {text}\n" for name, text in DESCRIPTIONS)


@contextmanager
def setting(values: Mapping[str, str]) -> Iterator[None]:
    """The process environment with `values` set, as it was again afterwards (a variable
    that was unset is unset again)."""
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
