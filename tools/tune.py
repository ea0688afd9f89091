"""`lamina tune`: auto-schedule a model's kernels, and report on tuning records.

    lamina tune MODEL -o records.jsonl [--trials N] [--time-budget 10m]
                [--runner local|ray|ray://ADDRESS] [--search evolutionary|random]
    lamina tune --report records.jsonl

On a terminal a live table shows each task's best GFLOP/s as the tuning goes;
elsewhere one line per round. Ctrl-C stops it with every measurement kept: the
same command resumes from the records.
"""

from __future__ import annotations

import argparse
import re
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rich.console import Console, Group
from rich.live import Live
from rich.table import Table

from lamina.codegen.peak import describe_host
from lamina.errors import LaminaError
from lamina.lowering.strategy.dispatch import Implementation
from lamina.lowering.strategy.registry import DEFAULT_IMPLEMENTATION
from lamina.tools.arguments import positive
from lamina.tools.report import console
from lamina.tuning import (
    RoundDone,
    TaskState,
    TuneSummary,
    TuningNote,
    load_records,
    tune,
)
from lamina.tuning.records import Record, TuningRecords
from lamina.tuning.runners import DEFAULT_TIMEOUT

_UNITS = {"s": 1, "m": 60, "h": 3600}


def duration(text: str) -> float:
    """`90`, `90s`, `10m`, `1.5h` as seconds (else a usage error)."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smh]?)\s*", text)
    if m is None or float(m.group(1)) <= 0:
        raise argparse.ArgumentTypeError(f"expected a duration like 90s, 10m or 1h, got '{text}'")
    return float(m.group(1)) * _UNITS[m.group(2) or "s"]


def _gflops(flops: int, seconds: float | None) -> str:
    return f"{flops / seconds / 1e9:.1f}" if seconds else "-"


def _us(seconds: float | None) -> str:
    return f"{seconds * 1e6:.1f}" if seconds else "-"


@contextmanager
def notes_printed(err: Console) -> Iterator[None]:
    """Print the tuning notes raised inside the block as `lamina: note: ...`."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", TuningNote)
        try:
            yield
        finally:
            for w in caught:
                if issubclass(w.category, TuningNote):
                    err.print(f"lamina: note: {w.message}", markup=False, highlight=False)
                else:
                    warnings.showwarning(w.message, w.category, w.filename, w.lineno)


# ------------------------------------------------------------------ progress
def _state_row(s: TaskState) -> list[str]:
    t = s.task
    bad = sum(1 for v in s.measured.values() if v is None)
    best = s.best_seconds
    speedup = f"{s.default_seconds / best:.2f}x" if s.default_seconds and best else "-"
    return [
        t.name, t.template, str(t.weight), f"{len(s.measured)}" + (f" ({bad} bad)" if bad else ""),
        _gflops(t.flops, s.default_seconds), _gflops(t.flops, best), speedup,
    ]


def progress_table(event: RoundDone, limit: int = 16) -> Table:
    """The tasks with the most time per inference first: trials and GFLOP/s."""
    budget = f"/{event.budget}" if event.budget is not None else ""
    clock = f"{event.elapsed:.0f} s" + (f" of {event.time_budget:.0f} s" if event.time_budget else "")
    table = Table(title=f"lamina tune: {event.trials}{budget} trials, {clock}", title_justify="left")
    for col in ("task", "template", "calls", "trials", "default GFLOP/s", "best GFLOP/s", "speedup"):
        table.add_column(col, justify="left" if col in ("task", "template") else "right", no_wrap=True)
    ranked = sorted(event.states, key=lambda s: -(s.default_seconds or 0) * s.task.weight)
    for s in ranked[:limit]:
        table.add_row(*_state_row(s), style="bold" if s is event.state else None)
    if len(ranked) > limit:
        table.add_row(f"({len(ranked) - limit} lighter tasks)", "", "", "", "", "", "")
    return table


class Progress:
    """A live table on a terminal, else one line per round."""

    def __init__(self, out: Console):
        self.out = out
        self.live: Live | None = Live(console=out, auto_refresh=False) if out.is_terminal else None

    def __call__(self, event: RoundDone) -> None:
        if self.live is not None:
            self.live.update(Group(progress_table(event)), refresh=True)
            return
        s = event.state
        if s is None:
            self.out.print(f"[{event.trials}] measured the default schedules", highlight=False)
            return
        self.out.print(
            f"[{event.trials}{'/' + str(event.budget) if event.budget else ''}, {event.elapsed:.0f} s] "
            f"{s.task.name} ({s.task.template}): best {_gflops(s.task.flops, s.best_seconds)} GFLOP/s, "
            f"default {_gflops(s.task.flops, s.default_seconds)}",
            highlight=False,
        )

    @contextmanager
    def shown(self) -> Iterator[None]:
        if self.live is None:
            yield
            return
        with self.live:
            yield


