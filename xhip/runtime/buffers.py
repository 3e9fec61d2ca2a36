"""Runtime values: device buffers, memrefs viewing them, and element-type mapping.

A `DeviceBuffer` is one allocation (a pool, the host scratch, an output, a
constant, a plain `hip.alloc`). A `MemRef` is a strided window into one, plus
the identity of the logical buffer it belongs to (`owner`): a `memref.view`
into a pool starts a new logical buffer, while every view of it (subview,
expand/collapse, reinterpret_cast, whatever the rank) keeps the owner: the same
bytes are the same logical buffer. The sanitizer reasons about owners, not
allocations, because pool slots are shared on purpose.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import count

import numpy as np
from xhip.diagnostics import XhipError

POISON_BYTE = 0xA5
"""Fresh device memory is filled with this, so unwritten elements show up in checks."""


_buffer_ids = count(1)


@dataclass(eq=False)
class DeviceBuffer:
    """One allocation (device or host-mapped), as a neutral handle: address, size, label.

    `host` holds bytes the host can read and write directly: all memory of the
    reference backend, pinned host-mapped scratch and the host copy of constants
    on a GPU. Device memory without it is reached through the backend only.
    """

    nbytes: int
    label: str
    """Where it comes from (the IR location of the op that allocated it)."""
    kind: str
    """"pool", "scratch", "output", "cache", "constant", "alloc" or "input"."""
    address: int = 0
    """The device address of byte 0 (0 where the backend has no device)."""
    host: np.ndarray | None = None
    cache: KvCache | None = field(default=None, repr=False)
    """What a "cache" buffer holds (xhip.runtime.kv_cache)."""
    id: int = field(init=False, default_factory=lambda: next(_buffer_ids))

    @staticmethod
    def in_host_memory(nbytes: int, label: str, kind: str) -> DeviceBuffer:
        """Poisoned host bytes: the reference backend's device memory."""
        return DeviceBuffer(nbytes, label, kind, host=np.full(max(nbytes, 0), POISON_BYTE, dtype=np.uint8))

    @staticmethod
    def on_device(nbytes: int, label: str, kind: str, address: int, host: np.ndarray | None = None) -> DeviceBuffer:
        return DeviceBuffer(nbytes, label, kind, address, host)

    @property
    def data(self) -> np.ndarray:
        if self.host is None:
            raise XhipError(f"{self.kind} '{self.label}' is device memory: the host cannot read it directly")
        return self.host

    def keep_host_copy(self, data: np.ndarray, offset: int) -> None:
        """Keep host bytes of data that never changes on the device (constants)."""
        if self.host is None:
            self.host = np.full(self.nbytes, POISON_BYTE, dtype=np.uint8)
        self.host[offset : offset + data.nbytes] = data


def contiguous_strides(shape: Sequence[int]) -> tuple[int, ...]:
    """Row-major element strides of `shape`."""
    return _contiguous_strides(tuple(shape))


def forget_strides() -> None:
    """Empty `contiguous_strides`' cache (a trace leaves traced extents in it)."""
    _contiguous_strides.cache_clear()


@functools.lru_cache(maxsize=4096)
def _contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    # Cached: the views of one run share a few shapes, and each run's views are many.
    strides, step = [], 1
    for extent in reversed(shape):
        strides.append(step)
        step *= max(extent, 1)
    return tuple(reversed(strides))


_owner_ids = count(1)


@dataclass(frozen=True, eq=False)
class Owner:
    """A logical buffer: what the sanitizer names when bytes are misused."""

    label: str
    id: int = field(default_factory=lambda: next(_owner_ids))


