"""xhip-compare's --jobs speedup on the test set: --jobs 1 and --jobs N side by side.

    python benchmarks/compare_jobs.py                 # 3 rounds of jobs 1, jobs 2
    python benchmarks/compare_jobs.py --jobs 4 --rounds 5 --json out.json

Each round runs the same xhip-compare command (the three shipped pipelines over
benchmarks/suites/test-set.yaml, reference backend) once per job count, in
alternation, so load from other processes hits both alike. It prints each run's
wall time and the 1-minute load average before it, and the ratio of the median
wall times (the issue asks for at most 0.65 with 2 jobs).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PIPELINES = ["pipelines/default.yaml", "pipelines/experiments/seed-003.yaml", "pipelines/experiments/grouped-packing.yaml"]
SUITE = "benchmarks/suites/test-set.yaml"


def wall_time(jobs: int) -> float:
    command = [sys.executable, "-m", "xhip.compare.cli", "--pipelines", *PIPELINES, "--suite", SUITE,
               "--backend", "reference", "--jobs", str(jobs)]
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    start = time.perf_counter()
    subprocess.run(command, cwd=REPO, env=environment, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=2, help="the job count compared with 1 (default 2)")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds (default 3)")
    ap.add_argument("--json", metavar="FILE", help="also write the times as JSON")
    args = ap.parse_args()
    times: dict[int, list[float]] = {1: [], args.jobs: []}
    print(f"{'round':>5} {'jobs':>4} {'load':>5} {'wall s':>7}")
    for round_index in range(args.rounds):
        for jobs in times:
            load = os.getloadavg()[0]
            times[jobs].append(wall_time(jobs))
            print(f"{round_index:>5} {jobs:>4} {load:>5.2f} {times[jobs][-1]:>7.2f}", flush=True)
    medians = {jobs: statistics.median(values) for jobs, values in times.items()}
    print(f"median wall s: jobs 1 {medians[1]:.2f}, jobs {args.jobs} {medians[args.jobs]:.2f}; "
          f"ratio {medians[args.jobs] / medians[1]:.2f} on {os.cpu_count()} cores")
    if args.json:
        Path(args.json).write_text(json.dumps({"times": times, "medians": medians}, indent=2) + "\n")


if __name__ == "__main__":
    main()
