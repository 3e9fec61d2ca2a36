"""Runtime backends: `reference` (NumPy, everywhere), `cuda` and `hip` (GPUs), `auto`.

`auto` takes the first usable GPU (NVIDIA, then AMD) and falls back to the
reference backend; `--deferred` / `--sanitize` are reference-backend modes, so
with them `auto` means reference. A GPU backend asked for by name that cannot
run says in one line what is missing.
"""

from __future__ import annotations

from xhip.diagnostics import XhipError, did_you_mean
from xhip.runtime.backends.base import Backend
from xhip.runtime.backends.gpu.driver import Driver, DriverUnavailable
from xhip.runtime.backends.reference import ReferenceBackend

BACKENDS = ("auto", "reference", "cuda", "hip")
GPU_BACKENDS = ("cuda", "hip")

_INSTALL_HINT = {
    "cuda": "cuda-bindings is not installed (pip install 'xhip[cuda]')",
    "hip": "hip-python is not installed (pip install hip-python)",
}


_DRIVERS: dict[str, Driver] = {}


def open_driver(name: str) -> Driver:
    """The process's driver of GPU backend `name` (one device, one stream, shared by every
    Executable), or DriverUnavailable saying what is missing."""
    if name not in _DRIVERS:
        _DRIVERS[name] = _new_driver(name)
    return _DRIVERS[name]


def _new_driver(name: str) -> Driver:
    try:
        if name == "cuda":
            from xhip.runtime.backends.gpu.cuda import CudaDriver

            return CudaDriver()
        from xhip.runtime.backends.gpu.hip import HipDriver

        return HipDriver()
    except ImportError:
        raise DriverUnavailable(f"backend '{name}': {_INSTALL_HINT[name]}") from None


def make_backend(name: str | Backend, deferred: bool = False, sanitize: bool = False) -> Backend:
    """The backend called `name` (see the module doc), or `name` itself when it is one
    already (a GPU backend over a driver of the caller's, e.g. `xhip.testing.null_driver`)."""
    if not isinstance(name, str):
        return name
    if name not in BACKENDS:
        raise XhipError(f"unknown backend '{name}'{did_you_mean(name, BACKENDS)}")
    if name == "reference" or (name == "auto" and (deferred or sanitize)):
        return ReferenceBackend(deferred=deferred, sanitize=sanitize)
    if name in GPU_BACKENDS and (deferred or sanitize):
        raise XhipError(f"--deferred and --sanitize are modes of the reference backend, not of '{name}'")
    from xhip.runtime.backends.gpu.backend import GpuBackend

    if name in GPU_BACKENDS:
        return GpuBackend(open_driver(name))
    for candidate in GPU_BACKENDS:
        try:
            return GpuBackend(open_driver(candidate))
        except DriverUnavailable:
            continue
    return ReferenceBackend()
