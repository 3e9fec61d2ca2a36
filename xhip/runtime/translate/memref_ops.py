"""memref ops: allocations, views with real aliasing, host loads/stores, copies, globals."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects import memref
from xdsl.dialects.builtin import DenseArrayBase, DenseIntOrFPElementsAttr, ModuleOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.traits import SymbolTable

from xhip.diagnostics import op_error, op_location
from xhip.dialects.hip.attributes import (
    CONSTANT_OFFSETS_ATTR,
    CONSTANT_SIZES_ATTR,
    CONSTANTS_FILE_ATTR,
    EXTERNAL_DATA_ATTR,
    parse_external_data,
)
from xhip.rewrite_rules.bufferize.types import kept_dims
from xhip.runtime.buffers import MemRef, Owner, contiguous_strides, numpy_dtype
from xhip.runtime.contracts import require_same_count, require_within
from xhip.runtime.limits import buffer_size_expression
from xhip.runtime.translate.base import (
    PlanBuilder,
    Registers,
    Session,
    Step,
    buffer_label,
    mixed_values,
    offsets_sizes_strides,
    shape_of_type,
    translates,
)


def sized_allocation(op: Operation, memref_type: Attribute, dynamic: Sequence[SSAValue], session: Session) -> Callable[[list[int]], int]:
    """The byte size of `op`'s buffer for runtime `dims`, checked against the session's cap."""
    itemsize = numpy_dtype(memref_type.element_type).itemsize  # type: ignore[attr-defined]
    location = op_location(op)
    expression = buffer_size_expression(memref_type.get_shape(), dynamic, itemsize)  # type: ignore[attr-defined]

    def size(dims: list[int]) -> int:
        nbytes = math.prod(dims) * itemsize
        session.cap.require(nbytes, location, expression, dims)
        return nbytes

    return size


@translates("memref.alloc", "memref.alloca")
def translate_alloc(op: Operation, plan: PlanBuilder) -> Step:
    result_type = op.results[0].type
    shape = shape_of_type(result_type, plan.slots(op.operands))
    dtype, out = numpy_dtype(result_type.element_type), plan.slot(op.results[0])  # type: ignore[attr-defined]
    owner, backend = Owner(buffer_label(op)), plan.session.backend
    checked_size = sized_allocation(op, result_type, op.operands, plan.session)

    def step(regs: Registers) -> None:
        dims = shape(regs)
        buffer = backend.allocate(checked_size(dims), owner.label, "alloc")
        regs[out] = MemRef.contiguous(buffer, dims, dtype, owner)

    return step


@translates("memref.dealloc")
def translate_dealloc(op: Operation, plan: PlanBuilder) -> None:
    return None  # buffers are garbage collected; lifetimes matter only to planners


@translates("memref.load")
def translate_load(op: Operation, plan: PlanBuilder) -> Step:
    source, *indices = plan.slots(op.operands)
    out, backend, location = plan.slot(op.results[0]), plan.session.backend, op_location(op)

    def step(regs: Registers) -> None:
        regs[out] = backend.host_load(regs[source], [regs[i] for i in indices], location)  # type: ignore[arg-type]

    return step


@translates("memref.store")
def translate_store(op: Operation, plan: PlanBuilder) -> Step:
    value, target, *indices = plan.slots(op.operands)
    backend, location = plan.session.backend, op_location(op)

    def step(regs: Registers) -> None:
        backend.host_store(regs[target], [regs[i] for i in indices], regs[value], location)  # type: ignore[arg-type]

    return step


@translates("memref.copy")
def translate_copy(op: Operation, plan: PlanBuilder) -> Step:
    source, target = plan.slots(op.operands)
    backend, location = plan.session.backend, op_location(op)

    def step(regs: Registers) -> None:
        backend.copy(regs[source], regs[target], location)  # type: ignore[arg-type]

    return step


@translates("memref.view")
def translate_view(op: Operation, plan: PlanBuilder) -> Step:
    assert isinstance(op, memref.ViewOp)
    result_type = op.result.type
    shape = shape_of_type(result_type, plan.slots(op.sizes))
    source, shift, out = plan.slot(op.source), plan.slot(op.byte_shift), plan.slot(op.result)
    dtype, owner = numpy_dtype(result_type.element_type), Owner(buffer_label(op))

    def step(regs: Registers) -> None:
        pool: MemRef = regs[source]  # type: ignore[assignment]
        dims = shape(regs)
        start = pool.offset + int(regs[shift])  # type: ignore[arg-type]
        # A view starts a new logical buffer inside the pool: the sanitizer's unit.
        regs[out] = MemRef(pool.buffer, start, tuple(dims), contiguous_strides(dims), dtype, owner, start)

    return step


@translates("memref.subview")
def translate_subview(op: Operation, plan: PlanBuilder) -> Step:
    assert isinstance(op, memref.SubviewOp)
    offsets, sizes, strides = offsets_sizes_strides(op, plan)
    source, out = plan.slot(op.source), plan.slot(op.result)
    result_shape = op.result.type.get_shape()

    def step(regs: Registers) -> None:
        view: MemRef = regs[source]  # type: ignore[assignment]
        starts, dims, slice_strides = offsets(regs), sizes(regs), strides(regs)
        require_within(op, view.shape, starts, dims, slice_strides)
        start = view.offset + sum(o * s for o, s in zip(starts, view.strides)) * view.dtype.itemsize
        steps = [st * s for st, s in zip(slice_strides, view.strides)]
        kept = kept_dims(tuple(dims), result_shape)
        dims, steps = [dims[i] for i in kept], [steps[i] for i in kept]
        regs[out] = view.with_view(start, dims, steps)

    return step


@translates("memref.reinterpret_cast")
def translate_reinterpret_cast(op: Operation, plan: PlanBuilder) -> Step:
    assert isinstance(op, memref.ReinterpretCastOp)
    offsets, sizes, strides = offsets_sizes_strides(op, plan)
    source, out = plan.slot(op.source), plan.slot(op.result)
    dtype = numpy_dtype(op.result.type.element_type)
    is_reshape = _is_reshape(op)
    # A reshape is a view: the same bytes, so the same logical buffer, whatever the
    # rank. A slot taken over in place is a new logical buffer in old bytes.
    reuse_owner = None if is_reshape else Owner(buffer_label(op))
    check_count = is_reshape and not op.source.type.has_static_shape()

    def step(regs: Registers) -> None:
        view: MemRef = regs[source]  # type: ignore[assignment]
        (offset,) = offsets(regs) or [0]
        start = view.base + offset * dtype.itemsize
        dims = sizes(regs)
        if check_count:
            require_same_count(op, view.shape, dims)
        owner = reuse_owner or view.owner
        regs[out] = MemRef(view.buffer, start, tuple(dims), tuple(strides(regs)), dtype, owner, view.base)

    return step


def _is_reshape(op: memref.ReinterpretCastOp) -> bool:
    """Whether the cast is a reshape (one-shot-bufferize, to or from rank 0) rather
    than in-place reuse (hip-optimize-memrefs: a static slot read as another static
    shape). A reshape keeps the element count; only a reshape casts a dynamic shape."""
    source, result = op.source.type, op.result.type
    if not (source.has_static_shape() and result.has_static_shape()):  # type: ignore[attr-defined]
        return True
    return math.prod(source.get_shape()) == math.prod(result.get_shape())  # type: ignore[attr-defined]


@translates("memref.expand_shape", "memref.collapse_shape")
def translate_memref_reshape(op: Operation, plan: PlanBuilder) -> Step:
    source, out = plan.slot(op.operands[0]), plan.slot(op.results[0])
    groups = [[int(i.value.data) for i in group] for group in op.reassociation.data]  # type: ignore[attr-defined]
    expand = op.name == "memref.expand_shape"
    output_shape = (
        mixed_values(op.static_output_shape.get_values(), plan.slots(op.operands[1:]))  # type: ignore[attr-defined]
        if expand
        else None
    )

    def step(regs: Registers) -> None:
        view: MemRef = regs[source]  # type: ignore[assignment]
        if output_shape is not None:
            dims = output_shape(regs)
            for source_dim, group in enumerate(groups):
                require_same_count(op, view.shape[source_dim : source_dim + 1], [dims[d] for d in group])
            strides: list[int] = [0] * len(dims)
            for source_dim, group in enumerate(groups):
                step_size = view.strides[source_dim]
                for d in reversed(group):
                    strides[d] = step_size
                    step_size *= max(dims[d], 1)
            regs[out] = view.with_view(view.offset, dims, strides)
            return
        dims, strides = [], []
        for group in groups:
            dims.append(int(np.prod([view.shape[d] for d in group], dtype=np.int64)))
            strides.append(view.strides[group[-1]] if group else 1)
        regs[out] = view.with_view(view.offset, dims, strides)

    return step


def _read_constants_file(module: ModuleOp, session: Session, op: Operation, offset: int, size: int) -> bytes:
    if session.constants_file is None:
        raise op_error(op, f"external constant without a module {CONSTANTS_FILE_ATTR} attribute")
    return session.constants_file.read(offset, size)


def _upload_constant(session: Session, key: object, label: str, values: np.ndarray) -> MemRef:
    """A device copy of constant data, made once per session."""
    owner = Owner(label)
    buffer = session.backend.allocate(values.nbytes, owner.label, "constant")
    constant = MemRef.contiguous(buffer, list(values.shape), values.dtype, owner)
    session.backend.upload(constant, values)
    session.constants[key] = constant
    return constant


def load_global(module: ModuleOp, session: Session, op: Operation, symbol: str) -> MemRef:
    """The device copy of a `memref.global`, uploaded once per session."""
    if symbol in session.constants:
        return session.constants[symbol]
    declaration = SymbolTable.lookup_symbol(module, symbol)
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
        raw = _read_constants_file(module, session, op, place.offset, place.size)
    elif isinstance(declaration.initial_value, DenseIntOrFPElementsAttr):
        raw = declaration.initial_value.data.data
    else:
        raise op_error(op, f"@{symbol} has neither an initial value nor {EXTERNAL_DATA_ATTR}")
    return _upload_constant(session, symbol, f"@{symbol}", np.frombuffer(raw, dtype=dtype).reshape(shape))


def load_constant(module: ModuleOp, session: Session, op: Operation, index: int, memref_type: Attribute) -> MemRef:
    """The device copy of constant #`index` of the constants file (`hip.get_constant`)."""
    key = ("constant", index)
    if key in session.constants:
        return session.constants[key]
    offsets, sizes = (module.attributes.get(name) for name in (CONSTANT_OFFSETS_ATTR, CONSTANT_SIZES_ATTR))
    if not isinstance(offsets, DenseArrayBase) or not isinstance(sizes, DenseArrayBase):
        raise op_error(op, f"hip.get_constant needs the module attributes {CONSTANT_OFFSETS_ATTR} and {CONSTANT_SIZES_ATTR}")
    offset_values, size_values = offsets.get_values(), sizes.get_values()
    if not 0 <= index < len(offset_values):
        raise op_error(op, f"constant index {index} is out of range: the module has {len(offset_values)} constants")
    raw = _read_constants_file(module, session, op, offset_values[index], size_values[index])
    shape, dtype = list(memref_type.get_shape()), numpy_dtype(memref_type.element_type)  # type: ignore[attr-defined]
    return _upload_constant(session, key, f"constant #{index}", np.frombuffer(raw, dtype=dtype).reshape(shape))


@translates("memref.get_global")
def translate_get_global(op: Operation, plan: PlanBuilder) -> Step:
    assert isinstance(op, memref.GetGlobalOp)
    symbol, out = op.name_.root_reference.data, plan.slot(op.memref)
    module, session = plan.module, plan.session

    def step(regs: Registers) -> None:
        regs[out] = load_global(module, session, op, symbol)

    return step
