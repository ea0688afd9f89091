"""Twenty-odd real architectures through `lamina.from_torch`, against eager torch
and against the same model exported to ONNX and compiled by lamina.

    pip install -e '.[bench]'                      # torch, torchvision, transformers
    .venv/bin/python bench/torch_zoo.py --check    # import, compile, compare: no timing
    .venv/bin/python bench/torch_zoo.py            # and time both paths, 1 thread
    .venv/bin/python bench/torch_zoo.py --models llama,t5 --markdown zoo.md

Each model is built at full size with random weights (torchvision's and
transformers' reference implementations, seeded; a zero-initialized weight
matrix, as ViT's head, gets normal(0.02) values so the output is not 0).
`lamina.from_torch` imports it (torch.export, core ATen), `lamina.compile`
compiles it cold (lamina's disk cache off), and every output is compared with
eager torch: max |a - b| / max |b| over the outputs, which must stay within
1e-4. Without `--check` the model is also exported to ONNX
(`torch.onnx.export(dynamo=True)`, the same weights) and compiled by lamina
through `lamina.from_onnx`, and the two compiled models are timed at
`--threads` threads: medians in alternating rounds, the best round's median
kept (`bench/zoo.py`'s timer).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# bench/torch.py lies beside this file: with bench/ first on sys.path `import
# torch` would import it, so torch is imported with bench/ off the path.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
import torch  # noqa: E402

sys.path.insert(0, str(_HERE))
import numpy as np  # noqa: E402
from perf import cold_cache, warm_up  # noqa: E402
from zoo import best_median  # noqa: E402
from zoo_models import SEQ, ZOO, Entry, text, vision  # noqa: E402

import lamina  # noqa: E402
from lamina.codegen.peak import describe_host  # noqa: E402

TOLERANCE = 1e-4
Built = tuple[Any, tuple[Any, ...], list[str]]


class FirstOutput(torch.nn.Module):
    """A model's first output as a plain tensor (a `ModelOutput` is not one)."""

    def __init__(self, net: torch.nn.Module) -> None:
        super().__init__()
        self.net = net

    def forward(self, *args: torch.Tensor) -> torch.Tensor:
        return self.net(*args)[0]


def t5() -> Built:
    """T5-small's shape, encoder and decoder: the decoder's hidden states for a
    32-token decoder input over a 128-token encoder input."""
    import transformers

    cfg = transformers.T5Config(use_cache=False)  # t5-small: d_model 512, 6+6 layers
    net = transformers.T5Model(cfg).eval()

    class EncoderDecoder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = net

        def forward(self, input_ids: torch.Tensor, decoder_input_ids: torch.Tensor) -> torch.Tensor:
            return self.net(input_ids=input_ids, decoder_input_ids=decoder_input_ids)[0]

    ids = torch.randint(0, cfg.vocab_size, (1, SEQ))
    dec = torch.randint(0, cfg.vocab_size, (1, 32))
    return EncoderDecoder().eval(), (ids, dec), ["input_ids", "decoder_input_ids"]


def whisper_encoder() -> Built:
    """Whisper-base's encoder over 30 s of 80-bin log-mel features."""
    import transformers
    from transformers.models.whisper.modeling_whisper import WhisperEncoder

    cfg = transformers.WhisperConfig(
        d_model=512, encoder_layers=6, encoder_attention_heads=8, encoder_ffn_dim=2048,
    )
    encoder = WhisperEncoder(cfg).eval()
    mel = torch.randn(1, cfg.num_mel_bins, 2 * cfg.max_source_positions)
    return FirstOutput(encoder).eval(), (mel,), ["input_features"]


def hf_vit() -> Built:
    """transformers' ViT-Base/16 (its own attention and embeddings, not torchvision's)."""
    import transformers

    net = transformers.ViTModel(transformers.ViTConfig(), add_pooling_layer=False).eval()
    return FirstOutput(net).eval(), (torch.randn(1, 3, 224, 224),), ["pixel_values"]


#: The architectures: bench/zoo_models.py's, and those only this bench runs.
MODELS: dict[str, Entry] = {
    **{name: ZOO[name] for name in (
        "resnet18", "resnet50", "mobilenet_v2", "mobilenet_v3", "efficientnet_b0",
        "densenet121", "squeezenet", "shufflenet_v2", "googlenet", "convnext_tiny",
        "vit_b_16", "swin_t",
    )},
    "regnet_x_400mf": Entry("grouped convnet", vision("regnet_x_400mf")),
    "resnext50": Entry("grouped convnet", vision("resnext50_32x4d")),
    **{name: ZOO[name] for name in ("bert", "distilbert", "gpt2")},
    # a LLaMA-style decoder (RMSNorm, rotary positions, SwiGLU, grouped-query
    # attention) of ~150M parameters
    "llama": Entry("decoder-only transformer", text(
        "LlamaConfig", "LlamaModel", hidden_size=768, intermediate_size=2048,
        num_hidden_layers=12, num_attention_heads=12, num_key_value_heads=4,
        vocab_size=32000, use_cache=False,
    )),
    "t5": Entry("encoder-decoder transformer", t5),
    "whisper_encoder": Entry("audio transformer encoder", whisper_encoder),
    "hf_vit": Entry("vision transformer", hf_vit),
}


