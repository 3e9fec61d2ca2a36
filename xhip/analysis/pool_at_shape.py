"""What a compiled module's pools and bounds come to at input shapes, without running it.

The pool sizes are host index arithmetic on the graph inputs' extents (and, with
the run-time planner, a `hip.plan_pool`, which `xhip.index.host_eval` plans as the
runtime does), so they can be evaluated at any shape, also at shapes too large
to run here. A size that needs data (a count read back from the device) cannot:
`pool_bytes_at` then returns None and a caller runs the model instead.

Pools are per `hip.get_pool {domain_id}`: domains that share a pool ask for it in
turn, so a pool counts its largest request (as `RunState.request_pool` does).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from xdsl.dialects import func, memref
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, SSAValue

from xhip.diagnostics import XhipError
from xhip.dialects.hip import GetPoolOp
from xhip.dialects.onnx.signature import entry_attributes, value_name
from xhip.index.host_eval import HostIndexEvaluator, constant_int


def _dim_bindings(function: func.FuncOp, shapes: Mapping[str, Sequence[int]]) -> dict[SSAValue, int]:
    """Every `memref.dim` of a graph input at a constant axis, bound to that input's extent."""
    block = function.body.blocks.first
    assert isinstance(block, Block)
    names: dict[SSAValue, str] = {}
    for index, arg in enumerate(block.args):
        name = value_name(entry_attributes(function.arg_attrs, index))
        if name is not None:
            names[arg] = name
    bindings: dict[SSAValue, int] = {}
    for op in function.walk():
        if isinstance(op, memref.DimOp) and op.source in names:
            axis = constant_int(op.index)
            shape = shapes.get(names[op.source])
            if axis is not None and shape is not None and 0 <= axis < len(shape):
                bindings[op.result] = int(shape[axis])
    return bindings


def pool_bytes_at(module: ModuleOp, function: func.FuncOp, shapes: Mapping[str, Sequence[int]]) -> int | None:
    """The pool bytes a run with inputs of these shapes (by graph input name) requests;
    None when a pool size depends on more than the shapes."""
    evaluator = HostIndexEvaluator(_dim_bindings(function, shapes))
    per_pool: dict[int, int] = {}
    for op in function.walk():
        if isinstance(op, GetPoolOp):
            try:
                nbytes = evaluator.evaluate(op.operands[1])
            except XhipError:
                return None
            pool = op.domain_id.value.data
            per_pool[pool] = max(per_pool.get(pool, 0), nbytes)
    return sum(per_pool.values())
