"""Folds of host index arithmetic and shape queries that xDSL's canonicalize lacks.

Memory planning needs one SSA value per distinct extent: `tensor.dim` of a
`tensor.empty` must become the empty's own size operand, comparisons and
min/max/div of constants must disappear, and casts of constants must fold, or
the planner sees distinct expressions for equal sizes. For the same reason a dim
of a function argument whose `onnx.dim_params` symbol an earlier dim already
names is read from that first dim.
"""

from __future__ import annotations

from xdsl.dialects import arith, func, memref, tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    TensorType,
)
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from xhip.dialects.onnx.signature import shared_symbol_dims
from xhip.index.host_eval import (
    INDEX_BITWIDTH,
    bitwidth,
    canonical,
    compare,
    constant_int,
    fold_binary,
    is_binary_supported,
    to_signed,
)

# Upstream canonicalize already folds these on constants (and knows x+0, x*1).
_UPSTREAM_FOLDED: frozenset[type[Operation]] = frozenset({arith.AddiOp, arith.SubiOp, arith.MuliOp})


def _bit_width(t: Attribute) -> int | None:
    return bitwidth(t) if isinstance(t, IndexType | IntegerType) else None


def _replace_by_constant(rewriter: PatternRewriter, op: Operation, value: int, result_type: Attribute) -> None:
    assert isinstance(result_type, IndexType | IntegerType)
    rewriter.replace(op, arith.ConstantOp(IntegerAttr(canonical(value, bitwidth(result_type)), result_type)))


class FoldConstantIntegerBinary(RewritePattern):
    """`maxui/minui/divui/ceildiv*/rem*/maxsi/...` of two constants is a constant."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if type(op) in _UPSTREAM_FOLDED or not is_binary_supported(type(op)):
            return
        lhs, rhs = (constant_int(v) for v in op.operands)
        bits = _bit_width(op.results[0].type)
        if lhs is None or rhs is None or bits is None:
            return
        try:
            folded = fold_binary(type(op), lhs, rhs, bits)
        except ZeroDivisionError:
            return  # undefined at run time: the op stays, so does the behaviour
        _replace_by_constant(rewriter, op, folded, op.results[0].type)


class FoldIdempotentMinMax(RewritePattern):
    """`max(x, x)` and `min(x, x)` are `x`."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if isinstance(op, arith.MaxUIOp | arith.MinUIOp | arith.MaxSIOp | arith.MinSIOp):
            if op.operands[0] is op.operands[1]:
                rewriter.replace(op, [], [op.operands[0]])


class FoldConstantCmpi(RewritePattern):
    """`cmpi` of two constants (or of a value with itself) is a constant i1."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.CmpiOp, rewriter: PatternRewriter, /) -> None:
        predicate = op.predicate.value.data
        bits = _bit_width(op.lhs.type)
        if bits is None:
            return
        if op.lhs is op.rhs:
            result = predicate in (0, 3, 5, 7, 9)
        else:
            lhs, rhs = constant_int(op.lhs), constant_int(op.rhs)
            if lhs is None or rhs is None:
                return
            result = compare(predicate, lhs, rhs, bits)
        _replace_by_constant(rewriter, op, int(result), op.result.type)


class FoldSelectOfEqualValues(RewritePattern):
    """`select(c, x, x)` is `x`, whatever `c` is."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.SelectOp, rewriter: PatternRewriter, /) -> None:
        if op.lhs is op.rhs:
            rewriter.replace(op, [], [op.lhs])


