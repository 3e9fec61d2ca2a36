"""The ONNX operators xhip imports, one class each (opset 18 forms)."""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import (
    AnyFloat,
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    IntegerType,
    ModuleOp,
    NoneType,
    SymbolRefAttr,
    TensorType,
    UnitAttr,
    f32,
)
from xdsl.ir import (
    Operation,
    TypeAttribute,
)
from xdsl.irdl import (
    BaseAttr,
    IRDLOperation,
    attr_def,
    irdl_op_definition,
    operand_def,
    opt_attr_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import (
    ConstantLike,
    EffectInstance,
    HasParent,
    MemoryEffect,
    MemoryEffectKind,
    Pure,
    SymbolTable,
)
from xdsl.utils.exceptions import VerifyException

from xhip.dialects.onnx.base import (
    DENSE_CONSTR,
    TENSOR,
    TENSOR_OR_NONE,
    BinaryOp,
    Checks,
    CompareOp,
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


@irdl_op_definition
class AddOp(BinaryOp):
    name = "onnx.Add"


@irdl_op_definition
class SubOp(BinaryOp):
    name = "onnx.Sub"


@irdl_op_definition
class MulOp(BinaryOp):
    name = "onnx.Mul"


@irdl_op_definition
class DivOp(BinaryOp):
    name = "onnx.Div"


@irdl_op_definition
class AndOp(LogicalBinaryOp):
    name = "onnx.And"


@irdl_op_definition
class OrOp(LogicalBinaryOp):
    name = "onnx.Or"


@irdl_op_definition
class EqualOp(CompareOp):
    name = "onnx.Equal"


@irdl_op_definition
class LessOp(CompareOp):
    name = "onnx.Less"


@irdl_op_definition
class GreaterOp(CompareOp):
    name = "onnx.Greater"


@irdl_op_definition
class LessOrEqualOp(CompareOp):
    name = "onnx.LessOrEqual"


@irdl_op_definition
class GreaterOrEqualOp(CompareOp):
    name = "onnx.GreaterOrEqual"


@irdl_op_definition
class PowOp(OnnxOp):
    """X ^ Y; the exponent may have another numeric type (T1)."""

    name = "onnx.Pow"
    x = operand_def(TENSOR)
    y = operand_def(TENSOR)
    z = result_def(TENSOR)
    CHECKS: ClassVar = Checks(same=("x", "z"))


@irdl_op_definition
class MaxOp(VariadicOp):
    name = "onnx.Max"


@irdl_op_definition
class MinOp(VariadicOp):
    name = "onnx.Min"


@irdl_op_definition
class ReluOp(UnaryOp):
    name = "onnx.Relu"


@irdl_op_definition
class SigmoidOp(UnaryOp):
    name = "onnx.Sigmoid"


@irdl_op_definition
class TanhOp(UnaryOp):
    name = "onnx.Tanh"


@irdl_op_definition
class ErfOp(UnaryOp):
    name = "onnx.Erf"


@irdl_op_definition
class SqrtOp(UnaryOp):
    name = "onnx.Sqrt"


@irdl_op_definition
class ExpOp(UnaryOp):
    name = "onnx.Exp"


@irdl_op_definition
class SinOp(UnaryOp):
    name = "onnx.Sin"


@irdl_op_definition
class CosOp(UnaryOp):
    name = "onnx.Cos"


@irdl_op_definition
class LogOp(UnaryOp):
    name = "onnx.Log"


@irdl_op_definition
class NegOp(UnaryOp):
    name = "onnx.Neg"


@irdl_op_definition
class AbsOp(UnaryOp):
    name = "onnx.Abs"


@irdl_op_definition
class ReciprocalOp(UnaryOp):
    name = "onnx.Reciprocal"


@irdl_op_definition
class SignOp(UnaryOp):
    name = "onnx.Sign"


class RoundingOp(UnaryOp):
    """Ceil, Floor, Round: float in, the same float out."""

    CHECKS: ClassVar = Checks(same=("x", "y"), floats=("x",))


@irdl_op_definition
class CeilOp(RoundingOp):
    name = "onnx.Ceil"


@irdl_op_definition
class FloorOp(RoundingOp):
    name = "onnx.Floor"


@irdl_op_definition
class RoundOp(RoundingOp):
    name = "onnx.Round"


@irdl_op_definition
class NotOp(UnaryOp):
    name = "onnx.Not"
    CHECKS: ClassVar = Checks(bools=("x", "y"))


@irdl_op_definition
class IsNaNOp(UnaryOp):
    name = "onnx.IsNaN"
    CHECKS: ClassVar = Checks(floats=("x",), bools=("y",))


@irdl_op_definition
class IdentityOp(UnaryOp):
    name = "onnx.Identity"


@irdl_op_definition
class GeluOp(UnaryOp):
    name = "onnx.Gelu"
    approximate = str_attr("none")

    def verify_(self) -> None:
        super().verify_()
        if self.approximate.data not in ("none", "tanh"):
            raise VerifyException(f"onnx.Gelu: approximate must be \"none\" or \"tanh\", got \"{self.approximate.data}\"")


@irdl_op_definition
class ReduceMeanOp(ReduceOp):
    name = "onnx.ReduceMean"


@irdl_op_definition
class ReduceSumOp(ReduceOp):
    name = "onnx.ReduceSum"


@irdl_op_definition
class ReduceMaxOp(ReduceOp):
    name = "onnx.ReduceMax"


@irdl_op_definition
class ReduceMinOp(ReduceOp):
    name = "onnx.ReduceMin"


@irdl_op_definition
class ReduceProdOp(ReduceOp):
    name = "onnx.ReduceProd"


@irdl_op_definition
class ReduceL1Op(ReduceOp):
    name = "onnx.ReduceL1"


@irdl_op_definition
class ReduceL2Op(ReduceOp):
    name = "onnx.ReduceL2"


@irdl_op_definition
class ReduceSumSquareOp(ReduceOp):
    name = "onnx.ReduceSumSquare"


@irdl_op_definition
class ReduceLogSumExpOp(ReduceOp):
    name = "onnx.ReduceLogSumExp"


class ArgReduceOp(OnnxOp):
    """data -> the int64 index of its max (min) along `axis`."""

    data = operand_def(TENSOR)
    reduced = result_def(TENSOR)
    axis = int_attr(0)
    keepdims = int_attr(1)
    select_last_index = int_attr(0)
    CHECKS: ClassVar = Checks(int64=("reduced",), flags=("keepdims", "select_last_index"))


@irdl_op_definition
class ArgMaxOp(ArgReduceOp):
    name = "onnx.ArgMax"


@irdl_op_definition
class ArgMinOp(ArgReduceOp):
    name = "onnx.ArgMin"


@irdl_op_definition
class CumSumOp(OnnxOp):
    """Running sums of `x` along the dim named by the scalar `axis` input."""

    name = "onnx.CumSum"
    x = operand_def(TENSOR)
    axis = operand_def(TENSOR)
    y = result_def(TENSOR)
    exclusive = int_attr(0)
    reverse = int_attr(0)
    CHECKS: ClassVar = Checks(same=("x", "y"), index=("axis",), flags=("exclusive", "reverse"))

    def verify_(self) -> None:
        super().verify_()
        # ONNX asks for a 0-D axis; onnxruntime also takes a one-element vector.
        axis_type = self.axis.type
        if isinstance(axis_type, TensorType) and axis_type.get_shape() not in ((), (1,)):
            raise VerifyException(f"onnx.CumSum: 'axis' must be a scalar, got {axis_type}")


@irdl_op_definition
class WhereOp(OnnxOp):
    name = "onnx.Where"
    condition = operand_def(TENSOR)
    x = operand_def(TENSOR)
    y = operand_def(TENSOR)
    output = result_def(TENSOR)
    CHECKS: ClassVar = Checks(same=("x", "y", "output"), bools=("condition",))


@irdl_op_definition
class PadOp(OnnxOp):
    """data padded by `pads` (int64: the begins, then the ends, of every dim or of `axes`),
    filled per `mode` ("constant" with the scalar constant_value, 0 without)."""

    name = "onnx.Pad"
    data = operand_def(TENSOR)
    pads = operand_def(TENSOR)
    constant_value = operand_def(TENSOR_OR_NONE)
    axes = operand_def(TENSOR_OR_NONE)
    output = result_def(TENSOR)
    mode = str_attr("constant")
    CHECKS: ClassVar = Checks(same=("data", "constant_value", "output"), int64=("pads",))


@irdl_op_definition
class TileOp(OnnxOp):
    """input repeated `repeats[i]` times along each dim i (repeats: int64, one per dim)."""

    name = "onnx.Tile"
    input = operand_def(TENSOR)
    repeats = operand_def(TENSOR)
    output = result_def(TENSOR)
    CHECKS: ClassVar = Checks(same=("input", "output"), int64=("repeats",))


@irdl_op_definition
class ClipOp(OnnxOp):
    """input clamped to [min, max], each bound an optional scalar input (opset 11 on)."""

    name = "onnx.Clip"
    input = operand_def(TENSOR)
    min = operand_def(TENSOR_OR_NONE)
    max = operand_def(TENSOR_OR_NONE)
    output = result_def(TENSOR)
    CHECKS: ClassVar = Checks(same=("input", "min", "max", "output"))


@irdl_op_definition
class CastOp(OnnxOp):
    """Element type conversion; `to` is the target element type (`to = f32`)."""

    name = "onnx.Cast"
    input = operand_def(TENSOR)
    output = result_def(TENSOR)
    to = prop_def(BaseAttr(TypeAttribute))
    saturate = int_attr(1)
    CHECKS: ClassVar = Checks(flags=("saturate",))

    def verify_(self) -> None:
        super().verify_()
        if not isinstance(self.to, IntegerType | AnyFloat):
            raise VerifyException(f"onnx.Cast: 'to' must be an integer or float type, got {self.to}")
        if element_type(self.output) != self.to:
            raise VerifyException(f"onnx.Cast: result element type {element_type(self.output)} is not 'to' ({self.to})")


# Linear algebra and normalization


@irdl_op_definition
class MatMulOp(OnnxOp):
    name = "onnx.MatMul"
    a = operand_def(TENSOR)
    b = operand_def(TENSOR)
    y = result_def(TENSOR)
    CHECKS: ClassVar = Checks(same=("a", "b", "y"))


@irdl_op_definition
class GemmOp(OnnxOp):
    """Y = alpha * A' @ B' + beta * C, C optional and broadcast to [M, N]."""

    name = "onnx.Gemm"
    a = operand_def(TENSOR)
    b = operand_def(TENSOR)
    c = operand_def(TENSOR_OR_NONE)
    y = result_def(TENSOR)
    alpha = float_attr(1.0)
    beta = float_attr(1.0)
    trans_a = int_attr(0, prop_name="transA")
    trans_b = int_attr(0, prop_name="transB")
    CHECKS: ClassVar = Checks(same=("a", "b", "c", "y"), flags=("transA", "transB"))

    def verify_(self) -> None:
        super().verify_()
        for field in ("a", "b"):
            if (r := rank(getattr(self, field))) not in (None, 2):
                raise VerifyException(f"onnx.Gemm: '{field}' must be rank 2, got rank {r}")


@irdl_op_definition
class SoftmaxOp(OnnxOp):
    name = "onnx.Softmax"
    input = operand_def(TENSOR)
    output = result_def(TENSOR)
    axis = int_attr(-1)
    CHECKS: ClassVar = Checks(same=("input", "output"), axis="input")


@irdl_op_definition
class BatchNormalizationOp(OnnxOp):
    """Inference form: y = (x - mean) / sqrt(var + epsilon) * scale + b over channel dim 1;
    the running statistics outputs exist only with `training_mode`."""

    name = "onnx.BatchNormalization"
    x = operand_def(TENSOR)
    scale = operand_def(TENSOR)
    b = operand_def(TENSOR)
    input_mean = operand_def(TENSOR)
    input_var = operand_def(TENSOR)
    y = result_def(TENSOR)
    running_mean = result_def(TENSOR_OR_NONE)
    running_var = result_def(TENSOR_OR_NONE)
    epsilon = float_attr(1e-5)
    momentum = float_attr(0.9)
    training_mode = int_attr(0)
    CHECKS: ClassVar = Checks(same=("x", "y"), floats=("x",), flags=("training_mode",))


@irdl_op_definition
class InstanceNormalizationOp(OnnxOp):
    """y = (x - mean) / sqrt(var + epsilon) * scale + b, the statistics per (batch, channel)
    over the spatial dims [2, rank), scale and b per channel."""

    name = "onnx.InstanceNormalization"
    input = operand_def(TENSOR)
    scale = operand_def(TENSOR)
    b = operand_def(TENSOR)
    output = result_def(TENSOR)
    epsilon = float_attr(1e-5)
    CHECKS: ClassVar = Checks(same=("input", "scale", "b", "output"), floats=("input",))


@irdl_op_definition
class GroupNormalizationOp(OnnxOp):
    """The channels in `num_groups` groups, each normalized over its channels and the
    spatial dims; scale and b per channel (opset 21; per group in opset 18)."""

    name = "onnx.GroupNormalization"
    x = operand_def(TENSOR)
    scale = operand_def(TENSOR)
    bias = operand_def(TENSOR)
    y = result_def(TENSOR)
    epsilon = float_attr(1e-5)
    num_groups = int_attr(required=True)
    stash_type = int_attr(1)
    CHECKS: ClassVar = Checks(same=("x", "scale", "bias", "y"), floats=("x",))


class GlobalPoolOp(OnnxOp):
    """x [N, C, D1, ..] -> [N, C, 1, ..]: the mean (max) over the spatial dims."""

    x = operand_def(TENSOR)
    y = result_def(TENSOR)
    CHECKS: ClassVar = Checks(same=("x", "y"), floats=("x",))


class WindowOp(OnnxOp):
    """The windows of pooling and convolution over x [N, C, D1, ..]: `strides` apart, their
    taps `dilations` apart, over x padded by `pads` (every spatial dim's begin, then every
    end) or by `auto_pad`. (Each op declares its own operands and results: xDSL orders a
    subclass's fields before its base's.)"""

    auto_pad = str_attr("NOTSET")
    dilations = ints_attr()
    pads = ints_attr()
    strides = ints_attr()


class WindowPoolOp(WindowOp):
    """y [N, C, O1, ..]: the max (mean) of each `kernel_shape` window; `ceil_mode` rounds the
    output extents up."""

    ceil_mode = int_attr(0)
    kernel_shape = ints_attr(required=True)


@irdl_op_definition
class MaxPoolOp(WindowPoolOp):
    """The window max; the optional Indices output is not supported (the converter says so)."""

    name = "onnx.MaxPool"
    x = operand_def(TENSOR)
    y = result_def(TENSOR)
    indices = result_def(TENSOR_OR_NONE)
    storage_order = int_attr(0)
    CHECKS: ClassVar = Checks(same=("x", "y"), flags=("ceil_mode", "storage_order"))


@irdl_op_definition
class AveragePoolOp(WindowPoolOp):
    """The window mean: over the taps inside x, or with `count_include_pad` inside the padding too."""

    name = "onnx.AveragePool"
    x = operand_def(TENSOR)
    y = result_def(TENSOR)
    count_include_pad = int_attr(0)
    CHECKS: ClassVar = Checks(same=("x", "y"), floats=("x",), flags=("ceil_mode", "count_include_pad"))


@irdl_op_definition
class LpPoolOp(WindowPoolOp):
    """The window's p-norm: (sum over the taps inside x of |x|^p)^(1/p)."""

    name = "onnx.LpPool"
    x = operand_def(TENSOR)
    y = result_def(TENSOR)
    p = int_attr(2)
    CHECKS: ClassVar = Checks(same=("x", "y"), floats=("x",), flags=("ceil_mode",))


@irdl_op_definition
class ConvOp(WindowOp):
    """Y [N, M, O1, ..] = the correlation of X [N, C, D1, ..] with W [M, C / group, K1, ..]
    over the windows of pooling (no ceil_mode), each of the `group` channel groups with
    its own filters, plus the optional bias B [M]; kernel_shape, when given, repeats W's."""

    name = "onnx.Conv"
    x = operand_def(TENSOR)
    w = operand_def(TENSOR)
    b = operand_def(TENSOR_OR_NONE)
    y = result_def(TENSOR)
    kernel_shape = ints_attr()
    group = int_attr(1)
    CHECKS: ClassVar = Checks(same=("x", "w", "b", "y"), floats=("x",))


@irdl_op_definition
class ConvTransposeOp(WindowOp):
    """Y [N, M, O1, ..]: Conv's transpose, X [N, C, D1, ..] spread through W [C, M / group,
    K1, ..] (each input element adds its products to the window it maps to, `strides`
    apart), cropped by `pads`, grown by `output_padding` at the end, or sized `output_shape`;
    plus the optional bias B [M]."""

    name = "onnx.ConvTranspose"
    x = operand_def(TENSOR)
    w = operand_def(TENSOR)
    b = operand_def(TENSOR_OR_NONE)
    y = result_def(TENSOR)
    kernel_shape = ints_attr()
    group = int_attr(1)
    output_padding = ints_attr()
    output_shape = ints_attr()
    CHECKS: ClassVar = Checks(same=("x", "w", "b", "y"), floats=("x",))


@irdl_op_definition
class ResizeOp(OnnxOp):
    """X resized along every dim (or `axes`) to `sizes`, or by `scales` (floor(extent *
    scale)); each output coordinate maps back to X through `coordinate_transformation_mode`
    and takes the nearest element (`nearest_mode`), or the linear or cubic interpolation
    of its neighbours (`roi` crops for tf_crop_and_resize)."""

    name = "onnx.Resize"
    x = operand_def(TENSOR)
    roi = operand_def(TENSOR_OR_NONE)
    scales = operand_def(TENSOR_OR_NONE)
    sizes = operand_def(TENSOR_OR_NONE)
    y = result_def(TENSOR)
    antialias = int_attr(0)
    axes = ints_attr()
    coordinate_transformation_mode = str_attr("half_pixel")
    cubic_coeff_a = float_attr(-0.75)
    exclude_outside = int_attr(0)
    extrapolation_value = float_attr(0.0)
    keep_aspect_ratio_policy = str_attr("stretch")
    mode = str_attr("nearest")
    nearest_mode = str_attr("round_prefer_floor")
    CHECKS: ClassVar = Checks(same=("x", "y"), floats=("scales",), int64=("sizes",), flags=("antialias", "exclude_outside"))


@irdl_op_definition
class GlobalAveragePoolOp(GlobalPoolOp):
    name = "onnx.GlobalAveragePool"


@irdl_op_definition
class GlobalMaxPoolOp(GlobalPoolOp):
    name = "onnx.GlobalMaxPool"


@irdl_op_definition
class LayerNormalizationOp(OnnxOp):
    """Normalizes over dims [axis, rank); Mean and InvStdDev are optional outputs."""

    name = "onnx.LayerNormalization"
    x = operand_def(TENSOR)
    scale = operand_def(TENSOR)
    b = operand_def(TENSOR_OR_NONE)
    y = result_def(TENSOR)
    mean = result_def(TENSOR_OR_NONE)
    inv_std_dev = result_def(TENSOR_OR_NONE)
    axis = int_attr(-1)
    epsilon = float_attr(1e-5)
    stash_type = int_attr(1)
    CHECKS: ClassVar = Checks(same=("x", "scale", "b", "y"), axis="x")


# Data movement and shapes


@irdl_op_definition
class TransposeOp(OnnxOp):
    name = "onnx.Transpose"
    data = operand_def(TENSOR)
    transposed = result_def(TENSOR)
    perm = ints_attr()
    CHECKS: ClassVar = Checks(same=("data", "transposed"))

    def verify_(self) -> None:
        super().verify_()
        r = rank(self.data)
        if self.perm is not None and r is not None and sorted(self.perm.data) != list(range(r)):
            raise VerifyException(f"onnx.Transpose: perm {list(self.perm.data)} is not a permutation of 0..{r - 1}")


@irdl_op_definition
class ReshapeOp(OnnxOp):
    name = "onnx.Reshape"
    data = operand_def(TENSOR)
    shape = operand_def(TENSOR)
    reshaped = result_def(TENSOR)
    allowzero = int_attr(0)
    CHECKS: ClassVar = Checks(same=("data", "reshaped"), int64=("shape",), flags=("allowzero",))


@irdl_op_definition
class FlattenOp(OnnxOp):
    name = "onnx.Flatten"
    input = operand_def(TENSOR)
    output = result_def(TENSOR)
    axis = int_attr(1)
    CHECKS: ClassVar = Checks(same=("input", "output"), axis="input", axis_past_end=True)


@irdl_op_definition
class SqueezeOp(OnnxOp):
    name = "onnx.Squeeze"
    data = operand_def(TENSOR)
    axes = operand_def(TENSOR_OR_NONE)
    squeezed = result_def(TENSOR)
    CHECKS: ClassVar = Checks(same=("data", "squeezed"), int64=("axes",))


@irdl_op_definition
class UnsqueezeOp(OnnxOp):
    name = "onnx.Unsqueeze"
    data = operand_def(TENSOR)
    axes = operand_def(TENSOR)
    expanded = result_def(TENSOR)
    CHECKS: ClassVar = Checks(same=("data", "expanded"), int64=("axes",))


@irdl_op_definition
class ConcatOp(OnnxOp):
    name = "onnx.Concat"
    inputs = var_operand_def(TENSOR)
    concat_result = result_def(TENSOR)
    axis = int_attr(required=True)
    CHECKS: ClassVar = Checks(same=("inputs", "concat_result"), axis="inputs", nonempty=("inputs",))


@irdl_op_definition
class EinsumOp(OnnxOp):
    """The Einstein sum `equation` ("bij,bjk->bik"; without "->", the labels that appear once,
    sorted) over the inputs: labels in the output are kept, the others summed over; "..."
    stands for broadcast leading dims."""

    name = "onnx.Einsum"
    inputs = var_operand_def(TENSOR)
    output = result_def(TENSOR)
    equation = str_attr("")
    CHECKS: ClassVar = Checks(same=("inputs", "output"), nonempty=("inputs",))


@irdl_op_definition
class SplitOp(OnnxOp):
    """Split along `axis` by the `split` sizes, or into `num_outputs` (opset 18) parts."""

    name = "onnx.Split"
    input = operand_def(TENSOR)
    split = operand_def(TENSOR_OR_NONE)
    outputs = var_result_def(TENSOR)
    axis = int_attr(0)
    num_outputs = int_attr()
    CHECKS: ClassVar = Checks(same=("input", "outputs"), int64=("split",), axis="input", nonempty=("outputs",))

    def verify_(self) -> None:
        super().verify_()
        if self.num_outputs is None:
            return
        if not is_none(self.split):
            raise VerifyException("onnx.Split: give either the 'split' input or num_outputs, not both")
        if self.num_outputs.value.data != len(self.outputs):
            raise VerifyException(
                f"onnx.Split: num_outputs is {self.num_outputs.value.data} but the op has {len(self.outputs)} results"
            )


@irdl_op_definition
class SliceOp(OnnxOp):
    name = "onnx.Slice"
    data = operand_def(TENSOR)
    starts = operand_def(TENSOR)
    ends = operand_def(TENSOR)
    axes = operand_def(TENSOR_OR_NONE)
    steps = operand_def(TENSOR_OR_NONE)
    output = result_def(TENSOR)
    CHECKS: ClassVar = Checks(same=("data", "output"), index=("starts", "ends", "axes", "steps"))


class AxisGatherOp(OnnxOp):
    """data, indices -> output of data's element type, picking along `axis` (Gather,
    GatherElements); the two differ in their result shapes (xhip.shapes)."""

    data = operand_def(TENSOR)
    indices = operand_def(TENSOR)
    output = result_def(TENSOR)
    axis = int_attr(0)
    CHECKS: ClassVar = Checks(same=("data", "output"), index=("indices",), axis="data")


@irdl_op_definition
class GatherOp(AxisGatherOp):
    name = "onnx.Gather"


@irdl_op_definition
class GatherElementsOp(AxisGatherOp):
    name = "onnx.GatherElements"


@irdl_op_definition
class GatherNDOp(OnnxOp):
    name = "onnx.GatherND"
    data = operand_def(TENSOR)
    indices = operand_def(TENSOR)
    output = result_def(TENSOR)
    batch_dims = int_attr(0)
    CHECKS: ClassVar = Checks(same=("data", "output"), int64=("indices",))


@irdl_op_definition
class TriluOp(OnnxOp):
    name = "onnx.Trilu"
    input = operand_def(TENSOR)
    k = operand_def(TENSOR_OR_NONE)
    output = result_def(TENSOR)
    upper = int_attr(1)
    CHECKS: ClassVar = Checks(same=("input", "output"), int64=("k",), flags=("upper",))


@irdl_op_definition
class ExpandOp(OnnxOp):
    name = "onnx.Expand"
    input = operand_def(TENSOR)
    shape = operand_def(TENSOR)
    output = result_def(TENSOR)
    CHECKS: ClassVar = Checks(same=("input", "output"), int64=("shape",))


@irdl_op_definition
class ShapeOp(OnnxOp):
    """The dims of `data` (optionally the slice [start, end)) as a 1-D int64 tensor."""

    name = "onnx.Shape"
    data = operand_def(TENSOR)
    shape = result_def(TENSOR)
    start = int_attr(0)
    end = int_attr()
    CHECKS: ClassVar = Checks(int64=("shape",))


@irdl_op_definition
class ConstantOfShapeOp(OnnxOp):
    """A tensor of the given shape filled with the one element of `value` (0.0 f32)."""

    name = "onnx.ConstantOfShape"
    input = operand_def(TENSOR)
    output = result_def(TENSOR)
    value = opt_prop_def(
        DENSE_CONSTR, default_value=DenseIntOrFPElementsAttr.from_list(TensorType(f32, [1]), [0.0])
    )
    CHECKS: ClassVar = Checks(int64=("input",))

    def verify_(self) -> None:
        super().verify_()
        if len(self.value) != 1:
            raise VerifyException(f"onnx.ConstantOfShape: value must hold one element, got {len(self.value)}")
        if element_type(self.output) != self.value.get_element_type():
            raise VerifyException("onnx.ConstantOfShape: result element type differs from value's")


@irdl_op_definition
class RangeOp(OnnxOp):
    name = "onnx.Range"
    start = operand_def(TENSOR)
    limit = operand_def(TENSOR)
    delta = operand_def(TENSOR)
    output = result_def(TENSOR)
    CHECKS: ClassVar = Checks(same=("start", "limit", "delta", "output"))

    def verify_(self) -> None:
        super().verify_()
        for field in ("start", "limit", "delta"):
            if (r := rank(getattr(self, field))) not in (None, 0):
                raise VerifyException(f"onnx.Range: '{field}' must be a scalar, got rank {r}")


@irdl_op_definition
class NonZeroOp(OnnxOp):
    """Indices of the non-zero elements: int64 [rank(X), count], count data-dependent."""

    name = "onnx.NonZero"
    x = operand_def(TENSOR)
    y = result_def(TENSOR)
    CHECKS: ClassVar = Checks(int64=("y",))


# Constants and module structure


@irdl_op_definition
class ConstantOp(OnnxOp):
    """A constant tensor; initializers and Constant nodes both import to this."""

    name = "onnx.Constant"
    output = result_def(TENSOR)
    value = attr_def(DENSE_CONSTR | BaseAttr(DenseResourceAttr))
    traits = traits_def(Pure(), ConstantLike())

    def verify_(self) -> None:
        super().verify_()
        if self.value.type != self.output.type:
            raise VerifyException(f"onnx.Constant: result type {self.output.type} differs from value type {self.value.type}")


@irdl_op_definition
class NoValueOp(IRDLOperation):
    """The absent value of an optional input (`none`), as in onnx-mlir."""

    name = "onnx.NoValue"
    none = result_def(NoneType())
    value = opt_attr_def(UnitAttr)  # onnx-mlir prints `{value}`
    traits = traits_def(Pure())


class EntryPointEffect(MemoryEffect):
    """Exporting a function is visible outside the module, so dce must keep the op."""

    @classmethod
    def get_effects(cls, op: Operation) -> set[EffectInstance]:
        assert isinstance(op, EntryPointOp)
        return {EffectInstance(MemoryEffectKind.WRITE, op.func)}


@irdl_op_definition
class EntryPointOp(IRDLOperation):
    """Names the function that runs the model (`<{func = @main_graph}>`)."""

    name = "onnx.EntryPoint"
    func = prop_def(SymbolRefAttr)
    traits = traits_def(HasParent(ModuleOp), EntryPointEffect())

    def verify_(self) -> None:
        if SymbolTable.lookup_symbol(self, self.func) is None:
            raise VerifyException(f"onnx.EntryPoint: no function named {self.func}")


OPERATORS: tuple[type[OnnxOp], ...] = (
    AddOp, SubOp, MulOp, DivOp, PowOp, MaxOp, MinOp, EqualOp, LessOp, GreaterOp,
    LessOrEqualOp, GreaterOrEqualOp, AndOp, OrOp, NotOp, IsNaNOp, WhereOp, ReluOp,
    SigmoidOp, TanhOp, ErfOp, SqrtOp, ExpOp, SinOp, CosOp, LogOp, NegOp, AbsOp, ReciprocalOp, SignOp, CeilOp, ClipOp, TileOp, PadOp,
    FloorOp, RoundOp, CastOp, GeluOp, MatMulOp, GemmOp, SoftmaxOp, LayerNormalizationOp, BatchNormalizationOp, InstanceNormalizationOp, GroupNormalizationOp,
    GlobalAveragePoolOp, GlobalMaxPoolOp, MaxPoolOp, AveragePoolOp, LpPoolOp, ConvOp, ConvTransposeOp, ResizeOp, ReduceMeanOp, ReduceSumOp,
    ReduceMaxOp, ReduceMinOp, ReduceProdOp, ReduceL1Op, ReduceL2Op, ReduceSumSquareOp,
    ReduceLogSumExpOp, ArgMaxOp, ArgMinOp, CumSumOp, TransposeOp, ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp,
    ConcatOp, EinsumOp, SplitOp, SliceOp, GatherOp, GatherElementsOp, GatherNDOp, TriluOp, ExpandOp, ShapeOp, ConstantOfShapeOp,
    RangeOp, NonZeroOp, IdentityOp, ConstantOp,
    )  # fmt: skip
"""Every ONNX operator the dialect models (xDSL keeps the op list beside the ops): a new
op is added here and to `__all__`, and the Dialect, ONNX_OPS (importer, evaluator) and
exports follow."""

__all__ = [
    "OPERATORS",
    "AxisGatherOp",
    "EntryPointEffect",
    "EntryPointOp",
    "NoValueOp",
    # Every op of OPERATORS, spelled out so that type checkers see the star re-export.
    "AddOp", "SubOp", "MulOp", "DivOp", "PowOp", "MaxOp", "MinOp", "EqualOp", "LessOp",
    "GreaterOp", "LessOrEqualOp", "GreaterOrEqualOp", "AndOp", "OrOp", "NotOp", "IsNaNOp",
    "WhereOp", "ReluOp", "SigmoidOp", "TanhOp", "ErfOp", "SqrtOp", "ExpOp", "SinOp",
    "CosOp", "LogOp", "NegOp", "AbsOp", "ReciprocalOp", "ClipOp", "TileOp", "PadOp", "SignOp", "CeilOp", "FloorOp", "RoundOp", "CastOp", "GeluOp", "MatMulOp",
    "GemmOp", "SoftmaxOp", "LayerNormalizationOp", "BatchNormalizationOp", "InstanceNormalizationOp", "GroupNormalizationOp",
    "GlobalAveragePoolOp", "GlobalMaxPoolOp", "MaxPoolOp", "AveragePoolOp", "LpPoolOp", "ConvOp", "ConvTransposeOp", "ResizeOp", "ReduceMeanOp", "ReduceSumOp",
    "ReduceMaxOp", "ReduceMinOp", "ReduceProdOp", "ReduceL1Op", "ReduceL2Op", "ReduceSumSquareOp", "ReduceLogSumExpOp", "ArgMaxOp", "ArgMinOp", "CumSumOp", "TransposeOp", "ReshapeOp", "FlattenOp", "SqueezeOp",
    "UnsqueezeOp", "ConcatOp", "EinsumOp", "SplitOp", "SliceOp", "GatherOp", "GatherElementsOp",
    "GatherNDOp", "TriluOp", "ExpandOp", "ShapeOp", "ConstantOfShapeOp", "RangeOp",
    "NonZeroOp", "IdentityOp", "ConstantOp",
]  # fmt: skip
