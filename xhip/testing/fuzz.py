"""Random valid ONNX graphs with symbolic dims, run under a pipeline and checked.

`graphs()` is a hypothesis strategy of `FuzzGraph`s: a few float inputs over the
symbolic dims a, b, c (some axes static 1, so broadcast chains happen), then a
chain of nodes drawn from the supported ops, each consuming any earlier tensor
(fan-out), with graph outputs that are also consumed inside. Shape-only
subgraphs (Shape, Gather, arithmetic, Concat, Range, Expand, Reshape by a computed
shape) and data-dependent ones (NonZero) are among the steps.

`check_graph` runs one graph: onnxruntime first on random non-zero data at each
requested binding of the dims (graphs or shapes it refuses are discarded), then
for each pipeline `xhip.compile(..., sanitize=True)` and a run per shape, each
classified as an `Outcome` kind: pass, wrong-value, sanitizer (a report),
xhip-error (an XhipError where onnxruntime succeeded) or crash (anything else).
`minimize` shrinks a failing graph by cutting it at one tensor (the only output)
and dropping dead nodes and inputs while the failure stays the same kind.
tests/test_fuzz.py, tests/test_regressions.py and benchmarks/fuzz.py use it.
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

import numpy as np
import onnx
import onnxruntime
from hypothesis import strategies as st
from onnx import TensorProto, helper

import xhip
from xhip.diagnostics import XhipError
from xhip.runtime.check import compare, onnxruntime_outputs
from xhip.testing.models import graph_model

onnxruntime.set_default_logger_severity(4)  # a refused graph is discarded, not logged

SYMBOLS = ("a", "b", "c")
Dim = str | int
Shape = tuple[Dim, ...]
Bindings = dict[str, int]

FAILURE_KINDS = ("wrong-value", "sanitizer", "xhip-error", "crash")
METADATA_KEY = "xhip.fuzz"
"""metadata_props key of a saved regression: JSON with pipeline, dims, kind, message, issue, expect."""


@dataclass
class _Tensor:
    name: str
    shape: Shape
    dtype: int = TensorProto.FLOAT


@dataclass
class GraphBuilder:
    """The graph under construction: nodes, constants and the float tensors so far."""

    inputs: list[_Tensor] = field(default_factory=list)
    nodes: list[onnx.NodeProto] = field(default_factory=list)
    initializers: list[onnx.TensorProto] = field(default_factory=list)
    floats: list[_Tensor] = field(default_factory=list)
    others: list[_Tensor] = field(default_factory=list)
    """Non-float results (int64 shapes, NonZero indices): candidate outputs only."""

    def fresh(self, stem: str) -> str:
        return f"{stem}{len(self.nodes)}_{len(self.initializers)}"

    def const(self, values: Sequence[int] | Sequence[float], dtype: int = TensorProto.INT64, dims=None) -> str:
        name = self.fresh("k")
        shape = [len(values)] if dims is None else list(dims)
        self.initializers.append(helper.make_tensor(name, dtype, shape, list(values)))
        return name

    def node(self, op: str, inputs: Sequence[str], shape: Shape | None, dtype: int = TensorProto.FLOAT, **attrs) -> _Tensor:
        out = _Tensor(self.fresh(op.lower()), shape if shape is not None else (), dtype)
        self.nodes.append(helper.make_node(op, list(inputs), [out.name], name=f"n{len(self.nodes)}_{op}", **attrs))
        if dtype == TensorProto.FLOAT and shape is not None:
            self.floats.append(out)
        else:
            self.others.append(out)
        return out


@dataclass(frozen=True)
class FuzzGraph:
    model: onnx.ModelProto
    steps: tuple[str, ...]

    def describe(self) -> str:
        return " -> ".join(self.steps)


def _broadcast(a: Shape, b: Shape) -> Shape | None:
    """ONNX broadcast of two symbolic shapes, or None when it is not certain to hold."""
    out: list[Dim] = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            return None
    return tuple(reversed(out))


def _partner(draw, g: GraphBuilder, t: _Tensor) -> tuple[str, Shape]:
    """A second operand that broadcasts with `t`: an earlier tensor, `t` itself, or a constant."""
    compatible = [u for u in g.floats if _broadcast(t.shape, u.shape) is not None]
    choice = draw(st.integers(0, 2))
    if choice == 0 and compatible:
        u = draw(st.sampled_from(compatible))
        return u.name, u.shape
    if choice == 1:
        return t.name, t.shape
    rank = draw(st.integers(0, len(t.shape)))
    dims = [1] * rank
    return g.const([draw(st.sampled_from([0.5, 1.5, -2.0]))] * 1, TensorProto.FLOAT, dims), tuple(dims)


def _pick(draw, tensors: Sequence[_Tensor], wanted: Callable[[_Tensor], bool] = lambda t: True) -> _Tensor | None:
    """A tensor that satisfies `wanted`: the newest one half the time, so steps form chains."""
    chosen = [t for t in tensors if wanted(t)]
    if not chosen:
        return None
    return chosen[-1] if draw(st.booleans()) else draw(st.sampled_from(chosen))


def _step_unary(draw, g: GraphBuilder) -> str | None:
    t = _pick(draw, g.floats)
    op = draw(st.sampled_from(["Relu", "Neg", "Tanh", "Sigmoid", "Abs", "Identity"]))
    g.node(op, [t.name], t.shape)
    return op


def _step_binary(draw, g: GraphBuilder) -> str | None:
    t = _pick(draw, g.floats)
    other, other_shape = _partner(draw, g, t)
    op = draw(st.sampled_from(["Add", "Sub", "Mul", "Max", "Min"]))
    operands = [t.name, other] if draw(st.booleans()) else [other, t.name]
    g.node(op, operands, _broadcast(t.shape, other_shape))
    return op


def _step_where(draw, g: GraphBuilder) -> str | None:
    t = _pick(draw, g.floats)
    other, other_shape = _partner(draw, g, t)
    mask = g.node("Greater", [t.name, g.const([0.0], TensorProto.FLOAT, [])], t.shape, TensorProto.BOOL)
    g.node("Where", [mask.name, t.name, other], _broadcast(t.shape, other_shape))
    return "Where"


def _step_matmul(draw, g: GraphBuilder) -> str | None:
    t = _pick(draw, g.floats, lambda t: len(t.shape) == 2)
    if t is None:
        return None
    if draw(st.booleans()):
        g.node("Gemm", [t.name, t.name, g.const([0.25], TensorProto.FLOAT, [1])], (t.shape[0], t.shape[0]),
               transB=1, alpha=0.5, beta=draw(st.sampled_from([0.0, 1.0])))
        return "Gemm"
    transposed = g.node("Transpose", [t.name], (t.shape[1], t.shape[0]), perm=[1, 0])
    first, second = (t, transposed) if draw(st.booleans()) else (transposed, t)
    g.node("MatMul", [first.name, second.name], (first.shape[0], second.shape[1]))
    return "MatMul"


def _step_normalize(draw, g: GraphBuilder) -> str | None:
    t = _pick(draw, g.floats, lambda t: len(t.shape) >= 1)
    if t is None:
        return None
    if draw(st.booleans()):
        g.node("Softmax", [t.name], t.shape, axis=-1)
        return "Softmax"
    last = t.shape[-1]
    if not isinstance(last, int):
        return None
    scale = g.const([1.5] * last, TensorProto.FLOAT, [last])
    g.node("LayerNormalization", [t.name, scale], t.shape, axis=-1, epsilon=1e-5)
    return "LayerNormalization"


def _step_reduce(draw, g: GraphBuilder) -> str | None:
    t = _pick(draw, g.floats, lambda t: len(t.shape) >= 1)
    if t is None:
        return None
    op = draw(st.sampled_from(["ReduceSum", "ReduceMean", "ReduceMax"]))
    keep = draw(st.sampled_from([0, 1]))
    if draw(st.booleans()):
        axes = list(range(len(t.shape)))
    else:
        axes = [draw(st.integers(0, len(t.shape) - 1))]
    shape = tuple(1 if i in axes else d for i, d in enumerate(t.shape)) if keep else tuple(d for i, d in enumerate(t.shape) if i not in axes)
    if op == "ReduceMax" and any(t.shape[i] not in (1,) for i in axes):
        op = "ReduceSum"  # ReduceMax over an empty axis has no value; onnxruntime refuses it
    g.node(op, [t.name, g.const(axes)], shape, keepdims=keep)
    return op


def _step_reshape(draw, g: GraphBuilder) -> str | None:
    t = _pick(draw, g.floats)
    form = draw(st.sampled_from(["flatten", "keep-first", "like-other", "unsqueeze", "squeeze"]))
    if form == "flatten":
        g.node("Reshape", [t.name, g.const([-1])], ("?",))
    elif form == "keep-first" and len(t.shape) >= 2:
        g.node("Reshape", [t.name, g.const([0, -1])], (t.shape[0], "?"))
    elif form == "like-other":
        shape = g.node("Shape", [t.name], (len(t.shape),), TensorProto.INT64)
        g.node("Reshape", [t.name, shape.name], t.shape)
    elif form == "unsqueeze" and draw(st.booleans()):
        g.node("Unsqueeze", [t.name, g.const([0, 1])], (1, 1) + t.shape)
    elif form == "unsqueeze":
        axis = draw(st.integers(0, len(t.shape)))
        g.node("Unsqueeze", [t.name, g.const([axis])], t.shape[:axis] + (1,) + t.shape[axis:])
    else:
        ones = [i for i, d in enumerate(t.shape) if d == 1]
        if not ones:
            return None
        if all(isinstance(d, int) for d in t.shape) and draw(st.booleans()):
            # Squeeze without axes needs every dim static (xhip's documented limit).
            g.node("Squeeze", [t.name], tuple(d for d in t.shape if d != 1))
            return "Squeeze:all"
        axis = draw(st.sampled_from(ones))
        g.node("Squeeze", [t.name, g.const([axis])], t.shape[:axis] + t.shape[axis + 1:])
    return f"Reshape:{form}"


def _step_layout(draw, g: GraphBuilder) -> str | None:
    t = _pick(draw, g.floats, lambda t: len(t.shape) >= 1)
    if t is None:
        return None
    axis = draw(st.integers(0, len(t.shape) - 1))
    form = draw(st.sampled_from(["Transpose", "Concat", "Split", "Slice", "Gather"]))
    if form == "Transpose":
        perm = draw(st.permutations(range(len(t.shape))))
        g.node("Transpose", [t.name], tuple(t.shape[p] for p in perm), perm=list(perm))
    elif form == "Concat":
        same = _pick(draw, g.floats, lambda u: u.shape == t.shape)
        g.node("Concat", [t.name, same.name], t.shape[:axis] + ("?",) + t.shape[axis + 1:], axis=axis)
    elif form == "Split":
        out = [g.fresh("split"), g.fresh("split") + "b"]
        g.nodes.append(helper.make_node("Split", [t.name], out, name=f"n{len(g.nodes)}_Split", axis=axis, num_outputs=2))
        for name in out:
            g.floats.append(_Tensor(name, t.shape[:axis] + ("?",) + t.shape[axis + 1:]))
    elif form == "Slice":
        start, end = draw(st.sampled_from([(0, 1), (1, 2**62), (-1, 2**62), (0, -1)]))
        g.node("Slice", [t.name, g.const([start]), g.const([end]), g.const([axis])], t.shape[:axis] + ("?",) + t.shape[axis + 1:])
    else:
        scalar = draw(st.booleans())
        index = g.const([0], dims=[] if scalar else [1])
        g.node("Gather", [t.name, index], t.shape[:axis] + (() if scalar else (1,)) + t.shape[axis + 1:], axis=axis)
    return form


def _dim_scalar(draw, g: GraphBuilder, t: _Tensor) -> str:
    """An int64 scalar: one of t's dims, read from Shape(t) on the host."""
    shape = g.node("Shape", [t.name], (len(t.shape),), TensorProto.INT64)
    return g.node("Gather", [shape.name, g.const([draw(st.integers(0, len(t.shape) - 1))], dims=[])], (), TensorProto.INT64).name


