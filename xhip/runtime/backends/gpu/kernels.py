"""The GPU kernel library: which kernels run an op, compiled once, launched from values.

Specs, rendering, the argument ABI and the launch values come from
`xhip.runtime.kernels` (shared with CI's offline compiles); this module adds
what needs a device: runtime compilation through the driver (NVRTC, hiprtc)
behind the on-disk compile cache, module loading, and the choice of vendor BLAS
for a float matmul whose operands it can express (else the tiled template).
All pending kernels compile together, as one translation unit per batch.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from xhip.diagnostics import XhipError
from xhip.dialects import hip
from xhip.runtime.backends.gpu.driver import Driver, GemmCall, PackedArgs
from xhip.runtime.buffers import MemRef
from xhip.runtime.kernels.cache import CompileCache
from xhip.runtime.kernels.launch_args import View, Values, launch_values
from xhip.runtime.kernels.render import render_unit
from xhip.runtime.kernels.specs import KernelSpec, Operand, specs_for_launch

OP_CLASSES = {op.name.removeprefix("hip."): op for op in hip.HIP.operations}
"""hip op classes by kernel name (the name the plan launches them by)."""

BLAS_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


@dataclass(frozen=True)
class RuntimeCompiler:
    """The driver's runtime compiler, as the compile cache sees a compiler."""

    driver: Driver

    @property
    def target(self) -> str:
        return self.driver.target

    @property
    def version(self) -> str:
        return self.driver.compiler_version()

    def compile(self, source: str) -> bytes:
        return self.driver.compile(source, "xhip_kernels")


def view_of(memref: MemRef) -> View:
    return View(memref.buffer.address + memref.offset, memref.dtype, memref.shape, memref.strides)


class KernelLibrary:
    """Kernel functions by spec name, compiled on first need (through the cache).

    One library serves every backend on a driver (`for_driver`): a kernel compiled and
    loaded for one Executable is there for the next.
    """

    @staticmethod
    def for_driver(driver: Driver) -> KernelLibrary:
        library = _LIBRARIES.get(id(driver))
        if library is None:
            library = _LIBRARIES[id(driver)] = KernelLibrary(driver)
        return library

    def __init__(self, driver: Driver, cache: CompileCache | None = None):
        self._driver = driver
        self._compiler = RuntimeCompiler(driver)
        self._cache = cache if cache is not None else CompileCache()
        self._functions: dict[str, object] = {}
        self._pending: dict[str, KernelSpec] = {}
        self._chosen: dict[tuple[object, ...], list[KernelSpec]] = {}
        self.compiled_units = 0
        self.cached_units = 0
        self.status = StatusWords(driver)

    @property
    def target(self) -> str:
        return "cuda" if self._driver.name == "cuda" else "hip"

    def prepare(self, specs: Sequence[KernelSpec]) -> None:
        """Queue specs for the next compile (one translation unit for all of them)."""
        for spec in specs:
            if spec.name not in self._functions:
                self._pending[spec.name] = spec

    def prepare_op(self, op_class: type, attributes: Mapping[str, object], ins: Sequence[Operand], outs: Sequence[Operand]) -> None:
        """Queue the kernels the IR's operand facts choose for an op, and the variants a
        launch picks when its unknown extents match (no run-time broadcast)."""
        if getattr(op_class, "TEMPLATE", None) is None:
            return
        for assume_equal in (False, True):
            self.prepare(specs_for_launch(op_class, attributes, ins, outs, assume_equal=assume_equal))

    def function(self, spec: KernelSpec) -> object:
        if spec.name not in self._functions:
            self.prepare([spec])
            self.load_pending()
        return self._functions[spec.name]

    def load_pending(self) -> None:
        """Compile (through the cache) and load every queued kernel, as one unit."""
        if not self._pending:
            return
        source = render_unit(self._pending.values(), self.target)  # type: ignore[arg-type]
        image, hit = self._cache.compile(source, self._compiler)
        self.cached_units += hit
        self.compiled_units += not hit
        module = self._driver.load_module(image)
        for name in self._pending:
            self._functions[name] = self._driver.function(module, name)
        self._pending.clear()

    def launch(
        self,
        kernel: str,
        inputs: Sequence[MemRef],
        outputs: Sequence[MemRef],
        attributes: Mapping[str, object],
        scalars: Sequence[int | float],
        location: str,
    ) -> int:
        """Queue the kernels of one op; the number of launches it took."""
        op_class = OP_CLASSES[kernel]
        template = op_class.TEMPLATE  # type: ignore[attr-defined]
        ins, outs = [view_of(m) for m in inputs], [view_of(m) for m in outputs]
        all_values = launch_values(template, kernel, attributes, scalars, ins, outs)
        if template == "matmul" and len(ins) == 2 and outs[0].dtype in BLAS_DTYPES:
            call = gemm_call(all_values[0], outs[0].dtype)
            if call is not None and self._driver.gemm(call):
                return 1
        launched = 0
        for spec, values in zip(self._specs(op_class, attributes, ins, outs), all_values, strict=True):
            grid = spec.abi.grid(values)
            if 0 in grid:
                continue
            if spec.abi.reports_status:
                values = {**values, "status": self.status.word_for(location)}
            args = PackedArgs.from_buffer(spec.abi.pack(values), spec.abi.param_offsets)
            self._driver.launch(self.function(spec), grid, spec.abi.block_shape(), 0, args)
            launched += 1
        return launched

    def _specs(self, op_class: type, attributes: Mapping[str, object], ins: Sequence[View], outs: Sequence[View]) -> list[KernelSpec]:
        """The kernels of one launch, chosen once per op class, attributes and operand facts."""
        facts = tuple(Operand.at_launch(v.dtype, v.shape, v.strides) for v in (*ins, *outs))
        key = (op_class, tuple(sorted(attributes.items())), len(ins), facts)
        specs = self._chosen.get(key)
        if specs is None:
            specs = self._chosen[key] = specs_for_launch(op_class, attributes, facts[: len(ins)], facts[len(ins) :])
        return specs


