"""Running fuzzer graphs: classify, minimize, save, and whole campaigns.

`check_graph` runs one graph: onnxruntime first on random non-zero data at each
requested binding of the dims (graphs or shapes it refuses, or where its graph
optimizations change its answer, are discarded), then
for each pipeline `xhip.compile(..., sanitize=True)` and a run per shape, each
classified as an `Outcome` kind: pass, wrong-value, sanitizer (a report),
xhip-error (an XhipError where onnxruntime succeeded) or crash (anything else).
`minimize` shrinks a failing graph by cutting it at one tensor (the only output)
and dropping dead nodes and inputs while the failure stays the same kind.
`run_campaign` draws graphs from `xhip.testing.fuzz.graphs` and checks each.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict

import numpy as np
import onnx
import onnxruntime
from onnx import TensorProto, helper

from xhip.api import compile as compile_model
from xhip.diagnostics import XhipError
from xhip.runtime.check import compare, onnxruntime_outputs
from xhip.testing.fuzz import Bindings, Dim, FuzzGraph, graphs
from xhip.testing.models import graph_model

onnxruntime.set_default_logger_severity(4)  # a refused graph is discarded, not logged

FAILURE_KINDS = ("wrong-value", "sanitizer", "xhip-error", "crash")
METADATA_KEY = "xhip.fuzz"
"""metadata_props key of a saved regression: JSON with pipeline, dims, kind, message, issue, expect."""

DEFAULT_BINDINGS: tuple[Bindings, ...] = ({"a": 3, "b": 5, "c": 2}, {"a": 1, "b": 1, "c": 1}, {"a": 0, "b": 2, "c": 3})
"""Shapes every graph runs at: nominal extents, all ones, a zero extent."""


@dataclass(frozen=True)
class Outcome:
    pipeline: str
    bindings: Mapping[str, int]
    kind: str
    """pass, wrong-value, sanitizer, xhip-error or crash."""
    message: str = ""

    @property
    def failed(self) -> bool:
        return self.kind in FAILURE_KINDS


def input_dims(model: onnx.ModelProto) -> dict[str, list[Dim]]:
    return {
        i.name: [d.dim_param or d.dim_value for d in i.type.tensor_type.shape.dim]
        for i in model.graph.input
    }


def feeds_for(model: onnx.ModelProto, bindings: Mapping[str, int], seed: int = 0) -> dict[str, np.ndarray]:
    """Random non-zero inputs at `bindings`: float32 normal values away from 0, int64 in [1, 8)."""
    rng = np.random.default_rng(seed)
    elem_types = {i.name: i.type.tensor_type.elem_type for i in model.graph.input}
    feeds = {}
    for name, dims in input_dims(model).items():
        shape = tuple(bindings[d] if isinstance(d, str) else d for d in dims)
        if elem_types[name] == TensorProto.INT64:
            feeds[name] = rng.integers(1, 8, size=shape).astype(np.int64)
            continue
        values = rng.standard_normal(shape).astype(np.float32)
        feeds[name] = np.where(np.abs(values) < 0.05, np.float32(0.5), values).astype(np.float32)
    return feeds


def _unoptimized_outputs(model: onnx.ModelProto, feeds: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """onnxruntime's outputs with its graph optimizations off (no shape folding)."""
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = onnxruntime.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(names, dict(feeds))))


def references(model: onnx.ModelProto, bindings: Sequence[Mapping[str, int]]) -> list[tuple[Mapping[str, int], dict, dict]]:
    """(bindings, feeds, onnxruntime outputs) for each binding onnxruntime accepts.

    A binding where onnxruntime disagrees with itself is no reference either: its
    optimizations fold a Shape from ONNX's static inference, which can contradict its
    own kernels (NonZero of a scalar: the kernel gives [1, n], inference says [0, n]).
    """
    accepted = []
    for dims in bindings:
        feeds = feeds_for(model, dims)
        try:
            expected = onnxruntime_outputs(model, feeds)
            if compare(_unoptimized_outputs(model, feeds), expected).passed:
                accepted.append((dims, feeds, expected))
        except Exception:  # noqa: BLE001 - onnxruntime refuses this graph or shape: not ours to judge
            continue
    return accepted


def _classify_error(err: Exception) -> str:
    if isinstance(err, XhipError):
        return "sanitizer" if err.message.startswith("sanitizer:") else "xhip-error"
    return "crash"


def _first_line(err: Exception) -> str:
    return f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"[:300]


class RunMode(TypedDict, total=False):
    """The flags of `xhip.compile` that choose how a fuzzer run executes."""

    sanitize: bool
    deferred: bool


SANITIZED: RunMode = {"sanitize": True}
RACY: RunMode = {"deferred": True}
"""The racy order without the sanitizer: kernels queued, host accesses at once, as on a GPU."""


