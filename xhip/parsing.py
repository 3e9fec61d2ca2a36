"""MLIR text in, with source locations kept on every operation.

xDSL's parser leaves `loc(unknown)` on ops that carry no explicit `loc(...)`;
diagnostics then cannot point at the input. `LocatedParser` records where each
operation starts, so a verifier or pass error can say `file:line:col`.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr, UnknownLoc
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.utils.lexer import Span

from xhip.diagnostics import XhipError, shorten


class LocatedParser(Parser):
    """A Parser that stamps `FileLineColLoc` on ops that have no location."""

    def __init__(self, ctx: Context, text: str, name: str = "<stdin>", line_offset: int = 0):
        super().__init__(ctx, text, name)
        self._source_name = name
        self._line_offset = line_offset
        # Span.get_location rescans the text from the start: quadratic on big inputs.
        self._line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def parse_operation(self) -> Operation:
        start = self._current_token.span
        op = super().parse_operation()
        if isinstance(op.location, UnknownLoc):
            line = bisect_right(self._line_starts, start.start)
            column = start.start - self._line_starts[line - 1] + 1
            op.location = FileLineColLoc(
                StringAttr(self._source_name),
                IntAttr(line + self._line_offset),
                IntAttr(column),
            )
        return op


def _span_location(span: Span[str] | Span[bytes], name: str, line_offset: int) -> str:
    where = span.get_location()
    return f"{name}:{where.line + line_offset}:{where.col}"


def parse_module(ctx: Context, text: str, name: str = "<stdin>", line_offset: int = 0) -> ModuleOp:
    """Parse `text` into a module; malformed input raises a one-line XhipError."""
    parser: LocatedParser | None = None
    try:
        # The parser lexes its first token when it is built: a bad first token fails here.
        parser = LocatedParser(ctx, text, name, line_offset)
        return parser.parse_module()
    except ParseError as err:
        location = _span_location(err.span, name, line_offset)
        raise XhipError(_parse_message(err, text), location) from None
    except VerifyException as err:
        # Attribute and type constructors verify while the parser builds them.
        assert parser is not None
        location = _span_location(parser._current_token.span, name, line_offset)
        raise XhipError(shorten(str(err)), location) from None
    except RecursionError:
        # The parser recurses once per nested region; Python's stack ends first.
        where = _span_location(parser._current_token.span, name, line_offset) if parser else name
        raise XhipError("operations nest too deeply to parse", where) from None


_NEGATIVE_DIM = re.compile(r"-[0-9]+")


def _parse_message(err: ParseError, text: str) -> str:
    """xDSL's parse message, said in the user's terms where xDSL's is vague."""
    if err.msg.startswith("Expected shape type") and (dim := _NEGATIVE_DIM.match(text, err.span.start)):
        return f"static dim {dim[0]} is negative; a dim is a non-negative integer, or ? when dynamic"
    return shorten(err.msg)
