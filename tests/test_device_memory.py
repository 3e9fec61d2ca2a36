"""The GPU backend's caching allocator: what a decode loop asks of it, on the no-op driver.

A decoder step's inputs and outputs grow by one token a step (a layer's K at batch 1:
12 heads x 64 x 4 bytes = 3 KiB more each step). Sizes above 64 KiB round to 1/8 of the
next power of two, so such a run reuses the blocks the runs before it freed instead of
asking the driver for new ones; an input's buffer is written whole before it is read, so
it is not filled with the poison byte first (outputs and the rest still are).
"""

from __future__ import annotations

from xhip.runtime.backends.gpu.memory import POISON_BYTE, DeviceMemory, _size_class
from xhip.testing.null_driver import NullDriver


class CountingDriver(NullDriver):
    def __init__(self) -> None:
        super().__init__()
        self.mallocs: list[int] = []
        self.fills: list[int] = []

    def malloc(self, nbytes: int) -> int:
        self.mallocs.append(nbytes)
        return super().malloc(nbytes)

    def fill(self, address: int, byte: int, nbytes: int) -> None:
        assert byte == POISON_BYTE
        self.fills.append(nbytes)


def test_a_buffer_that_grows_a_token_a_step_reuses_freed_blocks():
    driver = CountingDriver()
    memory = DeviceMemory(driver, limit_bytes=1 << 30)
    token = 12 * 64 * 4
    sizes = [(past + 1) * token for past in range(128, 192)]  # 64 steps, 387 KiB .. 576 KiB
    live = None
    for nbytes in sizes:
        live = memory.allocate(nbytes, "present", "output")  # the step before's dies here
    assert live is not None and live.nbytes == sizes[-1]
    classes = {_size_class(n) for n in sizes}
    # At most two blocks per class (a step's buffer and the one before it, both alive),
    # each at most 1/8 larger than the request that made it.
    assert len(driver.mallocs) <= 2 * len(classes) < len(sizes) // 4
    assert all(size in classes for size in driver.mallocs)
    assert all(_size_class(n) - n <= n / 8 for n in sizes)


def test_small_buffers_round_to_512_bytes():
    driver = CountingDriver()
    memory = DeviceMemory(driver, limit_bytes=1 << 30)
    memory.allocate(3000, "x", "output")
    memory.allocate(64 << 10, "y", "output")
    assert driver.mallocs == [3072, 64 << 10]


def test_inputs_are_not_poisoned_outputs_are():
    from xhip.runtime.backends.gpu.backend import GpuBackend

    driver = CountingDriver()
    backend = GpuBackend(driver)
    held = [backend.allocate(4096, "input 'x'", "input")]
    assert driver.fills == []
    held.append(backend.allocate(4096, "output 'y'", "output"))
    assert driver.fills == [4096] and len(driver.mallocs) == len(held)


class PinnedCountingDriver(CountingDriver):
    def __init__(self) -> None:
        super().__init__()
        self.pinned: list[int] = []

    def host_alloc_mapped(self, nbytes: int):
        self.pinned.append(nbytes)
        return super().host_alloc_mapped(nbytes)


def test_a_large_output_seen_before_is_downloaded_into_pinned_memory_handed_out_and_reused():
    import gc

    import numpy as np

    from xhip.runtime.backends.gpu.backend import PINNED_DOWNLOAD_BYTES, GpuBackend
    from xhip.runtime.buffers import MemRef, Owner

    driver = PinnedCountingDriver()
    backend = GpuBackend(driver)
    shape = (PINNED_DOWNLOAD_BYTES // 4, 2)
    output = MemRef.contiguous(backend.allocate(2 * PINNED_DOWNLOAD_BYTES, "y", "output"), shape, np.dtype(np.float32), Owner("y"))
    assert backend.to_host(output).shape == shape and driver.pinned == []  # a size's first download: pageable
    first = backend.to_host(output)
    assert first.shape == shape and driver.pinned == [2 * PINNED_DOWNLOAD_BYTES]
    row = first[3]  # a view keeps the block
    del first
    gc.collect()
    backend.to_host(output)  # the first block is still held by `row`: another one
    assert len(driver.pinned) == 2
    del row
    gc.collect()
    backend.to_host(output)  # both came back: no new block
    assert len(driver.pinned) == 2
    small = MemRef.contiguous(backend.allocate(64, "s", "output"), (16,), np.dtype(np.float32), Owner("s"))
    assert backend.to_host(small).shape == (16,) and len(driver.pinned) == 2  # small: pageable


def test_a_new_size_reuses_a_free_block_up_to_twice_as_large_or_64_kib_but_not_larger():
    driver = CountingDriver()
    memory = DeviceMemory(driver, limit_bytes=1 << 30)
    memory.allocate(4 << 20, "out", "output")  # freed at once: a served request's output
    assert driver.mallocs == [4 << 20]
    smaller = memory.allocate(3 << 20, "out", "output")  # 4 MiB is within twice 3 MiB: reused
    assert driver.mallocs == [4 << 20] and memory.in_use_bytes == 4 << 20 and smaller.nbytes == 3 << 20
    del smaller
    memory.allocate(1 << 20, "out", "output")  # 4 MiB is more than twice 1 MiB: a block of its own
    assert driver.mallocs == [4 << 20, 1 << 20]
    memory.allocate(3 << 20, "pool", "pool")  # pools are sized exactly, never from a larger block
    assert driver.mallocs[-1] == 3 << 20
    memory.allocate(48 << 10, "ids", "input")
    memory.allocate(512, "ids", "input")  # small: any free block up to 64 KiB serves
    assert driver.mallocs[-1] == 48 << 10


def test_a_dense_download_is_handed_out_without_a_second_copy_and_a_strided_one_compacted():
    """`to_host` hands a dense output out over the bytes it downloaded into (a copy of a fresh
    span would cost a pass over every byte); a strided view is compacted to its own bytes."""
    import numpy as np

    from xhip.runtime.backends.gpu.backend import GpuBackend
    from xhip.runtime.buffers import MemRef, Owner

    backend = GpuBackend(PinnedCountingDriver())
    buffer = backend.allocate(4096, "y", "output")
    dense = backend.to_host(MemRef.contiguous(buffer, (16, 8), np.dtype(np.float32), Owner("y")))
    assert dense.shape == (16, 8) and not dense.flags.owndata and dense.base.nbytes == dense.nbytes
    strided = backend.to_host(MemRef(buffer, 0, (16, 4), (8, 1), np.dtype(np.float32), Owner("y"), 0))
    assert strided.shape == (16, 4) and strided.flags.owndata and strided.flags.c_contiguous
