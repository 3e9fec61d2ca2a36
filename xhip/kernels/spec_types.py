"""The vocabulary of kernel specializations, shared by the spec builders
(the family modules of xhip/kernels): element types, operand facts, the
`KernelSpec` itself and the naming and header rules every builder follows."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from xhip.dtypes import BOOL_DTYPE, FLOAT_DTYPES
from xhip.kernels.abi import KernelABI, Param, dims, index, pointer

OpClass = Any
"""A hip op class (xhip/dialects/hip/compute.py), read for its facts: `name`, `TEMPLATE`,
`C_EXPR`, `REDUCE_*`, `MAY_ALIAS_INPUT`, `SHAPE_RULE`. Loosely typed: no IR import here."""

Attributes = Mapping[str, Any]
"""An op's properties as plain Python values (xhip.dialects.hip.properties.Props)."""

# ---- element types ------------------------------------------------------------------


@dataclass(frozen=True)
class CType:
    """How one dtype is spelled in kernels."""

    short: str  # in kernel names
    c: str  # the storage type
    compute: str  # the type arithmetic runs in (half floats widen to float)
    needs: str | None = None  # the macro that pulls in its header


def _ctypes() -> dict[np.dtype, CType]:
    table: dict[np.dtype, CType] = {
        np.dtype(np.float32): CType("f32", "float", "float"),
        np.dtype(np.float64): CType("f64", "double", "double"),
        np.dtype(np.float16): CType("f16", "__half", "float", "XHIP_NEEDS_FP16"),
        BOOL_DTYPE: CType("b1", "bool", "bool"),
    }
    for bits, c in ((8, "signed char"), (16, "short"), (32, "int"), (64, "long long")):
        table[np.dtype(f"int{bits}")] = CType(f"i{bits}", c, c)
        unsigned = f"unsigned {c.removeprefix('signed ')}"
        table[np.dtype(f"uint{bits}")] = CType(f"u{bits}", unsigned, unsigned)
    floats: frozenset[np.dtype] = FLOAT_DTYPES  # type: ignore[assignment]
    for dtype in floats:
        if dtype.name == "bfloat16":  # present when ml_dtypes is
            table[dtype] = CType("bf16", "xhip_bfloat16", "float", "XHIP_NEEDS_BF16")
    return table


CTYPES: dict[np.dtype, CType] = _ctypes()

UNSIGNED_OF_SIZE = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int", 8: "unsigned long long"}
"""Movement kernels copy bits: one kernel per element size serves every dtype."""


def ctype(dtype: np.dtype) -> CType:
    found = CTYPES.get(np.dtype(dtype))
    if found is None:
        raise ValueError(f"no kernel type for dtype {dtype}")
    return found


# ---- operand facts ----------------------------------------------------------------------

Shape = tuple[int | None, ...]


@dataclass(frozen=True)
class Operand:
    """What is known of one operand: dtype, extents (None = known only at run time) and
    whether it is laid out contiguously (row-major, no gaps)."""

    dtype: np.dtype
    shape: Shape
    contiguous: bool

    @property
    def rank(self) -> int:
        return len(self.shape)

    @staticmethod
    def at_launch(dtype: np.dtype, shape: Sequence[int], strides: Sequence[int]) -> Operand:
        expected, contiguous = 1, True
        for extent, stride in zip(reversed(shape), reversed(strides)):
            contiguous &= extent == 1 or stride == expected
            expected *= extent
        return Operand(np.dtype(dtype), tuple(int(d) for d in shape), contiguous)


@dataclass(frozen=True)
class KernelSpec:
    """One specialization: render `templates/<family>.hip.j2` with `context`."""

    family: str
    abi: KernelABI
    context: tuple[tuple[str, object], ...] = field(default=())
    needs: tuple[str, ...] = ()
    """Header macros (XHIP_NEEDS_FP16, ...) the kernel's types need."""

    @property
    def name(self) -> str:
        return self.abi.name

    def variables(self) -> dict[str, object]:
        return {"abi": self.abi, "name": self.name, **dict(self.context)}


def header_needs(*dtypes: np.dtype) -> tuple[str, ...]:
    return tuple(sorted({n for d in dtypes if (n := ctype(d).needs)}))


def pairs(axes: int | Sequence[int], entries: Sequence[int] | None = None) -> tuple[tuple[int, int], ...]:
    """(index axis, stride entry) pairs for the templates' offsets macro: `axes` (or
    range(axes)) with their own entries unless `entries` says otherwise."""
    axes = range(axes) if isinstance(axes, int) else axes
    return tuple(zip(axes, axes if entries is None else entries))


def kernel_name(*parts: object) -> str:
    return "xhip_" + "_".join(str(p) for p in parts if p != "")


def row_params(picked: str, folded: str, picked_rank: int, folded_rank: int, length: str, c: CType, *, y_folded: bool) -> list[Param]:
    """The ABI head shared by row and reduction kernels: the `picked` dims choose a row
    (one per block), the `folded` dims (`length` elements) make it; x strides for both,
    y strides for both (rows) or only for the picked dims (reductions)."""
    params = [
        index("rows"), dims(f"{picked}_extents", picked_rank), dims(f"{folded}_extents", folded_rank), index(length),
        pointer("x", c.c), dims(f"x_{picked}_strides", picked_rank), dims(f"x_{folded}_strides", folded_rank),
        pointer("y", c.c, const=False), dims(f"y_{picked}_strides", picked_rank),
    ]  # fmt: skip
    return params + [dims(f"y_{folded}_strides", folded_rank)] if y_folded else params


def render_chain_expr(expr: str, args: Sequence[str]) -> str:
    """`expr` with `{a}`, `{b}`, `{c}` replaced by the C variables `args`."""
    for letter, arg in zip("abc", args):
        expr = expr.replace(f"{{{letter}}}", arg)
    return expr
