"""Device memory for the GPU backend: a caching allocator over one driver.

Runs allocate their inputs, outputs and plain allocations afresh while pools and
host scratch live in the session. Asking the driver for memory on every run
costs a synchronizing call each time, so freed blocks are kept by size class
and handed out again (when its own class has none free, a block up to twice the size asked
for, or up to 64 KiB, serves); a block returns when the last buffer naming it goes away
(a finalizer), which is when the run's views of it are dropped.
"""

from __future__ import annotations

import weakref
from collections import defaultdict
from collections.abc import Mapping, Sequence

import numpy as np

from xhip.runtime.backends.gpu.driver import Driver, DriverError
from xhip.runtime.buffers import DeviceBuffer

POISON_BYTE = 0xA5
"""Fresh device memory is filled with this byte, as on the reference backend."""

_GRANULE = 512
_FINE_BYTES = 64 << 10
"""Up to here sizes round to `_GRANULE`; above, to 1/8 of the next power of two (at most
12.5% more than asked). A decoder's cache grows by one token a step (3 KiB per layer's K
at batch 1): with coarse classes a step's inputs and outputs reuse the last steps' blocks
instead of asking the driver for 48 new ones."""


def _size_class(nbytes: int) -> int:
    """Round up to 512 bytes up to 64 KiB, and to 1/8 of the next power of two above."""
    nbytes = max(int(nbytes), 1)
    if nbytes <= _FINE_BYTES:
        return -(-nbytes // _GRANULE) * _GRANULE
    step = 1 << (nbytes.bit_length() - 4)
    return -(-nbytes // step) * step


def _smallest_free(free: Mapping[int, Sequence[object]], size: int, bound: int) -> int:
    """`size` when its class has a free block, else the smallest class up to `bound` that
    has one, else `size` (a block of it is then new)."""
    if free.get(size):
        return size
    return min((c for c, blocks in free.items() if blocks and size < c <= bound), default=size)


class _Lease:
    """Pinned bytes handed out as an array (`DeviceMemory.pinned_host`): the object every
    view of them keeps alive."""

    def __init__(self, address: int, nbytes: int):
        self.__array_interface__ = {"shape": (nbytes,), "typestr": "|u1", "data": (address, False), "version": 3}


class DeviceMemory:
    """Device blocks by size class; pinned, device-mapped host blocks for host scratch."""

    def __init__(self, driver: Driver, limit_bytes: int):
        self._driver = driver
        self._free: dict[int, list[int]] = defaultdict(list)
        self._pinned_free: dict[int, list[np.ndarray]] = defaultdict(list)
        self._pinned_asked: set[int] = set()
        """Pinned size classes asked for once (the second ask pins a block)."""
        self.limit_bytes = limit_bytes
        self.in_use_bytes = 0
        self.peak_bytes = 0
        self.live_by_kind: dict[str, int] = defaultdict(int)
        """Bytes held from the driver per buffer kind ("pool", "output", ...)."""

    def allocate(self, nbytes: int, label: str, kind: str) -> DeviceBuffer:
        """A block of at least `nbytes` (its bytes as the last user left them: the backend
        fills fresh memory with `POISON_BYTE`, stream-ordered)."""
        # Pools are sized exactly (they live for the session and are what the report counts);
        # per-run buffers round to a size class so that the next run can reuse them.
        size = max(int(nbytes), 1) if kind == "pool" else _size_class(nbytes)
        if kind != "pool":
            # A server's requests are each a new shape: every input and output of a new class
            # would ask the driver (~100 us on the H100) while larger freed blocks sit unused.
            size = _smallest_free(self._free, size, max(2 * size, _FINE_BYTES))
        if self.in_use_bytes + size > self.limit_bytes:
            raise DriverError(
                f"device allocation of {nbytes} bytes for {kind} '{label}' exceeds the device limit "
                f"({self.in_use_bytes} of {self.limit_bytes} bytes in use)"
            )
        blocks = self._free[size]
        address = blocks.pop() if blocks else self._driver.malloc(size)
        self.in_use_bytes += size
        self.live_by_kind[kind] += size
        self.peak_bytes = max(self.peak_bytes, self.in_use_bytes)
        buffer = DeviceBuffer.on_device(int(nbytes), label, kind, address)
        weakref.finalize(buffer, self._release, address, size, kind)
        return buffer

    def pinned_host(self, nbytes: int) -> np.ndarray | None:
        """Pinned host memory of `nbytes` (a uint8 array) for a download to land in, or None
        the first time a size class is asked for. The driver copies into pageable memory at
        a few GB/s, into pinned memory at the bus's speed, but pinning costs about a
        millisecond per few MB: a block is pinned when its class comes round again, and
        comes back to a cache when the array and every view of it are gone (the outputs a
        run hands out are such views)."""
        # Powers of two, and a free block up to 4x larger serves: a stream of ever new sizes
        # (a server's requests) must not pin a new block for each.
        size = 1 << max(int(nbytes) - 1, 1).bit_length()
        size = _smallest_free(self._pinned_free, size, size << 2)
        blocks = self._pinned_free[size]
        if not blocks and size not in self._pinned_asked:
            self._pinned_asked.add(size)
            return None
        block = blocks.pop() if blocks else self._driver.host_alloc_mapped(size)[0]
        lease = _Lease(block.ctypes.data, int(nbytes))
        # Every view of the span keeps the lease (NumPy's base chain stops at it), so the
        # block returns when the last of them is gone, not when the span is.
        weakref.finalize(lease, blocks.append, block)
        return np.asarray(lease)

    def allocate_host_mapped(self, nbytes: int, label: str, kind: str) -> DeviceBuffer:
        view, address = self._driver.host_alloc_mapped(nbytes)
        view[:] = POISON_BYTE
        buffer = DeviceBuffer.on_device(int(nbytes), label, kind, address, host=view[: int(nbytes)])
        weakref.finalize(buffer, self._driver.free_host, view)
        return buffer

    def _release(self, address: int, size: int, kind: str) -> None:
        self.in_use_bytes -= size
        self.live_by_kind[kind] -= size
        self._free[size].append(address)

    def trim(self) -> None:
        """Give every cached free block back to the driver."""
        for blocks in self._free.values():
            for address in blocks:
                self._driver.free(address)
        self._free.clear()


