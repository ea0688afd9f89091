"""Whole architectures through `lamina.from_torch` against eager torch, in
configurations small enough for CI (random weights; full size is
bench/torch_zoo.py's): the building blocks of torchvision's CNNs and vision
transformers written out here (torchvision itself is not installed beside the
tests' torch), and transformers' BERT, DistilBERT, GPT-2, LLaMA, T5, Whisper's
encoder and ViT; a BERT compiled once with a dynamic batch and sequence."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

import lamina  # noqa: E402
from tests.test_torch_frontend import rand, run_both  # noqa: E402

nn = torch.nn


def seeded(model: nn.Module) -> nn.Module:
    """`model` in eval mode with random batch-norm statistics (the defaults,
    0 and 1, would hide a wrong normalization)."""
    g = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.copy_(torch.rand(m.num_features, generator=g) - 0.5)
                m.running_var.copy_(torch.rand(m.num_features, generator=g) + 0.5)
    return model.eval()


def conv_bn(cin: int, cout: int, k: int = 1, stride: int = 1, groups: int = 1, act: type = nn.ReLU) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False), nn.BatchNorm2d(cout), act())


# ------------------------------------------------------- CNN building blocks
class Bottleneck(nn.Module):
    """ResNet-50's bottleneck, grouped as ResNeXt's, with a strided projection."""

    def __init__(self, cin: int, width: int, cout: int, groups: int) -> None:
        super().__init__()
        self.body = nn.Sequential(
            conv_bn(cin, width), conv_bn(width, width, 3, 2, groups),
            nn.Conv2d(width, cout, 1, bias=False), nn.BatchNorm2d(cout),
        )
        self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, 2, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        return torch.relu(self.body(x) + self.down(x))


class InvertedResidual(nn.Module):
    """MobileNetV3's / EfficientNet's block: expand, depthwise, squeeze-excite, project."""

    def __init__(self, c: int, act: type) -> None:
        super().__init__()
        self.expand, self.dw = conv_bn(c, 4 * c, act=act), conv_bn(4 * c, 4 * c, 3, groups=4 * c, act=act)
        self.se = nn.Sequential(
            nn.AdaptiveAvgPool2d(1), nn.Conv2d(4 * c, c, 1), nn.ReLU(), nn.Conv2d(c, 4 * c, 1), nn.Hardsigmoid()
        )
        self.project = nn.Sequential(nn.Conv2d(4 * c, c, 1, bias=False), nn.BatchNorm2d(c))

    def forward(self, x):
        h = self.dw(self.expand(x))
        return x + self.project(h * self.se(h))


class ShuffleUnit(nn.Module):
    """ShuffleNetV2's unit: a channel split, a branch, a concat and a shuffle."""

    def __init__(self, c: int) -> None:
        super().__init__()
        half = c // 2
        self.branch = nn.Sequential(conv_bn(half, half), conv_bn(half, half, 3, groups=half, act=nn.Identity), conv_bn(half, half))

    def forward(self, x):
        a, b = x.chunk(2, dim=1)
        y = torch.cat((a, self.branch(b)), 1)
        n, c, h, w = y.shape
        return y.view(n, 2, c // 2, h, w).transpose(1, 2).contiguous().view(n, c, h, w)


class DenseFire(nn.Module):
    """DenseNet's concatenated features with its transition, SqueezeNet's fire
    module and GoogLeNet's padded max pool."""

    def __init__(self, c: int) -> None:
        super().__init__()
        self.layers = nn.ModuleList([conv_bn(c + 4 * i, 4, 3) for i in range(2)])
        self.transition = nn.Sequential(conv_bn(c + 8, c), nn.AvgPool2d(2, 2))
        self.squeeze, self.e1, self.e3 = conv_bn(c, 4), nn.Conv2d(4, 6, 1), nn.Conv2d(4, 6, 3, padding=1)
        self.pool = nn.MaxPool2d(3, 1, 1, ceil_mode=True)

    def forward(self, x):
        feats = [x]
        for layer in self.layers:
            feats.append(layer(torch.cat(feats, 1)))
        s = self.squeeze(self.transition(torch.cat(feats, 1)))
        return self.pool(torch.cat([torch.relu(self.e1(s)), torch.relu(self.e3(s))], 1))


class ConvNeXtBlock(nn.Module):
    """ConvNeXt's block (depthwise 7x7, channels-last layer norm, an inverted
    MLP, layer scale) and its head (a pooled, normalized, flattened classifier)."""

    def __init__(self, c: int) -> None:
        super().__init__()
        self.dw, self.norm = nn.Conv2d(c, c, 7, padding=3, groups=c), nn.LayerNorm(c, eps=1e-6)
        self.mlp = nn.Sequential(nn.Linear(c, 4 * c), nn.GELU(), nn.Linear(4 * c, c))
        self.scale = nn.Parameter(torch.rand(c, 1, 1))
        self.head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(1), nn.LayerNorm(c), nn.Linear(c, 5))

    def forward(self, x):
        h = self.mlp(self.norm(self.dw(x).permute(0, 2, 3, 1))).permute(0, 3, 1, 2)
        return self.head(x + self.scale * h)


