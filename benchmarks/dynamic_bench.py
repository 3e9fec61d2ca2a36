"""Dynamic shapes as generation and serving meet them: a decode loop, a stream of requests, a first run.

    python benchmarks/dynamic_bench.py [--json benchmarks/results/dynamic_bench.json]
        [--sections decode serving first-run] [--batches 1 4] [--steps 64] [--past 128]
        [--requests 40] [--no-compile] [--backend cuda] [--tiny]

Sections (each row next to PyTorch eager and torch.compile(dynamic=True) on the same module
and weights, fp32, TF32 off):
- decode: `decoder_step.py`'s GPT-2 124M-shaped step with its key/value cache (random
  weights), at each of `--batches`: a prompt of `--past` tokens prefilled by PyTorch, then
  `--steps` steps, each fed the last step's `present_*` as `past_*` and reading its logits
  on the host to pick the next token (argmax), as generation does. `ms/token` is the loop's
  wall time over its steps. xhip's `present_*` stay on the device (`run(on_device=True)`)
  and go back in as feeds. The check: xhip's last logits against the non-cached run of the
  whole sequence (`full_logits` over the prompt and the tokens xhip chose), float64 by
  PyTorch in float64, under the float64 rule of `xhip-run --check` (GPU tolerance).
  xhip's caches are `Executable.cache_buffers` of room for every step (hip-append-kv-caches:
  each step writes its new rows into them). Beside it, the same export compiled with graphs
  off (`graphs off ms`: every step launched kernel by kernel), compiled without the cache
  append (`concat ms`: pipelines/experiments/concat-caches.yaml, each step concatenating its
  caches into fresh outputs, graphs on), and how xhip's steps ran (`xhip_steps_by_graph`: through a graph captured
  at another length with its changed nodes updated, captured, or launched; see
  xhip.runtime.backends.gpu.graph_updates).
- serving: BERT-base (transformers' config, random weights, `export_models.py`'s export)
  over `--requests` requests of random batch 1-8 and sequence 16-512, NumPy in and out
  (xhip: `run(feeds)`; PyTorch: from_numpy, to the GPU, back). `ms/request` is the mean wall
  (the JSON has each one's median too). Each of the three runs the same warm-up requests
  before its timed loop (`_warmup_requests`: batch 1 and the largest shape among them): for
  torch.compile its compiles, for xhip its first sizes of pools and pinned download blocks
  (after the first-run row, which is xhip's first run at all).
  The check: the smallest request against onnxruntime under the float64 rule.
- first-run: BERT-base at a shape none of them has run: xhip's first run after compile
  (kernels in the compile cache), eager's first call and torch.compile's first call at it
  (after its warm-up at other shapes).

Eager replayed from a CUDA graph needs one shape: it applies to none of these rows (every
decode step and nearly every request is a new shape), so it is not a column. The JSON is
rewritten after every row (`complete` false until the end); torch.compile's warm-up compile
time is its own field, not in its ms, and `compile_graphs_while_timed` counts the graphs
it compiled during the timed loop (recompiles at new shapes, which are in its ms).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import onnx  # noqa: E402
from gpu_bench import Results  # noqa: E402

import xhip  # noqa: E402
from xhip.runtime.check import Float64Outputs, check_outputs, compare, references, tolerances  # noqa: E402

SERVING_BATCH, SERVING_SEQ = (1, 8), (16, 512)
FIRST_RUN_SHAPE = (3, 77)
"""A shape no other row of this run uses (serving draws its sequence lengths from a seeded stream)."""


class Torch:
    """PyTorch on the benchmark's device: synchronize and the compiled variant of a module."""

    def __init__(self, torch, device: str, compile_modules: bool):
        self.torch, self.device, self.compile_modules = torch, device, compile_modules

    def sync(self) -> None:
        if self.device == "cuda":
            self.torch.cuda.synchronize()

    def compiled(self, module):
        return self.torch.compile(module, dynamic=True) if self.compile_modules else None

    def graphs_compiled(self) -> int | None:
        """How many graphs torch.compile has compiled in this process (recompiles included):
        what tells a row whose compiled times hold compiles apart."""
        if not self.compile_modules:
            return None
        from torch._dynamo.utils import counters

        return int(counters["stats"]["unique_graphs"])


