"""What a kernel family gives the runtime: the facts it reads of one op, and a launch site.

A family is one module next to its template(s) in templates/ (`xhip/kernels/rows.py` and
`row.hip.j2`, ...). It owns everything about how its ops run: which kernel
specializations run an op and which of them a launch takes, the argument values of each
launch, and the NumPy reference. `xhip.runtime.bind` reads each hip compute op once into
`OpFacts` and asks the op's family (`xhip.kernels.families.site_of`) for a `Site`; a
backend turns the site into a launcher once (`Backend.load`), and a run only hands the
launcher its operands.

Operand facts come from the IR types (`?` extents and strided layouts unknown), so the
kernels a site lists serve every launch; a family may list a second form that a launch
takes when its extents allow it (no run-time broadcast), chosen by `Site.form` from the
launch's operands without building anything.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

import numpy as np

from xhip.dialects.hip.properties import Props
from xhip.index.symbolic import same_extent
from xhip.kernels.abi import ArgValue, LibraryCall, Param, dims, index, pointer
from xhip.kernels.spec_types import KernelSpec, OpClass, Operand

Values = dict[str, ArgValue]
"""The argument values of one kernel launch, by parameter name (a kernel's ABI takes the
ones it declares)."""


class ViewLike(Protocol):
    """One operand at a launch: the address of element [0, ...], dtype, element strides
    (`xhip.runtime.buffers.MemRef`, or a `View` a family derives from one)."""

    @property
    def address(self) -> int: ...

    @property
    def dtype(self) -> np.dtype: ...

    @property
    def shape(self) -> tuple[int, ...]: ...

    @property
    def strides(self) -> tuple[int, ...]: ...


class View:
    """An operand window a family derives at a launch (a concat piece, a permuted read)."""

    __slots__ = ("address", "dtype", "shape", "strides")

    def __init__(self, address: int, dtype: np.dtype, shape: tuple[int, ...], strides: tuple[int, ...]):
        self.address, self.dtype, self.shape, self.strides = address, dtype, tuple(shape), tuple(strides)

    def at(self, index: Sequence[int]) -> int:
        """The address of element `index` (leading entries; the rest are 0)."""
        return self.address + sum(i * s for i, s in zip(index, self.strides)) * np.dtype(self.dtype).itemsize

    def __repr__(self) -> str:
        return f"View({self.address}, {self.dtype}, {self.shape}, {self.strides})"


def dense_strides(shape: Sequence[object]) -> tuple[object, ...]:
    """The element strides of a row-major array of these extents (ints or traced values)."""
    strides, step = [], 1
    for extent in reversed(shape):
        strides.append(step)
        step = step * extent  # type: ignore[operator]
    return tuple(reversed(strides))


def broadcast_strides(view: ViewLike, shape: Sequence[int]) -> tuple[int, ...]:
    """`view`'s strides right-aligned to `shape`, 0 where it broadcasts."""
    extents = view.shape
    if len(extents) == len(shape) and all(map(same_extent, extents, shape)):
        return view.strides  # the common case, on every launch's path: nothing broadcasts
    return _broadcast(extents, view.strides, shape)


def _broadcast(extents: Sequence[int], strides: Sequence[int], shape: Sequence[int]) -> tuple[int, ...]:
    # A unit dim reads stride 0 unless it meets the very same extent: its stride is never
    # stepped when the target is 1 too, so a traced run asks nothing of a run-time target
    # that a static 1 meets (a class of its own for batch 1 would be a second trace).
    lead = len(shape) - len(extents)
    result = [0] * lead
    for extent, stride, target in zip(extents, strides, shape[lead:]):
        result.append(stride if same_extent(extent, target) or extent != 1 else 0)
    return tuple(result)


def matrix_strides(view: ViewLike, batch: Sequence[int], vector_is_row: bool) -> tuple[tuple[int, ...], int, int]:
    """(batch strides, row stride, column stride) of a matmul-like operand, its batch dims
    broadcast to `batch`; a vector is promoted like NumPy does: a row (A) or a column (B)."""
    if len(view.shape) == 1:
        stride = view.strides[0]
        return ((0,) * len(batch), *((0, stride) if vector_is_row else (stride, 0)))  # type: ignore[return-value]
    lead, strides = view.shape[:-2], view.strides
    same = len(lead) == len(batch) and all(map(same_extent, lead, batch))
    return (strides[:-2] if same else _broadcast(lead, strides[:-2], batch)), strides[-2], strides[-1]


