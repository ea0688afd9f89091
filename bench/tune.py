"""Auto-scheduling on real architectures: tuned against untuned lamina and
onnxruntime (the cost model against random search is `bench/search_curve.py`).

    pip install -e '.[test,tune,bench]'
    .venv/bin/python bench/tune.py                              # 3 models, 15 min each
    .venv/bin/python bench/tune.py --models resnet18 --budget 5m --out /tmp/tune

The models come from `bench/zoo_models.py` (torchvision's ResNet-18 and
MobileNetV2, a BERT-base encoder from transformers). Each is tuned from empty
records with a wall-clock budget (`--budget`, at most 15 minutes: extraction,
building and timing included) on 1-thread kernels. The tuned model is then
compiled in a fresh process that only reads the records (zero trials) and
timed at 1 thread with the untuned model and onnxruntime, in alternating rounds
(`zoo.py`'s method: the best round's median of each); outputs are checked
against onnxruntime first.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from perf import feeds, warm_up
from zoo import best_median, max_rel_err, ort_session
from zoo_models import ZOO, load

import lamina
from lamina.codegen.peak import describe_host
from lamina.tools.tune import duration
from lamina.tuning import RoundDone

MODELS = ("resnet18", "mobilenet_v2", "bert")
KIND = {"resnet18": "ResNet-18", "mobilenet_v2": "MobileNetV2 (depthwise)", "bert": "BERT-base encoder (seq 128)"}


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} CPUs"


def _progress(event: RoundDone) -> None:
    s = event.state
    if s is None or event.trials % 40 >= 8:
        return
    tuned, default = event.latency(True), event.latency(False)
    print(
        f"    [{event.elapsed:5.0f} s, {event.trials} trials] kernels {default * 1e3:.2f} -> "
        f"{tuned * 1e3:.2f} ms; last: {s.task.name}", flush=True,
    )


def evaluate(name: str, records: Path, rounds: int) -> dict[str, float]:
    """Compile `name` untuned and with `records` (this process has measured
    nothing) and time both with onnxruntime, at 1 thread."""
    model = load(name)
    inputs = feeds(model)
    warm_up()
    untuned = lamina.compile(model, num_threads=1)
    t0 = time.perf_counter()
    tuned = lamina.compile(model, num_threads=1, tuning_records=records)
    compile_s = time.perf_counter() - t0
    sess = ort_session(model, 1)
    want = sess.run(None, inputs)
    err = max(max_rel_err(untuned.run(**inputs), want), max_rel_err(tuned.run(**inputs), want))
    lam, lam_tuned, ort = best_median(
        [lambda: untuned.run(**inputs), lambda: tuned.run(**inputs), lambda: sess.run(None, inputs)],
        rounds,
    )
    return {"untuned_ms": lam, "tuned_ms": lam_tuned, "ort_ms": ort, "max_rel_err": err, "compile_s": compile_s}


def tune_one(name: str, out: Path, budget: float, rounds: int) -> dict[str, object]:
    records = out / f"{name}.jsonl"
    if records.exists():
        records.unlink()
    print(f"{name}: tuning for {budget:.0f} s ({_load()})", flush=True)
    summary = lamina.tune(load(name), records, trials=None, time_budget=budget, threads=1, progress=_progress)
    print(
        f"  {summary.trials} trials over {len(summary.states)} tasks in {summary.elapsed:.0f} s; "
        f"kernels {summary.latency(False) * 1e3:.2f} -> {summary.latency(True) * 1e3:.2f} ms", flush=True,
    )
    # A fresh process reads the records: reuse with zero trials.
    child = subprocess.run(
        [sys.executable, __file__, "--evaluate", name, "--records", str(records), "--rounds", str(rounds)],
        capture_output=True, text=True, check=True,
    )
    row: dict[str, object] = json.loads(child.stdout.strip().splitlines()[-1])
    row.update(model=name, budget_s=budget, trials=summary.trials, tasks=len(summary.states),
               tuning_s=summary.elapsed, load=_load())
    print(
        f"  untuned {row['untuned_ms']:.2f} ms, tuned {row['tuned_ms']:.2f} ms "
        f"({row['untuned_ms'] / row['tuned_ms']:.2f}x), onnxruntime {row['ort_ms']:.2f} ms "  # type: ignore[operator]
        f"(tuned/ORT {row['tuned_ms'] / row['ort_ms']:.2f}x), max rel err {row['max_rel_err']:.1e}",  # type: ignore[operator]
        flush=True,
    )
    return row


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default=",".join(MODELS), help="comma-separated zoo names")
    p.add_argument("--budget", type=duration, default=15 * 60.0, help="tuning time per model (default 15m)")
    p.add_argument("--rounds", type=int, default=3, help="alternating timing rounds")
    p.add_argument("--out", default="tune-records", help="folder for the records")
    p.add_argument("--json", help="also write the rows to this file")
    p.add_argument("--evaluate", help=argparse.SUPPRESS)
    p.add_argument("--records", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.evaluate:  # the fresh process of tune_one
        print(json.dumps(evaluate(args.evaluate, Path(args.records), args.rounds)))
        return 0
    if args.budget > 15 * 60:
        p.error("--budget: the issue's budget is at most 15 minutes per model")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    print(f"host: {describe_host()}")
    print(f"machine at the start: {_load()}")
    names = args.models.split(",")
    unknown = [n for n in names if n not in ZOO]
    if unknown:
        p.error(f"unknown model(s) {', '.join(unknown)}; the zoo has {', '.join(ZOO)}")
    rows = [tune_one(n, out, args.budget, args.rounds) for n in names]
    print("\n| model | budget | trials | tasks | untuned ms | tuned ms | tuned vs untuned | onnxruntime ms | tuned / ORT |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        u, t, o = (float(r[k]) for k in ("untuned_ms", "tuned_ms", "ort_ms"))  # type: ignore[arg-type]
        print(
            f"| {KIND.get(str(r['model']), r['model'])} | {float(r['budget_s']) / 60:.0f} min "  # type: ignore[arg-type]
            f"| {r['trials']} | {r['tasks']} | {u:.2f} | {t:.2f} | {u / t:.2f}x | {o:.2f} | {t / o:.2f}x |"
        )
    print(f"\nmachine at the end: {_load()}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    np.seterr(all="ignore")
    sys.exit(main())