def _step_shape_math(draw, g: GraphBuilder) -> str | None:
    t = _pick(draw, g.floats, lambda t: len(t.shape) >= 1)
    if t is None:
        return None
    form = draw(st.sampled_from(["Range", "Expand", "ConstantOfShape", "Cast"]))
    if form == "Range":
        extent = _dim_scalar(draw, g, t)
        if draw(st.booleans()):
            extent = g.node("Add", [extent, g.const([1], dims=[])], (), TensorProto.INT64).name
        r = g.node("Range", [g.const([0], dims=[]), extent, g.const([1], dims=[])], ("?",), TensorProto.INT64)
        g.node("Cast", [r.name], ("?",), to=TensorProto.FLOAT)
    elif form == "Expand":
        target = _pick(draw, g.floats, lambda u: _broadcast(t.shape, u.shape) is not None)
        shape = g.node("Shape", [target.name], (len(target.shape),), TensorProto.INT64)
        g.node("Expand", [t.name, shape.name], _broadcast(t.shape, target.shape))
    elif form == "ConstantOfShape":
        shape = g.node("Shape", [t.name], (len(t.shape),), TensorProto.INT64)
        filled = g.node("ConstantOfShape", [shape.name], t.shape, value=helper.make_tensor("v", TensorProto.FLOAT, [1], [0.75]))
        g.node("Mul", [filled.name, t.name], t.shape)
    else:
        as_int = g.node("Cast", [t.name], t.shape, TensorProto.INT64, to=TensorProto.INT64)
        g.node("Cast", [as_int.name], t.shape, to=TensorProto.FLOAT)
    return form


