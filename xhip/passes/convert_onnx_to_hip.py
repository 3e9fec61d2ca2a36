"""convert-onnx-to-hip: ONNX ops to destination-passing hip ops in tensor mode.

Argument dims are read once at entry, one value per `onnx.dim_params` symbol:
inputs that declare the same symbol share its first `tensor.dim` (the runtime
rejects feeds where they disagree). Each function is then walked once in
program order; each ONNX op is handed to the converter of its family
(xhip/rewrite_rules/onnx_to_hip), which builds the new IR right before it.
Destinations are `tensor.empty` sized by `xhip.shapes`; shape subgraphs stay
host index arithmetic; everything else reads the converted values. Afterwards
the ONNX ops and `onnx.EntryPoint` are erased.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin, func, tensor
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.transforms.dead_code_elimination import region_dce

from xhip.diagnostics import op_error
from xhip.dialects.onnx.signature import ArgumentAxis, shared_symbol_dims
from xhip.passes.contracts import require_context
from xhip.rewrite_rules.onnx_to_hip import CONVERTERS, ConversionState

PASS = "convert-onnx-to-hip"
ONNX_PREFIX = "onnx."
ENTRY_POINT = "onnx.EntryPoint"


def _is_onnx(op: Operation) -> bool:
    return op.name.startswith(ONNX_PREFIX)


def _convert_function(fn: func.FuncOp, conv_as_matmul: bool) -> None:
    context = require_context(fn, PASS, "converting ONNX ops to hip ops")
    block = fn.body.blocks.first
    assert block is not None
    state = ConversionState(context, block, conv_as_matmul=conv_as_matmul)
    state.define_arguments(block.args[1:], _shared_symbol_dims(fn))
    converted: list[Operation] = []
    for op in list(block.ops):
        if not _is_onnx(op):
            _use_converted_operands(op, state)
            continue
        converter = CONVERTERS.get(op.name)
        if converter is None:
            raise op_error(op, f"no conversion to hip for '{op.name}'")
        state.move_before(op)
        results = converter(op, state)
        if len(results) != len(op.results):
            raise op_error(op, f"converter produced {len(results)} values for {len(op.results)} results")
        for onnx_result, lowered in zip(op.results, results):
            state.define(onnx_result, lowered)
        converted.append(op)
    for op in reversed(converted):
        Rewriter.erase_op(op)
    # Argument dims are read up front; drop the ones no destination needed.
    region_dce(fn.body)


def _shared_symbol_dims(fn: func.FuncOp) -> dict[ArgumentAxis, ArgumentAxis]:
    try:
        return shared_symbol_dims(fn.function_type.inputs.data, fn.arg_attrs)
    except ValueError as err:
        raise op_error(fn, f"{PASS}: '@{fn.sym_name.data}': {err}") from None


def _use_converted_operands(op: Operation, state: ConversionState) -> None:
    """Point a non-ONNX op (typically func.return) at the converted values."""
    state.move_before(op)
    for index, operand in enumerate(op.operands):
        if not (isinstance(operand.owner, Operation) and _is_onnx(operand.owner)):
            continue
        value = state.tensor(operand)
        if value.type != operand.type:
            # The converted type may be more static than the imported one (which may be
            # unranked: the op allows that, CastOp's constructor is typed for ranked only).
            value = state.insert(tensor.CastOp.build(operands=[value], result_types=[operand.type])).results[0]
        op.operands = [*op.operands[:index], value, *op.operands[index + 1 :]]


@dataclass(frozen=True)
class ConvertOnnxToHipPass(ModulePass):
    """Convert ONNX ops to hip destination-passing ops with shape-rule-sized destinations."""

    name = PASS

    conv_as_matmul: bool = True
    """A Conv of one group becomes hip.im2col (its windows as columns, in a pooled buffer) and
    a hip.matmul (cuBLAS / hipBLAS on a GPU); false: the direct convolution kernel."""

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for fn in [f for f in op.walk() if isinstance(f, func.FuncOp)]:
            if fn.body.blocks:
                _convert_function(fn, self.conv_as_matmul)
        for entry in [o for o in op.walk() if o.name == ENTRY_POINT]:
            Rewriter.erase_op(entry)