class ShiftedWindows(nn.Module):
    """Swin's shifted-window attention: a roll, windows by view and permute, a
    mask built by assigning into slices, a relative-position bias by index."""

    def __init__(self, c: int, window: int = 4, shift: int = 2, heads: int = 2) -> None:
        super().__init__()
        self.c, self.window, self.shift, self.heads = c, window, shift, heads
        self.qkv, self.proj = nn.Linear(c, 3 * c), nn.Linear(c, c)
        self.bias_table = nn.Parameter(torch.randn((2 * window - 1) ** 2, heads))
        coords = torch.stack(torch.meshgrid(torch.arange(window), torch.arange(window), indexing="ij")).flatten(1)
        rel = (coords[:, :, None] - coords[:, None, :]).permute(1, 2, 0) + window - 1
        self.register_buffer("index", (rel[..., 0] * (2 * window - 1) + rel[..., 1]).flatten())

    def forward(self, x):
        b, h, w, c = x.shape
        ws, s = self.window, self.shift
        x = torch.roll(x, (-s, -s), (1, 2))
        mask = x.new_zeros((h, w))
        count = 0
        for hs in (slice(0, -ws), slice(-ws, -s), slice(-s, None)):
            for wsl in (slice(0, -ws), slice(-ws, -s), slice(-s, None)):
                mask[hs, wsl] = count
                count += 1
        mask = mask.view(h // ws, ws, w // ws, ws).permute(0, 2, 1, 3).reshape(-1, ws * ws)
        diff = mask.unsqueeze(1) - mask.unsqueeze(2)
        mask = diff.masked_fill(diff != 0, -100.0)
        win = x.view(b, h // ws, ws, w // ws, ws, c).permute(0, 1, 3, 2, 4, 5).reshape(-1, ws * ws, c)
        q, k, v = self.qkv(win).reshape(win.shape[0], ws * ws, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        bias = self.bias_table[self.index].view(ws * ws, ws * ws, -1).permute(2, 0, 1)
        attn = (q * (c // self.heads) ** -0.5) @ k.transpose(-2, -1) + bias + mask.repeat(b, 1, 1).unsqueeze(1)
        out = (attn.softmax(-1) @ v).transpose(1, 2).reshape(-1, ws * ws, c)
        out = self.proj(out).view(b, h // ws, w // ws, ws, ws, c).permute(0, 1, 3, 2, 4, 5).reshape(b, h, w, c)
        return torch.roll(out, (s, s), (1, 2))


class TinyViT(nn.Module):
    """torchvision's ViT: a patch convolution, a class token, position
    embeddings and `nn.MultiheadAttention` encoder layers."""

    def __init__(self, c: int = 16, patch: int = 4, size: int = 16) -> None:
        super().__init__()
        self.patch = nn.Conv2d(3, c, patch, patch)
        self.cls = nn.Parameter(torch.randn(1, 1, c))
        self.pos = nn.Parameter(torch.randn(1, (size // patch) ** 2 + 1, c))
        layer = nn.TransformerEncoderLayer(c, 2, 2 * c, dropout=0.0, activation="gelu", batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)

    def forward(self, x):
        h = self.patch(x).flatten(2).transpose(1, 2)
        h = torch.cat([self.cls.expand(x.shape[0], -1, -1), h], 1) + self.pos
        return self.encoder(h)[:, 0]


CNN_BLOCKS = {
    "bottleneck_resnext": (lambda: Bottleneck(8, 8, 16, groups=4), (2, 8, 8, 8)),
    "inverted_residuals": (lambda: nn.Sequential(InvertedResidual(4, nn.Hardswish), InvertedResidual(4, nn.SiLU)), (1, 4, 8, 8)),
    "dense_fire_shuffle": (lambda: nn.Sequential(DenseFire(4), ShuffleUnit(12)), (1, 4, 8, 8)),
    "convnext_block": (lambda: ConvNeXtBlock(8), (2, 8, 7, 7)),
    "shifted_windows": (lambda: ShiftedWindows(8), (2, 8, 8, 8)),
    "vit": (lambda: TinyViT(), (2, 3, 16, 16)),
}


@pytest.mark.parametrize("name", sorted(CNN_BLOCKS))
def test_vision_blocks(name: str) -> None:
    make, shape = CNN_BLOCKS[name]
    torch.manual_seed(0)
    run_both(seeded(make()), rand(*shape))


# --------------------------------------------------------------- transformers
def ids(*shape: int, seed: int = 1) -> torch.Tensor:
    return torch.randint(0, 100, shape, generator=torch.Generator().manual_seed(seed))


def tiny_bert() -> nn.Module:
    torch.manual_seed(0)
    cfg = transformers.BertConfig(
        num_hidden_layers=2, hidden_size=32, num_attention_heads=4, intermediate_size=64,
        vocab_size=100, max_position_embeddings=64,
    )
    return transformers.BertModel(cfg).eval()


class EncoderDecoder(nn.Module):
    """T5's encoder and decoder in one forward: both last hidden states."""

    def __init__(self, net: nn.Module) -> None:
        super().__init__()
        self.net = net

    def forward(self, input_ids, decoder_input_ids):
        out = self.net(input_ids=input_ids, decoder_input_ids=decoder_input_ids)
        return out.last_hidden_state, out.encoder_last_hidden_state


def _text(name: str):
    torch.manual_seed(0)
    small = {"vocab_size": 100}
    if name == "distilbert":
        cfg = transformers.DistilBertConfig(n_layers=2, dim=32, n_heads=4, hidden_dim=64, max_position_embeddings=64, **small)
        return transformers.DistilBertModel(cfg), (ids(2, 8),)
    if name == "gpt2":
        cfg = transformers.GPT2Config(
            n_layer=2, n_embd=32, n_head=4, n_positions=32, use_cache=False, bos_token_id=0, eos_token_id=0, **small
        )
        model = transformers.GPT2Model(cfg)
        # torch 2.14's decompositions break on the sdpa path's view (export fails)
        model.config._attn_implementation = "eager"
        return model, (ids(2, 8),)
    if name == "llama":
        cfg = transformers.LlamaConfig(
            hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
            num_key_value_heads=2, max_position_embeddings=64, use_cache=False, **small,
        )
        return transformers.LlamaModel(cfg), (ids(2, 8),)
    if name == "t5":
        cfg = transformers.T5Config(
            d_model=32, d_kv=8, d_ff=64, num_layers=2, num_decoder_layers=2, num_heads=4,
            relative_attention_num_buckets=8, use_cache=False, decoder_start_token_id=0, **small,
        )
        return EncoderDecoder(transformers.T5Model(cfg)), (ids(2, 8), ids(2, 5, seed=2))
    if name == "whisper_encoder":
        from transformers.models.whisper.modeling_whisper import WhisperEncoder

        cfg = transformers.WhisperConfig(
            d_model=32, encoder_layers=2, encoder_attention_heads=4, encoder_ffn_dim=64,
            num_mel_bins=8, max_source_positions=16,
        )
        return WhisperEncoder(cfg), (rand(1, 8, 32),)
    if name == "vit":
        cfg = transformers.ViTConfig(
            hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
            image_size=16, patch_size=4,
        )
        return transformers.ViTModel(cfg), (rand(2, 3, 16, 16),)
    raise ValueError(f"no small configuration of {name}")


# BERT: test_dynamic_bert_batch_and_sequence_compile_once
@pytest.mark.parametrize("name", ["distilbert", "gpt2", "llama", "t5", "whisper_encoder", "vit"])
def test_transformers(name: str) -> None:
    model, args = _text(name)
    err = run_both(model, *args)
    print(f"{name}: max relative error {err:.2e}")


def test_dynamic_bert_batch_and_sequence_compile_once() -> None:
    model = tiny_bert()
    batch, seq = torch.export.Dim("batch", max=8), torch.export.Dim("seq", max=64)
    module = lamina.from_torch(model, (ids(2, 8),), dynamic_shapes={"input_ids": {0: batch, 1: seq}})
    exe = lamina.compile(module)  # once, for every size below
    assert [str(d) for d in exe.inputs[0].shape] == ["batch", "seq"]
    for b, s in ((1, 3), (2, 11), (5, 7), (3, 64)):
        x = ids(b, s, seed=b * s)
        with torch.no_grad():
            ref = model(x)
        outs = exe.run(x.numpy())
        np.testing.assert_allclose(outs[0], ref.last_hidden_state.numpy(), rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(outs[1], ref.pooler_output.numpy(), rtol=1e-4, atol=1e-4)
    with pytest.raises(lamina.InputError, match="max=64"):
        exe.run(ids(1, 65).numpy())
