"""Where xhip's device time goes: its kernels by total device time, from CUPTI (run on a GPU).

    python benchmarks/gpu_profile.py MODEL.onnx --shape input=8x512 [--pipeline P] [--runs 5]

The model runs once to compile and size everything, then `--runs` plain runs (graphs off,
outputs left on the device) under torch.profiler, which records every kernel of the
process through CUPTI, xhip's included (they are named by their template). The table
lists the kernels by total device time with their share, calls and mean time.
PyTorch is a tool of this script only.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path


ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import xhip  # noqa: E402
from xhip.runtime.check import parse_shape, random_feeds  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", help="the .onnx file")
    parser.add_argument("--shape", action="append", default=[], help="NAME=AxB (as xhip-run --shape)")
    parser.add_argument("--pipeline", default=None, help="pipeline YAML (default: the shipping one)")
    parser.add_argument("--runs", type=int, default=5, help="profiled runs")
    parser.add_argument("--top", type=int, default=15, help="kernels listed")
    args = parser.parse_args()
    from torch.profiler import ProfilerActivity, profile

    executable = xhip.compile(args.model, args.pipeline, backend="cuda", graphs=False)
    shapes = dict(parse_shape(text) for text in args.shape)
    feeds = random_feeds(executable.inputs, shapes, seed=0)
    feeds = {name: executable.to_device(value, name) for name, value in feeds.items()}
    executable.run(feeds, on_device=True)
    executable.backend.sync()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(args.runs):
            executable.run(feeds, on_device=True)
        executable.backend.sync()
    totals: dict[str, list[float]] = defaultdict(list)
    for event in prof.events():
        if event.device_type.name == "CUDA":
            totals[event.name].append(event.device_time / 1e3)  # us -> ms
    grand = sum(sum(t) for t in totals.values())
    print(f"{args.model} {shapes}: {grand / args.runs:.3f} ms of kernels per run, {executable.report.kernel_launches} launches")
    print(f"{'ms/run':>8} {'share':>6} {'calls/run':>9} {'mean us':>8}  kernel")
    for name, times in sorted(totals.items(), key=lambda kv: -sum(kv[1]))[: args.top]:
        total = sum(times)
        print(f"{total / args.runs:8.3f} {100 * total / grand:5.1f}% {len(times) / args.runs:9.1f} {1e3 * total / len(times):8.1f}  {name[:90]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
