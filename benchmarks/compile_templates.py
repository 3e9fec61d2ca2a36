"""Render every kernel specialization the test-set models use and compile each offline.

    python benchmarks/compile_templates.py [--require-all] [--no-cache] [--json PATH]

The CI step (no GPU, real compilers): the specs come from every model of
xhip.testing.models compiled through pipelines/default.yaml, plus one spec per
elementwise op and the family forms the test set does not reach (so a broken template
or C expression fails here, not on a GPU). Each target compiles them batched into a few
translation units: nvcc for sm_90 through the CUDA prelude, hipcc for gfx90a with
HIP_PLATFORM=amd. Code objects go through the compile cache ($XHIP_CACHE_DIR or the
user cache dir), so a second run compiles nothing.

Prints how many specializations were rendered and compiled per target and how long it
took; exits 1 when a compile fails (naming the kernels that fail), or with
--require-all when a compiler is missing.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from xhip.kernels.cache import CompileCache
from xhip.kernels.coverage import coverage_specs, unique
from xhip.testing.kernel_specs import testset_specs
from xhip.kernels.compilers import CompileError, OfflineCompiler, offline_compilers
from xhip.kernels.render import render_unit
from xhip.kernels.spec_types import KernelSpec


def _chunks(specs: list[KernelSpec], count: int) -> list[list[KernelSpec]]:
    return [chunk for chunk in (specs[i::count] for i in range(count)) if chunk]


def _failing_kernels(specs: list[KernelSpec], compiler: OfflineCompiler) -> list[str]:
    """Which kernels of a failed unit fail alone (compiled one by one, only after a failure)."""
    failing = []
    for spec in specs:
        try:
            compiler.compile(render_unit([spec], compiler.kind))
        except CompileError:
            failing.append(spec.name)
    return failing


def compile_target(specs: list[KernelSpec], compiler: OfflineCompiler, cache: CompileCache | None, units: int) -> dict[str, object]:
    """Compiles `specs` in `units` translation units in parallel; the target's summary."""
    start = time.perf_counter()
    chunks = _chunks(specs, units)

    def build(chunk: list[KernelSpec]) -> tuple[bool, str | None]:
        source = render_unit(chunk, compiler.kind)
        try:
            if cache is None:
                compiler.compile(source)
                return False, None
            return cache.compile(source, compiler)[1], None
        except CompileError as err:
            return False, str(err)

    with ThreadPoolExecutor(max_workers=units) as pool:
        results = list(pool.map(build, chunks))
    errors = [(chunk, message) for chunk, (_, message) in zip(chunks, results) if message]
    failing = [name for chunk, _ in errors for name in _failing_kernels(chunk, compiler)]
    return {
        "target": compiler.target,
        "compiler": compiler.tool,
        "specializations": len(specs),
        "units": len(chunks),
        "cached_units": sum(hit for hit, _ in results),
        "seconds": round(time.perf_counter() - start, 2),
        "errors": [message for _, message in errors],
        "failing_kernels": failing,
    }


def _compilers() -> list:
    """nvcc, hipcc and the runtime's NVRTC (None where cuda-bindings is not installed)."""
    try:
        from xhip.runtime.backends.gpu.nvrtc import NvrtcCompiler
    except ImportError:
        return [*offline_compilers(), None]
    return [*offline_compilers(), NvrtcCompiler()]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--require-all", action="store_true", help="fail when nvcc, hipcc or NVRTC is missing (CI)")
    ap.add_argument("--no-cache", action="store_true", help="compile everything, bypassing the compile cache")
    ap.add_argument("--units", type=int, default=2, help="translation units (parallel compiler calls) per target (default 2)")
    ap.add_argument("--json", type=Path, help="also write the summary as JSON to this file")
    args = ap.parse_args(argv)

    start = time.perf_counter()
    used, covered = testset_specs(), coverage_specs()
    specs = unique([*used, *covered])
    half = sum(1 for spec in specs if {"XHIP_NEEDS_FP16", "XHIP_NEEDS_BF16"} & set(spec.needs))
    print(
        f"templates: rendered {len(specs)} specializations ({len(used)} used by the test-set models, "
        f"{len(specs) - len(used)} more for coverage; {half} of them fp16 or bf16)"
    )
    cache = None if args.no_cache else CompileCache()
    summaries, status = [], 0
    for compiler in _compilers():
        if compiler is None:
            print("templates: nvrtc not found (pip install cuda-bindings nvidia-cuda-nvrtc): sm_90 not compiled through NVRTC")
            status |= int(args.require_all)
            continue
        if not compiler.available:
            print(f"templates: {compiler.tool} not found: {compiler.target} not compiled")
            status |= int(args.require_all)
            continue
        summary = compile_target(specs, compiler, cache, args.units)
        summaries.append(summary)
        cached = f", {summary['cached_units']} of {summary['units']} units from the cache" if summary["cached_units"] else ""
        if summary["errors"]:
            status = 1
            print(f"templates: {compiler.tool} {compiler.target}: FAILED ({', '.join(summary['failing_kernels']) or 'the batch'})")  # type: ignore[arg-type]
            for message in summary["errors"]:  # type: ignore[union-attr]
                print(message, file=sys.stderr)
        else:
            print(f"templates: {compiler.tool} {compiler.target}: compiled {summary['specializations']} specializations in {summary['seconds']} s ({summary['units']} units{cached})")
    print(f"templates: total {time.perf_counter() - start:.1f} s")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"specializations": len(specs), "test_set": len(used), "targets": summaries}, indent=2) + "\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
