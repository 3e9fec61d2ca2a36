"""The attributes the importer puts on each graph input and output.

They sit in the `arg_attrs` / `res_attrs` of the graph's `func.func`:

    func.func @main_graph(%X: tensor<?x?x64xf32> {onnx.dim_params = "0:batch,1:seq", onnx.name = "X"})

`onnx.name` is the ONNX value name (what a caller passes inputs by);
`onnx.dim_params` names the symbolic dims, `AXIS:NAME` per dim, comma-separated,
only for the dims ONNX gives a `dim_param`. Every reader (memory planning, the
out-parameter pass, the runtime's signature) parses them with the helpers here.
"""

from __future__ import annotations

from collections.abc import Mapping

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, StringAttr
from xdsl.ir import Attribute

NAME_ATTR = "onnx.name"
"""The ONNX name of a graph input or output."""

DIM_PARAMS_ATTR = "onnx.dim_params"
"""The symbolic dims of a graph input or output: `"0:batch,1:seq"`."""


def entry_attributes(attrs: ArrayAttr | None, index: int) -> dict[str, Attribute]:
    """The attributes of argument or result #`index` from a function's `arg_attrs` /
    `res_attrs` (empty when there are none)."""
    if attrs is None or index >= len(attrs.data) or not isinstance(attrs.data[index], DictionaryAttr):
        return {}
    return dict(attrs.data[index].data)


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
