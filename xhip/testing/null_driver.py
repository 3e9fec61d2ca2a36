"""A GPU driver that does nothing: the GPU backend's whole host path without a GPU.

`GpuBackend(NullDriver())` binds and runs a program exactly as on a GPU (kernels chosen,
rendered and cached, arguments packed, pools planned, graphs captured) except that every
vendor call returns at once: launches and copies do nothing, downloads read zeros,
memory is fake addresses. `benchmarks/host_cost.py` measures the host work per launch
with it, and tests exercise the GPU backend's host logic on machines without a GPU. Its
"code objects" are the sources (keyed under compiler version `null` in the compile cache,
apart from every real compiler's). Nothing it computes is a result.
"""

from __future__ import annotations

import itertools

import numpy as np

from xhip.kernels.abi import ConvCall, LibraryCall
from xhip.runtime.backends.gpu import cudnn
from xhip.runtime.backends.gpu.driver import PackedArgs, PreparedCall


class NullDriver:
    """The `cuda` driver's seam with no device behind it (see the module doc)."""

    def __init__(self, name: str = "cuda"):
        self.name = name
        self._addresses = itertools.count(1 << 32, 1 << 24)
        self.launches = 0
        self.gemms = 0
        self.convolutions = 0
        self.replays = 0
        self.node_updates = 0
        self._nodes = itertools.count()

    def describe(self) -> str:
        return "no-op driver (no device)"

    @property
    def target(self) -> str:
        return "sm_90" if self.name == "cuda" else "gfx90a"

    @property
    def warp_size(self) -> int:
        return 32

    def compile(self, source: str, name: str) -> bytes:
        return source.encode()

    def compiler_version(self) -> str:
        return "null"

    def load_module(self, image: bytes) -> object:
        return object()

    def function(self, module: object, name: str) -> object:
        return name

    def launch(self, function: object, grid: tuple[int, int, int], block: tuple[int, int, int], shared_bytes: int, args: PackedArgs) -> None:
        self.launches += 1

    def enter_thread(self) -> None:
        pass

    def malloc(self, nbytes: int) -> int:
        return next(self._addresses)

    def free(self, address: int) -> None:
        pass

    def host_alloc_mapped(self, nbytes: int) -> tuple[np.ndarray, int]:
        view = np.zeros(max(int(nbytes), 1), np.uint8)
        return view, next(self._addresses)

    def free_host(self, view: np.ndarray) -> None:
        pass

    def upload(self, address: int, data: np.ndarray) -> None:
        pass

    def download(self, out: np.ndarray, address: int) -> None:
        out[...] = 0

    def copy(self, target: int, source: int, nbytes: int) -> None:
        pass

    def fill(self, address: int, byte: int, nbytes: int) -> None:
        pass

    def synchronize(self) -> None:
        pass

    def record_event(self) -> object:
        return 0.0

    def wait_event(self, event: object) -> None:
        pass

    def elapsed_ms(self, start: object, end: object) -> float:
        return 0.0

    def begin_capture(self) -> None:
        pass

    def end_capture(self) -> object:
        return object()

    def replay(self, graph: object) -> None:
        self.replays += 1

    def captured_node(self) -> object:
        return next(self._nodes)

    def update_kernel_node(self, graph: object, node: object, function: object, grid: tuple[int, int, int], block: tuple[int, int, int], shared_bytes: int, args: PackedArgs) -> None:
        self.node_updates += 1

    def update_fill_node(self, graph: object, node: object, address: int, byte: int, nbytes: int) -> None:
        self.node_updates += 1

    def load_library(self, kind: str) -> None:
        pass

    def prepare_call(self, call: LibraryCall) -> PreparedCall | None:
        if isinstance(call, ConvCall):
            if cudnn.disabled():  # as the cuda driver
                return None

            def convolve(a: int, b: int, c: int) -> None:
                self.convolutions += 1

            return convolve

        def run(a: int, b: int, c: int) -> None:
            self.gemms += 1

        return run

    def memory_info(self) -> tuple[int, int]:
        return 1 << 40, 1 << 40

    def library_bytes(self) -> int:
        return 0
