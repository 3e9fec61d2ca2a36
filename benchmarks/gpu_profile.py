"""Where device time goes: kernels by total device time, from CUPTI (run on a GPU).

    python benchmarks/gpu_profile.py MODEL.onnx --shape input=8x512 [--pipeline P] [--runs 5] [--timeline]
    python benchmarks/gpu_profile.py --gpt2-layers 12 --shape input_ids=8x512 [--torch]
    python benchmarks/gpu_profile.py --signal vit_base_16 --shape pixel_values=32x3x224x224 [--torch]

The model runs once to compile and size everything, then `--runs` plain runs (graphs off,
inputs and outputs on the device) under torch.profiler, which records every kernel of
the process through CUPTI, xhip's included (named by their template). The table lists
the kernels by total device time with their share, calls and mean time; `--timeline`
adds one run's kernels in launch order (program order of the IR). `--gpt2-layers N`
exports GPT-2 from transformers' GPT2Config(n_layer=N) as gpu_bench.py does, and
`--signal NAME` exports a vision or speech family of export_models.py --signals (random
weights from seed 0) the same way. `--torch` profiles PyTorch eager on the same weights
beside it (TF32 off, as gpu_bench measures). PyTorch is a tool of this script only.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import xhip  # noqa: E402
from gpu_bench import TORCH_DTYPES  # noqa: E402
from xhip.runtime.check import parse_shape, random_feeds  # noqa: E402


def _kernels(prof) -> list[tuple[str, float, float]]:
    """(name, start us, device us) of every GPU activity, in start order."""
    rows = [(e.name, e.time_range.start, e.device_time) for e in prof.events() if e.device_type.name == "CUDA"]
    return sorted(rows, key=lambda row: row[1])


def _table(title: str, kernels: list[tuple[str, float, float]], runs: int, top: int) -> None:
    totals: dict[str, list[float]] = defaultdict(list)
    for name, _, us in kernels:
        totals[name].append(us / 1e3)
    grand = sum(sum(t) for t in totals.values())
    print(f"{title}: {grand / runs:.3f} ms of kernels per run")
    print(f"{'ms/run':>8} {'share':>6} {'calls/run':>9} {'mean us':>8}  kernel")
    for name, times in sorted(totals.items(), key=lambda kv: -sum(kv[1]))[:top]:
        total = sum(times)
        print(f"{total / runs:8.3f} {100 * total / grand:5.1f}% {len(times) / runs:9.1f} {1e3 * total / len(times):8.1f}  {name[:100]}")


def _profiled(work, runs: int):
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CUDA], acc_events=True) as prof:
        for _ in range(runs):
            work()
    return _kernels(prof)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", nargs="?", help="the .onnx file (or --gpt2-layers)")
    parser.add_argument("--shape", action="append", default=[], help="NAME=AxB (as xhip-run --shape)")
    parser.add_argument("--pipeline", default=None, help="pipeline YAML (default: the shipping one)")
    parser.add_argument("--runs", type=int, default=5, help="profiled runs")
    parser.add_argument("--top", type=int, default=15, help="kernels listed")
    parser.add_argument("--timeline", action="store_true", help="also list one run's kernels in launch order")
    parser.add_argument("--gpt2-layers", type=int, help="export GPT-2 with this many layers and profile it")
    parser.add_argument("--signal", help="export this family of export_models.py --signals (e.g. vit_base_16) and profile it")
    parser.add_argument("--torch", action="store_true", help="with --gpt2-layers or --signal: profile PyTorch eager too")
    parser.add_argument(
        "--torch-dtype", choices=list(TORCH_DTYPES), default="fp32",
        help="the precision PyTorch eager runs the module in (with --pipeline fp16 / bf16: the same as xhip's)",
    )  # fmt: skip
    args = parser.parse_args()
    import torch

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    module = None
    model = args.model
    if args.gpt2_layers:
        from gpu_bench import export_gpt2

        _, module, path = export_gpt2(torch, args.gpt2_layers, Path(tempfile.mkdtemp(prefix="xhip-profile-")))
        model = str(path)
    elif args.signal:
        from export_models import SIGNAL_EXPORTS, build_signal, export_signal

        spec = next((s for s in SIGNAL_EXPORTS if s.name == args.signal), None)
        if spec is None:
            parser.error(f"--signal: one of {', '.join(s.name for s in SIGNAL_EXPORTS)}")
        module = build_signal(spec)
        model = str(export_signal(spec, Path(tempfile.mkdtemp(prefix="xhip-profile-")), module))
    if model is None:
        parser.error("name a model, --gpt2-layers or --signal")
    executable = xhip.compile(model, args.pipeline, backend="cuda", graphs=False)
    shapes = dict(parse_shape(text) for text in args.shape)
    host_feeds = random_feeds(executable.inputs, shapes, seed=0)
    feeds = {name: executable.to_device(value, name) for name, value in host_feeds.items()}
    executable.run(feeds, on_device=True)
    executable.backend.sync()

    def xhip_run():
        executable.run(feeds, on_device=True)
        executable.backend.sync()

    kernels = _profiled(xhip_run, args.runs)
    _table(f"xhip {Path(model).name} {shapes} ({executable.report.kernel_launches} launches)", kernels, args.runs, args.top)
    if args.timeline:
        per_run = len(kernels) // args.runs
        print("one run, in launch order:")
        for name, _, us in kernels[:per_run]:
            print(f"{us:9.1f} us  {name[:110]}")
    if args.torch and module is not None:
        dtype = TORCH_DTYPES[args.torch_dtype](torch)
        cuda_module = module.cuda().to(dtype)
        ids = tuple(torch.tensor(v, device="cuda") for v in host_feeds.values())
        ids = tuple(t.to(dtype) if t.is_floating_point() else t for t in ids)

        def torch_run():
            with torch.no_grad():
                cuda_module(*ids)
            torch.cuda.synchronize()

        torch_run()
        _table(f"torch eager {args.torch_dtype}, same weights", _profiled(torch_run, args.runs), args.runs, args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
