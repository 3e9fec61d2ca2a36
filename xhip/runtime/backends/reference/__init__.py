"""The reference backend: NumPy kernels over real byte buffers (see `backend`)."""

from xhip.runtime.backends.reference.backend import ReferenceBackend

__all__ = ["ReferenceBackend"]
