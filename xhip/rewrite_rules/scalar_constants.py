"""Scalar constants as the fusion passes read them: one float that broadcasts nothing."""

from __future__ import annotations

from xdsl.dialects import arith, builtin
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr
from xdsl.ir import SSAValue


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
