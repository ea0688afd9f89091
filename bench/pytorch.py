"""PyTorch models five ways, same process, same input: eager torch,
torch.compile with inductor, torch.compile with lamina (lamina.dynamo),
lamina.from_torch's compiled model, and onnxruntime on the ONNX export.

    pip install -e '.[bench]'                      # torch, torchvision, transformers
    .venv/bin/python bench/pytorch.py                # ResNet-50 and BERT-base, 1 thread
    .venv/bin/python bench/pytorch.py --models resnet18 --markdown torch.md

The models are `bench/zoo_models.py`'s (random weights, seeded as the zoo's
ONNX export is, so that onnxruntime runs the same weights). Everything runs at
`--threads` threads: `torch.set_num_threads`, lamina's `num_threads`,
onnxruntime's `intra_op_num_threads`. Every output is checked against eager
torch (max |a - b| / max |b|) before anything is timed. Latencies are
medians, in alternating rounds with the best round's median kept
(`bench/zoo.py`'s timer). Compile times are cold: lamina's disk cache is off,
inductor's caches are disabled; a torch.compile's is its first call.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from perf import cold_cache, warm_up
from zoo import best_median, ort_session
from zoo_models import ZOO, load

import lamina
import lamina.dynamo  # registers backend="lamina" where the package is not installed
from lamina.codegen.peak import describe_host

ENGINES = ("eager", "inductor", "lamina (torch.compile)", "lamina.from_torch", "onnxruntime")


@dataclass
class Result:
    engine: str
    ms: float = float("nan")
    compile_s: float = float("nan")
    err: float = float("nan")
    note: str = ""


def build(name: str) -> tuple[Any, Any]:
    """The model and its input, with the weights the zoo's ONNX export has."""
    torch.manual_seed(0)
    model, args, _ = ZOO[name].build()
    with torch.no_grad():  # as zoo_models.export does
        for param in model.parameters():
            if param.dim() >= 2 and not param.any():
                torch.nn.init.normal_(param, std=0.02)
    return model.eval(), args[0]


def rel_err(got: Any, want: Any) -> float:
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    return float(np.abs(got - want).max() / max(np.abs(want).max(), 1e-30))


def run(name: str, threads: int, rounds: int) -> list[Result]:
    torch.set_num_threads(threads)
    model, x = build(name)
    with torch.no_grad():
        want = model(x).numpy()
    results = {e: Result(e) for e in ENGINES}
    fns: dict[str, Callable[[], Any]] = {}

    def first_call(engine: str, make: Callable[[], Callable[[], Any]]) -> None:
        t0 = time.perf_counter()
        try:
            fn = make()
            out = fn()
        except Exception as e:
            results[engine].note = f"{type(e).__name__}: {str(e).strip().splitlines()[0][:120]}"
            print(f"  {name} {engine}: failed: {results[engine].note}", flush=True)
            return
        results[engine].compile_s = time.perf_counter() - t0
        out = out[0] if isinstance(out, list | tuple) else out
        results[engine].err = rel_err(out.numpy() if hasattr(out, "numpy") else out, want)
        fns[engine] = fn
        print(f"  {name} {engine}: compile {results[engine].compile_s:.1f} s, err {results[engine].err:.1e}", flush=True)

    def eager() -> Callable[[], Any]:
        return lambda: model(x)

    def compiled(backend: str, **kw: Any) -> Callable[[], Callable[[], Any]]:
        def make() -> Callable[[], Any]:
            c = torch.compile(model, backend=backend, **kw)
            return lambda: c(x)

        return make

    def from_torch() -> Callable[[], Any]:
        exe = lamina.compile(model, example_inputs=(x,), num_threads=threads)
        arr = x.numpy()
        return lambda: exe.run(arr)

    def ort() -> Callable[[], Any]:
        proto = load(name)
        sess = ort_session(proto, threads)
        feed = {proto.graph.input[0].name: x.numpy()}
        return lambda: sess.run(None, feed)

    import torch._inductor.config as inductor_config

    inductor_config.force_disable_caches = True
    with torch.no_grad(), cold_cache():
        first_call("eager", eager)
        first_call("inductor", compiled("inductor"))
        # dynamo keeps both compiles of forward: its cache entries check the backend
        first_call("lamina (torch.compile)", compiled("lamina", options={"num_threads": threads}))
        first_call("lamina.from_torch", from_torch)
        first_call("onnxruntime", ort)
        fallbacks = lamina.dynamo.fallbacks()
        if fallbacks:
            results["lamina (torch.compile)"].note = f"{len(fallbacks)} fallback(s): {fallbacks[0][:100]}"
        names = list(fns)
        for engine, ms in zip(names, best_median([fns[n] for n in names], rounds), strict=True):
            results[engine].ms = ms
    return list(results.values())


def markdown(rows: dict[str, list[Result]], threads: int, host: str) -> str:
    head = ["model", *[f"{e} ms" for e in ENGINES], "compile s (inductor / lamina tc / from_torch)", "max rel err"]
    lines = [f"host: {host}; {threads} thread(s)", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, res in rows.items():
        by = {r.engine: r for r in res}
        cells = [name, *[f"{by[e].ms:.2f}" if by[e].ms == by[e].ms else "failed" for e in ENGINES]]
        cells.append(" / ".join(f"{by[e].compile_s:.1f}" for e in ("inductor", "lamina (torch.compile)", "lamina.from_torch")))
        cells.append(f"{max((r.err for r in res if r.err == r.err), default=float('nan')):.1e}")
        lines.append("| " + " | ".join(cells) + " |")
    notes = [f"{name} {r.engine}: {r.note}" for name, res in rows.items() for r in res if r.note]
    return "\n".join(lines + (["", *notes] if notes else []))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default="resnet50,bert", help="comma-separated: " + ", ".join(ZOO))
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--rounds", type=int, default=3, help="alternating timing rounds")
    p.add_argument("--markdown", help="also write the table to this file")
    args = p.parse_args(argv)
    host = describe_host()
    print(f"host: {host}", flush=True)
    warm_up()
    rows = {}
    for name in args.models.split(","):
        t0 = time.perf_counter()
        rows[name] = run(name, args.threads, args.rounds)
        for r in rows[name]:
            print(f"{name:<10} {r.engine:<24} {r.ms:8.2f} ms  compile {r.compile_s:6.1f} s  err {r.err:.1e}  {r.note}", flush=True)
        print(f"  ({time.perf_counter() - t0:.0f} s)", flush=True)
    table = markdown(rows, args.threads, host)
    print(table)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(table + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
