"""Token-by-token decoding with a KV cache: GPT-2 and a LLaMA-style decoder (GQA,
rotary) from transformers (random weights), exported with the TorchScript
exporter and dynamic batch, past and sequence axes (`past_key_values` inputs,
`present` outputs), compiled once by lamina and run greedily against
onnxruntime on the same export, same process, same thread count.

    python bench/decode.py [--models gpt2,llama] [--tokens 64] [--threads 1] [--layers 4] [--width 256]

Each step feeds the new token and the cache the previous step returned, so the
cache grows by one position a step: lamina binds `past` from the inputs' shapes
and never recompiles. Tokens must match onnxruntime's exactly. The first step
takes a one-position cache of zeros that the attention mask hides (lamina's
sizes are at least 1; both engines get the same inputs).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort

import lamina
from lamina.codegen.peak import describe_host


def export(name: str, path: Path, layers: int, width: int, heads: int) -> tuple[int, int]:
    """Export decoder `name` with a KV cache; its (kv heads, head dim)."""
    import torch
    import transformers

    torch.manual_seed(0)
    if name == "gpt2":
        cfg = transformers.GPT2Config(n_layer=layers, n_embd=width, n_head=heads, vocab_size=8000, n_positions=512)
        net, kv_heads = transformers.GPT2LMHeadModel(cfg).eval(), heads
    else:
        kv_heads = max(1, heads // 2)
        cfg = transformers.LlamaConfig(
            num_hidden_layers=layers, hidden_size=width, num_attention_heads=heads,
            num_key_value_heads=kv_heads, intermediate_size=4 * width, vocab_size=8000,
        )
        net = transformers.LlamaForCausalLM(cfg).eval()
    cfg._attn_implementation = "eager"
    head_dim = width // heads

    class Step(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = net

        def forward(self, input_ids, attention_mask, *past):  # type: ignore[no-untyped-def]
            cache = transformers.DynamicCache()
            for i in range(layers):
                cache.update(past[2 * i], past[2 * i + 1], i)
            out = self.net(input_ids=input_ids, attention_mask=attention_mask, past_key_values=cache, use_cache=True)
            present = []
            for layer in out.past_key_values.layers:
                present += [layer.keys, layer.values]
            return (out.logits, *present)

    ids = torch.randint(0, 8000, (1, 2))
    past = [torch.randn(1, kv_heads, 3, head_dim) for _ in range(2 * layers)]
    ins = ["input_ids", "attention_mask"] + [f"past.{i}.{kv}" for i in range(layers) for kv in ("key", "value")]
    outs = ["logits"] + [f"present.{i}.{kv}" for i in range(layers) for kv in ("key", "value")]
    axes = {"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "total"}, "logits": {0: "batch", 1: "seq"}}
    axes.update({n: {0: "batch", 2: "past"} for n in ins[2:]})
    axes.update({n: {0: "batch", 2: "total"} for n in outs[1:]})
    torch.onnx.export(Step(), (ids, torch.ones(1, 5, dtype=torch.int64), *past), str(path), input_names=ins,
                      output_names=outs, dynamic_axes=axes, opset_version=17, dynamo=False)
    return kv_heads, head_dim


def decode(run, names: list[str], prompt: np.ndarray, tokens: int, layers: int, kv: tuple[int, int]):  # type: ignore[no-untyped-def]
    """Greedy decoding: the tokens and each step's seconds (the prompt's first)."""
    past = [np.zeros((1, kv[0], 1, kv[1]), np.float32) for _ in range(2 * layers)]
    mask = np.concatenate([np.zeros((1, 1), np.int64), np.ones(prompt.shape, np.int64)], axis=1)
    ids, out, times = prompt, [], []
    for _ in range(tokens):
        t0 = time.perf_counter()
        logits, *past = run({"input_ids": ids, "attention_mask": mask, **dict(zip(names, past, strict=True))})
        times.append(time.perf_counter() - t0)
        token = int(np.argmax(logits[0, -1]))
        out.append(token)
        ids = np.array([[token]], np.int64)
        mask = np.concatenate([mask, np.ones((1, 1), np.int64)], axis=1)
    return out, times


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default="gpt2,llama")
    p.add_argument("--tokens", type=int, default=64)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--width", type=int, default=256)
    p.add_argument("--heads", type=int, default=8)
    p.add_argument("--rounds", type=int, default=3, help="alternating timed rounds per engine")
    args = p.parse_args()
    print(f"host: {describe_host()}; {args.threads} thread(s), {args.tokens} tokens after an 8-token prompt")
    print("| model | lamina ms/token | onnxruntime ms/token | lamina / ORT | tokens equal | compile s |")
    print("|---|---|---|---|---|---|")
    ok = True
    for name in args.models.split(","):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / f"{name}.onnx"
            kv = export(name, path, args.layers, args.width, args.heads)
            t0 = time.perf_counter()
            exe = lamina.compile(str(path), num_threads=args.threads)
            compile_s = time.perf_counter() - t0
            so = ort.SessionOptions()
            so.intra_op_num_threads = args.threads
            sess = ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
        names = [i.name for i in sess.get_inputs()][2:]
        prompt = np.random.default_rng(0).integers(0, 8000, (1, 8)).astype(np.int64)
        # Alternating rounds, each engine's best median: the same load for both.
        a = b = float("inf")
        for _ in range(args.rounds):
            mine, t_mine = decode(lambda f, exe=exe: exe.run(**f), names, prompt, args.tokens, args.layers, kv)
            theirs, t_ort = decode(lambda f, sess=sess: sess.run(None, f), names, prompt, args.tokens, args.layers, kv)
            a = min(a, statistics.median(t_mine[1:]) * 1e3)
            b = min(b, statistics.median(t_ort[1:]) * 1e3)
        same = mine == theirs
        ok &= same
        print(f"| {name} ({args.layers} layers, width {args.width}) | {a:.2f} | {b:.2f} | {a / b:.2f}x | {same} | {compile_s:.1f} |", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
