"""The memory report as JSON and as Markdown.

JSON (`report_dict`): per function its buffers (index, domain, live interval
`first..last` in op positions at hip-pool-allocs, size and offset as expressions
and, at the report shape, in bytes), its domains' pool sizes, the pool of the
whole function, both honest bounds and pool / bound; a number the shape does not
determine is null. The symbolic half, with the dims
rules, is enough to rebuild the report (`report_from_dict`) and evaluate it
again at another shape.

Markdown (`report_markdown`): the same as one table row per buffer and a
summary table (pools, bounds, pool / bound) per function.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from xhip.memory.model_bound import parse_size
from xhip.report.memory import RUN_TIME, FunctionAt, FunctionMemory, MemoryReport, Observed, ReportBuffer

REPORT_KIND = "xhip memory report"
REPORT_VERSION = 1


def _text(expr: object) -> str | None:
    return None if expr is None else str(expr)


def _text_or_run_time(expr: object) -> str:
    """A size or offset; one planned at run time (`hip.plan_pool`) has no expression."""
    return RUN_TIME if expr is None else str(expr)


def _expr_or_run_time(text: str):
    return None if text == RUN_TIME else parse_size(text)


def _buffer_dict(at: FunctionAt, buffer: ReportBuffer) -> dict[str, Any]:
    return {
        "index": buffer.index,
        "domain": buffer.domain,
        "first": buffer.first,
        "last": buffer.last,
        "size": str(buffer.size),
        "size_bytes": at.size_bytes(buffer),
        "offset": _text_or_run_time(buffer.offset),
        "offset_bytes": at.offset_bytes(buffer),
    }


def _function_dict(at: FunctionAt) -> dict[str, Any]:
    memory = at.function
    return {
        "name": memory.name,
        "alignment": memory.alignment,
        "dims": dict(sorted(at.dims.items())),
        "dim_rules": memory.dim_rules,
        "buffers": [_buffer_dict(at, b) for b in memory.buffers],
        "domains": [
            {"id": d, "pool": memory.pool_of.get(d, d), "pool_size": _text_or_run_time(size),
             "pool_bytes": at.pool_bytes_of[d]}
            for d, size in memory.pools.items()
        ],  # fmt: skip
        "pool_size": _text_or_run_time(memory.pool_size),
        "pool_bytes": at.pool_bytes,
        "lower_bound": _text(memory.lower_bound),
        "lower_bound_bytes": at.lower_bound_bytes,
        "in_place_lower_bound": _text(memory.in_place_lower_bound),
        "in_place_lower_bound_bytes": at.in_place_lower_bound_bytes,
        "bound_dim_rules": memory.bound_dim_rules,
        "pool_over_bound": at.pool_over_bound,
        "kv_cache_bytes": dict(at.observed.caches),
    }


def report_dict(
    report: MemoryReport, shape: Mapping[str, int] | None, observed: Mapping[str, Observed] | None = None
) -> dict[str, Any]:
    """The JSON form at `shape` (None: expressions only, and the numbers of static sizes)."""
    return {
        "report": REPORT_KIND,
        "version": REPORT_VERSION,
        "report_shape": None if shape is None else dict(shape),
        "functions": [_function_dict(at) for at in report.at(shape or {}, observed)],
    }


def _size_or_none(text: str | None):
    return None if text is None else parse_size(text)


def _function_from_dict(entry: Mapping[str, Any]) -> FunctionMemory:
    buffers = tuple(
        ReportBuffer(
            b["index"], parse_size(b["size"]), _expr_or_run_time(b["offset"]), b["first"], b["last"], b["domain"]
        )
        for b in entry["buffers"]
    )
    return FunctionMemory(
        entry["name"],
        entry["alignment"],
        buffers,
        {d["id"]: _expr_or_run_time(d["pool_size"]) for d in entry["domains"]},
        entry["dim_rules"],
        _size_or_none(entry["lower_bound"]),
        _size_or_none(entry["in_place_lower_bound"]),
        entry["bound_dim_rules"],
        {d["id"]: d.get("pool", d["id"]) for d in entry["domains"]},
    )


def report_from_dict(data: Mapping[str, Any]) -> MemoryReport:
    """The report a `report_dict` was made of; a ValueError if `data` is not one."""
    if data.get("report") != REPORT_KIND or data.get("version") != REPORT_VERSION:
        raise ValueError(f"not an {REPORT_KIND}, version {REPORT_VERSION}")
    try:
        return MemoryReport(tuple(_function_from_dict(entry) for entry in data["functions"]))
    except (KeyError, TypeError) as err:
        raise ValueError(f"malformed {REPORT_KIND}: {err!r}") from None


# -- Markdown ----------------------------------------------------------------------------


def _bytes(value: int | None) -> str:
    return "-" if value is None else str(value)


def _cells(*cells: object) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |\n"


def _code(expr: object) -> str:
    return "-" if expr is None else f"`{expr}`"


def _planned_code(expr: object) -> str:
    """An offset or pool size: None is one `hip.plan_pool` plans at run time."""
    return f"`{_text_or_run_time(expr)}`"


def _buffer_table(at: FunctionAt) -> str:
    text = _cells("buffer", "domain", "live (ops)", "size", "size bytes", "offset", "offset bytes")
    text += _cells(*["---"] * 7)
    for b in at.function.buffers:
        text += _cells(
            f"#{b.index}", b.domain, f"{b.first}..{b.last}",
            _code(b.size), _bytes(at.size_bytes(b)), _planned_code(b.offset), _bytes(at.offset_bytes(b)),
        )  # fmt: skip
    return text


def _summary_table(at: FunctionAt) -> str:
    memory = at.function
    text = _cells("", "expression", "bytes") + _cells("---", "---", "---")
    if len(memory.pools) > 1:
        for domain, size in memory.pools.items():
            text += _cells(f"pool, domain {domain}", _planned_code(size), _bytes(at.pool_bytes_of[domain]))
    text += _cells("pool", _planned_code(memory.pool_size), _bytes(at.pool_bytes))
    text += _cells("lower bound (model)", _code(memory.lower_bound), _bytes(at.lower_bound_bytes))
    text += _cells("lower bound (in place)", _code(memory.in_place_lower_bound), _bytes(at.in_place_lower_bound_bytes))
    ratio = at.pool_over_bound
    text += _cells("pool / bound", "", "-" if ratio is None else f"{ratio:.3f}")
    for label, nbytes in at.observed.caches.items():  # outside the pools: the caller's buffers
        text += _cells(f"KV {label} (at capacity)", "", _bytes(nbytes))
    return text


def shape_text(shape: Mapping[str, int] | None) -> str:
    return "no report shape" if shape is None else ", ".join(f"{k}={v}" for k, v in shape.items()) or "static shapes"


def report_markdown(
    report: MemoryReport, shape: Mapping[str, int] | None, observed: Mapping[str, Observed] | None = None
) -> str:
    sections = []
    for at in report.at(shape or {}, observed):
        sections.append(
            f"## @{at.function.name} at {shape_text(shape)}\n\n"
            f"{len(at.function.buffers)} pooled buffers, {at.function.alignment}-byte aligned; "
            "live intervals are op positions in the function body at hip-pool-allocs.\n\n"
            f"{_buffer_table(at)}\n{_summary_table(at)}"
        )
    return "# Memory report\n\n" + "\n".join(sections)