def _step_nonzero(draw, g: GraphBuilder) -> str | None:
    t = _pick(draw, g.floats)
    mask = g.node("Greater", [t.name, g.const([0.0], TensorProto.FLOAT, [])], t.shape, TensorProto.BOOL)
    indices = g.node("NonZero", [mask.name], (len(t.shape), "?"), TensorProto.INT64)
    g.node("Cast", [indices.name], (len(t.shape), "?"), to=TensorProto.FLOAT)
    return "NonZero"


def _step_payload_scalars(draw, g: GraphBuilder) -> str | None:
    """Item 12's shape: Cast(Gather(I, k)) / Cast(Gather(Shape(t), j)), I an int64 input (host-fed scalars)."""
    t = _pick(draw, g.floats, lambda t: len(t.shape) >= 1)
    if t is None:
        return None
    table = _Tensor(f"in{len(g.inputs)}", (4,), TensorProto.INT64)
    g.inputs.append(table)
    picked = g.node("Gather", [table.name, g.const([draw(st.integers(-4, 3))], dims=[])], (), TensorProto.INT64)
    numerator = g.node("Cast", [picked.name], (), to=TensorProto.FLOAT)
    denominator = g.node("Cast", [_dim_scalar(draw, g, t)], (), to=TensorProto.FLOAT)
    g.node("Div", [numerator.name, denominator.name], ())
    return "PayloadScalars"


