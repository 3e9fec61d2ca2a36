"""Structural checks of an ONNX graph, before the importer builds anything from it.

Names (`check_graph`) and tensor headers (`check_headers`): both are read from
the graph alone, before shape inference, which trusts them (a dataless
initializer of 2^40 elements exhausts memory inside it).

ONNX requires every value name to be written once (by a graph input, an
initializer or one node output), every node input to be written before the
node, and the nodes to be in topological order. `onnx.load` checks none of this:
left alone, the last writer of a name silently wins and an undefined name ends
as a `KeyError`. Each violation here is one message naming the node (and the
input or output position) that breaks the rule.

An empty name is ONNX's spelling of an omitted optional input or output; it is
refused only where the op requires the value (the caller says which ops and
positions those are).
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterator, Sequence
from math import prod

import onnx
from onnx import AttributeProto, GraphProto, NodeProto, TensorProto, TypeProto

from xhip.diagnostics import shorten

Kinds = Callable[[NodeProto], tuple[tuple[str, ...], tuple[str, ...]] | None]
"""Per node: the kinds of its inputs and outputs ('required', 'optional', 'variadic'), or
None for an op without a schema (which the importer refuses anyway)."""


class GraphError(Exception):
    """A structural error; the importer adds the file name."""


def node_label(node: NodeProto, index: int) -> str:
    """How errors name a node: its name, or its position when it has none."""
    return f'onnx node "{shorten(node.name)}"' if node.name else f"onnx node #{index}"


def _described(node: NodeProto, index: int) -> str:
    return f"{node_label(node, index)} (op '{shorten(node.op_type)}')"


def check_graph(graph: GraphProto, kinds: Kinds) -> None:
    """Raise GraphError at the first structural violation in `graph`."""
    writers = _graph_level_writers(graph)
    defined = set(writers)  # grows in node order; `writers` knows every name up front
    for index, node in enumerate(graph.node):
        _check_outputs(node, index, writers, kinds)
    for index, node in enumerate(graph.node):
        _check_inputs(graph, node, index, defined, writers, kinds)
        defined.update(name for name in node.output if name)
    for value in graph.output:
        if not value.name:
            raise GraphError("a graph output has an empty name")


def _graph_level_writers(graph: GraphProto) -> dict[str, str]:
    """Name -> what defines it, for graph inputs and initializers (each name once)."""
    writers: dict[str, str] = {}
    for position, value in enumerate(graph.input):
        if not value.name:
            raise GraphError(f"graph input #{position} has an empty name")
        if value.name in writers:
            raise GraphError(f"graph input '{shorten(value.name)}' is declared twice")
        writers[value.name] = f"graph input '{shorten(value.name)}'"
    initializers: set[str] = set()
    for tensor in graph.initializer:
        if not tensor.name:
            raise GraphError("an initializer has an empty name")
        if tensor.name in initializers:
            raise GraphError(f"initializer '{shorten(tensor.name)}' is defined twice")
        initializers.add(tensor.name)
        # An initializer may also be a graph input: its default value (ONNX IR >= 4).
        writers.setdefault(tensor.name, f"initializer '{shorten(tensor.name)}'")
    return writers


def _check_outputs(node: NodeProto, index: int, writers: dict[str, str], kinds: Kinds) -> None:
    for _, name in _present(node, index, kinds, "output"):
        if name in writers:
            raise GraphError(
                f"{_described(node, index)} writes '{shorten(name)}', which {writers[name]} already defines "
                "(each value name must be written once)"
            )
        writers[name] = _described(node, index)


def _check_inputs(
    graph: GraphProto, node: NodeProto, index: int, defined: set[str], writers: dict[str, str], kinds: Kinds
) -> None:
    for position, name in _present(node, index, kinds, "input"):
        if name in defined:
            continue
        if name not in writers:
            raise GraphError(
                f"{_described(node, index)} input #{position} '{shorten(name)}' is not defined by any node, "
                "graph input or initializer"
            )
        cycle = _cycle_through(graph.node, index)
        if cycle:
            raise GraphError(f"{_described(node, index)} is on a cycle: {' -> '.join(cycle)}")
        raise GraphError(
            f"{_described(node, index)} uses '{shorten(name)}' before it is defined "
            "(the graph must be topologically sorted)"
        )


def _present(node: NodeProto, index: int, kinds: Kinds, what: str) -> Iterator[tuple[int, str]]:
    """(position, name) of the node's inputs or outputs (`what`) that are given.

    An empty name omits the value: only an optional one may be omitted, not a
    required one nor a member of a variadic list (an op without schema allows anything).
    """
    known = kinds(node)
    names = node.input if what == "input" else node.output
    own_kinds = None if known is None else known[0 if what == "input" else 1]
    for position, name in enumerate(names):
        if name:
            yield position, name
        elif own_kinds is not None and not (position < len(own_kinds) and own_kinds[position] == "optional"):
            raise GraphError(
                f"{_described(node, index)} {what} #{position} has an empty name (an omitted {what}), "
                "but the op requires it"
            )


def _cycle_through(nodes: Sequence[NodeProto], start: int) -> list[str]:
    """Labels of the nodes on a shortest cycle through node `start`, in data-flow order, or []."""
    producer = {name: i for i, node in enumerate(nodes) for name in node.output if name}
    consumer_of: dict[int, int] = {}  # a node reached backwards from `start` -> the node it feeds
    frontier = [start]
    while frontier:
        reached: list[int] = []
        for i in frontier:
            for name in nodes[i].input:
                p = producer.get(name)
                if p == start:
                    chain = [start, i]
                    while chain[-1] != start:
                        chain.append(consumer_of[chain[-1]])
                    return [node_label(nodes[n], n) for n in chain]
                if p is not None and p not in consumer_of:
                    consumer_of[p] = i
                    reached.append(p)
        frontier = reached
    return []


# --------------------------------------------------------------------------- tensor headers

MAX_TENSOR_BYTES = 2**63 - 1
"""No tensor can be larger: sizes and offsets are int64 in the IR and the runtime."""


def itemsize(data_type: int) -> int:
    """Bytes per element of an ONNX data type (a bool is one byte); 0 for unknown types."""
    if data_type == TensorProto.BOOL:
        return 1
    try:
        return onnx.helper.tensor_dtype_to_np_dtype(data_type).itemsize
    except (KeyError, ValueError):
        return 0


def tensor_nbytes(tensor: TensorProto) -> int:
    """The size of a tensor's data, from its header (without touching the data)."""
    return prod(tensor.dims) * itemsize(tensor.data_type)


