"""Export a small random-weight GPT-2 decoder step with its key/value cache (transformers'
DynamicCache) through torch.onnx's dynamo exporter.

    pip install torch transformers onnxscript   # not project dependencies
    python examples/export_gpt2_kv.py [examples/gpt2_kv_tiny.onnx]

GPT2Config with 2 layers, 4 heads of 16 (hidden 64), vocabulary 256 (no download). Inputs:
input_ids [batch, 1] and past_{key,value}_{i} [batch, 4, past, 16]; outputs: logits
[batch, 1, 256] and present_{key,value}_{i} [batch, 4, past + 1, 16], each present the
`torch.cat` of past and the step's keys or values inside transformers' attention: the form
hip-append-kv-caches rewrites. Opset 18, one file. CI never runs this script; it uses the
exported file (tests/test_kv_cache.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

import onnx
import torch
from transformers import GPT2Config, GPT2LMHeadModel
from transformers.cache_utils import DynamicCache

LAYERS, HEADS, HEAD_DIM = 2, 4, 16


class Step(torch.nn.Module):
    """One decode step: the cache in as flat tensors, the grown cache out."""

    def __init__(self, model: GPT2LMHeadModel):
        super().__init__()
        self.model = model

    def forward(self, input_ids: torch.Tensor, *past: torch.Tensor):
        cache = DynamicCache()
        for layer in range(LAYERS):
            cache.update(past[2 * layer], past[2 * layer + 1], layer)
        out = self.model(input_ids=input_ids, past_key_values=cache, use_cache=True)
        grown = [t for layer in out.past_key_values.layers for t in (layer.keys, layer.values)]
        return (out.logits, *grown)


def main(path: Path) -> None:
    torch.manual_seed(0)
    config = GPT2Config(n_layer=LAYERS, n_embd=HEADS * HEAD_DIM, n_head=HEADS, vocab_size=256, n_positions=128, bos_token_id=0, eos_token_id=0)
    model = GPT2LMHeadModel(config).eval()
    names = [f"past_{kind}_{i}" for i in range(LAYERS) for kind in ("key", "value")]
    batch, past = torch.export.Dim("batch"), torch.export.Dim("past", min=1, max=120)
    example = (torch.randint(0, 256, (2, 1)), *[torch.randn(2, HEADS, 5, HEAD_DIM) for _ in names])
    program = torch.onnx.export(
        Step(model), example, dynamo=True, opset_version=18,
        input_names=["input_ids", *names], output_names=["logits", *[n.replace("past", "present") for n in names]],
        dynamic_shapes={"input_ids": {0: batch}, "past": tuple({0: batch, 2: past} for _ in names)},
    )  # fmt: skip
    onnx.save(program.model_proto, path)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_name("gpt2_kv_tiny.onnx"))
