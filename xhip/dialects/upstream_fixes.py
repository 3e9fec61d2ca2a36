"""Corrections to upstream xDSL 0.75 verifiers that reject valid MLIR we produce.

`tensor.reshape` compares `prod(shape)` of source and result even when a dim
is dynamic (`?` is a large negative number there), so a rank-changing reshape
with runtime dims never verifies. MLIR compares element counts only when both
shapes are fully static. Importing this module installs that rule.
"""

from __future__ import annotations

import math

from xdsl.dialects import tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType
from xdsl.utils.exceptions import VerifyException


def _verify_reshape(self: tensor.ReshapeOp) -> None:
    self.get_irdl_definition().verify(self)  # the operand/result constraints the decorator checks
    source, shape, result = self.source.type, self.shape.type, self.result.type
    if not isinstance(source, TensorType) or not isinstance(shape, TensorType):
        raise VerifyException("tensor.reshape needs ranked tensor source and shape operands")
    if source.element_type != result.element_type:
        raise VerifyException("element types of source and result tensor types should be the same")
    if shape.get_num_dims() != 1:
        raise VerifyException("shape tensor must have a rank one")
    shape_length = shape.get_shape()[0]
    result_shape = result.get_shape()
    if shape_length != DYNAMIC_INDEX and shape_length != len(result_shape):
        raise VerifyException(f"shape operand has {shape_length} entries for a rank-{len(result_shape)} result")
    source_shape = source.get_shape()
    if DYNAMIC_INDEX not in (*source_shape, *result_shape) and math.prod(source_shape) != math.prod(result_shape):
        raise VerifyException("source and result tensor should have the same number of elements")


tensor.ReshapeOp.verify_ = _verify_reshape  # type: ignore[method-assign]
