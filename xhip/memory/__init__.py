"""Symbolic sizes and pool planners: pure Python, no IR.

`hip-pool-allocs` describes each allocation of a dominance domain as a `Buffer`
(its byte size as a `SizeExpr` over the SSA values of its dims, and its live
interval), asks one of `PLANNERS` for a `Placement`, and emits the offsets and the
pool size with `SizeExpr.emit`. Tests and the runtime sanitizer check placements
with `check_layout`; reports divide pool sizes by `lower_bound`, evaluated on the
model's own buffers (`xhip.memory.model_bound`, recorded by hip-record-model-buffers
before any reuse pass).
"""

from xhip.memory.buffers import Buffer, Placement, Region
from xhip.memory.layout import check_layout, lower_bound, lower_bound_expr
from xhip.memory.planners import (
    PLANNERS,
    Planner,
    plan_grouped,
    plan_lifetime_only,
    plan_stacked,
    plan_tree,
)
from xhip.memory.size_expr import SizeEmitter, SizeExpr

__all__ = [
    "PLANNERS",
    "Buffer",
    "Placement",
    "Planner",
    "Region",
    "SizeEmitter",
    "SizeExpr",
    "check_layout",
    "lower_bound",
    "lower_bound_expr",
    "plan_grouped",
    "plan_lifetime_only",
    "plan_stacked",
    "plan_tree",
]
