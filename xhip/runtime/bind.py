"""Bind: the one reader of IR for execution. A function becomes a launch program once.

`bind(module, session)` walks the entry function once. Every SSA value gets a register;
constants (arith constants, globals, the constants file's tensors) are uploaded and put
in the registers the program starts from; every other op becomes a step
(`xhip.runtime.steps`) built from what this module reads of it. A hip compute op becomes
a launch: its facts (class, properties with the dialect's defaults, what the memref types
fix of its operands) go to its kernel family for a launch site, the backend loads the
site into a launcher, and its shape contract is proved here or left as a check
(`xhip.runtime.contracts`). After the last op the backend compiles what the launchers
need (`Backend.finish_loading`). Nothing the program runs reads IR again.

The rest of what execution needs of the IR is read here too: the signature, the pooled
views and their live intervals (for the report), why runs cannot replay, the recorded
model buffers, and the kernels a module uses (`module_kernels`, for CI's offline compile).
Tensor-mode and ONNX stages (which only the reference backend runs) are read by
`xhip.runtime.bind_tensor`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    NoneAttr,
    StridedLayoutAttr,
    TensorType,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.traits import SymbolTable

from xhip.analysis.liveness import Interval, live_intervals
from xhip.analysis.memref_extents import RootDim
from xhip.analysis.model_buffers import RecordedBuffers, recorded_model_buffers
from xhip.diagnostics import XhipError, op_error, op_location
from xhip.dialects import hip
from xhip.dialects.hip import OUT_PARAM_ATTR, ContextType, GetPoolOp, pool_alignment
from xhip.dialects.hip.attributes import CONSTANT_OFFSETS_ATTR, CONSTANT_SIZES_ATTR, CONSTANTS_FILE_ATTR, EXTERNAL_DATA_ATTR, parse_external_data
from xhip.dialects.hip.properties import properties_of
from xhip.dialects.onnx.signature import entry_attributes, parse_dim_params, value_name
from xhip.dtypes import numpy_dtype
from xhip.index.host_eval import bitwidth, compare, fold_binary, is_binary_supported
from xhip.kernels.families import site_of
from xhip.kernels.family import OpFacts
from xhip.kernels.spec_types import KernelSpec, Operand
from xhip.rewrite_rules.bufferize.types import kept_dims
from xhip.runtime import kv_cache, steps
from xhip.runtime.bind_tensor import tensor_compute
from xhip.runtime.binder import READERS, STEP_KINDS, Binder, buffer_label, cast_step, reads
from xhip.runtime.buffers import MemRef, Owner, contiguous_strides
from xhip.runtime.contracts import dps_contract, same_count, within
from xhip.runtime.limits import buffer_size_expression, byte_size_expression
from xhip.runtime.program import DEVICE, PURE, Layouts, Program, Session, Step
from xhip.runtime.signature import Signature, TensorSpec

DEFAULT_POOL_ALIGNMENT = 256
HOST_READS = (hip.ReadbackScalarOp, hip.ReadbackDimOp)
UNPOOLED = (hip.AllocOp,)
CACHE_APPENDS = "'hip.cache_append' extends the caller's cache buffers, which a replay could not follow"
"""Why a program that appends to KV caches replays no graph captured at one shape; its runs
are still recorded into graphs across shapes (each run's appends are its own nodes)."""


@dataclass
class Bound:
    """A function bound for execution: its program and what runs and reports read of it."""

    program: Program
    signature: Signature
    pooled: dict[SSAValue, int]
    """Each pooled `memref.view` and its register (what memory reports map back to IR)."""
    intervals: dict[SSAValue, Interval]
    """The live interval of each pooled view (the report's merged bound)."""
    alignment: int
    model_buffers: RecordedBuffers | None
    why_not_replayable: str | None
    why_not_recorded: str | None
    """Why runs at new shapes are not recorded into graphs across shapes (None: they are)."""
    caches: dict[str, tuple[int, str]]
    """Per graph input a `hip.cache_append` extends in place: its cache axis and the output
    the caller feeds back into it (present for past)."""


def entry_function(module: ModuleOp) -> func.FuncOp:
    functions = [op for op in module.ops if isinstance(op, func.FuncOp) and op.body.blocks]
    for fn in functions:
        if fn.sym_name.data == "main_graph":
            return fn
    if len(functions) == 1:
        return functions[0]
    raise XhipError("the module has no @main_graph function to run")


def bind(module: ModuleOp, session: Session, *, graphs: bool = False) -> Bound:
    """The module's entry function as a program for `session`'s backend (module doc).
    `graphs`: whether the caller wants graph replays (only then are `why_not_replayable` and
    `why_not_recorded` read)."""
    fn = entry_function(module)
    if len(fn.body.blocks) != 1:
        raise op_error(fn, "the runtime executes single-block functions only")
    block = fn.body.blocks.first
    assert block is not None
    signature = read_signature(fn)
    binder = Binder(session, module, _input_symbols(fn, signature))
    arguments = binder.slots_of(block.args)
    results: list[int] = []
    gpu = session.backend.name != "reference"
    for op in block.ops:
        if gpu:
            _require_buffers(op, session.backend.name)
        if isinstance(op, func.ReturnOp):
            results = binder.slots_of(op.operands)
            continue
        reader = READERS.get(type(op))
        if reader is None:
            raise op_error(op, f"the runtime cannot execute '{op.name}'")
        step = reader(op, binder)
        if step is not None:
            binder.add(op, step)
    session.backend.finish_loading()
    pooled: dict[SSAValue, int] = {op.result: binder.slot(op.result) for op in block.ops if isinstance(op, memref.ViewOp) and isinstance(op.source.owner, GetPoolOp)}
    alignment = pool_alignment(module)
    try:
        model_buffers = recorded_model_buffers(module, fn.sym_name.data)
    except ValueError as err:
        raise op_error(module, str(err)) from None
    scalar_inputs = any(not spec.is_memref for spec in signature.inputs)
    why_not_recorded = _why_not_recorded(fn, scalar_inputs) if graphs else None
    return Bound(
        program=binder.program(arguments, results),
        signature=signature,
        pooled=pooled,
        intervals=live_intervals(block, pooled) if pooled else {},
        alignment=DEFAULT_POOL_ALIGNMENT if alignment is None else alignment,
        model_buffers=model_buffers,
        why_not_replayable=_why_not_replayable(fn, why_not_recorded) if graphs else None,
        why_not_recorded=why_not_recorded,
        caches=_caches(block, signature),
    )


def _caches(block: Block, signature: Signature) -> dict[str, tuple[int, str]]:
    args = list(block.args)[1 if signature.takes_context else 0 :]
    names: dict[SSAValue, str] = {arg: spec.name for arg, (spec, _) in zip(args, signature.arguments)}
    return {
        names[op.past]: (op.axis.value.data, signature.outputs[op.out_idx.value.data].name)
        for op in block.ops
        if isinstance(op, hip.CacheAppendOp) and op.past in names and op.out_idx.value.data < len(signature.outputs)
    }


def _require_buffers(op: Operation, backend: str) -> None:
    """A GPU backend runs final IR: device work on memrefs. Tensor values (value
    semantics, ONNX ops) are the reference backend's to evaluate."""
    values = [*op.results, *(arg for region in op.regions for block in region.blocks for arg in block.args)]
    if isinstance(op, func.ReturnOp):
        values = list(op.operands)
    if any(isinstance(value.type, TensorType) for value in values):
        raise op_error(
            op,
            f"'{op.name}' computes on tensors: tensor-mode IR runs on the reference backend only, not on "
            f"'{backend}' (compile through one-shot-bufferize, or use --backend reference)",
        )


def _why_not_recorded(function: func.FuncOp, scalar_inputs: bool) -> str | None:
    """Why the function's runs at new shapes cannot go through graphs captured at other
    shapes (`Bound.why_not_recorded`); None when they can."""
    if scalar_inputs:
        return "an input is a host scalar"
    for op in function.walk():
        if isinstance(op, HOST_READS):
            return f"'{op.name}' reads device data on the host"
        if isinstance(op, UNPOOLED):
            return f"'{op.name}' allocates outside the pools"
    return None


def _why_not_replayable(function: func.FuncOp, why_not_recorded: str | None) -> str | None:
    """Why the function's runs cannot be replayed from a graph captured at their shape; None
    when they can: what keeps them from being recorded, and cache appends."""
    if why_not_recorded is None and any(isinstance(op, hip.CacheAppendOp) for op in function.walk()):
        return CACHE_APPENDS
    return why_not_recorded


# ---- the signature ------------------------------------------------------------------------


def read_signature(function: func.FuncOp) -> Signature:
    arg_types = function.function_type.inputs.data
    takes_context = bool(arg_types) and isinstance(arg_types[0], ContextType)
    first = 1 if takes_context else 0
    arguments = tuple(
        (_spec(function, t, entry_attributes(function.arg_attrs, i), f"arg{i - first}"), OUT_PARAM_ATTR in entry_attributes(function.arg_attrs, i))
        for i, t in enumerate(arg_types)
        if i >= first
    )
    outputs = tuple(
        _spec(function, t, entry_attributes(function.res_attrs, i), f"result{i}")
        for i, t in enumerate(function.function_type.outputs.data)
    )
    inputs = tuple(spec for spec, is_result in arguments if not is_result)
    return Signature(inputs, outputs, arguments, takes_context)


def _spec(function: func.FuncOp, value_type: Attribute, attrs: dict[str, Attribute], fallback: str) -> TensorSpec:
    named = value_name(attrs)
    name = fallback if named is None else named
    try:
        symbols = parse_dim_params(attrs)
    except ValueError as err:
        raise op_error(function, f"{name}: {err}") from None
    if not isinstance(value_type, TensorType | MemRefType):
        # A host scalar (a result of stage IR written by hand): rank 0.
        return TensorSpec(name, numpy_dtype(value_type), (), False)
    shape = tuple(
        symbols.get(axis) if extent == DYNAMIC_INDEX else extent
        for axis, extent in enumerate(value_type.get_shape())
    )
    strides = None
    if isinstance(value_type, MemRefType) and isinstance(value_type.layout, StridedLayoutAttr):
        strides = tuple(value_type.layout.get_strides())
    return TensorSpec(name, numpy_dtype(value_type.element_type), shape, isinstance(value_type, MemRefType), strides)


def _input_symbols(function: func.FuncOp, signature: Signature) -> dict[RootDim, str]:
    """Each dynamic dim of a graph input with a dim_params symbol (the run checks that the
    inputs agree on it), for the contract proofs."""
    block = function.body.blocks.first
    assert block is not None
    args = list(block.args)[1 if signature.takes_context else 0 :]
    named = {}
    for arg, (spec, _) in zip(args, signature.arguments):
        for axis, declared in enumerate(spec.shape):
            if isinstance(declared, str):
                named[RootDim(arg, axis)] = declared
    return named


# ---- arith ----------------------------------------------------------------------------------


def constant_value(op: arith.ConstantOp) -> object:
    value = op.value
    if isinstance(value, IntegerAttr):
        return value.value.data
    if isinstance(value, FloatAttr):
        return float(value.value.data)
    if isinstance(value, DenseIntOrFPElementsAttr):
        dtype = numpy_dtype(value.get_element_type())
        raw = np.frombuffer(value.data.data, dtype=np.bool_ if dtype == np.bool_ else dtype)
        array = raw.reshape(value.get_shape()).copy()
        array.flags.writeable = False
        return array
    raise ValueError(f"unsupported constant {value}")


@reads(arith.ConstantOp)
def _constant(op: Operation, b: Binder) -> None:
    assert isinstance(op, arith.ConstantOp)
    b.preset(op.result, constant_value(op))


def _integer_binary(op: Operation, b: Binder) -> Step:
    fold = functools.partial(_fold, type(op), bitwidth(op.results[0].type))
    return steps.integer_binary(fold, b.slot(op.operands[0]), b.slot(op.operands[1]), b.slot(op.results[0]))


def _fold(op_type: type[Operation], width: int, lhs: int, rhs: int) -> int:
    return fold_binary(op_type, lhs, rhs, width)


for _cls in vars(arith).values():
    if isinstance(_cls, type) and issubclass(_cls, Operation) and is_binary_supported(_cls):
        READERS.setdefault(_cls, _integer_binary)
        STEP_KINDS.setdefault(_cls, PURE)


@reads(arith.CmpiOp, kind=PURE)
def _cmpi(op: Operation, b: Binder) -> Step:
    assert isinstance(op, arith.CmpiOp)
    predicate, width = op.predicate.value.data, bitwidth(op.lhs.type)
    fold = lambda lhs, rhs: int(compare(predicate, lhs, rhs, width))  # noqa: E731
    return steps.integer_binary(fold, b.slot(op.lhs), b.slot(op.rhs), b.slot(op.result))


@reads(arith.SelectOp, kind=PURE)
def _select(op: Operation, b: Binder) -> Step:
    cond, x, y = b.slots_of(op.operands)
    return steps.select(cond, x, y, b.slot(op.results[0]))


@reads(arith.IndexCastOp, arith.ExtSIOp, arith.TruncIOp, kind=PURE)
def _signed_cast(op: Operation, b: Binder) -> Step:
    return steps.signed_cast(b.slot(op.operands[0]), b.slot(op.results[0]), bitwidth(op.results[0].type))


@reads(arith.ExtUIOp, kind=PURE)
def _extui(op: Operation, b: Binder) -> Step:
    widths = bitwidth(op.operands[0].type), bitwidth(op.results[0].type)
    return steps.unsigned_extension(b.slot(op.operands[0]), b.slot(op.results[0]), *widths)


_FLOAT_BINARY = {
    arith.AddfOp: np.add,
    arith.SubfOp: np.subtract,
    arith.MulfOp: np.multiply,
    arith.DivfOp: np.divide,
    arith.MaximumfOp: np.maximum,
    arith.MinimumfOp: np.minimum,
}


@reads(*_FLOAT_BINARY, kind=PURE)
def _float_binary(op: Operation, b: Binder) -> Step:
    ufunc, dtype = _FLOAT_BINARY[type(op)], numpy_dtype(op.results[0].type)  # type: ignore[index]
    return steps.float_binary(ufunc, dtype, b.slot(op.operands[0]), b.slot(op.operands[1]), b.slot(op.results[0]))


@reads(arith.SIToFPOp, arith.FPToSIOp, arith.ExtFOp, arith.TruncFOp, kind=PURE)
def _numeric_cast(op: Operation, b: Binder) -> Step:
    return steps.numeric_cast(numpy_dtype(op.results[0].type), b.slot(op.operands[0]), b.slot(op.results[0]))


def _register_math() -> None:
    from xdsl.dialects import math as math_dialect

    def rounding(op: Operation, b: Binder) -> Step:
        function = np.ceil if isinstance(op, math_dialect.CeilOp) else np.floor
        return steps.float_unary(function, numpy_dtype(op.results[0].type), b.slot(op.operands[0]), b.slot(op.results[0]))

    reads(math_dialect.CeilOp, math_dialect.FloorOp, kind=PURE)(rounding)


_register_math()


# ---- memref -----------------------------------------------------------------------------------


def _allocation(op: Operation, b: Binder, dynamic: Sequence[SSAValue], kind: str, output_index: int | None = None) -> Step:
    result_type = op.results[0].type
    assert isinstance(result_type, MemRefType)
    dtype = numpy_dtype(result_type.element_type)
    expression = buffer_size_expression(result_type.get_shape(), dynamic, dtype.itemsize)
    size = steps.checked_size(b.session, dtype.itemsize, op_location(op), expression)
    shape = b.shape(result_type, dynamic)
    return steps.allocation(b.session, shape, size, dtype, Owner(buffer_label(op)), kind, b.slot(op.results[0]), output_index)


@reads(memref.AllocOp, memref.AllocaOp)
def _alloc(op: Operation, b: Binder) -> Step:
    return _allocation(op, b, op.operands, "alloc")


@reads(hip.AllocOp)
def _hip_alloc(op: Operation, b: Binder) -> Step:
    return _allocation(op, b, op.operands[1:], "alloc")


@reads(hip.AllocOutputOp)
def _alloc_output(op: Operation, b: Binder) -> Step:
    assert isinstance(op, hip.AllocOutputOp)
    return _allocation(op, b, op.operands[1:], "output", op.out_idx.value.data)


@reads(hip.CacheAppendOp)
def _cache_append(op: Operation, b: Binder) -> Step:
    assert isinstance(op, hip.CacheAppendOp)
    past, new = b.slots_of([op.past, op.new])
    fn = op.parent_op()
    named = value_name(entry_attributes(fn.res_attrs, op.out_idx.value.data)) if isinstance(fn, func.FuncOp) else None
    label = f"cache of output '{named}'" if named else f"cache {buffer_label(op)}"
    declared = b.shape(op.result.type, op.dynamic_sizes)
    return kv_cache.append(b.session, past, new, declared, b.slot(op.result), op.axis.value.data, label, op_location(op))


@reads(memref.DeallocOp, hip.FreeOp)
def _release(op: Operation, b: Binder) -> None:
    return None  # buffers are garbage collected; lifetimes matter only to planners


@reads(memref.LoadOp)
def _load(op: Operation, b: Binder) -> Step:
    source, *indices = b.slots_of(op.operands)
    return steps.host_load(b.session, source, indices, b.slot(op.results[0]), op_location(op))


@reads(memref.StoreOp)
def _store(op: Operation, b: Binder) -> Step:
    value, target, *indices = b.slots_of(op.operands)
    return steps.host_store(b.session, value, target, indices, op_location(op))


@reads(memref.CopyOp, kind=DEVICE)
def _copy(op: Operation, b: Binder) -> Step:
    source, target = b.slots_of(op.operands)
    return steps.copy(b.session, source, target, op_location(op))


@reads(memref.ViewOp, kind=PURE)
def _view(op: Operation, b: Binder) -> Step:
    assert isinstance(op, memref.ViewOp)
    result_type = op.result.type
    static = result_type.get_shape()
    # Row-major strides are those of the later dims: static unless a `?` follows dim 0.
    strides = contiguous_strides([1, *static[1:]]) if static and DYNAMIC_INDEX not in static[1:] else None
    return steps.view(
        b.shape(result_type, op.sizes), b.slot(op.source), b.slot(op.byte_shift),
        numpy_dtype(result_type.element_type), Owner(buffer_label(op)), b.slot(op.result), strides,
    )  # fmt: skip


def _offsets_sizes_strides(op: Operation, b: Binder) -> tuple[steps.Shape, steps.Shape, steps.Shape]:
    """The mixed static/dynamic offsets, sizes and strides of a slice-like op."""
    return tuple(  # type: ignore[return-value]
        b.mixed(getattr(op, f"static_{part}").get_values(), getattr(op, part)) for part in ("offsets", "sizes", "strides")
    )


@reads(memref.SubviewOp, kind=PURE)
def _subview(op: Operation, b: Binder) -> Step:
    assert isinstance(op, memref.SubviewOp)
    offsets, sizes, strides = _offsets_sizes_strides(op, b)
    result_shape = tuple(op.result.type.get_shape())
    rank = len(op.static_sizes.get_values())
    kept = None if len(result_shape) == rank else (lambda dims: kept_dims(dims, result_shape))
    return steps.subview(
        offsets, sizes, strides, b.slot(op.source), b.slot(op.result), within(op_location(op)), kept, *_layout_config(op, b)
    )  # fmt: skip


@reads(memref.ReinterpretCastOp, kind=PURE)
def _reinterpret_cast(op: Operation, b: Binder) -> Step:
    assert isinstance(op, memref.ReinterpretCastOp)
    offsets, sizes, strides = _offsets_sizes_strides(op, b)
    is_reshape = _is_reshape(op)
    # A reshape is a view: the same bytes, so the same logical buffer, whatever the
    # rank. A slot taken over in place is a new logical buffer in old bytes.
    owner = None if is_reshape else Owner(buffer_label(op))
    count = same_count(op_location(op)) if is_reshape and not op.source.type.has_static_shape() else None  # type: ignore[attr-defined]  # a memref
    dtype = numpy_dtype(op.result.type.element_type)
    return steps.reinterpret_cast(offsets, sizes, strides, b.slot(op.source), b.slot(op.result), dtype, owner, count)


def _is_reshape(op: memref.ReinterpretCastOp) -> bool:
    """Whether the cast is a reshape (one-shot-bufferize, to or from rank 0) rather
    than in-place reuse (hip-optimize-memrefs: a static slot read as another static
    shape). A reshape keeps the element count; only a reshape casts a dynamic shape."""
    source, result = op.source.type, op.result.type
    if not (source.has_static_shape() and result.has_static_shape()):  # type: ignore[attr-defined]
        return True
    return math.prod(source.get_shape()) == math.prod(result.get_shape())  # type: ignore[attr-defined]


def _groups(op: Operation) -> list[list[int]]:
    return [[int(i.value.data) for i in group] for group in op.reassociation.data]  # type: ignore[attr-defined]


@reads(memref.ExpandShapeOp, kind=PURE)
def _expand_shape(op: Operation, b: Binder) -> Step:
    output_shape = b.mixed(op.static_output_shape.get_values(), op.operands[1:])  # type: ignore[attr-defined]
    return steps.expand_shape(
        _groups(op), output_shape, b.slot(op.operands[0]), b.slot(op.results[0]), same_count(op_location(op)), *_layout_config(op, b)
    )  # fmt: skip


@reads(memref.CollapseShapeOp, kind=PURE)
def _collapse_shape(op: Operation, b: Binder) -> Step:
    return steps.collapse_shape(_groups(op), b.slot(op.operands[0]), b.slot(op.results[0]), *_layout_config(op, b))


def _layout_config(op: Operation, b: Binder) -> tuple[Layouts, int]:
    """The session's shared view layouts, and the number of this view's configuration: ops
    of one name, operand and result types and attributes derive one layout from one source
    layout and one set of run-time extents (the dynamic operands are in the layout's key)."""
    description = (op.name, *(str(v.type) for v in op.operands), *(str(r.type) for r in op.results),
                   *sorted((name, str(value)) for name, value in op.properties.items()),
                   *sorted((name, str(value)) for name, value in op.attributes.items()))  # fmt: skip
    return b.session.layouts, b.session.layouts.config(description)


@reads(memref.DimOp, kind=PURE)
def _dim(op: Operation, b: Binder) -> Step:
    source, index = b.slots_of(op.operands)
    return steps.dim(source, index, b.slot(op.results[0]))


@reads(memref.CastOp, kind=PURE)
def _cast(op: Operation, b: Binder) -> Step:
    return cast_step(op, b)


# ---- constants --------------------------------------------------------------------------------


def _constants_bytes(b: Binder, op: Operation, offset: int, size: int) -> bytes:
    if b.session.constants_file is None:
        raise op_error(op, f"external constant without a module {CONSTANTS_FILE_ATTR} attribute")
    return b.session.constants_file.read(offset, size)


def _uploaded(b: Binder, key: object, label: str, values: np.ndarray) -> MemRef:
    """The device copy of constant data, made once per session."""
    session = b.session
    if key in session.constants:
        return session.constants[key]
    owner = Owner(label)
    constant = MemRef.contiguous(session.backend.allocate(values.nbytes, owner.label, "constant"), list(values.shape), values.dtype, owner)
    session.backend.upload(constant, values)
    session.constants[key] = constant
    return constant


@reads(memref.GetGlobalOp)
def _get_global(op: Operation, b: Binder) -> None:
    assert isinstance(op, memref.GetGlobalOp)
    symbol = op.name_.root_reference.data
    if symbol not in b.session.constants:
        declaration = SymbolTable.lookup_symbol(b.module, symbol)
        if not isinstance(declaration, memref.GlobalOp):
            raise op_error(op, f"no memref.global named @{symbol}")
        memref_type = declaration.type
        shape, dtype = list(memref_type.get_shape()), numpy_dtype(memref_type.element_type)
        external = declaration.attributes.get(EXTERNAL_DATA_ATTR)
        if external is not None:
            try:
                place = parse_external_data(external)
            except ValueError as err:
                raise op_error(op, f"@{symbol}: {err}") from None
            raw = _constants_bytes(b, op, place.offset, place.size)
        elif isinstance(declaration.initial_value, DenseIntOrFPElementsAttr):
            raw = declaration.initial_value.data.data
        else:
            raise op_error(op, f"@{symbol} has neither an initial value nor {EXTERNAL_DATA_ATTR}")
        _uploaded(b, symbol, f"@{symbol}", np.frombuffer(raw, dtype=dtype).reshape(shape))
    b.preset(op.memref, b.session.constants[symbol])


@reads(hip.GetConstantOp)
def _get_constant(op: Operation, b: Binder) -> Step | None:
    """Constant #index of the constants file (`hip.get_constant`), uploaded at bind time
    when its index is a constant (always, from hip-resolve-extern-constants)."""
    assert isinstance(op, hip.GetConstantOp)
    index_op = op.operands[1].owner
    if not (isinstance(index_op, arith.ConstantOp) and isinstance(index_op.value, IntegerAttr)):
        raise op_error(op, "hip.get_constant needs a constant index")
    index, result_type = index_op.value.value.data, op.results[0].type
    key = ("constant", index)
    if key not in b.session.constants:
        offsets, sizes = (b.module.attributes.get(name) for name in (CONSTANT_OFFSETS_ATTR, CONSTANT_SIZES_ATTR))
        if not isinstance(offsets, DenseArrayBase) or not isinstance(sizes, DenseArrayBase):
            raise op_error(op, f"hip.get_constant needs the module attributes {CONSTANT_OFFSETS_ATTR} and {CONSTANT_SIZES_ATTR}")
        offset_values, size_values = offsets.get_values(), sizes.get_values()
        if not 0 <= index < len(offset_values):
            raise op_error(op, f"constant index {index} is out of range: the module has {len(offset_values)} constants")
        raw = _constants_bytes(b, op, offset_values[index], size_values[index])
        shape, dtype = list(result_type.get_shape()), numpy_dtype(result_type.element_type)  # type: ignore[attr-defined]
        _uploaded(b, key, f"constant #{index}", np.frombuffer(raw, dtype=dtype).reshape(shape))
    b.preset(op.results[0], b.session.constants[key])
    return None


# ---- hip infrastructure -----------------------------------------------------------------------


@reads(hip.GetPoolOp)
def _get_pool(op: Operation, b: Binder) -> Step:
    assert isinstance(op, hip.GetPoolOp)
    size = op.operands[1]
    return steps.get_pool(
        b.session, op.domain_id.value.data, b.slot(size), b.slot(op.results[0]), Owner(buffer_label(op)),
        op_location(op), byte_size_expression(size),
    )  # fmt: skip


@reads(hip.PlanPoolOp, kind=PURE)
def _plan_pool(op: Operation, b: Binder) -> Step:
    assert isinstance(op, hip.PlanPoolOp)
    return steps.plan_pool(b.slots_of(op.sizes), op.interval_pairs(), op.alignment.value.data, b.slot(op.total), b.slots_of(op.offsets))


@reads(hip.GetHostScratchOp)
def _get_host_scratch(op: Operation, b: Binder) -> Step:
    size = op.operands[1]
    return steps.host_scratch(b.session, b.slot(size), b.slot(op.results[0]), Owner(buffer_label(op)), op_location(op), byte_size_expression(size))


@reads(*HOST_READS)
def _readback(op: Operation, b: Binder) -> Step:
    return steps.readback(b.session, b.slot(op.operands[1]), b.slot(op.results[0]), op.waits_for_producer, op_location(op))  # type: ignore[attr-defined]


# ---- hip compute ops ----------------------------------------------------------------------------


def operand_facts(value: SSAValue) -> Operand:
    """What the IR fixes of one operand: dtype, static extents, identity layout."""
    kind: Attribute = value.type
    assert isinstance(kind, MemRefType | TensorType)
    shape = tuple(None if d < 0 else d for d in kind.get_shape())
    contiguous = isinstance(kind, TensorType) or isinstance(kind.layout, NoneAttr)
    return Operand(numpy_dtype(kind.element_type), shape, contiguous)


def op_facts(op: hip.DPSOp) -> OpFacts:
    return OpFacts(
        type(op), properties_of(op), tuple(operand_facts(v) for v in op.inputs), tuple(operand_facts(v) for v in op.outputs)
    )


def _compute(op: Operation, b: Binder) -> Step:
    assert isinstance(op, hip.DPSOp)
    if op.is_tensor_mode:
        return tensor_compute(op, b)
    try:
        site = site_of(op_facts(op))
    except ValueError as err:
        raise op_error(op, str(err)) from None
    launcher = b.session.backend.load(site, op_location(op))
    contract = dps_contract(op, b.slot, b.symbols)
    return steps.launch(launcher, b.slots_of(op.inputs), b.slots_of(op.outputs), b.slots_of(op.scalars), contract)


for _op in hip.HIP.operations:
    if issubclass(_op, hip.DPSOp):
        reads(_op, kind=DEVICE)(_compute)


def module_kernels(module: ModuleOp) -> Iterator[KernelSpec]:
    """Every kernel of every hip compute op, in IR order (the form for every launch, then
    the one for launches without run-time broadcast); repeats included."""
    for op in module.walk():
        if isinstance(op, hip.DPSOp):
            forms = site_of(op_facts(op)).forms
            yield from forms[0]
            yield from forms[-1]
