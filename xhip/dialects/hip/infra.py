"""Infrastructure ops: device buffers, pools, host scratch, outputs, constants, readbacks."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    StringAttr,
    i32,
    i64,
)
from xdsl.ir import (
    Attribute,
    Operation,
    SSAValue,
)
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import Pure

from xhip.index.host_eval import register_host_op
from xhip.memory.greedy import plan_at_sizes
from xhip.dialects.hip.common import (
    BYTE_BUFFER,
    DATA_CONSTR,
    SCALAR_CONSTR,
    AllocatesResult,
    ContextType,
    FreesMemrefOperands,
    ReadsMemrefOperands,
    ReadsResult,
    ResultAliasesOperand,
    WritesResult,
    element_type_of,
    verify_error,
    num_elements,
    require_non_negative,
    shape_of,
)

# --------------------------------------------------------------------------------------
# Infrastructure ops
# --------------------------------------------------------------------------------------


class _SizedBufferOp(IRDLOperation):
    """Shared shape of `hip.alloc` and `hip.alloc_output`: one size per `?` dim."""

    ctx = operand_def(ContextType)
    dynamic_sizes = var_operand_def(IndexType)
    result = result_def(MemRefType)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "`(` $ctx (`,` $dynamic_sizes^)? `)` attr-dict `:` type($result)"

    def __init__(
        self,
        ctx: SSAValue,
        result_type: MemRefType,
        dynamic_sizes: Sequence[SSAValue] = (),
        properties: Mapping[str, Attribute] | None = None,
    ):
        super().__init__(
            operands=[ctx, dynamic_sizes], result_types=[result_type], properties=properties
        )

    def verify_(self) -> None:
        expected = sum(1 for dim in self.result.type.get_shape() if dim < 0)
        if expected != len(self.dynamic_sizes):
            raise verify_error(
                self,
                f"expected {expected} dynamic size operand(s) for {self.result.type}, "
                f"got {len(self.dynamic_sizes)}",
            )


@irdl_op_definition
class AllocOp(_SizedBufferOp):
    """A device allocation owned by the program (freed by `hip.free`)."""

    name = "hip.alloc"
    traits = traits_def(AllocatesResult())


@irdl_op_definition
class AllocOutputOp(_SizedBufferOp):
    """Graph output `out_idx`, allocated by the runtime's output allocator.

    It has a Write effect and no Allocate effect, so the pool planner never absorbs it
    and CSE/DCE never merge or drop it."""

    name = "hip.alloc_output"
    out_idx = prop_def(IntegerAttr[IntegerType])
    traits = traits_def(WritesResult())

    def __init__(
        self,
        ctx: SSAValue,
        result_type: MemRefType,
        out_idx: int,
        dynamic_sizes: Sequence[SSAValue] = (),
    ):
        super().__init__(ctx, result_type, dynamic_sizes, {"out_idx": IntegerAttr(out_idx, i64)})

    def verify_(self) -> None:
        require_non_negative(self, "out_idx", self.out_idx)
        super().verify_()


@irdl_op_definition
class CacheAppendOp(IRDLOperation):
    """Graph output `out_idx`: `past` with `new` appended along `axis` (a KV cache's
    `Concat(past, new)`), written where `past` lives when it can be.

    When `past` is all that was written of a caller's cache buffer and the buffer has room
    along `axis`, the result is a view of that buffer extended over the new rows: `new` is
    copied into them and nothing else moves. Otherwise (a plain input, a full cache, a past
    the cache has grown beyond since) the result lives in a fresh cache buffer, `past`
    copied in first (xhip.runtime.kv_cache). The result's layout is strided: a cache is
    laid out at its capacity, so the dims before `axis` step over the rows not yet written."""

    name = "hip.cache_append"
    ctx = operand_def(ContextType)
    past = operand_def(MemRefType)
    new = operand_def(MemRefType)
    dynamic_sizes = var_operand_def(IndexType)
    """The result's `?` extents in order (those of the output it replaced): what the extent
    analysis and the shape contracts of its readers see, checked against past and new."""
    result = result_def(MemRefType)
    axis = prop_def(IntegerAttr[IntegerType])
    out_idx = prop_def(IntegerAttr[IntegerType])
    # The result is past's cache extended (or a fresh one): new's rows are copied into it.
    traits = traits_def(ReadsMemrefOperands(), WritesResult(), ResultAliasesOperand(1))
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "`(` $ctx `,` $past `,` $new (`,` $dynamic_sizes^)? `)` attr-dict `:` type($past) `,` type($new) `->` type($result)"
    )

    def __init__(
        self, ctx: SSAValue, past: SSAValue, new: SSAValue, result_type: MemRefType, axis: int, out_idx: int,
        dynamic_sizes: Sequence[SSAValue] = (),
    ):  # fmt: skip
        super().__init__(
            operands=[ctx, past, new, dynamic_sizes],
            result_types=[result_type],
            properties={"axis": IntegerAttr(axis, i64), "out_idx": IntegerAttr(out_idx, i64)},
        )

    def verify_(self) -> None:
        require_non_negative(self, "out_idx", self.out_idx)
        past, new, result = (shape_of(v) for v in (self.past, self.new, self.result))
        if not len(past) == len(new) == len(result):
            raise verify_error(self, f"past, new and result must have one rank, got {len(past)}, {len(new)} and {len(result)}")
        axis = self.axis.value.data
        if not 0 <= axis < len(past):
            raise verify_error(self, f"axis {axis} is out of range for rank {len(past)}")
        kinds = {element_type_of(v) for v in (self.past, self.new, self.result)}
        if len(kinds) != 1:
            raise verify_error(self, "past, new and result must have one element type")
        expected = sum(1 for extent in result if extent == DYNAMIC_INDEX)
        if expected != len(self.dynamic_sizes):
            raise verify_error(self, f"expected {expected} dynamic size operand(s) for {self.result.type}, got {len(self.dynamic_sizes)}")
        for dim, extents in enumerate(zip(past, new, result)):
            static = {e for e in extents if e >= 0}
            if dim != axis and len(static) > 1:
                raise verify_error(self, f"dim {dim} differs between past, new and result ({', '.join(map(str, extents))})")


@irdl_op_definition
class FreeOp(IRDLOperation):
    """Releases a `hip.alloc` buffer."""

    name = "hip.free"
    ctx = operand_def(ContextType)
    memref = operand_def(MemRefType)
    traits = traits_def(FreesMemrefOperands())
    assembly_format = "`(` $ctx `,` $memref `)` attr-dict `:` type($memref)"

    def __init__(self, ctx: SSAValue, memref: SSAValue):
        super().__init__(operands=[ctx, memref])


class _ByteBufferOp(IRDLOperation):
    """A runtime-owned, grow-on-demand byte buffer of at least `size` bytes."""

    ctx = operand_def(ContextType)
    size = operand_def(IndexType)
    result = result_def(MemRefType)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(AllocatesResult())
    assembly_format = "`(` $ctx `,` $size `)` attr-dict `:` type($result)"

    def verify_(self) -> None:
        if self.result.type != BYTE_BUFFER:
            raise verify_error(self, f"result must be {BYTE_BUFFER}, got {self.result.type}")


@irdl_op_definition
class GetPoolOp(_ByteBufferOp):
    """The memory pool of dominance domain `domain_id`; views into it hold transients."""

    name = "hip.get_pool"
    domain_id = prop_def(IntegerAttr[IntegerType], default_value=IntegerAttr(0, i64))

    def __init__(self, ctx: SSAValue, size: SSAValue, domain_id: int = 0):
        super().__init__(
            operands=[ctx, size],
            result_types=[BYTE_BUFFER],
            properties={"domain_id": IntegerAttr(domain_id, i64)},
        )

    def verify_(self) -> None:
        require_non_negative(self, "domain_id", self.domain_id)
        super().verify_()


@irdl_op_definition
class PlanPoolOp(IRDLOperation):
    """Offsets and the pool size for buffers whose sizes are only known at run time.

    One byte size per buffer and its live interval (first, last program point, as
    `intervals`); the runtime plans them (`xhip.memory.greedy.plan_at_sizes`) once per
    distinct set of sizes, every offset a multiple of `alignment`. Results: the pool
    size, then one offset per buffer, in operand order."""

    name = "hip.plan_pool"
    sizes = var_operand_def(IndexType)
    intervals = prop_def(DenseArrayBase)
    alignment = prop_def(IntegerAttr[IntegerType])
    total = result_def(IndexType)
    offsets = var_result_def(IndexType)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "`(` $sizes `)` attr-dict `:` `(` type($sizes) `)` `->` `(` type($total) `,` type($offsets) `)`"

    def __init__(self, sizes: Sequence[SSAValue], intervals: Sequence[tuple[int, int]], alignment: int):
        super().__init__(
            operands=[sizes],
            result_types=[IndexType(), [IndexType()] * len(sizes)],
            properties={
                "intervals": DenseArrayBase.from_list(i64, [point for pair in intervals for point in pair]),
                "alignment": IntegerAttr(alignment, i64),
            },
        )

    def interval_pairs(self) -> list[tuple[int, int]]:
        points = [int(p) for p in self.intervals.get_values()]
        return list(zip(points[::2], points[1::2]))

    def verify_(self) -> None:
        points = self.intervals.get_values()
        if len(points) != 2 * len(self.sizes):
            raise verify_error(self, f"needs a (first, last) pair per size: {len(self.sizes)} sizes, {len(points)} points")
        if len(self.offsets) != len(self.sizes):
            raise verify_error(self, f"needs one offset result per size: {len(self.sizes)} sizes, {len(self.offsets)} offsets")
        if any(first > last for first, last in self.interval_pairs()):
            raise verify_error(self, "an interval ends before it starts")
        alignment = self.alignment.value.data
        if alignment <= 0 or alignment & (alignment - 1):
            raise verify_error(self, f"alignment must be a positive power of 2, got {alignment}")


def _planned_pool(op: Operation, sizes: list[int]) -> list[int]:
    """`hip.plan_pool`'s results at these sizes: the total, then the offsets."""
    assert isinstance(op, PlanPoolOp)
    offsets, total = plan_at_sizes(sizes, op.interval_pairs(), op.alignment.value.data)
    return [total, *offsets]


