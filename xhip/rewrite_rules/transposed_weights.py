"""Weights that MatMul and Gemm read transposed, instead of a transposed copy of them.

A tied lm_head computes `MatMul(h, Transpose(wte))`: folding that Transpose
makes a second copy of the embedding (154 MB for GPT-2 124M, to evaluate, hash
and write into the constants file), and leaving it an op transposes the weight
on every call. Neither is needed: `hip.matmul {trans_b}` and `hip.gemm
{trans_a, trans_b}` read their operand transposed (the kernels take row and
column strides, BLAS an op flag). So a Transpose of a constant that swaps the
last two dims is read through by the operands below: onnx-fold-constants leaves
it alone when every user reads through it, and convert-onnx-to-hip hands those
users the constant itself with the flag set.

Here only Transposes of constants are read through, at the ONNX level. A
Transpose of a computed value (attention's Kᵀ) is read through later, on hip
ops, by hip-fold-transpose-into-matmul, which shares `is_last_two_swap`.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Operation, SSAValue, Use

from xhip.dialects.onnx import ConstantOp, TransposeOp

TRANSPOSED_READERS: dict[str, tuple[int, ...]] = {"onnx.MatMul": (1,), "onnx.Gemm": (0, 1)}
"""The operands (by index) that the op's hip form can read transposed: MatMul's B, Gemm's A and B."""


def is_last_two_swap(perm: Sequence[int] | None, rank: int | None) -> bool:
    """Whether the permutation `perm` of `rank` dims keeps every dim but the last two,
    which it swaps; `None` reverses every dim (ONNX's default)."""
    if rank is None or rank < 2:
        return False
    perm = list(perm) if perm is not None else list(reversed(range(rank)))
    return perm == [*range(rank - 2), rank - 1, rank - 2]


def swaps_last_two(op: TransposeOp) -> bool:
    """Whether `op` keeps every dim but the last two, which it swaps."""
    return is_last_two_swap(op.perm.data if op.perm is not None else None, _rank(op.data))


def transposed_constant(value: SSAValue) -> SSAValue | None:
    """The constant W when `value` is `Transpose(W)` of an `onnx.Constant` that swaps its last two dims."""
    owner = value.owner
    if isinstance(owner, TransposeOp) and isinstance(owner.data.owner, ConstantOp) and swaps_last_two(owner):
        return owner.data
    return None


def reads_transposed(use: Use) -> bool:
    """Whether the user reads this operand through a transposed-read flag (see TRANSPOSED_READERS)."""
    return use.index in TRANSPOSED_READERS.get(use.operation.name, ())


def read_through(op: Operation) -> bool:
    """Whether every user of `op` (a Transpose of a constant) reads the constant transposed instead."""
    if not isinstance(op, TransposeOp) or transposed_constant(op.transposed) is None:
        return False
    uses = list(op.transposed.uses)
    return bool(uses) and all(reads_transposed(use) for use in uses)


def _rank(value: SSAValue) -> int | None:
    shape = getattr(value.type, "get_shape", None)
    return len(shape()) if shape is not None else None
