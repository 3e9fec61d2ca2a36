"""The argument ABI of a launch: a rendered kernel's, written once per specialization, or
a vendor BLAS GEMM's (`GemmCall`).

A `KernelABI` is the ordered parameter list of one `extern "C" __global__` kernel plus how
it is launched. The templates render the C parameter list from it (`signature()`), and a
GPU driver packs the launch arguments from it (`pack()`, one buffer laid out like the C
parameters, for `cuLaunchKernel`/`hipModuleLaunchKernel`'s argument-buffer form) and sizes
the grid from it (`grid()`). Nothing here imports xDSL: a GPU script can use it alone.
"""

from __future__ import annotations

import ctypes
import functools
import math
import struct
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import NamedTuple

import numpy as np

from xhip.index.symbolic import as_int, at_most

ArgValue = int | float | Sequence[int]

# C scalar types a `VALUE` parameter may have, with their struct codes.
_SCALAR_CODES = {
    "float": "f",
    "double": "d",
    "bool": "?",
    "signed char": "b",
    "unsigned char": "B",
    "short": "h",
    "unsigned short": "H",
    "int": "i",
    "unsigned int": "I",
    "long long": "q",
    "unsigned long long": "Q",
}


class ParamKind(Enum):
    POINTER = "pointer"  # a device address (an integer when packed)
    INDEX = "index"  # one `long long`
    DIMS = "dims"  # `xhip_dims<count>`: `count` long longs (one when count is 0)
    VALUE = "value"  # one scalar of `ctype`


@dataclass(frozen=True)
class Param:
    name: str
    kind: ParamKind
    ctype: str = "long long"
    """The pointee type of a pointer, the scalar type of a value."""
    count: int = 0
    """The number of entries of a DIMS parameter."""
    const: bool = False
    """A pointer the kernel only reads."""

    def c_type(self) -> str:
        """The C type of the parameter (its declaration without the name)."""
        return self.declaration().removesuffix(f" {self.name}")

    def declaration(self) -> str:
        match self.kind:
            case ParamKind.POINTER:
                return f"{'const ' if self.const else ''}{self.ctype}* {self.name}"
            case ParamKind.INDEX:
                return f"long long {self.name}"
            case ParamKind.DIMS:
                return f"xhip_dims<{self.count}> {self.name}"
            case ParamKind.VALUE:
                return f"{self.ctype} {self.name}"

    @property
    def code(self) -> str:
        """The struct code of the packed parameter (with its repeat count)."""
        match self.kind:
            case ParamKind.POINTER | ParamKind.INDEX:
                return "q"
            case ParamKind.DIMS:
                return f"{max(self.count, 1)}q"
            case ParamKind.VALUE:
                return _SCALAR_CODES[self.ctype]

    @property
    def alignment(self) -> int:
        return struct.calcsize(self.code[-1])


def pointer(name: str, ctype: str, *, const: bool = True) -> Param:
    return Param(name, ParamKind.POINTER, ctype, const=const)


def index(name: str) -> Param:
    return Param(name, ParamKind.INDEX)


def dims(name: str, count: int) -> Param:
    return Param(name, ParamKind.DIMS, count=count)


def value(name: str, ctype: str) -> Param:
    return Param(name, ParamKind.VALUE, ctype)


class Launch(Enum):
    """How the grid follows from the arguments."""

    ELEMENTS = "elements"  # a grid-stride loop over `count` elements, `per_thread` each
    ROWS = "rows"  # one block per row (a grid-stride loop over `count` rows)
    SINGLE_BLOCK = "single-block"  # exactly one block (an in-order scan)
    TILES = "tiles"  # (N tiles, M tiles, batch) blocks of TILE x TILE threads


MAX_BLOCKS = 1 << 16
"""Grid-stride kernels never need more blocks than this to fill a GPU."""

TILE = 16
"""The matmul tile edge: blocks of TILE x TILE threads."""


