"""Moving through a template's knob space: random valid points, mutations and
crossovers (the moves of the evolutionary search), each rejecting invalid
points before anything is built (`Space.check`)."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

from lamina.lowering.strategy.knobs import Knobs, Space

#: Draws before a move gives up finding a valid point.
TRIES = 64


def sample(space: Space[Any], rng: random.Random) -> Knobs | None:
    """A random valid point (None if `TRIES` draws found none)."""
    names = list(space.choices)
    for _ in range(TRIES):
        point = space.point({n: rng.choice(space.choices[n]) for n in names})
        if space.why_invalid(point) is None:
            return point  # type: ignore[no-any-return]
    return None


#: How often a mutation moves a knob to a neighbouring choice (the next tile
#: size up or down) rather than to any other: good points cluster.
NEIGHBOUR = 0.75


def mutate(space: Space[Any], knobs: Knobs, rng: random.Random) -> Knobs | None:
    """`knobs` with one field changed to another of its choices (a neighbouring
    one, `NEIGHBOUR` of the time), valid (None if no such change was found)."""
    names = [n for n in space.choices if len(space.choices[n]) > 1]
    if not names:
        return None
    for _ in range(TRIES):
        name = rng.choice(names)
        options = space.choices[name]
        here = getattr(knobs, name)
        at = options.index(here) if here in options else None
        near = [options[i] for i in (at - 1, at + 1) if at is not None and 0 <= i < len(options)]
        if near and rng.random() < NEIGHBOUR:
            value = rng.choice(near)
        else:
            value = rng.choice([v for v in options if v != here])
        point = dataclasses.replace(knobs, **{name: value})
        if space.why_invalid(point) is None:
            return point
    return None


def crossover(space: Space[Any], a: Knobs, b: Knobs, rng: random.Random) -> Knobs | None:
    """Each field from `a` or `b` at random, valid (None if none was found)."""
    for _ in range(TRIES):
        point = space.point({n: getattr(rng.choice((a, b)), n) for n in space.choices})
        if space.why_invalid(point) is None:
            return point  # type: ignore[no-any-return]
    return None


def unmeasured(space: Space[Any], seen: set[Knobs], n: int, rng: random.Random) -> list[Knobs]:
    """Up to `n` distinct random valid points not in `seen` (every remaining
    one, shuffled, when the space is small)."""
    if space.size <= 4096:
        rest = [k for k in space if k not in seen]
        rng.shuffle(rest)
        return rest[:n]
    out: list[Knobs] = []
    for _ in range(n * TRIES):
        if len(out) == n:
            break
        k = sample(space, rng)
        if k is not None and k not in seen and k not in out:
            out.append(k)
    return out


__all__ = ["NEIGHBOUR", "TRIES", "crossover", "mutate", "sample", "unmeasured"]
