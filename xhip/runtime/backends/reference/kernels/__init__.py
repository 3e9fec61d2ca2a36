"""NumPy reference kernels of the hip compute ops, by op name.

    run_kernel("add", [a, b], [out], {}, [])

writes `a + b` (broadcast) into `out` in place. Outputs may be strided views into a
byte buffer (a pool); their shapes and dtypes are authoritative. The runtime's
reference backend calls these for hip ops and for the equivalent onnx ops."""

# Importing the kernel modules registers their kernels.
from xhip.runtime.backends.reference.kernels import attention, elementwise, fused, linalg, movement  # noqa: F401
from xhip.runtime.backends.reference.kernels.base import (
    KERNELS,
    Elements,
    Kernel,
    KernelCall,
    run_kernel,
    supported_ops,
)

__all__ = ["KERNELS", "Elements", "Kernel", "KernelCall", "run_kernel", "supported_ops"]