STEPS = (_step_payload_scalars, _step_unary, _step_binary, _step_where, _step_matmul, _step_normalize, _step_reduce,
         _step_reshape, _step_layout, _step_shape_math, _step_nonzero)  # fmt: skip


@st.composite
def input_shapes(draw) -> list[Shape]:
    """1-3 inputs of rank 0-3 over the symbols and static 1 (broadcast partners, squeezable axes)."""
    count = draw(st.integers(1, 3))
    shapes = []
    for _ in range(count):
        rank = draw(st.sampled_from([1, 1, 2, 2, 2, 3, 3, 0]))  # rank 0 rarely: it fails alone today
        shapes.append(tuple(draw(st.sampled_from(SYMBOLS + (1,))) for _ in range(rank)))
    return shapes


@st.composite
def graphs(draw, max_steps: int = 8) -> FuzzGraph:
    g = GraphBuilder()
    for i, shape in enumerate(draw(input_shapes())):
        t = _Tensor(f"in{i}", shape)
        g.inputs.append(t)
        g.floats.append(t)
    steps: list[str] = []
    for _ in range(draw(st.integers(3, max_steps))):
        name = draw(st.sampled_from(STEPS))(draw, g)
        if name is not None:
            steps.append(name)
    results = [t for t in g.floats + g.others if t not in g.inputs]
    if not results:
        g.node("Relu", [g.inputs[0].name], g.inputs[0].shape)
        results = g.floats[-1:]
    outputs = {results[-1].name: results[-1]}
    for extra in draw(st.lists(st.sampled_from(results), max_size=2)):
        outputs.setdefault(extra.name, extra)
    model = graph_model(
        g.nodes,
        [helper.make_tensor_value_info(t.name, t.dtype, list(t.shape)) for t in g.inputs],
        [helper.make_tensor_value_info(t.name, t.dtype, None) for t in outputs.values()],
        g.initializers,
    )
    return FuzzGraph(model, tuple(steps))


