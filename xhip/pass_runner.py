"""Run a list of passes over one in-memory module.

Shared by xhip-opt and the Python API: the IR is never reparsed between passes,
the module is verified after every pass (a pass that breaks the IR is named),
and a hook sees the IR after each pass (for --print-ir-after and per-pass checks).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException

from xhip.diagnostics import XhipError
from xhip.pass_options import locate_option_error
from xhip.verify import verify_module

AfterPassHook = Callable[[ModulePass, ModuleOp], None]


@dataclass(frozen=True)
class PassTiming:
    name: str
    seconds: float


def run_passes(
    ctx: Context,
    module: ModuleOp,
    passes: Sequence[ModulePass],
    after_pass: AfterPassHook | None = None,
    verify_each: bool = True,
) -> list[PassTiming]:
    """Apply `passes` in order; return the wall time of each."""
    timings: list[PassTiming] = []
    for module_pass in passes:
        start = time.perf_counter()
        try:
            module_pass.apply(ctx, module)
        except XhipError as err:
            # A pass that refuses an option value in `apply` is blamed where the value was written.
            raise locate_option_error(module_pass, err) from None
        except DiagnosticException as err:
            raise XhipError(f"pass '{module_pass.name}' failed: {_one_line(err)}") from None
        except Exception as err:
            if os.environ.get("XHIP_DEBUG"):
                raise
            raise XhipError(
                f"internal error in pass '{module_pass.name}': {type(err).__name__}: "
                f"{_one_line(err)} (set XHIP_DEBUG=1 for a traceback)"
            ) from None
        timings.append(PassTiming(module_pass.name, time.perf_counter() - start))
        if verify_each:
            try:
                verify_module(module)
            except XhipError as err:
                raise XhipError(
                    f"{err.message} (IR invalid after pass '{module_pass.name}')", err.location
                ) from None
        if after_pass is not None:
            after_pass(module_pass, module)
    return timings


def _one_line(err: Exception) -> str:
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    return " ".join(lines[:2]) if lines else type(err).__name__
