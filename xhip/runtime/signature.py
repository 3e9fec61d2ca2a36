"""The function's signature as a run sees it: what each input and output is, and the
checks a run's feeds must pass (names, ranks, dtypes, static dims, and the symbolic
dims that inputs share, e.g. two inputs whose dim 0 are both `batch`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from xhip.diagnostics import XhipError
from xhip.runtime.buffers import MemRef
from xhip.runtime.device_array import DeviceArray


@dataclass(frozen=True)
class TensorSpec:
    """One graph input or output as the function declares it."""

    name: str
    dtype: np.dtype
    shape: tuple[int | str | None, ...]
    """Static extent, symbolic name (from onnx.dim_params), or None for an unnamed `?`."""
    is_memref: bool
    strides: tuple[int | None, ...] | None = None
    """A strided argument's element strides (None where dynamic): it reads any view whose
    strides agree, in place (a KV cache's past). None: row-major only."""

    def takes_view(self, view: MemRef) -> bool:
        """Whether a run can read `view` in place for this argument."""
        return self.strides is not None and all(want is None or want == got for want, got in zip(self.strides, view.strides))

    def describe(self) -> str:
        dims = ["?" if d is None else str(d) for d in self.shape]
        return f"{self.name}: [{', '.join(dims)}] {self.dtype}"


Bound = dict[str, tuple[int, str]]
"""Symbolic dim -> (extent, where it was bound)."""


@dataclass(frozen=True)
class Signature:
    """The inputs (graph inputs, in order), the outputs (results) and the output
    parameters (arguments the function writes, `bufferize.result`) of the function;
    `arguments` is every argument after the context, in order, with whether it is one."""

    inputs: tuple[TensorSpec, ...]
    outputs: tuple[TensorSpec, ...]
    arguments: tuple[tuple[TensorSpec, bool], ...]
    takes_context: bool

    @property
    def out_params(self) -> list[TensorSpec]:
        return [spec for spec, is_result in self.arguments if is_result]

    def key(self, feeds: Mapping[str, Any]) -> tuple[object, ...] | None:
        """The feeds' shapes and dtypes, in input order; None when one is missing."""
        if len(feeds) != len(self.inputs):
            return None
        try:
            return tuple(_shape_and_dtype(feeds[spec.name]) for spec in self.inputs)
        except KeyError:
            return None

    def check(self, feeds: Mapping[str, Any]) -> Bound:
        """Every input present, nothing extra, ranks, dtypes and dims consistent; the
        symbolic dims the inputs bind."""
        expected = {spec.name for spec in self.inputs}
        missing = [spec.name for spec in self.inputs if spec.name not in feeds]
        if missing:
            raise XhipError(f"missing input '{missing[0]}' (expected {', '.join(s.describe() for s in self.inputs)})")
        extra = sorted(set(feeds) - expected)
        if extra:
            raise XhipError(f"unexpected input '{extra[0]}' (the model takes {', '.join(sorted(expected)) or 'none'})")
        return self.bind(feeds)

    def bind(self, feeds: Mapping[str, Any]) -> Bound:
        """Symbolic dim -> (extent, where it was bound); checks the inputs on the way."""
        bound: Bound = {}
        for spec in self.inputs:
            feed = feeds[spec.name]
            value = feed if isinstance(feed, DeviceArray) else np.asarray(feed)
            if value.dtype != spec.dtype:
                raise XhipError(f"input '{spec.name}' has dtype {value.dtype}, expected {spec.dtype}")
            if value.ndim != len(spec.shape):
                raise XhipError(f"input '{spec.name}' has rank {value.ndim} {list(value.shape)}, expected {spec.describe()}")
            for axis, (extent, declared) in enumerate(zip(value.shape, spec.shape)):
                if isinstance(declared, int) and extent != declared:
                    raise XhipError(f"input '{spec.name}' dim {axis} is {extent}, expected {declared}")
                if isinstance(declared, str):
                    previous = bound.setdefault(declared, (extent, f"'{spec.name}' dim {axis}"))
                    if previous[0] != extent:
                        raise XhipError(
                            f"input '{spec.name}' dim {axis} is {extent} but {previous[1]} gives "
                            f"'{declared}' = {previous[0]}"
                        )
        return bound

    def symbols_at(self, shapes: Mapping[str, Sequence[int]]) -> dict[str, int]:
        """The symbolic dims of inputs of these shapes (by input name)."""
        symbols: dict[str, int] = {}
        for spec in self.inputs:
            for declared, extent in zip(spec.shape, shapes.get(spec.name, ())):
                if isinstance(declared, str):
                    symbols.setdefault(declared, int(extent))
        return symbols


def out_param_dims(spec: TensorSpec, bound: Bound) -> list[int]:
    """The extents of an output parameter, from the inputs' symbolic dims."""
    dims = []
    for declared in spec.shape:
        if isinstance(declared, int):
            dims.append(declared)
        elif isinstance(declared, str) and declared in bound:
            dims.append(bound[declared][0])
        else:
            raise XhipError(f"cannot size output parameter {spec.describe()}: no input binds its dynamic dims")
    return dims


def _shape_and_dtype(value: Any) -> tuple[tuple[int, ...], np.dtype]:
    if not hasattr(value, "dtype"):  # a list or a Python number
        value = np.asarray(value)
    return np.shape(value), value.dtype
