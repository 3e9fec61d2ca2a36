"""The first pass after which two pipelines' IR differs, with a short diff of that pass's output.

Each pipeline's stages (`xhip.api.compile_stages`: "import", then one per pass)
are printed as text; stages are aligned by position, and the first index where
the pass names or the printed IR differ is the divergence. Large dense constants
print as a digest of their bytes, so a weight tensor costs no printing time but a
changed constant still counts as a difference.
"""

from __future__ import annotations

import difflib
import hashlib
from dataclasses import dataclass
from io import StringIO

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr
from xdsl.ir import Attribute, Operation
from xdsl.printer import Printer

DIGEST_ABOVE_ELEMENTS = 64
"""Dense constants with more elements print as `dense_resource<sha256_...>`."""
DIFF_LINES = 24
"""The most lines of unified diff a divergence keeps."""
DIFF_LINE_CHARS = 160
"""The most characters of one diff line shown (module attributes make lines of thousands)."""

Stage = tuple[str, str]
"""(pass name, IR printed after it)."""


class _DigestPrinter(Printer):
    def print_attribute(self, attribute: Attribute) -> None:
        if isinstance(attribute, DenseIntOrFPElementsAttr) and len(attribute) > DIGEST_ABOVE_ELEMENTS:
            digest = hashlib.sha256(attribute.data.data).hexdigest()[:16]
            self.print_string(f"dense_resource<sha256_{digest}> : ")
            self.print_attribute(attribute.type)
            return
        super().print_attribute(attribute)


def stage_text(op: Operation) -> str:
    out = StringIO()
    _DigestPrinter(stream=out).print_op(op)
    return out.getvalue() + "\n"


@dataclass(frozen=True)
class Divergence:
    index: int
    """Position in the stage list (0 is "import")."""
    baseline_pass: str
    candidate_pass: str
    diff: tuple[str, ...]
    """Unified diff lines of the two stages' IR, at most DIFF_LINES (then a '...' line)."""

    @property
    def where(self) -> str:
        if self.baseline_pass == self.candidate_pass:
            return f"after pass {self.index} '{self.baseline_pass}'"
        return f"at pass {self.index}: '{self.baseline_pass}' vs '{self.candidate_pass}'"

    def as_dict(self) -> dict[str, object]:
        return {
            "index": self.index,
            "baseline_pass": self.baseline_pass,
            "candidate_pass": self.candidate_pass,
            "diff": list(self.diff),
        }


END = "(end of pipeline)"


def first_divergence(
    baseline: list[Stage], candidate: list[Stage], labels: tuple[str, str] = ("A", "B")
) -> Divergence | None:
    """None when both pipelines print the same IR after the same passes, all the way.

    `labels` name the two pipelines in the diff's `---`/`+++` lines.
    """
    for index in range(max(len(baseline), len(candidate))):
        a_name, a_text = baseline[index] if index < len(baseline) else (END, "")
        b_name, b_text = candidate[index] if index < len(candidate) else (END, "")
        if a_name != b_name or a_text != b_text:
            titles = (f"{labels[0]} after {a_name}", f"{labels[1]} after {b_name}")
            return Divergence(index, a_name, b_name, _short_diff((a_text, b_text), titles))
    return None


def _short_diff(texts: tuple[str, str], titles: tuple[str, str]) -> tuple[str, ...]:
    a_lines, b_lines = (text.splitlines() for text in texts)
    lines = _windowed(list(difflib.unified_diff(a_lines, b_lines, *titles, n=1, lineterm="")))
    if len(lines) > DIFF_LINES:
        lines = [*lines[:DIFF_LINES], f"... ({len(lines) - DIFF_LINES} more diff lines)"]
    return tuple(lines)


def _windowed(lines: list[str]) -> list[str]:
    """Long lines cut to DIFF_LINE_CHARS around where a removed line and the added line after it differ.

    A module's attribute line runs to thousands of characters; its change may be anywhere.
    """
    out = list(lines)
    removed: list[int] = []
    for index, line in enumerate(lines):
        if line.startswith("-") and not line.startswith("---"):
            removed.append(index)
        elif line.startswith("+") and not line.startswith("+++") and removed:
            partner = removed.pop(0)
            start = _first_difference(lines[partner][1:], line[1:])
            out[partner], out[index] = _cut(lines[partner], start), _cut(line, start)
        elif not line.startswith("+"):
            removed = []
    return [_cut(line, 0) if len(line) > DIFF_LINE_CHARS else line for line in out]


def _first_difference(a: str, b: str) -> int:
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


def _cut(line: str, start: int) -> str:
    """`line` (its diff marker kept) cut to a window that shows position `start` of its text."""
    if len(line) <= DIFF_LINE_CHARS:
        return line
    begin = max(0, start - DIFF_LINE_CHARS // 4)
    text = line[1 + begin : 1 + begin + DIFF_LINE_CHARS]
    return f"{line[0]}{'...' if begin else ''}{text}{'...' if 1 + begin + DIFF_LINE_CHARS < len(line) else ''}"
