"""User-facing errors: one line, a location when there is one, exit code 1.

Every error a user can cause (bad YAML, bad ONNX, bad MLIR, a pass contract that
does not hold) is raised as an `XhipError` (also `xhip.XhipError`); the tools print
`str(error)` and exit 1. User text in a message (names, values, paths) is echoed
escaped: no control, NUL or bidi character reaches the terminal. Subclassing
xDSL's `DiagnosticException` lets upstream tooling (xdsl-opt `--verify-diagnostics`)
treat our errors like its own.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable

from xdsl.dialects.builtin import FileLineColLoc, LocationAttr as Location, NameLoc, StringAttr, UnknownLoc
from xdsl.ir import Operation

from xhip.dialects.onnx.base import NODE_NAME_ATTR
from xhip.errors import XhipError, escape  # noqa: F401 (the error's home for most callers)

ECHO_LIMIT = 200
"""The most characters of one user-written value a message repeats."""


def shorten(text: object, limit: int = ECHO_LIMIT) -> str:
    """`text` as a message echoes it: at most `limit` characters, cut with an ellipsis, escaped.

    A message quotes names and values the user wrote; a 58 MB YAML alias
    expansion or a megabyte node name must not become a 58 MB error line, and a
    control or bidi character must not reach the terminal (`escape`).
    """
    text = str(text)
    if len(text) <= limit:
        return escape(text)
    return f"{escape(text[: limit - 3])}... ({len(text)} characters)"


def check_not_directory(path: str) -> None:
    """A model path that is a folder is said to be one (not "no such file")."""
    if os.path.isdir(path):
        raise XhipError("cannot read input: is a directory, not an .onnx or .mlir file", path)


def op_location(op: Operation) -> str:
    """The best location we know for `op`: its source position, else its ONNX node.

    The node is the op's own `onnx_node_name`, or the name location that
    convert-onnx-to-hip gives every op it builds for a node.
    """
    loc = op.location
    if isinstance(loc, FileLineColLoc):
        return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
    node = op.attributes.get(NODE_NAME_ATTR)
    if isinstance(node, StringAttr):
        return f"'{op.name}' (onnx node \"{node.data}\")"
    if isinstance(loc, NameLoc):
        return f"'{op.name}' (onnx node \"{loc.desc.data}\")"
    return f"'{op.name}'"


def node_location(op: Operation) -> Location:
    """Where ops built for `op` are: its source position, else a name location of its ONNX node."""
    node = op.attributes.get(NODE_NAME_ATTR)
    if isinstance(op.location, UnknownLoc) and isinstance(node, StringAttr):
        return NameLoc(node, UnknownLoc())
    return op.location


def op_error(op: Operation, message: str) -> XhipError:
    """An error located at `op`; passes `raise op_error(op, "...")`."""
    return XhipError(message, op_location(op))


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """`"; did you mean 'x'?"` for the closest candidate, or "" when none is close."""
    close = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.5)
    return f"; did you mean '{close[0]}'?" if close else ""
