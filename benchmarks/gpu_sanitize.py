"""Every model of the test set at one shape on a GPU backend, for compute-sanitizer.

    compute-sanitizer --tool memcheck python benchmarks/gpu_sanitize.py [--half]
    compute-sanitizer --tool racecheck python benchmarks/gpu_sanitize.py

Runs each model (default pipeline, its first shape of SHAPE_VARIANTS) once on `--backend`
(cuda by default), checks it against onnxruntime, prints one line per model and exits 1 on
a mismatch; then examples/resnet_tiny.onnx and unet_tiny.onnx through the default pipeline
(Convs as im2col and a GEMM) and the direct-conv experiment, on cuDNN where it is installed
and on the direct kernel (XHIP_CUDNN=0). Then examples/decoder_tiny.onnx decodes 8 steps fed its own `present_*` on the
device, each a new shape and each checked, into cache buffers of room for 4 steps
(`Executable.cache_buffers`: each step appends its rows in place, the fifth moves the
caches once into twice the capacity); its line says how each step ran. Outside the
sanitizer the steps from the fifth on run through graphs captured at earlier steps with
their changed nodes updated (xhip.runtime.backends.gpu.graph_updates); under memcheck on
the H200 (2026-12-04) every step launched, so the update path is not what memcheck checks;
the line names the driver's refusal of graphs across shapes when there was one (a capture's
node query failing under the sanitizer would explain it; not yet seen either way). `--half` adds the test set through pipelines/fp16.yaml and bf16.yaml, and the
multi-head attention forms of xhip.testing.attention_models (matrix-instruction attention:
partial query and key tiles) through both. The sanitizer's own summary line ("ERROR
SUMMARY: N errors") is the verdict.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import xhip  # noqa: E402
from xhip.runtime.check import check_outputs, references  # noqa: E402
from xhip.testing.attention_models import FORMS, attention_feeds, multi_head_attention  # noqa: E402
from xhip.testing.models import MODELS, SHAPE_VARIANTS, feeds_at  # noqa: E402

HALF_PIPELINES = ("fp16", "bf16")


def _run(label: str, model, feeds, backend: str, pipeline: str | None) -> bool:
    executable = xhip.compile(model, pipeline, backend=backend)
    result = check_outputs(executable.run(feeds), references(model, feeds), backend, executable.compute_dtype)
    print(f"{label:<40} {'pass' if result.passed else 'FAIL ' + '; '.join(result.problems)}", flush=True)
    return result.passed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="cuda", help="the GPU backend to run on (cuda or hip)")
    parser.add_argument("--half", action="store_true", help="also the fp16 / bf16 pipelines and the multi-head attention forms")
    args = parser.parse_args()
    failed = 0
    for pipeline in (None, *(HALF_PIPELINES if args.half else ())):
        for name in sorted(MODELS):
            shapes = SHAPE_VARIANTS[name][0]
            model, feeds = feeds_at(name, shapes, np.random.default_rng(0))
            failed += not _run(f"{name} {pipeline or 'default'} {shapes}", model, feeds, args.backend, pipeline)
    failed += not _convolutions(args.backend)
    if args.half:
        for pipeline in HALF_PIPELINES:
            for form in FORMS:
                model = multi_head_attention(form, 2, 64)
                feeds = attention_feeds(model, 2, 77, 77 if form == "keep" else 131, np.random.default_rng(0))
                failed += not _run(f"attention {form} {pipeline} (2, 77, 131)", model, feeds, args.backend, pipeline)
    failed += not _decode(args.backend)
    return 1 if failed else 0


def _convolutions(backend: str) -> bool:
    """examples/resnet_tiny.onnx and unet_tiny.onnx with their Convs as im2col and a GEMM
    (default) and kept whole (direct-conv): on cuDNN where the backend takes it, and on the
    direct kernel with cuDNN turned off."""
    import onnx

    from xhip import environment

    passed = True
    feeds = {"images": np.random.default_rng(0).standard_normal((2, 3, 32, 32)).astype(np.float32)}
    kernel_only = {environment.CUDNN: "0"}
    for name in ("resnet_tiny", "unet_tiny"):
        model = onnx.load(ROOT / "examples" / f"{name}.onnx")
        for pipeline, settings in ((None, {}), ("direct-conv", {}), ("direct-conv", kernel_only)):
            label = " ".join([pipeline or "default", *(f"{k}={v}" for k, v in settings.items())])
            with environment.setting(settings):
                passed &= _run(f"{name} {label} (2, 3, 32, 32)", model, feeds, backend, pipeline)
    return passed


def _decode(backend: str, steps: int = 8) -> bool:
    import onnx

    model = onnx.load(ROOT / "examples" / "decoder_tiny.onnx")
    executable = xhip.compile(model, backend=backend)
    rng = np.random.default_rng(0)
    names = [i.name for i in model.graph.input if i.name.startswith("past_")]
    batch, length, (heads, head_dim) = 2, 6, (4, 16)
    cache = {name: rng.standard_normal((batch, heads, length, head_dim)).astype(np.float32) for name in names}
    # Caches appended in place (hip-append-kv-caches) with room for 4 steps: the fifth moves
    # each into twice the capacity, the rest append in place again.
    fed = executable.cache_buffers(cache, capacity=length + 4)
    passed, ran = True, []
    for step in range(steps):
        host = {"input_ids": rng.integers(0, 256, (batch, 1)).astype(np.int64), "position_ids": np.full((batch, 1), length + step, np.int64)}
        outputs = executable.run({**host, **fed}, on_device=True)
        got = {name: np.asarray(value) for name, value in outputs.items()}
        passed &= check_outputs(got, references(model, {**host, **cache}), backend).passed
        ran.append(executable.report.class_graph or "launched")
        fed = {name: outputs[name.replace("past", "present")] for name in names}
        cache = {name: got[name.replace("past", "present")] for name in names}
    refused = getattr(executable.backend, "graphs_refused", "")  # why nothing went through graphs
    why = f"; graphs across shapes refused: {refused}" if refused else ""
    print(f"{'decoder_tiny ' + str(steps) + ' steps':<40} {'pass' if passed else 'FAIL'} ({', '.join(ran)}{why})", flush=True)
    return passed


if __name__ == "__main__":
    sys.exit(main())
