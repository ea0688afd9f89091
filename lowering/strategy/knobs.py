"""Template knobs as data: the base class of each template's knobs and the space
a tuner searches.

A schedule template (`lamina.lowering.strategy.cpu`) takes its knobs explicitly:
a small frozen dataclass per template (`GemmKnobs`, `WindowKnobs`, ...) whose
`default(target, ...)` gives the values derived from the target (what every
build uses unless a tuning record says otherwise) and whose `space(target, ...)`
gives the candidates: each field's choices, and a check that rejects a point
before anything is built (more accumulators than vector registers, a tile
larger than its axis, an unroll factor that does not divide its loop).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Self, TypeVar

from lamina.errors import LaminaError


@dataclass(frozen=True)
class Knobs:
    """The knobs of one template call: a frozen dataclass of ints and bools."""

    def to_json(self) -> dict[str, Any]:
        """The knobs as a JSON object (field name -> value)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Self:
        """Knobs from `to_json`'s object; a LaminaError naming what is wrong if
        a field is missing, unknown or of the wrong type."""
        names = {f.name: f for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - set(names))
        missing = sorted(set(names) - set(data))
        if unknown or missing:
            raise LaminaError(
                f"{cls.__name__}: "
                + "; ".join(
                    p for p in (
                        f"unknown field(s) {', '.join(unknown)}" if unknown else "",
                        f"missing field(s) {', '.join(missing)}" if missing else "",
                    ) if p
                )
            )
        values: dict[str, Any] = {}
        for name, f in names.items():
            v = data[name]
            want = bool if f.type in ("bool", bool) else int
            # (bool is an int in Python: an int field refuses it, and the reverse)
            if type(v) is not want:
                raise LaminaError(f"{cls.__name__}.{name}: expected {want.__name__}, got {v!r}")
            values[name] = v
        return cls(**values)

    def __str__(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in dataclasses.asdict(self).items())


K = TypeVar("K", bound=Knobs)


@dataclass(frozen=True)
class Space(Generic[K]):
    """The candidate knobs of one template call: each field's choices (their
    product is the raw space) and `why_invalid`, which names the reason a point
    of that product cannot be used (None: it can)."""

    kind: type[K]
    choices: Mapping[str, tuple[Any, ...]]
    why_invalid: Callable[[K], str | None] = field(compare=False, default=lambda k: None)

    @property
    def size(self) -> int:
        """Points in the raw product, valid or not."""
        return math.prod(len(c) for c in self.choices.values())

    def check(self, knobs: K) -> str | None:
        """Why `knobs` is not a point of this space, or None."""
        if not isinstance(knobs, self.kind):
            return f"knobs of {type(knobs).__name__}, not {self.kind.__name__}"
        for name, options in self.choices.items():
            value = getattr(knobs, name)
            if value not in options:
                return f"{name}={value} is not one of {', '.join(map(str, options))}"
        return self.why_invalid(knobs)

    def __contains__(self, knobs: object) -> bool:
        return isinstance(knobs, self.kind) and self.check(knobs) is None

    def point(self, values: Mapping[str, Any]) -> K:
        """The knobs with these field values (not checked)."""
        return self.kind(**values)

    def __iter__(self) -> Iterator[K]:
        """Every valid point, in the order of the choices."""
        names = list(self.choices)
        for combo in itertools.product(*self.choices.values()):
            k = self.kind(**dict(zip(names, combo, strict=True)))
            if self.why_invalid(k) is None:
                yield k


def choices(*values: int, at_most: int | None = None, keep: tuple[int, ...] = ()) -> tuple[int, ...]:
    """The distinct positive `values` up to `at_most`, sorted, with `keep` (the
    default) always among them."""
    out = {v for v in values if v > 0 and (at_most is None or v <= at_most)}
    return tuple(sorted(out | set(keep)))


#: The parallel granularities a tuner tries: the outer loops are fused until
#: they hold at least this many iterations, then run in parallel.
GRAINS = (1, 4, 16, 64)

#: The default granularity (the templates' choice before tuning).
DEFAULT_GRAIN = 16


__all__ = ["DEFAULT_GRAIN", "GRAINS", "Knobs", "Space", "choices"]
