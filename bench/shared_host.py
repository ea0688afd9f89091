"""lamina's thread defaults on a shared machine: the demo CNN with another process
keeping cores busy, against the same model on a quiet machine.

    .venv/bin/python bench/shared_host.py                 # one busy core, 200 runs
    .venv/bin/python bench/shared_host.py --busy 2 --runs 400 --json out.json
    .venv/bin/python bench/shared_host.py --threads 2       # also a fixed team of 2

Each measurement runs in a fresh process, niced (`--nice`, 10 as `nice` does) like a
background job, so that the competing load (`--busy` processes spinning in a Python
loop, at normal priority) wins its core. It reports the median and p90 latency of
lamina at the default thread count and at 1 thread, quiet and loaded, and the same
for onnxruntime (its default session and `intra_op_num_threads=1`) in the same
processes. The ratios are to lamina's quiet 1-thread median, the floor the
first-hour issue sets: loaded, at the default threads, median <= 1.2x and p90 <= 2.5x.
`--threads N` adds rows at a fixed team of N (lamina's `num_threads=N`, onnxruntime's
`intra_op_num_threads=N`), quiet and loaded: how the thread pool itself degrades
when one of its threads shares a core (the default count avoids that core).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WORKER = r"""
import json, os, sys, time
import numpy as np
os.nice(int(sys.argv[3]))
import lamina
from lamina.tools.models import resnet_mini
threads = None if sys.argv[1] == "default" else int(sys.argv[1])
runs = int(sys.argv[2])
model = resnet_mini()
exe = lamina.compile(model, num_threads=threads)
x = np.random.default_rng(0).standard_normal((1, 3, 128, 128)).astype(np.float32)
def times(fn):
    fn(); fn()
    out = []
    for _ in range(runs):
        t = time.perf_counter(); fn(); out.append(time.perf_counter() - t)
    return out
import onnxruntime as ort
so = ort.SessionOptions()
if threads is not None:
    so.intra_op_num_threads = threads
so.inter_op_num_threads = 1
sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
name = sess.get_inputs()[0].name
json.dump({"lamina": times(lambda: exe.run(x)), "threads": exe.num_threads,
           "onnxruntime": times(lambda: sess.run(None, {name: x}))}, sys.stdout)
"""


def measure(threads: str, runs: int, nice: int) -> dict:
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(WORKER)
    try:
        out = subprocess.run(
            [sys.executable, f.name, threads, str(runs), str(nice)],
            capture_output=True, text=True, check=True,
        )
    finally:
        Path(f.name).unlink()
    return json.loads(out.stdout)


def busy(n: int) -> list[subprocess.Popen]:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]


def stats(ts: list[float]) -> tuple[float, float]:
    q = statistics.quantiles(ts, n=10)
    return statistics.median(ts), q[8]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--busy", type=int, default=1, help="competing busy processes")
    ap.add_argument("--nice", type=int, default=10)
    ap.add_argument(
        "--threads", default="", help="comma-separated fixed team sizes to measure too (e.g. 2)"
    )
    ap.add_argument("--json")
    args = ap.parse_args()
    fixed = [int(t) for t in args.threads.split(",") if t.strip()]
    from lamina.target import Target

    host = Target.host()
    print(f"host: {host.describe()}; {os.cpu_count()} CPUs; load: {args.busy} busy process(es); lamina niced {args.nice}")
    rows = {}
    plan = [("quiet, 1 thread", "1", 0), ("quiet, default", "default", 0)]
    plan += [(f"quiet, {n} threads", str(n), 0) for n in fixed if n != 1]
    plan += [("loaded, 1 thread", "1", args.busy), ("loaded, default", "default", args.busy)]
    plan += [(f"loaded, {n} threads", str(n), args.busy) for n in fixed if n != 1]
    for label, threads, load in plan:
        procs = busy(load)
        try:
            time.sleep(0.5 if load else 0)
            rows[label] = measure(threads, args.runs, args.nice)
        finally:
            for p in procs:
                p.kill()
                p.wait()
    base = statistics.median(rows["quiet, 1 thread"]["lamina"])
    base_ort = statistics.median(rows["quiet, 1 thread"]["onnxruntime"])
    print(f"{'':19} {'threads':>7} {'lamina median':>14} {'p90':>8} {'ratio':>12} {'ort median':>11} {'p90':>8} {'ratio':>12}")
    for label, r in rows.items():
        m, p = stats(r["lamina"])
        om, op = stats(r["onnxruntime"])
        print(
            f"{label:19} {r['threads']:>7} {m * 1e3:>11.2f} ms {p * 1e3:>5.2f} ms {m / base:>5.2f}x/{p / base:>4.2f}x"
            f" {om * 1e3:>8.2f} ms {op * 1e3:>5.2f} ms {om / base_ort:>5.2f}x/{op / base_ort:>4.2f}x"
        )
    if args.json:
        Path(args.json).write_text(json.dumps({"host": str(host), "busy": args.busy, "rows": rows}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
