"""What a run did, for tables and JSON (`xhip-run --report`).

The counts and times are the run's own. The memory bounds (the model's max-live bound,
its in-place variant, the merged IR's) are computed when the report is read, not by the
run: they cost more host time than a launch, and most runs are never reported on.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from xhip.analysis.liveness import Interval, max_live_sum
from xhip.analysis.model_buffers import RecordedBuffers
from xhip.memory.model_bound import HonestBounds
from xhip.runtime.buffers import MemRef


@dataclass
class Report:
    """One run's figures."""

    backend: str = ""
    """What ran the device work (`auto` resolved): e.g. 'cuda: NVIDIA H200 (sm_90)'."""
    compute_precision: str = ""
    """The float the model computed in where a pass narrowed it ('float16'); '' as declared."""
    pool_bytes: int = 0
    host_scratch_bytes: int = 0
    cache_bytes: int = 0
    """The KV cache buffers the run's outputs live in (hip.cache_append), at their capacity:
    the caller's memory, which the pools do not count."""
    kernel_launches: int = 0
    readbacks: int = 0
    syncs: int = 0
    event_waits: int = 0
    kernel_compiles: int = 0
    """Translation units the runtime compiler built for this executable, at its construction
    (0 once the compile cache holds every kernel it needs); runs compile nothing."""
    outputs: dict[str, dict[str, object]] = field(default_factory=dict)
    check: dict[str, object] | None = None
    compile_s: float = 0.0
    run_ms: float = 0.0
    replayed: bool = False
    """Whether the run replayed a captured graph (the same input shapes ran twice before)."""
    class_graph: str = ""
    """A run that was not replayed: "updated" when its work ran through a graph captured at
    other input shapes with `graph_nodes_updated` of its nodes set to this run's launches,
    "captured" when it was captured into such a graph, "" when it was queued launch by launch."""
    graph_nodes_updated: int = 0
    traced: bool = False
    """Whether the run went through a traced run of its class of shapes (`xhip.runtime.trace`)
    rather than the interpreted launch program."""
    replay: str = ""
    """Why runs of this executable never replay ("" when they can, or graphs are off)."""
    memory: MemoryFigures | None = field(default=None, repr=False)
    """Where the bounds come from, computed when read (None: no run yet)."""

    @property
    def lower_bound_bytes(self) -> int | None:
        """The model's own max-live bound: every intermediate its own buffer, before any reuse
        pass (hip-record-model-buffers), 256-byte aligned like the pool. Intermediates that
        hip-fuse-elementwise keeps in registers inside one kernel are no buffers and not counted
        (pipelines/experiments/no-fusion.yaml gives the bound with every ONNX intermediate).
        None when the module records no model buffers or a size needs a dim the inputs do not bind."""
        bounds = self.memory.honest if self.memory else None
        return bounds.lower if bounds else None

    @property
    def in_place_lower_bound_bytes(self) -> int | None:
        """The same bound if every op that may write over its dying input (MAY_ALIAS_INPUT) did."""
        bounds = self.memory.honest if self.memory else None
        return bounds.in_place if bounds else None

    @property
    def merged_lower_bound_bytes(self) -> int | None:
        """Max-live of the pooled buffers of the final IR: the bound of the already-merged
        program (after hip-optimize-memrefs), not of the model."""
        return self.memory.merged if self.memory else None

    @property
    def pool_over_bound(self) -> float | None:
        """pool_bytes / lower_bound_bytes: what reports, tests and benchmarks quote."""
        lower = self.lower_bound_bytes
        return self.pool_bytes / lower if lower else None

    def as_dict(self) -> dict[str, object]:
        figures = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "memory"}
        bounds = ("lower_bound_bytes", "in_place_lower_bound_bytes", "merged_lower_bound_bytes", "pool_over_bound")
        return {**figures, **{name: getattr(self, name) for name in bounds}}


class MemoryFigures:
    """The bounds of one run's memory, each computed once, when first read."""

    def __init__(
        self,
        model_buffers: RecordedBuffers | None,
        symbols: Mapping[str, int],
        alignment: int,
        registers: Sequence[object],
        pooled: Mapping[Any, int],  # keyed by IR values, which this module only passes through
        intervals: Mapping[Any, Interval],
    ):
        self._model_buffers, self._symbols, self._alignment = model_buffers, dict(symbols), alignment
        self._registers, self._pooled, self._intervals = registers, pooled, intervals

    @functools.cached_property
    def honest(self) -> HonestBounds | None:
        buffers = self._model_buffers
        return buffers.bounds(self._symbols, self._alignment) if buffers else None

    @functools.cached_property
    def merged(self) -> int | None:
        """The most aligned pooled bytes of the final IR live at one program point."""
        return self._merged()

    def _merged(self) -> int | None:
        if not self._pooled:
            return None
        sizes = {}
        for root, slot in self._pooled.items():
            value = self._registers[slot]
            nbytes = value.nbytes_spanned if isinstance(value, MemRef) else 0
            sizes[root] = -(-nbytes // self._alignment) * self._alignment
        return max_live_sum(self._intervals, sizes)
