"""The cost model: gradient-boosted trees (XGBoost, in the `tune` extra) trained
online on the loop-nest features of measured candidates (Ansor's learned cost
model; AutoTVM's rank loss).

The search only ever compares candidates of one task, so the model learns to
rank them: a pairwise ranking objective over the candidates of each task
(a query group per task), on their throughput relative to the task's best
measured (1: as fast as the best; bad candidates count 0). One model ranks
the candidates of every task, and what it learns on one task (an unrolled
tile of one row is slow, a tile past the registers spills) carries to the
others through the features. It is retrained after each round; until it
has `MIN_SAMPLES` measurements it predicts nothing and the search samples at
random.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lamina.errors import LaminaError

#: Measurements before the model is first trained.
MIN_SAMPLES = 16


def require_xgboost() -> Any:
    """The xgboost module, or a LaminaError saying how to install it."""
    try:
        import xgboost  # optional: the `tune` extra
    except ImportError:
        raise LaminaError(
            "the cost model needs XGBoost: pip install -e '.[tune]' in lamina's clone (or "
            "pip install xgboost), or search at random (--search random)"
        ) from None
    return xgboost


class XGBoostModel:
    """Ranks candidates of a task by features (see the module)."""

    def __init__(self, seed: int = 0, rounds: int = 80):
        self._xgb = require_xgboost()
        self.seed = seed
        self.rounds = rounds
        self._rows: list[np.ndarray] = []
        self._tasks: list[str] = []
        self._seconds: list[float | None] = []
        self._booster: Any = None

    @property
    def trained(self) -> bool:
        return self._booster is not None

    @property
    def samples(self) -> int:
        """Measurements taken in so far."""
        return len(self._rows)

    def add(self, task: str, row: np.ndarray, seconds: float | None) -> None:
        """A measured candidate of `task` (None: it was bad)."""
        self._rows.append(row)
        self._tasks.append(task)
        self._seconds.append(seconds)

    def targets(self) -> np.ndarray:
        """Each measurement's throughput relative to its task's best (0: bad)."""
        best: dict[str, float] = {}
        for t, s in zip(self._tasks, self._seconds, strict=True):
            if s is not None:
                best[t] = min(best.get(t, s), s)
        return np.array(
            [best[t] / s if s is not None else 0.0 for t, s in zip(self._tasks, self._seconds, strict=True)],
            dtype=np.float32,
        )

    def fit(self) -> None:
        """Retrain on every measurement so far (once there are `MIN_SAMPLES`),
        the candidates of a task one query group."""
        if len(self._rows) < MIN_SAMPLES:
            return
        order = sorted(range(len(self._rows)), key=lambda i: self._tasks[i])
        groups: list[int] = []
        for i, j in enumerate(order):
            if i == 0 or self._tasks[j] != self._tasks[order[i - 1]]:
                groups.append(0)
            groups[-1] += 1
        data = self._xgb.DMatrix(np.stack([self._rows[i] for i in order]), label=self.targets()[order])
        data.set_group(groups)
        params = {
            "max_depth": 6, "eta": 0.2, "subsample": 0.9, "min_child_weight": 1,
            "objective": "rank:pairwise", "nthread": 1, "seed": self.seed, "verbosity": 0,
        }
        self._booster = self._xgb.train(params, data, num_boost_round=self.rounds)

    def predict(self, rows: list[np.ndarray]) -> np.ndarray:
        """A score per row, higher for faster candidates (comparable within a
        task only)."""
        if self._booster is None or not rows:
            return np.zeros(len(rows), dtype=np.float32)
        return np.asarray(self._booster.predict(self._xgb.DMatrix(np.stack(rows))))


__all__ = ["MIN_SAMPLES", "XGBoostModel", "require_xgboost"]
