"""What xhip-compare says: the table, the verdicts, where the IR diverges; JSON, Markdown, PNG.

Pipeline A (the first) is the baseline. For every later pipeline and row the
table gives pool bytes with its ratio to A, the latency ratio (medians), the
launch, readback and sync counts, and the numerics; `*` marks a change that is real (any
difference of an exact count; for latency see xhip.compare.stats: a pipeline whose IR
is A's after every pass runs A's program, and its latency is the same by construction). A pipeline's
verdict is, per axis (memory = pool bytes, latency, numerics = the check against
onnxruntime), same / better / worse / mixed over all rows.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from pathlib import Path

from xhip.compare.measure import Measurement, ModelResult, Row
from xhip.compare.stats import Change, exact_change, latency_change, overall, ratio, spread

AXES = ("memory", "latency", "numerics")
REAL_MARK = "*"


@dataclass(frozen=True)
class PipelineInfo:
    letter: str
    name: str
    path: str


@dataclass
class Comparison:
    pipelines: list[PipelineInfo]
    results: list[ModelResult]
    repeat: int

    @property
    def rows(self) -> list[Row]:
        return [row for result in self.results for row in result.rows]

    def verdict(self, index: int) -> dict[str, str]:
        """Pipeline `index` (>= 1) against A, per axis, over every row."""
        changes = [row_changes(row, index) for row in self.rows]
        return {axis: overall([c[axis] for c in changes]) for axis in AXES}

    def regressions(self) -> list[str]:
        """'B seed-003: attention X=1x128x64 memory' for every row where a pipeline is worse than A."""
        found = []
        for index, info in enumerate(self.pipelines[1:], 1):
            for row in self.rows:
                for axis, change in row_changes(row, index).items():
                    if change == "worse":
                        found.append(f"{info.letter} {info.name}: {row.model} {row.shape} {axis}")
        return found


def row_changes(row: Row, index: int) -> dict[str, Change]:
    a, b = row.measurements[0], row.measurements[index]
    return {
        "memory": exact_change(a.pool_bytes, b.pool_bytes),
        "latency": "same" if b.same_program_as_baseline else latency_change(a.latency_ms, b.latency_ms),
        "numerics": exact_change(int(not a.check_passed), int(not b.check_passed)),
    }


def latency_ratio(baseline: Measurement, candidate: Measurement) -> float | None:
    """The ratio of the two pipelines' median latencies."""
    return ratio(spread(baseline.latency_ms).median, spread(candidate.latency_ms).median)


def _ratio_text(value: float | None, real: bool) -> str:
    """`1.60x*`; a real change that rounds to 1.00 gets the digits that show it (`1.0018x*`)."""
    if value is None:
        return "-"
    digits = 4 if real and round(value, 2) == 1.0 else 2
    return f"{value:.{digits}f}x{REAL_MARK if real else ''}"


def _count_text(a: int, b: int) -> str:
    return f"{b}{REAL_MARK if a != b else ''}"


def _check_text(m: Measurement) -> str:
    return "ok" if m.check_passed else "FAIL"


def _baseline_cells(m: Measurement) -> list[str]:
    median = spread(m.latency_ms).median
    counts = [str(m.launches), str(m.readbacks), str(m.syncs)]
    return [str(m.pool_bytes), _or_dash(m.lower_bound_bytes), f"{median:.3f}", *counts, _check_text(m)]


def _candidate_cells(row: Row, index: int) -> list[str]:
    a, b = row.measurements[0], row.measurements[index]
    changes = row_changes(row, index)
    latency = latency_ratio(a, b)
    numerics = _check_text(b) + ("" if b.identical_to_baseline else f" ~{b.max_abs_err_vs_baseline:.1g}")
    return [
        str(b.pool_bytes),
        _ratio_text(ratio(a.pool_bytes, b.pool_bytes), changes["memory"] != "same"),
        _ratio_text(latency, changes["latency"] != "same"),
        _count_text(a.launches, b.launches),
        _count_text(a.readbacks, b.readbacks),
        _count_text(a.syncs, b.syncs),
        numerics + (REAL_MARK if changes["numerics"] != "same" else ""),
    ]


