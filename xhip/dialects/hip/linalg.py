"""Compute ops of linear algebra, normalization, reductions and scans (re-exported by compute)."""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import (
    BFloat16Type,
    StringAttr,
    BoolAttr,
    DenseArrayBase,
    Float16Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    f32,
    f64,
    i1,
    i64,
)
from xdsl.irdl import (
    irdl_op_definition,
    prop_def,
)

from xhip.dialects.hip.common import (
    element_type_of,
    verify_error,
    normalize_axis,
    rank_of,
)
from xhip.dialects.hip.dps import (
    Arity,
    DPSOp,
    ElementKind,
    ShapeRule,
)


HALF_TYPES = (Float16Type, BFloat16Type)
"""Element types a matmul may widen into a float32 output."""

# ---- linear algebra and normalization -------------------------------------------------


@irdl_op_definition
class MatmulOp(DPSOp):
    """ONNX MatMul: batched, with NumPy rank-1 promotion and batch broadcast.

    `trans_b` reads B with its last two dims swapped (a weight that MatMul(x,
    Transpose(W)) reads transposed, instead of a transposed copy of it)."""

    name = "hip.matmul"
    TEMPLATE: ClassVar[str] = "matmul"
    SHAPE_RULE: ClassVar[ShapeRule] = ShapeRule.MATMUL
    INPUTS: ClassVar[Arity] = (2, 2)
    trans_b = prop_def(BoolAttr, default_value=IntegerAttr(0, i1))

    def verify_semantics(self) -> None:
        a, b = self.inputs
        self.check_element(a, ElementKind.NUMERIC, "A")
        out = self.outputs[0]
        if isinstance(element_type_of(a), HALF_TYPES) and element_type_of(out) == f32:
            # Half operands into float32 (hip-fold-cast-into-matmul): accumulated in float32
            # and rounded once, into the output.
            self.check_same_element([a, b], "A and B")
        else:
            self.check_same_element([a, b, out], "A, B and output")
        ra, rb = rank_of(a), rank_of(b)
        if ra < 1 or rb < 1:
            raise verify_error(self, f"operands must have rank >= 1, got {a.type} and {b.type}")
        if self.trans_b.value.data and rb < 2:
            raise verify_error(self, f"a transposed B must have rank >= 2, got {b.type}")
        # A rank-1 operand is promoted to a matrix and its unit dim dropped again.
        expected = max(ra, rb, 2) - (ra == 1) - (rb == 1)
        self.check_rank(self.outputs[0], expected, "output")


@irdl_op_definition
class GemmOp(DPSOp):
    """`alpha * op(A) @ op(B) + beta * C`, 2-D only, C broadcast to [M, N]."""

    name = "hip.gemm"
    TEMPLATE: ClassVar[str] = "matmul"
    SHAPE_RULE: ClassVar[ShapeRule] = ShapeRule.GEMM
    INPUTS: ClassVar[Arity] = (2, 3)
    alpha = prop_def(FloatAttr, default_value=FloatAttr(1.0, f32))
    beta = prop_def(FloatAttr, default_value=FloatAttr(1.0, f32))
    trans_a = prop_def(BoolAttr, default_value=IntegerAttr(0, i1))
    trans_b = prop_def(BoolAttr, default_value=IntegerAttr(0, i1))

    def verify_semantics(self) -> None:
        self.check_element(self.inputs[0], ElementKind.NUMERIC, "A")
        self.check_same_element([*self.inputs, self.outputs[0]], "operands and output")
        for value, what in zip(self.inputs[:2], ("A", "B")):
            self.check_rank(value, 2, what)
        if len(self.inputs) == 3 and rank_of(self.inputs[2]) > 2:
            raise verify_error(self, f"C must have rank <= 2, got {self.inputs[2].type}")
        self.check_rank(self.outputs[0], 2, "output")