# -------------------------------------------------------------------- report
def report_table(records: Sequence[Record]) -> tuple[Table, list[str], float, float]:
    """Per task: calls, trials, default and best time and GFLOP/s, speedup; the
    best knobs of each tuned task (lines); and the sums of weight x time
    (default, best) over the tasks measured both ways."""
    by: dict[str, list[Record]] = {}
    for r in records:
        by.setdefault(r.workload, []).append(r)
    rows = []
    total_default = total_best = 0.0
    for rs in by.values():
        good = [r for r in rs if r.ok]
        default = min((r for r in rs if r.default and r.ok), key=lambda r: r.seconds or 0.0, default=None)
        best = min(good, key=lambda r: r.seconds or 0.0) if good else None
        first = rs[0]
        if default is not None and best is not None:
            total_default += first.weight * (default.seconds or 0.0)
            total_best += first.weight * (best.seconds or 0.0)
        rows.append((first, default, best, len(rs), len(rs) - len(good)))
    rows.sort(key=lambda row: -row[0].weight * ((row[1] or row[2] or row[0]).seconds or 0.0))
    table = Table(title_justify="left")
    for col in ("task", "template", "calls", "trials", "default µs", "best µs", "best GFLOP/s", "speedup"):
        table.add_column(col, justify="left" if col in ("task", "template") else "right", no_wrap=True)
    knobs: list[str] = []
    for first, default, best, n, bad in rows:
        speedup = "-"
        if default is not None and best is not None and best.seconds:
            speedup = f"{(default.seconds or 0.0) / best.seconds:.2f}x"
        if best is not None and not best.default:
            knobs.append(f"{first.task}: " + " ".join(f"{k}={v}" for k, v in best.knobs.items()))
        table.add_row(
            first.task, first.template, str(first.weight), f"{n}" + (f" ({bad} bad)" if bad else ""),
            _us(default.seconds if default else None), _us(best.seconds if best else None),
            _gflops(first.flops, best.seconds if best else None), speedup,
        )
    return table, knobs, total_default, total_best


def implementation_table(records: TuningRecords) -> Table | None:
    """Per graph op with several implementations (a 3x3 convolution: direct or
    Winograd's): each implementation's kernel calls and time (the sum of their
    best times), and the one a compile picks; None without such ops."""
    if not records.implementations:
        return None
    times = records.implementation_times()
    chosen = records.chosen()
    table = Table(
        title="implementations (µs: their kernels' best times, summed over the model's calls)",
        title_justify="left",
    )
    table.add_column("op", justify="left", overflow="fold")  # (a long workload wraps, not the numbers)
    for col in ("implementation", "kernel calls", "µs", "vs default", "compiled"):
        table.add_column(col, justify="left" if col == "implementation" else "right", no_wrap=True)
    seen: set[tuple[str, Implementation]] = set()
    for impl in records.implementations:
        key = (impl.workload, impl.choice)
        if key in seen:
            continue
        seen.add(key)
        op_times = times.get(impl.workload, {})
        seconds = op_times.get(impl.choice)
        default = next((t for i, t in op_times.items() if i.name == DEFAULT_IMPLEMENTATION), None)
        picked = chosen.get(impl.workload, Implementation.of(DEFAULT_IMPLEMENTATION)) == impl.choice
        table.add_row(
            impl.op, str(impl.choice), str(len(impl.kernels)), _us(seconds),
            f"{default / seconds:.2f}x" if default and seconds else "-",
            "yes" if picked and (seconds is not None or impl.choice.name == DEFAULT_IMPLEMENTATION) else "",
        )
    return table


def cmd_report(path: str, out: Console, err: Console) -> int:
    with notes_printed(err):
        records = load_records(path)
    if not records.records:
        out.print(f"{path}: no tuning records for this CPU ({records.target})", highlight=False)
        return 0
    table, knobs, _, _ = report_table(records.records)
    table.title = f"{path}: {len(records.records)} records, {records.target}"
    out.print(table)
    if knobs:
        out.print("best knobs:\n  " + "\n  ".join(knobs), highlight=False)
    impls = implementation_table(records)
    if impls is not None:
        out.print(impls)
    default, best = records.latency(False), records.latency(True)
    if default and best:
        out.print(
            f"time per inference in the tuned kernels: {default * 1e3:.3f} ms by default, "
            f"{best * 1e3:.3f} ms tuned ({default / best:.2f}x)",
            highlight=False,
        )
    return 0


