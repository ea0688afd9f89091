"""The cost model against random search at equal trials (the tuning issue's
comparison), with repeats and the timing noise beside it.

    pip install -e '.[test,tune,bench]'
    .venv/bin/python bench/search_curve.py bert --trials 400 --repeats 3
    .venv/bin/python bench/search_curve.py bert --analyze tune-curves   # the table again

MODEL (a `bench/zoo_models.py` name) is tuned from empty records `--repeats`
times with each search, the cost-model guided evolutionary search and random
search, for the same number of trials, on 1-thread kernels with one local
worker (`lamina.tune`). The runs alternate (E R, R E, E R, ...) so that both
searches meet the same drift of a shared machine, and repeat `r` gives both
searches seed `r`: the same random start (the evolutionary search samples at
random until its model has 16 measurements), the same inputs.

**The curve**: after each trial, the sum over the tasks of weight x the best
time measured so far (the model's latency in its kernels), from the trial at
which every task has a time (its default schedule's). Each run's curve is also
divided by the run's own sum of weight x default time (every round re-times
its task's default: the best of those), which cancels the speed of the machine
during that run; the table gives, at each checkpoint, the mean of those ratios
over the repeats for each search with their range, and the mean sum in ms.

**Within a task, searched only** (the second table): the default schedule is
one point of each space and, where it is within a few percent of the best,
it sets every curve above from the first trial, whatever the search does. So
this table leaves the defaults out and compares what each search found by
itself: for each task, the best of its first k searched candidates (a bad one
counts as none), summed with the task's weight over the tasks that every run
searched at least k times, divided by the same sum of the best any run found
(1: as good as the best point seen).

**The noise**: the defaults' re-timings give the noise of one measurement (the
median over tasks of their median time over their best, less 1) and the drift
between runs (the range of the runs' default sums); a difference between the
curves within the ranges of the repeats is not a result.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from zoo_models import ZOO, load

import lamina
from lamina.codegen.peak import describe_host
from lamina.tuning import read_records

SEARCHES = ("evolutionary", "random")


@dataclass
class Run:
    """One tuning run's records, read back: the curve of best-so-far sums after
    each trial (None before every task has a time), the sum of weight x best
    default time, each default's re-timings, and per task its searched
    candidates' times in order (None: bad) and its weight."""

    search: str
    repeat: int
    sums: list[float | None]
    default_sum: float
    defaults: dict[str, list[float]]
    searched: dict[str, list[float | None]]
    weights: dict[str, int]

    def at(self, trial: int) -> float:
        """The best-so-far sum after `trial` trials (the last one if fewer)."""
        value = self.sums[min(trial, len(self.sums)) - 1]
        assert value is not None
        return value

    @property
    def start(self) -> int:
        """The first trial after which every task has a time."""
        return next(i + 1 for i, s in enumerate(self.sums) if s is not None)


def read_run(path: Path, search: str, repeat: int) -> Run:
    rs, _ = read_records(path)
    tasks = {r.workload for r in rs}
    best: dict[str, float] = {}
    weight: dict[str, int] = {}
    defaults: dict[str, list[float]] = {}
    searched: dict[str, list[float | None]] = {}
    sums: list[float | None] = []
    for r in rs:
        weight[r.workload] = r.weight
        if not r.default:
            searched.setdefault(r.workload, []).append(r.seconds if r.ok else None)
        if r.ok and r.seconds is not None:
            best[r.workload] = min(best.get(r.workload, r.seconds), r.seconds)
            if r.default:
                defaults.setdefault(r.workload, []).append(r.seconds)
        sums.append(sum(weight[w] * s for w, s in best.items()) if len(best) == len(tasks) else None)
    default_sum = sum(weight[w] * min(ts) for w, ts in defaults.items())
    return Run(search, repeat, sums, default_sum, defaults, searched, weight)


def tune_run(name: str, search: str, repeat: int, trials: int, out: Path) -> Path:
    path = out / f"{name}-{search}-{repeat}.jsonl"
    if path.exists():
        path.unlink()
    t0 = time.perf_counter()
    lamina.tune(load(name), path, trials=trials, search=search, seed=repeat, threads=1, workers=1)
    one, five, _ = os.getloadavg()
    print(f"  {search}, repeat {repeat}: {trials} trials in {time.perf_counter() - t0:.0f} s "
          f"(load average {one:.1f}, {five:.1f})", flush=True)
    return path