class FoldConstantIndexCast(RewritePattern):
    """`index_cast` of a constant, and index -> index round trips through a cast."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, arith.IndexCastOp):
            return
        source = op.operands[0]
        if (
            isinstance(source.owner, type(op))
            and source.owner.operands[0].type == op.results[0].type
            and isinstance(op.results[0].type, IndexType)
        ):
            # index -> iN -> index only round-trips if iN held the value; shapes
            # fit in 32 bits in practice, but we only fold the lossless case.
            inner_bits = _bit_width(source.type)
            if inner_bits == INDEX_BITWIDTH:
                rewriter.replace(op, [], [source.owner.operands[0]])
                return
        value = constant_int(source)
        in_bits, out_bits = _bit_width(source.type), _bit_width(op.results[0].type)
        if value is None or in_bits is None or out_bits is None:
            return
        widened = to_signed(value, in_bits)  # index_cast sign-extends
        _replace_by_constant(rewriter, op, widened, op.results[0].type)


def _static_dim_or_none(shaped_type: Attribute, index: int) -> int | None:
    if not isinstance(shaped_type, TensorType | MemRefType):
        return None
    shape = shaped_type.get_shape()
    if 0 <= index < len(shape) and shape[index] != DYNAMIC_INDEX:
        return shape[index]
    return None


def _dynamic_size_operand(shaped_type: Attribute, sizes: tuple[SSAValue, ...], index: int) -> SSAValue | None:
    """The size operand that defines dynamic dim `index` of an empty/alloc."""
    shape = shaped_type.get_shape()  # type: ignore[attr-defined]
    if not (0 <= index < len(shape)) or shape[index] != DYNAMIC_INDEX:
        return None
    position = sum(1 for d in shape[:index] if d == DYNAMIC_INDEX)
    return sizes[position]


def _first_dim_of_symbol(argument: BlockArgument, axis: int) -> tuple[SSAValue, int] | None:
    """The (argument, axis) that first names the symbol of `argument`'s dim `axis`,
    when that is an earlier dim of the same function's entry arguments."""
    fn = argument.block.parent_op()
    if not isinstance(fn, func.FuncOp) or argument.block is not fn.body.blocks.first:
        return None
    try:
        shared = shared_symbol_dims(fn.function_type.inputs.data, fn.arg_attrs)
    except ValueError:
        return None  # a malformed attribute is the conversion's and the runtime's error to report
    first = shared.get((argument.index, axis))
    return None if first is None else (argument.block.args[first[0]], first[1])


def _fold_argument_dim(op: Operation, argument: BlockArgument, axis: int, rewriter: PatternRewriter) -> None:
    first = _first_dim_of_symbol(argument, axis)
    if first is None:
        return
    source, first_axis = first
    index = arith.ConstantOp(IntegerAttr(first_axis, IndexType()))
    rewriter.insert_op(index)  # before `op`; the name hint goes to the new dim
    dim_type = tensor.DimOp if isinstance(source.type, TensorType) else memref.DimOp
    rewriter.replace_op(op, dim_type(source, index))


def _fold_dim(op: Operation, source: SSAValue, index_value: SSAValue, rewriter: PatternRewriter) -> None:
    index = constant_int(index_value)
    if index is None:
        return
    static = _static_dim_or_none(source.type, index)
    if static is not None:
        rewriter.replace(op, arith.ConstantOp(IntegerAttr(static, IndexType())))
        return
    if isinstance(source, BlockArgument):
        _fold_argument_dim(op, source, index, rewriter)
        return
    producer = source.owner
    replacement: SSAValue | None = None
    if isinstance(producer, tensor.EmptyOp):
        replacement = _dynamic_size_operand(source.type, tuple(producer.dynamic_sizes), index)
    elif isinstance(producer, memref.AllocOp | memref.AllocaOp):
        replacement = _dynamic_size_operand(source.type, tuple(producer.dynamic_sizes), index)
    elif isinstance(producer, tensor.ExpandShapeOp):
        replacement = _dynamic_size_operand(source.type, tuple(producer.dynamic_output_shape), index)
    elif (tied := getattr(producer, "tied_init", None)) is not None:
        # A destination-passing op's result has exactly its init's shape.
        init = tied(source)
        if init is not None:
            rewriter.replace(op, tensor.DimOp(init, index_value))
            return
    if replacement is not None:
        rewriter.replace(op, [], [replacement])


class FoldTensorDim(RewritePattern):
    """`tensor.dim` of a static dim, of `tensor.empty`, `expand_shape`, a DPS result, or
    of an argument dim whose symbol an earlier argument dim names."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tensor.DimOp, rewriter: PatternRewriter, /) -> None:
        _fold_dim(op, op.source, op.index, rewriter)


class FoldMemRefDim(RewritePattern):
    """`memref.dim` of a static dim, of `memref.alloc`/`alloca`, or of an argument dim
    whose symbol an earlier argument dim names."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.DimOp, rewriter: PatternRewriter, /) -> None:
        _fold_dim(op, op.source, op.index, rewriter)


INDEX_FOLD_PATTERNS: tuple[RewritePattern, ...] = (
    FoldConstantIntegerBinary(),
    FoldIdempotentMinMax(),
    FoldConstantCmpi(),
    FoldSelectOfEqualValues(),
    FoldConstantIndexCast(),
    FoldTensorDim(),
    FoldMemRefDim(),
)