class StatusWords:
    """Device words where kernels report a broken runtime contract (a gather index out of
    range): two int64 per launch site, the flag and the offending value, zeroed, read at
    each synchronization and named by the site's IR location."""

    SLOTS = 1024

    def __init__(self, driver: Driver):
        self._driver = driver
        self._address = 0
        self._sites: dict[str, int] = {}
        self.armed = False

    def word_for(self, location: str) -> int:
        if not self._address:
            self._address = self._driver.malloc(16 * self.SLOTS)
            self._driver.fill(self._address, 0, 16 * self.SLOTS)
        slot = self._sites.setdefault(location, len(self._sites) % self.SLOTS)
        self.armed = True
        return self._address + 16 * slot

    def check(self) -> None:
        """After a synchronization: raise for the first site that reported, then re-arm."""
        if not self.armed:
            return
        self.armed = False
        words = np.empty(2 * min(len(self._sites), self.SLOTS), np.int64)  # slots wrap past SLOTS sites
        self._driver.download(words.view(np.uint8), self._address)
        for location, slot in self._sites.items():
            if words[2 * slot]:
                self._driver.fill(self._address, 0, 16 * self.SLOTS)
                raise XhipError(f"index {int(words[2 * slot + 1])} is out of range for the gathered axis", location)


_LIBRARIES: dict[int, KernelLibrary] = {}


def _matrix_layout(row: int, col: int) -> tuple[int, bool] | None:
    """(leading dimension, transposed) of a matrix with these element strides, for BLAS."""
    if col == 1:
        return row, False
    if row == 1:
        return col, True
    return None


def _batch_stride(strides: Sequence[int], extents: Sequence[int]) -> int | None:
    """The one stride that walks the flattened batch, or None if the batch dims do not nest."""
    live = [(s, e) for s, e in zip(strides, extents) if e != 1]
    if not live:
        return 0
    if all(s == 0 for s, _ in live):
        return 0
    step = live[-1][0]
    expected = step
    for stride, extent in reversed(live):
        if stride != expected:
            return None
        expected = stride * extent
    return step


def gemm_call(values: Values, dtype: np.dtype) -> GemmCall | None:
    """The strided-batched GEMM of a matmul's launch values, or None when BLAS cannot express it."""
    batch = tuple(int(e) for e in values["batch_extents"])  # type: ignore[union-attr]
    a = _matrix_layout(int(values["a_row_stride"]), int(values["a_col_stride"]))  # type: ignore[arg-type]
    b = _matrix_layout(int(values["b_row_stride"]), int(values["b_col_stride"]))  # type: ignore[arg-type]
    c_row, c_col = int(values["c_row_stride"]), int(values["c_col_stride"])  # type: ignore[arg-type]
    m, n, k = (int(values[x]) for x in ("m", "n", "k"))  # type: ignore[arg-type]
    if a is None or b is None or c_col not in (1, 0) or min(m, n, k) < 1:
        return None
    strides = [_batch_stride(values[f"{x}_batch_strides"], batch) for x in "abc"]  # type: ignore[arg-type]
    if any(s is None for s in strides):
        return None
    lda, trans_a = a
    ldb, trans_b = b
    ldc = c_row if m > 1 else n
    # A stride of 0 on a unit dim (a vector operand) is any valid leading dimension.
    lda = lda or (m if trans_a else k)
    ldb = ldb or (k if trans_b else n)
    # BLAS reads each matrix column-major with these leading dimensions: they must not overlap rows.
    if lda < (m if trans_a else k) or ldb < (k if trans_b else n) or ldc < n:
        return None
    batch_count = int(np.prod(batch, dtype=np.int64)) if batch else 1
    if batch_count > 1 and strides[1] == 0 and not trans_a and strides[0] == m * lda and strides[2] == m * ldc:
        # B broadcast over a batch of A whose matrices follow each other row after row (a
        # weight applied to [batch, seq, k] activations): one GEMM of batch * m rows, which
        # BLAS tiles far better than `batch` GEMMs of m rows.
        m, batch_count, strides = m * batch_count, 1, [0, 0, 0]
    return GemmCall(
        m=m, n=n, k=k,
        a=int(values["a"]), lda=max(lda, 1), stride_a=strides[0], trans_a=trans_a,  # type: ignore[arg-type]
        b=int(values["b"]), ldb=max(ldb, 1), stride_b=strides[1], trans_b=trans_b,  # type: ignore[arg-type]
        c=int(values["c"]), ldc=max(ldc, 1), stride_c=strides[2],  # type: ignore[arg-type]
        batch=batch_count,
        dtype=np.dtype(dtype), alpha=float(values["alpha"]),  # type: ignore[arg-type]
    )  # fmt: skip
