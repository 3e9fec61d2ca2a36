"""The memory report as a PNG: time (op index) on x, pool bytes (MiB, or KiB / bytes for tiny pools) on y.

One panel per function, one rectangle per pooled buffer (x: its live ops, y: its
bytes in its domain's pool; the domains of a function are stacked, each above the
last one's pool), and horizontal lines at the pool size and at both honest bounds.
Needs matplotlib (the `plot` extra); `require_matplotlib` says so in one line.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from xhip.diagnostics import XhipError

if TYPE_CHECKING:  # the command lines import require_matplotlib early: this module stays light
    from xhip.report.memory import FunctionAt, Rectangle

UNITS = (("MiB", 1 << 20), ("KiB", 1 << 10), ("bytes", 1))
"""Units of the y axis, largest first (MiB for most models)."""
LABEL_MIN_FRACTION = 0.03
"""A rectangle gets its buffer number written in it when it is at least this tall (of the panel)."""


def require_matplotlib() -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise XhipError("a .png memory report needs matplotlib: pip install 'xhip[plot]'") from None


def _domain_bases(at: FunctionAt) -> dict[int, int]:
    """Where each domain's pool starts in the panel: pools stacked in id order, each as high
    as its largest domain; domains that draw from one pool start where it does."""
    heights: dict[int, int] = {}
    for domain, size in at.pool_bytes_of.items():
        pool = at.function.pool_of.get(domain, domain)
        heights[pool] = max(heights.get(pool, 0), size or 0)
    starts, base = {}, 0
    for pool, height in heights.items():
        starts[pool] = base
        base += height
    return {domain: starts[at.function.pool_of.get(domain, domain)] for domain in at.pool_bytes_of}


@dataclass(frozen=True)
class _Axis:
    """The y axis' unit: the largest that the panel's height holds at least once."""

    unit: str
    scale: int

    @staticmethod
    def for_height(height: int) -> _Axis:
        return next(_Axis(name, size) for name, size in UNITS if height >= size)

    def label(self, what: str, value: int) -> str:
        if self.scale == 1:
            return f"{what} {value} bytes"
        return f"{what} {value / self.scale:.2f} {self.unit} ({value} bytes)"


def _draw_buffers(axes, at: FunctionAt, rectangles: Sequence[Rectangle], axis: _Axis, height: int) -> None:
    from matplotlib import colormaps
    from matplotlib.patches import Rectangle as Patch

    bases, colors = _domain_bases(at), colormaps["tab20"]
    for r in rectangles:
        bottom, width = (bases[r.domain] + r.offset) / axis.scale, r.last - r.first + 1
        axes.add_patch(Patch((r.first, bottom), width, r.size / axis.scale, facecolor=colors(r.buffer % 20),
                             edgecolor="black", linewidth=0.6, alpha=0.85))  # fmt: skip
        if r.size >= LABEL_MIN_FRACTION * height:
            axes.text(r.first + width / 2, bottom + r.size / axis.scale / 2, f"#{r.buffer}", ha="center",
                      va="center", fontsize=8)  # fmt: skip
    for domain, base in bases.items():
        if base:
            axes.axhline(base / axis.scale, color="gray", linewidth=0.8, linestyle=(0, (1, 3)))
            axes.text(0, base / axis.scale, f" domain {domain}", va="bottom", fontsize=7, color="gray")


def _draw_lines(axes, at: FunctionAt, pool: int, axis: _Axis) -> None:
    lines = [  # the pool line is the widest, so a bound drawn over it leaves it visible
        (pool, "pool", "tab:red", "-", 3.0),
        (at.lower_bound_bytes, "lower bound (model)", "tab:blue", "--", 1.5),
        (at.in_place_lower_bound_bytes, "lower bound (in place)", "tab:green", ":", 1.5),
    ]
    for value, what, color, style, width in lines:
        if value is not None:
            axes.axhline(value / axis.scale, color=color, linestyle=style, linewidth=width, label=axis.label(what, value))


def _draw_function(axes, at: FunctionAt, rectangles: Sequence[Rectangle], shape: Mapping[str, int] | None) -> None:
    from xhip.report.formats import shape_text

    pool = at.pool_bytes
    if pool is None:
        raise XhipError(f"memory report: @{at.function.name}: the pool size {at.function.pool_size} is not known at this shape")
    height = max([pool, at.lower_bound_bytes or 0, 1])
    axis = _Axis.for_height(height)
    _draw_buffers(axes, at, rectangles, axis, height)
    _draw_lines(axes, at, pool, axis)
    axes.set_xlim(0, max([r.last + 1 for r in rectangles] + [1]) + 1)
    axes.set_ylim(0, height * 1.08 / axis.scale)
    ratio = at.pool_over_bound
    axes.set_title(f"@{at.function.name} at {shape_text(shape)}" + ("" if ratio is None else f": pool / bound = {ratio:.3f}"))
    axes.set_xlabel("op index in the function body (at hip-pool-allocs)")
    axes.set_ylabel("pool bytes" if axis.scale == 1 else f"pool bytes ({axis.unit})")
    axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    axes.grid(True, axis="y", linewidth=0.3)


def report_png(functions: Sequence[FunctionAt], shape: Mapping[str, int] | None) -> bytes:
    """The PNG of `functions` (evaluated reports); an XhipError names the first value not known."""
    require_matplotlib()
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    drawn = [(at, at.rectangles()) for at in functions]
    figure = Figure(figsize=(11, 4.5 * len(drawn)), dpi=110, layout="constrained")
    FigureCanvasAgg(figure)
    for axes, (at, rectangles) in zip(figure.subplots(len(drawn), 1, squeeze=False)[:, 0], drawn):
        _draw_function(axes, at, rectangles, shape)
    out = io.BytesIO()
    figure.savefig(out, format="png")
    return out.getvalue()
