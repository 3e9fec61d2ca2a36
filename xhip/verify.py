"""Module verification that reports the failing operation's location.

xDSL's `Operation.verify` dumps the whole module with a marker on failure; a
user wants one line pointing at the op, so every op is verified on its own.
"""

from __future__ import annotations

import os

from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import VerifyException

from xhip.diagnostics import XhipError, op_error


def verify_module(module: ModuleOp) -> None:
    """Verify `module`; raise an XhipError at the first op that does not verify."""
    for op in module.walk():
        try:
            op.verify(verify_nested_ops=False)
        except XhipError:
            raise
        except VerifyException as err:
            raise op_error(op, _first_message(err)) from None
        except Exception as err:  # upstream verifiers raise plain exceptions too
            if os.environ.get("XHIP_DEBUG"):
                raise
            raise op_error(op, f"{op.name} does not verify: {_first_message(err)}") from None


def _first_message(err: Exception) -> str:
    """The error's own text, without the module dump xDSL's diagnostics append."""
    text = str(err)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for prefix in ("Operation does not verify: ",):
        lines = [line.removeprefix(prefix) for line in lines]
    return " ".join(lines[:3]) if lines else type(err).__name__
