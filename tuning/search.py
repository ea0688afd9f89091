"""Search policies: which candidates of a task to measure next.

- `EvolutionarySearch` (Ansor's): a population of the task's best measured
  candidates and the best-predicted of a random pool evolves for a few
  generations by mutation (mostly to a neighbouring knob value) and
  crossover, each generation ranked by the cost model; the best-predicted
  unmeasured candidates are measured, with a share of random ones
  (epsilon-greedy: the model keeps learning where it is wrong). Until the
  model is trained, it samples at random.
- `RandomSearch`: unmeasured candidates at random (the baseline).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from lamina.errors import LaminaError
from lamina.lowering.strategy.knobs import Knobs, Space
from lamina.tuning.cost_model import XGBoostModel
from lamina.tuning.features import features
from lamina.tuning.space import crossover, mutate, unmeasured
from lamina.tuning.tasks import Task


@dataclass
class TaskState:
    """What the tuning knows of one task: every measured candidate (seconds per
    call; None: bad), the rounds searched and the best time after each."""

    task: Task
    space: Space[Knobs]
    measured: dict[Knobs, float | None] = field(default_factory=dict)
    rounds: int = 0
    history: list[float] = field(default_factory=list)
    default_seconds: float | None = None
    #: Why the task is not tuned (its default schedule failed), if it is not.
    broken: str | None = None
    _valid: int | None = field(default=None, repr=False)

    @property
    def best(self) -> tuple[Knobs, float] | None:
        good = [(k, s) for k, s in self.measured.items() if s is not None]
        return min(good, key=lambda ks: ks[1]) if good else None

    @property
    def best_seconds(self) -> float | None:
        best = self.best
        return best[1] if best else None

    @property
    def exhausted(self) -> bool:
        """Whether every valid candidate has been measured (only known of
        spaces small enough to count)."""
        if self._valid is None:
            self._valid = sum(1 for _ in self.space) if self.space.size <= 4096 else 1 << 62
        return len(self.measured) >= self._valid


class SearchPolicy(Protocol):
    name: str

    def propose(self, state: TaskState, n: int, rng: random.Random) -> list[Knobs]:
        """Up to `n` unmeasured candidates of `state`'s task."""

    def observe(self, state: TaskState, knobs: Knobs, seconds: float | None) -> None:
        """A candidate was measured (None: it was bad)."""

    def round_done(self) -> None:
        """A round of measurements is in."""


class RandomSearch:
    """Unmeasured candidates at random."""

    name = "random"

    def propose(self, state: TaskState, n: int, rng: random.Random) -> list[Knobs]:
        return unmeasured(state.space, set(state.measured), n, rng)

    def observe(self, state: TaskState, knobs: Knobs, seconds: float | None) -> None:
        pass

    def round_done(self) -> None:
        pass


class EvolutionarySearch:
    """Evolutionary search ranked by a cost model (see the module)."""

    name = "evolutionary"

    def __init__(
        self,
        model: XGBoostModel,
        population: int = 64,
        generations: int = 4,
        explore: float = 0.15,
        pool: int = 256,
    ):
        self.model = model
        self.population = population
        self.generations = generations
        self.explore = explore
        self.pool = pool
        self._features: dict[tuple[str, Knobs], np.ndarray] = {}

    def _row(self, task: Task, knobs: Knobs) -> np.ndarray:
        key = (task.workload, knobs)
        row = self._features.get(key)
        if row is None:
            row = self._features[key] = features(task, knobs)
        return row

    def _ranked(self, task: Task, points: list[Knobs]) -> list[Knobs]:
        """`points` (distinct), best predicted first."""
        points = list(dict.fromkeys(points))
        scores = self.model.predict([self._row(task, k) for k in points])
        return [points[i] for i in np.argsort(-scores, kind="stable")]

    def propose(self, state: TaskState, n: int, rng: random.Random) -> list[Knobs]:
        seen = set(state.measured)
        if not self.model.trained:
            return unmeasured(state.space, seen, n, rng)
        task = state.task
        # The first population: the best measured and the best-predicted of a
        # random pool; then generations of mutations and crossovers, the
        # best-predicted surviving each.
        good = sorted(
            (k for k, s in state.measured.items() if s is not None), key=lambda k: state.measured[k]  # type: ignore[arg-type,return-value]
        )[: self.population // 2]
        pool = self._ranked(task, unmeasured(state.space, seen, self.pool, rng))
        pop = list(dict.fromkeys(good + pool[: self.population - len(good)]))
        for _ in range(self.generations):
            children: list[Knobs] = []
            for _ in range(self.population):
                if len(pop) >= 2 and rng.random() < 0.5:
                    a, b = rng.sample(pop, 2)
                    child = crossover(state.space, a, b, rng)
                else:
                    child = mutate(state.space, rng.choice(pop), rng)
                if child is not None:
                    children.append(child)
            pop = self._ranked(task, pop + children)[: self.population]
        # The best-predicted unmeasured candidates, and (epsilon-greedy) a share
        # of random ones, so that the model learns where it is wrong.
        explore = max(1, round(self.explore * n)) if n > 1 else 0
        best = [k for k in self._ranked(task, pop + pool) if k not in seen][: n - explore]
        return best + unmeasured(state.space, seen | set(best), n - len(best), rng)

    def observe(self, state: TaskState, knobs: Knobs, seconds: float | None) -> None:
        self.model.add(state.task.workload, self._row(state.task, knobs), seconds)

    def round_done(self) -> None:
        self.model.fit()


def make_search(name: str, seed: int = 0) -> RandomSearch | EvolutionarySearch:
    """`evolutionary` (cost-model guided; needs XGBoost) or `random`."""
    if name == "random":
        return RandomSearch()
    if name == "evolutionary":
        return EvolutionarySearch(XGBoostModel(seed))
    raise LaminaError(f"unknown search '{name}': give evolutionary or random")


__all__ = ["EvolutionarySearch", "RandomSearch", "SearchPolicy", "TaskState", "make_search"]
