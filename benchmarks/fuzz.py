"""Random dynamic-shape graphs under every pipeline, with the sanitizer, against onnxruntime.

    python benchmarks/fuzz.py --graphs 300 [--seed 0] [--save-regressions tests/regressions]

Hypothesis draws `--graphs` valid ONNX graphs (xhip/testing/fuzz.py); each runs at
three bindings of its symbolic dims (nominal, all ones, a zero extent) under every
YAML in pipelines/ with `sanitize=True`. Prints a table per pipeline (graphs, runs,
passed, sanitizer reports, wrong values, errors, crashes), the verdicts the issue
asks for (no failure at all under default.yaml and grouped-packing.yaml; under the
race experiments no wrong value without a sanitizer report, and every wrong value
that the racy order gives without the sanitizer reported when it runs), the most frequent
failure messages with the known finding each belongs to (KNOWN_FINDINGS in
xhip/testing/fuzz_runs.py), and writes JSON to benchmarks/results/fuzz.json. With
--save-regressions, the first graph of each (pipeline, kind, message) is minimized
and saved there as .onnx (tests/test_regressions.py runs every file of that folder).
"""

from __future__ import annotations

import argparse
import collections
import json
import time
from pathlib import Path

from xhip.testing.fuzz_runs import (
    RACE_PIPELINES, Campaign, known_finding, minimize, run_campaign, same_failure, save_regression,
)

REPO = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).resolve().parent / "results" / "fuzz.json"
SHIPPING = ("default.yaml", "grouped-packing.yaml")
COLUMNS = ("graphs", "runs", "passed", "sanitizer", "wrong-value", "xhip-error", "crash")


def print_table(summary: dict[str, dict[str, int]]) -> None:
    print(f"{'pipeline':<34}" + "".join(f"{c:>12}" for c in COLUMNS))
    for pipeline, row in sorted(summary.items()):
        print(f"{pipeline:<34}" + "".join(f"{row[c]:>12}" for c in COLUMNS))


def verdicts(campaign: Campaign) -> dict[str, bool]:
    summary, found = campaign.summary(), {}
    for name in SHIPPING:
        row = summary.get(name, {})
        found[f"{name}: no failure, no sanitizer report"] = not any(row.get(c, 0) for c in COLUMNS[3:])
    for name in RACE_PIPELINES:
        row = summary.get(name, {})
        found[f"{name}: no wrong value passes silently"] = row.get("wrong-value", 0) == 0
        unreported = [o for _, o in campaign.unreported if o.pipeline == name]
        found[f"{name}: every wrong value of the racy order (unsanitized) comes with a sanitizer report"] = not unreported
    return found


def signature(outcome) -> tuple[str, str, str]:
    """(pipeline, kind, message without the numbers that vary per graph)."""
    return outcome.pipeline, outcome.kind, "".join(ch for ch in outcome.message[:80] if not ch.isdigit())


def save_minimized(campaign: Campaign, folder: Path) -> list[Path]:
    saved, seen = [], set()
    for graph, outcome in campaign.failures():
        key = signature(outcome)
        if key in seen:
            continue
        seen.add(key)
        pipeline = next(p for p in REPO.glob("pipelines/**/*.yaml") if p.name == outcome.pipeline)
        smallest = minimize(graph.model, same_failure(pipeline, outcome.bindings, outcome.kind))
        saved.append(save_regression(smallest, outcome, folder))
    return saved


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graphs", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0, help="hypothesis seed (the same seed draws the same graphs)")
    ap.add_argument("--max-steps", type=int, default=8, help="most generator steps per graph")
    ap.add_argument("--save-regressions", type=Path, metavar="DIR", help="minimize and save one graph per failure kind")
    ap.add_argument("--json", type=Path, default=RESULTS)
    args = ap.parse_args()
    pipelines = sorted(str(p) for p in REPO.glob("pipelines/**/*.yaml"))
    start = time.perf_counter()
    campaign = run_campaign(args.graphs, pipelines, seed=args.seed, max_steps=args.max_steps)
    seconds = time.perf_counter() - start
    summary = campaign.summary()
    print(f"{len(campaign.results)} graphs checked, {campaign.refused} refused by onnxruntime, {seconds:.1f} s")
    print_table(summary)
    found = verdicts(campaign)
    for claim, holds in found.items():
        print(f"{'yes' if holds else 'NO ':<4} {claim}")
    for graph, o in campaign.unreported[:10]:
        print(f"unreported race: {o.pipeline} {dict(o.bindings)}: {o.message} [{graph.describe()}]")
    messages = collections.Counter((signature(o), known_finding(o) or "unclassified") for _, o in campaign.failures())
    print("most frequent failures (runs, pipeline, kind, known finding, message):")
    for ((pipeline, kind, message), label), count in messages.most_common(20):
        print(f"{count:>5}  {pipeline:<32} {kind:<12} {label[:64]:<64} {message}")
    saved = save_minimized(campaign, args.save_regressions) if args.save_regressions else []
    for path in saved:
        print(f"saved {path}")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({
        "graphs": args.graphs, "seed": args.seed, "seconds": seconds, "refused": campaign.refused,
        "summary": summary, "verdicts": found,
        "unreported_races": [{"pipeline": o.pipeline, "dims": dict(o.bindings), "message": o.message,
                              "graph": g.describe()} for g, o in campaign.unreported],
        "failures": [{"pipeline": o.pipeline, "dims": dict(o.bindings), "kind": o.kind, "message": o.message,
                      "finding": known_finding(o), "graph": g.describe()}
                     for g, o in campaign.failures()],
        "saved": [str(p) for p in saved],
    }, indent=2) + "\n")  # fmt: skip
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
