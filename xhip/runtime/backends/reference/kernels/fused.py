"""The reference kernel of `hip.fused_elementwise`: its steps in order, each run by the
step op's own reference kernel (its REFERENCE expression, or pow's, where's and cast's
written-out kernels), so a fused chain computes exactly what the unfused ops did.

Intermediates are NumPy temporaries of each step's element type and broadcast shape,
as the unfused ops' outputs were; the last step writes the output in place."""

from __future__ import annotations

import numpy as np

from xhip.runtime.backends.reference.kernels.base import KernelCall, register, run_kernel
from xhip.runtime.kernels.specs import FusedStep


def _run_step(call: KernelCall, step: FusedStep, args: list[np.ndarray], out: np.ndarray) -> None:
    run_kernel(step.op.removeprefix("hip."), args, [out], dict(step.attributes), [], location=call.location)


@register("fused_elementwise", inputs=(1, None))
def fused_elementwise(call: KernelCall) -> None:
    steps: tuple[FusedStep, ...] = call.attr("steps", ())
    if not steps:
        raise call.error("needs at least one step")
    values = {f"in{i}": x for i, x in enumerate(call.inputs)}
    for number, step in enumerate(steps[:-1]):
        args = [values[a] for a in step.args]
        result = np.empty(np.broadcast_shapes(*(a.shape for a in args)), step.dtype)
        _run_step(call, step, args, result)
        values[f"t{number}"] = result
    last = steps[-1]
    _run_step(call, last, [values[a] for a in last.args], call.out)
