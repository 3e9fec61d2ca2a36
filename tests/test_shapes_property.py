"""xhip.shapes against onnxruntime on random shapes (hypothesis).

Each example builds a one-node ONNX model, runs it on onnxruntime's CPU
provider with random non-zero data of the drawn shapes, and compares the
output shape with the rule's result, twice:

* all static: the rule must emit no IR and give exactly onnxruntime's shape,
  or a ShapeFailure exactly when onnxruntime rejects the inputs;
* with the drawn dims (and shape-operand values) turned into index arguments
  of a func.func: the rule's dims, evaluated by host_index_eval at the actual
  values, must equal onnxruntime's shape. When onnxruntime rejects the inputs
  and the mixed rule still answers, the mistake is one only runtime values
  reveal (a `?` that is 5 against a static 3); hypothesis' event statistics
  count those as "decided at runtime" and the static run above already
  proved the rule rejects them once the values are known.

The rules follow the ONNX spec. Where onnxruntime knowingly differs from it
(`spec_instead`), the expectation is the spec's answer and the statistics count
the difference: Concat skips empty operands when checking ranks and dims,
Slice reads an end of INT_MAX with a negative step as "through index 0",
ReduceSum accepts any axes on a scalar, and Reshape infers a -1 next to a 0
under allowzero.

Models take every operand, including Reshape/Expand/Slice/ReduceSum shape
operands, as graph inputs with unknown shapes, so onnxruntime's kernels (not
its graph-time inference) decide, and one session serves every example with
the same op and attributes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import onnxruntime as ort
from hypothesis import event, given, settings
from hypothesis import strategies as st
from onnx import ModelProto, TensorProto, helper
from onnx.reference import ReferenceEvaluator
from onnxruntime.capi import onnxruntime_pybind11_state as ort_errors
from test_shapes import Scratch

from xhip import shapes as S
from xhip.index.host_eval import HostIndexEvaluator
from xhip.shapes import INT64_MAX, INT64_MIN, Dim, IndexEmitter, ShapeFailure, ShapeResult

EXTENTS = st.sampled_from([0, 1, 2, 3, 5, 8])
OPSET = 18
PROPERTY = settings(deadline=None, database=None)

# --------------------------------------------------------------------------------------
# onnxruntime
# --------------------------------------------------------------------------------------

_REJECTIONS = (
    ort_errors.Fail,
    ort_errors.InvalidArgument,
    ort_errors.InvalidGraph,
    ort_errors.RuntimeException,
)


class OnnxRunner:
    """One-node models: onnxruntime's CPU provider (one cached session per op, attributes
    and input kinds), and the ONNX reference evaluator for the spec's answer."""

    def __init__(self):
        ort.set_default_logger_severity(4)
        self.options = ort.SessionOptions()
        self.options.intra_op_num_threads = 1
        self.options.inter_op_num_threads = 1
        self.options.log_severity_level = 4
        self._sessions: dict[tuple, ort.InferenceSession | None] = {}
        self._rng = np.random.default_rng(0)

    def data(self, shape: Sequence[int]) -> np.ndarray:
        """Random float32 data with no zero element."""
        magnitude = self._rng.uniform(0.5, 2.0, size=tuple(shape))
        sign = self._rng.choice(np.array([-1.0, 1.0]), size=tuple(shape))
        return np.asarray(magnitude * sign, dtype=np.float32).reshape(tuple(shape))

    def output_shape(
        self, op_type: str, inputs: Sequence[np.ndarray | None], **attributes: object
    ) -> tuple[int, ...] | None:
        """onnxruntime's output shape, or None when it rejects the inputs."""
        kinds = tuple(None if x is None else x.dtype.str for x in inputs)
        key = (op_type, kinds, tuple(sorted(attributes.items())))
        if key not in self._sessions:
            model = _model(op_type, inputs, attributes).SerializeToString()
            try:
                self._sessions[key] = ort.InferenceSession(
                    model, self.options, providers=["CPUExecutionProvider"]
                )
            except _REJECTIONS:
                self._sessions[key] = None
        session = self._sessions[key]
        if session is None:
            return None
        try:
            return tuple(session.run(None, _feeds(inputs))[0].shape)
        except _REJECTIONS:
            return None

    @staticmethod
    def spec_output_shape(
        op_type: str, inputs: Sequence[np.ndarray | None], **attributes: object
    ) -> tuple[int, ...] | None:
        """The ONNX reference evaluator's output shape, or None when it rejects the inputs."""
        evaluator = ReferenceEvaluator(_model(op_type, inputs, attributes))
        try:
            return tuple(evaluator.run(None, _feeds(inputs))[0].shape)
        except (ValueError, IndexError, RuntimeError):
            return None