@irdl_op_definition
class LayerNormOp(DPSOp):
    """`ins(x, scale[, bias])`, normalizing over dims [axis, rank)."""

    name = "hip.layer_norm"
    TEMPLATE: ClassVar[str] = "row"
    MAY_ALIAS_INPUT: ClassVar[bool] = True
    SHAPE_RULE: ClassVar[ShapeRule] = ShapeRule.SAME_SHAPE_ON_AXIS
    INPUTS: ClassVar[Arity] = (2, 3)
    axis = prop_def(IntegerAttr[IntegerType], default_value=IntegerAttr(-1, i64))
    epsilon = prop_def(FloatAttr, default_value=FloatAttr(1e-5, f32))

    def verify_semantics(self) -> None:
        x = self.inputs[0]
        self.check_element(x, ElementKind.FLOAT, "input")
        self.check_same_element([*self.inputs, self.outputs[0]], "operands and output")
        normalize_axis(self, self.axis.value.data, rank_of(x))
        self.check_rank(self.outputs[0], rank_of(x), "output")


# ---- reductions and scans ------------------------------------------------------------


class ReduceOp(DPSOp):
    """Reduces over static `axes` (empty = all axes), keeping unit dims if `keepdims`."""

    SHAPE_RULE: ClassVar[ShapeRule] = ShapeRule.REDUCE
    axes = prop_def(DenseArrayBase.constr(i64), default_value=DenseArrayBase.from_list(i64, []))
    keepdims = prop_def(BoolAttr, default_value=IntegerAttr(1, i1))
    TEMPLATE: ClassVar[str] = "reduce"
    REDUCE_COMBINE: ClassVar[str] = "{a} + {b}"
    """C expression folding two partial results `{a}` and `{b}`."""
    REDUCE_IDENTITY: ClassVar[str] = "0"
    """The combine's identity; `lowest` is the compute type's lowest value."""
    REDUCE_FINISH: ClassVar[str] = "{acc}"
    """The output from the folded `{acc}` and the reduced element `{count}`."""
    REDUCE_MAP: ClassVar[str] = "{x}"
    """What each element `{x}` (in the compute type) contributes before it is combined."""
    ELEMENT: ClassVar[ElementKind] = ElementKind.NUMERIC
    """The input element types the reduction takes."""

    def normalized_axes(self) -> list[int]:
        """The reduced axes in [0, rank), sorted; all axes when `axes` is empty."""
        rank = rank_of(self.inputs[0])
        axes = self.axes.get_values()
        if not axes:
            return list(range(rank))
        return sorted(normalize_axis(self, a, rank) for a in axes)

    def verify_semantics(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        self.check_element(x, self.ELEMENT, "input")
        self.check_same_element([x, y], "input and output")
        axes = self.normalized_axes()
        if len(set(axes)) != len(axes):
            raise verify_error(self, f"axes {list(self.axes.get_values())} repeat an axis")
        expected = rank_of(x) if self.keepdims.value.data else rank_of(x) - len(axes)
        self.check_rank(y, expected, "output")


@irdl_op_definition
class ReduceMeanOp(ReduceOp):
    name = "hip.reduce_mean"
    REDUCE_FINISH: ClassVar[str] = "{acc} / (decltype({acc})){count}"


@irdl_op_definition
class ReduceSumOp(ReduceOp):
    name = "hip.reduce_sum"


@irdl_op_definition
class ReduceMaxOp(ReduceOp):
    name = "hip.reduce_max"
    REDUCE_COMBINE: ClassVar[str] = "xhip_max({a}, {b})"
    REDUCE_IDENTITY: ClassVar[str] = "lowest"


@irdl_op_definition
class ReduceMinOp(ReduceOp):
    name = "hip.reduce_min"
    REDUCE_COMBINE: ClassVar[str] = "xhip_min({a}, {b})"
    REDUCE_IDENTITY: ClassVar[str] = "highest"


@irdl_op_definition
class ReduceProdOp(ReduceOp):
    name = "hip.reduce_prod"
    REDUCE_COMBINE: ClassVar[str] = "{a} * {b}"
    REDUCE_IDENTITY: ClassVar[str] = "1"


@irdl_op_definition
class ReduceL1Op(ReduceOp):
    name = "hip.reduce_l1"
    REDUCE_MAP: ClassVar[str] = "xhip_abs({x})"


@irdl_op_definition
class ReduceL2Op(ReduceOp):
    """sqrt of the sum of squares: floats only (an integer square root would round)."""

    name = "hip.reduce_l2"
    REDUCE_MAP: ClassVar[str] = "{x} * {x}"
    REDUCE_FINISH: ClassVar[str] = "sqrt({acc})"
    ELEMENT: ClassVar[ElementKind] = ElementKind.FLOAT


@irdl_op_definition
class ReduceSumSquareOp(ReduceOp):
    name = "hip.reduce_sum_square"
    REDUCE_MAP: ClassVar[str] = "{x} * {x}"


@irdl_op_definition
class ReduceLogSumExpOp(ReduceOp):
    """log(sum(exp(x))) without overflow: partial results combine as log(e^a + e^b) =
    max(a, b) + log1p(exp(-|a - b|)), whose identity is -inf (floats only)."""

    name = "hip.reduce_log_sum_exp"
    REDUCE_COMBINE: ClassVar[str] = (
        "({a} == xhip_lowest<ACC>() ? {b} : {b} == xhip_lowest<ACC>() ? {a} : xhip_max({a}, {b}) + log1p(exp(-xhip_abs({a} - {b}))))"
    )
    REDUCE_IDENTITY: ClassVar[str] = "lowest"
    ELEMENT: ClassVar[ElementKind] = ElementKind.FLOAT


class ArgReduceOp(ReduceOp):
    """The int64 index of the extreme along the one axis of `axes`; `select_last_index`
    picks the last of equal extremes, else the first. NaN is the extreme (numpy.argmax and
    argmin: its first, or last, index)."""

    TEMPLATE: ClassVar[str] = "argreduce"
    ARG_BETTER: ClassVar[str] = "{a} > {b}"
    """C comparison: value `{a}` is more extreme than `{b}` (neither NaN)."""
    select_last_index = prop_def(BoolAttr, default_value=IntegerAttr(0, i1))

    def verify_semantics(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        self.check_element(x, ElementKind.NUMERIC, "input")
        if element_type_of(y) != i64:
            raise verify_error(self, f"the result must have i64 elements, got {y.type}")
        if len(self.axes.get_values()) != 1:
            raise verify_error(self, f"axes must name one axis, got {list(self.axes.get_values())}")
        self.normalized_axes()
        self.check_rank(y, rank_of(x) if self.keepdims.value.data else rank_of(x) - 1, "output")


@irdl_op_definition
class ArgMaxOp(ArgReduceOp):
    name = "hip.arg_max"


@irdl_op_definition
class ArgMinOp(ArgReduceOp):
    name = "hip.arg_min"
    ARG_BETTER: ClassVar[str] = "{a} < {b}"


@irdl_op_definition
class CumSumOp(DPSOp):
    """Running sums along `axis`; `exclusive` leaves out the current element and
    `reverse` sums from the end (ONNX CumSum)."""

    name = "hip.cumsum"
    TEMPLATE: ClassVar[str] = "cumsum"
    MAY_ALIAS_INPUT: ClassVar[bool] = True  # each element is read before it is written
    SHAPE_RULE: ClassVar[ShapeRule] = ShapeRule.SAME_SHAPE_ON_AXIS
    axis = prop_def(IntegerAttr[IntegerType])
    exclusive = prop_def(BoolAttr, default_value=IntegerAttr(0, i1))
    reverse = prop_def(BoolAttr, default_value=IntegerAttr(0, i1))

    def verify_semantics(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        self.check_element(x, ElementKind.NUMERIC, "input")
        self.check_same_element([x, y], "input and output")
        normalize_axis(self, self.axis.value.data, rank_of(x))
        self.check_rank(y, rank_of(x), "output")


POOL_KINDS = ("max", "average", "lp")
"""What hip.pool takes of each window: its largest element, its mean, or its `p`-norm."""


@irdl_op_definition
class PoolOp(DPSOp):
    """ONNX MaxPool / AveragePool: x [N, C, D1, ..] -> y [N, C, O1, ..], each output element
    the max (mean) of a `kernel_shape` window `strides` apart, taps `dilations` apart, over x
    padded by `pads` (the spatial begins, then the ends: the converter resolves auto_pad).
    Padding takes no part in a max or a p-norm ((sum of |x|^p)^(1/p), kind "lp"); a mean
    divides by the taps inside x, or with `count_include_pad` by those inside the padding
    too. `ceil_mode` only rounds y's extents up."""

    name = "hip.pool"
    TEMPLATE: ClassVar[str] = "pool"
    SHAPE_RULE: ClassVar[ShapeRule] = ShapeRule.POOL
    kind = prop_def(StringAttr)
    kernel_shape = prop_def(DenseArrayBase.constr(i64))
    strides = prop_def(DenseArrayBase.constr(i64))
    dilations = prop_def(DenseArrayBase.constr(i64))
    pads = prop_def(DenseArrayBase.constr(i64))
    ceil_mode = prop_def(BoolAttr, default_value=IntegerAttr(0, i1))
    count_include_pad = prop_def(BoolAttr, default_value=IntegerAttr(0, i1))
    p = prop_def(IntegerAttr[IntegerType], default_value=IntegerAttr(2, i64))

    def verify_semantics(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        kind = self.kind.data
        if kind == "lp" and self.p.value.data < 1:
            raise verify_error(self, f"p must be positive, got {self.p.value.data}")
        if kind not in POOL_KINDS:
            raise verify_error(self, f"kind must be one of {', '.join(POOL_KINDS)}, got \"{kind}\"")
        self.check_element(x, ElementKind.NUMERIC if kind == "max" else ElementKind.FLOAT, "input")
        self.check_same_element([x, y], "input and output")
        self.check_rank(y, rank_of(x), "output")
        _verify_window(self, rank_of(x))


def _verify_window(op: PoolOp | Im2ColOp, rank: int) -> None:
    """A window over the spatial dims of an input of `rank` ([N, C, D1, ..]): one kernel
    extent, stride and dilation per spatial dim, all positive, and a begin and an end pad
    each, none negative."""
    spatial = rank - 2
    counts = [len(getattr(op, name).get_values()) for name in ("kernel_shape", "strides", "dilations")]
    if spatial < 1 or any(count != spatial for count in counts) or len(op.pads.get_values()) != 2 * spatial:
        raise verify_error(op, f"an input of rank {rank} takes {max(spatial, 0)} kernel extents, strides and dilations and {2 * max(spatial, 0)} pads")
    if min([*op.kernel_shape.get_values(), *op.strides.get_values(), *op.dilations.get_values()], default=1) < 1:
        raise verify_error(op, "kernel extents, strides and dilations must be positive")
    if min(op.pads.get_values(), default=0) < 0:
        raise verify_error(op, "pads must not be negative")


class WindowConvOp(DPSOp):
    """What hip.conv and hip.conv_transpose share: x, w and an optional bias, the window's
    `strides`, `dilations` and explicit `pads`, the `group` count."""

    INPUTS: ClassVar[Arity] = (2, 3)
    strides = prop_def(DenseArrayBase.constr(i64))
    dilations = prop_def(DenseArrayBase.constr(i64))
    pads = prop_def(DenseArrayBase.constr(i64))
    group = prop_def(IntegerAttr[IntegerType])

    def verify_semantics(self) -> None:
        x, w, y = self.inputs[0], self.inputs[1], self.outputs[0]
        self.check_element(x, ElementKind.FLOAT, "input")
        self.check_same_element([*self.inputs, y], "operands and output")
        spatial = rank_of(x) - 2
        self.check_rank(w, rank_of(x), "weights")
        self.check_rank(y, rank_of(x), "output")
        if len(self.inputs) == 3:
            self.check_rank(self.inputs[2], 1, "bias")
        counts = [len(self.strides.get_values()), len(self.dilations.get_values())]
        if spatial < 1 or any(count != spatial for count in counts) or len(self.pads.get_values()) != 2 * spatial:
            raise verify_error(self, f"an input of rank {rank_of(x)} takes {max(spatial, 0)} strides and dilations and {2 * max(spatial, 0)} pads")
        if self.group.value.data < 1 or min([*self.strides.get_values(), *self.dilations.get_values()], default=1) < 1:
            raise verify_error(self, "group, strides and dilations must be positive")


@irdl_op_definition
class ConvOp(WindowConvOp):
    """ONNX Conv: y [N, M, O1, ..] = sum over each group's C / group channels and the window
    of x [N, C, D1, ..] times w [M, C / group, K1, ..], plus b [M] when given; the windows
    as hip.pool's (`strides`, `dilations`, explicit `pads`), taps outside x left out."""

    name = "hip.conv"
    TEMPLATE: ClassVar[str] = "conv"
    SHAPE_RULE: ClassVar[ShapeRule] = ShapeRule.CONV


@irdl_op_definition
class Im2ColOp(DPSOp):
    """The columns of a convolution's windows: x [N, C, D1, ..] -> y [N, C * K, O1 * ..] (K the
    product of `kernel_shape`), row c * K + k holding tap k (row-major over the kernel's
    extents) of channel c at every output position (row-major over the windows), 0 where
    the tap falls in the padding; the windows as hip.conv's (`strides`, `dilations`,
    explicit `pads`). A Conv of one group is then w [M, C * K] times y: a GEMM."""

    name = "hip.im2col"
    TEMPLATE: ClassVar[str] = "im2col"
    SHAPE_RULE: ClassVar[ShapeRule] = ShapeRule.IM2COL
    kernel_shape = prop_def(DenseArrayBase.constr(i64))
    strides = prop_def(DenseArrayBase.constr(i64))
    dilations = prop_def(DenseArrayBase.constr(i64))
    pads = prop_def(DenseArrayBase.constr(i64))

    def verify_semantics(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        self.check_element(x, ElementKind.FLOAT, "input")
        self.check_same_element([x, y], "input and output")
        self.check_rank(y, 3, "output")
        _verify_window(self, rank_of(x))


@irdl_op_definition
class ConvTransposeOp(WindowConvOp):
    """ONNX ConvTranspose: y [N, M, O1, ..] where y at o gathers, over its group's input
    channels and the taps k with (o + begin - k * dilation) a multiple of the stride s, x at
    (o + begin - k * dilation) / s times w [C, M / group, K1, ..] at k, plus b [M]; y's
    extents follow from `output_padding` and the end `pads`, or are `output_shape`."""

    name = "hip.conv_transpose"
    TEMPLATE: ClassVar[str] = "conv_transpose"
    SHAPE_RULE: ClassVar[ShapeRule] = ShapeRule.CONV_TRANSPOSE
    output_padding = prop_def(DenseArrayBase.constr(i64))
    output_shape = prop_def(DenseArrayBase.constr(i64))


RESIZE_MODES = ("nearest", "linear", "cubic")
RESIZE_COORDINATES = ("half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn", "tf_crop_and_resize")
"""How an output coordinate maps back into the input (ONNX coordinate_transformation_mode)."""
NEAREST_MODES = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")
RESIZE_TAPS = {"nearest": 1, "linear": 2, "cubic": 4}
"""Input elements per resized dim that one output element reads (without antialias)."""
RESIZE_SUPPORT = {"linear": 1, "cubic": 2}
"""The filter's half width at scale 1: antialias at scale s < 1 takes 2 - 2 (floor(-support / s) + 1) taps."""


@irdl_op_definition
class ResizeOp(DPSOp):
    """ONNX Resize: y [O0, ..] from x [D0, ..], y's extents decided by the
    converter. Along each dim d, output index o maps to the input coordinate `coordinate_mode`
    gives for o, the extents and `scales[d]` (0: O / D at run time; a dim whose scale is 1 and
    whose extent does not change maps o to o); `mode` takes the nearest element there
    (`nearest_mode`), or interpolates its 2 (linear) or 4 (cubic, `cubic_coeff_a`; with
    `exclude_outside` the weights of neighbours outside x renormalized) neighbours, indices
    clamped into x. tf_crop_and_resize maps through `roi` (every dim's start, then every end)
    and writes `extrapolation_value` where a coordinate falls outside x. With `antialias`
    (linear and cubic), a dim downscaled by s < 1 widens its filter by 1 / s: 2 - 2 start taps
    (start = floor(-1 / s) + 1 linear, floor(-2 / s) + 1 cubic) weighted by the filter at
    s (k - ratio), normalized, as ONNX's reference has it; its scale must then be known (not 0)."""

    name = "hip.resize"
    TEMPLATE: ClassVar[str] = "resize"
    SHAPE_RULE: ClassVar[ShapeRule] = ShapeRule.FROM_INIT
    mode = prop_def(StringAttr)
    coordinate_mode = prop_def(StringAttr)
    nearest_mode = prop_def(StringAttr, default_value=StringAttr("round_prefer_floor"))
    scales = prop_def(DenseArrayBase.constr(f64))
    resized = prop_def(DenseArrayBase.constr(i64))
    """Per dim, 1 where it is resized (0: y's index is x's)."""
    roi = prop_def(DenseArrayBase.constr(f64))
    cubic_coeff_a = prop_def(FloatAttr, default_value=FloatAttr(-0.75, f64))
    exclude_outside = prop_def(BoolAttr, default_value=IntegerAttr(0, i1))
    extrapolation_value = prop_def(FloatAttr, default_value=FloatAttr(0.0, f64))
    antialias = prop_def(BoolAttr, default_value=IntegerAttr(0, i1))

    def verify_semantics(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        self.check_element(x, ElementKind.FLOAT, "input")
        self.check_same_element([x, y], "input and output")
        rank = rank_of(x)
        self.check_rank(y, rank, "output")
        choices = {"mode": RESIZE_MODES, "coordinate_mode": RESIZE_COORDINATES, "nearest_mode": NEAREST_MODES}
        for field, allowed in choices.items():
            if getattr(self, field).data not in allowed:
                raise verify_error(self, f"{field} must be one of {', '.join(allowed)}, got \"{getattr(self, field).data}\"")
        if len(self.scales.get_values()) != rank or len(self.resized.get_values()) != rank:
            raise verify_error(self, f"an input of rank {rank} takes {rank} scales and resized flags")
        if min(self.scales.get_values(), default=0.0) < 0:
            raise verify_error(self, "scales must not be negative")
        roi = len(self.roi.get_values())
        if (self.coordinate_mode.data == "tf_crop_and_resize") != (roi == 2 * rank) or roi not in (0, 2 * rank):
            raise verify_error(self, f"tf_crop_and_resize (and only it) takes {2 * rank} roi entries, got {roi}")
        if self.antialias.value.data:
            if self.mode.data == "nearest":
                raise verify_error(self, "antialias applies to linear and cubic resizes")
            if any(r and not s for r, s in zip(self.resized.get_values(), self.scales.get_values())):
                raise verify_error(self, "antialias needs every resized dim's scale (its tap count follows from it)")
