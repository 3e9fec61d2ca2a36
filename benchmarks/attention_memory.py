"""Pool memory of the seed attention model per planner, against the seed's stacked 4A + 2B.

    python benchmarks/attention_memory.py [--shapes 1x128 4x512 16x2048] [--no-sanitize]

For each (batch, seq) and each packing (hip-pool-allocs planned at run time (the
default), tree, lifetime-only, grouped = lifetime-only=false, stacked), the model is
compiled with pipelines/default.yaml, run on the reference backend (sanitized
by default: deferred work and byte ownership checked) and compared with
onnxruntime. The table gives the pool bytes the run requested, the model's own
lower bound (every intermediate its own buffer, before any reuse pass), pool /
bound, the bound if elementwise / softmax ops wrote in place, and the seed's
4A + 2B with A = align256(b*s*256) and B = align256(b*s*s*4). The JSON (in
benchmarks/results/attention_memory.json) also has the max-live bound of the
merged IR (`merged_lower_bound_bytes`).
16x2048 needs about 10 GB and half a minute per row under the sanitizer.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

import xhip
from xhip.pipeline import apply_overrides, load_pipeline
from xhip.runtime.check import compare, onnxruntime_outputs
from xhip.testing.models import attention

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results" / "attention_memory.json"
PACKINGS = {
    "run-time (default)": [],
    "tree": ['hip-pool-allocs.planner="tree"'],
    "lifetime-only": ['hip-pool-allocs.planner="lifetime-only"'],
    "grouped": ["hip-pool-allocs.lifetime-only=false", 'hip-pool-allocs.planner=""'],
    "stacked": ['hip-pool-allocs.planner="stacked"'],
}


def align256(n: int) -> int:
    return -(-n // 256) * 256


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shapes", nargs="+", default=["1x128", "4x512", "16x2048"])
    ap.add_argument("--no-sanitize", action="store_true")
    args = ap.parse_args()
    default = load_pipeline(REPO / "pipelines" / "default.yaml")
    rows = []
    header = (
        f"{'batch x seq':>12} {'packing':<16} {'pool bytes':>14} {'model bound':>14} {'pool/bound':>10} "
        f"{'in-place bnd':>14} {'4A+2B':>14} {'pool/4A+2B':>10} {'check':>6} {'run s':>7}"
    )
    print(header)
    print("-" * len(header))
    for shape in args.shapes:
        batch, seq = (int(d) for d in shape.split("x"))
        model, feeds = attention(np.random.default_rng(0), batch, seq)
        expected = onnxruntime_outputs(model, feeds)
        seed_bound = 4 * align256(batch * seq * 256) + 2 * align256(batch * seq * seq * 4)
        for packing, settings in PACKINGS.items():
            pipeline = apply_overrides(default, settings) if settings else default
            executable = xhip.compile(model, pipeline, sanitize=not args.no_sanitize)
            start = time.perf_counter()
            result = compare(executable.run(feeds), expected)
            seconds = time.perf_counter() - start
            report = executable.report
            row = {
                "batch": batch,
                "seq": seq,
                "packing": packing,
                "pool_bytes": report.pool_bytes,
                "lower_bound_bytes": report.lower_bound_bytes,
                "pool_over_bound": report.pool_over_bound,
                "in_place_lower_bound_bytes": report.in_place_lower_bound_bytes,
                "merged_lower_bound_bytes": report.merged_lower_bound_bytes,
                "seed_4A_2B": seed_bound,
                "check_passed": result.passed,
                "sanitized": not args.no_sanitize,
                "run_s": seconds,
            }
            rows.append(row)
            print(
                f"{shape:>12} {packing:<16} {report.pool_bytes:>14,} {report.lower_bound_bytes or 0:>14,} "
                f"{report.pool_over_bound or 0:>10.3f} {report.in_place_lower_bound_bytes or 0:>14,} {seed_bound:>14,} {report.pool_bytes / seed_bound:>10.3f} {'pass' if result.passed else 'FAIL':>6} {seconds:>7.2f}"
            )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(rows, indent=2) + "\n")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
