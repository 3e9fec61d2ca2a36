"""one-shot-bufferize + hip-use-output-allocator on whole models, against onnxruntime.

Each model is compiled with the default pipeline up to its first `cse`, then the
two passes; the memref IR runs on the reference backend, normally and under the
sanitizer (which fails on a read of bytes another live buffer overwrote), and
must match onnxruntime. The IR itself must hold the stage's contract: no tensor
left, and every graph output a `hip.alloc_output` of its own index.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import onnx
import pytest
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import ModuleOp, TensorType

from xhip.api import DEFAULT_PIPELINE, compile_stages
from xhip.constants_file import ConstantsStore
from xhip.context import make_context
from xhip.diagnostics import XhipError
from xhip.dialects.hip import AllocOutputOp
from xhip.parsing import parse_module
from xhip.pass_runner import run_passes
from xhip.passes.use_output_allocator import UseOutputAllocatorPass
from xhip.pipeline import Pipeline, load_pipeline, parse_pass_spec
from xhip.runtime.check import compare, onnxruntime_outputs
from xhip.runtime.executable import Executable
from xhip.testing.models import MODELS as MODEL_SET
from xhip.testing.models import attention

REPO = Path(__file__).resolve().parents[1]
RNG = np.random.default_rng(2024)


def _bufferize_pipeline() -> Pipeline:
    default = load_pipeline(DEFAULT_PIPELINE)
    names = [entry.name for entry in default.passes]
    ours = parse_pass_spec("one-shot-bufferize,hip-use-output-allocator").passes
    return dataclasses.replace(default, name="bufferize", passes=default.passes[: names.index("cse") + 1] + ours)


def _compile(model: onnx.ModelProto) -> tuple[ModuleOp, ConstantsStore]:
    """The IR after the two passes, and the store holding its constants file."""
    *_, (_, module, constants) = compile_stages(model, _bufferize_pipeline())
    return module, constants


MODELS = {name: MODEL_SET[name] for name in (
    "attention", "max_4x1_4x8", "nonzero", "slice_from_shape", "reshape_flatten", "concat_split", "gpt2"
)}  # fmt: skip


def _attention():
    return attention(RNG)


HOST_READS_DEVICE_DATA = {"nonzero"}
"""Models whose host code reads a device-written value (NonZero's count) at this stage:
hip-lower-host-visibility makes that read wait for its producer, not these passes."""


@pytest.fixture(scope="module", params=sorted(MODELS))
def compiled(request):
    model, feeds = MODELS[request.param](RNG)
    module, constants = _compile(model)
    return request.param, model, feeds, module, constants


def _check_contract(module: ModuleOp) -> None:
    for op in module.walk():
        types = [v.type for v in (*op.operands, *op.results)]
        assert not any(isinstance(t, TensorType) for t in types), f"tensor left in {op.name}"
    main = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    returned = main.body.blocks.first.last_op
    assert isinstance(returned, func.ReturnOp)
    for index, value in enumerate(returned.arguments):
        assert isinstance(value.owner, AllocOutputOp), f"output {index} is {value.owner.name}"
        assert value.owner.out_idx.value.data == index


def test_matches_onnxruntime(compiled):
    name, model, feeds, module, constants = compiled
    _check_contract(module)
    outputs = Executable(module.clone(), constants=constants).run(feeds)
    result = compare(outputs, onnxruntime_outputs(model, feeds))
    assert result.passed, f"{name}: {result.problems}"


def test_sanitized_run(compiled):
    name, model, feeds, module, constants = compiled
    executable = Executable(module.clone(), sanitize=True, constants=constants)
    if name in HOST_READS_DEVICE_DATA:
        with pytest.raises(XhipError, match="host read"):
            executable.run(feeds)
        return
    result = compare(executable.run(feeds), onnxruntime_outputs(model, feeds))
    assert result.passed, f"{name}: {result.problems}"


def test_attention_allocates_buffers_not_views():
    module, _ = _compile(_attention()[0])
    ops = [op.name for op in module.walk()]
    # Seed 003 pass 3: one buffer per kernel output; the last one is the graph output. The
    # kernels: the Q|K|V projection (onnx-merge-sibling-matmuls), Kᵀ, QKᵀ, the scale, the softmax.
    assert ops.count("memref.alloc") == 5
    assert ops.count("hip.alloc_output") == 1
    assert "memref.copy" not in ops


# -- the rank-expanding output, executed --------------------------------------------------

RANK_EXPANDING = """
func.func @main_graph(%ctx: !hip.context, %x: memref<?x?xf32> {onnx.name = "x", onnx.dim_params = "0:b,1:s"})
    -> (memref<?x?xf32> {onnx.name = "y"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = memref.dim %x, %c0 : memref<?x?xf32>
  %s = memref.dim %x, %c1 : memref<?x?xf32>
  %bs = arith.muli %b, %s : index
  %flat = memref.alloc(%bs) : memref<?xf32>
  %xf = memref.collapse_shape %x [[0, 1]] : memref<?x?xf32> into memref<?xf32>
  hip.relu(%ctx) ins(%xf : memref<?xf32>) outs(%flat : memref<?xf32>)
  %y = memref.expand_shape %flat [[0, 1]] output_shape [%b, %s] : memref<?xf32> into memref<?x?xf32>
  func.return %y : memref<?x?xf32>
}
"""


@pytest.mark.parametrize("shape", [(3, 5), (1, 7), (0, 4)])
def test_rank_expanding_output_has_both_external_dims(shape):
    ctx = make_context()
    module = parse_module(ctx, RANK_EXPANDING, "rank_expanding.mlir")
    run_passes(ctx, module, [UseOutputAllocatorPass()])
    (output,) = [op for op in module.walk() if isinstance(op, AllocOutputOp)]
    assert [v.name_hint for v in output.dynamic_sizes] == ["b", "s"]
    assert not [op for op in module.walk() if isinstance(op, memref.AllocOp)]
    x = RNG.standard_normal(shape).astype(np.float32)
    y = Executable(module, sanitize=True).run({"x": x})["y"]
    assert y.shape == shape
    np.testing.assert_array_equal(y, np.maximum(x, 0))
