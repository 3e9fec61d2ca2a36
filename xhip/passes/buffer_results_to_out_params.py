"""buffer-results-to-out-params: graph outputs become caller-provided arguments.

The seed 003 order (before the output allocator existed): each memref result
becomes a trailing argument tagged `bufferize.result`, carrying the result's
attributes (`onnx.name`, `onnx.dim_params`). A returned `memref.alloc` is
replaced by the argument, so the producer writes the caller's buffer; any
other returned value (a function argument, a view, a value returned twice)
is copied into it.

The caller must size the argument before the call, so only results whose
dynamic dims are all named by `onnx.dim_params` symbols that some input also
names are promoted; the rest (NonZero's data-dependent count) stay results for
hip-use-output-allocator.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin, func, memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DictionaryAttr,
    MemRefType,
    UnitAttr,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xhip.diagnostics import op_error
from xhip.dialects.hip.attributes import OUT_PARAM_ATTR
from xhip.dialects.onnx.signature import entry_attributes, parse_dim_params, value_name
from xhip.passes.contracts import function_body, require_bufferized_results

PASS_NAME = "buffer-results-to-out-params"


def _symbols(fn: func.FuncOp, attrs: dict[str, Attribute]) -> dict[int, str]:
    try:
        return parse_dim_params(attrs)
    except ValueError as err:
        raise op_error(fn, f"{PASS_NAME}: '@{fn.sym_name.data}': {err}") from None


def _caller_can_size(fn: func.FuncOp, result_type: Attribute, attrs: dict[str, Attribute], known: set[str]) -> bool:
    if not isinstance(result_type, MemRefType):
        return False
    symbols = _symbols(fn, attrs)
    dynamic = [axis for axis, extent in enumerate(result_type.get_shape()) if extent == DYNAMIC_INDEX]
    return all(symbols.get(axis) in known for axis in dynamic)


def _write_into(value: SSAValue, out_param: SSAValue, ret: func.ReturnOp) -> None:
    """Make the returned `value` land in `out_param`.

    A returned allocation becomes the out-parameter itself, so its producer writes
    the caller's buffer. Anything else is copied in before the return: a function
    argument (a graph input that is also an output), a view, or a buffer already
    promoted for an earlier result (two outputs that are one value), which the
    caller still sees as two buffers.
    """
    producer = value.owner
    if isinstance(producer, memref.AllocOp):
        producer.results[0].replace_all_uses_with(out_param)
        Rewriter.erase_op(producer)
    else:
        Rewriter.insert_op(memref.CopyOp(value, out_param), InsertPoint.before(ret))


def _promote(fn: func.FuncOp) -> None:
    block = fn.body.blocks.first
    assert block is not None
    ret = block.last_op
    if not isinstance(ret, func.ReturnOp):
        raise op_error(fn, f"'@{fn.sym_name.data}' does not end in func.return")
    require_bufferized_results(fn, ret, PASS_NAME)
    inputs = list(fn.function_type.inputs.data)
    known = {name for i in range(len(inputs)) for name in _symbols(fn, entry_attributes(fn.arg_attrs, i)).values()}
    arg_attrs = [DictionaryAttr(entry_attributes(fn.arg_attrs, i)) for i in range(len(inputs))]
    kept: list[int] = []
    kept_attrs: list[DictionaryAttr] = []
    for index in range(len(ret.operands)):
        # Read the operand now: promoting an earlier result may have replaced it.
        value = ret.operands[index]
        attrs = entry_attributes(fn.res_attrs, index)
        if not _caller_can_size(fn, value.type, attrs, known):
            kept.append(index)
            kept_attrs.append(DictionaryAttr(attrs))
            continue
        out_param = block.insert_arg(value.type, len(block.args))
        name = value_name(attrs)
        if name is not None and name.isidentifier():
            out_param.name_hint = name
        inputs.append(value.type)
        arg_attrs.append(DictionaryAttr({**attrs, OUT_PARAM_ATTR: UnitAttr()}))
        _write_into(value, out_param, ret)
    kept_values = [ret.operands[index] for index in kept]
    Rewriter.replace_op(ret, func.ReturnOp(*kept_values))
    fn.function_type = builtin.FunctionType.from_lists(inputs, [v.type for v in kept_values])
    fn.arg_attrs = ArrayAttr(arg_attrs)
    fn.res_attrs = ArrayAttr(kept_attrs) if kept_attrs else None


@dataclass(frozen=True)
class BufferResultsToOutParamsPass(ModulePass):
    """Turn memref results the caller can size into `bufferize.result` out-parameters."""

    name = PASS_NAME

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for fn in [f for f in op.walk() if isinstance(f, func.FuncOp) and f.body.blocks]:
            function_body(fn, self.name)
            _promote(fn)
