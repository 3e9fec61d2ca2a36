"""GPT-2's tied lm_head on a real export: wte is never transposed, at run time or at compile time.

examples/gpt2_2layer.onnx ties the lm_head to the token embedding: its logits
are `MatMul(h, Transpose(wte))`. Left an op, that Transpose of a weight ran on
every call, as one launch into a pool buffer the size of the weight (64 x 256
f32; measured on the reference backend at input_ids 1x1: 91 launches and 65792
pool bytes). onnx-fold-constants then folded it into a transposed copy of wte
(90 launches, 8704 pool bytes, but the weight twice in the constants file).
Now hip.matmul reads wte itself with trans_b, with or without the pass: no
launch, no pool buffer and no copy.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

import xhip
from xhip.runtime.executable import Executable
from xhip.dialects import hip
from xhip.dialects.hip.attributes import CONSTANTS_SIZE_ATTR

REPO = Path(__file__).resolve().parents[1]
GPT2 = REPO / "examples" / "gpt2_2layer.onnx"
DEFAULT = REPO / "pipelines" / "default.yaml"


@pytest.fixture(scope="module")
def unfolded_pipeline(tmp_path_factory) -> Path:
    """The default pipeline without onnx-fold-constants: the program before this pass existed."""
    path = tmp_path_factory.mktemp("pipelines") / "unfolded.yaml"
    path.write_text(
        f"extends: {DEFAULT}\nname: unfolded\ndescription: default without folding\n"
        "remove: [onnx-fold-constants]\n"
    )
    return path


def weight_transposes(executable: Executable) -> list[hip.TransposeOp]:
    """The hip.transpose ops of the lowered program that read a constant."""
    return [
        op
        for op in executable.module.walk()
        if isinstance(op, hip.TransposeOp) and isinstance(op.inputs[0].owner, hip.GetConstantOp)
    ]


def run_once(pipeline: Path) -> Executable:
    executable = xhip.compile(GPT2, pipeline, backend="reference")
    executable.run({"input_ids": np.zeros((1, 1), dtype=np.int64)})
    return executable


def test_gpt2_transposes_no_weight_at_run_time(unfolded_pipeline):
    assert weight_transposes(run_once(unfolded_pipeline)) == []
    assert weight_transposes(run_once(DEFAULT)) == []


def test_gpt2_lm_head_needs_no_launch_no_pool_buffer_and_no_copy_of_wte(unfolded_pipeline):
    unfolded, folded = run_once(unfolded_pipeline), run_once(DEFAULT)
    assert folded.report.kernel_launches == unfolded.report.kernel_launches
    # At 1x1 a transposed weight (64 x 256 f32) would be the largest buffer.
    weight_bytes = 64 * 256 * 4
    assert folded.report.pool_bytes < weight_bytes
    # The constants file holds the model's weights once: a folded copy of wte would add 64 KiB.
    (lm_head,) = [op for op in folded.module.walk() if isinstance(op, hip.MatmulOp) and op.trans_b.value.data]
    assert isinstance(lm_head.inputs[1].owner, hip.GetConstantOp)
    model_weights = sum(numpy_helper.to_array(t).nbytes for t in onnx.load(GPT2).graph.initializer)
    assert folded.module.attributes[CONSTANTS_SIZE_ATTR].value.data < model_weights + weight_bytes


def test_a_layer_norm_of_constants_folds_with_its_absent_optional_outputs():
    """LayerNormalization's Mean and InvStdDev, left out by the model, are results typed none:
    folding the op (its operands constant) drops them with it. Before, the pass stopped on an
    AssertionError (DeBERTa-v2's export)."""
    from onnx import TensorProto, helper

    from xhip.runtime.check import check_outputs, references

    rng = np.random.default_rng(0)
    initializers = [
        numpy_helper.from_array(rng.standard_normal((4, 8)).astype(np.float32), "c"),
        numpy_helper.from_array(rng.standard_normal(8).astype(np.float32), "g"),
    ]
    nodes = [
        helper.make_node("LayerNormalization", ["c", "g"], ["ln"], axis=-1),
        helper.make_node("ReduceSum", ["ln"], ["s"], keepdims=0),
        helper.make_node("Add", ["x", "s"], ["y"]),
    ]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 8])
    model = helper.make_model(helper.make_graph(nodes, "g", [x], [y], initializers), opset_imports=[helper.make_opsetid("", 18)])
    executable = xhip.compile(model, backend="reference")
    assert not any(isinstance(op, hip.LayerNormOp) for op in executable.module.walk())  # folded at compile time
    feeds = {"x": rng.standard_normal((3, 8)).astype(np.float32)}
    result = check_outputs(executable.run(feeds), references(model, feeds), "reference")
    assert result.passed, result.summary()
