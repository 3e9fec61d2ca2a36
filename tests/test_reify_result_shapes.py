"""Converter destinations, `reify_result_shapes` and onnxruntime agree on random shapes.

Each example builds a one-node ONNX model (onnx.helper) whose graph inputs
declare a random subset of their dims symbolic, imports it, runs
hip-add-context-arg and convert-onnx-to-hip, and then, at the drawn runtime
dims (host_index_eval), requires three shapes to be equal:

* the dims of the converted op's `tensor.empty` destination (the converter's rule),
* the dims `reify_result_shapes` emits right before the op (the reifier's rule),
* the shape of onnxruntime's output for inputs of the drawn dims.

When onnxruntime rejects the drawn shapes, conversion must either fail with a
located one-line error (the mistake is visible in the static dims) or the
mistake must hinge on a symbolic dim (hypothesis counts these as "decided at
run time").
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from helpers import parse_verified
from hypothesis import event, given, settings
from hypothesis import strategies as st
from onnx import ModelProto, TensorProto, helper, numpy_helper
from test_shapes_property import EXTENTS, ORT, OPSET, PROPERTY, cut_from, near_broadcastable
from xdsl.dialects import func, memref, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, DenseArrayBase, ModuleOp, TensorType, i64
from xdsl.ir import BlockArgument, SSAValue
from xdsl.rewriter import InsertPoint

from xhip.context import make_context
from xhip.diagnostics import XhipError
from xhip.dialects import hip
from xhip.importer import import_model
from xhip.index.host_eval import evaluate
from xhip.parsing import parse_module
from xhip.passes.add_context_arg import AddContextArgPass
from xhip.passes.convert_onnx_to_hip import ConvertOnnxToHipPass
from xhip.shapes import IndexEmitter, ShapeFailure

CTX = make_context()


# --------------------------------------------------------------------------------------
# One-node models with partly symbolic inputs
# --------------------------------------------------------------------------------------


class Node:
    """One ONNX node: runtime input values, which dims each input declares symbolic,
    and which inputs are initializers (constant operands such as Reduce axes)."""

    def __init__(self, op_type: str, inputs: Sequence[np.ndarray | None], **attributes: object):
        self.op_type = op_type
        # Trailing absent inputs are left out, as exporters do (onnxruntime crashes
        # creating a LayerNormalization session whose absent bias is spelled "").
        self.inputs = list(inputs)
        while self.inputs and self.inputs[-1] is None:
            self.inputs.pop()
        self.attributes = attributes
        self.symbolic: list[list[bool]] = [[] if x is None else [False] * x.ndim for x in self.inputs]
        self.constants: set[int] = set()

    def draw_symbolic(self, data: st.DataObject) -> Node:
        for i, x in enumerate(self.inputs):
            if x is not None and i not in self.constants:
                self.symbolic[i] = data.draw(st.lists(st.booleans(), min_size=x.ndim, max_size=x.ndim))
        return self

    def graph_inputs(self) -> list[tuple[int, np.ndarray]]:
        return [(i, x) for i, x in enumerate(self.inputs) if x is not None and i not in self.constants]

    def model(self) -> ModelProto:
        names = ["" if x is None else f"in{i}" for i, x in enumerate(self.inputs)]
        graph_inputs = []
        for i, x in self.graph_inputs():
            dims = [f"in{i}_d{a}" if sym else extent for a, (extent, sym) in enumerate(zip(x.shape, self.symbolic[i]))]
            graph_inputs.append(helper.make_tensor_value_info(names[i], _onnx_type(x), dims))
        initializers = [numpy_helper.from_array(self.inputs[i], names[i]) for i in sorted(self.constants)]
        output = helper.make_tensor_value_info("out", TensorProto.FLOAT, None)
        node = helper.make_node(self.op_type, names, ["out"], name="node", **self.attributes)
        graph = helper.make_graph([node], "one_node", graph_inputs, [output], initializer=initializers)
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])


def _onnx_type(x: np.ndarray) -> int:
    return TensorProto.INT64 if x.dtype == np.int64 else TensorProto.FLOAT


# --------------------------------------------------------------------------------------
# Runtime extents of converted IR
# --------------------------------------------------------------------------------------


class Extents:
    """The runtime extent of every tensor dim in a converted function, for given input shapes."""

    def __init__(self, fn: func.FuncOp, argument_shapes: Sequence[Sequence[int]]):
        self.arguments = dict(zip(fn.body.block.args[1:], argument_shapes, strict=True))
        self.bindings: dict[SSAValue, int] = {}
        self.fn = fn

    def bind_dim_ops(self) -> None:
        """Bind every `tensor.dim` result (the only leaves host index arithmetic has)."""
        for op in self.fn.walk():
            if isinstance(op, tensor.DimOp) and op.result not in self.bindings:
                self.bindings[op.result] = self.extent(op.source, evaluate(op.index, self.bindings))

    def extent(self, value: SSAValue, axis: int) -> int:
        assert isinstance(value.type, TensorType)
        static = value.type.get_shape()[axis]
        if static != DYNAMIC_INDEX:
            return static
        if isinstance(value, BlockArgument):
            return self.arguments[value][axis]
        owner = value.owner
        if isinstance(owner, hip.DPSOp):
            init = owner.tied_init(value)
            assert init is not None
            return self.extent(init, axis)
        if isinstance(owner, tensor.CastOp):
            return self.extent(owner.source, axis)
        # Ops that list one size operand per `?` of their result.
        if isinstance(owner, tensor.EmptyOp):
            sizes, layout = owner.dynamic_sizes, value.type.get_shape()
        else:
            assert isinstance(owner, tensor.ExtractSliceOp), f"no extent rule for {owner.name}"
            sizes, layout = owner.sizes, owner.static_sizes.get_values()
        return self.dims([sizes[layout[:axis].count(DYNAMIC_INDEX)]])[0]

    def dims(self, dims: Sequence[int | SSAValue]) -> list[int]:
        return [evaluate(d, self.bindings) for d in dims]

    def shape(self, value: SSAValue) -> list[int]:
        assert isinstance(value.type, TensorType)
        return [self.extent(value, axis) for axis in range(value.type.get_num_dims())]


def convert(model: ModelProto) -> tuple[ModuleOp, func.FuncOp]:
    module = import_model(model)
    AddContextArgPass().apply(CTX, module)
    ConvertOnnxToHipPass().apply(CTX, module)
    module.verify()
    (fn,) = [op for op in module.walk() if isinstance(op, func.FuncOp)]
    return module, fn


def returned(fn: func.FuncOp) -> SSAValue:
    terminator = fn.body.block.last_op
    assert isinstance(terminator, func.ReturnOp)
    value = terminator.arguments[0]
    while isinstance(value.owner, tensor.CastOp):
        value = value.owner.source
    return value


def check(node: Node) -> None:
    expected = ORT.output_shape(node.op_type, node.inputs, **node.attributes)
    try:
        module, fn = convert(node.model())
    except XhipError as error:
        assert expected is None, f"conversion failed but onnxruntime accepts: {error}"
        # One line that names the node (its name is "node").
        assert "\n" not in str(error) and "error:" in str(error) and "node" in str(error)
        event("onnxruntime rejects: static failure")
        return
    if expected is None:
        event("onnxruntime rejects: decided at run time")
        return
    extents = Extents(fn, [x.shape for _, x in node.graph_inputs()])
    result = returned(fn)
    op = result.owner
    if not isinstance(op, hip.DPSOp):
        # No hip op computes the result (a no-op reduction or transpose, a view-like
        # Slice or Expand): only its extents can be compared.
        extents.bind_dim_ops()
        assert extents.shape(result) == list(expected)
        event("no hip op")
        return
    index = list(op.results).index(result)
    reified = op.reify_result_shapes(IndexEmitter(InsertPoint.before(op)))
    assert not isinstance(reified, ShapeFailure), reified.message
    module.verify()
    extents.bind_dim_ops()
    destination = extents.shape(op.outputs[index])
    assert destination == extents.dims(reified[index]) == list(expected), (
        f"destination {destination}, reified {extents.dims(reified[index])}, onnxruntime {expected}"
    )
    event(f"checked {op.name}")


# --------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------


@settings(PROPERTY, max_examples=350)
@given(st.data())
def test_broadcast_binaries(data):
    op_type = data.draw(st.sampled_from(["Add", "Sub", "Mul", "Div"]))
    inputs = [ORT.data(s) for s in data.draw(near_broadcastable(2))]
    check(Node(op_type, inputs).draw_symbolic(data))


@settings(PROPERTY, max_examples=300)
@given(st.data())
def test_variadic_max_min(data):
    op_type = data.draw(st.sampled_from(["Max", "Min"]))
    inputs = [ORT.data(s) for s in data.draw(near_broadcastable(data.draw(st.integers(2, 4))))]
    check(Node(op_type, inputs).draw_symbolic(data))


@settings(PROPERTY, max_examples=300)
@given(st.data())
def test_matmul(data):
    rank_a, rank_b = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4))
    base = data.draw(st.lists(EXTENTS, min_size=2, max_size=2))
    batch_a = data.draw(cut_from(base, max(rank_a - 2, 0)))
    batch_b = data.draw(cut_from(base, max(rank_b - 2, 0)))
    m, n, k = data.draw(EXTENTS), data.draw(EXTENTS), data.draw(EXTENTS)
    a = [*batch_a, m, k] if rank_a > 1 else [k]
    b = [*batch_b, k, n] if rank_b > 1 else [k]
    check(Node("MatMul", [ORT.data(a), ORT.data(b)]).draw_symbolic(data))


GEMM_C = {"none": None, "scalar": [], "1": [1], "n": [-1], "1n": [1, -1], "m1": [-2, 1], "mn": [-2, -1], "11": [1, 1]}


@settings(PROPERTY, max_examples=300)
@given(st.data())
def test_gemm(data):
    m, n, k = data.draw(EXTENTS), data.draw(EXTENTS), data.draw(EXTENTS)
    trans_a, trans_b = data.draw(st.booleans()), data.draw(st.booleans())
    a = [k, m] if trans_a else [m, k]
    b = [n, k] if trans_b else [k, n]
    c = GEMM_C[data.draw(st.sampled_from(sorted(GEMM_C)))]
    c_data = None if c is None else ORT.data([{-1: n, -2: m}.get(d, d) for d in c])
    attributes = {"transA": int(trans_a), "transB": int(trans_b), "alpha": 0.5, "beta": 2.0}
    check(Node("Gemm", [ORT.data(a), ORT.data(b), c_data], **attributes).draw_symbolic(data))


NONZERO_EXTENTS = EXTENTS.filter(lambda e: e > 0)


@st.composite
def shape_and_axis(draw, extents: st.SearchStrategy[int] = EXTENTS) -> tuple[list[int], int]:
    shape = draw(st.lists(extents, min_size=1, max_size=4))
    return shape, draw(st.integers(-len(shape), len(shape) - 1))


@settings(PROPERTY, max_examples=200)
@given(st.data())
def test_softmax(data):
    shape, axis = data.draw(shape_and_axis())
    check(Node("Softmax", [ORT.data(shape)], axis=axis).draw_symbolic(data))


@settings(PROPERTY, max_examples=200)
@given(st.data())
def test_layer_normalization(data):
    # onnxruntime rejects an empty normalized slice (shape[axis:] with a 0).
    shape, axis = data.draw(shape_and_axis(NONZERO_EXTENTS))
    scale = ORT.data(shape[axis:])
    bias = ORT.data(shape[axis:]) if data.draw(st.booleans()) else None
    check(Node("LayerNormalization", [ORT.data(shape), scale, bias], axis=axis).draw_symbolic(data))


@settings(PROPERTY, max_examples=350)
@given(st.data())
def test_reduce(data):
    op_type = data.draw(st.sampled_from(["ReduceMean", "ReduceSum", "ReduceMax"]))
    # ReduceMax of an empty set has no value: keep reduced extents non-zero there.
    extents = NONZERO_EXTENTS if op_type == "ReduceMax" else EXTENTS
    shape = data.draw(st.lists(extents, max_size=4))
    rank = len(shape)
    chosen = data.draw(st.lists(st.integers(0, rank - 1), unique=True)) if rank else []
    axes = [a - rank if data.draw(st.booleans()) else a for a in chosen]
    given_axes = data.draw(st.booleans()) or bool(axes)
    attributes = {"keepdims": int(data.draw(st.booleans())), "noop_with_empty_axes": int(data.draw(st.booleans()))}
    axes_input = np.array(axes, dtype=np.int64) if given_axes else None
    node = Node(op_type, [ORT.data(shape), axes_input], **attributes)
    node.constants = {1} if given_axes else set()
    check(node.draw_symbolic(data))


@settings(PROPERTY, max_examples=150)
@given(st.data())
def test_transpose(data):
    shape = data.draw(st.lists(EXTENTS, min_size=2, max_size=4))
    perm = data.draw(st.permutations(range(len(shape))))
    attributes = {"perm": tuple(perm)} if data.draw(st.booleans()) else {}
    check(Node("Transpose", [ORT.data(shape)], **attributes).draw_symbolic(data))


@settings(PROPERTY, max_examples=150)
@given(st.data())
def test_concat(data):
    shape, axis = data.draw(shape_and_axis())
    inputs = []
    for _ in range(data.draw(st.integers(2, 4))):
        shape[axis] = data.draw(EXTENTS)
        inputs.append(ORT.data(shape))
    check(Node("Concat", inputs, axis=axis).draw_symbolic(data))


@settings(PROPERTY, max_examples=150)
@given(st.data())
def test_gather(data):
    shape, axis = data.draw(shape_and_axis(NONZERO_EXTENTS))
    indices_shape = data.draw(st.lists(EXTENTS, max_size=2))
    extent = shape[axis]
    indices = data.draw(
        st.lists(st.integers(-extent, extent - 1), min_size=int(np.prod(indices_shape)), max_size=int(np.prod(indices_shape)))
    )
    indices_data = np.array(indices, dtype=np.int64).reshape(indices_shape)
    check(Node("Gather", [ORT.data(shape), indices_data], axis=axis).draw_symbolic(data))


@settings(PROPERTY, max_examples=150)
@given(st.data())
def test_expand(data):
    (shape,) = data.draw(near_broadcastable(1))
    target = data.draw(cut_from(shape, len(shape)))
    target = [*data.draw(st.lists(EXTENTS, max_size=2)), *target]
    node = Node("Expand", [ORT.data(shape), np.array(target, dtype=np.int64)])
    node.constants = {1}
    check(node.draw_symbolic(data))


@settings(PROPERTY, max_examples=150)
@given(st.data())
def test_slice(data):
    shape = data.draw(st.lists(EXTENTS, min_size=1, max_size=4))
    rank = len(shape)
    axes = data.draw(st.lists(st.integers(-rank, rank - 1), min_size=1, max_size=rank, unique_by=lambda a: a % rank))
    bounds = st.lists(st.integers(-10, 10), min_size=len(axes), max_size=len(axes))
    steps = data.draw(st.lists(st.sampled_from([-2, -1, 1, 1, 2]), min_size=len(axes), max_size=len(axes)))
    operands = [data.draw(bounds), data.draw(bounds), axes, steps]
    node = Node("Slice", [ORT.data(shape), *(np.array(v, dtype=np.int64) for v in operands)])
    node.constants = {1, 2, 3, 4}
    check(node.draw_symbolic(data))


# --------------------------------------------------------------------------------------
# Reification in memref mode, and of ops whose extents come from their outs
# --------------------------------------------------------------------------------------

# (argument types, runtime shapes of the arguments, the op, the expected dims per out)
MEMREF_CASES = [
    (["memref<?x1xf32>", "memref<1x?xf32>", "memref<?x?xf32>"], [[4, 1], [1, 5], [4, 5]],
     "hip.add(%ctx) ins(%0, %1 : memref<?x1xf32>, memref<1x?xf32>) outs(%2 : memref<?x?xf32>)", [[4, 5]]),
    (["memref<?x?x8xf32>", "memref<8x?xf32>", "memref<?x?x?xf32>"], [[2, 3, 8], [8, 6], [2, 3, 6]],
     "hip.matmul(%ctx) ins(%0, %1 : memref<?x?x8xf32>, memref<8x?xf32>) outs(%2 : memref<?x?x?xf32>)", [[2, 3, 6]]),
    (["memref<8x?xf32>", "memref<?x8xf32>", "memref<?x?xf32>"], [[8, 4], [6, 8], [4, 6]],
     "hip.gemm(%ctx) ins(%0, %1 : memref<8x?xf32>, memref<?x8xf32>) outs(%2 : memref<?x?xf32>) {trans_a = true, trans_b = true}",
     [[4, 6]]),
    (["memref<?x?x4xf32>", "memref<?x4xf32>"], [[2, 3, 4], [2, 4]],
     "hip.reduce_sum(%ctx) ins(%0 : memref<?x?x4xf32>) outs(%1 : memref<?x4xf32>) {axes = array<i64: 1>, keepdims = false}",
     [[2, 4]]),
    (["memref<?x?x4xf32>", "memref<4x?x?xf32>"], [[2, 3, 4], [4, 2, 3]],
     "hip.transpose(%ctx) ins(%0 : memref<?x?x4xf32>) outs(%1 : memref<4x?x?xf32>) {perm = array<i64: 2, 0, 1>}", [[4, 2, 3]]),
    (["memref<?x2xf32>", "memref<?x?xf32>", "memref<?x?xf32>"], [[5, 2], [5, 3], [5, 5]],
     "hip.concat(%ctx) ins(%0, %1 : memref<?x2xf32>, memref<?x?xf32>) outs(%2 : memref<?x?xf32>) {axis = 1 : i64}", [[5, 5]]),
    (["memref<?x3xf32>", "memref<2x?xi64>", "memref<i64>"], [[4, 3], [2, 12], []],
     "hip.nonzero(%ctx) ins(%0 : memref<?x3xf32>) outs(%1, %2 : memref<2x?xi64>, memref<i64>)", [[2, 12], []]),
    (["memref<?x?xf32>", "memref<?x?xf32>"], [[6, 7], [6, 7]],
     "hip.softmax(%ctx) ins(%0 : memref<?x?xf32>) outs(%1 : memref<?x?xf32>) {axis = 0 : i64}", [[6, 7]]),
    (["memref<?x3xf32>", "memref<?x3xf32>", "memref<?x3xf32>"], [[9, 3], [4, 3], [5, 3]],
     "hip.split(%ctx) ins(%0 : memref<?x3xf32>) outs(%1, %2 : memref<?x3xf32>, memref<?x3xf32>)", [[4, 3], [5, 3]]),
]


@pytest.mark.parametrize(("types", "runtime", "op_text", "expected"), MEMREF_CASES)
def test_reify_in_memref_mode(types, runtime, op_text, expected):
    arguments = ", ".join(f"%{i}: {t}" for i, t in enumerate(types))
    text = f"func.func @f(%ctx: !hip.context, {arguments}) {{\n  {op_text}\n  func.return\n}}"
    module = parse_module(CTX, text, "memref.mlir")
    (op,) = [o for o in module.walk() if isinstance(o, hip.DPSOp)]
    reified = op.reify_result_shapes(IndexEmitter(InsertPoint.before(op)))
    assert not isinstance(reified, ShapeFailure), reified.message
    module.verify()
    fn = op.parent_op()
    assert isinstance(fn, func.FuncOp)
    dim_ops = [o for o in fn.walk() if isinstance(o, memref.DimOp)]
    assert dim_ops and not any(isinstance(o, tensor.DimOp) for o in fn.walk())
    shapes = dict(zip(fn.body.block.args[1:], runtime, strict=True))
    bindings: dict[SSAValue, int] = {d.result: shapes[d.source][evaluate(d.index, {})] for d in dim_ops}
    assert [[evaluate(d, bindings) for d in dims] for dims in reified] == expected


def test_reify_of_static_operands_emits_nothing():
    text = """func.func @f(%ctx: !hip.context, %a: tensor<4x1x2x8xf32>, %b: tensor<3x8x5xf32>, %o: tensor<4x3x2x5xf32>) {
      %r = hip.matmul(%ctx) ins(%a, %b : tensor<4x1x2x8xf32>, tensor<3x8x5xf32>) outs(%o : tensor<4x3x2x5xf32>) -> tensor<4x3x2x5xf32>
      func.return
    }"""
    module = parse_verified(text, "static.mlir")
    (op,) = [o for o in module.walk() if isinstance(o, hip.MatmulOp)]
    before = len(list(module.walk()))
    assert op.reify_result_shapes(IndexEmitter(InsertPoint.before(op))) == [[4, 3, 2, 5]]
    assert len(list(module.walk())) == before


def test_reify_reports_a_failure_object():
    """A rule that cannot answer (here an out-of-range axis) gives a ShapeFailure, never []."""
    text = """func.func @f(%ctx: !hip.context, %x: tensor<?x8xf32>, %y: tensor<f32>) {
      func.return
    }"""
    module = parse_module(CTX, text, "failure.mlir")
    fn = next(o for o in module.walk() if isinstance(o, func.FuncOp))
    ctx, x, y = fn.body.block.args
    # Built without verification: the verifier would reject it first.
    op = hip.ReduceSumOp(ctx, [x], [y], properties={"axes": DenseArrayBase.from_list(i64, [5])})
    fn.body.block.insert_op_before(op, fn.body.block.last_op)
    failure = op.reify_result_shapes(IndexEmitter(InsertPoint.before(op)))
    assert isinstance(failure, ShapeFailure)
    assert failure.message == "reduction axis 5 is out of range [-2, 1] for rank 2"


# --------------------------------------------------------------------------------------
# The verifier uses the same rules (the error cases are in filecheck/hip/invalid_shapes.mlir)
# --------------------------------------------------------------------------------------


def test_verifier_accepts_runtime_dims_and_checks_static_ones():
    text = """func.func @f(%ctx: !hip.context, %a: tensor<?x1xf32>, %b: tensor<?x8xf32>, %dyn: tensor<?x?xf32>, %bad: tensor<?x1xf32>) {
      %ok = hip.max(%ctx) ins(%a, %b : tensor<?x1xf32>, tensor<?x8xf32>) outs(%dyn : tensor<?x?xf32>) -> tensor<?x?xf32>
      %no = hip.max(%ctx) ins(%a, %b : tensor<?x1xf32>, tensor<?x8xf32>) outs(%bad : tensor<?x1xf32>) -> tensor<?x1xf32>
      func.return
    }"""
    module = parse_module(CTX, text, "t.mlir")
    ok, no = [o for o in module.walk() if isinstance(o, hip.MaxOp)]
    ok.verify()
    with pytest.raises(XhipError, match=r"t.mlir:3:\d+: error: 'hip.max' op out #0 has shape \[\?, 1\] but the operands broadcast to \[\?, 8\]"):
        no.verify()
    # The check built nothing into the function.
    assert [o.name for o in module.walk()].count("arith.cmpi") == 0
