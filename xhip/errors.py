"""`XhipError`, importable without xDSL's dialects: the command line catches it before the
compiler is loaded (`--help` and `--version` stay light). `xhip.diagnostics` re-exports it
with the helpers that locate and phrase errors."""

from __future__ import annotations

from xdsl.utils.exceptions import DiagnosticException


def escape(text: str) -> str:
    """`text` with each character that is not printable as its Python escape (`\\x00`, `\\u202e`).

    Controls, NUL, bidi overrides and other format characters in a pass name or a path
    would otherwise reach the terminal raw: a right-to-left override makes the
    message read differently from what it says.
    """
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in text)


class XhipError(DiagnosticException):
    """An error caused by the user's input, printed as a single line."""

    def __init__(self, message: str, location: str | None = None):
        self.message = message
        self.location = location
        super().__init__(self.render())

    def render(self) -> str:
        """`LOCATION: error: MESSAGE` on one line; what is not printable in either is escaped (`escape`)."""
        text = escape(" ".join(self.message.split("\n")))
        if self.location:
            return f"{escape(self.location)}: error: {text}"
        return f"error: {text}"

    def __str__(self) -> str:
        return self.render()