register_host_op(PlanPoolOp, _planned_pool)


@irdl_op_definition
class GetHostScratchOp(_ByteBufferOp):
    """Host-mapped scratch for tiny buffers that host code reads and writes."""

    name = "hip.get_host_scratch"

    def __init__(self, ctx: SSAValue, size: SSAValue):
        super().__init__(operands=[ctx, size], result_types=[BYTE_BUFFER])


@irdl_op_definition
class GetConstantOp(IRDLOperation):
    """The uploaded constant number `index` of the constants file, as a device buffer."""

    name = "hip.get_constant"
    ctx = operand_def(ContextType)
    index = operand_def(i64)
    result = result_def(MemRefType)
    traits = traits_def(ReadsResult())
    assembly_format = "`(` $ctx `,` $index `)` attr-dict `:` type($result)"

    def __init__(self, ctx: SSAValue, index: SSAValue, result_type: MemRefType):
        super().__init__(operands=[ctx, index], result_types=[result_type])

    def verify_(self) -> None:
        if not self.result.type.has_static_shape():
            raise verify_error(self, f"constants have static shapes, got {self.result.type}")


class _ReadbackOp(IRDLOperation):
    """Waits for device work and copies the single element of `source` to the host.

    `wait = "stream"` (the default) drains the whole stream first; `wait =
    "producer"` waits only for the work queued up to the last write of `source`
    (an event recorded after its producer), so later queued work keeps running.
    """

    ctx = operand_def(ContextType)
    source = operand_def(DATA_CONSTR)
    result = result_def(SCALAR_CONSTR)
    wait = opt_prop_def(StringAttr)
    traits = traits_def(ReadsMemrefOperands())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "`(` $ctx `,` $source `)` attr-dict `:` type($source) `->` type($result)"

    WAITS: ClassVar[tuple[str, ...]] = ("stream", "producer")

    @property
    def waits_for_producer(self) -> bool:
        return self.wait is not None and self.wait.data == "producer"

    def verify_(self) -> None:
        count = num_elements(shape_of(self.source))
        if count != 1:
            raise verify_error(self, f"source must hold exactly one element, got {self.source.type}")
        if self.wait is not None and self.wait.data not in self.WAITS:
            raise verify_error(self, f"wait must be \"stream\" or \"producer\", got \"{self.wait.data}\"")


