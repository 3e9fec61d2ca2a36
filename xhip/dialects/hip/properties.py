"""A compute op's properties as plain Python values, with the dialect's own defaults.

The op classes declare each property with its type and default (`prop_def(...,
default_value=...)`); this module reads them once, so that no reader restates a default:
`properties_of(op)` is what the runtime binds an op with, `properties_for(op_class, given)`
completes a partial mapping (a test's, a fused step's) the same way. A misspelt property
is an AttributeError, never a silent default.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, FloatAttr, IntegerAttr, IntegerType, StringAttr
from xdsl.ir import Attribute, Operation

from xhip.dtypes import numpy_dtype

SEGMENT_SIZES = "operandSegmentSizes"
"""The operand-segment property of every DPS op: syntax, not a kernel property."""


@dataclass(frozen=True)
class FusedStep:
    """One step of `hip.fused_elementwise` as plain values (its `#hip.step` attribute): the
    step op's name, its arguments (`in2`, `t0`), the element type of its result and the
    step op's own properties (as given: `properties_for` completes them)."""

    op: str
    args: tuple[str, ...]
    dtype: np.dtype
    attributes: tuple[tuple[str, object], ...] = ()


class Props(Mapping[str, Any]):
    """Read-only properties: `props.axis` or `props["axis"]`; hashable (a cache key)."""

    __slots__ = ("_values", "_key")

    def __init__(self, values: Mapping[str, object]):
        object.__setattr__(self, "_values", dict(values))
        object.__setattr__(self, "_key", tuple(sorted(self._values.items(), key=lambda item: item[0])))

    def __getattr__(self, name: str) -> Any:
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(f"no property '{name}' (has {', '.join(self._values) or 'none'})") from None

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("properties are read-only")

    def __getitem__(self, name: str) -> Any:
        return self._values[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __hash__(self) -> int:
        return hash(self._key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Props) and self._key == other._key

    def __repr__(self) -> str:
        return f"Props({self._values})"


def python_value(attr: Attribute) -> object:
    """An attribute as the plain Python value kernels take."""
    from xhip.dialects.hip.fused import StepAttr

    if isinstance(attr, IntegerAttr):
        value = attr.value.data
        if isinstance(attr.type, IntegerType) and attr.type.width.data == 1:
            return bool(value)
        return value
    if isinstance(attr, FloatAttr):
        return float(attr.value.data)
    if isinstance(attr, StringAttr):
        return attr.data
    if isinstance(attr, DenseArrayBase):
        return tuple(attr.get_values())
    if isinstance(attr, StepAttr):
        properties = tuple(sorted((name, python_value(v)) for name, v in attr.properties.data.items()))
        return FusedStep(attr.op.data, tuple(attr.arg_names), numpy_dtype(attr.result), properties)
    if isinstance(attr, ArrayAttr):
        return tuple(python_value(a) for a in attr.data)
    return attr


@functools.cache
def class_defaults(op_class: type[Operation]) -> dict[str, object]:
    """Every property the class declares, as Python values: its default, or None (an
    optional property, or a required one the op must set)."""
    definition = op_class.get_irdl_definition()  # type: ignore[attr-defined]
    return {
        name: None if prop.default_value is None else python_value(prop.default_value)
        for name, prop in definition.properties.items()
        if name != SEGMENT_SIZES
    }


def properties_for(op_class: type[Operation], given: Mapping[str, object] = {}) -> Props:
    """`given` (Python values) completed with the class's defaults."""
    return Props({**class_defaults(op_class), **given})


def properties_of(op: Operation) -> Props:
    """The op's properties with the defaults of those it does not set."""
    given = {name: python_value(value) for name, value in op.properties.items() if name != SEGMENT_SIZES}
    return properties_for(type(op), given)
