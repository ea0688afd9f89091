"""Symbolic dimensions: integer polynomials over named sizes (Relax's symbolic shapes).

A dimension is an `int` or a `Sym`, a polynomial with integer coefficients over
named sizes (`batch`, `seq`) and opaque floor divisions (`(h + 1) // 2`). Sizes are
positive integers. Arithmetic folds as it goes, so shape inference written for
ints computes symbolic shapes unchanged: `seq * 2`, `batch * seq // seq == batch`,
and a result that turns out constant is a plain `int` again.

Equal dimensions are equal expressions: two `Sym`s compare by their normal form.
Comparisons a positive size decides (`seq > 0`, `seq == 1` is not known) answer;
the ones it does not raise `SymbolicError`, so code that needs a static dimension
says so instead of guessing. `Sym.parse` reads the text `str` writes.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import TypeVar, Union

import numpy as np

from lamina.errors import LaminaError

Dim = Union[int, "Sym"]
V = TypeVar("V")
# A monomial: the sorted names of its factors (a name repeated for a power).
Mono = tuple[str, ...]


class SymbolicError(LaminaError):
    """A question about a symbolic dimension that its symbols do not decide."""


class Sym:
    """A polynomial `sum(coeff * monomial)` over named sizes; immutable."""

    __slots__ = ("_hash", "divs", "terms")

    def __init__(self, terms: Mapping[Mono, int], divs: Mapping[str, tuple[Sym, int]] | None = None):
        self.terms = {m: c for m, c in terms.items() if c}
        # Names of opaque floor divisions in `terms`, with what they divide.
        self.divs = dict(divs or {})
        self._hash = hash(frozenset(self.terms.items()))

    # ------------------------------------------------------------ construction
    @staticmethod
    def var(name: str) -> Sym:
        if not name.isidentifier():
            raise SymbolicError(f"'{name}' is not a valid dimension name")
        return Sym({(name,): 1})

    @staticmethod
    def parse(text: str) -> Dim:
        """The dimension `text` names: an integer or an expression over names."""
        return _parse(text.strip())

    # ------------------------------------------------------------ inspection
    @property
    def names(self) -> frozenset[str]:
        """The size names the expression depends on (through divisions too)."""
        out: set[str] = set()
        for m in self.terms:
            for n in m:
                if n in self.divs:
                    out |= self.divs[n][0].names
                else:
                    out.add(n)
        return frozenset(out)

    @property
    def name(self) -> str | None:
        """The size's name if the expression is just one size, else None."""
        if len(self.terms) != 1:
            return None
        ((mono, c),) = self.terms.items()
        return mono[0] if c == 1 and len(mono) == 1 and mono[0] not in self.divs else None

    def evaluate(self, env: Mapping[str, int]) -> int:
        """The value for sizes `env` (every name must be bound)."""
        total = 0
        for m, c in self.terms.items():
            v = c
            for n in m:
                if n in self.divs:
                    num, d = self.divs[n]
                    v *= evaluate(num, env) // d
                elif n in env:
                    v *= env[n]
                else:
                    raise SymbolicError(f"dimension '{n}' has no value")
            total += v
        return total

    # ------------------------------------------------------------ arithmetic
    def __add__(self, other: Dim) -> Dim:
        o = _lift(other)
        if o is None:
            return NotImplemented
        terms = dict(self.terms)
        for m, c in o.terms.items():
            terms[m] = terms.get(m, 0) + c
        return _norm(terms, {**self.divs, **o.divs})

    __radd__ = __add__

    def __neg__(self) -> Dim:
        return _norm({m: -c for m, c in self.terms.items()}, self.divs)

    def __sub__(self, other: Dim) -> Dim:
        o = _lift(other)
        return NotImplemented if o is None else self + (-o)

    def __rsub__(self, other: Dim) -> Dim:
        return -self + other

    def __mul__(self, other: Dim) -> Dim:
        o = _lift(other)
        if o is None:
            return NotImplemented
        terms: dict[Mono, int] = {}
        for m1, c1 in self.terms.items():
            for m2, c2 in o.terms.items():
                m = tuple(sorted(m1 + m2))
                terms[m] = terms.get(m, 0) + c1 * c2
        return _norm(terms, {**self.divs, **o.divs})

    __rmul__ = __mul__

    def __floordiv__(self, other: Dim) -> Dim:
        if isinstance(other, int) and not isinstance(other, bool):
            if other <= 0:
                raise SymbolicError(f"cannot divide {self} by {other}")
            if all(c % other == 0 for c in self.terms.values()):
                return _norm({m: c // other for m, c in self.terms.items()}, self.divs)
            name = f"(({self}) // {other})"
            return Sym({(name,): 1}, {**self.divs, name: (self, other)})
        if isinstance(other, Sym):
            q = _divide_exact(self, other)
            if q is not None:
                return q
            raise SymbolicError(f"{self} is not known to be divisible by {other}")
        return NotImplemented

    def __rfloordiv__(self, other: Dim) -> Dim:
        o = _lift(other)
        if o is None:
            return NotImplemented
        return o // self

    def __mod__(self, other: Dim) -> Dim:
        q = self // other
        if isinstance(q, Sym) and any(n in q.divs and n not in self.divs for m in q.terms for n in m):
            raise SymbolicError(f"{self} % {other} is not known")
        return self - q * other

    def __rmod__(self, other: Dim) -> Dim:
        o = _lift(other)
        return NotImplemented if o is None else o % self

    # ------------------------------------------------------------ comparison
    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sym):
            return self.terms == other.terms
        return False  # a non-constant expression is never a known int

    def __hash__(self) -> int:
        return self._hash

    def bounds(self) -> tuple[int | None, int | None]:
        """Bounds over all positive sizes (a monomial is >= 1, or >= 0 with a division)."""
        lo: int | None = self.terms.get((), 0)
        hi: int | None = lo
        for m, c in self.terms.items():
            if not m:
                continue
            least = 0 if any(n in self.divs for n in m) else 1
            if c > 0:
                lo = None if lo is None else lo + c * least
                hi = None
            else:
                hi = None if hi is None else hi + c * least
                lo = None
        return lo, hi

    def _compare(self, other: Dim, op: str) -> bool:
        d = self - other
        if isinstance(d, int):
            return {"<": d < 0, "<=": d <= 0, ">": d > 0, ">=": d >= 0}[op]
        lo, hi = d.bounds()
        known = {
            "<": (hi is not None and hi < 0, lo is not None and lo >= 0),
            "<=": (hi is not None and hi <= 0, lo is not None and lo > 0),
            ">": (lo is not None and lo > 0, hi is not None and hi <= 0),
            ">=": (lo is not None and lo >= 0, hi is not None and hi < 0),
        }[op]
        if known[0] or known[1]:
            return known[0]
        raise SymbolicError(f"whether {self} {op} {other} depends on the sizes")

    def __lt__(self, other: Dim) -> bool:
        return self._compare(other, "<")

    def __le__(self, other: Dim) -> bool:
        return self._compare(other, "<=")

    def __gt__(self, other: Dim) -> bool:
        return self._compare(other, ">")

    def __ge__(self, other: Dim) -> bool:
        return self._compare(other, ">=")

    def __bool__(self) -> bool:
        return True  # sizes are positive

    def __index__(self) -> int:
        raise SymbolicError(f"dimension {self} is symbolic where a static size is needed")

    __int__ = __index__

    # ------------------------------------------------------------ text
    def __str__(self) -> str:
        def mono(m: Mono, c: int) -> str:
            body = "*".join(m)
            if not m:
                return str(abs(c))
            return body if abs(c) == 1 else f"{abs(c)}*{body}"

        order = sorted(self.terms.items(), key=lambda t: (-len(t[0]), t[0]))
        out = ""
        for i, (m, c) in enumerate(order):
            sign = "-" if c < 0 else "+"
            if i == 0:
                out = ("-" if c < 0 else "") + mono(m, c)
            else:
                out += f" {sign} {mono(m, c)}"
        return out

    def __repr__(self) -> str:
        return f"Sym({str(self)!r})"


def _lift(x: object) -> Sym | None:
    if isinstance(x, Sym):
        return x
    if isinstance(x, int) and not isinstance(x, bool):
        return Sym({(): x})
    if isinstance(x, np.integer):  # shape tensors' elements
        return Sym({(): int(x)})
    return None


def _norm(terms: Mapping[Mono, int], divs: Mapping[str, tuple[Sym, int]]) -> Dim:
    terms = {m: c for m, c in terms.items() if c}
    if not terms:
        return 0
    if set(terms) == {()}:
        return terms[()]
    used = {n for m in terms for n in m}
    return Sym(terms, {k: v for k, v in divs.items() if k in used})


def _divide_exact(a: Sym, b: Sym) -> Dim | None:
    """`a / b` when `b` is a monomial times a constant dividing every term of `a`."""
    if len(b.terms) != 1:
        return 1 if a == b else None
    ((bm, bc),) = b.terms.items()
    out: dict[Mono, int] = {}
    for m, c in a.terms.items():
        rest = list(m)
        for n in bm:
            if n not in rest:
                return None
            rest.remove(n)
        if c % bc:
            return None
        out[tuple(rest)] = c // bc
    return _norm(out, a.divs)


def emit_dim(
    d: Dim,
    const: Callable[[int], V],
    size: Callable[[str], V],
    add: Callable[[V, V], V],
    mul: Callable[[V, V], V],
    floordiv: Callable[[V, int], V],
) -> V:
    """Build dimension `d` from values: `size(name)`, `const(k)` and the operations
    (one shape of code for every IR that computes sizes at run time)."""
    if not isinstance(d, Sym):
        return const(int(d))

    def atom(name: str) -> V:
        if name in d.divs:
            num, k = d.divs[name]
            return floordiv(emit_dim(num, const, size, add, mul, floordiv), k)
        return size(name)

    total: V | None = None
    for m, c in sorted(d.terms.items(), key=lambda t: (len(t[0]), t[0])):
        term: V | None = None
        for name in m:
            term = atom(name) if term is None else mul(term, atom(name))
        if term is None:
            term = const(c)
        elif c != 1:
            term = mul(term, const(c))
        total = term if total is None else add(total, term)
    assert total is not None
    return total


def evaluate(d: Dim, env: Mapping[str, int]) -> int:
    """The value of dimension `d` for sizes `env`."""
    return d.evaluate(env) if isinstance(d, Sym) else int(d)


def monotone_in(d: Dim, name: str) -> bool:
    """Whether `d` never decreases as size `name` grows (the other sizes
    fixed): every term it appears in, directly or in a division's numerator,
    has a positive coefficient, and that numerator is monotone too."""
    if not isinstance(d, Sym):
        return True
    for mono, c in d.terms.items():
        uses = [n for n in mono if n == name or (n in d.divs and name in d.divs[n][0].names)]
        if not uses:
            continue
        if c < 0 or not all(n == name or monotone_in(d.divs[n][0], name) for n in uses):
            return False
    return True


def names_of(shape: Sequence[Dim]) -> frozenset[str]:
    out: frozenset[str] = frozenset()
    for d in shape:
        if isinstance(d, Sym):
            out |= d.names
    return out


@cache
def _parse(text: str) -> Dim:
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError:
        raise SymbolicError(f"'{text}' is not a dimension expression") from None
    return _build(tree, text)


def _build(node: ast.AST, text: str) -> Dim:
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.Name):
        return Sym.var(node.id)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_build(node.operand, text)
    if isinstance(node, ast.BinOp):
        a, b = _build(node.left, text), _build(node.right, text)
        if isinstance(node.op, ast.Add):
            return a + b
        if isinstance(node.op, ast.Sub):
            return a - b
        if isinstance(node.op, ast.Mult):
            return a * b
        if isinstance(node.op, ast.FloorDiv):
            return a // b
    raise SymbolicError(
        f"'{text}' is not a dimension expression (names, integers, +, -, * and //)"
    )
