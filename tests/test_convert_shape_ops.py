"""convert-onnx-to-hip on shape subgraphs and data movement, against onnxruntime.

Each model is built with onnx.helper over symbolic dims; every node output is
also a graph output, so every converted value is returned. A model is
imported and converted once. Then, for random extents (hypothesis) and random
data, the runtime dims of every tensor in the converted function are derived
from the IR alone: `tensor.dim` of the arguments, index arithmetic through
`xhip.index.host_eval`, and the sizes that `tensor.empty`,
`extract_slice`, `expand_shape`, `collapse_shape` and `reshape` carry. They
must equal onnxruntime's output shapes, the static dims of every tensor type
must agree with them, and integer vectors computed on the host (shape
subgraphs) must hold onnxruntime's values.

There is no runtime yet, so only shapes and host values are compared; the
payload of a device op is not computed. `tensor.extract` reads its element
from the input arrays, and a NonZero count is counted with NumPy.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper
from xdsl.dialects import arith, func, tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseIntOrFPElementsAttr,
    ModuleOp,
    TensorType,
)
from xdsl.ir import Block, Operation, SSAValue

from xhip.context import make_context
from xhip.dialects import hip
from xhip.importer import import_model
from xhip.index.host_eval import HostIndexEvaluator
from xhip.passes import available_passes

INT64_MIN = -(2**63)
PROPERTY = settings(max_examples=40, deadline=None, database=None)

# --------------------------------------------------------------------------------------
# Models
# --------------------------------------------------------------------------------------


def const(name: str, values: Sequence[float] | float, dtype=np.int64) -> onnx.NodeProto:
    array = np.array(values, dtype=dtype)
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(array, name))


def build(nodes: list[onnx.NodeProto], inputs: list[tuple[str, int, list[str | int]]]) -> onnx.ModelProto:
    """A model whose outputs are every node output, typed by ONNX shape inference."""
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs], []
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    inferred = onnx.shape_inference.infer_shapes(model)
    types = {v.name: v for v in inferred.graph.value_info}
    names = [o for n in nodes if n.op_type != "Constant" for o in n.output if o]
    model.graph.output.extend(types[n] for n in names)
    return model


Inputs = dict[str, np.ndarray]


@dataclass(frozen=True)
class Case:
    name: str
    model: onnx.ModelProto
    dims: dict[str, tuple[int, int]]
    """Symbolic dim -> inclusive range of extents to draw."""
    make_inputs: Callable[[dict[str, int], np.random.Generator], Inputs]


def _floats(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def heads_case() -> Case:
    """Split heads, transpose, merge with 0/-1 targets, flatten: the attention reshapes."""
    nodes = [
        helper.make_node("Shape", ["x"], ["shape"]),
        const("i0", 0), const("i1", 1), const("ax0", [0]), const("heads", [2, 4]),
        helper.make_node("Gather", ["shape", "i0"], ["b"]),
        helper.make_node("Gather", ["shape", "i1"], ["s"]),
        helper.make_node("Unsqueeze", ["b", "ax0"], ["b1"]),
        helper.make_node("Unsqueeze", ["s", "ax0"], ["s1"]),
        helper.make_node("Concat", ["b1", "s1", "heads"], ["target"], axis=0),
        helper.make_node("Reshape", ["x", "target"], ["split"]),
        helper.make_node("Transpose", ["split"], ["bhsd"], perm=[0, 2, 1, 3]),
        const("keep", [0, 0, -1]),
        helper.make_node("Reshape", ["bhsd", "keep"], ["bh_sd"]),
        helper.make_node("Flatten", ["bhsd"], ["flat"], axis=2),
        helper.make_node("Shape", ["x"], ["lead"], end=2),
        const("width", [8]),
        helper.make_node("Concat", ["lead", "width"], ["merged_shape"], axis=0),
        helper.make_node("Reshape", ["split", "merged_shape"], ["merged"]),
        const("rows", [-1, 4]),
        helper.make_node("Reshape", ["x", "rows"], ["regrouped"]),
    ]  # fmt: skip
    model = build(nodes, [("x", TensorProto.FLOAT, ["b", "s", 8])])
    return Case("heads", model, {"b": (1, 4), "s": (0, 5)}, lambda d, rng: {"x": _floats(rng, d["b"], d["s"], 8)})


def slices_case() -> Case:
    """Slice bounds from Shape of another input, from opaque inputs, backwards, runtime steps."""
    nodes = [
        helper.make_node("Shape", ["y"], ["y_last"], start=-1),
        const("one", [1]), const("zero", [0]), const("minus1", [-1]),
        const("lowest", [INT64_MIN]),
        helper.make_node("Sub", ["y_last", "one"], ["end"]),
        helper.make_node("Slice", ["x", "one", "end", "one"], ["inner"]),
        helper.make_node("Slice", ["x", "starts", "ends", "zero"], ["rows"]),
        helper.make_node("Slice", ["x", "minus1", "lowest", "one", "minus1"], ["reversed"]),
        helper.make_node("Slice", ["x", "starts", "ends", "zero", "step"], ["stepped"]),
        helper.make_node("Shape", ["y"], ["y_shape"]),
        helper.make_node("Slice", ["y_shape", "zero", "one"], ["y_first"]),
        helper.make_node("Shape", ["x"], ["x_shape"]),
        helper.make_node("Concat", ["x_shape", "y_shape"], ["all_dims"], axis=0),
        const("three", [3]), const("minus2", [-2]),
        helper.make_node("Slice", ["all_dims", "three", "zero", "zero", "minus2"], ["every_other"]),
    ]  # fmt: skip
    inputs = [
        ("x", TensorProto.FLOAT, ["a", "b"]),
        ("y", TensorProto.FLOAT, ["c", "d"]),
        ("starts", TensorProto.INT64, [1]),
        ("ends", TensorProto.INT64, [1]),
        ("step", TensorProto.INT64, [1]),
    ]

    def make_inputs(d: dict[str, int], rng: np.random.Generator) -> Inputs:
        bound = d["a"] + 2
        return {
            "x": _floats(rng, d["a"], d["b"]),
            "y": _floats(rng, d["c"], d["d"]),
            "starts": rng.integers(-bound, bound, 1),
            "ends": rng.integers(-bound, bound, 1),
            "step": np.array([rng.choice([-3, -2, -1, 1, 2, 3])]),
        }

    return Case("slices", build(nodes, inputs), {"a": (1, 6), "b": (1, 5), "c": (0, 3), "d": (0, 6)}, make_inputs)


def movement_case() -> Case:
    """Concat, Split, Expand to Shape(y), Gather, GatherND, Transpose, host vector ops."""
    nodes = [
        helper.make_node("Concat", ["x", "y"], ["cat"], axis=-1),
        helper.make_node("Split", ["cat"], ["p0", "p1", "p2"], axis=1, num_outputs=3),
        const("sizes", [1, 1]),
        helper.make_node("Split", ["y", "sizes"], ["q0", "q1"], axis=1),
        helper.make_node("Shape", ["y"], ["y_shape"]),
        helper.make_node("Expand", ["z", "y_shape"], ["expanded"]),
        helper.make_node("Gather", ["x", "ids"], ["rows"], axis=0),
        helper.make_node("Gather", ["x", "col"], ["column"], axis=1),
        helper.make_node("GatherND", ["x", "nd_ids"], ["picked"]),
        helper.make_node("Transpose", ["cat"], ["cat_t"]),
        helper.make_node("Shape", ["x"], ["x_shape"]),
        const("swap", [1, 0]),
        helper.make_node("Gather", ["y_shape", "swap"], ["y_swapped"]),
        helper.make_node("Concat", ["x_shape", "y_swapped"], ["shapes"], axis=0),
        helper.make_node("Split", ["shapes"], ["s0", "s1"], num_outputs=2),
        const("one", [1]), const("three", [3]),
        helper.make_node("Expand", ["one", "three"], ["ones"]),
    ]  # fmt: skip
    inputs = [
        ("x", TensorProto.FLOAT, ["a", "b"]),
        ("y", TensorProto.FLOAT, ["a", 2]),
        ("z", TensorProto.FLOAT, ["a", 1]),
        ("ids", TensorProto.INT64, ["k"]),
        ("col", TensorProto.INT64, []),
        ("nd_ids", TensorProto.INT64, ["m", 2]),
    ]

    def make_inputs(d: dict[str, int], rng: np.random.Generator) -> Inputs:
        a, b = d["a"], d["b"]
        return {
            "x": _floats(rng, a, b),
            "y": _floats(rng, a, 2),
            "z": _floats(rng, a, 1),
            "ids": rng.integers(-a, a, d["k"]),
            "col": np.array(rng.integers(-b, b)),
            "nd_ids": np.stack([rng.integers(0, a, d["m"]), rng.integers(0, b, d["m"])], axis=1),
        }

    return Case("movement", build(nodes, inputs), {"a": (1, 5), "b": (1, 6), "k": (0, 4), "m": (0, 3)}, make_inputs)


def generators_case() -> Case:
    """ConstantOfShape, Range (host, from a dim, from an opaque limit, float), NonZero."""
    nodes = [
        helper.make_node("Shape", ["x"], ["x_shape"]),
        helper.make_node("ConstantOfShape", ["x_shape"], ["zeros"]),
        const("three", [3]),
        helper.make_node(
            "ConstantOfShape", ["three"], ["sevens"], value=numpy_helper.from_array(np.array([7], np.int64))
        ),
        helper.make_node("Shape", ["x"], ["cols"], start=1),
        const("ax0", [0]), const("r0", 0), const("r1", 1), const("r2", 2), const("r3", 3),
        const("r10", 10), const("rm2", -2),
        helper.make_node("Squeeze", ["cols", "ax0"], ["limit"]),
        helper.make_node("Range", ["r0", "limit", "r1"], ["positions"]),
        helper.make_node("Range", ["r2", "lim", "r3"], ["strided"]),
        helper.make_node("Range", ["r10", "r2", "rm2"], ["countdown"]),
        const("f0", 0.5, np.float32), const("f1", 2.0, np.float32), const("f2", 0.4, np.float32),
        helper.make_node("Range", ["f0", "f1", "f2"], ["float_range"]),
        helper.make_node("NonZero", ["x"], ["nonzero"]),
    ]  # fmt: skip
    inputs = [("x", TensorProto.FLOAT, ["a", "b"]), ("lim", TensorProto.INT64, [])]

    def make_inputs(d: dict[str, int], rng: np.random.Generator) -> Inputs:
        x = _floats(rng, d["a"], d["b"]) * (rng.random((d["a"], d["b"])) < 0.5)
        return {"x": x.astype(np.float32), "lim": np.array(rng.integers(-4, 12))}

    return Case("generators", build(nodes, inputs), {"a": (0, 4), "b": (0, 5)}, make_inputs)


def reshapes_case() -> Case:
    """Rank 0 <-> 1, Squeeze/Unsqueeze, an opaque same-type target, a reordered target."""
    nodes = [
        const("ax0", [0]), const("empty", np.zeros(0, np.int64)),
        helper.make_node("Unsqueeze", ["scalar", "ax0"], ["up"]),
        helper.make_node("Reshape", ["single", "empty"], ["down"]),
        helper.make_node("Squeeze", ["single"], ["squeezed"]),
        helper.make_node("Reshape", ["x", "target"], ["opaque"]),
        helper.make_node("Shape", ["x"], ["x_shape"]),
        const("swap", [1, 0]),
        helper.make_node("Gather", ["x_shape", "swap"], ["swapped"]),
        helper.make_node("Reshape", ["x", "swapped"], ["reordered"], allowzero=1),
        const("ax1", [1]),
        helper.make_node("Unsqueeze", ["x", "ax1"], ["x_unsqueezed"]),
        helper.make_node("Squeeze", ["x_unsqueezed", "ax1"], ["x_again"]),
    ]  # fmt: skip
    inputs = [
        ("scalar", TensorProto.FLOAT, []),
        ("single", TensorProto.FLOAT, [1]),
        ("x", TensorProto.FLOAT, ["a", "b"]),
        ("target", TensorProto.INT64, [2]),
    ]

    def make_inputs(d: dict[str, int], rng: np.random.Generator) -> Inputs:
        a, b = d["a"], d["b"]
        target = [[b, a], [-1, a], [a * b, 1], [0, -1]][rng.integers(0, 4)]
        return {
            "scalar": np.array(1.5, np.float32),
            "single": _floats(rng, 1),
            "x": _floats(rng, a, b),
            "target": np.array(target, np.int64),
        }

    return Case("reshapes", build(nodes, inputs), {"a": (1, 5), "b": (1, 5)}, make_inputs)


CASES = {case.name: case for case in (heads_case(), slices_case(), movement_case(), generators_case(), reshapes_case())}

# --------------------------------------------------------------------------------------
# Conversion and runtime dims
# --------------------------------------------------------------------------------------


@functools.cache
def converted(name: str) -> ModuleOp:
    module = import_model(CASES[name].model)
    passes = available_passes()
    ctx = make_context()
    for pass_name in ("hip-add-context-arg", "convert-onnx-to-hip"):
        passes[pass_name]().apply(ctx, module)
    module.verify()
    return module


@functools.cache
def session(name: str) -> ort.InferenceSession:
    return ort.InferenceSession(CASES[name].model.SerializeToString(), providers=["CPUExecutionProvider"])


def main_func(module: ModuleOp) -> func.FuncOp:
    return next(op for op in module.ops if isinstance(op, func.FuncOp))


class RuntimeShapes:
    """The runtime dims of every tensor of a converted function, for concrete inputs."""

    def __init__(self, fn: func.FuncOp, arrays: Sequence[np.ndarray]):
        block = fn.body.block
        self.arrays: dict[SSAValue, np.ndarray] = dict(zip(block.args[1:], arrays, strict=True))
        self.bindings: dict[SSAValue, int] = {}
        self.dims: dict[SSAValue, list[int]] = {arg: list(a.shape) for arg, a in self.arrays.items()}
        for op in block.ops:
            self._visit(op)

    def evaluate(self, value: SSAValue | int) -> int:
        return HostIndexEvaluator(self.bindings).evaluate(value)

    def _visit(self, op: Operation) -> None:
        if isinstance(op, tensor.DimOp):
            self.bindings[op.result] = self.dims[op.source][self.evaluate(op.index)]
        elif isinstance(op, tensor.ExtractOp):
            indices = tuple(self.evaluate(i) for i in op.indices)
            self.bindings[op.result] = int(self.data(op.tensor)[indices])
        for result in op.results:
            if isinstance(result.type, TensorType):
                dims = self._result_dims(op, result)
                static = result.type.get_shape()
                assert all(s in (DYNAMIC_INDEX, d) for s, d in zip(static, dims, strict=True)), (op, dims)
                self.dims[result] = dims

    def _mixed(self, static: Sequence[int], dynamic: Sequence[SSAValue]) -> list[int]:
        values = iter(dynamic)
        return [self.evaluate(next(values)) if s == DYNAMIC_INDEX else s for s in static]

    def _result_dims(self, op: Operation, result: SSAValue) -> list[int]:
        if isinstance(op, tensor.EmptyOp):
            return self._mixed(result.type.get_shape(), op.dynamic_sizes)  # type: ignore[attr-defined]
        if isinstance(op, hip.DPSOp):
            return self.dims[op.tied_init(result)]  # type: ignore[index]
        if isinstance(op, tensor.ExtractSliceOp):
            return self._mixed(op.static_sizes.get_values(), op.sizes)
        if isinstance(op, tensor.ExpandShapeOp):
            return self._mixed(op.static_output_shape.get_values(), op.dynamic_output_shape)
        if isinstance(op, tensor.CollapseShapeOp):
            source = self.dims[op.src]
            return [int(np.prod([source[i.value.data] for i in group])) for group in op.reassociation]
        if isinstance(op, tensor.CastOp):
            return self.dims[op.source]
        if isinstance(op, tensor.ReshapeOp):
            return [int(v) for v in self.host_values(op.shape)]
        if isinstance(op, arith.ConstantOp | tensor.FromElementsOp):
            return list(result.type.get_shape())
        raise AssertionError(f"no runtime dims for {op.name}")

    def host_values(self, value: SSAValue) -> np.ndarray:
        """The elements of a tensor the host computed (a constant or from_elements)."""
        owner = value.owner
        if isinstance(owner, tensor.FromElementsOp):
            return np.array([self.evaluate(e) for e in owner.elements])
        assert isinstance(owner, arith.ConstantOp) and isinstance(owner.value, DenseIntOrFPElementsAttr)
        return np.array(owner.value.get_values()).reshape(value.type.get_shape())

    def data(self, value: SSAValue) -> np.ndarray:
        """Elements the host reads with tensor.extract: inputs, constants, NonZero's count."""
        if value in self.arrays:
            return self.arrays[value]
        owner = value.owner
        if isinstance(owner, hip.NonZeroOp) and value is owner.results[1]:
            return np.array(np.count_nonzero(self.data(owner.inputs[0])))
        assert not isinstance(owner, Block)
        return self.host_values(value)


