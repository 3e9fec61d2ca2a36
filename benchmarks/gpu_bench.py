"""GPU latency and device bytes of xhip next to PyTorch, in one process (run on a GPU).

    python benchmarks/gpu_bench.py [--json benchmarks/results/gpu_bench.json] [--repeats 30] [--skip-124m]

Models: the seed attention model (examples/attention.onnx) at (batch, seq) = (1,128),
(4,512), (8,1024), (16,2048), and GPT-2 from transformers' GPT2Config (random weights
from torch.manual_seed(0)) with 2 layers and with 12 (124M) at (1,128) and (8,512),
exported here with torch.onnx (dynamo, opset 18, dynamic batch and seq). PyTorch runs
the same weights. `gpt2-124m-fp16` / `gpt2-124m-bf16`: the 124M module converted to half
precision before the export, PyTorch eager in the same precision beside it (the check is the
float64 rule in the output's precision). `gpt2-124m-via-fp16` / `-via-bf16`: the fp32 export
compiled through `--pipeline fp16` / `bf16` (onnx-convert-precision), PyTorch running the
module in that precision; `attention-fp16`: the seed attention through `--pipeline fp16`
next to PyTorch eager and SDPA in fp16 (the check counts ulps of the compute precision);
`mha12-fp16`: the fused attention alone, 12 heads of 64 in fp16 at (8,1024) and (16,2048),
next to PyTorch eager and SDPA on the same fp16 tensors (the floor counts fp32 matmul rate:
read it as a bandwidth floor only). `resnet50`, `vit_base_16`, `whisper_base_encoder`: the
vision and speech families of export_models.py --signals at batch 1 and 32 (Whisper: 1 and 8)
next to PyTorch eager on the same module, fp32 (their floor counts bytes only), each through
the default pipeline (a Conv of one group as im2col and a cuBLAS GEMM) and, in a row of its
own, the direct-conv experiment (every Conv whole: cuDNN where it is installed and
XHIP_CUDNN=0 is not set, else the direct kernel); `<family>-via-fp16`: the fp32 export through
`--pipeline fp16` and, in a row of its own, `direct-conv-fp16`, PyTorch eager running the
module in fp16. Those rows are not in the default run: ask with `--models`.

Latency: the median over `--repeats` runs after 3 warm-ups of the device time between two
CUDA events recorded on the stream that does the work, measured as PyTorch is: input
already on the GPU, output left there. For xhip that is `Executable.run(device_feeds,
on_device=True)` (`xhip.runtime.device_array`); from the third run at a shape it replays
a captured CUDA graph (`replayed` says whether the timed runs did). Beside it: xhip with
host I/O (host feeds uploaded, outputs downloaded: what `run(feeds)` costs), xhip with
graphs off (every run executes its launch program: the host work of each launch is in the
time), `new shape`: the wall time of the first run of that graphs-off executable at the
row's shape (it never ran there before: for the first row, its first run after compile,
kernels already in the compile cache; a traced run where a class the executable traced at
compile time takes the shape, `Executable(trace_ahead=...)`),
and the pipelines/experiments/unfused-attention.yaml experiment where it exists. PyTorch:
eager, eager replayed from a CUDA graph, and for attention SDPA (and SDPA in a graph).

Floor: what the hardware needs at least, max(bytes / copy bandwidth, flops / matmul rate),
both rates measured here first (a 1 GiB device-to-device copy, counting read and write;
an fp32 4096^3 matmul, TF32 off). Bytes: the weights, inputs and outputs, each moved
once; flops: the model's matmuls (2mnk each) at the shape. `x/floor` is xhip's ratio to it.

The JSON (`--json`) is rewritten after every row, `complete` false until the last one.

Device bytes: what each holds for the run beyond its weights: xhip's pool bytes plus the
run's other allocations (outputs, inputs), PyTorch's peak allocated bytes during the
forward minus what it held before. Beside them in the JSON, `xhip_library_bytes`: the vendor
libraries' workspaces xhip's driver holds once per process, in neither figure (cuBLAS 32 MiB,
cuDNN 64 MiB where a Conv reached it; PyTorch's peak leaves out its cuBLAS workspace, made
before the forward, but its peak can include the cuDNN workspace each convolution allocates). fp32, TF32 off on both. The check compares xhip's
outputs with onnxruntime under the float64 rule of `xhip-run --check` (GPU tolerance).
PyTorch and transformers are tools of this script only, never dependencies of xhip.
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
from xhip.diagnostics import XhipError  # noqa: E402
from xhip.runtime.backends import open_driver  # noqa: E402
from xhip.runtime.check import check_outputs, references  # noqa: E402
from xhip.testing.attention_models import attention_feeds, multi_head_attention  # noqa: E402

ATTENTION_SHAPES = ((1, 128), (4, 512), (8, 1024), (16, 2048))
GPT2_SHAPES = ((1, 128), (8, 512))
TORCH_DTYPES = {"fp32": lambda torch: torch.float32, "fp16": lambda torch: torch.float16, "bf16": lambda torch: torch.bfloat16}
"""The precisions a GPT-2 export is made in (PyTorch runs the same module in it)."""
UNFUSED_ATTENTION = ROOT / "pipelines" / "experiments" / "unfused-attention.yaml"
WARMUPS = 3


def _median(samples: list[float]) -> float:
    return statistics.median(samples)


# -- machine rates ------------------------------------------------------------------------


def machine_rates(torch) -> dict[str, float]:
    """Copy bandwidth (bytes/s, read + write) and fp32 matmul rate (flop/s), measured now."""
    source = torch.empty(1 << 28, dtype=torch.float32, device="cuda")  # 1 GiB
    target = torch.empty_like(source)
    n = 4096
    a, b = torch.randn(n, n, device="cuda"), torch.randn(n, n, device="cuda")

    def median_ms(work) -> float:
        work()
        torch.cuda.synchronize()
        return _median(_torch_event_ms(torch, work, 10))

    copy_ms = median_ms(lambda: target.copy_(source))
    matmul_ms = median_ms(lambda: torch.mm(a, b))
    return {"copy_bytes_per_s": 2 * source.nbytes / (copy_ms * 1e-3), "matmul_flops_per_s": 2 * n**3 / (matmul_ms * 1e-3)}


def floor_ms(rates: dict[str, float], nbytes: int, flops: int) -> float:
    return 1e3 * max(nbytes / rates["copy_bytes_per_s"], flops / rates["matmul_flops_per_s"])


def attention_flops(batch: int, seq: int, width: int = 64) -> int:
    """Q, K, V projections, Q @ Kᵀ and P @ V."""
    return 3 * 2 * batch * seq * width * width + 2 * 2 * batch * seq * seq * width


def gpt2_flops(config, batch: int, seq: int) -> int:
    """Per layer: QKV and output projections (4 d²), the MLP (8 d²) per token, Q @ Kᵀ and P @ V;
    then the LM head (d x vocab) per token."""
    tokens, d = batch * seq, config.n_embd
    per_layer = 2 * tokens * 12 * d * d + 2 * 2 * batch * seq * seq * d
    return config.n_layer * per_layer + 2 * tokens * d * config.vocab_size


# -- timing ---------------------------------------------------------------------------------


def time_xhip(executable, feeds, repeats: int, on_device: bool) -> tuple[float, float, dict]:
    """Device ms and wall ms (medians) of `run`, and the last outputs as host arrays."""
    driver = executable.backend.driver
    if on_device:
        feeds = {name: executable.to_device(value, name) for name, value in feeds.items()}
    for _ in range(WARMUPS):
        outputs = executable.run(feeds, on_device=on_device)
    device, wall = [], []
    for _ in range(repeats):
        start_wall = time.perf_counter()
        start = driver.record_event()
        outputs = executable.run(feeds, on_device=on_device)
        end = driver.record_event()
        driver.wait_event(end)
        wall.append((time.perf_counter() - start_wall) * 1e3)
        device.append(driver.elapsed_ms(start, end))
    return _median(device), _median(wall), {name: np.asarray(value) for name, value in outputs.items()}


def first_run_ms(executable, feeds) -> tuple[float, float]:
    """Wall ms and device (event) ms of one run at input shapes the executable has never run
    (inputs already on the device): the launch program's host work at a new shape, pools
    planned (and allocated, on its first run) at its sizes, kernels long compiled."""
    driver = executable.backend.driver
    device_feeds = {name: executable.to_device(value, name) for name, value in feeds.items()}
    driver.synchronize()
    start_wall = time.perf_counter()
    start = driver.record_event()
    executable.run(device_feeds, on_device=True)
    end = driver.record_event()
    driver.wait_event(end)
    return (time.perf_counter() - start_wall) * 1e3, driver.elapsed_ms(start, end)


def time_torch(torch, forward, inputs, repeats: int, graph: bool = False) -> tuple[float | None, int]:
    """Device ms (median) of `forward`, or of replaying it from a CUDA graph; the peak bytes
    it allocated beyond what was held before (eager only: a graph's pool is its own)."""
    with torch.no_grad():
        if graph:
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                for _ in range(WARMUPS):
                    forward(*inputs)
            torch.cuda.current_stream().wait_stream(side)
            captured = torch.cuda.CUDAGraph()
            try:
                with torch.cuda.graph(captured):
                    forward(*inputs)
            except RuntimeError as err:  # a forward that syncs cannot be captured
                print(f"torch CUDA graph: {str(err).splitlines()[0]}", flush=True)
                return None, 0
            run = captured.replay
        else:
            def run():
                forward(*inputs)
        for _ in range(WARMUPS):
            run()
        torch.cuda.synchronize()
        before = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        device = _torch_event_ms(torch, run, repeats)
        peak = torch.cuda.max_memory_allocated() - before
    return _median(device), (0 if graph else int(peak))


def torch_peers(torch, forwards: dict, inputs, repeats: int) -> dict[str, tuple[float | None, int]]:
    """Each PyTorch forward timed as it runs and replayed from a CUDA graph (`<name>` and
    `<name>_graph`), on the same inputs."""
    return {
        f"{name}{suffix}": time_torch(torch, forward, inputs, repeats, graph=graph)
        for name, forward in forwards.items()
        for suffix, graph in (("", False), ("_graph", True))
    }


def _torch_event_ms(torch, work, repeats: int) -> list[float]:
    """Device ms of `work` between two CUDA events on PyTorch's stream, `repeats` times."""
    times = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        work()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return times


def xhip_bytes(executable, feeds, outputs) -> int:
    """The last run's pool bytes, its outputs, and its own copies of the inputs."""
    return int(executable.report.pool_bytes + sum(np.asarray(v).nbytes for v in (*feeds.values(), *outputs.values())))


# -- models ---------------------------------------------------------------------------------


def attention_rows(torch, rates, repeats: int, precision: str = "fp32") -> list[dict]:
    """The seed attention; in fp16 / bf16 through that shipped pipeline (the float32 model's
    weights converted at compile time, casts at its input and output), PyTorch in the same
    precision beside it."""
    model = onnx.load(ROOT / "examples" / "attention.onnx")
    dtype = TORCH_DTYPES[precision](torch)
    weights = {t.name: torch.tensor(numpy_helper.to_array(t), device="cuda").to(dtype) for t in model.graph.initializer}
    weight_bytes = sum(numpy_helper.to_array(t).nbytes for t in model.graph.initializer)
    scale = float(weights["scale"])

    def eager(x):
        q, k, v = x @ weights["w_q"], x @ weights["w_k"], x @ weights["w_v"]
        probs = torch.softmax((q @ k.transpose(1, 2)) * weights["scale"], dim=-1)
        return probs @ v

    def sdpa(x):
        q, k, v = x @ weights["w_q"], x @ weights["w_k"], x @ weights["w_v"]
        return torch.nn.functional.scaled_dot_product_attention(q, k, v, scale=scale)

    pipelines = _pipelines(precision)
    name = "attention" + ("" if precision == "fp32" else f"-{precision}")
    rows = []
    for batch, seq in ATTENTION_SHAPES:
        x = np.random.default_rng(batch * seq).standard_normal((batch, seq, 64)).astype(np.float32)
        torch_x = (torch.tensor(x, device="cuda").to(dtype),)
        peers = torch_peers(torch, {"eager": eager, "sdpa": sdpa}, torch_x, repeats)
        nbytes = weight_bytes + 2 * x.nbytes
        for label, pipeline in pipelines.items():
            executables = [xhip.compile(model, pipeline, backend="cuda") for _ in range(2)]
            executables.append(xhip.compile(model, pipeline, backend="cuda", graphs=False))
            row = _xhip_row(f"{name}/{label}", (batch, seq), executables, {"X": x}, model, repeats)
            rows.append(_with_peers(row, peers, floor_ms(rates, nbytes, attention_flops(batch, seq))))
    return rows


MHA_SHAPES = ((8, 1024), (16, 2048))
MHA_HEADS, MHA_HEAD_DIM = 12, 64


def mha_rows(torch, rates, repeats: int) -> list[dict]:
    """The fused attention alone, in fp16: q, k, v of [batch, 12 heads, seq, 64] built in
    float16 (xhip.testing.attention_models, the default pipeline: one attention launch),
    next to PyTorch eager's softmax(q kᵀ scale) v and SDPA on the same fp16 tensors."""
    model = multi_head_attention("plain", MHA_HEADS, MHA_HEAD_DIM, dtype=np.float16)
    scale = MHA_HEAD_DIM**-0.5

    def eager(q, k, v):
        return torch.softmax((q @ k.transpose(-1, -2)) * scale, dim=-1) @ v

    def sdpa(q, k, v):
        return torch.nn.functional.scaled_dot_product_attention(q, k, v, scale=scale)

    rows = []
    for batch, seq in MHA_SHAPES:
        feeds = attention_feeds(model, batch, seq, seq, np.random.default_rng(batch * seq))
        torch_in = tuple(torch.tensor(feeds[name], device="cuda") for name in ("q", "k", "v"))
        peers = torch_peers(torch, {"eager": eager, "sdpa": sdpa}, torch_in, repeats)
        executables = [xhip.compile(model, backend="cuda") for _ in range(2)]
        executables.append(xhip.compile(model, backend="cuda", graphs=False))
        row = _xhip_row(f"mha{MHA_HEADS}-fp16", (batch, seq), executables, feeds, model, repeats)
        nbytes = 4 * feeds["q"].nbytes
        flops = 2 * 2 * batch * MHA_HEADS * seq * seq * MHA_HEAD_DIM
        rows.append(_with_peers(row, peers, floor_ms(rates, nbytes, flops)))
    return rows


def export_gpt2(torch, layers: int, folder: Path, precision: str = "fp32"):
    """GPT-2 with `layers` layers (random weights from seed 0) exported in `precision` (the
    module converted with .half() / .bfloat16() first, as a user exports for a GPU)."""
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    config = GPT2Config(n_layer=layers)
    module = GPT2LMHeadModel(config).eval().to(TORCH_DTYPES[precision](torch))

    class Logits(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids):
            return self.inner(input_ids=input_ids, use_cache=False).logits

    wrapper = Logits(module)
    path = folder / f"gpt2_{layers}layer_768_{precision}.onnx"
    example = torch.randint(0, config.vocab_size, (2, 16))
    batch, seq = torch.export.Dim("batch", min=1, max=64), torch.export.Dim("seq", min=2, max=1024)
    torch.onnx.export(
        wrapper, (example,), dynamo=True, opset_version=18, input_names=["input_ids"], output_names=["logits"],
        dynamic_shapes={"input_ids": {0: batch, 1: seq}}, external_data=False,
    ).save(str(path))
    model = onnx.load(path)
    model.ir_version = min(model.ir_version, 10)
    onnx.save(model, path)
    return config, wrapper, path


def gpt2_rows(torch, rates, repeats: int, layers: int, precision: str = "fp32", via: str | None = None) -> list[dict]:
    """GPT-2 exported in `precision`; or (`via` fp16 / bf16) exported in fp32 and compiled
    through that shipped pipeline, PyTorch running the module in `via`'s precision."""
    folder = Path(tempfile.mkdtemp(prefix="xhip-gpu-bench-"))
    config, wrapper, path = export_gpt2(torch, layers, folder, precision)
    name = f"gpt2-{layers}layer" + ("" if precision == "fp32" else f"-{precision}") + (f"-via-{via}" if via else "")
    if via is not None:
        wrapper = wrapper.to(TORCH_DTYPES[via](torch))
    weight_bytes = sum(p.numel() * p.element_size() for p in wrapper.parameters())
    cuda_module = wrapper.cuda()
    rows = []
    for label, pipeline in _pipelines(via or "fp32").items():
        start = time.perf_counter()
        executable = xhip.compile(path, pipeline, backend="cuda")
        print(f"{name} ({label}): compiled in {time.perf_counter() - start:.2f} s", flush=True)
        executables = [executable, xhip.compile(path, pipeline, backend="cuda"), xhip.compile(path, pipeline, backend="cuda", graphs=False)]
        for b, s in GPT2_SHAPES:
            ids = np.random.default_rng(b * s).integers(0, config.vocab_size, (b, s)).astype(np.int64)
            torch_ids = (torch.tensor(ids, device="cuda"),)
            peers = torch_peers(torch, {"eager": cuda_module}, torch_ids, repeats)
            nbytes = weight_bytes + ids.nbytes + b * s * config.vocab_size * next(wrapper.parameters()).element_size()
            row = _xhip_row(f"{name}/{label}", (b, s), executables, {"input_ids": ids}, path, repeats)
            rows.append(_with_peers(row, peers, floor_ms(rates, nbytes, gpt2_flops(config, b, s))))
        del executables, executable  # their pools and weights go before the next pipeline's
    cuda_module.cpu()
    return rows


SIGNAL_BATCHES = {"resnet50": (1, 32), "vit_base_16": (1, 32), "whisper_base_encoder": (1, 8)}
"""The vision and speech rows: batches per family of export_models.SIGNAL_EXPORTS, each at the
family's example extents (224x224 images, 30 s of audio as 80 x 3000 log-mel frames)."""


def signal_rows(torch, rates, repeats: int, name: str, via: str | None = None) -> list[dict]:
    """A vision or speech family of export_models.SIGNAL_EXPORTS (random weights from seed 0)
    exported here in fp32, next to the same module in PyTorch eager: through the default
    pipeline and the direct-conv experiment; or (`via` fp16 / bf16) through that shipped
    pipeline (and fp16's direct-conv-fp16), PyTorch running the module in `via`'s precision."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from export_models import SIGNAL_EXPORTS, build_signal, export_signal

    spec = next(s for s in SIGNAL_EXPORTS if s.name == name)
    module = build_signal(spec)
    path = export_signal(spec, Path(tempfile.mkdtemp(prefix="xhip-gpu-bench-")), module)
    if via is not None:
        module = module.to(TORCH_DTYPES[via](torch))
    weight_bytes = sum(p.numel() * p.element_size() for p in module.parameters())
    dtype = next(module.parameters()).dtype
    cuda_module = module.cuda()
    if via is None:
        pipelines = {name: None, f"{name} (direct-conv)": "direct-conv"}
    else:
        pipelines = {f"{name}-via-{via}": via}
        if via == "fp16":
            pipelines[f"{name}-via-fp16 (direct-conv)"] = "direct-conv-fp16"
    executables = {
        row_name: [xhip.compile(path, pipeline, backend="cuda"), xhip.compile(path, pipeline, backend="cuda"), xhip.compile(path, pipeline, backend="cuda", graphs=False)]
        for row_name, pipeline in pipelines.items()
    }
    rows = []
    for batch in SIGNAL_BATCHES[name]:
        shape = (batch, *spec.example[1:])
        signal = np.random.default_rng(batch).standard_normal(shape).astype(np.float32)
        with torch.no_grad():
            first = cuda_module(torch.tensor(signal[:1], device="cuda", dtype=dtype))
            out_bytes = first.numel() * first.element_size() * batch
        peers = torch_peers(torch, {"eager": cuda_module}, (torch.tensor(signal, device="cuda", dtype=dtype),), repeats)
        for row_name, row_executables in executables.items():
            row = _xhip_row(row_name, shape, row_executables, {spec.input_name: signal}, path, repeats)
            rows.append(_with_peers(row, peers, floor_ms(rates, weight_bytes + signal.nbytes + out_bytes, 0)))
    del executables
    cuda_module.cpu()
    return rows


PIPELINES: list[str] = ["default", "unfused-attention"]
"""The pipelines measured (--pipelines)."""


def _pipelines(precision: str = "fp32") -> dict[str, Path | str | None]:
    """The shipping pipeline, and the unfused-attention experiment where it exists; for
    fp16 / bf16, the shipped pipeline that computes in it."""
    if precision != "fp32":
        return {precision: precision}
    known = {"default": None, **({"unfused-attention": UNFUSED_ATTENTION} if UNFUSED_ATTENTION.exists() else {})}
    return {name: path for name, path in known.items() if name in PIPELINES}


def _xhip_row(name, shape, executables, feeds, model, repeats) -> dict:
    """xhip device-resident with graphs, with host I/O, and without graphs (three executables,
    so that each keeps its own graphs and pools)."""
    shipped, host_io, plain = executables
    new_wall_ms, new_device_ms = first_run_ms(plain, feeds)  # before anything else runs it at this shape
    device_ms, wall_ms, outputs = time_xhip(shipped, feeds, repeats, on_device=True)
    replayed = shipped.report.replayed
    host_ms, _, host_outputs = time_xhip(host_io, feeds, repeats, on_device=False)
    plain_ms, _, plain_outputs = time_xhip(plain, feeds, repeats, on_device=True)
    try:
        refs = references(model, feeds)
    except XhipError as err:  # e.g. onnxruntime's CPU provider has no bfloat16 Add
        verdict, summary, max_abs = "n/a", f"no reference: {err}", None
    else:
        checks = [check_outputs(o, refs, "cuda", shipped.compute_dtype) for o in (outputs, host_outputs, plain_outputs)]
        verdict = "pass" if all(c.passed for c in checks) else "FAIL"
        summary, max_abs = checks[0].summary(), checks[0].max_abs_err
    return {
        "model": name, "shape": list(shape),
        "xhip_ms": round(device_ms, 4), "xhip_wall_ms": round(wall_ms, 4), "replayed": replayed,
        "xhip_host_io_ms": round(host_ms, 4), "xhip_no_graph_ms": round(plain_ms, 4),
        "xhip_new_shape_ms": round(new_wall_ms, 4), "xhip_new_shape_device_ms": round(new_device_ms, 4),
        "xhip_bytes": xhip_bytes(shipped, feeds, outputs), "pool_bytes": shipped.report.pool_bytes,
        "xhip_library_bytes": shipped.backend.driver.library_bytes(),
        "launches": shipped.report.kernel_launches,
        "check": verdict, "check_summary": summary, "max_abs_err": max_abs,
    }  # fmt: skip


def _with_peers(row: dict, peers: dict[str, tuple[float, int]], floor: float) -> dict:
    for peer, (ms, peak) in peers.items():
        if ms is None:
            continue
        row[f"torch_{peer}_ms"] = round(ms, 4)
        if peak:
            row[f"torch_{peer}_peak_bytes"] = peak
    row["floor_ms"] = round(floor, 4)
    row["xhip_over_floor"] = round(row["xhip_ms"] / floor, 2) if floor else None
    print(json.dumps(row), flush=True)
    RESULTS.add(row)
    return row


class Results:
    """The JSON document, rewritten after every row: a run cut short (a device time limit)
    still leaves the rows it measured, with `complete` false."""

    def __init__(self) -> None:
        self.path: Path | None = None
        self.document: dict = {"complete": False, "rows": []}

    def start(self, path: Path, device: str, rates: dict[str, float]) -> None:
        self.path = path
        self.document.update(device=device, rates=rates)
        path.parent.mkdir(parents=True, exist_ok=True)
        self._write()

    def add(self, row: dict) -> None:
        self.document["rows"].append(row)
        self._write()

    def finish(self) -> None:
        self.document["complete"] = True
        self._write()

    def _write(self) -> None:
        if self.path is not None:
            self.path.write_text(json.dumps(self.document, indent=2) + "\n")


RESULTS = Results()


def print_table(rows: list[dict], rates: dict[str, float]) -> None:
    print(f"copy {rates['copy_bytes_per_s'] / 1e12:.2f} TB/s, fp32 matmul {rates['matmul_flops_per_s'] / 1e12:.1f} TFLOP/s")
    header = (
        f"{'model':<26} {'b x s':>8} {'xhip ms':>8} {'repl':>5} {'host io':>8} {'no graph':>8} {'new shape':>9} {'eager':>8} {'eager+g':>8} "
        f"{'sdpa':>7} {'sdpa+g':>7} {'x/eager':>7} {'floor':>7} {'x/floor':>7} {'xhip bytes':>12} {'eager bytes':>12} "
        f"{'sdpa bytes':>11} {'launch':>6} check"
    )
    print(header)
    for r in rows:
        def ms(key: str, width: int) -> str:
            return f"{r[key]:{width}.3f}" if key in r else " " * (width - 1) + "-"

        def nbytes(key: str, width: int) -> str:
            return f"{r[key]:{width},}" if key in r else " " * (width - 1) + "-"

        print(
            f"{r['model']:<26} {'x'.join(map(str, r['shape'])):>8} {r['xhip_ms']:8.3f} {str(r['replayed'])[0]:>5} "
            f"{ms('xhip_host_io_ms', 8)} {ms('xhip_no_graph_ms', 8)} {ms('xhip_new_shape_ms', 9)} {ms('torch_eager_ms', 8)} {ms('torch_eager_graph_ms', 8)} "
            f"{ms('torch_sdpa_ms', 7)} {ms('torch_sdpa_graph_ms', 7)} {r['xhip_ms'] / r['torch_eager_ms']:7.2f} "
            f"{r['floor_ms']:7.3f} {r['xhip_over_floor']:7.1f} {r['xhip_bytes']:12,} {nbytes('torch_eager_peak_bytes', 12)} "
            f"{nbytes('torch_sdpa_peak_bytes', 11)} {r['launches']:6} {r['check']}"
        )


MODELS = {
    "attention": attention_rows,
    "gpt2-2layer": lambda torch, rates, repeats: gpt2_rows(torch, rates, repeats, 2),
    "gpt2-124m": lambda torch, rates, repeats: gpt2_rows(torch, rates, repeats, 12),
    "gpt2-124m-fp16": lambda torch, rates, repeats: gpt2_rows(torch, rates, repeats, 12, "fp16"),
    "gpt2-124m-bf16": lambda torch, rates, repeats: gpt2_rows(torch, rates, repeats, 12, "bf16"),
    "gpt2-124m-via-fp16": lambda torch, rates, repeats: gpt2_rows(torch, rates, repeats, 12, via="fp16"),
    "gpt2-124m-via-bf16": lambda torch, rates, repeats: gpt2_rows(torch, rates, repeats, 12, via="bf16"),
    "attention-fp16": lambda torch, rates, repeats: attention_rows(torch, rates, repeats, "fp16"),
    "mha12-fp16": mha_rows,
    **{name: (lambda name: lambda torch, rates, repeats: signal_rows(torch, rates, repeats, name))(name) for name in SIGNAL_BATCHES},
    **{f"{name}-via-fp16": (lambda name: lambda torch, rates, repeats: signal_rows(torch, rates, repeats, name, "fp16"))(name) for name in SIGNAL_BATCHES},
}
"""The rows --models picks, by name."""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", default=str(ROOT / "benchmarks" / "results" / "gpu_bench.json"), help="where the rows go")
    parser.add_argument("--repeats", type=int, default=30, help="timed runs per measurement (after 3 warm-ups)")
    parser.add_argument("--skip-124m", action="store_true", help="leave out GPT-2 124M (its export takes a minute)")
    parser.add_argument(
        "--models", nargs="+", choices=MODELS, default=[m for m in MODELS if not m.endswith(("fp16", "bf16")) and m not in SIGNAL_BATCHES],
        help="which models' rows to measure (the fp32 ones by default; split a long run across calls)",
    )
    parser.add_argument(
        "--pipelines", nargs="+", choices=PIPELINES, default=PIPELINES, help="which pipelines' rows (both by default)"
    )
    args = parser.parse_args()
    PIPELINES[:] = args.pipelines
    import torch

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    rates = machine_rates(torch)
    print(f"copy {rates['copy_bytes_per_s'] / 1e12:.2f} TB/s, fp32 matmul {rates['matmul_flops_per_s'] / 1e12:.1f} TFLOP/s", flush=True)
    RESULTS.start(Path(args.json), open_driver("cuda").describe(), rates)
    models = [m for m in args.models if not (args.skip_124m and m.startswith("gpt2-124m"))]
    rows = [row for model in models for row in MODELS[model](torch, rates, args.repeats)]
    print_table(rows, rates)
    RESULTS.finish()
    return 0 if all(r["check"] in ("pass", "n/a") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