@irdl_op_definition
class ReadbackScalarOp(_ReadbackOp):
    """The scalar itself, or an integer scalar widened to `index`."""

    name = "hip.readback_scalar"

    def __init__(
        self, ctx: SSAValue, source: SSAValue, result_type: Attribute | None = None, wait: str | None = None
    ):
        result_type = result_type or element_type_of(source)
        properties = {"wait": StringAttr(wait)} if wait is not None else {}
        super().__init__(operands=[ctx, source], result_types=[result_type], properties=properties)

    def verify_(self) -> None:
        super().verify_()
        element = element_type_of(self.source)
        result_type = self.result.type
        is_int = isinstance(element, IntegerType)
        if result_type != element and not (is_int and isinstance(result_type, IndexType)):
            allowed = f"{element} or index" if is_int else str(element)
            source = self.source.type
            raise verify_error(
                self, f"result must be {allowed} (from the source {source}), got {result_type}"
            )


@irdl_op_definition
class ReadbackDimOp(_ReadbackOp):
    """A device-computed count (i32 or i64) read back and widened to `index`."""

    name = "hip.readback_dim"
    result = result_def(IndexType)

    def __init__(self, ctx: SSAValue, source: SSAValue):
        super().__init__(operands=[ctx, source], result_types=[IndexType()])

    def verify_(self) -> None:
        super().verify_()
        element = element_type_of(self.source)
        if element not in (i32, i64):
            raise verify_error(self, f"source element type must be i32 or i64, got {element}")
