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


def vision(name: str, **kw: Any) -> Callable[[], tuple[Any, tuple[Any, ...], list[str]]]:
    def build() -> tuple[Any, tuple[Any, ...], list[str]]:
        import torch
        import torchvision

        model = getattr(torchvision.models, name)(weights=None, **kw).eval()
        return model, (torch.randn(1, 3, 224, 224),), ["image"]

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
            torch.onnx.export(model, args, str(raw), input_names=names, output_names=["output"], dynamo=True, verbose=False)
        proto = onnx.load(str(raw))  # with its external data
        part = Path(tmp) / "model.onnx"
        onnx.save(proto, str(part))
        os.replace(part, path)


__all__ = ["SEQ", "ZOO", "Entry", "export", "load", "text", "vision", "zoo_dir"]
