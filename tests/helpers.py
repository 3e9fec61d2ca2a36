"""What several pytest files need: parse-and-verify, passes by spec, import errors, the seed attention,
the check of a model against onnxruntime at several shapes.

Imported as `from helpers import ...` (tests/conftest.py puts this folder on sys.path).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, SSAValue

from xhip.context import make_context
from xhip.diagnostics import XhipError
from xhip.importer import import_model
from xhip.parsing import parse_module
from xhip.pass_runner import run_passes
from xhip.pipeline import instantiate, parse_pass_spec
from xhip.verify import verify_module

RUNTIME_INPUTS = Path(__file__).resolve().parent / "runtime_inputs"


def parse_verified(text: str, name: str = "input.mlir") -> ModuleOp:
    """`text` parsed as the file `name` and verified op by op (as xhip-opt does)."""
    module = parse_module(make_context(), text, name)
    verify_module(module)
    return module


def after_passes(module: ModuleOp, spec: str) -> ModuleOp:
    """A copy of `module` after the passes of `spec` (xhip-opt -p syntax), verified."""
    result = module.clone()
    run_passes(make_context(), result, instantiate(parse_pass_spec(spec)))
    verify_module(result)
    return result


def import_error(model: onnx.ModelProto | Path) -> str:
    """The one-line error importing `model` (a model or a file) raises."""
    with pytest.raises(XhipError) as info:
        import_model(model)
    text = str(info.value)
    assert "\n" not in text
    return text


def ops_of(module: ModuleOp, op_type: type[Operation]) -> list[Operation]:
    return [op for op in module.walk() if isinstance(op, op_type)]


def named_values(module: ModuleOp) -> dict[str, SSAValue]:
    """The op results of `module` by their name in the text (`%q` is "q")."""
    return {v.name_hint: v for op in module.walk() for v in op.results if v.name_hint}


def first_function_block(module: ModuleOp) -> Block:
    return next(iter(module.ops)).regions[0].blocks.first


# -- the reference runtime's execution modes ----------------------------------------------------

EXECUTION_MODES = [{}, {"deferred": True}, {"sanitize": True}]
"""Program order, the queued (GPU-like) order, and the sanitizer: a correct program passes all three."""
EXECUTION_MODE_IDS = ["normal", "deferred", "sanitize"]


# -- the seed 003 attention, weights as inputs ------------------------------------------------

ATTENTION_MLIR = RUNTIME_INPUTS / "attention.mlir"

MEMORY_PASSES = [
    "hip-materialize-host-scalars",
    "hip-optimize-memrefs",
    "hip-resolve-memref-dims",
    "cse",
    "hip-hoist-alloc-size-arith",
]
"""The passes between bufferization and pooling, in the order pipelines/default.yaml runs them."""


def seed_attention() -> ModuleOp:
    """tests/runtime_inputs/attention.mlir: the attention buffers before the memory passes."""
    return parse_verified(ATTENTION_MLIR.read_text(), ATTENTION_MLIR.name)


def seed_attention_onnx() -> onnx.ModelProto:
    """The computation of tests/runtime_inputs/attention.mlir as an ONNX model, for onnxruntime."""
    nodes = [
        helper.make_node("MatMul", ["X", "Wq"], ["q"]),
        helper.make_node("MatMul", ["X", "Wk"], ["k"]),
        helper.make_node("MatMul", ["X", "Wv"], ["v"]),
        helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 2, 1]),
        helper.make_node("MatMul", ["q", "kt"], ["qk"]),
        helper.make_node("Mul", ["qk", "scale"], ["scaled"]),
        helper.make_node("Softmax", ["scaled"], ["sm"], axis=-1),
        helper.make_node("MatMul", ["sm", "v"], ["out"]),
    ]
    weights = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [64, 64]) for n in ("Wq", "Wk", "Wv")]
    inputs = [
        helper.make_tensor_value_info("X", TensorProto.FLOAT, ["batch", "seq", 64]),
        *weights,
        helper.make_tensor_value_info("scale", TensorProto.FLOAT, []),
    ]
    outputs = [helper.make_tensor_value_info("out", TensorProto.FLOAT, ["batch", "seq", 64])]
    graph = helper.make_graph(nodes, "attention", inputs, outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def seed_attention_feeds(rng: np.random.Generator, batch: int, seq: int) -> dict[str, np.ndarray]:
    """Inputs of the seed attention: weights scaled by 1/8 so that softmax stays well spread."""
    feeds = {"X": rng.standard_normal((batch, seq, 64)).astype(np.float32)}
    feeds.update({n: (rng.standard_normal((64, 64)) / 8).astype(np.float32) for n in ("Wq", "Wk", "Wv")})
    feeds["scale"] = np.array(0.125, np.float32)
    return feeds


def runs_like_onnxruntime(model: onnx.ModelProto, pipeline, feeds_list) -> list[dict[str, np.ndarray]]:
    """`model` through `pipeline` on the reference backend, run at each of `feeds_list`
    (one executable: run-time shapes), each run's outputs passing the check against
    onnxruntime (the float64 rule, in the precision it computed in); the outputs."""
    import xhip
    from xhip.runtime.check import check_outputs, references

    executable = xhip.compile(model, pipeline, backend="reference")
    runs = []
    for feeds in feeds_list:
        outputs = executable.run(feeds)
        result = check_outputs(outputs, references(model, feeds), "reference", executable.compute_dtype)
        assert result.passed, result.problems
        runs.append(outputs)
    return runs
