"""Where one command's wall time went: the rows of `--timing`.

One clock (`time.perf_counter`) runs from the moment the tool starts measuring
to the table; every stage adds a row, and what no row claims is printed as
"other", so the rows add up to the total. On Linux the total also counts the
interpreter's start and the imports before the tool's first line ran (from the
process's start time in /proc, 10 ms resolution): `time xhip-opt ...` and the
table's total then agree.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

STARTUP_ROW = "startup (interpreter, imports)"
CHECKSUM_WAIT_ROW = "wait for the constants checksum"
"""The pass runner's row for the wait on the constants files' checksums (hashed on threads)."""


@dataclass
class TimingRow:
    name: str
    seconds: float


def seconds_since_process_start() -> float | None:
    """Wall seconds since this process started, or None where /proc does not say."""
    try:
        stat = Path("/proc/self/stat").read_text()
        start_ticks = int(stat.rsplit(")", 1)[1].split()[19])  # field 22, counted after the command name
        return max(0.0, time.clock_gettime(time.CLOCK_BOOTTIME) - start_ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError, AttributeError):
        return None


@dataclass
class Timings:
    """Named wall-time rows in the order they first happened."""

    rows: list[TimingRow] = field(default_factory=list)
    started: float = field(default_factory=time.perf_counter)

    @classmethod
    def since_process_start(cls) -> Timings:
        """Timings whose first row is the process's start-up, where the system says how long it took."""
        timings = cls()
        startup = seconds_since_process_start()
        if startup is not None:
            timings.rows.append(TimingRow(STARTUP_ROW, startup))
            timings.started -= startup
        return timings

    def add(self, name: str, seconds: float, merge: bool = False) -> None:
        """A new row, or with `merge` more seconds on the row of that name (verification after every pass)."""
        if merge:
            for row in self.rows:
                if row.name == name:
                    row.seconds += seconds
                    return
        self.rows.append(TimingRow(name, seconds))

    @contextmanager
    def measure(self, name: str, merge: bool = False) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.add(name, time.perf_counter() - start, merge)

    def table(self, title: str) -> str:
        """The rows, "other" (what no row measured) and the wall-time total, in ms and percent."""
        total = max(time.perf_counter() - self.started, 1e-12)
        other = total - sum(row.seconds for row in self.rows)
        lines = [f"===--- {title} execution time report ---===", f"{'wall (ms)':>12}  {'%':>6}  name"]
        for row in [*self.rows, TimingRow("other", other)]:
            lines.append(f"{row.seconds * 1e3:12.2f}  {100 * row.seconds / total:6.1f}  {row.name}")
        lines.append(f"{total * 1e3:12.2f}  {100.0:6.1f}  total (wall)")
        return "\n".join(lines) + "\n"
