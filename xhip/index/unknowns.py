"""An index emitter that builds no ops, for verifiers that compare static dims only.

Shape rules (`xhip.shapes`) take an `IndexEmitter`; a verifier asks them with this one,
every runtime dim an unknown, and compares what they decide statically with the types.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType
from xdsl.ir import Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint

from xhip.index.emitter import Dim, IndexEmitter


class UnknownsEmitter(IndexEmitter):
    """Folds static dims exactly like `IndexEmitter`, but builds no ops.

    Each runtime expression becomes a fresh unknown (an `index` argument of a detached
    block), deduplicated like the ops it stands for. The verifier compares static dims
    only, and constructing the discarded `arith` ops would be most of its cost.
    """

    def __init__(self) -> None:
        self._scratch = Block()
        super().__init__(InsertPoint.at_end(self._scratch))
        self._dims: dict[tuple[SSAValue, int], SSAValue] = {}

    def operand_dims(self, value: SSAValue) -> list[Dim]:
        """A shaped value's dims from its type, each `?` an unknown of its own (one per value
        and axis, the same on every call)."""
        shape = value.type.get_shape()  # type: ignore[attr-defined]  # a tensor or memref
        return [self._dims.setdefault((value, axis), self.unknown()) if d == DYNAMIC_INDEX else d for axis, d in enumerate(shape)]

    def unknown(self) -> SSAValue:
        return self._scratch.insert_arg(IndexType(), len(self._scratch.args))

    def constant(self, value: int) -> SSAValue:
        if value not in self._constants:
            self._constants[value] = self.unknown()
        return self._constants[value]

    def _create(
        self, op_type: Callable[..., Operation], *operands: Dim, extent: bool = False, **kw: object
    ) -> SSAValue:
        key = (op_type, *(self.materialize(d) for d in operands), *sorted(kw.items()))
        if key not in self._created:
            self._created[key] = self.unknown()
            if extent:
                self._extents.add(self._created[key])
        return self._created[key]


def contradicts(declared: Sequence[int], computed: Sequence[Dim]) -> bool:
    """Whether a static out shape disagrees with the rule where both are static."""
    if len(declared) != len(computed):
        return True
    return any(
        isinstance(c, int) and d != DYNAMIC_INDEX and d != c for d, c in zip(declared, computed)
    )


def format_declared(shape: Sequence[int]) -> str:
    return "[" + ", ".join("?" if d == DYNAMIC_INDEX else str(d) for d in shape) + "]"