# ---- decode -------------------------------------------------------------------------------


def _prompt(batch: int, past: int, vocab: int) -> np.ndarray:
    return np.random.default_rng(batch).integers(0, vocab, (batch, past + 1)).astype(np.int64)


def _torch_decode(pt: Torch, step, module, prompt: np.ndarray, steps: int) -> tuple[float, list[float]]:
    """Per-step wall seconds of PyTorch's loop over `step` (eager or compiled)."""
    torch = pt.torch
    with torch.no_grad():
        ids = torch.from_numpy(prompt).to(pt.device)
        cache = module.prefill(ids[:, :-1])
        token, position = ids[:, -1:], prompt.shape[1] - 1
        walls = []
        pt.sync()
        for _ in range(steps):
            start = time.perf_counter()
            positions = torch.full_like(token, position)
            logits, *cache = step(token, positions, *cache)
            chosen = logits[:, -1].cpu().numpy().argmax(-1)  # the host reads what generation reads
            token = torch.from_numpy(chosen[:, None]).to(pt.device)
            position += 1
            walls.append(time.perf_counter() - start)
    return sum(walls), walls


def _xhip_decode(exe, pt: Torch, module, prompt: np.ndarray, steps: int) -> tuple[float, list[float], np.ndarray, list[int], dict[str, int]]:
    """xhip's loop: per-step walls, the last step's logits, the tokens it chose, and how many
    steps ran how (`Report.class_graph`: "updated", "captured" or "launched")."""
    torch = pt.torch
    from decoder_step import cache_names

    past_names, present_names = cache_names(module.sizes.layers, "past"), cache_names(module.sizes.layers, "present")
    with torch.no_grad():
        cache = module.prefill(torch.from_numpy(prompt[:, :-1]).to(pt.device))
    host = {name: c.cpu().numpy() for c, name in zip(cache, past_names)}
    if exe.cache_inputs:  # caches appended in place: room for every step, no move on the way
        fed = exe.cache_buffers(host, capacity=prompt.shape[1] + steps)
        past = [fed[name] for name in past_names]
    else:
        past = [exe.to_device(values, name) for name, values in host.items()]
    token, position = prompt[:, -1:], prompt.shape[1] - 1
    walls, chosen_tokens, logits, ran = [], [], None, Counter()
    for _ in range(steps):
        start = time.perf_counter()
        feeds = {"input_ids": token, "position_ids": np.full_like(token, position), **dict(zip(past_names, past))}
        outputs = exe.run(feeds, on_device=True)
        logits = outputs["logits"].numpy()
        chosen = logits[:, -1].argmax(-1)
        past = [outputs[name] for name in present_names]
        token, position = chosen[:, None].astype(np.int64), position + 1
        walls.append(time.perf_counter() - start)
        chosen_tokens.append(chosen)
        ran[exe.report.class_graph or "launched"] += 1
    return sum(walls), walls, logits, chosen_tokens, dict(ran)