def _or_dash(value: object) -> str:
    return "-" if value is None else str(value)


def table(comparison: Comparison) -> tuple[list[str], list[list[str]]]:
    """Header and cells: one row per model x shape."""
    header = ["model", "shape", "A pool", "A bound", "A ms", "A launch", "A rb", "A sync", "A check"]
    for info in comparison.pipelines[1:]:
        x = info.letter
        header += [f"{x} pool", f"{x} pool/A", f"{x} ms/A", f"{x} launch", f"{x} rb", f"{x} sync", f"{x} check"]
    cells = []
    for row in comparison.rows:
        line = [row.model, row.shape, *_baseline_cells(row.measurements[0])]
        for index in range(1, len(comparison.pipelines)):
            line += _candidate_cells(row, index)
        cells.append(line)
    return header, cells


def _legend(comparison: Comparison) -> list[str]:
    return [f"{p.letter} = {p.name} ({p.path})" for p in comparison.pipelines]


def _compile_s(comparison: Comparison, index: int) -> float:
    """Pipeline `index`'s compile time over the suite (each model once)."""
    return sum(result.rows[0].measurements[index].compile_s for result in comparison.results if result.rows)


def _verdict_lines(comparison: Comparison) -> list[str]:
    lines = []
    baseline_s = _compile_s(comparison, 0)
    for index, info in enumerate(comparison.pipelines[1:], 1):
        verdict = comparison.verdict(index)
        compile_ratio = _ratio_text(ratio(baseline_s, _compile_s(comparison, index)), False)
        lines.append(
            f"{info.letter} {info.name} vs A: " + ", ".join(f"{axis} {verdict[axis]}" for axis in AXES)
            + f"; compile {compile_ratio} of A's {baseline_s:.2f} s"
        )
    return lines


def _divergence_lines(comparison: Comparison, with_diff: bool) -> list[str]:
    lines = []
    for index, info in enumerate(comparison.pipelines[1:]):
        for result in comparison.results:
            divergence = result.divergences[index]
            where = "IR identical after every pass" if divergence is None else f"IR first differs {divergence.where}"
            lines.append(f"{info.letter} {info.name}, {result.model}: {where}")
            if with_diff and divergence is not None:
                lines += [f"    {line}" for line in divergence.diff]
    return lines


def render_text(comparison: Comparison) -> str:
    header, cells = table(comparison)
    widths = [max(len(line[i]) for line in [header, *cells]) for i in range(len(header))]
    rows = ["  ".join(cell.ljust(w) for cell, w in zip(line, widths)).rstrip() for line in [header, *cells]]
    notes = [f"ms: median of {comparison.repeat} interleaved repetitions; {REAL_MARK}: a real change (see --help)"]
    sections = [_legend(comparison), rows, notes, _verdict_lines(comparison), _divergence_lines(comparison, True)]
    return "\n\n".join("\n".join(section) for section in sections) + "\n"


def render_markdown(comparison: Comparison) -> str:
    header, cells = table(comparison)
    lines = ["# xhip-compare", "", *[f"- {entry}" for entry in _legend(comparison)], ""]
    lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in line) + " |" for line in cells]
    lines += ["", f"ms: median of {comparison.repeat} interleaved repetitions; `{REAL_MARK}`: a real change.", ""]
    lines += ["## Verdicts", "", *[f"- {line}" for line in _verdict_lines(comparison)], ""]
    lines += ["## Where the IR first diverges", ""]
    for line in _divergence_lines(comparison, False):
        lines.append(f"- {line}")
    for index, info in enumerate(comparison.pipelines[1:]):
        for result in comparison.results:
            divergence = result.divergences[index]
            if divergence is not None:
                lines += ["", f"### {info.letter} {info.name}, {result.model}: {divergence.where}", "", "```diff"]
                lines += [*divergence.diff, "```"]
    return "\n".join(lines) + "\n"