@dataclass
class Row:
    model: str
    kind: str
    params_m: float
    torch_err: float = float("nan")
    torch_compile_s: float = float("nan")
    onnx_err: float = float("nan")
    torch_ms: float = float("nan")
    onnx_ms: float = float("nan")
    note: str = ""


def build(name: str) -> Built:
    """The model (eval mode), its inputs and their names, seeded."""
    torch.manual_seed(0)
    model, args, names = MODELS[name].build()
    with torch.no_grad():  # as zoo_models.export does: no all-zero weight matrix
        for param in model.parameters():
            if param.dim() >= 2 and not param.any():
                torch.nn.init.normal_(param, std=0.02)
    return model.eval(), args, names


def rel_err(got: list[np.ndarray], want: list[np.ndarray]) -> float:
    """The largest max |a - b| / max |b| over the outputs."""
    worst = 0.0
    for a, b in zip(got, want, strict=True):
        a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
        if a.shape != b.shape:
            return float("inf")
        worst = max(worst, float(np.abs(a - b).max() / max(np.abs(b).max(), 1e-30)))
    return worst


def onnx_compiled(model: Any, args: tuple[Any, ...], names: list[str], threads: int) -> lamina.CompiledModel:
    """The model exported to ONNX (same weights) and compiled by lamina."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.onnx"
        with torch.no_grad():
            torch.onnx.export(model, args, str(path), input_names=names, output_names=["output"], dynamo=True, verbose=False)
        import onnx

        proto = onnx.load(str(path))  # external data read in, before tmp goes
    return lamina.compile(proto, num_threads=threads)


def run(name: str, threads: int, rounds: int, timed: bool) -> Row:
    torch.set_num_threads(threads)
    model, args, names = build(name)
    row = Row(name, MODELS[name].kind, sum(p.numel() for p in model.parameters()) / 1e6)
    with torch.no_grad():
        out = model(*args)
    want = [o.numpy() for o in (out if isinstance(out, list | tuple) else [out])]
    feeds = [a.numpy() for a in args]
    with cold_cache():
        t0 = time.perf_counter()
        try:
            exe = lamina.compile(model, example_inputs=args, num_threads=threads)
        except Exception as e:
            row.note = f"from_torch: {type(e).__name__}: {str(e).strip()[:300]}"
            return row
        row.torch_compile_s = time.perf_counter() - t0
        row.torch_err = rel_err(exe.run(*feeds), want)
        if not timed:
            return row
        try:
            onnx_exe = onnx_compiled(model, args, names, threads)
        except Exception as e:
            row.note = f"ONNX path: {type(e).__name__}: {str(e).strip().splitlines()[0][:200]}"
            return row
    row.onnx_err = rel_err(onnx_exe.run(*feeds), want)
    fns: list[Callable[[], Any]] = [lambda: exe.run(*feeds), lambda: onnx_exe.run(*feeds)]
    row.torch_ms, row.onnx_ms = best_median(fns, rounds)
    return row


def markdown(rows: list[Row], host: str, threads: int, timed: bool) -> str:
    head = ["model", "class", "params (M)", "from_torch max rel err", "from_torch compile s"]
    if timed:
        head += ["from_torch ms", "ONNX -> lamina ms", "from_torch / ONNX", "ONNX max rel err"]
    lines = [f"host: {host}; {threads} thread(s)", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cells = [r.model, r.kind, f"{r.params_m:.1f}", f"{r.torch_err:.1e}", f"{r.torch_compile_s:.1f}"]
        if timed:
            cells += [f"{r.torch_ms:.2f}", f"{r.onnx_ms:.2f}", f"{r.torch_ms / r.onnx_ms:.2f}x", f"{r.onnx_err:.1e}"]
        lines.append("| " + " | ".join(cells) + " |")
    notes = [f"- {r.model}: {r.note}" for r in rows if r.note]
    passed = sum(r.torch_err <= TOLERANCE for r in rows)
    lines += ["", f"{passed} of {len(rows)} within {TOLERANCE:g} of eager torch", *notes]
    return "\n".join(lines)


def model_names(value: str) -> list[str]:
    """`--models`: names of `MODELS`, comma-separated."""
    names = value.split(",")
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown model(s) {', '.join(unknown)}; this bench has {', '.join(MODELS)}")
    return names


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", type=model_names, default=list(MODELS), help="comma-separated: " + ", ".join(MODELS))
    p.add_argument("--check", action="store_true", help="correctness only: no ONNX export, no timing")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--rounds", type=int, default=3, help="alternating timing rounds")
    p.add_argument("--markdown", help="also write the table to this file")
    args = p.parse_args(argv)
    names = args.models
    host = describe_host()
    print(f"host: {host}", flush=True)
    warm_up()
    rows = []
    for name in names:
        t0 = time.perf_counter()
        r = run(name, args.threads, args.rounds, not args.check)
        rows.append(r)
        print(
            f"{name:<16} err {r.torch_err:.1e}  compile {r.torch_compile_s:5.1f} s"
            + ("" if args.check else f"  {r.torch_ms:8.2f} ms  ONNX {r.onnx_ms:8.2f} ms  err {r.onnx_err:.1e}")
            + f"  ({time.perf_counter() - t0:.0f} s) {r.note}",
            flush=True,
        )
    table = markdown(rows, host, args.threads, not args.check)
    print(table)
    if args.markdown:
        Path(args.markdown).write_text(table + "\n")
    return 0 if all(r.torch_err <= TOLERANCE for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