def run_pipeline(model: onnx.ModelProto, pipeline: str | os.PathLike[str], cases, mode: RunMode = SANITIZED) -> list[Outcome]:
    """Compile under `pipeline` (with the sanitizer unless `mode` says otherwise) and run
    each (bindings, feeds, reference)."""
    name = Path(pipeline).name
    try:
        executable = compile_model(model, pipeline, **mode)
    except Exception as err:  # noqa: BLE001 - classified, never hidden
        return [Outcome(name, dims, _classify_error(err), _first_line(err)) for dims, _, _ in cases]
    outcomes = []
    for dims, feeds, expected in cases:
        try:
            result = compare(executable.run(feeds), expected)
        except Exception as err:  # noqa: BLE001
            outcomes.append(Outcome(name, dims, _classify_error(err), _first_line(err)))
            continue
        kind = "pass" if result.passed else "wrong-value"
        outcomes.append(Outcome(name, dims, kind, "; ".join(result.problems)[:300]))
    return outcomes


def check_graph(model: onnx.ModelProto, pipelines: Sequence[str | os.PathLike[str]],
                bindings: Sequence[Mapping[str, int]] = DEFAULT_BINDINGS) -> list[Outcome] | None:
    """Every pipeline's outcomes on `model`, or None when onnxruntime refuses it at every shape."""
    cases = references(model, bindings)
    if not cases:
        return None
    return [outcome for pipeline in pipelines for outcome in run_pipeline(model, pipeline, cases)]


def unreported_races(model: onnx.ModelProto, pipeline: str | os.PathLike[str], sanitized: Sequence[Outcome],
                     bindings: Sequence[Mapping[str, int]] = DEFAULT_BINDINGS) -> list[Outcome]:
    """The racy runs (`RACY`) of `model` that give a wrong value where the sanitized run
    at the same shape (`sanitized`, from `check_graph`) reports nothing."""
    cases = [case for case in references(model, bindings) if case[0] in [o.bindings for o in sanitized]]
    reported = {tuple(o.bindings.items()) for o in sanitized if o.kind == "sanitizer"}
    return [o for o in run_pipeline(model, pipeline, cases, RACY)
            if o.kind == "wrong-value" and tuple(o.bindings.items()) not in reported]


@contextmanager
def private_tempdir() -> Iterator[str]:
    """Route tempfile's folder to a private one for the block (xhip.compile leaves one folder per
    call in the temp folder today, issue 8 item 8) and remove it afterwards."""
    saved = tempfile.tempdir
    with tempfile.TemporaryDirectory(prefix="xhip-fuzz-") as folder:
        tempfile.tempdir = folder
        try:
            yield folder
        finally:
            tempfile.tempdir = saved


# ---------------------------------------------------------------------------------
# Minimizing and saving
# ---------------------------------------------------------------------------------


def _typed_values(model: onnx.ModelProto) -> dict[str, onnx.ValueInfoProto]:
    inferred = onnx.shape_inference.infer_shapes(model)
    return {v.name: v for v in [*inferred.graph.value_info, *inferred.graph.output]}


def cut_at(model: onnx.ModelProto, tensor: str) -> onnx.ModelProto | None:
    """`model` with `tensor` as its only output and everything it does not need removed."""
    typed = _typed_values(model)
    if tensor not in typed:
        return None
    needed, nodes = {tensor}, []
    for node in reversed(model.graph.node):
        if needed & set(node.output):
            nodes.append(node)
            needed |= {i for i in node.input if i}
    nodes.reverse()
    inputs = [i for i in model.graph.input if i.name in needed]
    if not inputs:
        return None
    elem_type = typed[tensor].type.tensor_type.elem_type
    return graph_model(nodes, inputs, [helper.make_tensor_value_info(tensor, elem_type, None)],
                       [t for t in model.graph.initializer if t.name in needed])  # fmt: skip


def _ancestors(model: onnx.ModelProto, tensor: str) -> int:
    cut = cut_at(model, tensor)
    return len(cut.graph.node) if cut is not None else 1 << 30


def minimize(model: onnx.ModelProto, still_fails: Callable[[onnx.ModelProto], bool]) -> onnx.ModelProto:
    """The smallest cut of `model` at one tensor (fewest nodes first) that still fails."""
    candidates = sorted({o for n in model.graph.node for o in n.output if o}, key=lambda t: _ancestors(model, t))
    for tensor in candidates:
        cut = cut_at(model, tensor)
        if cut is not None and len(cut.graph.node) < len(model.graph.node) and still_fails(cut):
            return cut
    return model


def same_failure(pipeline: str | os.PathLike[str], bindings: Mapping[str, int], kind: str) -> Callable[[onnx.ModelProto], bool]:
    """Whether a model fails under `pipeline` at `bindings` in the same way (same kind)."""

    def check(candidate: onnx.ModelProto) -> bool:
        cases = references(candidate, [bindings])
        return bool(cases) and run_pipeline(candidate, pipeline, cases)[0].kind == kind

    return check