def decode_rows(pt: Torch, results: Results, backend: str, batches: list[int], steps: int, past: int, tiny: bool) -> None:
    import decoder_step

    torch = pt.torch
    sizes = decoder_step.DecoderSizes(layers=2, width=64, heads=4, vocab=256, positions=512) if tiny else decoder_step.DecoderSizes()
    module = decoder_step.build(sizes)
    path = decoder_step.export(module, Path(tempfile.mkdtemp(prefix="xhip-dynamic-")) / "decoder_step.onnx")
    start = time.perf_counter()
    exe = xhip.compile(onnx.load(path), backend=backend)
    compile_s = time.perf_counter() - start
    # The same program with graphs off: every step launched kernel by kernel (side by side);
    # and with graphs, compiled without hip-append-kv-caches: each step concatenates its caches.
    launched = xhip.compile(onnx.load(path), backend=backend, graphs=False)
    concatenating = xhip.compile(onnx.load(path), pipeline=ROOT / "pipelines" / "experiments" / "concat-caches.yaml", backend=backend)
    # The references on the host: the same seeded weights in float64 and in float32.
    wide_module, narrow_module = decoder_step.build(sizes).double(), decoder_step.build(sizes)
    gpu_module = module.to(pt.device)
    compiled = pt.compiled(gpu_module)
    compile_torch_s = None
    if compiled is not None:  # warmed at other lengths and batches than the timed ones
        start = time.perf_counter()
        for b in sorted({1, *batches}):
            _torch_decode(pt, compiled, gpu_module, _prompt(b, past // 2, sizes.vocab), 3)
        compile_torch_s = time.perf_counter() - start
    for batch in batches:
        prompt = _prompt(batch, past, sizes.vocab)
        xhip_s, xhip_walls, logits, chosen, ran = _xhip_decode(exe, pt, gpu_module, prompt, steps)
        launched_s, *_ = _xhip_decode(launched, pt, gpu_module, prompt, steps)
        concatenating_s, *_ = _xhip_decode(concatenating, pt, gpu_module, prompt, steps)
        eager_s, _ = _torch_decode(pt, gpu_module, gpu_module, prompt, steps)
        graphs_before = pt.graphs_compiled()
        compiled_s = _torch_decode(pt, compiled, gpu_module, prompt, steps)[0] if compiled is not None else None
        recompiles = None if graphs_before is None else pt.graphs_compiled() - graphs_before  # type: ignore[operator]
        # The non-cached run over the prompt and every token but the last xhip chose.
        sequence = np.concatenate([prompt, np.stack(chosen[:-1], axis=1)], axis=1) if steps > 1 else prompt
        with torch.no_grad():
            wide = wide_module.full_logits(torch.from_numpy(sequence)).numpy()
            narrow = narrow_module.full_logits(torch.from_numpy(sequence)).numpy()
        check = compare(
            {"logits": logits}, {"logits": narrow}, Float64Outputs({"logits": wide}, "torch float64 (non-cached)"),
            reference_name="torch float32 (non-cached)", **tolerances(backend),
        )  # fmt: skip
        row = {
            "section": "decode", "model": f"decoder {sizes.layers}x{sizes.width}", "batch": batch,
            "past": past, "steps": steps, "xhip_compile_s": round(compile_s, 2),
            "xhip_ms_per_token": round(xhip_s / steps * 1e3, 3),
            "xhip_median_step_ms": round(statistics.median(xhip_walls) * 1e3, 3),
            "xhip_first_step_ms": round(xhip_walls[0] * 1e3, 3),
            "xhip_steps_by_graph": ran,
            "xhip_graphs_off_ms_per_token": round(launched_s / steps * 1e3, 3),
            "xhip_concat_caches_ms_per_token": round(concatenating_s / steps * 1e3, 3),
            "cache_bytes": exe.report.cache_bytes,
            "eager_ms_per_token": round(eager_s / steps * 1e3, 3),
            "compile_ms_per_token": None if compiled_s is None else round(compiled_s / steps * 1e3, 3),
            "torch_compile_s": None if compile_torch_s is None else round(compile_torch_s, 1),
            "compile_graphs_while_timed": recompiles,
            "check": "pass" if check.passed else "FAIL", "check_summary": check.summary(),
            "launches_per_step": exe.report.kernel_launches, "pool_bytes": exe.report.pool_bytes,
        }  # fmt: skip
        add(results, row)


# ---- serving and first run ----------------------------------------------------------------


def _bert_feeds(rng: np.random.Generator, batch: int, seq: int, vocab: int) -> dict[str, np.ndarray]:
    return {
        "input_ids": rng.integers(0, vocab, (batch, seq)).astype(np.int64),
        "attention_mask": np.ones((batch, seq), np.int64),
        "token_type_ids": np.zeros((batch, seq), np.int64),
    }


def _requests(count: int, vocab: int, seed: int) -> list[dict[str, np.ndarray]]:
    rng = np.random.default_rng(seed)
    shapes = [(int(rng.integers(SERVING_BATCH[0], SERVING_BATCH[1] + 1)), int(rng.integers(SERVING_SEQ[0], SERVING_SEQ[1] + 1))) for _ in range(count)]
    return [_bert_feeds(rng, b, s, vocab) for b, s in shapes]


def _warmup_requests(vocab: int) -> list[dict[str, np.ndarray]]:
    """The warm-up requests every contender runs before the timed loop: three of the stream's
    kind (seed 7), then batch 1 and the stream's largest shape. Dynamo specializes a dim of
    size 1 (a first request of batch 1 in the timed loop compiled a second graph, ~28 s on the
    H100), so batch 1 is warmed too and the timed loop measures compiled graphs, not compiles;
    xhip's first runs size its pools and pinned blocks, which a server does once."""
    rng = np.random.default_rng(8)
    return _requests(3, vocab, seed=7) + [_bert_feeds(rng, 1, 100, vocab), _bert_feeds(rng, SERVING_BATCH[1], SERVING_SEQ[1], vocab)]


def _torch_request(pt: Torch, model, feeds: dict[str, np.ndarray]) -> float:
    torch = pt.torch
    start = time.perf_counter()
    with torch.no_grad():
        inputs = {k: torch.from_numpy(v).to(pt.device) for k, v in feeds.items()}
        model(*inputs.values()).cpu().numpy()
    return time.perf_counter() - start


def _xhip_request(exe, feeds: dict[str, np.ndarray]) -> tuple[float, dict]:
    start = time.perf_counter()
    outputs = exe.run(feeds)
    return time.perf_counter() - start, outputs


def serving_rows(pt: Torch, results: Results, backend: str, requests: int, sections: list[str], tiny: bool) -> None:
    import export_models

    spec = next(e for e in export_models.EXPORTS if e.name == ("bert_tiny" if tiny else "bert_base"))
    path = export_models.export(spec, Path(tempfile.mkdtemp(prefix="xhip-dynamic-")))
    pt.torch.manual_seed(0)
    module = spec.build().eval().to(pt.device)
    model = onnx.load(path)
    start = time.perf_counter()
    exe = xhip.compile(model, backend=backend)
    compile_s = time.perf_counter() - start
    compiled = pt.compiled(module)
    compile_torch_s = None
    if compiled is not None:
        start = time.perf_counter()
        for feeds in _warmup_requests(spec.vocab):
            _torch_request(pt, compiled, feeds)
        compile_torch_s = time.perf_counter() - start
    if "first-run" in sections:
        feeds = _bert_feeds(np.random.default_rng(3), *FIRST_RUN_SHAPE, spec.vocab)
        xhip_first, _ = _xhip_request(exe, feeds)
        row = {
            "section": "first-run", "model": spec.name, "shape": list(FIRST_RUN_SHAPE), "xhip_compile_s": round(compile_s, 2),
            "xhip_first_run_ms": round(xhip_first * 1e3, 3), "eager_first_call_ms": round(_torch_request(pt, module, feeds) * 1e3, 3),
            "compile_first_call_ms": None if compiled is None else round(_torch_request(pt, compiled, feeds) * 1e3, 3),
            "xhip_second_run_ms": round(_xhip_request(exe, feeds)[0] * 1e3, 3),
        }  # fmt: skip
        add(results, row)
    if "serving" not in sections:
        return
    stream = _requests(requests, spec.vocab, seed=0)
    for feeds in _warmup_requests(spec.vocab):  # as torch.compile's before the first-run row
        _xhip_request(exe, feeds)
        _torch_request(pt, module, feeds)
    xhip_walls, checked = [], None
    for feeds in stream:
        wall, outputs = _xhip_request(exe, feeds)
        xhip_walls.append(wall)
        if checked is None or feeds["input_ids"].size < checked[0]["input_ids"].size:
            checked = (feeds, outputs)
    eager_walls = [_torch_request(pt, module, feeds) for feeds in stream]
    graphs_before = pt.graphs_compiled()
    compiled_walls = [_torch_request(pt, compiled, feeds) for feeds in stream] if compiled is not None else None
    recompiles = None if graphs_before is None else pt.graphs_compiled() - graphs_before  # type: ignore[operator]
    feeds, outputs = checked  # type: ignore[misc]
    check = check_outputs(outputs, references(model, feeds), backend)
    row = {
        "section": "serving", "model": spec.name, "requests": requests,
        "xhip_ms_per_request": round(statistics.mean(xhip_walls) * 1e3, 3),
        "xhip_median_ms": round(statistics.median(xhip_walls) * 1e3, 3),
        "eager_ms_per_request": round(statistics.mean(eager_walls) * 1e3, 3),
        "eager_median_ms": round(statistics.median(eager_walls) * 1e3, 3),
        "compile_ms_per_request": None if compiled_walls is None else round(statistics.mean(compiled_walls) * 1e3, 3),
        "compile_median_ms": None if compiled_walls is None else round(statistics.median(compiled_walls) * 1e3, 3),
        "torch_compile_s": None if compile_torch_s is None else round(compile_torch_s, 1),
        "compile_graphs_while_timed": recompiles,
        "xhip_replayed_requests": exe.report.replayed, "check": "pass" if check.passed else "FAIL",
        "check_shape": list(feeds["input_ids"].shape), "check_summary": check.summary(),
    }  # fmt: skip
    add(results, row)


def add(results: Results, row: dict) -> None:
    """A row into the JSON (rewritten at once: a run cut short keeps it), and on stdout."""
    results.add(row)
    print(json.dumps(row), flush=True)


def print_table(rows: list[dict]) -> None:
    def cell(value, width: int) -> str:
        return f"{value:{width}.3f}" if isinstance(value, float) else f"{'-' if value is None else value:>{width}}"

    print(f"{'section':<10} {'model':<18} {'case':<14} {'xhip ms':>9} {'graphs off':>10} {'concat ms':>9} {'eager ms':>9} {'compile ms':>10} {'x/eager':>7} {'x/compile':>9} check")
    for r in rows:
        if r["section"] == "decode":
            case, mine, eager, comp = f"b{r['batch']} {r['steps']} tok", r["xhip_ms_per_token"], r["eager_ms_per_token"], r["compile_ms_per_token"]
        elif r["section"] == "serving":
            case, mine, eager, comp = f"{r['requests']} requests", r["xhip_ms_per_request"], r["eager_ms_per_request"], r["compile_ms_per_request"]
        else:
            case, mine, eager, comp = "x".join(map(str, r["shape"])), r["xhip_first_run_ms"], r["eager_first_call_ms"], r["compile_first_call_ms"]
        ratio = f"{mine / eager:7.2f}" if eager else "      -"
        versus = f"{mine / comp:9.2f}" if comp else "        -"
        off, concatenating = r.get("xhip_graphs_off_ms_per_token"), r.get("xhip_concat_caches_ms_per_token")
        print(f"{r['section']:<10} {r['model']:<18} {case:<14} {cell(mine, 9)} {cell(off, 10)} {cell(concatenating, 9)} {cell(eager, 9)} {cell(comp, 10)} {ratio} {versus} {r.get('check', '-')}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=Path, default=ROOT / "benchmarks" / "results" / "dynamic_bench.json", help="where the rows go")
    ap.add_argument("--sections", nargs="+", default=["decode", "serving", "first-run"], choices=["decode", "serving", "first-run"])
    ap.add_argument("--batches", nargs="+", type=int, default=[4, 1], help="decode batch sizes (default 4 1)")
    ap.add_argument("--steps", type=int, default=64, help="decode steps per batch (default 64)")
    ap.add_argument("--past", type=int, default=128, help="prompt tokens before the first decode step (default 128)")
    ap.add_argument("--requests", type=int, default=40, help="serving requests (default 40)")
    ap.add_argument("--no-compile", action="store_true", help="leave out torch.compile(dynamic=True) (its compiles take minutes)")
    ap.add_argument("--backend", default="cuda", help="xhip's backend (default cuda; reference with PyTorch on the CPU)")
    ap.add_argument("--tiny", action="store_true", help="2-layer toy sizes instead of GPT-2 124M / BERT-base (a smoke run)")
    args = ap.parse_args(argv)
    import torch

    device = "cuda" if args.backend != "reference" else "cpu"
    if device == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
    pt = Torch(torch, device, not args.no_compile)
    results = Results()
    results.start(args.json, torch.cuda.get_device_name() if device == "cuda" else "cpu", {})
    if "decode" in args.sections:
        decode_rows(pt, results, args.backend, args.batches, args.steps, args.past, args.tiny)
    if {"serving", "first-run"} & set(args.sections):
        serving_rows(pt, results, args.backend, args.requests, args.sections, args.tiny)
    results.finish()
    print_table(results.document["rows"])
    return 0 if all(r.get("check", "pass") == "pass" for r in results.document["rows"]) else 1


if __name__ == "__main__":
    sys.exit(main())