def _feeds(inputs: Sequence[np.ndarray | None]) -> dict[str, np.ndarray]:
    return {f"in{i}": x for i, x in enumerate(inputs) if x is not None}


def _model(op_type: str, inputs: Sequence[np.ndarray | None], attributes: dict) -> ModelProto:
    """A one-node model taking every present input as a graph input of unknown shape."""
    names = ["" if x is None else f"in{i}" for i, x in enumerate(inputs)]
    graph_inputs = [
        helper.make_tensor_value_info(
            name, TensorProto.INT64 if x.dtype == np.int64 else TensorProto.FLOAT, None
        )
        for name, x in zip(names, inputs)
        if x is not None
    ]
    output = helper.make_tensor_value_info("out", TensorProto.FLOAT, None)
    node = helper.make_node(op_type, names, ["out"], **attributes)
    graph = helper.make_graph([node], op_type.lower(), graph_inputs, [output])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])


ORT = OnnxRunner()


def spec_instead(ort_shape: tuple[int, ...] | None, spec_shape: tuple[int, ...] | None, deviation: str):
    """The spec's answer for inputs where onnxruntime knowingly differs from the ONNX spec.

    The rules follow the spec; each use names the difference, and hypothesis'
    statistics count how often it changed the expectation.
    """
    if spec_shape != ort_shape:
        event(f"onnxruntime differs from the ONNX spec: {deviation}")
    return spec_shape


def ints(values: Sequence[int]) -> np.ndarray:
    return np.array(values, dtype=np.int64).reshape(len(values))


# --------------------------------------------------------------------------------------
# Rule checking
# --------------------------------------------------------------------------------------


@dataclass
class Operand:
    """Concrete values of one rule operand (a shape or a shape operand's values) and
    which of them are runtime dims in the mixed run."""

    values: list[int]
    dynamic: list[bool]


Rule = Callable[[IndexEmitter, list[list[Dim]]], ShapeResult]


def check(rule: Rule, operands: Sequence[Operand], expected: tuple[int, ...] | None) -> None:
    static_scratch = Scratch()
    static_result = rule(static_scratch.em, [list(o.values) for o in operands])
    assert static_scratch.ops == [], f"static shapes emitted {static_scratch.op_names()}"
    if expected is None:
        assert isinstance(static_result, ShapeFailure), (
            f"onnxruntime rejects the inputs but the rule gives {static_result}"
        )
    else:
        assert static_result == list(expected)

    mixed = Scratch(sum(sum(o.dynamic) for o in operands))
    arguments = iter(mixed.args)
    bindings: dict = {}
    dims: list[list[Dim]] = []
    for operand in operands:
        operand_dims: list[Dim] = []
        for value, dynamic in zip(operand.values, operand.dynamic):
            if dynamic:
                argument = next(arguments)
                bindings[argument] = value
                operand_dims.append(argument)
            else:
                operand_dims.append(value)
        dims.append(operand_dims)
    mixed_result = rule(mixed.em, dims)
    if expected is None:
        statically = isinstance(mixed_result, ShapeFailure)
        event("onnxruntime rejects: " + ("static failure" if statically else "decided at runtime"))
        return
    assert not isinstance(mixed_result, ShapeFailure), mixed_result.message
    mixed.func.verify()
    evaluator = HostIndexEvaluator(bindings)
    assert evaluator.evaluate_all(mixed_result) == list(expected)
    event("onnxruntime accepts")


