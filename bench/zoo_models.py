"""The model zoo of `bench/zoo.py`: public architectures from their reference
implementations (torchvision, transformers), random weights, exported to ONNX.

torch, torchvision and transformers are the `bench` extra
(`pip install -e '.[bench]'`), never a dependency of lamina itself. Each model is
exported once into the zoo folder (`$LAMINA_ZOO`, default `~/.cache/lamina/zoo`)
and read back from there afterwards.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import onnx

SEQ = 128  # the sequence length of the text models


@dataclass(frozen=True)
class Entry:
    """One architecture: its class (for the table) and how to build it."""

    kind: str
    build: Callable[[], tuple[Any, tuple[Any, ...], list[str]]]
    #: torch.export's ONNX exporter, or the TorchScript one (False) for a model
    #: torch.export cannot trace (wav2vec2's weight-normalized positional conv).
    dynamo: bool = True


def vision(name: str, size: int = 224, **kw: Any) -> Callable[[], tuple[Any, tuple[Any, ...], list[str]]]:
    def build() -> tuple[Any, tuple[Any, ...], list[str]]:
        import torch
        import torchvision

        model = getattr(torchvision.models, name)(weights=None, **kw).eval()
        return model, (torch.randn(1, 3, size, size),), ["image"]

    return build


def text(config: str, model: str, **kw: Any) -> Callable[[], tuple[Any, tuple[Any, ...], list[str]]]:
    def build() -> tuple[Any, tuple[Any, ...], list[str]]:
        import torch
        import transformers

        cfg = getattr(transformers, config)(**kw)
        cfg._attn_implementation = "eager"
        net = getattr(transformers, model)(cfg).eval()
        ids = torch.randint(0, cfg.vocab_size, (1, SEQ))

        class Logits(torch.nn.Module):
            """The first output only, as a plain tensor (exportable)."""

            def __init__(self) -> None:
                super().__init__()
                self.net = net

            def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
                out = self.net(input_ids=input_ids, use_cache=False) if "GPT" in model else self.net(input_ids=input_ids)
                return out[0]

        return Logits().eval(), (ids,), ["input_ids"]

    return build


def _first(net: Any, key: str | None = None) -> Any:
    """`net` with only its first output (or output `key`) as a plain tensor."""
    import torch

    class First(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = net

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            out = self.net(x)
            return out[key] if key is not None else out[0]

    return First().eval()


def _video(name: str) -> Callable[[], tuple[Any, tuple[Any, ...], list[str]]]:
    """A torchvision video network (3-D convolutions) on 16 frames of 112 x 112."""

    def build() -> tuple[Any, tuple[Any, ...], list[str]]:
        import torch
        import torchvision

        model = getattr(torchvision.models.video, name)(weights=None).eval()
        return model, (torch.randn(1, 3, 16, 112, 112),), ["video"]

    return build


def _segmentation(name: str, size: int = 256) -> Callable[[], tuple[Any, tuple[Any, ...], list[str]]]:
    """A torchvision segmentation network (dilated convolutions, upsampling)."""

    def build() -> tuple[Any, tuple[Any, ...], list[str]]:
        import torch
        import torchvision

        net = getattr(torchvision.models.segmentation, name)(weights=None, weights_backbone=None).eval()
        return _first(net, "out"), (torch.randn(1, 3, size, size),), ["image"]

    return build


def _hf_image(config: str, model: str, size: int) -> Callable[[], tuple[Any, tuple[Any, ...], list[str]]]:
    """A transformers vision model on one image of `size` x `size` (its logits)."""

    def build() -> tuple[Any, tuple[Any, ...], list[str]]:
        import torch
        import transformers

        cfg = getattr(transformers, config)()
        net = getattr(transformers, model)(cfg).eval()
        return _first(net), (torch.randn(1, 3, size, size),), ["image"]

    return build


def _audio(
    config: str, model: str, shape: tuple[int, ...], encoder: bool = False, **kw: Any
) -> Callable[[], tuple[Any, tuple[Any, ...], list[str]]]:
    """A transformers speech model (1-D convolutions) on one input of `shape`:
    a waveform (wav2vec2) or log-mel frames (Whisper), its `encoder` alone
    when asked."""

    def build() -> tuple[Any, tuple[Any, ...], list[str]]:
        import torch
        import transformers

        cfg = getattr(transformers, config)(**kw)
        cfg._attn_implementation = "eager"
        net = getattr(transformers, model)(cfg).eval()
        if encoder:
            net = net.get_encoder()
        return _first(net), (torch.randn(*shape),), ["audio"]

    return build


def _vocoder(frames: int) -> Callable[[], tuple[Any, tuple[Any, ...], list[str]]]:
    """transformers' HiFi-GAN vocoder (SpeechT5's: transposed 1-D convolutions
    upsampling 256x, dilated residual 1-D convolutions) on `frames` mel frames."""

    def build() -> tuple[Any, tuple[Any, ...], list[str]]:
        import torch
        import transformers

        net = transformers.SpeechT5HifiGan(transformers.SpeechT5HifiGanConfig()).eval()
        return net, (torch.randn(1, frames, 80),), ["mel"]

    return build


def _codec(samples: int) -> Callable[[], tuple[Any, tuple[Any, ...], list[str]]]:
    """transformers' EnCodec encoder (24 kHz: SEANet's strided 1-D convolutions
    and ELU residual blocks, then a two-layer LSTM) on `samples` of audio."""

    def build() -> tuple[Any, tuple[Any, ...], list[str]]:
        import torch
        import transformers

        net = transformers.EncodecModel(transformers.EncodecConfig()).eval().encoder
        return net, (torch.randn(1, 1, samples),), ["audio"]

    return build


ZOO: dict[str, Entry] = {
    # plain convnets: residual, bottleneck, inception-style, dense, fire modules
    "resnet18": Entry("plain convnet", vision("resnet18")),
    "resnet50": Entry("plain convnet", vision("resnet50")),
    "googlenet": Entry("plain convnet", vision("googlenet", aux_logits=False, init_weights=True)),
    "densenet121": Entry("plain convnet", vision("densenet121")),
    "squeezenet": Entry("plain convnet", vision("squeezenet1_1")),
    # depthwise and grouped convnets
    "mobilenet_v2": Entry("depthwise convnet", vision("mobilenet_v2")),
    "mobilenet_v3": Entry("depthwise convnet", vision("mobilenet_v3_small")),
    "efficientnet_b0": Entry("depthwise convnet", vision("efficientnet_b0")),
    "shufflenet_v2": Entry("grouped convnet", vision("shufflenet_v2_x1_0")),
    "regnet_y_400mf": Entry("grouped convnet", vision("regnet_y_400mf")),
    "convnext_tiny": Entry("depthwise convnet", vision("convnext_tiny")),
    # transformers: encoders, a decoder-only model, a vision transformer
    "bert": Entry("attention encoder", text("BertConfig", "BertModel")),
    # BERT-base with a sequence-classification head (10 classes): logits, for
    # comparisons by top-1 (bench/int8.py)
    "bert_cls": Entry("attention encoder", text("BertConfig", "BertForSequenceClassification", num_labels=10)),
    "distilbert": Entry("attention encoder", text("DistilBertConfig", "DistilBertModel")),
    "gpt2": Entry("decoder-only transformer", text("GPT2Config", "GPT2Model")),
    "vit_b_16": Entry("vision transformer", vision("vit_b_16")),
    "swin_t": Entry("vision transformer", vision("swin_t")),
    # off the beaten path: grouped convolutions, audio (1-D convolutions with
    # large strides, GroupNorm, a grouped positional convolution of kernel 128),
    # video (3-D convolutions), segmentation (dilated convolutions, upsampling)
    "resnext50": Entry("grouped convnet", vision("resnext50_32x4d")),
    "wav2vec2": Entry("audio", _audio("Wav2Vec2Config", "Wav2Vec2Model", (1, 16000)), dynamo=False),
    "whisper_tiny_encoder": Entry("audio", _audio(
        "WhisperConfig", "WhisperModel", (1, 80, 3000), encoder=True, d_model=384, encoder_layers=4,
        encoder_attention_heads=6, decoder_layers=4, decoder_attention_heads=6, encoder_ffn_dim=1536,
        decoder_ffn_dim=1536,
    )),
    "r3d_18": Entry("video", _video("r3d_18")),
    "r2plus1d_18": Entry("video", _video("r2plus1d_18")),
    "deeplabv3_mobilenet": Entry("segmentation", _segmentation("deeplabv3_mobilenet_v3_large")),
    "lraspp_mobilenet": Entry("segmentation", _segmentation("lraspp_mobilenet_v3_large")),
    # named by the issues as slow to run or to compile elsewhere: Inception's
    # concatenations, RegNetX's grouped convolutions, MaxViT's block and grid
    # attention, SegFormer's efficient attention and mixing MLP (MiT-b0)
    "inception_v3": Entry("plain convnet", vision("inception_v3", 299, aux_logits=False, init_weights=True)),
    "regnet_x_400mf": Entry("grouped convnet", vision("regnet_x_400mf")),
    "maxvit_t": Entry("vision transformer", vision("maxvit_t")),
    "segformer": Entry("segmentation", _hf_image("SegformerConfig", "SegformerForSemanticSegmentation", 256)),
    # transposed convolutions: a neural vocoder's upsampling (mel frames to audio)
    "hifigan": Entry("audio", _vocoder(32)),
    # a recurrent network: a neural audio codec's encoder, its LSTM over frames
    # (the TorchScript exporter keeps it one ONNX LSTM)
    "encodec_encoder": Entry("audio", _codec(24000), dynamo=False),
}


def zoo_dir() -> Path:
    return Path(os.environ.get("LAMINA_ZOO", Path.home() / ".cache" / "lamina" / "zoo"))


def load(name: str) -> onnx.ModelProto:
    """The ONNX model of zoo entry `name`, exported on first use."""
    path = zoo_dir() / f"{name}.onnx"
    if not path.exists():
        export(name, path)
    return onnx.load(str(path))


def export(name: str, path: Path) -> None:
    """Export `ZOO[name]` with random weights (seeded) to one self-contained file."""
    import torch

    torch.manual_seed(0)
    model, args, names = ZOO[name].build()
    with torch.no_grad():  # a zero-initialized head (ViT's) would make every output 0
        for param in model.parameters():
            if param.dim() >= 2 and not param.any():
                torch.nn.init.normal_(param, std=0.02)
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=path.parent) as tmp:
        raw = Path(tmp) / "raw.onnx"
        with torch.no_grad():
            torch.onnx.export(
                model, args, str(raw), input_names=names, output_names=["output"],
                dynamo=ZOO[name].dynamo, verbose=False, **({} if ZOO[name].dynamo else {"opset_version": 17}),
            )
        proto = onnx.load(str(raw))  # with its external data
        part = Path(tmp) / "model.onnx"
        onnx.save(proto, str(part))
        os.replace(part, path)


__all__ = ["SEQ", "ZOO", "Entry", "export", "load", "text", "vision", "zoo_dir"]
