"""The vendor seam: the few calls a GPU backend makes, implemented once per vendor.

Like MLIR's `mgpu*` runtime wrappers, a driver is a thin, vendor-specific layer:
memory, copies, module load, launch, stream, events, graphs and the vendor libraries'
calls (a GEMM, a convolution).
Everything above it (pools, plans, kernels, host visibility) is vendor-free and
lives in `xhip.runtime.backends.gpu.backend`. Device addresses are plain ints.

Every driver call that fails raises `DriverError` with the call's name and the
vendor's error string; the backend adds the IR location of the op it served.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from xhip.diagnostics import XhipError
from xhip.kernels.abi import KernelABI, LibraryCall


class DriverError(XhipError):
    """A vendor call failed (out of memory, bad launch, compile error...)."""


class DriverUnavailable(XhipError):
    """The vendor runtime or a device is missing: one line saying which."""


PreparedCall = Callable[[int, int, int], None]
"""A library call (a GEMM, a convolution) with its shape and layout fixed: queue it at these
`a`, `b` and `c` addresses."""

KernelArg = ctypes.c_void_p | ctypes.c_int64 | ctypes.c_int32 | ctypes.c_float | ctypes.c_double


@dataclass(frozen=True)
class PackedArgs:
    """Kernel arguments as the launch APIs take them: an array of pointers to each value.

    `storage` keeps the values alive for as long as the launch may read them.
    """

    storage: object
    pointers: ctypes.Array  # type: ignore[type-arg]

    @staticmethod
    def pack(values: Sequence[KernelArg]) -> PackedArgs:
        """Arguments given as ctypes values, one per kernel parameter."""
        pointers = (ctypes.c_void_p * max(len(values), 1))()
        for i, value in enumerate(values):
            pointers[i] = ctypes.addressof(value)
        return PackedArgs(tuple(values), pointers)

    @staticmethod
    def from_buffer(packed: bytes, offsets: Sequence[int]) -> PackedArgs:
        """Arguments laid out like the kernel's C parameters in one buffer, at these offsets."""
        storage = ctypes.create_string_buffer(packed, max(len(packed), 1))
        base = ctypes.addressof(storage)
        pointers = (ctypes.c_void_p * max(len(offsets), 1))()
        for i, offset in enumerate(offsets):
            pointers[i] = base + offset
        return PackedArgs(storage, pointers)

    @staticmethod
    def for_abi(abi: KernelABI) -> tuple[PackedArgs, Callable[..., None]]:
        """A kernel's argument buffer, allocated once, and the function that packs a
        launch's flat arguments (`KernelABI.flatten`) into it (the launch APIs copy the
        arguments when called, so one buffer serves every launch from it)."""
        storage = ctypes.create_string_buffer(max(abi.packed_size, 1))
        base = ctypes.addressof(storage)
        pointers = (ctypes.c_void_p * max(len(abi.params), 1))()
        for i, offset in enumerate(abi.param_offsets):
            pointers[i] = base + offset
        return PackedArgs(storage, pointers), abi.packer(storage)

    @property
    def address(self) -> int:
        return ctypes.addressof(self.pointers)

    def snapshot(self) -> bytes:
        """The values packed now (of a buffer from `for_abi` or `from_buffer`)."""
        return bytes(self.storage)  # type: ignore[call-overload]

    def restore(self, values: bytes) -> None:
        """Pack a `snapshot` back (the launch APIs read the buffer when called)."""
        ctypes.memmove(self.storage, values, len(values))  # type: ignore[arg-type]


class Driver(Protocol):
    """What a vendor runtime provides to the shared GPU backend (one device, one stream)."""

    name: str
    """"cuda" or "hip": the spelling of `--backend`."""

    def describe(self) -> str:
        """The device, as the report names it (e.g. 'NVIDIA H200 (sm_90)')."""
        ...

    @property
    def target(self) -> str:
        """The code-object target ('sm_90', 'gfx90a'): part of the compile-cache key."""
        ...

    @property
    def warp_size(self) -> int: ...

    # -- code ------------------------------------------------------------------------------
    def compile(self, source: str, name: str) -> bytes:
        """A code object (cubin / hsaco) of one translation unit, by the runtime compiler."""
        ...

    def compiler_version(self) -> str: ...

    def load_module(self, image: bytes) -> object: ...

    def function(self, module: object, name: str) -> object: ...

    def launch(self, function: object, grid: tuple[int, int, int], block: tuple[int, int, int], shared_bytes: int, args: PackedArgs) -> None:
        """Queue a kernel on the stream."""
        ...

    # -- memory ----------------------------------------------------------------------------
    def enter_thread(self) -> None:
        """Make the device (CUDA: its context) current in the calling thread, once per thread."""
        ...

    def malloc(self, nbytes: int) -> int: ...

    def free(self, address: int) -> None: ...

    def host_alloc_mapped(self, nbytes: int) -> tuple[np.ndarray, int]:
        """Pinned, device-mapped host memory: (a uint8 host view, its device address)."""
        ...

    def free_host(self, view: np.ndarray) -> None: ...

    def upload(self, address: int, data: np.ndarray) -> None:
        """Copy host bytes to the device, ordered on the stream, complete on return."""
        ...

    def download(self, out: np.ndarray, address: int) -> None:
        """Copy device bytes into a host array, ordered on the stream, complete on return."""
        ...

    def copy(self, target: int, source: int, nbytes: int) -> None:
        """Queue a device-to-device copy."""
        ...

    def fill(self, address: int, byte: int, nbytes: int) -> None:
        """Queue a byte fill (poisoning fresh memory, zeroing)."""
        ...

    # -- ordering --------------------------------------------------------------------------
    def synchronize(self) -> None: ...

    def record_event(self) -> object: ...

    def wait_event(self, event: object) -> None:
        """Block the host until the event's work is done."""
        ...

    def elapsed_ms(self, start: object, end: object) -> float: ...

    def begin_capture(self) -> None: ...

    def end_capture(self) -> object:
        """The instantiated graph of what was queued since begin_capture."""
        ...

    def replay(self, graph: object) -> None: ...

    def captured_node(self) -> object:
        """While capturing: the graph node the last queued kernel or fill became (what
        `update_kernel_node` and `update_fill_node` take)."""
        ...

    def update_kernel_node(self, graph: object, node: object, function: object, grid: tuple[int, int, int], block: tuple[int, int, int], shared_bytes: int, args: PackedArgs) -> None:
        """Set a kernel node of an instantiated graph to this launch (the arguments are read now)."""
        ...

    def update_fill_node(self, graph: object, node: object, address: int, byte: int, nbytes: int) -> None:
        """Set a fill node of an instantiated graph to this byte fill."""
        ...

    # -- vendor libraries ------------------------------------------------------------------
    def prepare_call(self, call: LibraryCall) -> PreparedCall | None:
        """`call` on its vendor library (a GemmCall on BLAS, a ConvCall on the DNN library),
        its routine and every argument but the operands' addresses resolved now (a launch
        then costs the library's own call); None when the library cannot take it (its
        dtype, or no such library here): the kernels run instead."""
        ...

    def load_library(self, kind: str) -> None:
        """Create the handle (and workspace) of library `kind` ("blas", "dnn") now: at bind
        time, once a program has a launch for it, so that no run pays for it (it takes a few
        hundred milliseconds). A driver without that library does nothing."""
        ...

    def memory_info(self) -> tuple[int, int]:
        """(free, total) device bytes."""
        ...

    def library_bytes(self) -> int:
        """Device bytes this driver allocated for its vendor libraries' workspaces (shared by
        every executable on it, in no executable's pools or reports)."""
        ...
