"""NumPy reference kernels: the registry (by hip op class), the call record every kernel
receives, and shared dtype helpers. Each family module registers its ops' kernels next to
their specializations (`xhip.kernels.rows`, ...); `xhip.kernels.families` imports them all.

A kernel knows nothing of IR: it gets NumPy arrays (outputs possibly strided views into
a byte buffer), the op's properties (every one, with the dialect's defaults) and host
scalars, and writes every element of its outputs in place. Operand shapes and dtypes are
authoritative, so kernels check that what they compute fits them and fail with an
`XhipError` naming the op otherwise.

Lookups by op (`kernel_of`, `run_kernel`) are in `xhip.kernels.families`, which imports
every family and so every registration.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from enum import Enum

import numpy as np

from xhip.diagnostics import XhipError
from xhip.dialects import hip
from xhip.dialects.hip.properties import Props
from xhip.dtypes import BOOL_DTYPE, FLOAT_DTYPES, INT_DTYPES, SUPPORTED_DTYPES

__all__ = ["BOOL_DTYPE", "FLOAT_DTYPES", "INT_DTYPES", "SUPPORTED_DTYPES"]

class Elements(Enum):
    """Which dtypes an operand accepts (the NumPy side of the dialect's ElementKind)."""

    ANY = "any supported dtype"
    NUMERIC = "an integer or float dtype"
    FLOAT = "a float dtype"
    BOOL = "bool"
    INDICES = "int32 or int64"

    def accepts(self, dtype: np.dtype) -> bool:
        match self:
            case Elements.ANY:
                return dtype in SUPPORTED_DTYPES
            case Elements.NUMERIC:
                return dtype in FLOAT_DTYPES or dtype in INT_DTYPES
            case Elements.FLOAT:
                return dtype in FLOAT_DTYPES
            case Elements.BOOL:
                return dtype == BOOL_DTYPE
            case Elements.INDICES:
                return dtype in (np.dtype(np.int32), np.dtype(np.int64))


def compute_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype arithmetic runs in: half-precision floats widen to float32 (as onnxruntime
    does on CPU); everything else computes in its own dtype."""
    if dtype in FLOAT_DTYPES and dtype.itemsize < 4:
        return np.dtype(np.float32)
    return dtype


def lowest(dtype: np.dtype) -> int | float:
    """The identity of max: -inf for floats, the minimum for integers."""
    if dtype in INT_DTYPES:
        return int(np.iinfo(dtype).min)
    return -np.inf


def highest(dtype: np.dtype) -> int | float:
    """The identity of min: +inf for floats, the maximum for integers."""
    if dtype in INT_DTYPES:
        return int(np.iinfo(dtype).max)
    return np.inf


def compute_operands(call: KernelCall, arrays: Sequence[np.ndarray], operand_dtype: np.dtype | None = None) -> list[np.ndarray]:
    """`arrays` (all of the output's dtype, or of `operand_dtype` where an op widens) in the
    compute dtype: linear algebra, normalization and reductions compute in it and round
    once into the output."""
    dtype = compute_dtype(call.out.dtype)
    for i, array in enumerate(arrays):
        call.require_dtype(array, call.out.dtype if operand_dtype is None else operand_dtype, f"operand #{i}")
    return [array.astype(dtype, copy=False) for array in arrays]


def compute_scalar(call: KernelCall, value: float) -> np.generic:
    """A float property as a scalar of the compute dtype, so it does not widen the math."""
    return compute_dtype(call.out.dtype).type(value)


def truncating_divide(a: np.ndarray, b: np.ndarray | int) -> np.ndarray:
    """Integer division rounding toward zero (C, and onnxruntime), not NumPy's floor."""
    quotient = np.floor_divide(a, b)
    inexact = np.remainder(a, b) != 0
    # Floor and truncation differ only for inexact quotients of opposite-signed operands.
    return quotient + (inexact & ((np.asarray(a) < 0) != (np.asarray(b) < 0)))


TILE_BYTES = 4 << 20
"""The bytes one tile of a tiled reference kernel (attention, softmax) works over, at
least: their temporaries stay of the order of the operands' size, never a whole
[queries, keys] score tensor beside a pool planned for tiles of it."""


def row_tiles(extent: int, bytes_per_row: int) -> Iterator[slice]:
    """Consecutive slices of [0, extent), each of as many rows as fit in TILE_BYTES (one
    row at least)."""
    step = max(1, TILE_BYTES // max(bytes_per_row, 1))
    for start in range(0, extent, step):
        yield slice(start, min(start + step, extent))


def shape_text(shape: Sequence[int]) -> str:
    return "[" + ", ".join(str(d) for d in shape) + "]"


Arity = tuple[int, int | None]
"""(minimum, maximum) number of arrays in `inputs` or `outputs`; None = unbounded."""


@dataclass(slots=True)  # not frozen: a frozen dataclass's construction costs 3x, on every launch
class KernelCall:
    """One invocation: what a kernel reads, where it writes, and how to complain (kernels
    treat it as read-only)."""

    name: str
    inputs: Sequence[np.ndarray]
    outputs: Sequence[np.ndarray]
    props: Props
    """Every property of the op, with the dialect's defaults."""
    scalars: Sequence[int | float]
    location: str | None = None

    @property
    def out(self) -> np.ndarray:
        return self.outputs[0]

    def error(self, message: str) -> XhipError:
        return XhipError(f"'hip.{self.name}' kernel: {message}", self.location)

    def axis(self, rank: int, key: str = "axis") -> int:
        """Property `key` as an axis in [0, rank); ONNX negative axes count from the end."""
        return self.normalize_axis(int(self.props[key]), rank)

    def normalize_axis(self, axis: int, rank: int) -> int:
        if not -rank <= axis < rank:
            raise self.error(f"axis {axis} is out of range for rank {rank}")
        return axis + rank if axis < 0 else axis

    def require_dtype(self, array: np.ndarray, dtype: np.dtype, what: str) -> None:
        if array.dtype != dtype:
            raise self.error(f"{what} has dtype {array.dtype}, expected {dtype}")

    def require_elements(self, array: np.ndarray, elements: Elements, what: str) -> None:
        if not elements.accepts(array.dtype):
            raise self.error(
                f"{what} has unsupported dtype {array.dtype} (expected {elements.value})"
            )

    def require_broadcast(self, shape: Sequence[int], target: Sequence[int], what: str) -> None:
        """`shape` must broadcast to exactly `target` (NumPy rules)."""
        try:
            fits = np.broadcast_shapes(tuple(shape), tuple(target)) == tuple(target)
        except ValueError:
            fits = False
        if not fits:
            raise self.error(
                f"{what} of shape {shape_text(shape)} does not broadcast to {shape_text(target)}"
            )

    def store(self, out: np.ndarray, value: np.ndarray, *, broadcast: bool = False) -> None:
        """Writes `value` into every element of `out`, converting to out's dtype."""
        value = np.asarray(value)
        if broadcast:
            self.require_broadcast(value.shape, out.shape, "result")
        elif value.shape != out.shape:
            raise self.error(
                f"result of shape {shape_text(value.shape)} does not match "
                f"the output shape {shape_text(out.shape)}"
            )
        np.copyto(out, value, casting="unsafe")


Compute = Callable[[KernelCall], None]


@dataclass(frozen=True)
class Kernel:
    """A reference kernel with the operand counts and the dtypes it accepts.

    `elements` is checked on the first input (the first output for generators); the
    compute function checks the rest of its operands itself."""

    name: str
    compute: Compute
    inputs: Arity = (1, 1)
    outputs: Arity = (1, 1)
    scalars: Arity = (0, 0)
    elements: Elements = Elements.ANY

    def __call__(self, call: KernelCall) -> None:
        for group, count, arity in (
            ("inputs", len(call.inputs), self.inputs),
            ("outputs", len(call.outputs), self.outputs),
            ("scalars", len(call.scalars), self.scalars),
        ):
            low, high = arity
            if count < low or (high is not None and count > high):
                expected = f"{low}" if low == high else f"{low}..{'n' if high is None else high}"
                raise call.error(f"expected {expected} {group}, got {count}")
        for i, array in enumerate([*call.inputs, *call.outputs]):
            call.require_elements(array, Elements.ANY, f"operand #{i}")
        primary = call.inputs[0] if call.inputs else call.outputs[0]
        call.require_elements(primary, self.elements, "input" if call.inputs else "output")
        # Overflow, 0/0 and the like follow IEEE (inf, nan) or wrap, as on the device.
        with np.errstate(all="ignore"):
            self.compute(call)


KERNELS: dict[type, Kernel] = {}
"""Every reference kernel by its hip op class."""

OP_CLASSES: dict[str, type] = {op.name.removeprefix("hip."): op for op in hip.HIP.operations}
"""hip op classes by name without the `hip.` prefix (the spelling `run_kernel` takes)."""


def register(
    *op_classes: type,
    inputs: Arity = (1, 1),
    outputs: Arity = (1, 1),
    scalars: Arity = (0, 0),
    elements: Elements = Elements.ANY,
) -> Callable[[Compute], Compute]:
    """Decorator: registers the compute function as the kernel of each of `op_classes`."""

    def add(compute: Compute) -> Compute:
        for op_class in op_classes:
            assert op_class not in KERNELS, f"kernel of {op_class.name} registered twice"  # type: ignore[attr-defined]
            name = op_class.name.removeprefix("hip.")  # type: ignore[attr-defined]
            KERNELS[op_class] = Kernel(name, compute, inputs, outputs, scalars, elements)
        return compute

    return add
