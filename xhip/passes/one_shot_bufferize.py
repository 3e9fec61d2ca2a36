"""one-shot-bufferize: tensors become memrefs, each DPS op writing a buffer of its own.

Our own pass with the upstream name, for the IR `convert-onnx-to-hip` emits
(DESIGN.md §3, stage 3; seed 003 "Pass 3"):

- `tensor.empty` -> `memref.alloc` with the same dynamic sizes, one per destination
  use: cse merges equal empties, so several ops may share one as their init;
- tensor-mode hip DPS ops -> memref mode, writing their fresh buffers; an init
  with content is copied first (value semantics);
- `tensor.dim` -> `memref.dim`, `tensor.extract` -> `memref.load`,
  `tensor.from_elements` -> `memref.alloc` + `memref.store`s (host stores),
  `extract_slice` -> `memref.subview`, `insert_slice` -> copy into a subview of a
  fresh buffer, `expand_shape`/`collapse_shape`/`reshape` -> memref views (a
  strided source is copied first), `tensor.cast` -> `memref.cast`;
- dense tensor constants -> private constant `memref.global`s (alignment 64);
  `bufferization.to_tensor` of a global -> the global's memref, never written;
- function boundaries: tensor arguments and results become identity-layout
  memrefs, their attributes kept; a strided returned view is copied; an unranked
  result that returns a cast of a ranked tensor takes the ranked type.

Afterwards no tensor type remains in any function. Ops on tensors that are not
in this list, multi-block functions and unranked tensors are located errors.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin, func, tensor
from xdsl.dialects.builtin import (
    FunctionType,
    MemRefType,
    TensorType,
    UnrankedTensorType,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from xhip.diagnostics import op_error
from xhip.dialects.hip import DPSOp
from xhip.passes.contracts import function_body
from xhip.rewrite_rules.bufferize.constants import ConstantGlobals
from xhip.rewrite_rules.bufferize.hip_ops import bufferize_dps, bufferize_in_place
from xhip.rewrite_rules.bufferize.state import BufferizationState
from xhip.rewrite_rules.bufferize.tensor_ops import RULES
from xhip.rewrite_rules.bufferize.types import is_identity, memref_of

PASS = "one-shot-bufferize"


def _is_tensor(type_: Attribute) -> bool:
    return isinstance(type_, TensorType | UnrankedTensorType)


def _touches_tensors(op: Operation) -> bool:
    return any(_is_tensor(v.type) for v in (*op.operands, *op.results))


def _boundary_type(fn: func.FuncOp, type_: Attribute, what: str) -> Attribute:
    if isinstance(type_, UnrankedTensorType):
        raise op_error(fn, f"{PASS}: {what} of '@{fn.sym_name.data}' is an unranked tensor ({type_})")
    return memref_of(type_) if isinstance(type_, TensorType) else type_


def _rank_unranked_results(fn: func.FuncOp, block: Block) -> None:
    """An unranked result (an output ONNX declared without a shape) that returns a
    `tensor.cast` of a ranked tensor takes the ranked type: the cast is dropped."""
    ret = block.last_op
    if not isinstance(ret, func.ReturnOp):
        return
    outputs = list(fn.function_type.outputs.data)
    operands = list(ret.operands)
    casts: list[tensor.CastOp] = []
    for index, (value, type_) in enumerate(zip(operands, outputs)):
        cast = value.owner
        if isinstance(type_, UnrankedTensorType) and isinstance(cast, tensor.CastOp):
            if isinstance(cast.source.type, TensorType):
                operands[index], outputs[index] = cast.source, cast.source.type
                casts.append(cast)
    ret.operands = operands
    fn.function_type = FunctionType.from_lists(list(fn.function_type.inputs.data), outputs)
    for cast in dict.fromkeys(casts):
        if not cast.dest.uses:
            Rewriter.erase_op(cast)


def _convert_signature(fn: func.FuncOp) -> None:
    inputs = [_boundary_type(fn, t, f"argument #{i}") for i, t in enumerate(fn.function_type.inputs.data)]
    outputs = [_boundary_type(fn, t, f"result #{i}") for i, t in enumerate(fn.function_type.outputs.data)]
    fn.function_type = FunctionType.from_lists(inputs, outputs)


def _bufferize_arguments(block: Block, state: BufferizationState) -> list[BlockArgument]:
    """A memref argument next to each tensor argument; returns the tensor ones (to erase)."""
    old = [arg for arg in block.args if _is_tensor(arg.type)]
    for arg in old:
        new = block.insert_arg(memref_of(arg.type), arg.index + 1)  # type: ignore[arg-type]
        new.name_hint = arg.name_hint
        state.bind(arg, new)
    return old


def _bufferize_return(op: func.ReturnOp, fn: func.FuncOp, state: BufferizationState) -> None:
    results = fn.function_type.outputs.data
    values = []
    for value, result_type in zip(op.arguments, results, strict=True):
        buffer = state.buffer(value)
        if isinstance(buffer.type, MemRefType) and not is_identity(buffer.type):
            # The boundary has identity layouts: a strided view leaves as a copy.
            buffer = state.copy_of(buffer)
        values.append(state.cast(buffer, result_type))
    op.operands = values


def _bufferize_op(op: Operation, fn: func.FuncOp, state: BufferizationState) -> bool:
    """Bufferize one op that touches tensors; True when the op is to be erased."""
    state.at = op
    if isinstance(op, DPSOp):
        bufferize_dps(op, state)
        return True
    if isinstance(op, func.ReturnOp):
        _bufferize_return(op, fn, state)
        return False
    rule = RULES.get(type(op))
    if rule is not None:
        rule(op, state)
        return True
    if op.dialect_name() == "hip" and not any(_is_tensor(t) for t in op.result_types):
        bufferize_in_place(op, state)
        return False
    raise op_error(op, f"{PASS}: '{op.name}' on tensors is not supported")


def _bufferize_function(fn: func.FuncOp, constants: ConstantGlobals) -> None:
    block = function_body(fn, PASS)
    if block is not None:
        _rank_unranked_results(fn, block)
    _convert_signature(fn)
    if block is None:
        return
    state = BufferizationState(block, constants)
    tensor_args = _bufferize_arguments(block, state)
    bufferized: list[Operation] = []
    for op in list(block.ops):
        if any(_touches_tensors(nested) for region in op.regions for nested in region.walk()):
            raise op_error(op, f"{PASS}: tensors inside regions ('{op.name}') are not supported")
        if _touches_tensors(op) and _bufferize_op(op, fn, state):
            bufferized.append(op)
    # Every use of a tensor value is now in a bufferized op: erase users first.
    for op in reversed(bufferized):
        Rewriter.erase_op(op)
    for arg in tensor_args:
        block.erase_arg(arg)


@dataclass(frozen=True)
class OneShotBufferizePass(ModulePass):
    """Tensors to memrefs: fresh buffers for DPS outputs, views for views, identity-layout boundaries."""

    name = PASS

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        constants = ConstantGlobals(op)
        for fn in [f for f in op.walk() if isinstance(f, func.FuncOp)]:
            _bufferize_function(fn, constants)
