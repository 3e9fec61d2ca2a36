"""onnx-fold-constants on a real export: GPT-2's tied lm_head no longer transposes wte per call.

examples/gpt2_2layer.onnx ties the lm_head to the token embedding: its logits
are `MatMul(h, Transpose(wte))`. Without folding, that Transpose of a weight
runs on every call, as one launch into a pool buffer the size of the weight
(64 x 256 f32). Measured on the reference backend at input_ids 1x1:
91 launches and 65792 pool bytes without the pass, 90 and 8704 with it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import xhip
from xhip.runtime.executable import Executable
from xhip.dialects import hip

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
    assert len(weight_transposes(run_once(unfolded_pipeline))) == 1
    assert weight_transposes(run_once(DEFAULT)) == []


def test_gpt2_folding_saves_a_launch_and_the_weight_sized_pool_buffer(unfolded_pipeline):
    before, after = run_once(unfolded_pipeline).report, run_once(DEFAULT).report
    assert after.kernel_launches == before.kernel_launches - 1
    # At 1x1 the transposed weight (64 x 256 f32) is the largest buffer: the
    # pool held it before and now holds nothing that large.
    weight_bytes = 64 * 256 * 4
    assert before.pool_bytes >= weight_bytes > after.pool_bytes
