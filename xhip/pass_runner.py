"""Run a list of passes over one in-memory module.

Shared by xhip-opt, xhip-run and the Python API: the IR is never reparsed
between passes, and a hook sees the IR after each pass (for --print-ir-after
and per-pass checks).

Verification, like mlir-opt's: by default the ops a pass changed are verified
after it (a pass that breaks them is named) and the whole module once at the
end; `verify_each` verifies the whole module after every pass (the thorough
mode, for a pass under development or an error the cheap mode could only place
at the end of the pipeline). See `xhip.verify`.

A pass that adds a constants file leaves its checksum to a thread
(`xhip.constants_file`); the runner records it in the module before anyone
sees the IR: before an after-pass hook, and at the end of each `run`, so the
passes between run while the file is hashed.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException

from xhip import environment
from xhip.constants_file import ConstantsStore
from xhip.diagnostics import XhipError
from xhip.pass_options import locate_option_error
from xhip.timing import CHECKSUM_WAIT_ROW, Timings
from xhip.verify import ChangedOpsVerifier, verify_module

AfterPassHook = Callable[[ModulePass, ModuleOp], None]

VERIFY_CHANGED_ROW = "verify (changed ops, after each pass)"
VERIFY_EACH_ROW = "verify (whole module, after each pass)"
VERIFY_END_ROW = "verify (whole module, end of pipeline)"

class PassRunner:
    """Runs passes over one module, one call or several, and verifies what they produce.

    `finish` ends the pipeline: in the default mode it verifies the whole module
    once, which also catches what a changed-ops check cannot see (an op whose
    verifier reads other ops).
    """

    def __init__(
        self,
        ctx: Context,
        *,
        verify_each: bool = False,
        timings: Timings | None = None,
        after_pass: AfterPassHook | None = None,
    ):
        self.ctx = ctx
        self.verify_each = verify_each
        self.timings = Timings() if timings is None else timings
        self.after_pass = after_pass
        self._changed_ops: ChangedOpsVerifier | None = None
        self._last_pass: str | None = None

    def run(self, module: ModuleOp, passes: Sequence[ModulePass]) -> None:
        if self._changed_ops is None and not self.verify_each:
            self._changed_ops = ChangedOpsVerifier()
            self._changed_ops.trust(module)  # the input was verified when it was imported or parsed
        for index, module_pass in enumerate(passes):
            with self.timings.measure(module_pass.name):
                _apply(self.ctx, module, module_pass)
            self._last_pass = module_pass.name
            self._verify_after(module, module_pass.name)
            if self.after_pass is not None:
                self._settle(passes[: index + 1])
                self.after_pass(module_pass, module)
        self._settle(passes)

    def _settle(self, passes: Sequence[ModulePass]) -> None:
        """Record the checksums of the constants files these passes added (see the module docstring)."""
        stores = _constants_stores(passes)
        if stores:
            with self.timings.measure(CHECKSUM_WAIT_ROW, merge=True):
                for store in stores:
                    store.settle()

    def finish(self, module: ModuleOp) -> None:
        if self.verify_each or self._last_pass is None:
            return
        with self.timings.measure(VERIFY_END_ROW, merge=True):
            try:
                verify_module(module)
            except XhipError as err:
                hint = "IR invalid at the end of the pipeline; --verify-each names the pass that broke it"
                raise XhipError(f"{err.message} ({hint})", err.location) from None

    def _verify_after(self, module: ModuleOp, pass_name: str) -> None:
        row = VERIFY_EACH_ROW if self.verify_each else VERIFY_CHANGED_ROW
        with self.timings.measure(row, merge=True):
            try:
                if self._changed_ops is None:
                    verify_module(module)
                else:
                    self._changed_ops.verify(module)
            except XhipError as err:
                raise XhipError(f"{err.message} (IR invalid after pass '{pass_name}')", err.location) from None


def run_passes(
    ctx: Context,
    module: ModuleOp,
    passes: Sequence[ModulePass],
    after_pass: AfterPassHook | None = None,
    verify_each: bool = False,
    timings: Timings | None = None,
) -> Timings:
    """Apply `passes` in order and verify (see the module docstring); the wall time of each step."""
    runner = PassRunner(ctx, verify_each=verify_each, timings=timings, after_pass=after_pass)
    runner.run(module, passes)
    runner.finish(module)
    return runner.timings


def _constants_stores(passes: Sequence[ModulePass]) -> list[ConstantsStore]:
    """The stores that passes put constants files into (hip-externalize-constants' `constants`)."""
    stores = {id(store): store for p in passes if isinstance(store := getattr(p, "constants", None), ConstantsStore)}
    return list(stores.values())


def _apply(ctx: Context, module: ModuleOp, module_pass: ModulePass) -> None:
    try:
        module_pass.apply(ctx, module)
    except XhipError as err:
        # A pass that refuses an option value in `apply` is blamed where the value was written.
        raise locate_option_error(module_pass, err) from None
    except DiagnosticException as err:
        raise XhipError(f"pass '{module_pass.name}' failed: {_one_line(err)}") from None
    except Exception as err:
        if os.environ.get(environment.DEBUG):
            raise
        raise XhipError(
            f"internal error in pass '{module_pass.name}': {type(err).__name__}: "
            f"{_one_line(err)} (set {environment.DEBUG}=1 for a traceback)"
        ) from None


def _one_line(err: Exception) -> str:
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    return " ".join(lines[:2]) if lines else type(err).__name__