def check_against_onnxruntime(name: str, extents: dict[str, int], seed: int) -> None:
    case = CASES[name]
    inputs = case.make_inputs(extents, np.random.default_rng(seed))
    fn = main_func(converted(name))
    arrays = [inputs[i.name] for i in case.model.graph.input]
    shapes = RuntimeShapes(fn, arrays)
    expected = session(name).run(None, inputs)
    returned = list(fn.body.block.last_op.operands)  # type: ignore[union-attr]
    for output, value, reference in zip(case.model.graph.output, returned, expected, strict=True):
        assert shapes.dims[value] == list(reference.shape), f"{output.name} at {extents}"
        owner = value.owner
        if isinstance(owner, tensor.CastOp):
            owner = owner.source.owner
        if isinstance(owner, tensor.FromElementsOp | arith.ConstantOp) and reference.dtype == np.int64:
            # Computed on the host: the values themselves must match.
            np.testing.assert_array_equal(shapes.host_values(owner.results[0]), reference, err_msg=output.name)


def extents_for(name: str) -> st.SearchStrategy[dict[str, int]]:
    ranges = CASES[name].dims
    return st.fixed_dictionaries({dim: st.integers(lo, hi) for dim, (lo, hi) in ranges.items()})


# --------------------------------------------------------------------------------------
# Tests
# --------------------------------------------------------------------------------------


