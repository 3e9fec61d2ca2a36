"""The attributes the importer puts on each graph input and output.

They sit in the `arg_attrs` / `res_attrs` of the graph's `func.func`:

    func.func @main_graph(%X: tensor<?x?x64xf32> {onnx.dim_params = "0:batch,1:seq", onnx.name = "X"})

`onnx.name` is the ONNX value name (what a caller passes inputs by);
`onnx.dim_params` names the symbolic dims, `AXIS:NAME` per dim, comma-separated,
only for the dims ONNX gives a `dim_param`. Every reader (memory planning, the
out-parameter pass, the runtime's signature) parses them with the helpers here.

A symbol names one extent: graph inputs that declare the same `dim_param` have
equal dims in every run (the runtime rejects feeds where they disagree), so the
compiler reads each symbol once (`shared_symbol_dims`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeAlias

from xdsl.dialects.builtin import DYNAMIC_INDEX, ArrayAttr, DictionaryAttr, MemRefType, StringAttr, TensorType
from xdsl.ir import Attribute

NAME_ATTR = "onnx.name"
"""The ONNX name of a graph input or output."""

DIM_PARAMS_ATTR = "onnx.dim_params"
"""The symbolic dims of a graph input or output: `"0:batch,1:seq"`."""


def entry_attributes(attrs: ArrayAttr | None, index: int) -> dict[str, Attribute]:
    """The attributes of argument or result #`index` from a function's `arg_attrs` /
    `res_attrs` (empty when there are none)."""
    if attrs is None or index >= len(attrs.data) or not isinstance(entry := attrs.data[index], DictionaryAttr):
        return {}
    return dict(entry.data)


def format_dim_params(symbols: Mapping[int, str]) -> StringAttr:
    """`{0: "batch", 1: "seq"}` as the attribute `"0:batch,1:seq"`, in axis order."""
    return StringAttr(",".join(f"{axis}:{symbols[axis]}" for axis in sorted(symbols)))


def parse_dim_params(attrs: Mapping[str, Attribute]) -> dict[int, str]:
    """Axis -> symbol from an argument's or result's attributes (empty when it has none).

    A malformed entry (not `AXIS:NAME` with an integer axis) is a ValueError:
    the attribute is written by the importer, so a bad one is hand-written IR."""
    params = attrs.get(DIM_PARAMS_ATTR)
    if not isinstance(params, StringAttr):
        return {}
    symbols: dict[int, str] = {}
    for entry in filter(None, params.data.split(",")):
        axis, colon, symbol = entry.partition(":")
        if not colon or not axis.strip().isdigit() or not symbol:
            raise ValueError(f"{DIM_PARAMS_ATTR} entry '{entry}' is not AXIS:NAME")
        symbols[int(axis)] = symbol
    return symbols


def value_name(attrs: Mapping[str, Attribute]) -> str | None:
    """The `onnx.name` of an argument or result, if it has one."""
    name = attrs.get(NAME_ATTR)
    return name.data if isinstance(name, StringAttr) else None


ArgumentAxis: TypeAlias = tuple[int, int]
"""(argument index, axis) of one dim of a function argument."""


def shared_symbol_dims(arg_types: Sequence[Attribute], arg_attrs: ArrayAttr | None) -> dict[ArgumentAxis, ArgumentAxis]:
    """Each dynamic argument dim whose symbol an earlier dim (of an earlier argument,
    or an earlier axis of the same one) already names, mapped to that first dim.

    Static dims never take part: a symbol only names a `?`, as the runtime's
    signature reads it. A malformed `onnx.dim_params` is a ValueError (see
    `parse_dim_params`)."""
    first: dict[str, ArgumentAxis] = {}
    shared: dict[ArgumentAxis, ArgumentAxis] = {}
    for index, arg_type in enumerate(arg_types):
        if not isinstance(arg_type, TensorType | MemRefType):
            continue
        symbols = parse_dim_params(entry_attributes(arg_attrs, index))
        for axis, extent in enumerate(arg_type.get_shape()):
            symbol = symbols.get(axis)
            if extent != DYNAMIC_INDEX or symbol is None:
                continue
            source = first.setdefault(symbol, (index, axis))
            if source != (index, axis):
                shared[(index, axis)] = source
    return shared