def table(runs: list[Run], points: int) -> str:
    """The markdown table of the curves at `points` checkpoints, and the noise."""
    start = max(r.start for r in runs)
    end = min(len(r.sums) for r in runs)
    step = max(1, (end - start) // max(points - 1, 1))
    checkpoints = list(range(start, end + 1, step))
    if checkpoints[-1] != end:
        checkpoints.append(end)
    lines = [
        "| trials | " + " | ".join(
            f"{s}: sum / default sum (range) | {s}: ms" for s in SEARCHES
        ) + " | random / evolutionary |",
        "|---|" + "---|---|" * len(SEARCHES) + "---|",
    ]
    for n in checkpoints:
        cells = [str(n)]
        means = {}
        for s in SEARCHES:
            ratios = [r.at(n) / r.default_sum for r in runs if r.search == s]
            ms = [r.at(n) * 1e3 for r in runs if r.search == s]
            means[s] = statistics.mean(ratios)
            cells += [f"{means[s]:.4f} ({min(ratios):.4f}-{max(ratios):.4f})", f"{statistics.mean(ms):.2f}"]
        cells.append(f"{means['random'] / means['evolutionary']:.4f}x")
        lines.append("| " + " | ".join(cells) + " |")
    noise = [
        statistics.median(ts) / min(ts) - 1 for r in runs for ts in r.defaults.values() if len(ts) > 1
    ]
    default_sums = [r.default_sum * 1e3 for r in runs]
    lines += [
        "",
        f"timing noise of one measurement (defaults re-timed: median over tasks of median/best - 1): "
        f"{100 * statistics.median(noise):.2f}% (worst task {100 * max(noise):.2f}%)",
        f"runs' default sums: {min(default_sums):.2f}-{max(default_sums):.2f} ms "
        f"(drift between runs {100 * (max(default_sums) / min(default_sums) - 1):.2f}%)",
    ]
    return "\n".join(lines)


def searched_table(runs: list[Run]) -> str:
    """The markdown table of the searches within each task, defaults left out
    (see the module)."""
    best: dict[str, float] = {}
    for r in runs:
        for w, ts in r.searched.items():
            for t in ts:
                if t is not None:
                    best[w] = min(best.get(w, t), t)
    lines = [
        "| trials per task | tasks | " + " | ".join(f"{s}: sum / best seen (range)" for s in SEARCHES) + " | random / evolutionary |",
        "|---|---|" + "---|" * len(SEARCHES) + "---|",
    ]
    k = 2
    while True:
        tasks = [w for w in best if all(len(r.searched.get(w, [])) >= k for r in runs)]
        if not tasks:
            break
        means = {}
        cells = [str(k), str(len(tasks))]
        for s in SEARCHES:
            ratios = []
            for r in (r for r in runs if r.search == s):
                found = {w: [t for t in r.searched[w][:k] if t is not None] for w in tasks}
                if not all(found.values()):
                    continue  # a task whose first k were all bad: no time to sum
                total = sum(r.weights[w] * min(found[w]) for w in tasks)
                ratios.append(total / sum(r.weights[w] * best[w] for w in tasks))
            means[s] = statistics.mean(ratios) if ratios else float("nan")
            cells.append(f"{means[s]:.4f} ({min(ratios):.4f}-{max(ratios):.4f})" if ratios else "-")
        cells.append(f"{means['random'] / means['evolutionary']:.4f}x")
        lines.append("| " + " | ".join(cells) + " |")
        k *= 2
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("model", help="a zoo name: " + ", ".join(ZOO))
    p.add_argument("--trials", type=int, default=400, help="trials per run (default 400)")
    p.add_argument("--repeats", type=int, default=3, help="runs of each search (default 3)")
    p.add_argument("--points", type=int, default=10, help="checkpoints in the table")
    p.add_argument("--out", default="tune-curves", help="folder for the records")
    p.add_argument("--analyze", metavar="DIR", help="only read the records a run left in DIR")
    args = p.parse_args(argv)
    if args.model not in ZOO:
        p.error(f"unknown model {args.model}; the zoo has {', '.join(ZOO)}")
    out = Path(args.analyze or args.out)
    print(f"host: {describe_host()}")
    if not args.analyze:
        out.mkdir(parents=True, exist_ok=True)
        for r in range(args.repeats):
            order = SEARCHES if r % 2 == 0 else SEARCHES[::-1]
            for search in order:
                tune_run(args.model, search, r, args.trials, out)
    runs = [
        read_run(path, search, r)
        for search in SEARCHES
        for r in range(args.repeats)
        if (path := out / f"{args.model}-{search}-{r}.jsonl").exists()
    ]
    if not all(any(run.search == s for run in runs) for s in SEARCHES):
        p.error(f"no records of both searches in {out}")
    print(f"\n{args.model}: sum over tasks of weight x best time so far, at equal trials "
          f"({len(runs) // 2} runs of each search)\n")
    print(table(runs, args.points))
    print(f"\n{args.model}: within each task, searched candidates only (defaults left out)\n")
    print(searched_table(runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