def draw_operand(data: st.DataObject, values: Sequence[int]) -> Operand:
    mask = data.draw(st.lists(st.booleans(), min_size=len(values), max_size=len(values)))
    return Operand(list(values), mask)


@st.composite
def cut_from(draw, base: Sequence[int], rank: int) -> list[int]:
    """The last `rank` dims of `base`, each kept, set to 1, or (one time in four) any extent."""
    shape = []
    for extent in base[len(base) - rank :]:
        kind = draw(st.sampled_from(["base", "base", "one", "any"]))
        shape.append(extent if kind == "base" else 1 if kind == "one" else draw(EXTENTS))
    return shape


@st.composite
def near_broadcastable(draw, count: int) -> list[list[int]]:
    """`count` shapes of random ranks cut from one base shape: mostly broadcastable."""
    base = draw(st.lists(EXTENTS, max_size=4))
    return [draw(cut_from(base, draw(st.integers(0, len(base))))) for _ in range(count)]


def usually(value: int) -> st.SearchStrategy[int]:
    """`value` two times in three, else any extent."""
    return st.one_of(st.just(value), st.just(value), EXTENTS)


# --------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------


@settings(PROPERTY, max_examples=450)
@given(st.data())
def test_add_broadcast(data):
    shapes = data.draw(near_broadcastable(2))
    expected = ORT.output_shape("Add", [ORT.data(s) for s in shapes])
    check(lambda em, d: S.broadcast(em, *d), [draw_operand(data, s) for s in shapes], expected)


@settings(PROPERTY, max_examples=450)
@given(st.data())
def test_variadic_max_min(data):
    op_type = data.draw(st.sampled_from(["Max", "Min"]))
    shapes = data.draw(near_broadcastable(data.draw(st.integers(1, 4))))
    expected = ORT.output_shape(op_type, [ORT.data(s) for s in shapes])
    check(lambda em, d: S.broadcast(em, *d), [draw_operand(data, s) for s in shapes], expected)


@settings(PROPERTY, max_examples=400)
@given(st.data())
def test_gemm(data):
    m, n, k = data.draw(EXTENTS), data.draw(EXTENTS), data.draw(EXTENTS)
    trans_a, trans_b = data.draw(st.booleans()), data.draw(st.booleans())
    k_b = data.draw(usually(k))
    a = [k, m] if trans_a else [m, k]
    b = [n, k_b] if trans_b else [k_b, n]
    c_kinds = {"none": None, "scalar": [], "n": [n], "m1": [m, 1], "1n": [1, n], "mn": [m, n], "m": [m]}
    c = c_kinds[data.draw(st.sampled_from(sorted(c_kinds)))]
    shapes = [a, b] if c is None else [a, b, c]
    expected = ORT.output_shape("Gemm", [ORT.data(s) for s in shapes], transA=int(trans_a), transB=int(trans_b))

    def rule(em: IndexEmitter, d: list[list[Dim]]) -> ShapeResult:
        return S.gemm(em, d[0], d[1], d[2] if len(d) == 3 else None, trans_a=trans_a, trans_b=trans_b)

    check(rule, [draw_operand(data, s) for s in shapes], expected)


@settings(PROPERTY, max_examples=450)
@given(st.data())
def test_matmul(data):
    rank_a, rank_b = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4))
    batch_rank_a, batch_rank_b = max(rank_a - 2, 0), max(rank_b - 2, 0)
    base = data.draw(st.lists(EXTENTS, min_size=2, max_size=2))
    batch_a = data.draw(cut_from(base, batch_rank_a))
    batch_b = data.draw(cut_from(base, batch_rank_b))
    m, n, k = data.draw(EXTENTS), data.draw(EXTENTS), data.draw(EXTENTS)
    a = [*batch_a, m, k] if rank_a > 1 else [k]
    b = [*batch_b, data.draw(usually(k)), n] if rank_b > 1 else [data.draw(usually(k))]
    expected = ORT.output_shape("MatMul", [ORT.data(a), ORT.data(b)])
    check(lambda em, d: S.matmul(em, d[0], d[1]), [draw_operand(data, a), draw_operand(data, b)], expected)


