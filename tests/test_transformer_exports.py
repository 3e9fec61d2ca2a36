"""Real torch.onnx exports of transformer families, compiled and run against onnxruntime.

examples/ holds tiny random-weight models written by
`benchmarks/export_models.py --small` (torch's dynamo exporter, opset 18, dynamic
`batch` and `seq` on every input and output; each under 1 MB):

* bert_tiny_64: BertModel, 2 layers, hidden 64, with token_type_ids as an input;
* roberta_tiny: RobertaModel, 2 layers, hidden 64, without token_type_ids, so its
  embeddings gather the buffered token types with GatherElements, and its positions
  come from a CumSum over the padding mask;
* llama_tiny: LlamaForCausalLM, 2 layers, hidden 64, grouped-query attention, RMSNorm
  (Pow/ReduceMean/Add/Sqrt/Reciprocal), rotary embeddings (Sin/Cos/Neg/Slice/Concat),
  SiLU (Sigmoid*Mul) and a causal mask built from Range/LessOrEqual/GatherND.

Each compiles once under the default pipeline and runs at two shapes, with token ids
in range and a padded attention mask, against onnxruntime (xhip.runtime.check).
"""

from __future__ import annotations

import functools

import numpy as np
import onnx
import pytest

import xhip
from xhip.runtime.check import compare, onnxruntime_outputs
from xhip.testing.models import EXAMPLES, TRANSFORMER_EXPORTS

NEW_OPS = {"roberta_tiny": "hip.gather_elements", "llama_tiny": "hip.sin"}
"""An op each model reaches only through what this test set added."""
SHAPES = [(1, 1), (3, 17)]
"""(batch, seq): a single token, and a padded batch (positions stay within 128)."""


def token_feeds(model: onnx.ModelProto, vocabulary: int, batch: int, seq: int) -> dict[str, np.ndarray]:
    """Token ids in [0, vocabulary), an attention mask whose last row is padded at the
    end (never fully: a row of only padding is not a sentence), token types 0 then 1."""
    rng = np.random.default_rng(batch * 1000 + seq)
    mask = np.ones((batch, seq), np.int64)
    if batch > 1:
        mask[-1, seq - seq // 3 :] = 0
    values = {
        # RoBERTa reserves ids 0..2 (padding is 1): real tokens start above them.
        "input_ids": rng.integers(3, vocabulary, (batch, seq), dtype=np.int64),
        "attention_mask": mask,
        "token_type_ids": np.broadcast_to((np.arange(seq) >= seq // 2).astype(np.int64), (batch, seq)).copy(),
    }
    return {value.name: values[value.name] for value in model.graph.input}


@pytest.fixture(scope="module")
def compiled():
    """name -> (model, executable), each compiled once under the default pipeline."""

    @functools.cache
    def compile_export(name: str):
        model = onnx.load(EXAMPLES / f"{name}.onnx")
        return model, xhip.compile(model)

    return compile_export


def test_the_exports_are_small_real_models():
    for name in TRANSFORMER_EXPORTS:
        path = EXAMPLES / f"{name}.onnx"
        assert path.stat().st_size < 5_000_000, f"{path} is too large to commit"
        model = onnx.load(path)
        assert model.opset_import[0].version == 18 and model.producer_name == "pytorch"
        for value in (*model.graph.input, *model.graph.output):
            assert [d.dim_param for d in value.type.tensor_type.shape.dim[:2]] == ["batch", "seq"], value.name


@pytest.mark.parametrize("batch, seq", SHAPES)
@pytest.mark.parametrize("name", sorted(TRANSFORMER_EXPORTS))
def test_export_matches_onnxruntime(compiled, name, batch, seq):
    model, executable = compiled(name)
    feeds = token_feeds(model, TRANSFORMER_EXPORTS[name], batch, seq)
    result = compare(executable.run(feeds), onnxruntime_outputs(model, feeds))
    assert result.passed, f"{name} at batch {batch}, seq {seq}: {result.problems}"


@pytest.mark.parametrize("name", sorted(NEW_OPS))
def test_the_new_ops_are_on_the_path(compiled, name):
    _, executable = compiled(name)
    assert any(op.name == NEW_OPS[name] for op in executable.module.walk())
