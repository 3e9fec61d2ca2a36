"""GPU latency and device bytes of xhip next to PyTorch eager, in one process (run on a GPU).

    python benchmarks/gpu_bench.py [--json benchmarks/results/gpu_bench.json] [--repeats 30]

Models: the seed attention model (examples/attention.onnx) at (batch, seq) = (1,128),
(4,512), (8,1024), (16,2048), and GPT-2 with 2 layers at the 124M width (GPT2Config(n_layer=2),
random weights from torch.manual_seed(0)) at (1,128) and (8,512), exported here with
torch.onnx (dynamo, opset 18, dynamic batch and seq). PyTorch runs the same weights.

Latency: the median over `--repeats` runs after 3 warm-ups of the device time between two
CUDA events recorded on the stream that does the work: around `Executable.run` for xhip
(input upload, every launch, output download) and around the forward for PyTorch (input
already on the GPU, output left there). xhip runs twice side by side: as shipped (from
the third run at a shape it replays a captured CUDA graph, `xhip.runtime.replay`; the
`replayed` column says whether the timed runs did) and with graphs off (every run
executes its plan: the host work of each launch is in the time). Wall time of the whole call is printed beside it.
Device bytes: what each holds for the run beyond its weights: xhip's pool bytes plus the
run's other allocations (outputs, inputs), PyTorch's peak allocated bytes during the
forward minus what it held before. fp32, TF32 off on both. PyTorch and transformers are
tools of this script only, never dependencies of xhip.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import onnx  # noqa: E402
from onnx import numpy_helper  # noqa: E402

import xhip  # noqa: E402
from xhip.runtime.backends import open_driver  # noqa: E402
from xhip.runtime.check import compare, onnxruntime_outputs, tolerances  # noqa: E402

ATTENTION_SHAPES = ((1, 128), (4, 512), (8, 1024), (16, 2048))
GPT2_SHAPES = ((1, 128), (8, 512))


def _median_ms(samples: list[float]) -> float:
    return statistics.median(samples)


def time_xhip(executable, feeds, repeats: int) -> tuple[float, float, dict[str, np.ndarray]]:
    driver = executable.backend.driver
    for _ in range(3):
        outputs = executable.run(feeds)
    device, wall = [], []
    for _ in range(repeats):
        start_wall = time.perf_counter()
        start = driver.record_event()
        outputs = executable.run(feeds)
        end = driver.record_event()
        driver.wait_event(end)
        wall.append((time.perf_counter() - start_wall) * 1e3)
        device.append(driver.elapsed_ms(start, end))
    return _median_ms(device), _median_ms(wall), outputs


def time_torch(torch, forward, inputs, repeats: int) -> tuple[float, float, int]:
    with torch.no_grad():
        for _ in range(3):
            forward(*inputs)
        torch.cuda.synchronize()
        before = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        device, wall = [], []
        for _ in range(repeats):
            start_wall = time.perf_counter()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            forward(*inputs)
            end.record()
            end.synchronize()
            wall.append((time.perf_counter() - start_wall) * 1e3)
            device.append(start.elapsed_time(end))
        peak = torch.cuda.max_memory_allocated() - before
    return _median_ms(device), _median_ms(wall), peak


def xhip_bytes(executable) -> int:
    """Pool bytes of the last run plus what it allocated besides (outputs, inputs)."""
    memory = executable.backend.memory
    return int(executable.report.pool_bytes + memory.live_by_kind.get("output", 0) + memory.live_by_kind.get("input", 0))


def attention_rows(torch, repeats: int) -> list[dict]:
    model = onnx.load(ROOT / "examples" / "attention.onnx")
    weights = {t.name: torch.tensor(numpy_helper.to_array(t), device="cuda") for t in model.graph.initializer}

    def forward(x):
        q, k, v = x @ weights["w_q"], x @ weights["w_k"], x @ weights["w_v"]
        probs = torch.softmax((q @ k.transpose(1, 2)) * weights["scale"], dim=-1)
        return probs @ v

    executables = (xhip.compile(model, backend="cuda"), xhip.compile(model, backend="cuda", graphs=False))
    rows = []
    for batch, seq in ATTENTION_SHAPES:
        x = np.random.default_rng(batch * seq).standard_normal((batch, seq, 64)).astype(np.float32)
        rows.append(_row(torch, "attention", (batch, seq), executables, {"X": x}, forward, (torch.tensor(x, device="cuda"),), model, repeats))
    return rows


def gpt2_rows(torch, repeats: int) -> list[dict]:
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    config = GPT2Config(n_layer=2)
    module = GPT2LMHeadModel(config).eval()

    class Logits(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids):
            return self.inner(input_ids=input_ids, use_cache=False).logits

    wrapper = Logits(module)
    folder = Path(tempfile.mkdtemp(prefix="xhip-gpu-bench-"))
    path = folder / "gpt2_2layer_768.onnx"
    example = torch.randint(0, config.vocab_size, (2, 16))
    batch, seq = torch.export.Dim("batch", min=1, max=64), torch.export.Dim("seq", min=2, max=1024)
    torch.onnx.export(
        wrapper, (example,), dynamo=True, opset_version=18, input_names=["input_ids"], output_names=["logits"],
        dynamic_shapes={"input_ids": {0: batch, 1: seq}}, external_data=False,
    ).save(str(path))
    model = onnx.load(path)
    model.ir_version = min(model.ir_version, 10)
    onnx.save(model, path)
    start = time.perf_counter()
    executable = xhip.compile(path, backend="cuda")
    print(f"gpt2 2-layer (768 wide): compiled in {time.perf_counter() - start:.2f} s", flush=True)
    executables = (executable, xhip.compile(path, backend="cuda", graphs=False))
    cuda_module = wrapper.cuda()
    rows = []
    for b, s in GPT2_SHAPES:
        ids = np.random.default_rng(b * s).integers(0, config.vocab_size, (b, s)).astype(np.int64)
        rows.append(_row(torch, "gpt2-2layer", (b, s), executables, {"input_ids": ids}, cuda_module, (torch.tensor(ids, device="cuda"),), path, repeats))
    return rows


def _row(torch, name, shape, executables, feeds, forward, torch_inputs, model, repeats) -> dict:
    executable, plain = executables
    xhip_device, xhip_wall, outputs = time_xhip(executable, feeds, repeats)
    replayed = executable.report.replayed
    plain_device, _, plain_outputs = time_xhip(plain, feeds, repeats)
    torch_device, torch_wall, torch_peak = time_torch(torch, forward, torch_inputs, repeats)
    reference = onnxruntime_outputs(model, feeds)
    check = compare(outputs, reference, **tolerances("cuda"))
    plain_check = compare(plain_outputs, reference, **tolerances("cuda"))
    row = {
        "model": name, "shape": list(shape),
        "xhip_ms": round(xhip_device, 4), "xhip_wall_ms": round(xhip_wall, 4), "replayed": replayed,
        "xhip_no_graph_ms": round(plain_device, 4),
        "torch_eager_ms": round(torch_device, 4), "torch_wall_ms": round(torch_wall, 4),
        "xhip_bytes": xhip_bytes(executable), "torch_peak_bytes": int(torch_peak),
        "pool_bytes": executable.report.pool_bytes, "launches": executable.report.kernel_launches,
        "check": "pass" if check.passed and plain_check.passed else "FAIL", "max_abs_err": check.max_abs_err,
    }  # fmt: skip
    print(json.dumps(row), flush=True)
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", default=str(ROOT / "benchmarks" / "results" / "gpu_bench.json"))
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    import torch

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    rows = attention_rows(torch, args.repeats) + gpt2_rows(torch, args.repeats)
    header = (
        f"{'model':<12} {'b x s':>9} {'xhip ms':>9} {'replayed':>8} {'no graph':>9} {'eager ms':>9} {'ratio':>6} "
        f"{'xhip wall':>10} {'xhip bytes':>12} {'eager bytes':>12} {'launches':>8} check"
    )
    print(header)
    for r in rows:
        ratio = r["xhip_ms"] / r["torch_eager_ms"]
        print(
            f"{r['model']:<12} {'x'.join(map(str, r['shape'])):>9} {r['xhip_ms']:9.3f} {str(r['replayed']):>8} "
            f"{r['xhip_no_graph_ms']:9.3f} {r['torch_eager_ms']:9.3f} {ratio:6.2f} "
            f"{r['xhip_wall_ms']:10.3f} {r['xhip_bytes']:12,} {r['torch_peak_bytes']:12,} {r['launches']:8} {r['check']}"
        )
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps({"device": open_driver("cuda").describe(), "rows": rows}, indent=2) + "\n")
    return 0 if all(r["check"] == "pass" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
