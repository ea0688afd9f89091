"""Progress displays and tables of the `lamina` command (with rich).

`CompileProgress` is a pass instrument: on a terminal it shows a progress bar
naming the running pass, and with `log=True` it also prints one line per pass as
it finishes (how `lamina demo` shows its pass-by-pass progress, on a terminal or
not). `timing_table` renders a `TimingInstrument` plus extra steps (LLVM code
generation, linking) as a table.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import IO, Any

import numpy as np
from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table
from xdsl.dialects.builtin import ModuleOp

from lamina.passes import PassInfo, PassInstrument, TimingInstrument, count_ops

#: The width of a console that is not a terminal (a pipe, a file, a log) and
#: has no `COLUMNS`: wide enough that no table is cut or wrapped (a table takes
#: only the width its cells need).
UNBOUNDED_WIDTH = 10_000


def _columns() -> int | None:
    """The width `COLUMNS` asks for (a positive integer), if it is set."""
    text = os.environ.get("COLUMNS", "").strip()
    return int(text) if text.isdigit() and int(text) > 0 else None


def console(stream: IO[str] | None = None) -> Console:
    """A rich console on `stream` (default stdout), plain when it is not a
    terminal. Its width is `COLUMNS` when set, else the terminal's; when it is not
    a terminal, tables are never cut (no 80-column default)."""
    stream = stream if stream is not None else sys.stdout
    tty = stream.isatty()
    width = _columns() or (None if tty else UNBOUNDED_WIDTH)
    return Console(file=stream, width=width, highlight=False, soft_wrap=not tty)


class CompileProgress(PassInstrument):
    """A progress bar over the passes of a compile, and optionally a log line per
    pass (`name`, time, ops after)."""

    needs_whole_module = False

    def __init__(self, out: Console, total: int, log: bool = False) -> None:
        self.out = out
        self.log = log
        self.total = total
        self.done = 0
        self._start = 0.0
        #: when the last pass finished (what follows is LLVM code generation)
        self.last_end = time.perf_counter()
        self.progress = Progress(
            SpinnerColumn(),
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            TextColumn("{task.completed}/{task.total} passes"),
            TimeElapsedColumn(),
            console=out,
            transient=True,
            disable=not out.is_terminal,
        )
        self.task = self.progress.add_task("compiling", total=total)

    def run_before_pass(self, module: ModuleOp, info: PassInfo) -> None:
        self._start = time.perf_counter()
        self.progress.update(self.task, description=info.name)

    def run_after_pass(self, module: ModuleOp, info: PassInfo) -> None:
        self.done += 1
        self.last_end = time.perf_counter()
        self.progress.update(self.task, completed=self.done)
        if info.name == "lower-tir-to-llvm":
            self.progress.update(self.task, description="LLVM code generation")
        if self.log:
            ms = 1e3 * (self.last_end - self._start)
            self.out.print(
                f"  [green]✓[/] {info.name:<22} {ms:8.1f} ms   {count_ops(module):>6} ops"
            )

    def step(self, description: str) -> None:
        """Name a step that is not a pass (code generation, linking)."""
        self.progress.update(self.task, description=description)

    @contextmanager
    def shown(self) -> Iterator[CompileProgress]:
        """Display the bar while the block runs."""
        with self.progress:
            yield self


def timing_table(timing: TimingInstrument, extra: Sequence[tuple[str, float]] = ()) -> Table:
    """Per-pass wall time (and `extra` steps) with shares of the total."""
    rows = [*timing.timings.items(), *extra]
    total = sum(seconds for _, seconds in rows)
    table = Table(title="Pass timing", title_justify="left")
    table.add_column("pass")
    table.add_column("runs", justify="right")
    table.add_column("wall time", justify="right")
    table.add_column("share", justify="right")
    for name, seconds in rows:
        share = 100.0 * seconds / total if total > 0 else 100.0
        runs = str(timing.runs.get(name, 1))
        table.add_row(name, runs, f"{1e3 * seconds:.1f} ms", f"{share:.1f}%")
    table.add_section()
    table.add_row("total", "", f"{1e3 * total:.1f} ms", "100.0%")
    return table


def fmt_ms(ms: float) -> str:
    """A duration given in ms, in µs below 1 ms."""
    return f"{1e3 * ms:.1f} µs" if ms < 1 else f"{ms:.2f} ms"


def measure(fn: Callable[[], Any], runs: int | None, warmup: int) -> np.ndarray:
    """Latencies in ms of `runs` calls of `fn` after `warmup` calls; with no
    `runs`, as many as fit in about 2 s (at least 10, at most 200)."""
    t0 = time.perf_counter()
    for _ in range(max(warmup, 1)):
        fn()
    if runs is None:
        once = (time.perf_counter() - t0) / max(warmup, 1)
        runs = int(min(200, max(10, 2.0 / max(once, 1e-6))))
    times = np.empty(runs)
    for i in range(runs):
        t = time.perf_counter()
        fn()
        times[i] = time.perf_counter() - t
    return 1e3 * times


__all__ = ["CompileProgress", "console", "timing_table"]
