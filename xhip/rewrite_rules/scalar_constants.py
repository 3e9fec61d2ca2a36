"""Scalar constants as the fusion passes read them: one float that broadcasts nothing, or
one value that every element of a (broadcast) constant holds."""

from __future__ import annotations

import math

from xdsl.dialects import arith, builtin
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr
from xdsl.ir import SSAValue

from xhip.dialects.hip import ExpandOp


def unit_float_constant(value: SSAValue) -> float | None:
    """The float of an `arith.constant` tensor with one element and only unit extents
    (rank 0, [1], [1, 1]: multiplying by it changes no shape); None for anything else."""
    owner = value.owner
    if not isinstance(owner, arith.ConstantOp) or not isinstance(owner.value, DenseIntOrFPElementsAttr):
        return None
    if not isinstance(owner.value.get_element_type(), builtin.AnyFloat):
        return None
    if any(extent != 1 for extent in owner.value.get_shape()):
        return None
    values = owner.value.get_values()
    return float(values[0]) if len(values) == 1 else None


UNIFORM_CHECK_LIMIT = 1 << 16
"""The most elements `uniform_constant` compares (a mask constant has a few hundred; a
weight is never uniform and need not be read)."""


def uniform_constant(value: SSAValue) -> float | None:
    """The one value every element of `value` holds, when it is an `arith.constant` whose
    elements are all equal, or a `hip.expand` (a broadcast) of one; None for anything else.
    An i1 element reads 1.0 for true (xDSL keeps it as -1) and 0.0 for false."""
    owner = value.owner
    while isinstance(owner, ExpandOp):
        owner = owner.inputs[0].owner
    if not isinstance(owner, arith.ConstantOp) or not isinstance(owner.value, DenseIntOrFPElementsAttr):
        return None
    if not 0 < math.prod(owner.value.get_shape()) <= UNIFORM_CHECK_LIMIT:  # before reading any element
        return None
    values = owner.value.get_values()
    if values.count(values[0]) != len(values):
        return None
    if owner.value.get_element_type() == builtin.i1:
        return float(values[0] != 0)
    return float(values[0])
