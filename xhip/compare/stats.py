"""When a latency difference is real: repetitions' spread, not a threshold picked by hand.

Latencies are measured interleaved (one repetition of every pipeline, then the
next, in alternating order: A B, B A, A B, ...), so drift on the machine hits
every pipeline alike. A difference between
two pipelines' repetitions is called real when

    every repetition of one is faster than every repetition of the other, and the
    gap between the two ranges (the slower one's fastest minus the faster one's
    slowest) exceeds the larger of the two interquartile ranges.

The first condition alone is a rank test: for two pipelines that take the same
time, all 5 repetitions of one fall below all 5 of the other with probability
2 / C(10, 5) = 0.8%, which over a 27-row suite would be a false alarm one run in
six. The gap condition brings that to about 0.05% a row (simulated: normal,
log-normal and spiky timing noise), while a 1.5x change under 10% noise is still
found 6-9 times in 10 with 5 repetitions, and almost always with more
(`--repeat`). Memory, launches, readbacks and syncs are exact counts: any
difference is real.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

Change = Literal["better", "worse", "same"]


@dataclass(frozen=True)
class Spread:
    median: float
    q1: float
    q3: float
    low: float
    high: float

    @property
    def iqr(self) -> float:
        return self.q3 - self.q1

    def as_dict(self) -> dict[str, float]:
        return {"median": self.median, "q1": self.q1, "q3": self.q3, "min": self.low, "max": self.high}


def spread(samples: Sequence[float]) -> Spread:
    q1, median, q3 = (float(v) for v in np.percentile(samples, [25, 50, 75]))
    return Spread(median, q1, q3, float(min(samples)), float(max(samples)))


def latency_change(baseline: Sequence[float], candidate: Sequence[float]) -> Change:
    """'better' / 'worse' when the candidate is faster / slower beyond noise (module docstring)."""
    a, b = spread(baseline), spread(candidate)
    noise = max(a.iqr, b.iqr)
    if b.low - a.high > noise:
        return "worse"
    if a.low - b.high > noise:
        return "better"
    return "same"


def exact_change(baseline: float, candidate: float, lower_is_better: bool = True) -> Change:
    """A count or byte size: any difference is real."""
    if candidate == baseline:
        return "same"
    return "better" if (candidate < baseline) == lower_is_better else "worse"


def ratio(baseline: float | None, candidate: float | None) -> float | None:
    """candidate / baseline; None when either is unknown or the baseline is 0 and the candidate is not."""
    if baseline is None or candidate is None:
        return None
    if baseline == 0:
        return 1.0 if candidate == 0 else None
    return candidate / baseline


def overall(changes: Sequence[Change]) -> str:
    """One word for a pipeline over every row: same, better, worse, or mixed (N better, M worse)."""
    better, worse = changes.count("better"), changes.count("worse")
    if better and worse:
        return f"mixed ({better} better, {worse} worse)"
    if worse:
        return f"worse ({worse} of {len(changes)} rows)"
    if better:
        return f"better ({better} of {len(changes)} rows)"
    return "same"
