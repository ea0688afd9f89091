"""Memory kept by compiling: RSS growth per `lamina.compile` in one process.

    .venv/bin/python bench/memory.py                   # 100 compiles of the MLP
    .venv/bin/python bench/memory.py -n 30 --warmup 5 --tracemalloc
    .venv/bin/python bench/memory.py --no-cache        # LAMINA_CACHE=0 (always codegen)

It compiles the same small model (tools/demo.py `mlp_model()`, 784-512-512-10,
2.7 MB of weights) `--warmup` times, then `-n` times more, dropping each
CompiledModel and running `gc.collect()` after it, and prints the resident set
size (`/proc/self/statm`) growth over the measured compiles, in total and per
compile. With `--tracemalloc` it also prints Python allocations still alive and
the lines holding most of them. The cache directory is a fresh temporary one
unless `--cache-dir` is given.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
import time
import tracemalloc


def rss_bytes() -> int:
    """The resident set size of this process (Linux: /proc/self/statm)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", type=int, default=100, help="measured compiles (100)")
    ap.add_argument("--warmup", type=int, default=5, help="compiles before measuring (5)")
    ap.add_argument("--tracemalloc", action="store_true", help="also trace Python allocations")
    ap.add_argument("--no-cache", action="store_true", help="compile with LAMINA_CACHE=0")
    ap.add_argument("--cache-dir", help="the disk cache to use (default: a fresh temporary one)")
    ap.add_argument("--every", type=int, default=10, help="print RSS every N compiles (10)")
    args = ap.parse_args(argv)

    tmp = None
    if args.no_cache:
        os.environ["LAMINA_CACHE"] = "0"
    else:
        os.environ.pop("LAMINA_CACHE", None)
        if args.cache_dir:
            os.environ["LAMINA_CACHE_DIR"] = args.cache_dir
        else:
            tmp = tempfile.TemporaryDirectory(prefix="lamina-bench-memory-")
            os.environ["LAMINA_CACHE_DIR"] = tmp.name

    import numpy as np

    import lamina
    from lamina.tools.demo import mlp_model

    model = mlp_model()
    x = np.random.default_rng(0).standard_normal((1, 784)).astype(np.float32)

    def one() -> None:
        exe = lamina.compile(model, num_threads=1)
        exe.run(x)
        del exe
        gc.collect()

    for _ in range(args.warmup):
        one()
    if args.tracemalloc:
        tracemalloc.start(25)
        snap0 = tracemalloc.take_snapshot()
    gc.collect()
    start = rss_bytes()
    t0 = time.perf_counter()
    print(f"model: mlp_model() 784-512-512-10; {args.warmup} warm-up compiles; "
          f"cache: {'off' if args.no_cache else os.environ['LAMINA_CACHE_DIR']}")
    print(f"RSS after warm-up: {start / 2**20:.1f} MB")
    for i in range(1, args.n + 1):
        one()
        if i % args.every == 0 or i == args.n:
            now = rss_bytes()
            print(f"  {i:4d} compiles: RSS {now / 2**20:8.1f} MB  "
                  f"(+{(now - start) / 2**20:6.1f} MB, {(now - start) / i / 2**20:.3f} MB/compile)")
    elapsed = time.perf_counter() - t0
    gc.collect()
    growth = rss_bytes() - start
    print(f"RSS growth over {args.n} compiles: {growth / 2**20:.1f} MB "
          f"({growth / args.n / 2**20:.3f} MB per compile; {elapsed / args.n * 1e3:.0f} ms per compile)")
    if args.tracemalloc:
        snap1 = tracemalloc.take_snapshot()
        stats = snap1.compare_to(snap0, "traceback")
        alive = sum(s.size_diff for s in stats)
        print(f"Python allocations still alive: {alive / 2**20:+.2f} MB; the largest:")
        for s in stats[:8]:
            if s.size_diff <= 0:
                continue
            print(f"  {s.size_diff / 2**10:+9.1f} KiB in {s.count_diff:+d} blocks")
            for line in s.traceback.format()[-6:]:
                print("     " + line)
    if tmp is not None:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
