"""A GPT-2-shaped decoder step with its key/value cache, written out, and its ONNX export.

    step(input_ids [B, 1], position_ids [B, 1], past_key_0, past_value_0, ...) ->
        (logits [B, 1, V], present_key_0, present_value_0, ...)

with `present = Concat(past, new)` along the sequence axis of every layer's K and V
([B, heads, P, head_dim] -> [B, heads, P + 1, head_dim]): the legacy tuple layout that
torch.onnx exports of transformers' decoders produce. GPT-2 124M's sizes by default
(12 layers, width 768, 12 heads, vocabulary 50257, 1024 positions), random weights
from `torch.manual_seed(0)`: pre-LayerNorm blocks (epsilon 1e-5), tanh GELU, an LM head
tied to the token embedding. `prefill` runs a prompt without a cache and returns its
cache (what a generation loop feeds the first step); `full_logits` is the non-cached
run of a whole sequence (causal attention), the reference a cached decode must equal.

Only the benchmarks and the tests' exports import this (torch is an export-time tool).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn


@dataclass(frozen=True)
class DecoderSizes:
    layers: int = 12
    width: int = 768
    heads: int = 12
    vocab: int = 50257
    positions: int = 1024

    @property
    def head_dim(self) -> int:
        return self.width // self.heads


def cache_names(layers: int, prefix: str) -> list[str]:
    """`past` or `present` names in the order the step takes and returns them: key, value per layer."""
    return [f"{prefix}_{kind}_{i}" for i in range(layers) for kind in ("key", "value")]


class Block(nn.Module):
    def __init__(self, sizes: DecoderSizes):
        super().__init__()
        w = sizes.width
        self.heads, self.head_dim = sizes.heads, sizes.head_dim
        self.ln_1, self.ln_2 = nn.LayerNorm(w, eps=1e-5), nn.LayerNorm(w, eps=1e-5)
        self.qkv, self.proj = nn.Linear(w, 3 * w), nn.Linear(w, w)
        self.fc, self.fc_out = nn.Linear(w, 4 * w), nn.Linear(4 * w, w)

    def _heads(self, x: torch.Tensor) -> torch.Tensor:
        b, t, _ = x.shape
        return x.view(b, t, self.heads, self.head_dim).transpose(1, 2)

    def forward(self, x: torch.Tensor, past_k: torch.Tensor | None, past_v: torch.Tensor | None, causal: bool):
        b, t, w = x.shape
        q, k, v = self.qkv(self.ln_1(x)).split(w, dim=-1)
        q, k, v = self._heads(q), self._heads(k), self._heads(v)
        if past_k is not None:
            k, v = torch.cat([past_k, k], dim=2), torch.cat([past_v, v], dim=2)
        attended = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        x = x + self.proj(attended.transpose(1, 2).reshape(b, t, w))
        x = x + self.fc_out(F.gelu(self.fc(self.ln_2(x)), approximate="tanh"))
        return x, k, v


class DecoderStep(nn.Module):
    """The cached step as `forward` (what is exported), the prompt and full runs beside it."""

    def __init__(self, sizes: DecoderSizes = DecoderSizes()):
        super().__init__()
        self.sizes = sizes
        self.wte, self.wpe = nn.Embedding(sizes.vocab, sizes.width), nn.Embedding(sizes.positions, sizes.width)
        self.blocks = nn.ModuleList([Block(sizes) for _ in range(sizes.layers)])
        self.ln_f = nn.LayerNorm(sizes.width, eps=1e-5)
        for name, p in self.named_parameters():  # GPT-2's initialisation: N(0, 0.02), projections scaled
            if p.dim() > 1:
                std = 0.02 / math.sqrt(2 * sizes.layers) if name.endswith(("proj.weight", "fc_out.weight")) else 0.02
                nn.init.normal_(p, 0.0, std)
            elif name.endswith("bias"):
                nn.init.normal_(p, 0.0, 0.02)

    def _logits(self, x: torch.Tensor) -> torch.Tensor:
        return self.ln_f(x) @ self.wte.weight.T

    def forward(self, input_ids: torch.Tensor, position_ids: torch.Tensor, *past: torch.Tensor):
        x = self.wte(input_ids) + self.wpe(position_ids)
        present = []
        for i, block in enumerate(self.blocks):
            x, k, v = block(x, past[2 * i], past[2 * i + 1], causal=False)  # one new token sees all of the cache
            present += [k, v]
        return (self._logits(x), *present)

    def prefill(self, input_ids: torch.Tensor) -> list[torch.Tensor]:
        """The cache of a prompt (key, value per layer), as the step takes it."""
        positions = torch.arange(input_ids.shape[1], device=input_ids.device).expand_as(input_ids)
        x, cache = self.wte(input_ids) + self.wpe(positions), []
        for block in self.blocks:
            x, k, v = block(x, None, None, causal=True)
            cache += [k, v]
        return cache

    def full_logits(self, input_ids: torch.Tensor) -> torch.Tensor:
        """The last position's logits [B, 1, V] of the whole sequence, no cache."""
        positions = torch.arange(input_ids.shape[1], device=input_ids.device).expand_as(input_ids)
        x = self.wte(input_ids) + self.wpe(positions)
        for block in self.blocks:
            x, _, _ = block(x, None, None, causal=True)
        return self._logits(x[:, -1:])


def build(sizes: DecoderSizes = DecoderSizes()) -> DecoderStep:
    torch.manual_seed(0)
    return DecoderStep(sizes).eval()


def export(module: DecoderStep, path: Path) -> Path:
    """torch.onnx (dynamo, opset 18) with batch and past length dynamic."""
    sizes = module.sizes
    batch, past = torch.export.Dim("batch", min=1, max=64), torch.export.Dim("past", min=1, max=sizes.positions - 1)
    example_past = [torch.randn(2, sizes.heads, 16, sizes.head_dim) for _ in range(2 * sizes.layers)]
    ids, positions = torch.randint(0, sizes.vocab, (2, 1)), torch.full((2, 1), 16)
    dynamic = ({0: batch}, {0: batch}, tuple({0: batch, 2: past} for _ in example_past))  # *past: one tuple
    with torch.no_grad():
        program = torch.onnx.export(
            module, (ids, positions, *example_past), dynamo=True, opset_version=18,
            input_names=["input_ids", "position_ids", *cache_names(sizes.layers, "past")],
            output_names=["logits", *cache_names(sizes.layers, "present")],
            dynamic_shapes=dynamic, external_data=False, verbose=False,
        )  # fmt: skip
    program.save(str(path))
    import onnx

    model = onnx.load(path)
    model.ir_version = min(model.ir_version, 10)  # onnxruntime reads up to 10
    onnx.save(model, path)
    return path
