"""Export a small random-weight GPT-2 (2 layers) with torch.onnx's dynamo exporter.

    pip install torch transformers onnxscript   # not project dependencies
    python examples/export_gpt2.py [examples/gpt2_2layer.onnx]

The model is built from a GPT2Config (no download): 2 layers, 2 heads, hidden 64,
vocabulary 256, so the file stays small enough to ship. Inputs: input_ids
[batch, seq] int64 with both dims dynamic; output: logits [batch, seq, 256].
Opset 18. CI never runs this script; it uses the exported file.
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch
from transformers import GPT2Config, GPT2LMHeadModel


class LogitsOnly(torch.nn.Module):
    """GPT-2 without the key/value cache outputs: input_ids -> logits."""

    def __init__(self, model: GPT2LMHeadModel):
        super().__init__()
        self.model = model

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=input_ids, use_cache=False).logits


def main() -> None:
    target = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).with_name("gpt2_2layer.onnx"))
    torch.manual_seed(0)
    config = GPT2Config(n_layer=2, n_head=2, n_embd=64, vocab_size=256, n_positions=128)
    model = LogitsOnly(GPT2LMHeadModel(config).eval())
    example = torch.randint(0, 256, (2, 16), dtype=torch.int64)
    batch, seq = torch.export.Dim("batch", min=1, max=64), torch.export.Dim("seq", min=2, max=128)
    program = torch.onnx.export(
        model,
        (example,),
        dynamo=True,
        opset_version=18,
        input_names=["input_ids"],
        output_names=["logits"],
        dynamic_shapes={"input_ids": {0: batch, 1: seq}},
        external_data=False,
    )
    program.save(str(target))
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
