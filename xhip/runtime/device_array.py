"""Tensors that stay in the backend's memory between runs.

`Executable.run(feeds, on_device=True)` returns `DeviceArray`s instead of host
copies, and `run` takes `DeviceArray`s as feeds (`Executable.to_device` makes
one from host data), so a caller that chains models, or times the device work
the way PyTorch is timed (input already on the GPU, output left there), pays no
host transfer. A run on a GPU that returns DeviceArrays does not wait for its
work: reading one (`numpy()`) waits. On the cuda backend a dense one exposes
`__cuda_array_interface__` (torch.as_tensor, cupy.asarray read it in place,
after a wait for the work that wrote it).

A graph replay writes its outputs into the buffers the capturing run used
(`xhip.runtime.replay`), so the arrays an earlier run of the same shapes
returned are overwritten: they are marked stale then, and reading one raises
instead of answering with the later run's values. Reads take the lock of the executable
that made the array (`lock`), the one its runs hold: a run in another thread cannot
overwrite the bytes between the staleness check and the copy.
"""

from __future__ import annotations

import contextlib
from typing import ContextManager

import numpy as np
import numpy.typing as npt

from xhip.diagnostics import XhipError
from xhip.runtime.backends.base import Backend
from xhip.runtime.buffers import MemRef


class DeviceArray:
    """One tensor in device memory, read back with `numpy()` (or `np.asarray`)."""

    def __init__(
        self, memref: MemRef, backend: Backend, what: str, staged_by: object = None, lock: ContextManager[object] | None = None
    ):
        self._memref = memref
        self._lock: ContextManager[object] = lock if lock is not None else contextlib.nullcontext()
        self._backend = backend
        self.what = what
        """What it is, for errors: "output 'logits'", "input 'X'"."""
        self.staged_by = staged_by
        """The executable whose `to_device` made it: its runs read it in place."""
        self._stale: str | None = None

    @property
    def shape(self) -> tuple[int, ...]:
        return self._memref.shape

    @property
    def dtype(self) -> np.dtype:
        return self._memref.dtype

    @property
    def ndim(self) -> int:
        return len(self._memref.shape)

    @property
    def nbytes(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64)) * self.dtype.itemsize

    def memref(self, backend: Backend) -> MemRef:
        """The view, for a run on `backend` (which must be the one holding it)."""
        self._require_fresh()
        if backend is not self._backend:
            raise XhipError(f"{self.what} lives on another executable's backend; pass it through numpy() first")
        return self._memref

    def numpy(self) -> np.ndarray:
        """A host copy (after the work that wrote it)."""
        with self._lock:
            self._require_fresh()
            self._backend.enter_thread()
            self._backend.sync()
            return self._backend.to_host(self._memref)

    def __array__(self, dtype: npt.DTypeLike | None = None, copy: bool | None = None) -> np.ndarray:
        array = self.numpy()
        return array if dtype is None else array.astype(dtype)

    @property
    def __cuda_array_interface__(self) -> dict[str, object]:
        # The consumer reads the bytes after this returns, outside any lock of ours: like the
        # array itself, what it hands out is valid until a later run of the same shapes.
        with self._lock:
            self._require_fresh()
            if self._backend.name != "cuda" or not self._memref.is_dense:
                raise AttributeError("__cuda_array_interface__: only dense arrays of the cuda backend")
            self._backend.enter_thread()
            self._backend.sync()  # a run on_device returns with its work in flight
        address = self._memref.buffer.address + self._memref.offset
        return {"shape": self.shape, "typestr": self.dtype.str, "data": (address, False), "strides": None, "version": 3}

    def holds(self, memref: MemRef) -> bool:
        """Whether this array is that view (a run's own input buffer, read in place)."""
        return self._stale is None and self._memref is memref

    def mark_stale(self, why: str) -> None:
        self._stale = why

    def _require_fresh(self) -> None:
        if self._stale is not None:
            raise XhipError(f"{self.what} was {self._stale}; copy it with numpy() before running again")

    def __repr__(self) -> str:
        state = f", stale: {self._stale}" if self._stale else ""
        return f"DeviceArray({self.what}, shape={list(self.shape)}, dtype={self.dtype}{state})"
