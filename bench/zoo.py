"""Real architectures, lamina against onnxruntime in the same process.

    pip install -e '.[bench]'                      # torch, torchvision, transformers
    .venv/bin/python bench/zoo.py                  # every model, 1 and 2 threads
    .venv/bin/python bench/zoo.py --models resnet18,bert --threads 1 --profile
    .venv/bin/python bench/zoo.py --json zoo.json --markdown zoo.md

The models (`bench/zoo_models.py`) are exported once from torchvision and
transformers with random weights. For each model and thread count, lamina is
compiled cold (`LAMINA_CACHE=0`) with `num_threads` = threads and onnxruntime
gets `intra_op_num_threads` = threads; every output is checked against
onnxruntime's (max |a - b| / max |b|) before anything is timed. Latencies are
medians, measured in alternating rounds (lamina, onnxruntime, lamina, ...) and
the best round's median kept, so that a burst of load on the machine hits both
engines alike; each engine's round starts after a pause, when the other's
spinning pool threads have gone idle. `--profile` adds lamina's time per kernel class at 1 thread
(`lamina bench --profile`'s grouping). The header names the host's CPU and its
measured peak: compare ratios only within one run.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import asdict, dataclass, field

import numpy as np
import onnx
from perf import SETTLE, cold_compile, feeds, warm_up
from zoo_models import ZOO, load

import lamina
from lamina.codegen.peak import describe_host
from lamina.passes import PassContext
from lamina.tools.profile import by_class, profile
from lamina.tools.report import measure

TOLERANCE = 1e-4


@dataclass
class Row:
    model: str
    kind: str
    threads: int
    lamina_ms: float
    ort_ms: float
    ratio: float
    compile_s: float
    max_rel_err: float
    classes: dict[str, float] = field(default_factory=dict)


def ort_session(model: onnx.ModelProto, threads: int):  # type: ignore[no-untyped-def]
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    return ort.InferenceSession(
        model.SerializeToString(), opts, providers=["CPUExecutionProvider"]
    )


def max_rel_err(got: list[np.ndarray], want: list[np.ndarray]) -> float:
    """The largest `max |a - b| / max |b|` over the outputs."""
    worst = 0.0
    for a, b in zip(got, want, strict=True):
        scale = max(float(np.abs(b).max()), 1e-30)
        worst = max(worst, float(np.abs(a.astype(np.float64) - b).max()) / scale)
    return worst


def best_median(fns: list, rounds: int) -> list[float]:  # type: ignore[type-arg]
    """Per function, the best of `rounds` medians (ms), the functions alternating."""
    best = [math.inf] * len(fns)
    for _ in range(rounds):
        for i, fn in enumerate(fns):
            time.sleep(SETTLE)
            best[i] = min(best[i], float(np.median(measure(fn, None, 2))))
    return best


def run(name: str, threads: list[int], rounds: int, want_profile: bool) -> list[Row]:
    model = load(name)
    inputs = feeds(model)
    rows = []
    for t in threads:
        exe, compile_s = cold_compile(model, t)
        sess = ort_session(model, t)
        want = sess.run(None, inputs)
        err = max_rel_err(exe.run(**inputs), want)
        if err > TOLERANCE:
            print(f"  {name}: lamina differs from onnxruntime (max rel. error {err:.2e})")
        lam, ort = best_median(
            [lambda e=exe: e.run(**inputs), lambda s=sess: s.run(None, inputs)], rounds
        )
        row = Row(name, ZOO[name].kind, t, lam, ort, lam / ort, compile_s, err)
        if want_profile and t == 1:
            def build(ctx: PassContext) -> lamina.CompiledModel:
                return lamina.compile(model, num_threads=1, pass_context=ctx)

            kernels = profile(build, 3, inputs, 5)
            row.classes = {k.name: round(k.median_ms, 3) for k in by_class(kernels)}
        rows.append(row)
    return rows


def markdown(rows: list[Row], host: str) -> str:
    """The README table: one line per model, both thread counts side by side."""
    by_model: dict[str, dict[int, Row]] = {}
    for r in rows:
        by_model.setdefault(r.model, {})[r.threads] = r
    counts = sorted({r.threads for r in rows})
    head = ["model", "class"]
    for t in counts:
        head += [f"lamina ms ({t}T)", f"ORT ms ({t}T)", f"lamina/ORT ({t}T)"]
    head += ["compile s", "max rel err", "time by kernel class (1T)"]
    lines = [f"host: {host}", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, per in by_model.items():
        first = per[counts[0]]
        cells = [name, first.kind]
        for t in counts:
            r = per.get(t)
            cells += ["-"] * 3 if r is None else [f"{r.lamina_ms:.2f}", f"{r.ort_ms:.2f}", f"{r.ratio:.2f}x"]
        classes = per.get(1, first).classes
        total = sum(classes.values()) or 1.0
        cls = ", ".join(f"{c} {100 * ms / total:.0f}%" for c, ms in list(classes.items())[:4])
        cells += [f"{first.compile_s:.1f}", f"{first.max_rel_err:.1e}", cls or "-"]
        lines.append("| " + " | ".join(cells) + " |")
    for t in counts:
        ratios = [per[t].ratio for per in by_model.values() if t in per]
        if ratios:
            geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
            lines.append(f"\ngeomean lamina/ORT at {t} thread(s): {geo:.2f}x; worst {max(ratios):.2f}x")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default=",".join(ZOO), help="comma-separated: " + ", ".join(ZOO))
    p.add_argument("--threads", default="1,2", help="comma-separated thread counts")
    p.add_argument("--rounds", type=int, default=2, help="alternating timing rounds")
    p.add_argument("--profile", action="store_true", help="time per kernel class (1 thread)")
    p.add_argument("--json", help="also write the rows to this file")
    p.add_argument("--markdown", help="also write the README table to this file")
    args = p.parse_args(argv)
    names = args.models.split(",")
    unknown = [n for n in names if n not in ZOO]
    if unknown:
        p.error(f"unknown model(s) {', '.join(unknown)}; the zoo has {', '.join(ZOO)}")
    threads = [int(t) for t in args.threads.split(",")]
    host = describe_host()
    print(f"host: {host}")
    print("compile times are cold (LAMINA_CACHE=0); ratios are lamina / onnxruntime, same run")
    warm_up()
    rows: list[Row] = []
    for name in names:
        t0 = time.perf_counter()
        for r in run(name, threads, args.rounds, args.profile):
            rows.append(r)
            cls = ", ".join(f"{c} {ms:.1f}" for c, ms in r.classes.items())
            print(
                f"{r.model:<16} {r.threads}T lamina {r.lamina_ms:8.2f} ms  ORT {r.ort_ms:8.2f} ms"
                f"  {r.ratio:5.2f}x  compile {r.compile_s:5.1f} s  err {r.max_rel_err:.1e}"
                + (f"  [{cls}]" if cls else ""),
                flush=True,
            )
        print(f"  ({time.perf_counter() - t0:.0f} s)", flush=True)
    table = markdown(rows, host)
    print(table)
    if args.json:
        with open(args.json, "w") as f:
            json.dump([asdict(r) for r in rows], f, indent=1)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(table + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
