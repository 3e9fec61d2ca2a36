"""What it costs to run a captured CUDA graph at a new shape: updated in place against recaptured.

    python benchmarks/graph_update_cost.py [--kernels 200] [--repeats 15]
                                           [--json benchmarks/results/graph_update_cost.json]

The first measurement that graphs across shapes (issue 23) rests on. One trivial kernel
(x[i] += 1 over n floats), `--kernels` launches of it, on the CUDA driver through
cuda-bindings and the runtime's own NVRTC path. Host microseconds per kernel, median of
`--repeats`, each measurement closed by a stream synchronize:
- `launch`: the kernels launched one by one (cuLaunchKernel), the no-graph path;
- `replay`: one cuGraphLaunch of the captured graph, unchanged (the replay path);
- `recapture`: capture at the new n, cuGraphInstantiate, launch (what a new shape costs today);
- `exec update`: capture at the new n, cuGraphExecUpdate into the instantiated graph, launch;
- `set params`: cuGraphExecKernelNodeSetParams per node (new grid, new argument block)
  and one launch: the update mode the issue asks for;
- `set params only`: the same without the launch and the synchronize.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cuda.bindings import driver as cu  # noqa: E402

from xhip.runtime.backends.gpu import nvrtc  # noqa: E402

SOURCE = 'extern "C" __global__ void bump(float* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] += 1.0f; }'
BLOCK = 256


def ok(result):
    """The value(s) of a cuda-bindings call `(status, *values)`; raises on a failed status."""
    result = result if isinstance(result, tuple) else (result,)
    if result[0] != cu.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"CUDA call failed: {result[0]}")
    return result[1] if len(result) == 2 else result[1:]


class Bench:
    """A context, a stream, a buffer and the kernel; launches of it captured or not."""

    def __init__(self, kernels: int):
        ok(cu.cuInit(0))
        device = ok(cu.cuDeviceGet(0))
        ok(cu.cuCtxSetCurrent(ok(cu.cuDevicePrimaryCtxRetain(device))))
        major, minor = (ok(cu.cuDeviceGetAttribute(a, device)) for a in (
            cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
            cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
        ))  # fmt: skip
        module = ok(cu.cuModuleLoadData(nvrtc.compile_cubin(SOURCE, "bump", f"sm_{major}{minor}")))
        self.function = ok(cu.cuModuleGetFunction(module, b"bump"))
        self.stream = ok(cu.cuStreamCreate(0))
        self.buffer = int(ok(cu.cuMemAlloc(1 << 24)))
        self.kernels = kernels
        self._keep: list[object] = []  # argument blocks a graph node still points at

    def arguments(self, n: int) -> int:
        """The address of a kernel argument block (x, n), kept alive for the graph."""
        values = ctypes.c_uint64(self.buffer), ctypes.c_int(n)
        block = (ctypes.c_void_p * 2)(*(ctypes.addressof(v) for v in values))
        self._keep.append((values, block))
        return ctypes.addressof(block)

    def launch_all(self, n: int) -> None:
        args = self.arguments(n)
        for _ in range(self.kernels):
            ok(cu.cuLaunchKernel(self.function, -(-n // BLOCK), 1, 1, BLOCK, 1, 1, 0, self.stream, args, 0))

    def capture(self, n: int):
        ok(cu.cuStreamBeginCapture(self.stream, cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_RELAXED))
        self.launch_all(n)
        return ok(cu.cuStreamEndCapture(self.stream))

    def per_kernel_us(self, work, repeats: int, sync: bool = True) -> float:
        """Median host us per kernel of `work`, closed by a stream synchronize unless `sync` is off."""
        samples = []
        for _ in range(repeats):
            start = time.perf_counter()
            work()
            if sync:
                ok(cu.cuStreamSynchronize(self.stream))
            samples.append(time.perf_counter() - start)
        return statistics.median(samples) * 1e6 / self.kernels


def measure(kernels: int, repeats: int) -> dict[str, float]:
    bench = Bench(kernels)
    graph = bench.capture(1000)
    instance = ok(cu.cuGraphInstantiate(graph, 0))
    nodes, _ = ok(cu.cuGraphGetNodes(graph, kernels))
    params = [ok(cu.cuGraphKernelNodeGetParams(node)) for node in nodes]
    sizes = iter(range(1001, 1_000_000))

    def recapture():
        fresh = ok(cu.cuGraphInstantiate(bench.capture(next(sizes)), 0))
        ok(cu.cuGraphLaunch(fresh, bench.stream))

    def exec_update():
        ok(cu.cuGraphExecUpdate(instance, bench.capture(next(sizes))))
        ok(cu.cuGraphLaunch(instance, bench.stream))

    def set_params():
        n = next(sizes)
        args = bench.arguments(n)
        for node, param in zip(nodes, params):
            param.gridDimX = -(-n // BLOCK)
            param.kernelParams = args
            ok(cu.cuGraphExecKernelNodeSetParams(instance, node, param))

    def set_params_and_launch():
        set_params()
        ok(cu.cuGraphLaunch(instance, bench.stream))

    rows = {
        "launch": lambda: bench.launch_all(next(sizes)),
        "replay": lambda: ok(cu.cuGraphLaunch(instance, bench.stream)),
        "recapture": recapture,
        "exec update": exec_update,
        "set params": set_params_and_launch,
    }
    result = {name: bench.per_kernel_us(work, repeats) for name, work in rows.items()}
    result["set params only"] = bench.per_kernel_us(set_params, repeats, sync=False)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", type=int, default=200, help="kernel launches in the graph (default 200, a GPT-2 step's order)")
    parser.add_argument("--repeats", type=int, default=15, help="timed repetitions per row, the median quoted (default 15)")
    parser.add_argument("--json", type=Path, help="also write the rows to this file")
    args = parser.parse_args()
    result = measure(args.kernels, args.repeats)
    print(f"{'path':<18} {'host us/kernel':>15}")
    for name, us in result.items():
        print(f"{name:<18} {us:>15.2f}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"kernels": args.kernels, "repeats": args.repeats, "us_per_kernel": result}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