@settings(PROPERTY, max_examples=350)
@given(st.data())
def test_concat(data):
    rank = data.draw(st.sampled_from([0, 1, 1, 2, 2, 3, 3, 4, 4]))
    base = data.draw(st.lists(EXTENTS, min_size=rank, max_size=rank))
    in_range = rank > 0 and data.draw(st.integers(0, 9)) > 0
    axis = data.draw(st.integers(-rank, rank - 1) if in_range else st.sampled_from([rank, -rank - 1]))
    shapes = []
    for _ in range(data.draw(st.integers(1, 4))):
        shape = list(base)
        if -rank <= axis < rank:
            shape[axis] = data.draw(EXTENTS)
        if rank and data.draw(st.integers(0, 9)) == 0:
            shape[data.draw(st.integers(0, rank - 1))] = data.draw(EXTENTS)
        if data.draw(st.integers(0, 9)) == 0:
            shape = shape[1:]
        shapes.append(shape)
    # onnxruntime skips operands with no elements when it checks ranks and the other dims.
    skips_empty = any(0 in s for s in shapes)
    inputs = [ORT.data(s) for s in shapes]
    expected = ORT.output_shape("Concat", inputs, axis=axis)
    if skips_empty:
        spec = ORT.spec_output_shape("Concat", inputs, axis=axis)
        expected = spec_instead(expected, spec, "Concat ignores the rank and other dims of an empty operand")
    check(lambda em, d: S.concat(em, d, axis), [draw_operand(data, s) for s in shapes], expected)


SLICE_BOUNDS = st.one_of(
    st.integers(-10, 10), st.sampled_from([INT64_MAX, INT64_MIN, 2**31 - 1, -(2**31), -INT64_MAX])
)


@settings(PROPERTY, max_examples=450)
@given(st.data())
def test_slice(data):
    shape = data.draw(st.lists(EXTENTS, min_size=1, max_size=4))
    rank = len(shape)
    axes = data.draw(st.lists(st.integers(0, rank - 1), min_size=1, max_size=rank, unique=True))
    axes = [a - rank if data.draw(st.booleans()) else a for a in axes]
    if data.draw(st.integers(0, 19)) == 0:
        axes[0] = data.draw(st.sampled_from([rank, -rank - 1, axes[-1]]))
    starts = data.draw(st.lists(SLICE_BOUNDS, min_size=len(axes), max_size=len(axes)))
    ends = data.draw(st.lists(SLICE_BOUNDS, min_size=len(axes), max_size=len(axes)))
    steps = data.draw(
        st.lists(st.sampled_from([-3, -2, -1, -1, 1, 1, 2, 3, 0]), min_size=len(axes), max_size=len(axes))
    )
    pass_axes, pass_steps = data.draw(st.booleans()), data.draw(st.booleans())
    if not pass_axes:
        axes = list(range(len(axes)))
    if not pass_steps:
        steps = [1] * len(axes)
    inputs = [ORT.data(shape), ints(starts), ints(ends), ints(axes) if pass_axes else None]
    if pass_steps:
        inputs.append(ints(steps))
    expected = ORT.output_shape("Slice", inputs)
    # onnxruntime reads an end of INT32_MAX/INT64_MAX as "through index 0" for a negative
    # step; the spec clamps it to dim - 1 like any end >= dim. INT64_MAX - 1 is such an
    # end that onnxruntime does clamp. (The ONNX reference evaluator is no oracle here:
    # it slices like NumPy, which drops index 0 for a start below -dim with a negative step.)
    sentinel = (2**31 - 1, INT64_MAX)
    if any(e in sentinel and step < 0 for e, step in zip(ends, steps)):
        clamped = [INT64_MAX - 1 if e in sentinel and step < 0 else e for e, step in zip(ends, steps)]
        spec = ORT.output_shape("Slice", [inputs[0], inputs[1], ints(clamped), *inputs[3:]])
        expected = spec_instead(expected, spec, "Slice end INT_MAX with a negative step")

    def rule(em: IndexEmitter, d: list[list[Dim]]) -> ShapeResult:
        return S.slice_(em, d[0], d[1], d[2], axes if pass_axes else None, d[3] if pass_steps else None)

    operands = [draw_operand(data, v) for v in (shape, starts, ends, steps)]
    check(rule, operands, expected)


