"""The tuning loop: a model's tasks, Ansor's task scheduler, rounds of search and
measurement, and the records they leave.

Every task's default schedule is measured first (it is also the reference its
candidates are checked against), and again in each of the task's rounds. Then, round after round, the task scheduler
picks the task whose tuning is expected to cut the model's latency the most
(Ansor's gradient: the task's weight times a mix of its recent improvement and
an optimistic `best / rounds`), the search proposes a batch of its candidates,
the runner measures them and each result is appended to the records at once.
The loop ends when the trial budget or the time budget is spent, or when every
space is exhausted; Ctrl-C ends it too, with everything measured kept.

Existing records for this CPU resume the tuning: their candidates are not
measured again, and they train the cost model from the start.

The kernels of every implementation of the graph ops that have several (a 3x3
convolution: direct or Winograd's) are tasks like any other; the records get
one implementation line per implementation (its kernels), so that a compile
gives each op the implementation whose kernels are fastest together, and the
model's latency counts the fastest implementation of each such op. The
scheduler leaves out the calls of an implementation out of the race (more than
`SLACK` slower than its op's fastest so far): a task only they call is searched
once no other task is left.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import onnx
from xdsl.dialects.builtin import ModuleOp

from lamina.errors import LaminaError
from lamina.lowering.strategy.knobs import Knobs
from lamina.tuning.measure import MeasureInput, MeasureResult
from lamina.tuning.records import (
    CpuKey,
    ImplementationRecord,
    Record,
    RecordWriter,
    load_records,
    warn,
)
from lamina.tuning.runners import DEFAULT_TIMEOUT, Runner, make_runner
from lamina.tuning.search import SearchPolicy, TaskState, make_search
from lamina.tuning.tasks import KernelCall, OpImplementation, Task, extract

#: Candidates measured per round of one task.
BATCH = 8
#: The scheduler's weight of a task's recent improvement against its
#: optimistic estimate, and how many rounds back the improvement is read.
ALPHA, WINDOW = 0.2, 3


#: An implementation of a graph op this much slower than the op's fastest is
#: out of the race: tuning its kernels is not expected to make it the fastest.
SLACK = 1.15


def pick_task(states: Sequence[TaskState], weights: Mapping[str, float] | None = None) -> TaskState | None:
    """The task to search next (Ansor's gradient-based task scheduler): the
    one whose next round is expected to cut `sum(weight x best time)` the most
    (`weights`: the calls that count, by workload, instead of the tasks'
    weights; a task of weight 0 is searched only when no other is left); None
    when no task is left to search."""
    best: tuple[float, TaskState] | None = None
    for s in states:
        seconds = s.best_seconds
        if s.broken is not None or seconds is None or s.exhausted:
            continue
        weight = s.task.weight if weights is None else weights.get(s.task.workload, s.task.weight)
        if weight <= 0:
            continue
        backward = 0.0
        if len(s.history) > WINDOW:
            backward = (s.history[-1] - s.history[-1 - WINDOW]) / WINDOW
        forward = -seconds / (s.rounds + 1)
        grad = weight * (ALPHA * backward + (1 - ALPHA) * forward)
        if best is None or grad < best[0]:
            best = (grad, s)
    if best is None and weights is not None:
        return pick_task(states)
    return best[1] if best else None


def weights_in_race(states: Sequence[TaskState], implementations: Sequence[OpImplementation]) -> dict[str, float]:
    """The calls of each task that count for the scheduler: its weight less
    its calls in the implementations out of the race (more than `SLACK` slower
    than their op's fastest, at the best times so far)."""
    times: dict[str, float] = {}
    for s in states:
        if s.best_seconds is not None:
            times[s.task.workload] = s.best_seconds
    by_op: dict[str, list[tuple[OpImplementation, float]]] = {}
    for impl in implementations:
        if all(w in times for w in impl.kernels):
            by_op.setdefault(impl.workload, []).append((impl, sum(times[w] for w in impl.kernels)))
    weights = {s.task.workload: float(s.task.weight) for s in states}
    for timed in by_op.values():
        fastest = min(t for _, t in timed)
        for impl, seconds in timed:
            if seconds > SLACK * fastest:
                for w in impl.kernels:
                    weights[w] = max(0.0, weights.get(w, 0.0) - 1)
    return weights


def latency(
    states: Sequence[TaskState],
    calls: Sequence[KernelCall] | None = None,
    implementations: Sequence[OpImplementation] = (),
    tuned: bool = True,
) -> float:
    """The model's time per inference in its tasks, in seconds: the default
    build's kernel `calls`, each at its task's best time (`tuned`; a graph op
    with several implementations at its fastest one's kernels) or default
    time. Without `calls`, the sum over the tasks of weight x time. Tasks
    measured both ways only."""
    times = {
        s.task.workload: (s.best_seconds if tuned else s.default_seconds)
        for s in states
        if s.default_seconds is not None and s.best_seconds is not None
    }
    if calls is None:
        return sum(s.task.weight * times[s.task.workload] for s in states if s.task.workload in times)
    if not tuned:
        return sum(times.get(c.workload, 0.0) for c in calls)
    fastest: dict[str, float] = {}
    for impl in implementations:
        if all(w in times for w in impl.kernels):
            seconds = sum(times[w] for w in impl.kernels)
            fastest[impl.workload] = min(fastest.get(impl.workload, seconds), seconds)
    total = sum(fastest.values())
    for c in calls:
        if c.origin is None or c.origin not in fastest:
            total += times.get(c.workload, 0.0)
    return total


@dataclass
class RoundDone:
    """What the progress callback sees after each round: every task's state,
    the one just searched, the trials measured in this run and the budgets."""

    states: list[TaskState]
    state: TaskState | None
    trials: int
    budget: int | None
    elapsed: float
    time_budget: float | None
    calls: list[KernelCall] | None = None
    implementations: list[OpImplementation] = field(default_factory=list)

    def latency(self, tuned: bool = True) -> float:
        """The model's time in its tasks so far (`latency`), in seconds."""
        return latency(self.states, self.calls, self.implementations, tuned)


@dataclass
class TuneSummary:
    """A finished tuning: its tasks' states, the trials measured in this run,
    the time it took and notes (records left out, another CPU measuring); the
    default build's kernel calls and the graph ops' implementations, when the
    tasks were extracted from the model."""

    records: Path
    states: list[TaskState]
    trials: int
    elapsed: float
    notes: list[str] = field(default_factory=list)
    calls: list[KernelCall] | None = None
    implementations: list[OpImplementation] = field(default_factory=list)

    def latency(self, tuned: bool = True) -> float:
        """The model's time per inference in its tasks, in seconds, with the
        best schedules and implementations (`tuned`) or the defaults
        (`latency`)."""
        return latency(self.states, self.calls, self.implementations, tuned)


class _Loop:
    """One tuning run's bookkeeping (see `tune`)."""

    def __init__(
        self, tasks: list[Task], path: Path, policy: SearchPolicy, threads: int, seed: int
    ):
        self.policy = policy
        self.threads = threads
        self.seed = seed
        self.path = path
        self.notes: list[str] = []
        self.host = CpuKey.host()
        self.states = [TaskState(t, t.space()) for t in tasks]
        self._references = {t.workload: t.text() for t in tasks}
        self.trials = 0
        self.written: set[tuple[object, ...]] = set()

    def write_implementations(self, writer: RecordWriter, implementations: Sequence[OpImplementation]) -> None:
        """An implementation line for each of `implementations` the file lacks."""
        for impl in implementations:
            record = ImplementationRecord(
                impl.workload, impl.op, impl.implementation.name, dict(impl.implementation.knobs),
                list(impl.kernels), self.host.cpu, self.host.features, time.time(),
            )
            if _identity(record) not in self.written:
                writer.write(record)
                self.written.add(_identity(record))

    def resume(self) -> None:
        """Take in the records already in the file (this CPU's)."""
        if not self.path.exists():
            return
        existing = load_records(self.path, self.host)
        self.notes += existing.notes
        self.written = {_identity(i) for i in existing.implementations}
        by_workload = existing.by_workload()
        for state in self.states:
            task = state.task
            for r in by_workload.get(task.workload, []):
                if r.site != task.site or r.template != task.template:
                    continue
                try:
                    knobs = task.call.knobs.from_json(r.knobs)
                except LaminaError:
                    continue
                self._take(state, knobs, r.seconds if r.ok else None, r.default, r.error)
            if state.measured:
                state.history.append(state.best_seconds or 0.0)
        self.policy.round_done()

    def _take(
        self, state: TaskState, knobs: Knobs, seconds: float | None, default: bool, error: str | None
    ) -> None:
        """A measurement of `knobs`: a candidate measured again keeps its best time."""
        before = state.measured.get(knobs)
        if before is not None and (seconds is None or before < seconds):
            seconds = before
        state.measured[knobs] = seconds
        if default:
            state.default_seconds = seconds
            state.broken = None if seconds is not None else f"its default schedule failed: {error}"
        self.policy.observe(state, knobs, seconds)

    def measure(self, runner: Runner, writer: RecordWriter, batch: list[tuple[TaskState, Knobs, bool]]) -> None:
        """Measure `batch` (state, knobs, is the default) and record each result."""
        jobs = [
            MeasureInput(self._references[s.task.workload], s.task.text(k), self.threads, self.seed)
            for s, k, _ in batch
        ]
        results = runner.run(jobs)
        for (state, knobs, default), result in zip(batch, results, strict=True):
            writer.write(self._record(state.task, knobs, default, result))
            seconds = result.seconds if result.ok else None
            self._take(state, knobs, seconds, default, result.error)
            if (result.cpu, result.features) != (self.host.cpu, self.host.features):
                note = (
                    f"measured on {CpuKey(result.cpu, result.features)}, not on this machine's "
                    f"CPU {self.host}: the records are for the measuring CPU"
                )
                if note not in self.notes:
                    self.notes.append(note)
        self.trials += len(batch)

    def _record(self, task: Task, knobs: Knobs, default: bool, r: MeasureResult) -> Record:
        return Record(
            task.workload, task.name, task.site, task.template, knobs.to_json(), default,
            r.status, r.seconds if r.ok else None, task.flops, task.weight, self.threads,
            r.cpu, r.features, str(task.schedule(knobs)), r.error, time.time(),
        )


def _identity(r: ImplementationRecord) -> tuple[object, ...]:
    """What makes two implementation lines the same line (but the time)."""
    return (r.workload, r.implementation, tuple(sorted(r.knobs.items())), tuple(r.kernels), r.target)


def tune(
    model: str | os.PathLike[str] | onnx.ModelProto | ModuleOp,
    records: str | os.PathLike[str],
    *,
    trials: int | None = 1000,
    time_budget: float | None = None,
    runner: str | Runner = "local",
    search: str | SearchPolicy = "evolutionary",
    threads: int = 1,
    batch: int = BATCH,
    workers: int | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    input_shapes: dict[str, Sequence[int]] | None = None,
    opt_level: int = 3,
    seed: int = 0,
    tasks: list[Task] | None = None,
    progress: Callable[[RoundDone], None] | None = None,
) -> TuneSummary:
    """Tune a model's kernels and append what is measured to `records` (JSON
    lines; existing records for this CPU resume the tuning).

    Stops after `trials` measurements in this run or `time_budget` seconds
    (None: no such limit; at least one must be given), or when every task's
    space is exhausted. `runner` is `local`, `ray`, `ray://ADDRESS` or a runner
    object (left open); `search` is `evolutionary` (XGBoost cost model) or
    `random`. Kernels are timed on `threads` threads. `progress` is called
    after each round. Ctrl-C (KeyboardInterrupt) stops it with every
    measurement already written."""
    if trials is None and time_budget is None:
        raise LaminaError("give a trial budget, a time budget or both")
    if trials is not None and trials < 1:
        raise LaminaError(f"the trial budget must be at least 1, got {trials}")
    if time_budget is not None and time_budget <= 0:
        raise LaminaError(f"the time budget must be positive, got {time_budget:g} s")
    if threads < 1 or batch < 1:
        raise LaminaError("threads and the batch size must be at least 1")
    path = Path(records)
    writer = RecordWriter(path)  # (checks the path before anything is done)
    start = time.monotonic()
    policy = make_search(search, seed) if isinstance(search, str) else search
    extraction = extract(model, input_shapes, opt_level) if tasks is None else None
    loop = _Loop(extraction.tasks if extraction is not None else tasks,  # type: ignore[arg-type]
                 path, policy, threads, seed)
    calls = extraction.calls if extraction is not None else None
    implementations = extraction.implementations if extraction is not None else []
    loop.resume()
    warn(loop.notes)
    warned = len(loop.notes)
    rng = random.Random(seed)

    def left() -> int:
        return trials - loop.trials if trials is not None else 1 << 62

    def time_left() -> bool:
        return time_budget is None or time.monotonic() - start < time_budget

    def report(state: TaskState | None) -> None:
        if progress is not None:
            progress(RoundDone(
                loop.states, state, loop.trials, trials, time.monotonic() - start, time_budget,
                calls, implementations,
            ))

    owned = isinstance(runner, str)
    run: Runner = make_runner(runner, workers, timeout) if isinstance(runner, str) else runner
    try:
        with writer:
            loop.write_implementations(writer, implementations)
            defaults = [(s, s.task.default(), True) for s in loop.states if s.default_seconds is None and s.broken is None]
            for i in range(0, len(defaults), max(batch, run.parallelism)):
                if left() <= 0 or not time_left():
                    break
                loop.measure(run, writer, defaults[i : i + min(max(batch, run.parallelism), left())])
                report(None)
            policy.round_done()
            while left() > 0 and time_left():
                state = pick_task(loop.states, weights_in_race(loop.states, implementations))
                if state is None:
                    break
                n = min(batch, left())
                # Each round times the default again (when there is room): timing
                # noise only slows a run down, so the default's best time, like a
                # candidate's, is taken over moments of every load.
                again = [(state, state.task.default(), True)] if n > 1 else []
                knobs = policy.propose(state, n - len(again), rng)
                if not knobs:  # (every candidate measured)
                    state.rounds += 1
                    state.history.append(state.best_seconds or 0.0)
                    continue
                loop.measure(run, writer, again + [(state, k, False) for k in knobs])
                state.rounds += 1
                state.history.append(state.best_seconds or 0.0)
                policy.round_done()
                report(state)
    finally:
        if owned:
            run.close()
    warn(loop.notes[warned:])
    return TuneSummary(
        path, loop.states, loop.trials, time.monotonic() - start, loop.notes, calls, implementations,
    )


__all__ = ["BATCH", "SLACK", "RoundDone", "TuneSummary", "latency", "pick_task", "tune", "weights_in_race"]
