"""Erasing a fused-away op together with the definitions only it used."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import tensor
from xdsl.ir import Operation


def erase_with_dead_operands(
    op: Operation, erase: Callable[[Operation], None], kinds: tuple[type[Operation], ...] = (tensor.EmptyOp,)
) -> None:
    """Erases `op` (nothing uses its results any more), then the defining op of each of its
    operands that is one of `kinds` and that nothing else uses: the `tensor.empty` init a
    fused producer wrote (one-shot-bufferize would make it a dead allocation), or a scalar
    constant only it read. `erase` is the caller's: a PatternRewriter's, inside a walk."""
    leftovers = [v.owner for v in op.operands if isinstance(v.owner, kinds)]
    erase(op)
    for leftover in dict.fromkeys(leftovers):
        if leftover.parent is not None and not any(result.uses for result in leftover.results):
            erase(leftover)
