"""Random valid ONNX graphs with symbolic dims from the ops xhip supports (a hypothesis strategy).

`graphs()` is a hypothesis strategy of `FuzzGraph`s: a few float inputs over the
symbolic dims a, b, c (some axes static 1, so broadcast chains happen), then a
chain of nodes drawn from the supported ops, each consuming any earlier tensor
(fan-out), with graph outputs that are also consumed inside (and now and then a
graph input that is also an output). Shape-only
subgraphs (Shape, Gather, arithmetic, Concat, Range, Expand, Reshape by a computed
shape), data-dependent ones (NonZero) and host-fed payload scalars are among the steps.

xhip/testing/fuzz_runs.py runs, classifies and minimizes them (tests/test_fuzz.py,
tests/test_regressions.py and benchmarks/fuzz.py use both).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import onnx
from hypothesis import strategies as st
from onnx import TensorProto, helper

from xhip.testing.models import graph_model

SYMBOLS = ("a", "b", "c")
Dim = str | int
Shape = tuple[Dim, ...]
Bindings = dict[str, int]


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
    return g.const([draw(st.sampled_from([0.5, 1.5, -2.0]))], TensorProto.FLOAT, dims), tuple(dims)


def _pick(draw, tensors: Sequence[_Tensor], wanted: Callable[[_Tensor], bool] = lambda t: True) -> _Tensor | None:
    """A tensor that satisfies `wanted`: the newest one half the time, so steps form chains."""
    chosen = [t for t in tensors if wanted(t)]
    if not chosen:
        return None
    return chosen[-1] if draw(st.booleans()) else draw(st.sampled_from(chosen))


def _take(draw, tensors: Sequence[_Tensor], wanted: Callable[[_Tensor], bool] = lambda t: True) -> _Tensor:
    """`_pick` where one is sure to qualify: the graph's inputs are floats, and a tensor
    matches the shape (or broadcasts with the shape) it has itself."""
    picked = _pick(draw, tensors, wanted)
    assert picked is not None
    return picked


def _step_unary(draw, g: GraphBuilder) -> str | None:
    t = _take(draw, g.floats)
    op = draw(st.sampled_from(["Relu", "Neg", "Tanh", "Sigmoid", "Abs", "Identity"]))
    g.node(op, [t.name], t.shape)
    return op


def _step_binary(draw, g: GraphBuilder) -> str | None:
    t = _take(draw, g.floats)
    other, other_shape = _partner(draw, g, t)
    op = draw(st.sampled_from(["Add", "Sub", "Mul", "Max", "Min"]))
    operands = [t.name, other] if draw(st.booleans()) else [other, t.name]
    g.node(op, operands, _broadcast(t.shape, other_shape))
    return op


def _step_where(draw, g: GraphBuilder) -> str | None:
    t = _take(draw, g.floats)
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
    if op == "ReduceMax" and any(t.shape[i] != 1 for i in axes):
        op = "ReduceSum"  # ReduceMax over an axis that may be empty has no value; onnxruntime refuses it
    g.node(op, [t.name, g.const(axes)], shape, keepdims=keep)
    return op


def _step_reshape(draw, g: GraphBuilder) -> str | None:
    t = _take(draw, g.floats)
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
        same = _take(draw, g.floats, lambda u: u.shape == t.shape)
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
        target = _take(draw, g.floats, lambda u: _broadcast(t.shape, u.shape) is not None)
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
    t = _take(draw, g.floats)
    mask = g.node("Greater", [t.name, g.const([0.0], TensorProto.FLOAT, [])], t.shape, TensorProto.BOOL)
    # One index row per input dim; a scalar reads as a 1-element vector (one row).
    rows = max(len(t.shape), 1)
    indices = g.node("NonZero", [mask.name], (rows, "?"), TensorProto.INT64)
    g.node("Cast", [indices.name], (rows, "?"), to=TensorProto.FLOAT)
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
    if draw(st.sampled_from(range(8))) == 3:  # now and then (hypothesis favours 0) an input is also an output
        outputs.setdefault(g.inputs[0].name, g.inputs[0])
    model = graph_model(
        g.nodes,
        [helper.make_tensor_value_info(t.name, t.dtype, list(t.shape)) for t in g.inputs],
        # An input passed through keeps its declared dims (an untyped one is a finding of its own).
        [helper.make_tensor_value_info(t.name, t.dtype, list(t.shape) if t in g.inputs else None) for t in outputs.values()],
        g.initializers,
    )
    return FuzzGraph(model, tuple(steps))