# ---------------------------------------------------------------------------------
# Running and classifying
# ---------------------------------------------------------------------------------

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


def references(model: onnx.ModelProto, bindings: Sequence[Mapping[str, int]]) -> list[tuple[Mapping[str, int], dict, dict]]:
    """(bindings, feeds, onnxruntime outputs) for each binding onnxruntime accepts."""
    accepted = []
    for dims in bindings:
        feeds = feeds_for(model, dims)
        try:
            accepted.append((dims, feeds, onnxruntime_outputs(model, feeds)))
        except Exception:  # noqa: BLE001 - onnxruntime refuses this graph or shape: not ours to judge
            continue
    return accepted


def _classify_error(err: Exception) -> str:
    if isinstance(err, XhipError):
        return "sanitizer" if err.message.startswith("sanitizer:") else "xhip-error"
    return "crash"


def _first_line(err: Exception) -> str:
    return f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"[:300]


def run_pipeline(model: onnx.ModelProto, pipeline: str | os.PathLike[str], cases) -> list[Outcome]:
    """Compile under `pipeline` with the sanitizer and run each (bindings, feeds, reference)."""
    name = Path(pipeline).name
    try:
        executable = xhip.compile(model, pipeline, sanitize=True)
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

KNOWN_FINDINGS = (
    ("issue 8 item 11", "sanitizer", r"sanitizer: reading ''memref\.reinterpret_cast''"),
    ("new: a rank-0 value reaches an elementwise kernel as [1]", "xhip-error", r"kernel: input #\d+ of shape \[1\] does not broadcast to \[\]"),
    ("new: NonZero of a rank-0 tensor gives [0, n] (onnxruntime [1, n])", "wrong-value", r"output 'nonzero\w*' is \[0, 1\] int64, onnxruntime gives \[1, 1\]"),
)
"""Failure classes seen on main: (label, kind, message regex). Items of issue 8 name the item;
`new:` ones are findings of this fuzzer that no item of issue 8 covers yet."""


def known_finding(outcome: Outcome) -> str | None:
    for label, kind, pattern in KNOWN_FINDINGS:
        if outcome.kind == kind and re.search(pattern, outcome.message):
            return label
    return None


RACE_PIPELINES = ("seed-003.yaml", "reuse-before-host-scalars.yaml")
"""Experiments that reproduce the seed races on purpose: the sanitizer must report each race."""


@dataclass
class Campaign:
    results: list[tuple[FuzzGraph, list[Outcome]]] = field(default_factory=list)
    refused: int = 0
    """Graphs onnxruntime refused at every shape (discarded)."""

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
    """`count` hypothesis-drawn graphs (reproducible per `seed`), each checked under every pipeline."""
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
        else:
            campaign.results.append((graph, outcomes))

    with private_tempdir():
        one_graph()
    return campaign
