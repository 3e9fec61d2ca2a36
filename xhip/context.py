"""The xDSL context that knows every dialect xhip reads or writes."""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.arith import Arith
from xdsl.dialects.builtin import Builtin
from xdsl.dialects.bufferization import Bufferization
from xdsl.dialects.func import Func
from xdsl.dialects.math import Math
from xdsl.dialects.memref import MemRef
from xdsl.dialects.scf import Scf
from xdsl.dialects.tensor import Tensor

from xhip.dialects import upstream_fixes  # noqa: F401 (installs corrected verifiers)
from xhip.dialects.onnx import shape_checks  # noqa: F401 (installs the onnx verifiers' shape checks)
from xhip.dialects.hip import HIP
from xhip.dialects.onnx import ONNX

DIALECTS = (Builtin, Func, Arith, Math, Tensor, MemRef, Bufferization, Scf, ONNX, HIP)


def make_context(allow_unregistered: bool = False) -> Context:
    """A fresh context with all xhip dialects loaded."""
    ctx = Context(allow_unregistered=allow_unregistered)
    for dialect in DIALECTS:
        ctx.load_dialect(dialect)
    return ctx
