"""Elementwise ONNX ops: unary maps, broadcast binaries, variadic Max/Min, Where, Cast.

Destinations come from `xhip.shapes.broadcast` (one rule for converter and
reifier). Integer arithmetic and comparisons on host-known shape vectors stay
on the host, so `Shape -> Sub -> Reshape` never touches the device.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects.builtin import IntegerType, i1
from xdsl.ir import Operation

from xhip.dialects import hip
from xhip.rewrite_rules.onnx_to_hip.registry import converts
from xhip.rewrite_rules.onnx_to_hip.state import ConversionState, Lowered
from xhip.shapes import Dim, IndexEmitter, broadcast, same_shape

def _implementing(base: type[hip.DPSOp], but: tuple[type[hip.DPSOp], ...] = ()) -> dict[str, type[hip.DPSOp]]:
    """ONNX op name -> the hip op of kind `base` (not of `but`) that implements it one-to-one."""
    return {
        op.ONNX: op  # type: ignore[attr-defined]
        for op in hip.COMPUTE_OPS
        if issubclass(op, base) and not issubclass(op, but) and getattr(op, "ONNX", None)
    }


UNARY = _implementing(hip.UnaryElementwiseOp)
BINARY = _implementing(hip.BroadcastOp, but=(hip.ComparisonOp,))
COMPARISONS = _implementing(hip.ComparisonOp)

# Host folding of integer shape arithmetic: (emitter, lhs, rhs) -> result dim.
HOST_ARITHMETIC: dict[str, Callable[[IndexEmitter, Dim, Dim], Dim]] = {
    name: getattr(IndexEmitter, op.HOST_FOLD)  # type: ignore[attr-defined]
    for name, op in BINARY.items()
    if op.HOST_FOLD  # type: ignore[attr-defined]
}

HOST_COMPARISONS: dict[str, str] = {
    name: op.HOST_FOLD  # type: ignore[attr-defined]
    for name, op in COMPARISONS.items()
    if op.HOST_FOLD  # type: ignore[attr-defined]
}


def _broadcast_host(values: Sequence[list[Dim]], count: int) -> list[list[Dim]] | None:
    """Host element lists stretched to `count` elements (rank <= 1 shape vectors only)."""
    stretched = []
    for elements in values:
        if len(elements) == count:
            stretched.append(elements)
        elif len(elements) == 1:
            stretched.append(elements * count)
        else:
            return None
    return stretched


def _host_operands(op: Operation, state: ConversionState, dims: list[Dim]) -> list[list[Dim]] | None:
    """Host elements of every operand, stretched to the result, if all are known."""
    if len(dims) > 1 or not all(isinstance(d, int) for d in dims):
        return None
    known = [state.host(v) for v in op.operands]
    if any(k is None for k in known):
        return None
    count = dims[0] if dims else 1
    return _broadcast_host(known, count)  # type: ignore[arg-type]


def _fold_on_host(op: Operation, state: ConversionState, dims: list[Dim]) -> Lowered | None:
    element_type = op.results[0].type.element_type  # type: ignore[attr-defined]
    operands = _host_operands(op, state, dims)
    if operands is None or not isinstance(state.element_type(op.operands[0]), IntegerType):
        return None
    em = state.emitter
    if op.name in HOST_ARITHMETIC:
        combine = HOST_ARITHMETIC[op.name]
        elements = list(operands[0])
        for more in operands[1:]:
            elements = [combine(em, a, b) for a, b in zip(elements, more)]
        return Lowered(dims, element_type, host=elements)
    if op.name in HOST_COMPARISONS:
        outcomes = [em.cmp(HOST_COMPARISONS[op.name], a, b) for a, b in zip(*operands)]
        # Only statically decided comparisons stay on the host: an i1 vector
        # decided at run time is a device tensor like any other.
        decided = [o for o in outcomes if isinstance(o, bool)]
        if len(decided) == len(outcomes):
            return Lowered(dims, element_type, host=[int(o) for o in decided])
    return None


def _operand_dims(op: Operation, state: ConversionState) -> list[list[Dim]]:
    return [state.dims(v) for v in op.operands]


@converts(*(name.removeprefix("onnx.") for name in UNARY))
def convert_unary(op: Operation, state: ConversionState) -> list[Lowered]:
    (x,) = op.operands
    dims = state.fit_to_declared(state.check(same_shape(state.emitter, state.dims(x))), op.results[0].type)
    hip_op = UNARY[op.name]
    # The hip op's properties are the ONNX op's attributes of the same name (Gelu's
    # approximate), defaults spelled out as the onnx accessors return them.
    shared = hip_op.get_irdl_definition().properties.keys() & op.get_irdl_definition().properties.keys()  # type: ignore[attr-defined]
    properties = {name: getattr(op, name) for name in sorted(shared)}
    # The onnx verifier fixed the result's element type: x's, or bool for IsNaN.
    result_element = op.results[0].type.element_type  # type: ignore[attr-defined]
    return state.compute(hip_op, [state.tensor(x)], [(dims, result_element)], properties=properties)


@converts(*(name.removeprefix("onnx.") for name in (*BINARY, *COMPARISONS)))
def convert_broadcast(op: Operation, state: ConversionState) -> list[Lowered]:
    is_comparison = op.name in COMPARISONS
    hip_op = COMPARISONS[op.name] if is_comparison else BINARY[op.name]
    if len(op.operands) == 1:  # a variadic op of one input (Max, Min) is that input
        return [state.lowered(op.operands[0])]
    dims = state.check(broadcast(state.emitter, *_operand_dims(op, state)))
    dims = state.fit_to_declared(dims, op.results[0].type)
    folded = _fold_on_host(op, state, dims)
    if folded is not None:
        return [folded]
    element_type = i1 if is_comparison else state.element_type(op.operands[0])
    inputs = [state.tensor(v) for v in op.operands]
    return state.compute(hip_op, inputs, [(dims, element_type)])


@converts("Where")
def convert_where(op: Operation, state: ConversionState) -> list[Lowered]:
    condition, x, y = op.operands
    dims = state.check(broadcast(state.emitter, *_operand_dims(op, state)))
    dims = state.fit_to_declared(dims, op.results[0].type)
    host = _host_operands(op, state, dims)
    if host is not None and all(isinstance(c, int) for c in host[0]):
        chosen = [a if c else b for c, a, b in zip(*host)]
        return [Lowered(dims, state.element_type(x), host=chosen)]
    inputs = [state.tensor(v) for v in (condition, x, y)]
    return state.compute(hip.WhereOp, inputs, [(dims, state.element_type(x))])


@converts("Cast")
def convert_cast(op: Operation, state: ConversionState) -> list[Lowered]:
    (x,) = op.operands
    target = op.to  # type: ignore[attr-defined]
    source = state.lowered(x)
    if source.element_type == target:
        return [source]
    if source.host is not None and isinstance(target, IntegerType) and target.width.data > 1:
        return [Lowered(source.dims, target, host=list(source.host))]
    return state.compute(hip.CastOp, [state.tensor(x)], [(source.dims, target)])


@converts("Identity")
def convert_identity(op: Operation, state: ConversionState) -> list[Lowered]:
    return [state.lowered(op.operands[0])]
