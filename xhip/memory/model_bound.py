"""The model's own memory bounds: what any plan of its intermediates must hold at once.

`ModelBuffers` is every transient intermediate of a function as the model has it,
before any reuse pass: each its own buffer, its byte size a `SizeExpr` over named
dims (the ONNX symbols `batch`, `seq`, ... or an SSA name such as `%load`), live
from its producer to its last consumer. `in_place[i] = j` says buffer i may be
written over buffer j: its producer may alias its input (MAY_ALIAS_INPUT), j has
the same type and size and dies at that producer.

`bounds` evaluates, at a run's dims, the max-live bound of the model (`lower`) and
the bound when every such write is done in place (`in_place`): with j and i one
buffer, the two sizes stop counting twice where i is written.

Sizes are stored as their printed form and read back with `parse_size`, which
keys each dim by its printed name, so a runtime binds them by symbol.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from xhip.memory.buffers import Buffer
from xhip.memory.layout import lower_bound
from xhip.memory.size_expr import SizeExpr


@dataclass(frozen=True)
class HonestBounds:
    """The model's max-live bound and the bound with in-place writes, in bytes."""

    lower: int
    in_place: int


@dataclass(frozen=True)
class ModelBuffers:
    """A function's intermediates, each its own buffer (program order)."""

    sizes: tuple[SizeExpr, ...]
    intervals: tuple[tuple[int, int], ...]
    in_place: tuple[int, ...]
    """Per buffer, the index of the earlier buffer it may overwrite, or -1."""

    def __post_init__(self):
        if not len(self.sizes) == len(self.intervals) == len(self.in_place):
            raise ValueError("model buffers: sizes, intervals and in-place lists differ in length")
        for index, target in enumerate(self.in_place):
            if not -1 <= target < index:
                raise ValueError(f"model buffer {index}: in-place target {target} is not an earlier buffer")

    def buffers(self) -> list[Buffer]:
        """Each intermediate its own buffer."""
        return [Buffer(i, size, first, last) for i, (size, (first, last)) in enumerate(zip(self.sizes, self.intervals))]

    def in_place_buffers(self) -> list[Buffer]:
        """Each chain of in-place writes one buffer, live over the union of its members."""
        owner = list(range(len(self.sizes)))
        for index, target in enumerate(self.in_place):
            if target >= 0:
                owner[index] = owner[target]
        merged: dict[int, Buffer] = {}
        for index, buffer in enumerate(self.buffers()):  # buffer #index has id `index`
            root = owner[index]
            held = merged.get(root)
            if held is None:
                merged[root] = Buffer(root, buffer.size, buffer.first, buffer.last)
            else:
                merged[root] = Buffer(
                    root, held.size.max(buffer.size), min(held.first, buffer.first), max(held.last, buffer.last)
                )
        return list(merged.values())

    def bounds(self, dims: Mapping[str, int], alignment: int) -> HonestBounds | None:
        """Both bounds at `dims` (dim name -> extent); None if a size needs a dim not given."""
        if any(not size.dims <= dims.keys() for size in self.sizes):
            return None
        return HonestBounds(
            lower_bound(self.buffers(), dims, alignment), lower_bound(self.in_place_buffers(), dims, alignment)
        )


# -- sizes as text ---------------------------------------------------------------------------

_TOKEN = re.compile(r"\s*(max\(|align_up\(|\d+|[^\s+*^(),]+|[+*^(),])")


class _SizeParser:
    """Reads `SizeExpr.__str__` back: sums of `*`-products of ints, names (with `^n`),
    `max(a, b, ...)` and `align_up(a, n)`."""

    def __init__(self, text: str):
        self.text = text
        self.tokens: list[str] = []
        position = 0
        while position < len(text.rstrip()):
            match = _TOKEN.match(text, position)
            if match is None:
                raise ValueError(f"bad size expression {text!r} at {position}")
            self.tokens.append(match.group(1))
            position = match.end()
        self.next = 0

    def peek(self) -> str | None:
        return self.tokens[self.next] if self.next < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None or (expected is not None and token != expected):
            raise ValueError(f"bad size expression {self.text!r}: expected {expected or 'more'}, got {token!r}")
        self.next += 1
        return token

    def expr(self) -> SizeExpr:
        total = self.term()
        while self.peek() == "+":
            self.take()
            total = total + self.term()
        return total

    def term(self) -> SizeExpr:
        product = self.power()
        while self.peek() == "*":
            self.take()
            product = product * self.power()
        return product

    def power(self) -> SizeExpr:
        base = self.factor()
        if self.peek() != "^":
            return base
        self.take()
        result = SizeExpr.const(1)
        for _ in range(int(self.take())):
            result = result * base
        return result

    def factor(self) -> SizeExpr:
        token = self.take()
        if token.isdigit():
            return SizeExpr.const(int(token))
        if token == "max(":
            args = [self.expr()]
            while self.peek() == ",":
                self.take()
                args.append(self.expr())
            self.take(")")
            return SizeExpr.max_of(args)
        if token == "align_up(":
            arg = self.expr()
            self.take(",")
            alignment = int(self.take())
            self.take(")")
            return arg.align_up(alignment)
        if token in "+*^(),":
            raise ValueError(f"bad size expression {self.text!r}: unexpected {token!r}")
        return SizeExpr.dim(token, token)


def parse_size(text: str) -> SizeExpr:
    """A printed `SizeExpr`, its dims keyed by their names."""
    parser = _SizeParser(text)
    expr = parser.expr()
    if parser.peek() is not None:
        raise ValueError(f"bad size expression {text!r}: trailing {parser.peek()!r}")
    return expr


def model_buffers_from_text(
    sizes: Sequence[str], intervals: Sequence[tuple[int, int]], in_place: Sequence[int]
) -> ModelBuffers:
    return ModelBuffers(tuple(parse_size(s) for s in sizes), tuple(intervals), tuple(in_place))
