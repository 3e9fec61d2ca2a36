"""hip-fuse-elementwise: chains of elementwise hip ops become one `hip.fused_elementwise`.

Runs on tensor-mode hip IR (after convert-onnx-to-hip, before one-shot-bufferize).
Memref-mode ops are left as they are: their buffers are already chosen, and a
compiled artifact fed back through the pipeline (`xhip-run a.mlir`) must come
out unchanged.
A producer merges into its consumer when

- both are elementwise ops whose kernel is the elementwise template over a C
  expression (`is_fusable`: the op facts TEMPLATE and C_EXPR), or fused ops;
- they are in one block, and every use of the producer's result is an input of
  the consumer (so the intermediate dies inside the chain: no buffer, no launch);
- the merged chain has at most `max-steps` steps.

The producer's inputs become the consumer's (each value once), its steps come
first and the consumer's steps are renumbered after them; the fused op takes the
consumer's place, init and location. Ops are visited in program order and each
consumer takes producers until none is left, so a chain fuses whole in one
sweep and a second run finds nothing to do.

Dtype-changing steps are supported: comparisons (i1), IsNaN, Cast, Where's
condition. Each step records its result's element type, and the kernels keep
the intermediate in that type (reference) or convert through it (GPU), as the
unfused ops stored it.

Broadcasts: a producer whose result is smaller than the consumer's output (a
bias scaled by a constant) is recomputed for every output element. That is a
few arithmetic instructions per element in a kernel bound by memory traffic,
against a launch and a buffer saved; `fuse-broadcast-producers=false` keeps such
producers as their own kernels.

The producer's init, when it was a `tensor.empty` used by nothing else, is
erased too: one-shot-bufferize would otherwise turn it into a dead allocation.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin, func, tensor
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from xhip.dialects.hip import DPSOp, FusedElementwiseOp, StepAttr, is_fusable
from xhip.dialects.hip.common import element_type_of
from xhip.passes.contracts import function_body
from xhip.rewrite_rules.dead_operands import erase_with_dead_operands

PASS = "hip-fuse-elementwise"
SEGMENT_SIZES = "operandSegmentSizes"


@dataclass(frozen=True)
class _Chain:
    """An op as fused steps over distinct inputs (a plain op is a chain of one step)."""

    inputs: list[SSAValue]
    steps: list[StepAttr]


def _is_chain_op(op: Operation) -> bool:
    return isinstance(op, FusedElementwiseOp) or (isinstance(op, DPSOp) and is_fusable(type(op)))


def _chain_of(op: DPSOp) -> _Chain:
    if isinstance(op, FusedElementwiseOp):
        return _Chain(list(op.inputs), op.step_list)
    inputs = list(dict.fromkeys(op.inputs))
    args = [f"in{inputs.index(v)}" for v in op.inputs]
    properties = {k: v for k, v in op.properties.items() if k != SEGMENT_SIZES}
    return _Chain(inputs, [StepAttr.make(op.name, args, element_type_of(op.outputs[0]), properties)])


def _renamed(step: StepAttr, rename: Callable[[str], str]) -> StepAttr:
    return StepAttr.make(step.op.data, [rename(a) for a in step.arg_names], step.result, dict(step.properties.data))


def _merged(producer: _Chain, consumer: _Chain, value: SSAValue) -> _Chain:
    """`consumer` with its input `value` computed by `producer`'s steps, placed first."""
    inputs = list(dict.fromkeys([*producer.inputs, *(v for v in consumer.inputs if v is not value)]))
    position = {v: i for i, v in enumerate(inputs)}
    produced = f"t{len(producer.steps) - 1}"

    def producer_arg(arg: str) -> str:
        return f"in{position[producer.inputs[int(arg[2:])]]}" if arg.startswith("in") else arg

    def consumer_arg(arg: str) -> str:
        if arg.startswith("t"):
            return f"t{int(arg[1:]) + len(producer.steps)}"
        source = consumer.inputs[int(arg[2:])]
        return produced if source is value else f"in{position[source]}"

    steps = [_renamed(s, producer_arg) for s in producer.steps] + [_renamed(s, consumer_arg) for s in consumer.steps]
    return _Chain(inputs, steps)


def _same_extents(a: SSAValue, b: SSAValue) -> bool:
    """Whether two inits are known to have equal shapes (the same value, or `tensor.empty`s
    of one type and the same dynamic sizes)."""
    if a is b:
        return True
    ea, eb = a.owner, b.owner
    return (
        a.type == b.type
        and isinstance(ea, tensor.EmptyOp)
        and isinstance(eb, tensor.EmptyOp)
        and list(ea.dynamic_sizes) == list(eb.dynamic_sizes)
    )


@dataclass(frozen=True)
class _Fuser:
    """Merges producers into consumers in one block (the pass's options)."""

    block: Block
    max_steps: int
    fuse_broadcast_producers: bool

    def run(self) -> None:
        for op in list(self.block.ops):  # only ops before `op` are erased while it is visited
            if not _is_chain_op(op) or not op.is_tensor_mode:  # type: ignore[attr-defined]
                continue
            assert isinstance(op, DPSOp)
            while (producer := self.producer_of(op)) is not None:
                op = self.fuse(producer, op)

    def producer_of(self, consumer: DPSOp) -> DPSOp | None:
        """The first input's producer that may merge into `consumer`, if any."""
        for value in dict.fromkeys(consumer.inputs):
            producer = value.owner
            if (
                isinstance(producer, DPSOp)
                and _is_chain_op(producer)
                and producer.is_tensor_mode
                and producer.parent_block() is self.block
                and not producer.scalars
                and len(producer.res) == 1
                and all(use.operation is consumer for use in value.uses)
                and value not in consumer.outputs
                and len(_chain_of(producer).steps) + len(_chain_of(consumer).steps) <= self.max_steps
                and (self.fuse_broadcast_producers or _same_extents(producer.outputs[0], consumer.outputs[0]))
            ):
                return producer
        return None

    def fuse(self, producer: DPSOp, consumer: DPSOp) -> FusedElementwiseOp:
        chain = _merged(_chain_of(producer), _chain_of(consumer), producer.res[0])
        steps: Attribute = builtin.ArrayAttr(chain.steps)
        fused = FusedElementwiseOp(consumer.ctx, chain.inputs, list(consumer.outputs), properties={"steps": steps})
        fused.attributes.update(consumer.attributes)
        fused.location = consumer.location
        Rewriter.replace_op(consumer, fused)
        erase_with_dead_operands(producer, Rewriter.erase_op)
        return fused


@dataclass(frozen=True)
class FuseElementwisePass(ModulePass):
    """Chains of elementwise hip ops whose intermediates die inside the chain become one fused kernel."""

    name = PASS

    max_steps: int = 32
    """The most steps one fused op may hold (every intermediate lives in the kernel's registers)."""

    fuse_broadcast_producers: bool = True
    """Fuse a producer whose result broadcasts in its consumer, recomputing it per output
    element; false keeps such producers as their own kernels."""

    def __post_init__(self):
        if self.max_steps < 1:
            raise ValueError(f"max-steps must be at least 1, not {self.max_steps}")

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for function in [f for f in op.walk() if isinstance(f, func.FuncOp)]:
            block = function_body(function, PASS)
            if block is not None:
                _Fuser(block, self.max_steps, self.fuse_broadcast_producers).run()


