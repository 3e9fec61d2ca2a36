"""A real GPT-2 export converts completely: examples/gpt2_2layer.onnx.

The model comes from torch.onnx's dynamo exporter at opset 18 (examples/export_gpt2.py):
2 layers, hidden 64, vocabulary 256, input_ids [batch, seq] int64, logits
[batch, seq, 256]. Its shape code is what exporters really write (Shape/Slice/Concat
chains into Reshape, Range + Expand + GatherND for the causal mask, CumSum over
positions, Split into q/k/v, IsNaN after Softmax).

After hip-add-context-arg, convert-onnx-to-hip, canonicalize and cse: no onnx op is
left, the module verifies, the two runtime extents are read once each, the logits'
dims evaluated at concrete extents equal onnxruntime's output shape, and the
reference runtime's logits equal onnxruntime's.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
from xdsl.dialects import arith, func, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, ModuleOp, TensorType
from xdsl.ir import SSAValue

from xhip.context import make_context
from xhip.dialects import hip
from xhip.importer import import_model
from xhip.index.host_eval import HostIndexEvaluator
from xhip.pass_runner import run_passes
from xhip.passes import available_passes
from xhip.verify import verify_module

MODEL = Path(__file__).resolve().parent.parent / "examples" / "gpt2_2layer.onnx"
PIPELINE = ("hip-add-context-arg", "convert-onnx-to-hip", "canonicalize", "cse")
VOCABULARY = 256
EXTENTS = [(1, 7), (3, 16), (2, 1), (4, 33)]
"""(batch, seq) pairs; seq stays within the model's 128 positions."""


@pytest.fixture(scope="module")
def converted() -> ModuleOp:
    module = import_model(MODEL)
    passes = available_passes()
    run_passes(make_context(), module, [passes[name]() for name in PIPELINE])
    return module


@pytest.fixture(scope="module")
def session() -> ort.InferenceSession:
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 3
    return ort.InferenceSession(str(MODEL), options, providers=["CPUExecutionProvider"])


def main_graph(module: ModuleOp) -> func.FuncOp:
    (function,) = [op for op in module.ops if isinstance(op, func.FuncOp)]
    return function


def input_extents(function: func.FuncOp) -> dict[int, SSAValue]:
    """Axis -> the `tensor.dim` of input_ids that reads it."""
    input_ids = function.body.block.args[1]
    extents: dict[int, SSAValue] = {}
    for op in function.walk():
        if isinstance(op, tensor.DimOp) and op.source is input_ids:
            index = op.index.owner
            assert isinstance(index, arith.ConstantOp)
            axis = index.value.value.data  # type: ignore[attr-defined]
            assert axis not in extents, f"axis {axis} of input_ids is read twice"
            extents[axis] = op.result
    return extents


def declared_dims(value: SSAValue) -> list[int | SSAValue]:
    """The dims a tensor value was created with: static ones from its type, runtime ones
    from the op that sized it (a destination's `tensor.empty`, an `expand_shape`)."""
    owner = value.owner
    if isinstance(owner, hip.DPSOp):
        init = owner.tied_init(value)
        assert init is not None
        return declared_dims(init)
    if isinstance(owner, tensor.CastOp):
        return declared_dims(owner.source)
    if isinstance(owner, tensor.EmptyOp):
        runtime = iter(owner.dynamic_sizes)
    elif isinstance(owner, tensor.ExpandShapeOp):
        runtime = iter(owner.output_shape)
    else:
        raise AssertionError(f"cannot tell the dims of a value made by {owner.name}")
    assert isinstance(value.type, TensorType)
    return [next(runtime) if d == DYNAMIC_INDEX else d for d in value.type.get_shape()]


def test_converts_completely_and_verifies(converted: ModuleOp):
    verify_module(converted)
    left = sorted({op.name for op in converted.walk() if op.name.startswith("onnx.")})
    assert not left, left
    counts: dict[str, int] = {}
    for op in converted.walk():
        counts[op.name] = counts.get(op.name, 0) + 1
    # The model's compute, op for op: two layers of attention and MLP, five layer norms.
    expected = {
        "hip.layer_norm": 5,
        "hip.softmax": 2,
        "hip.isnan": 2,
        "hip.cumsum": 1,
        "hip.gemm": 8,
        "hip.matmul": 5,
        "hip.split": 0,  # the q/k/v split is three tensor.extract_slice views
        "hip.tanh": 2,
        "hip.pow": 2,
    }
    assert {name: counts.get(name, 0) for name in expected} == expected


def test_each_runtime_extent_is_read_once(converted: ModuleOp):
    function = main_graph(converted)
    extents = input_extents(function)
    assert sorted(extents) == [0, 1]
    dims = [op for op in function.walk() if isinstance(op, tensor.DimOp)]
    assert len(dims) == 2, [str(op) for op in dims]
    # The logits are sized by those very values: [batch, seq, 256].
    (logits,) = function.get_return_op().operands  # type: ignore[union-attr]
    assert declared_dims(logits) == [extents[0], extents[1], VOCABULARY]


@pytest.mark.parametrize("batch, seq", EXTENTS)
def test_logits_dims_match_onnxruntime(converted: ModuleOp, session: ort.InferenceSession, batch: int, seq: int):
    function = main_graph(converted)
    extents = input_extents(function)
    evaluator = HostIndexEvaluator({extents[0]: batch, extents[1]: seq})
    (logits,) = function.get_return_op().operands  # type: ignore[union-attr]
    dims = evaluator.evaluate_all(declared_dims(logits))
    input_ids = np.random.default_rng(batch * 100 + seq).integers(0, VOCABULARY, (batch, seq))
    (expected,) = session.run(None, {"input_ids": input_ids.astype(np.int64)})
    assert tuple(dims) == expected.shape == (batch, seq, VOCABULARY)


def test_reference_runtime_logits_match_onnxruntime(converted: ModuleOp, session: ort.InferenceSession):
    from xhip.runtime.executable import Executable

    executable = Executable(converted, "reference")
    rng = np.random.default_rng(7)
    for batch, seq in EXTENTS:
        input_ids = rng.integers(0, VOCABULARY, (batch, seq)).astype(np.int64)
        (expected,) = session.run(None, {"input_ids": input_ids})
        got = executable.run({"input_ids": input_ids})["logits"]
        assert got.shape == expected.shape
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)
