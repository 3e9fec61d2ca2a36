"""Compile time per model of the test set through pipelines/default.yaml.

    python benchmarks/compile_time.py [--repeat 3]

Prints, per model, the import time and the time of each pass (medians of
`--repeat` compilations, in ms), the ops before and after, and writes JSON to
benchmarks/results/compile_time.json. The IR stays in memory between passes.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from xhip.api import DEFAULT_PIPELINE, load_module, pipeline_passes
from xhip.context import make_context
from xhip.pass_runner import run_passes
from xhip.passes.externalize_constants import ExternalizeConstantsPass
from xhip.testing.models import MODELS

RESULTS = Path(__file__).resolve().parent / "results" / "compile_time.json"


def _ops(module) -> int:
    return sum(1 for _ in module.walk())


def compile_once(model, constants_dir: str) -> tuple[dict[str, float], int, int]:
    """Per-stage seconds (import, then each pass in order), ops after import and at the end."""
    passes = [
        ExternalizeConstantsPass(p.externalize_min_num_elements, constants_dir)
        if isinstance(p, ExternalizeConstantsPass)
        else p
        for p in pipeline_passes(DEFAULT_PIPELINE)
    ]
    start = time.perf_counter()
    module = load_module(model)
    seconds = {"import": time.perf_counter() - start}
    imported_ops = _ops(module)
    counts: dict[str, int] = defaultdict(int)
    for timing in run_passes(make_context(), module, passes):
        counts[timing.name] += 1
        label = timing.name if counts[timing.name] == 1 else f"{timing.name}#{counts[timing.name]}"
        seconds[label] = timing.seconds
    return seconds, imported_ops, _ops(module)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    results = {}
    with tempfile.TemporaryDirectory() as constants_dir:
        for name, build in MODELS.items():
            model, _ = build(np.random.default_rng(0))
            runs = [compile_once(model, constants_dir) for _ in range(args.repeat)]
            stages = {stage: statistics.median(r[0][stage] for r in runs) * 1e3 for stage in runs[0][0]}
            results[name] = {
                "ops_imported": runs[0][1],
                "ops_final": runs[0][2],
                "total_ms": sum(stages.values()),
                "stages_ms": stages,
            }
    stage_names = list(next(iter(results.values()))["stages_ms"])
    print(f"{'model':<22} {'ops in':>7} {'ops out':>8} {'total ms':>9}  slowest stages (ms)")
    print("-" * 96)
    for name, row in results.items():
        slowest = sorted(row["stages_ms"].items(), key=lambda kv: -kv[1])[:3]
        print(
            f"{name:<22} {row['ops_imported']:>7} {row['ops_final']:>8} {row['total_ms']:>9.1f}  "
            + ", ".join(f"{stage} {ms:.1f}" for stage, ms in slowest)
        )
    print(f"\nstages: {', '.join(stage_names)} (median of {args.repeat})")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
