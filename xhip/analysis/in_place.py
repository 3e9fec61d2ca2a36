"""Which op may write its result over a dying input: the kernels' aliasing contract.

An op may write in place when its class says MAY_ALIAS_INPUT (elementwise: each
element is read before it is written at the same index; row-wise softmax,
layer-norm, cumsum: each row is read before it is written) and it has one output.
It writes over an input when that input

- is itself one of the candidate buffers (a transient `memref.alloc`, so never a
  graph input, constant or output, which are not allocations) used directly,
  not through a view;
- has the output's type and size (`same_size`);
- is last used at this op (so nothing reads the old contents afterwards);
- is never touched by the host (a host access happens at once, not in stream
  order with the kernel: `host_access`).

Both the record of the model's own bound (`xhip.analysis.model_buffers`) and the
rewrite (`hip-optimize-memrefs {reuse = "in-place"}`) take the pairs from
`in_place_pairs`, so the in-place bound is exactly what the rewrite can reach.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping

from xdsl.ir import Block, Operation, SSAValue

from xhip.analysis.host_access import host_accessed_roots
from xhip.analysis.liveness import Interval
from xhip.dialects.hip.dps import DPSOp


def may_write_in_place(op: Operation) -> bool:
    """Whether the op's kernel may run with its one output aliasing an input."""
    return isinstance(op, DPSOp) and getattr(type(op), "MAY_ALIAS_INPUT", False) and len(op.outputs) == 1


def in_place_pairs(
    block: Block,
    buffers: Collection[SSAValue],
    intervals: Mapping[SSAValue, Interval],
    same_size: Callable[[SSAValue, SSAValue], bool],
) -> dict[SSAValue, SSAValue]:
    """Each buffer of `buffers` that its producer may write over a dying input, mapped to
    that input (itself one of `buffers`); an input is given to one output at most."""
    positions = {op: i for i, op in enumerate(block.ops)}
    host_touched = host_accessed_roots(block)
    pairs: dict[SSAValue, SSAValue] = {}
    taken: set[SSAValue] = set()
    for op in block.ops:
        if not may_write_in_place(op):
            continue
        written = op.outputs[0]
        if written not in buffers or written in pairs:
            continue
        for operand in op.inputs:
            if (
                operand in buffers
                and operand is not written
                and operand not in taken
                and operand.type == written.type
                and intervals[operand].last == positions[op]
                and operand not in host_touched
                and same_size(operand, written)
            ):
                pairs[written] = operand
                taken.add(operand)
                break
    return pairs
