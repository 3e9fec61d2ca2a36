"""hip-resolve-memref-dims: fold `memref.dim` through view chains to root extents.

The pool planner compares allocation sizes as SSA values: `memref.dim %view, 1`
and the `%seq` the view was built from are the same extent, but only the second
says so. This pass replaces every `memref.dim` with a constant index by what the
IR already states about that extent:

- a static dim of the type: the constant;
- an allocation (`memref.alloc`, `hip.alloc`, `hip.alloc_output`), `memref.view`,
  `memref.expand_shape`, `memref.subview` or `memref.reinterpret_cast`: the size
  it was built with (the n-th `?` of the result is its n-th dynamic size operand);
- `memref.cast`: the same dim of the source; `memref.collapse_shape`: the product
  of the source dims of the group (emitted as `arith.muli` when it is not one value);
- anything else (a function argument): `memref.dim` of that root.

A size operand that is itself a `memref.dim` is followed too, so chains of
allocations sized from each other reach the function arguments. View ops are left
as they are. Running the pass twice changes nothing the second time.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin, memref
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xhip.analysis.memref_extents import Extent, RootDim, buffer_extent
from xhip.diagnostics import op_error
from xhip.index.host_eval import constant_int
from xhip.shapes import IndexEmitter


def _materialize(extent: Extent, dim: memref.DimOp) -> SSAValue:
    """`extent` as one SSA value available at `dim`."""
    emitter = IndexEmitter(InsertPoint.before(dim))
    factors: list[int | SSAValue] = []
    for factor in extent:
        if isinstance(factor, RootDim):
            if factor.buffer is dim.source and constant_int(dim.index) == factor.axis:
                factors.append(dim.result)
            elif factor.existing is not None:
                factors.append(factor.existing)
            else:
                root_dim = memref.DimOp(factor.buffer, emitter.constant(factor.axis))
                Rewriter.insert_op(root_dim, InsertPoint.before(dim))
                factors.append(root_dim.result)
        else:
            factors.append(factor)
    return emitter.materialize(emitter.product(factors))


def resolve(dim: memref.DimOp) -> None:
    """Replace `dim` by the extent it reads, when the IR states it elsewhere."""
    source_type = dim.source.type
    axis = constant_int(dim.index)
    if axis is None or not isinstance(source_type, MemRefType):
        return
    rank = source_type.get_num_dims()
    if not 0 <= axis < rank:
        raise op_error(dim, f"memref.dim index {axis} is out of range for {source_type} (rank {rank})")
    value = _materialize(buffer_extent(dim.source, axis), dim)
    if value is not dim.result:
        dim.result.replace_all_uses_with(value)
        Rewriter.erase_op(dim)


@dataclass(frozen=True)
class ResolveMemrefDimsPass(ModulePass):
    """memref.dim of views and allocations -> the sizes they were built with, down to the roots."""

    name = "hip-resolve-memref-dims"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for dim in [o for o in op.walk() if isinstance(o, memref.DimOp)]:
            resolve(dim)