def op_names(name: str) -> list[str]:
    return [op.name for op in main_func(converted(name)).body.block.ops]


@pytest.mark.parametrize("name", sorted(CASES))
def test_no_onnx_op_is_left(name: str):
    assert not [n for n in op_names(name) if n.startswith("onnx.")]


def test_attention_reshapes_are_views_without_payload_reads():
    names = op_names("heads")
    assert "tensor.reshape" not in names and "tensor.extract" not in names
    assert names.count("hip.transpose") == 1 and len([n for n in names if n.startswith("hip.")]) == 1
    assert {"tensor.expand_shape", "tensor.collapse_shape"} <= set(names)


def test_slice_reads_only_the_opaque_bounds():
    fn = main_func(converted("slices"))
    extracted = {op.tensor.owner.args.index(op.tensor) for op in fn.walk() if isinstance(op, tensor.ExtractOp)}  # type: ignore[union-attr]
    graph_inputs = [i.name for i in CASES["slices"].model.graph.input]
    assert sorted(graph_inputs[i - 1] for i in extracted) == ["ends", "starts", "step"]
    assert op_names("slices").count("hip.slice") == 2  # the backward and the runtime step


@given(extents=extents_for("heads"), seed=st.integers(0, 2**32 - 1))
@PROPERTY
def test_heads_match_onnxruntime(extents: dict[str, int], seed: int):
    check_against_onnxruntime("heads", extents, seed)


@given(extents=extents_for("slices"), seed=st.integers(0, 2**32 - 1))
@PROPERTY
def test_slices_match_onnxruntime(extents: dict[str, int], seed: int):
    check_against_onnxruntime("slices", extents, seed)


@given(extents=extents_for("movement"), seed=st.integers(0, 2**32 - 1))
@PROPERTY
def test_movement_matches_onnxruntime(extents: dict[str, int], seed: int):
    check_against_onnxruntime("movement", extents, seed)


@given(extents=extents_for("generators"), seed=st.integers(0, 2**32 - 1))
@PROPERTY
def test_generators_match_onnxruntime(extents: dict[str, int], seed: int):
    check_against_onnxruntime("generators", extents, seed)


@given(extents=extents_for("reshapes"), seed=st.integers(0, 2**32 - 1))
@PROPERTY
def test_reshapes_match_onnxruntime(extents: dict[str, int], seed: int):
    check_against_onnxruntime("reshapes", extents, seed)