def unsupported_element_type(data_type: int) -> str:
    name = TensorProto.DataType.Name(data_type) if data_type in TensorProto.DataType.values() else data_type
    return f"has element type {name}, which xhip does not support"


def shape_problem(dims: Sequence[int | None], data_type: int) -> str | None:
    """Why static `dims` (None for a dynamic one) cannot be a tensor's shape, or None."""
    negative = next((axis for axis, d in enumerate(dims) if d is not None and d < 0), None)
    if negative is not None:
        return f"dim {negative} is {dims[negative]}; a static dim must not be negative"
    nbytes = prod(d for d in dims if d is not None) * max(itemsize(data_type), 1)
    if nbytes > MAX_TENSOR_BYTES:
        return f"shape {['?' if d is None else d for d in dims]} holds more than 2^63 bytes"
    return None


def type_shape_problem(type_proto: TypeProto) -> str | None:
    """`shape_problem` of a tensor type's static dims (None for other types or no shape)."""
    if not (type_proto.HasField("tensor_type") and type_proto.tensor_type.HasField("shape")):
        return None
    dims = [d.dim_value if d.HasField("dim_value") else None for d in type_proto.tensor_type.shape.dim]
    return shape_problem(dims, type_proto.tensor_type.elem_type)


def check_headers(graph: GraphProto, imported_types: Container[int]) -> None:
    """Raise GraphError at the first declared shape or tensor header that cannot be imported."""
    declared = {"graph input": graph.input, "graph output": graph.output, "value": graph.value_info}
    for kind, values in declared.items():
        for value in values:
            problem = type_shape_problem(value.type)
            if problem:
                raise GraphError(f"{kind} '{shorten(value.name)}': {problem}")
    for tensor in graph.initializer:
        _check_tensor_header(tensor, f"initializer '{shorten(tensor.name)}'", imported_types)
    for index, node in enumerate(graph.node):
        for attr in node.attribute:
            if attr.type == AttributeProto.TENSOR:
                what = f"{_described(node, index)} attribute '{shorten(attr.name)}'"
                _check_tensor_header(attr.t, what, imported_types)


def _check_tensor_header(tensor: TensorProto, what: str, imported_types: Container[int]) -> None:
    """Element type, dims and the amount of embedded data (external data is checked when read)."""
    if tensor.data_type not in imported_types:
        raise GraphError(f"{what} {unsupported_element_type(tensor.data_type)}")
    problem = shape_problem(list(tensor.dims), tensor.data_type)
    if problem:
        raise GraphError(f"{what}: {problem}")
    if tensor.data_location == TensorProto.EXTERNAL:
        return
    needed = prod(tensor.dims)
    if tensor.HasField("raw_data"):
        if len(tensor.raw_data) != needed * itemsize(tensor.data_type):
            raise GraphError(
                f"{what} has {len(tensor.raw_data)} bytes of data, its shape {list(tensor.dims)} "
                f"needs {needed * itemsize(tensor.data_type)}"
            )
        return
    # Every imported element type stores one typed-field entry (`float_data`, ...) per element.
    stored = len(getattr(tensor, onnx.helper.tensor_dtype_to_field(tensor.data_type)))
    if stored != needed:
        raise GraphError(f"{what} has {stored} values, its shape {list(tensor.dims)} needs {needed}")
