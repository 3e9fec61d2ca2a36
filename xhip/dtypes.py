"""Element types: the NumPy dtype of each MLIR element type, and the dtype families
that the runtime, the kernels and the constant folder run.

One table for every reader: passes (constant folding), the runtime's buffers and the
kernel families all take dtypes from here, so none of them imports another's module
for it."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    Signedness,
)
from xdsl.ir import Attribute

from xhip.diagnostics import XhipError

try:
    import ml_dtypes
    from ml_dtypes import bfloat16 as _bfloat16
except ImportError:  # pragma: no cover
    _bfloat16 = None

FLOAT_DTYPES = frozenset(
    (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64))
    + ((np.dtype(_bfloat16),) if _bfloat16 is not None else ())
)
INT_DTYPES = frozenset(
    np.dtype(t)
    for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)
)
HALF_DTYPES = frozenset(d for d in FLOAT_DTYPES if d.itemsize == 2)
"""float16 and (with ml_dtypes) bfloat16: stored in half precision, computed in float32."""
BOOL_DTYPE = np.dtype(np.bool_)
SUPPORTED_DTYPES = FLOAT_DTYPES | INT_DTYPES | {BOOL_DTYPE}
"""The element types the runtime runs: what `numpy_dtype` can answer."""



def float_info(dtype: np.dtype) -> np.finfo:
    """`np.finfo` of a float dtype, bfloat16 included (NumPy's own takes ml_dtypes' types only
    from ml_dtypes 0.7 on, whose import costs ten times its predecessors': pyproject.toml)."""
    if dtype.name == "bfloat16":
        return ml_dtypes.finfo(dtype)
    return np.finfo(dtype)


def numpy_dtype(element_type: Attribute) -> np.dtype:
    """The NumPy dtype of an MLIR element type (`index` is int64)."""
    if isinstance(element_type, IndexType):
        return np.dtype(np.int64)
    if isinstance(element_type, IntegerType):
        width = element_type.width.data
        if width == 1:
            return np.dtype(np.bool_)
        unsigned = element_type.signedness.data == Signedness.UNSIGNED
        if width in (8, 16, 32, 64):
            return np.dtype(f"{'u' if unsigned else ''}int{width}")
    if isinstance(element_type, Float32Type):
        return np.dtype(np.float32)
    if isinstance(element_type, Float64Type):
        return np.dtype(np.float64)
    if isinstance(element_type, Float16Type):
        return np.dtype(np.float16)
    if isinstance(element_type, BFloat16Type) and _bfloat16 is not None:
        return np.dtype(_bfloat16)
    raise XhipError(f"element type {element_type} has no runtime representation")
