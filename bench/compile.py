"""Compile time of the zoo: cold and warm, per phase, on 1 and 2 processes.

    pip install -e '.[bench]'                       # torch, torchvision, transformers
    .venv/bin/python bench/compile.py               # the zoo (bench/zoo_models.py)
    .venv/bin/python bench/compile.py --models resnet18,bert --jobs 1,2 --markdown c.md

For each model (exported once, as `bench/zoo.py` does) and each number of
processes `compile-kernels` may use (`--jobs`), `lamina.compile` runs:

- **cold**: with an empty kernel and object cache (a folder of its own), and
- **warm**: the same architecture with other weights (a fine-tuned checkpoint),
  after the cold compile filled the cache: its kernels and @main come from it.

Each compile's wall time is split into the graph passes and the lowering to TIR
(`front`: ONNX import included), `compile-kernels` (each kernel through the TIR
passes and LLVM), what lowers @main after it, and the JIT (`load`: LLVM on
@main, linking the kernels' objects). `kernels` counts the model's distinct
kernels; `shared` how many an earlier model of the run compiled already (the
run's cache is kept from model to model for that column, while the cold times
use a fresh one). The header names the host: compare times within one run.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
import time
from dataclasses import dataclass

import numpy as np
import onnx
from onnx import numpy_helper
from perf import warm_up
from zoo_models import ZOO, load

import lamina
from lamina.codegen.peak import describe_host
from lamina.passes import PassContext, StatisticsInstrument, TimingInstrument


@dataclass
class Row:
    model: str
    jobs: int
    cold_s: float
    warm_s: float
    front_s: float
    kernels_s: float
    main_s: float
    load_s: float
    kernels: int
    shared: int


def _other_weights(model: onnx.ModelProto, seed: int) -> onnx.ModelProto:
    """The model with every float initializer perturbed (by `seed`): other
    weights, the same architecture (and so the same kernels). A freshly
    initialized torchvision model's batch norms are identities (scale 1, shift
    0), which the graph passes remove: a trained checkpoint's are not, so both
    the cold and the warm compile use perturbed weights."""
    out = onnx.ModelProto()
    out.CopyFrom(model)
    rng = np.random.default_rng(seed)
    for init in out.graph.initializer:
        a = numpy_helper.to_array(init)
        if a.dtype.kind == "f" and a.size > 1:
            b = (a * (1 + 0.01 * rng.standard_normal(a.shape))).astype(a.dtype)
            init.CopyFrom(numpy_helper.from_array(b, init.name))
    return out


def _compile(model: onnx.ModelProto, jobs: int, cache: str) -> tuple[float, dict[str, float], dict[str, int]]:
    """Wall time, time per phase and compile-kernels' counters of one compile
    with the object cache at `cache`."""
    timing, stats = TimingInstrument(), StatisticsInstrument()
    ctx = PassContext(
        opt_level=3, instruments=[timing, stats], config={"compile-kernels.jobs": jobs}
    )
    os.environ["LAMINA_CACHE_DIR"] = cache
    t0 = time.perf_counter()
    lamina.compile(model, num_threads=1, pass_context=ctx)
    wall = time.perf_counter() - t0
    names = list(timing.timings)
    at = names.index("compile-kernels")
    phases = {
        "front": sum(timing.timings[n] for n in names[:at]),
        "kernels": timing.timings["compile-kernels"],
        "main": sum(timing.timings[n] for n in names[at + 1 :]),
    }
    phases["outside"] = wall - timing.total  # the ONNX import and the JIT
    (record,) = [r for r in stats.records if r.name == "compile-kernels"]
    return wall, phases, dict(record.counters)


def run(name: str, jobs: list[int], shared_cache: str) -> list[Row]:
    model = _other_weights(load(name), 1)  # a "trained" checkpoint
    other = _other_weights(model, 2)  # its fine-tuned sibling
    _, _, seen = _compile(model, max(jobs), shared_cache)  # the run's cache: kernels shared
    rows = []
    for j in jobs:
        with tempfile.TemporaryDirectory(prefix="lamina-bench-cache-") as cache:
            t0 = time.perf_counter()
            lamina.frontends.onnx.from_onnx(model)
            frontend = time.perf_counter() - t0
            cold, phases, counters = _compile(model, j, cache)
            warm, _, _ = _compile(other, j, cache)
        rows.append(
            Row(
                name, j, cold, warm, phases["front"] + frontend, phases["kernels"],
                phases["main"], max(phases["outside"] - frontend, 0.0),
                counters.get("kernels", 0), seen.get("cached", 0),
            )
        )
        r = rows[-1]
        print(
            f"{name:<22} jobs {j}  cold {cold:6.2f} s  warm {warm:5.2f} s  "
            f"(front {r.front_s:5.2f}, kernels {r.kernels_s:5.2f}, @main {r.main_s:4.2f}, "
            f"load {r.load_s:4.2f})  "
            f"{r.kernels} kernels, {r.shared} shared",
            flush=True,
        )
    return rows


def geomean(xs: list[float]) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def markdown(rows: list[Row], host: str, jobs: list[int]) -> str:
    head = (
        "| model | " + " | ".join(f"cold s ({j} proc)" for j in jobs)
        + " | front / kernels / @main / load s | warm s | kernels (shared) |"
    )
    lines = [f"Host: {host}", "", head, "|---" * (len(jobs) + 4) + "|"]
    for name in dict.fromkeys(r.model for r in rows):
        mine = {r.jobs: r for r in rows if r.model == name}
        last = mine[jobs[-1]]
        lines.append(
            f"| {name} | " + " | ".join(f"{mine[j].cold_s:.2f}" for j in jobs)
            + f" | {last.front_s:.2f} / {last.kernels_s:.2f} / {last.main_s:.2f} / {last.load_s:.2f}"
            + f" | {last.warm_s:.2f} | {last.kernels} ({last.shared}) |"
        )
    lines.append(
        "| geomean | "
        + " | ".join(f"{geomean([r.cold_s for r in rows if r.jobs == j]):.2f}" for j in jobs)
        + f" | | {geomean([r.warm_s for r in rows if r.jobs == jobs[-1]]):.2f} | |"
    )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default=",".join(ZOO), help="comma-separated: " + ", ".join(ZOO))
    ap.add_argument("--jobs", default="1,2", help="compile-kernels processes, comma-separated")
    ap.add_argument("--markdown", help="also write the table to this file")
    args = ap.parse_args(argv)
    names = [n for n in args.models.split(",") if n]
    unknown = [n for n in names if n not in ZOO]
    if unknown:
        ap.error(f"unknown model(s) {', '.join(unknown)}; the zoo has {', '.join(ZOO)}")
    jobs = [int(j) for j in args.jobs.split(",")]
    warm_up()
    host = describe_host()
    print(f"host: {host}")
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="lamina-bench-shared-") as shared:
        for name in names:
            rows += run(name, jobs, shared)
    table = markdown(rows, host, jobs)
    print(table)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