def split_axes(values: Sequence[int], axes: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(entries not in axes, entries in axes)."""
    return tuple([v for d, v in enumerate(values) if d not in axes]), tuple([values[d] for d in axes])


Picker = Callable[[Sequence[int]], tuple[int, ...]]


def picker(indices: Sequence[int]) -> Picker:
    """A function taking these entries of a sequence, as a tuple (what values need per
    launch, with the indices decided at bind time)."""
    indices = tuple(indices)
    if not indices:
        return lambda values: ()
    if len(indices) == 1:
        (only,) = indices
        return lambda values: (values[only],)
    return operator.itemgetter(*indices)  # type: ignore[return-value]


def axes_pickers(rank: int, axes: Sequence[int]) -> tuple[Picker, Picker]:
    """(the entries not in axes, the entries in axes) of rank-`rank` tuples."""
    return picker([d for d in range(rank) if d not in axes]), picker(axes)


@dataclass(frozen=True)
class OpFacts:
    """What the runtime reads of one hip compute op, once (xhip.runtime.bind): its class
    (for the class's facts: C_EXPR, REDUCE_*, MAY_ALIAS_INPUT...), its properties with the
    dialect's defaults, and what the IR types fix of its operands."""

    op_class: OpClass
    props: Props
    inputs: tuple[Operand, ...]
    outputs: tuple[Operand, ...]


ValuesFn = Callable[[Sequence[ViewLike], Sequence[ViewLike], Sequence[int | float]], list[Values]]
"""(ins, outs, scalars) -> one `Values` per kernel of the form, in launch order."""

FormFn = Callable[[Sequence[ViewLike], Sequence[ViewLike]], int]
"""(ins, outs) -> which form a launch takes."""


@dataclass(frozen=True)
class LibraryRule:
    """How a site's launch runs on a vendor library: which one, and its call for a launch's
    values (None where the library cannot take those: the kernels run then)."""

    kind: Literal["blas", "dnn"]
    """BLAS (cuBLAS / hipBLAS: GEMMs) or DNN (cuDNN: convolutions)."""
    call: Callable[[Values], LibraryCall | None]


@dataclass(frozen=True)
class Site:
    """One op's launches, decided once: its kernels, the form a launch takes, its values."""

    facts: OpFacts
    forms: tuple[tuple[KernelSpec, ...], ...]
    """Each form's kernels in launch order; forms[0] is correct for every launch."""
    values: ValuesFn
    form: FormFn | None = None
    """Which form a launch takes (None: always forms[0])."""
    library: LibraryRule | None = None
    """A vendor library may run the launch instead of the kernels (None: never)."""

    @property
    def kernels(self) -> list[KernelSpec]:
        """Every kernel of every form, each once, in order."""
        unique: dict[str, KernelSpec] = {}
        for form in self.forms:
            for spec in form:
                unique.setdefault(spec.name, spec)
        return list(unique.values())


def output_from_input_params(c: str, rank: int) -> tuple[Param, ...]:
    """The arguments of a kernel with one thread per element of y that reads x where it
    likes (pooling, resize): the count, y's extents, y and its strides, x, its extents and
    strides (`output_from_input_values` gives their values)."""
    return (
        index("n"), dims("extents", rank), pointer("y", c, const=False), dims("y_strides", rank),
        pointer("x", c), dims("x_extents", rank), dims("x_strides", rank),
    )  # fmt: skip


def output_from_input_values(ins: Sequence[ViewLike], outs: Sequence[ViewLike], scalars: Sequence[int | float]) -> list[Values]:
    x, y = ins[0], outs[0]
    return [{
        "n": math.prod(y.shape), "extents": y.shape, "y": y.address, "y_strides": y.strides,
        "x": x.address, "x_extents": x.shape, "x_strides": x.strides,
    }]  # fmt: skip
