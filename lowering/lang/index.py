"""Symbolic index arithmetic with ranges: the simplifier behind schedules.

Loop indices after `split`/`fuse` and the flattened addresses of reshapes are
integer expressions `sum(coeff * atom) + const` (`Lin`) whose atoms are loop
variables, floor divisions, floor moduli and clamps of other `Lin`s. Every loop
variable has a known range, so expressions simplify as they are built:

- `(x*c + r) // c == x` and `(x*c + r) % c == r` when `0 <= r < c`;
- `(x // a) % b == (x % (a*b)) // a` and `(x % a) % b == x % b` for `b | a`;
- `(x // c) * c + x % c == x` (what undoes `fuse` and reshape flattening);
- clamps and comparisons that ranges decide are folded.

This is TVM's `arith::Analyzer` in miniature; `te_to_tir` emits the simplified
expressions as `arith` ops.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from xdsl.ir import SSAValue

from lamina.symbolic import Dim, Sym

Atom = Union["Var", "Opaque", "Div", "Mod", "Clamp"]


@dataclass(frozen=True)
class Var:
    """A loop variable ranging over `0 .. extent-1` (a symbolic extent: unbounded)."""

    name: str
    extent: Dim

    def range(self) -> tuple[int | None, int | None]:
        return 0, self.extent - 1 if isinstance(self.extent, int) else None


@dataclass(frozen=True, eq=False)
class Opaque:
    """An index computed by IR the simplifier does not model (compared by identity)."""

    value: SSAValue
    lo: int | None = None
    hi: int | None = None

    def range(self) -> tuple[int | None, int | None]:
        return self.lo, self.hi


@dataclass(frozen=True)
class Div:
    """`x // c`; a symbolic divisor `c` is a positive size."""

    x: Lin
    c: Dim

    def range(self) -> tuple[int | None, int | None]:
        lo, hi = self.x.range()
        if isinstance(self.c, Sym):
            return (None if lo is None or lo < 0 else 0, None)
        return (None if lo is None else lo // self.c, None if hi is None else hi // self.c)


@dataclass(frozen=True)
class Mod:
    x: Lin
    c: Dim

    def range(self) -> tuple[int | None, int | None]:
        return 0, self.c - 1 if isinstance(self.c, int) else None


@dataclass(frozen=True)
class Clamp:
    """`min(max(x, lo), hi)`; a missing bound is not applied (a symbolic `hi`, a
    size, bounds nothing the ranges can use)."""

    x: Lin
    lo: int | None
    hi: Dim | None

    def range(self) -> tuple[int | None, int | None]:
        if isinstance(self.hi, Sym):
            return Clamp(self.x, self.lo, None).range()
        xl, xh = self.x.range()
        lo = self.lo if xl is None else (xl if self.lo is None else max(xl, self.lo))
        hi = self.hi if xh is None else (xh if self.hi is None else min(xh, self.hi))
        if lo is not None and self.hi is not None:
            lo = min(lo, self.hi)
        if hi is not None and self.lo is not None:
            hi = max(hi, self.lo)
        return lo, hi


def _key(atom: Atom) -> str:
    return repr(atom) if not isinstance(atom, Opaque) else f"opaque{id(atom)}"


@dataclass(frozen=True)
class Lin:
    """`sum(coeff * atom) + const`, kept normalized (sorted, no zero terms)."""

    terms: tuple[tuple[Atom, int], ...] = ()
    const: int = 0

    # --- construction ---------------------------------------------------
    @staticmethod
    def of(x: Lin | Atom | int) -> Lin:
        if isinstance(x, Lin):
            return x
        if isinstance(x, int):
            return Lin((), x)
        return Lin(((x, 1),), 0)

    @staticmethod
    def _make(terms: dict[Atom, int], const: int) -> Lin:
        items = sorted(((a, c) for a, c in terms.items() if c), key=lambda t: _key(t[0]))
        return _recombine(Lin(tuple(items), const))

    def as_dict(self) -> dict[Atom, int]:
        return dict(self.terms)

    # --- arithmetic -----------------------------------------------------
    def __add__(self, other: Lin | Atom | int) -> Lin:
        o = Lin.of(other)
        terms = self.as_dict()
        for a, c in o.terms:
            terms[a] = terms.get(a, 0) + c
        return Lin._make(terms, self.const + o.const)

    def __sub__(self, other: Lin | Atom | int) -> Lin:
        return self + Lin.of(other) * -1

    def __mul__(self, k: int) -> Lin:
        if k == 0:
            return Lin()
        return Lin._make({a: c * k for a, c in self.terms}, self.const * k)

    def floordiv(self, c: Dim) -> Lin:
        if isinstance(c, Sym):  # by a size: nothing to simplify
            return Lin.of(Div(self, c))
        if c == 1:
            return self
        divisible, rest = _split(self, c)
        lo, hi = rest.range()
        if lo is not None and hi is not None and lo >= 0 and hi < c:
            return divisible
        if lo is not None and hi is not None and lo // c == hi // c:
            return divisible + lo // c
        if len(rest.terms) == 1 and rest.const == 0 and rest.terms[0][1] == 1:
            inner = rest.terms[0][0]
            if isinstance(inner, Div) and isinstance(inner.c, int):  # (x // a) // c
                return divisible + Lin.of(Div(inner.x, inner.c * c))  # == x // (a*c)
        return divisible + Lin.of(Div(rest, c))

    def mod(self, c: Dim) -> Lin:
        if isinstance(c, Sym):
            return Lin.of(Mod(self, c))
        if c == 1:
            return Lin()
        _, rest = _split(self, c)
        lo, hi = rest.range()
        if lo is not None and hi is not None and lo >= 0 and hi < c:
            return rest
        if len(rest.terms) == 1 and rest.const == 0 and rest.terms[0][1] == 1:
            inner = rest.terms[0][0]
            if isinstance(inner, Mod) and isinstance(inner.c, int) and inner.c % c == 0:  # c | a
                return inner.x.mod(c)
            if isinstance(inner, Div) and isinstance(inner.c, int):  # (x // a) % c
                return inner.x.mod(inner.c * c).floordiv(inner.c)  # == (x % (a*c)) // a
        return Lin.of(Mod(rest, c))

    def clamp(self, lo: int | None, hi: Dim | None) -> Lin:
        xl, xh = self.range()
        if isinstance(hi, Sym):
            if lo is not None and xl is not None and xl >= lo:
                lo = None
            return Lin.of(Clamp(self, lo, hi))
        if lo is not None and xl is not None and xl >= lo:
            lo = None
        if hi is not None and xh is not None and xh <= hi:
            hi = None
        if lo is None and hi is None:
            return self
        return Lin.of(Clamp(self, lo, hi))

    # --- queries --------------------------------------------------------
    def range(self) -> tuple[int | None, int | None]:
        lo: int | None = self.const
        hi: int | None = self.const
        for a, c in self.terms:
            al, ah = a.range()
            tl, th = (al, ah) if c > 0 else (ah, al)
            lo = None if lo is None or tl is None else lo + c * tl
            hi = None if hi is None or th is None else hi + c * th
        return lo, hi

    @property
    def is_const(self) -> bool:
        return not self.terms

    def coeff(self, var: Var) -> int:
        """The coefficient of `var` when it occurs only linearly, else 0."""
        for a, c in self.terms:
            if a == var:
                return c
        return 0

    def uses(self, var: Var) -> bool:
        """Whether `var` occurs anywhere in the expression."""
        return any(_atom_uses(a, var) for a, _ in self.terms)

    def linear_in(self, var: Var) -> bool:
        """Whether `var` occurs only as a top-level term."""
        return not any(a != var and _atom_uses(a, var) for a, _ in self.terms)

    def substitute(self, env: dict[Atom, Lin]) -> Lin:
        out = Lin.of(self.const)
        for a, c in self.terms:
            out = out + _subst_atom(a, env) * c
        return out


def _atom_uses(a: Atom, var: Var) -> bool:
    if a == var:
        return True
    if isinstance(a, Div | Mod | Clamp):
        return a.x.uses(var)
    return False


def _subst_atom(a: Atom, env: dict[Atom, Lin]) -> Lin:
    if a in env:
        return env[a]
    if isinstance(a, Div):
        return a.x.substitute(env).floordiv(a.c)
    if isinstance(a, Mod):
        return a.x.substitute(env).mod(a.c)
    if isinstance(a, Clamp):
        return a.x.substitute(env).clamp(a.lo, a.hi)
    return Lin.of(a)


def _split(x: Lin, c: int) -> tuple[Lin, Lin]:
    """`x == divisible * c + rest`, where `divisible` collects the terms (and the part
    of the constant) that are multiples of `c`; returns `(divisible, rest)`."""
    div: dict[Atom, int] = {}
    rest: dict[Atom, int] = {}
    for a, k in x.terms:
        if k % c == 0:
            div[a] = k // c
        else:
            rest[a] = k
    return Lin._make(div, x.const // c), Lin._make(rest, x.const % c)


def _recombine(x: Lin) -> Lin:
    """Fold `k*c * (X // c) + k * (X % c)` into `k * X`, repeatedly."""
    terms = dict(x.terms)
    changed = True
    while changed:
        changed = False
        for a, m in list(terms.items()):
            if not isinstance(a, Div) or not isinstance(a.c, int) or m % a.c:
                continue
            k = m // a.c
            rem = a.x.mod(a.c)
            if len(rem.terms) != 1 or rem.const or rem.terms[0][1] != 1:
                continue
            r = rem.terms[0][0]
            if terms.get(r) != k:
                continue
            del terms[a], terms[r]
            const = x.const
            for b, kb in a.x.terms:
                terms[b] = terms.get(b, 0) + kb * k
            const += a.x.const * k
            x = Lin(tuple(sorted(((b, v) for b, v in terms.items() if v), key=lambda t: _key(t[0]))), const)
            terms = dict(x.terms)
            changed = True
            break
    return x


__all__ = ["Atom", "Clamp", "Div", "Lin", "Mod", "Opaque", "Var"]
