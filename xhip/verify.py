"""Module verification that reports the failing operation's location.

xDSL's `Operation.verify` dumps the whole module with a marker on failure; a
user wants one line pointing at the op, so every op is verified on its own.
"""

from __future__ import annotations

import os

from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType, ModuleOp, TensorType
from xdsl.ir import Operation
from xdsl.utils.exceptions import VerifyException

from xhip.diagnostics import XhipError, op_error, shorten


INT64_MAX = 2**63 - 1


def verify_module(module: ModuleOp) -> None:
    """Verify `module`; raise an XhipError at the first op that does not verify."""
    for op in module.walk():
        _check_static_dims(op)
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


def _check_static_dims(op: Operation) -> None:
    """Static dims must be int64s (xDSL's parser takes any integer, MLIR's does not)."""
    values = [(f"result #{i}", r) for i, r in enumerate(op.results)]
    for region in op.regions:
        values += [(f"block argument #{i}", arg) for block in region.blocks for i, arg in enumerate(block.args)]
    for what, value in values:
        if isinstance(value.type, TensorType | MemRefType):
            shape = value.type.get_shape()
            if any(d > INT64_MAX or d < DYNAMIC_INDEX for d in shape):
                dims = "x".join("?" if d == DYNAMIC_INDEX else str(d) for d in shape)
                raise op_error(op, f"{what} has a static dim outside int64 ({shorten(dims)})")


def _first_message(err: Exception) -> str:
    """The error's own text, without the module dump xDSL's diagnostics append."""
    text = str(err)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for prefix in ("Operation does not verify: ",):
        lines = [line.removeprefix(prefix) for line in lines]
    return " ".join(lines[:3]) if lines else type(err).__name__
