"""ONNX backend node tests through xhip: the pass rate of every supported op.

    python benchmarks/node_tests.py [--ops Add,MatMul] [--json PATH] [--write-passing PATH]

Runs every node test case that onnx generates for the supported ops (see
xhip/testing/node_tests.py for how cases are chosen, compiled and compared),
prints one row per op (cases, passed, failed, errored, skipped, pass rate) and the
overall rate, then every case that did not pass with its one-line reason and the
documented exception it falls under. The pass rate counts the cases that ran:
passed / (cases - skipped); a skipped case uses an op xhip does not support.

Writes the rows, the totals and every case to benchmarks/results/node_tests.json.
`--write-passing` also writes the sorted names of the passing cases (the list that
tests/test_node_tests.py checks).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from xhip.testing.node_tests import (
    CaseResult,
    OpSummary,
    explain,
    onnx_version,
    run_node_tests,
    summarize,
    total,
)

RESULTS = Path(__file__).resolve().parent / "results" / "node_tests.json"
COLUMNS = ("op", "cases", "passed", "failed", "errored", "skipped", "pass rate")


def _row(summary: OpSummary) -> tuple[str, ...]:
    counts = summary.counts
    rate = f"{100 * summary.pass_rate:.1f}%" if summary.run else "-"
    return (
        summary.op_type,
        *(str(n) for n in (summary.cases, counts["pass"], counts["fail"], counts["error"], counts["skipped"])),
        rate,
    )


def print_table(rows: list[OpSummary]) -> None:
    lines = [COLUMNS, *(_row(r) for r in rows)]
    overall = _row(total(rows))
    widths = [max(len(line[i]) for line in [*lines, overall]) for i in range(len(COLUMNS))]

    def show(line: tuple[str, ...]) -> None:
        print("  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(line, widths))))

    show(lines[0])
    print("  ".join("-" * w for w in widths))
    for line in lines[1:]:
        show(line)
    print("  ".join("-" * w for w in widths))
    show(overall)


def print_exceptions(results: list[CaseResult]) -> None:
    others = [r for r in results if r.status != "pass"]
    print(f"\n{len(others)} cases did not pass:")
    for result in sorted(others, key=lambda r: (r.status, r.op_type, r.name)):
        reason = result.reason
        print(f"  {result.status:7} {result.op_type:18} {result.name}: {reason}")
        documented = explain(result)
        if result.status != "skipped":
            print(f"          {'':18} why: {documented or 'NOT DOCUMENTED (a new failure?)'}")
    folded = [r.name for r in results if r.constant_inputs]
    print(f"\n{len(folded)} cases ran with axes inputs folded into initializers (COMPILE_TIME_INPUTS).")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", help="comma-separated op types (default: every supported op)")
    parser.add_argument("--json", type=Path, default=RESULTS, help=f"where to write the results (default {RESULTS})")
    parser.add_argument("--write-passing", type=Path, help="also write the sorted passing case names here")
    args = parser.parse_args(argv)

    ops = args.ops.split(",") if args.ops else None
    start = time.perf_counter()
    results = run_node_tests(ops)
    seconds = time.perf_counter() - start
    rows = summarize(results, ops)
    print(f"ONNX backend node tests (onnx {onnx_version()}), xhip reference backend, {seconds:.1f} s\n")
    print_table(rows)
    print_exceptions(results)

    args.json.parent.mkdir(parents=True, exist_ok=True)
    report = {
        "onnx_version": onnx_version(),
        "seconds": round(seconds, 2),
        "total": total(rows).as_dict(),
        "ops": [row.as_dict() for row in rows],
        "cases": [{**r.as_dict(), "exception": explain(r) if r.status != "pass" else None} for r in results],
    }
    args.json.write_text(json.dumps(report, indent=1) + "\n")
    print(f"\nwrote {args.json}")
    if args.write_passing:
        names = sorted(r.name for r in results if r.status == "pass")
        header = (
            "# ONNX backend node tests that pass through xhip (tests/test_node_tests.py).\n"
            "# Regenerate: python benchmarks/node_tests.py --write-passing tests/node_tests_passing.txt\n"
        )
        args.write_passing.write_text(header + "".join(f"{name}\n" for name in names))
        print(f"wrote {len(names)} passing cases to {args.write_passing}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