def save_regression(model: onnx.ModelProto, outcome: Outcome, folder: Path, issue: str = "", expect: str = "pass") -> Path:
    """Write `model` with the failure recorded in its metadata; the name is stable per content.

    `expect` is the outcome once fixed: `pass`, or `sanitizer` for a real race that the
    sanitizer must report (a race experiment's wrong value)."""
    record = {"pipeline": outcome.pipeline, "dims": dict(outcome.bindings), "kind": outcome.kind,
              "message": outcome.message, "issue": issue, "expect": expect}  # fmt: skip
    del model.metadata_props[:]
    helper.set_model_props(model, {METADATA_KEY: json.dumps(record, sort_keys=True)})
    digest = hashlib.sha256(model.graph.SerializeToString()).hexdigest()[:8]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{Path(outcome.pipeline).stem}-{outcome.kind}-{digest}.onnx"
    onnx.save(model, path)
    return path


def regression_record(model: onnx.ModelProto) -> dict:
    return json.loads({p.key: p.value for p in model.metadata_props}[METADATA_KEY])


# ---------------------------------------------------------------------------------
# Campaigns: many graphs under every pipeline
# ---------------------------------------------------------------------------------

RACE_PIPELINES = ("seed-003.yaml", "reuse-before-host-scalars.yaml")
"""Experiments that reproduce the seed races on purpose: the sanitizer must report each race."""

KNOWN_FINDINGS = (
    ("issue 8 item 11", "sanitizer", r"sanitizer: reading ''memref\.reinterpret_cast''", None),
    ("issue 8 item 12", "wrong-value", r"differs", RACE_PIPELINES),
    ("issue 8 item 12: the experiment's race, reported", "sanitizer",
     r"sanitizer: host write into .* that queued .* has yet to read", RACE_PIPELINES),
    ("issue 8 item 13", "sanitizer", r"reading 'output 'in\d+'' sees bytes .* that nothing wrote", ("seed-003.yaml",)),
)
"""Failure classes seen on main: (label, kind, message regex, pipelines or None for any).
Items of issue 8 name the item (item 12: a value raced under a racy order, which the
sanitizer must report; on seed-003.yaml an aliased output left unwritten, item 13, reads
the same); `new:` ones are findings of this fuzzer that no item covers yet."""


def known_finding(outcome: Outcome) -> str | None:
    """The label of the known failure class `outcome` belongs to, if any."""
    for label, kind, pattern, pipelines in KNOWN_FINDINGS:
        if outcome.kind != kind or not re.search(pattern, outcome.message):
            continue
        if pipelines is None or outcome.pipeline in pipelines:
            return label
    return None


def is_new_finding(outcome: Outcome) -> bool:
    return (known_finding(outcome) or "").startswith("new:")


@dataclass
class Campaign:
    results: list[tuple[FuzzGraph, list[Outcome]]] = field(default_factory=list)
    refused: int = 0
    """Graphs onnxruntime refused at every shape (discarded)."""
    unreported: list[tuple[FuzzGraph, Outcome]] = field(default_factory=list)
    """Under the race experiments: wrong values of the racy order with no sanitizer report."""

    def outcomes(self) -> Iterator[tuple[FuzzGraph, Outcome]]:
        return ((graph, o) for graph, outcomes in self.results for o in outcomes)

    def failures(self, pipeline: str | None = None) -> list[tuple[FuzzGraph, Outcome]]:
        return [(g, o) for g, o in self.outcomes() if o.failed and pipeline in (None, o.pipeline)]

    def summary(self) -> dict[str, dict[str, int]]:
        """Per pipeline: graphs, runs, passed, sanitizer reports, wrong values, errors, crashes."""
        table: dict[str, dict[str, int]] = {}
        for graph, outcomes in self.results:
            for pipeline in dict.fromkeys(o.pipeline for o in outcomes):
                row = table.setdefault(pipeline, dict.fromkeys(("graphs", "runs", "passed", "sanitizer", "wrong-value", "xhip-error", "crash"), 0))
                row["graphs"] += 1
            for o in outcomes:
                row = table[o.pipeline]
                row["runs"] += 1
                row["passed" if o.kind == "pass" else o.kind] += 1
        return table


def run_campaign(count: int, pipelines: Sequence[str | os.PathLike[str]], seed: int = 0, max_steps: int = 8,
                 bindings: Sequence[Mapping[str, int]] = DEFAULT_BINDINGS) -> Campaign:
    """`count` hypothesis-drawn graphs (reproducible per `seed`), each checked under every
    pipeline; under the race experiments also in the racy order without the sanitizer."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hypothesis_seed

    campaign = Campaign()

    @hypothesis_seed(seed)
    @settings(max_examples=count, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(graphs(max_steps=max_steps))
    def one_graph(graph: FuzzGraph) -> None:
        outcomes = check_graph(graph.model, pipelines, bindings)
        if outcomes is None:
            campaign.refused += 1
            return
        campaign.results.append((graph, outcomes))
        for pipeline in (p for p in pipelines if Path(p).name in RACE_PIPELINES):
            sanitized = [o for o in outcomes if o.pipeline == Path(pipeline).name]
            campaign.unreported += [(graph, o) for o in unreported_races(graph.model, pipeline, sanitized, bindings)]

    with private_tempdir():
        one_graph()
    return campaign