def host_view(host: np.ndarray, offset: int, shape: tuple[int, ...], byte_strides: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """The NumPy view of `shape` elements at byte `offset` of `host` (an empty array where
    there are no elements); raises TypeError or ValueError for a view beyond the bytes."""
    try:
        return np.ndarray(shape, dtype, host, offset, byte_strides)
    except (TypeError, ValueError):
        if 0 in shape:
            return np.empty(shape, dtype)
        raise


class MemRef:
    """A strided window (element strides) of `dtype` elements into a DeviceBuffer.

    A plain class with slots, not a dataclass: the host plan makes one per view per run,
    so its construction is on every launch's path. Treat it as immutable."""

    __slots__ = ("buffer", "offset", "shape", "strides", "dtype", "owner", "base", "address", "_array")

    def __init__(
        self,
        buffer: DeviceBuffer,
        offset: int,
        shape: tuple[int, ...],
        strides: tuple[int, ...],
        dtype: np.dtype,
        owner: Owner,
        base: int = 0,
    ):
        self.buffer = buffer
        self.offset = offset
        """Byte offset of element [0, ..., 0] in the buffer."""
        self.shape = shape
        self.strides = strides
        self.dtype = dtype
        self.owner = owner
        self.base = base
        """Byte offset of the aligned pointer (what memref.reinterpret_cast offsets count from)."""
        self.address = buffer.address + offset
        """The device address of element [0, ..., 0] (what a kernel argument holds): a field,
        not a property, since every launch reads its operands' (a buffer never moves)."""
        self._array: np.ndarray | None = None

    def __repr__(self) -> str:
        return f"MemRef({self.buffer.label}+{self.offset}, shape={list(self.shape)}, strides={list(self.strides)}, {self.dtype})"

    def at(self, index: Sequence[int]) -> int:
        """The device address of element `index` (leading entries; the rest are 0)."""
        return self.address + sum(i * s for i, s in zip(index, self.strides)) * self.dtype.itemsize

    @staticmethod
    def contiguous(buffer: DeviceBuffer, shape: Sequence[int], dtype: np.dtype, owner: Owner, offset: int = 0) -> MemRef:
        return MemRef(buffer, offset, tuple(shape), contiguous_strides(shape), dtype, owner, offset)

    @property
    def nbytes_spanned(self) -> int:
        # One plain loop: every new view's NumPy array asks (generators cost several times more).
        last = 0
        for extent, stride in zip(self.shape, self.strides):
            if extent == 0:
                return 0
            last += (extent - 1) * stride
        return (last + 1) * self.dtype.itemsize

    def array(self) -> np.ndarray:
        """A NumPy view of exactly these elements (writes land in the buffer), made once:
        the memref is immutable and its buffer's bytes never move (a pool grows into a
        new buffer), and the launches that write and read it ask for it in turn."""
        if self._array is not None:
            return self._array
        itemsize = self.dtype.itemsize
        spanned = self.nbytes_spanned
        if spanned == 0:
            self._array = np.empty(self.shape, self.dtype)
            return self._array
        if self.offset < 0 or self.offset + spanned > self.buffer.nbytes:
            raise XhipError(
                f"memref of shape {list(self.shape)} at byte {self.offset} overruns "
                f"its {self.buffer.nbytes}-byte buffer ({self.buffer.label})"
            )
        self._array = host_view(self.buffer.data, self.offset, self.shape, tuple([s * itemsize for s in self.strides]), self.dtype)
        return self._array

    @property
    def is_dense(self) -> bool:
        """Row-major with no gaps: the elements are one run of bytes."""
        return self.strides == contiguous_strides(self.shape) or self.nbytes_spanned == 0

    def element_offset(self, index: Sequence[int]) -> int:
        """The byte offset of element `index` in the buffer."""
        return self.offset + sum(i * s for i, s in zip(index, self.strides)) * self.dtype.itemsize

    def rebased(self, span: np.ndarray) -> MemRef:
        """The same elements in `span`, a host copy of the bytes this view spans."""
        holder = DeviceBuffer(span.nbytes, self.buffer.label, self.buffer.kind, host=span)
        return MemRef(holder, 0, self.shape, self.strides, self.dtype, self.owner)

    def byte_addresses(self) -> np.ndarray:
        """Every byte these elements occupy in the buffer (for the sanitizer)."""
        itemsize = self.dtype.itemsize
        if self.nbytes_spanned == 0:
            return np.empty(0, np.int64)
        grids = np.indices(self.shape, dtype=np.int64).reshape(len(self.shape), -1) if self.shape else np.zeros((0, 1), np.int64)
        starts = self.offset + (np.asarray(self.strides, np.int64) @ grids if self.shape else np.zeros(1, np.int64)) * itemsize
        return (starts[:, None] + np.arange(itemsize, dtype=np.int64)[None, :]).reshape(-1)

    def with_view(self, offset: int, shape: Sequence[int], strides: Sequence[int]) -> MemRef:
        """Another window of the same logical buffer (subview, reshape)."""
        return MemRef(self.buffer, offset, tuple(shape), tuple(strides), self.dtype, self.owner, self.base)


@dataclass(eq=False)
class KvCache:
    """What a KV cache buffer holds (`DeviceBuffer.cache`, xhip.runtime.kv_cache): a cache
    laid out at its capacity along `axis`, its first `length` rows written."""

    axis: int
    capacity: int
    """Rows along `axis` the buffer has room for."""
    length: int
    """Rows written so far (the extent along `axis` of the view that extends it)."""
    view: MemRef
    """The view of all `capacity` rows (its offset, strides and other extents are what a past
    that extends the cache has)."""
    written: MemRef | None = None
    """The view of the written rows last handed out (a decode loop feeds this very one back)."""

    def extended_by(self, past: MemRef) -> bool:
        """Whether `past` is exactly this cache's written rows."""
        if past is self.written:
            return True
        view, axis = self.view, self.axis
        return (
            past.shape[axis] == self.length
            and past.offset == view.offset
            and past.strides == view.strides
            and past.dtype == view.dtype
            and past.shape[:axis] == view.shape[:axis]
            and past.shape[axis + 1 :] == view.shape[axis + 1 :]
        )

    def rows(self, start: int, stop: int) -> MemRef:
        """The view of rows [start, stop) along the axis."""
        view = self.view
        shape = list(view.shape)
        shape[self.axis] = stop - start
        offset = view.offset + start * view.strides[self.axis] * view.dtype.itemsize
        return MemRef(view.buffer, offset, tuple(shape), view.strides, view.dtype, view.owner, view.base)
