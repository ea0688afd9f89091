"""Models with symbolic dims, compiled once and run at many sizes.

    pip install -e '.[bench]'                      # torch, torchvision, transformers
    .venv/bin/python bench/dynamic.py              # BERT and ResNet-18, 1 and 2 threads
    .venv/bin/python bench/dynamic.py --models bert --threads 1 --markdown dyn.md

Each model is exported once (`bench/zoo_models.py`'s builders) with dynamic axes:
BERT's batch and sequence, ResNet-18's batch. lamina compiles it once, cold, with
those axes symbolic, and runs it at every size of the grid: each output is
checked against onnxruntime's (max |a - b| / max |b|). Then, at the reference
size (BERT: batch 1, seq 128; ResNet-18: batch 1 and 16), the symbolic build is
timed against the same model compiled for that static shape and against
onnxruntime, in alternating rounds in the same run. The header names the host's
CPU and its measured peak.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
from perf import cold_cache, warm_up
from zoo import best_median, max_rel_err, ort_session
from zoo_models import ZOO, zoo_dir

import lamina
from lamina.codegen.peak import describe_host

TOLERANCE = 1e-4


@dataclass(frozen=True)
class Case:
    zoo: str
    axes: dict[int, str]  # input axis -> its symbolic name
    grid: list[tuple[int, ...]]  # sizes, in the order of `axes`
    reference: list[tuple[int, ...]]  # sizes timed against a static build


CASES = {
    "bert": Case(
        "bert",
        {0: "batch", 1: "seq"},
        [(b, s) for b in (1, 3, 8) for s in (1, 7, 64, 128, 384, 512)],
        [(1, 128)],
    ),
    "resnet18": Case("resnet18", {0: "batch"}, [(1,), (2,), (5,), (16,)], [(1,), (16,)]),
}


def load(case: Case) -> onnx.ModelProto:
    """The zoo model exported with its `axes` dynamic (cached)."""
    path = zoo_dir() / f"{case.zoo}_dynamic.onnx"
    if not path.exists():
        _export(case, path)
    return onnx.load(str(path))


def _export(case: Case, path: Path) -> None:
    import torch

    torch.manual_seed(0)
    model, args, names = ZOO[case.zoo].build()
    dims = {a: torch.export.Dim(n, min=1, max=512 if n == "seq" else 64) for a, n in case.axes.items()}
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=path.parent) as tmp, torch.no_grad():
        raw = Path(tmp) / "raw.onnx"
        example = tuple(_resized(a, case) for a in args)
        torch.onnx.export(
            model, example, str(raw), input_names=names, output_names=["output"],
            dynamo=True, dynamic_shapes=(dims,), verbose=False,
        )
        part = Path(tmp) / "model.onnx"
        onnx.save(onnx.load(str(raw)), str(part))
        os.replace(part, path)


def _resized(arg, case: Case):  # type: ignore[no-untyped-def]
    """An example input whose dynamic axes are not 1 (the exporter would
    specialize a size-1 axis)."""
    shape = list(arg.shape)
    for a in case.axes:
        shape[a] = 2 if shape[a] == 1 else shape[a]
    return arg.new_zeros(shape) if arg.dtype.is_floating_point else arg.new_ones(shape)


def inputs_at(model: onnx.ModelProto, case: Case, sizes: tuple[int, ...], seed: int = 0) -> dict[str, np.ndarray]:
    vi = model.graph.input[0]
    tt = vi.type.tensor_type
    shape = [d.dim_value for d in tt.shape.dim]
    for a, n in zip(case.axes, sizes, strict=True):
        shape[a] = n
    rng = np.random.default_rng(seed)
    if tt.elem_type == onnx.TensorProto.INT64:
        return {vi.name: rng.integers(0, 1000, shape).astype(np.int64)}
    return {vi.name: rng.standard_normal(shape).astype(np.float32)}


def compile_cold(model: onnx.ModelProto, threads: int, shapes: dict | None = None) -> tuple[lamina.CompiledModel, float]:
    with cold_cache():
        t0 = time.perf_counter()
        exe = lamina.compile(model, num_threads=threads, input_shapes=shapes)
        return exe, time.perf_counter() - t0


def run(name: str, threads: list[int], rounds: int) -> list[str]:
    case = CASES[name]
    model = load(case)
    lines = []
    exe, compile_s = compile_cold(model, threads[0])
    sess = ort_session(model, threads[0])
    worst = 0.0
    t0 = time.perf_counter()
    for sizes in case.grid:
        feeds = inputs_at(model, case, sizes)
        err = max_rel_err(exe.run(**feeds), sess.run(None, feeds))
        worst = max(worst, err)
        flag = "" if err <= TOLERANCE else "  <-- differs from onnxruntime"
        print(f"  {name} {sizes}: max rel err {err:.1e}{flag}", flush=True)
    grid = ", ".join("x".join(map(str, s)) for s in case.grid)
    lines.append(
        f"| {name} | {', '.join(case.axes.values())} | {len(case.grid)} sizes ({grid}) | 1 compile, "
        f"{compile_s:.1f} s | {worst:.1e} | {time.perf_counter() - t0:.0f} s |"
    )
    for t in threads:
        dyn = exe if t == threads[0] else compile_cold(model, t)[0]
        sess = ort_session(model, t)
        for sizes in case.reference:
            feeds = inputs_at(model, case, sizes)
            shapes = {k: list(v.shape) for k, v in feeds.items()}
            static = compile_cold(model, t, shapes)[0]
            d, s, o = best_median(
                [
                    lambda e=dyn, f=feeds: e.run(**f),
                    lambda e=static, f=feeds: e.run(**f),
                    lambda e=sess, f=feeds: e.run(None, f),
                ],
                rounds,
            )
            label = "x".join(map(str, sizes))
            print(f"  {name} {label} {t}T: symbolic {d:.2f} ms, static {s:.2f} ms, ORT {o:.2f} ms", flush=True)
            lines.append(
                f"| {name} {label} | {t} | {d:.2f} | {s:.2f} | {o:.2f} | {d / s:.2f}x | {d / o:.2f}x |"
            )
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default=",".join(CASES), help="comma-separated: " + ", ".join(CASES))
    p.add_argument("--threads", default="1,2", help="comma-separated thread counts")
    p.add_argument("--rounds", type=int, default=2, help="alternating timing rounds")
    p.add_argument("--markdown", help="also write the tables to this file")
    args = p.parse_args(argv)
    names = args.models.split(",")
    unknown = [n for n in names if n not in CASES]
    if unknown:
        p.error(f"unknown model(s) {', '.join(unknown)}; known: {', '.join(CASES)}")
    threads = [int(t) for t in args.threads.split(",")]
    host = describe_host()
    print(f"host: {host}")
    warm_up()
    grids, speeds = [], []
    for name in names:
        for line in run(name, threads, args.rounds):
            (speeds if line.count("|") == 8 else grids).append(line)
    table = "\n".join(
        [
            f"host: {host}",
            "",
            "| model | symbolic dims | sizes run | compiles | max rel err vs ORT | time |",
            "|---|---|---|---|---|---|",
            *grids,
            "",
            "| model, sizes | threads | symbolic ms | static ms | ORT ms | symbolic/static | symbolic/ORT |",
            "|---|---|---|---|---|---|---|",
            *speeds,
        ]
    )
    print(table)
    if args.markdown:
        Path(args.markdown).write_text(table + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