def _row_json(comparison: Comparison, row: Row) -> dict[str, object]:
    per_pipeline = []
    baseline = row.measurements[0]
    for index, m in enumerate(row.measurements):
        entry = {"pipeline": comparison.pipelines[index].name, **m.as_dict(), "latency": spread(m.latency_ms).as_dict()}
        if index:
            entry["pool_ratio"] = ratio(baseline.pool_bytes, m.pool_bytes)
            entry["latency_ratio"] = latency_ratio(baseline, m)
            entry["changes"] = row_changes(row, index)
        per_pipeline.append(entry)
    return {"model": row.model, "shape": row.shape, "pipelines": per_pipeline}


def _divergences_json(comparison: Comparison, index: int) -> dict[str, object]:
    """Model -> where pipeline `index + 1` first diverges from A (None: nowhere)."""
    found: dict[str, object] = {}
    for result in comparison.results:
        divergence = result.divergences[index]
        found[result.model] = None if divergence is None else divergence.as_dict()
    return found


def as_json(comparison: Comparison) -> dict[str, object]:
    rows = [_row_json(comparison, row) for row in comparison.rows]
    divergences = {info.name: _divergences_json(comparison, i) for i, info in enumerate(comparison.pipelines[1:])}
    return {
        "pipelines": [vars(p) for p in comparison.pipelines],
        "backend": sorted({r.backend for r in comparison.results}),
        "repeat": comparison.repeat,
        "rows": rows,
        "verdicts": {p.name: comparison.verdict(i) for i, p in enumerate(comparison.pipelines[1:], 1)},
        "divergences": divergences,
        "regressions": comparison.regressions(),
    }


def render_png(comparison: Comparison) -> bytes:
    """Bar charts of every later pipeline's pool and latency ratios to A, one bar group per row."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = comparison.rows
    labels = [f"{row.model}\n{row.shape}" for row in rows]
    candidates = list(enumerate(comparison.pipelines[1:], 1))
    figure, axes = plt.subplots(2, 1, figsize=(max(8, 0.6 * len(rows) * len(candidates) + 2), 8), sharex=True)
    width = 0.8 / max(1, len(candidates))
    for slot, (index, info) in enumerate(candidates):
        pool = [_bar(ratio(r.measurements[0].pool_bytes, r.measurements[index].pool_bytes)) for r in rows]
        latency = [_bar(latency_ratio(r.measurements[0], r.measurements[index])) for r in rows]
        positions = [i + (slot - (len(candidates) - 1) / 2) * width for i in range(len(rows))]
        axes[0].bar(positions, pool, width, label=f"{info.letter} {info.name}")
        axes[1].bar(positions, latency, width, label=f"{info.letter} {info.name}")
    for axis, title in zip(axes, ("pool bytes / A", "latency (median) / A")):
        axis.axhline(1.0, color="black", linewidth=0.8)
        axis.set_ylabel(title)
        axis.legend(fontsize="small")
    axes[1].set_xticks(range(len(rows)), labels, rotation=90, fontsize="x-small")
    axes[0].set_title(f"xhip-compare: ratios to A = {comparison.pipelines[0].name}")
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100)
    plt.close(figure)
    return buffer.getvalue()


def _bar(value: float | None) -> float:
    """No bar (NaN) where a ratio is undefined (A has 0 bytes, B has some)."""
    return float("nan") if value is None else value


REPORT_FORMATS = {".json": "JSON", ".md": "Markdown", ".png": "PNG"}


def render_report(comparison: Comparison, path: str) -> bytes | str:
    suffix = Path(path).suffix.lower()
    if suffix == ".json":
        return json.dumps(as_json(comparison), indent=2) + "\n"
    if suffix == ".md":
        return render_markdown(comparison)
    assert suffix == ".png", suffix
    return render_png(comparison)
