"""The onnx dialect: ONNX operators (opset 18 forms) as the importer produces them.

Ops are printed in generic form with onnx-mlir's spellings, so imported IR reads
like the seed documents:

    %7 = "onnx.Transpose"(%5) <{perm = [0, 2, 1]}> {onnx_node_name = "k_transpose"}
           : (tensor<?x?x64xf32>) -> tensor<?x64x?xf32>

ONNX attributes are properties: `int` -> `IntegerAttr` of `si64`, `ints` ->
`IntsAttr` (printed `[0, 2, 1]`), `float` -> `f32` FloatAttr, `string` -> StringAttr,
`Cast.to` -> the element type itself, `ConstantOfShape.value` -> a dense tensor. An
attribute with an ONNX default is an optional property whose accessor returns the
default when it is absent (MLIR's DefaultValuedAttr). `onnx.Constant` keeps `value`
as a plain attribute, and `onnx_node_name` is a discardable attribute on any op.

Optional ONNX inputs and outputs are always present as operands/results, as in
onnx-mlir: an absent one is a value of type `none` (from `onnx.NoValue`), so no op
needs segment sizes. Variadic inputs and outputs (Concat, Max, Min, Split) are
variadic operands/results.
"""

from xdsl.ir import Dialect

from xhip.dialects.onnx.base import (
    DENSE_CONSTR,
    FLOAT_CONSTR,
    FLOAT_TYPES,
    INT_CONSTR,
    INTS_CONSTR,
    NODE_NAME_ATTR,
    SI64,
    STRING_CONSTR,
    TENSOR,
    TENSOR_OR_NONE,
    BinaryOp,
    Checks,
    CompareOp,
    IntsAttr,
    LogicalBinaryOp,
    OnnxOp,
    ReduceOp,
    UnaryOp,
    VariadicOp,
    element_type,
    float_attr,
    int_attr,
    ints_attr,
    is_none,
    rank,
    str_attr,
)
from xhip.dialects.onnx import ops as _ops
from xhip.dialects.onnx.ops import *  # noqa: F403 -- the op classes, named by ops.__all__
from xhip.dialects.onnx.ops import OPERATORS, EntryPointOp, NoValueOp
from xhip.dialects.onnx.signature import (
    DIM_PARAMS_ATTR,
    NAME_ATTR,
    entry_attributes,
    format_dim_params,
    parse_dim_params,
    shared_symbol_dims,
    value_name,
)

ONNX_OPS: dict[str, type[OnnxOp]] = {op.name.removeprefix("onnx."): op for op in OPERATORS}
"""ONNX op type -> op class, for every ONNX operator the dialect models."""

ONNX = Dialect("onnx", [*ONNX_OPS.values(), NoValueOp, EntryPointOp], [IntsAttr])

__all__ = [
    "BinaryOp",
    "Checks",
    "CompareOp",
    "DENSE_CONSTR",
    "FLOAT_CONSTR",
    "FLOAT_TYPES",
    "INTS_CONSTR",
    "INT_CONSTR",
    "IntsAttr",
    "LogicalBinaryOp",
    "NODE_NAME_ATTR",
    "NAME_ATTR",
    "DIM_PARAMS_ATTR",
    "entry_attributes",
    "format_dim_params",
    "parse_dim_params",
    "shared_symbol_dims",
    "value_name",
    "ONNX",
    "ONNX_OPS",
    "OnnxOp",
    "ReduceOp",
    "SI64",
    "STRING_CONSTR",
    "TENSOR",
    "TENSOR_OR_NONE",
    "UnaryOp",
    "VariadicOp",
    "element_type",
    "float_attr",
    "int_attr",
    "ints_attr",
    "is_none",
    "rank",
    "str_attr",
]
__all__ += _ops.__all__