@st.composite
def reshape_target(draw, shape: list[int]) -> list[int]:
    """A regrouping of `shape` with some entries as 0 or -1, sometimes perturbed."""
    target: list[int] = []
    i = 0
    while i < len(shape):
        width = draw(st.integers(1, len(shape) - i))
        target.append(int(np.prod(shape[i : i + width])))
        i += width
    for _ in range(draw(st.integers(0, 1))):
        target.insert(draw(st.integers(0, len(target))), 1)
    if target and draw(st.booleans()):
        target[draw(st.integers(0, len(target) - 1))] = -1
    if target and draw(st.booleans()):
        target[draw(st.integers(0, len(target) - 1))] = 0
    if target and draw(st.integers(0, 5)) == 0:
        target[draw(st.integers(0, len(target) - 1))] = draw(st.sampled_from([0, 1, 2, 3, 5, 8, -1, -2]))
    return target


@settings(PROPERTY, max_examples=450)
@given(st.data())
def test_reshape(data):
    shape = data.draw(st.lists(EXTENTS, min_size=0, max_size=4))
    target = data.draw(reshape_target(shape))
    allowzero = data.draw(st.sampled_from([False, False, True]))
    inputs = [ORT.data(shape), ints(target)]
    expected = ORT.output_shape("Reshape", inputs, allowzero=int(allowzero))
    if allowzero and 0 in target and -1 in target:
        # The spec forbids this pair with allowzero; onnxruntime infers some -1 anyway.
        spec = ORT.spec_output_shape("Reshape", inputs, allowzero=1)
        expected = spec_instead(expected, spec, "Reshape with allowzero and both 0 and -1")
    check(
        lambda em, d: S.reshape(em, d[0], d[1], allowzero=allowzero),
        [draw_operand(data, shape), draw_operand(data, target)],
        expected,
    )


@settings(PROPERTY, max_examples=350)
@given(st.data())
def test_expand(data):
    shape, target = data.draw(near_broadcastable(2))
    expected = ORT.output_shape("Expand", [ORT.data(shape), ints(target)])
    check(lambda em, d: S.expand(em, d[0], d[1]), [draw_operand(data, shape), draw_operand(data, target)], expected)


@settings(PROPERTY, max_examples=350)
@given(st.data())
def test_reduce_sum(data):
    shape = data.draw(st.lists(EXTENTS, min_size=0, max_size=4))
    rank = len(shape)
    axes: list[int] | None = None
    if data.draw(st.integers(0, 4)) > 0:
        axes = data.draw(st.lists(st.integers(-rank, rank - 1), max_size=rank)) if rank else []
        if data.draw(st.integers(0, 9)) == 0:
            axes.append(data.draw(st.sampled_from([rank, -rank - 1])))
    keepdims, noop = data.draw(st.booleans()), data.draw(st.booleans())
    inputs = [ORT.data(shape)] + ([] if axes is None else [ints(axes)])
    attributes = {"keepdims": int(keepdims), "noop_with_empty_axes": int(noop)}
    expected = ORT.output_shape("ReduceSum", inputs, **attributes)
    if rank == 0 and axes:
        # onnxruntime accepts any axes for a scalar; the spec's range [-0, -1] is empty.
        spec = ORT.spec_output_shape("ReduceSum", inputs, **attributes)
        expected = spec_instead(expected, spec, "ReduceSum axes on a rank-0 input")
    check(
        lambda em, d: S.reduce(em, d[0], axes, keepdims=keepdims, noop_with_empty_axes=noop),
        [draw_operand(data, shape)],
        expected,
    )