@dataclass(frozen=True)
class KernelABI:
    name: str
    params: tuple[Param, ...]
    launch: Launch
    count: str = "n"
    """The parameter holding the element or row count (ELEMENTS and ROWS)."""
    block: int = 256
    """Threads per block (a multiple of every warp size: 32 and 64)."""
    per_thread: int = 1
    may_alias_input: bool = False
    """The output may be one of the inputs (same buffer, same layout)."""

    def signature(self) -> str:
        return ", ".join(p.declaration() for p in self.params)

    @functools.cached_property
    def param_offsets(self) -> list[int]:
        """The byte offset of each parameter in the packed buffer."""
        return [offset for offset, _ in self.offsets()]

    @functools.cached_property
    def reports_status(self) -> bool:
        """The kernel takes a `status` word to report a broken run-time contract in."""
        return any(p.name == "status" for p in self.params)

    @functools.cached_property
    def _format(self) -> str:
        return self.layout()

    def layout(self) -> str:
        """The struct format of the packed arguments (C layout: each aligned naturally)."""
        fmt, end = "=", 0
        for param, (offset, size) in zip(self.params, self.offsets()):
            fmt += "x" * (offset - end) + param.code
            end = offset + size
        return fmt + "x" * (-end % 8)

    def offsets(self) -> list[tuple[int, int]]:
        """(byte offset, byte size) of each parameter in the packed buffer, for drivers
        that take one pointer per argument (`kernelParams`)."""
        spans, offset = [], 0
        for param in self.params:
            offset += -offset % param.alignment
            size = struct.calcsize("=" + param.code)
            spans.append((offset, size))
            offset += size
        return spans

    def pack(self, values: Mapping[str, ArgValue]) -> bytes:
        """The arguments as one buffer; `values` names every parameter."""
        missing = [p.name for p in self.params if p.name not in values]
        if missing:
            raise ValueError(f"{self.name}: no value for {', '.join(missing)}")
        flat: list[int | float] = []
        for param in self.params:
            flat.extend(_flatten(param, values[param.name]))
        return struct.pack(self._format, *flat)

    @functools.cached_property
    def flatten(self) -> Callable[[Mapping[str, ArgValue]], list[int | float]]:
        """A launch's values as the flat list `struct` packs (dims entries spread out), by
        code generated once per ABI (parameter names only), so that a launch costs no
        per-parameter Python work. It checks less than `pack` (a wrong number of dims
        entries still fails, in struct, by the count)."""
        code = f"def flatten(v):\n    return [{', '.join(self._flat_parts())}]\n"
        namespace: dict[str, object] = {}
        exec(compile(code, f"<argument list of {self.name}>", "exec"), namespace)  # noqa: S102 -- parameter names only
        return namespace["flatten"]  # type: ignore[return-value]

    @functools.cached_property
    def flat_slots(self) -> dict[str, int]:
        """Each parameter's first index in `flatten`'s list."""
        slots, at = {}, 0
        for param in self.params:
            slots[param.name] = at
            at += max(param.count, 1) if param.kind is ParamKind.DIMS else 1
        return slots

    @functools.cached_property
    def pointer_slots(self) -> tuple[int, ...]:
        """The indices of the device addresses in `flatten`'s list."""
        return tuple(self.flat_slots[p.name] for p in self.params if p.kind is ParamKind.POINTER)

    def packer(self, storage: ctypes.Array) -> Callable[..., None]:  # type: ignore[type-arg]
        """`pack_into(storage, 0, *flat)` for a flat list of `flatten`'s form."""
        return functools.partial(struct.Struct(self._format).pack_into, storage, 0)

    def _flat_parts(self) -> list[str]:
        parts = []
        for param in self.params:
            if param.kind is ParamKind.DIMS:
                parts.append(f"*v[{param.name!r}]" if param.count else "0")
            else:
                parts.append(f"v[{param.name!r}]")
        return parts

    @functools.cached_property
    def packed_size(self) -> int:
        return struct.calcsize(self._format)

    def argument_pointers(self, packed: bytes) -> tuple[ctypes.Array, ctypes.Array]:
        """A `void*[]` with one pointer per parameter into a copy of `packed` (what
        `kernelParams` takes); keep the second array alive as long as the first."""
        buffer = ctypes.create_string_buffer(packed, len(packed))
        base = ctypes.addressof(buffer)
        pointers = (ctypes.c_void_p * len(self.params))(*[base + offset for offset, _ in self.offsets()])
        return pointers, buffer

    def grid(self, values: Mapping[str, ArgValue]) -> tuple[int, int, int]:
        """Blocks per grid dimension; (0, 0, 0) when there is nothing to do."""
        return self.grid_rule(values)

    @functools.cached_property
    def grid_rule(self) -> Callable[[Mapping[str, ArgValue]], tuple[int, int, int]]:
        """`grid` with its launch kind decided once (what a launch calls)."""
        if self.launch in (Launch.ELEMENTS, Launch.ROWS):
            count_name = self.count
            per_block = self.per_thread * self.block if self.launch is Launch.ELEMENTS else 1

            def blocks(values: Mapping[str, ArgValue]) -> tuple[int, int, int]:
                count = as_int(values[count_name])
                # ceil(ceil(count / per_thread) / block) is ceil(count / (per_thread * block)).
                needed = -(-count // per_block)
                return (at_most(needed, MAX_BLOCKS), 1, 1) if needed > 0 else (0, 0, 0)

            return blocks
        return self._grid_of_kind

    def _grid_of_kind(self, values: Mapping[str, ArgValue]) -> tuple[int, int, int]:
        """SINGLE_BLOCK and TILES."""
        if self.launch is Launch.SINGLE_BLOCK:
            return (1, 1, 1)
        batch = math.prod(values.get("batch_extents", ()) or (1,))  # type: ignore[arg-type]
        m, n = as_int(values["m"]), as_int(values["n"])
        if 0 in (m, n, batch):
            return (0, 0, 0)
        return (-(-n // TILE), -(-m // TILE), batch)

    def block_shape(self) -> tuple[int, int, int]:
        return (TILE, TILE, 1) if self.launch is Launch.TILES else (self.block, 1, 1)


def _flatten(param: Param, value: ArgValue) -> list[int | float]:
    if param.kind is ParamKind.DIMS:
        entries: list[int | float] = [int(v) for v in value]  # type: ignore[union-attr]
        if len(entries) != param.count:
            raise ValueError(f"{param.name}: expected {param.count} entries, got {len(entries)}")
        return entries or [0]
    if param.kind is ParamKind.VALUE and param.ctype in ("float", "double"):
        return [float(value)]  # type: ignore[arg-type]
    if param.kind is ParamKind.VALUE and param.ctype == "bool":
        return [bool(value)]
    return [int(value)]  # type: ignore[arg-type]


class GemmCall(NamedTuple):
    """One strided-batched GEMM in row-major terms: C[b] = alpha * op(A[b]) @ op(B[b]) + beta * C[b].

    `lda`/`ldb`/`ldc` are row strides (elements) of the row-major matrices; a batch
    stride of 0 broadcasts that operand. The driver maps it onto its column-major BLAS.
    `dtype` is A's and B's element type, and C's unless `c_dtype` says otherwise (float32
    from half operands: accumulated in float32 and rounded once, into float32).
    """

    m: int
    n: int
    k: int
    a: int
    lda: int
    stride_a: int
    trans_a: bool
    b: int
    ldb: int
    stride_b: int
    trans_b: bool
    c: int
    ldc: int
    stride_c: int
    batch: int
    dtype: np.dtype
    alpha: float = 1.0
    beta: float = 0.0
    c_dtype: np.dtype | None = None


class ConvCall(NamedTuple):
    """One convolution on the vendor DNN library (cuDNN): y = conv(x, w) (+ bias), NCHW-style
    and contiguous, as ONNX Conv with symmetric pads. Shapes are [N, C, *spatial] (x),
    [M, C / group, *kernel] (w), [N, M, *out] (y). `a`, `b`, `c` are x's, w's and y's
    addresses, the names every library call gives the operands a run moves; `bias` is the
    bias's (0: none), a constant that never moves."""

    x_shape: tuple[int, ...]
    w_shape: tuple[int, ...]
    y_shape: tuple[int, ...]
    pads: tuple[int, ...]
    strides: tuple[int, ...]
    dilations: tuple[int, ...]
    group: int
    dtype: np.dtype
    bias: int
    a: int
    b: int
    c: int


LibraryCall = GemmCall | ConvCall
"""A launch a vendor library runs instead of a rendered kernel."""