# ---------------------------------------------------------------------- tune
def cmd_tune(
    args: argparse.Namespace,
    load: Callable[[Path, str, dict[str, list[int]] | None], Any],
    shapes: Callable[[Sequence[str]], dict[str, list[int]] | None],
    model_file: Callable[[str, Sequence[str]], tuple[Path, str]],
) -> int:
    """`lamina tune`: `load`, `shapes` and `model_file` are the command line's
    model loading (`lamina.tools.cli`)."""
    out, err = console(), console(sys.stderr)
    if args.report is not None:
        if args.model or args.output:
            raise LaminaError("--report reads a records file: give no model and no -o")
        return cmd_report(args.report, out, err)
    if not args.model or not args.output:
        raise LaminaError("give the model and -o RECORDS.jsonl (or --report RECORDS.jsonl)")
    path, kind = model_file(args.model, ("onnx", "mlir"))
    module = load(path, kind, shapes(args.input_shape))
    trials = args.trials if args.trials is not None or args.time_budget is not None else 1000
    err.print(f"host: {describe_host()}", highlight=False)
    progress = Progress(err)
    summary: TuneSummary
    try:
        with notes_printed(err), progress.shown():
            summary = tune(
                module, args.output, trials=trials, time_budget=args.time_budget,
                runner=args.runner, search=args.search, threads=args.threads,
                workers=args.workers, timeout=args.timeout, opt_level=args.opt_level,
                seed=args.seed, progress=progress,
            )
    except KeyboardInterrupt:
        err.print(f"lamina: every measurement so far is in {args.output}; the same command resumes")
        raise
    records = load_records(args.output)
    table, _, _, _ = report_table(records.records)
    out.print(table)
    impls = implementation_table(records)
    if impls is not None:
        out.print(impls)
    default, best = summary.latency(False), summary.latency(True)
    if default and best:
        out.print(
            f"tuned {len(summary.states)} task(s) with {summary.trials} trial(s) in "
            f"{summary.elapsed:.0f} s; time per inference in the tuned kernels: "
            f"{default * 1e3:.3f} ms by default, {best * 1e3:.3f} ms tuned ({default / best:.2f}x)"
        )
    out.print(f"records: {args.output} (compile with --tuning-records {args.output})")
    return 0


def add_parser(sub: Any, common: argparse.ArgumentParser, fn: Callable[[argparse.Namespace], int]) -> None:
    """The `tune` subcommand, run by `fn`."""
    t = sub.add_parser("tune", parents=[common], help="auto-schedule a model's kernels (tuning records)")
    t.add_argument("model", nargs="?", help="an ONNX model or a graph-level .mlir file")
    t.add_argument("-o", "--output", metavar="RECORDS.jsonl", help="the records to append to (resumes from them)")
    t.add_argument("--report", metavar="RECORDS.jsonl", help="print a per-task table of a records file")
    t.add_argument("--trials", type=positive, metavar="N", help="candidates to measure (default 1000)")
    t.add_argument("--time-budget", type=duration, metavar="10m", help="stop after this long (90s, 10m, 1h)")
    t.add_argument("--runner", default="local", metavar="local|ray|ray://ADDRESS",
                   help="where to measure: worker processes here (default), or a Ray cluster")
    t.add_argument("--search", choices=("evolutionary", "random"), default="evolutionary",
                   help="cost-model guided evolutionary search (default; needs xgboost) or random")
    t.add_argument("--threads", type=positive, default=1, metavar="N", help="threads kernels run on (default 1)")
    t.add_argument("--workers", type=positive, metavar="N", help="measuring processes (default: CPUs / 2)")
    t.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="S",
                   help=f"seconds a candidate may take to build and time (default {DEFAULT_TIMEOUT:g})")
    t.add_argument("--seed", type=int, default=0, help="the search's random seed")
    t.add_argument("-O", "--opt-level", type=int, choices=range(4), default=3, metavar="N")
    t.add_argument("--input-shape", action="append", default=[], metavar="NAME=D1,D2")
    t.set_defaults(fn=fn)


__all__ = [
    "add_parser",
    "cmd_report",
    "cmd_tune",
    "duration",
    "implementation_table",
    "notes_printed",
    "report_table",
]
