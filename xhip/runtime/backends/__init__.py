"""Runtime backends: `reference` (NumPy, everywhere), `hip` and `cuda` (GPUs)."""

from __future__ import annotations

from xhip.diagnostics import XhipError, did_you_mean
from xhip.runtime.backends.reference import ReferenceBackend

BACKENDS = ("reference", "hip", "cuda", "auto")


def make_backend(name: str, deferred: bool = False, sanitize: bool = False) -> ReferenceBackend:
    """The backend called `name`; GPU backends report clearly what is missing."""
    if name in ("reference", "auto"):
        # "auto" picks a GPU once GPU backends exist; until then the reference backend.
        return ReferenceBackend(deferred=deferred, sanitize=sanitize)
    if name in ("hip", "cuda"):
        raise XhipError(f"backend '{name}' is not implemented yet; use --backend reference")
    raise XhipError(f"unknown backend '{name}'{did_you_mean(name, BACKENDS)}")
