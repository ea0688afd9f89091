"""lowering/lang/index.py: the simplification rules of `Lin`, and properties checking
that simplified expressions evaluate like the expressions they were built from and
that `.range()` bounds every value they take."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from lamina.lowering.lang.index import Atom, Clamp, Div, Lin, Mod, Var

# ------------------------------------------------------------------ evaluation
Env = dict[Var, int]


def eval_atom(a: Atom, env: Env) -> int:
    """The value of one atom under `env` (floor division and modulo, as Python's)."""
    if isinstance(a, Var):
        return env[a]
    if isinstance(a, Div):
        return eval_lin(a.x, env) // a.c
    if isinstance(a, Mod):
        return eval_lin(a.x, env) % a.c
    assert isinstance(a, Clamp)
    v = eval_lin(a.x, env)
    if a.lo is not None:
        v = max(v, a.lo)
    if a.hi is not None:
        v = min(v, a.hi)
    return v


def eval_lin(x: Lin, env: Env) -> int:
    """The value of a `Lin` under `env`."""
    return x.const + sum(c * eval_atom(a, env) for a, c in x.terms)


def atoms(x: Lin) -> list[Atom]:
    """Every atom of `x`, nested ones included."""
    out: list[Atom] = []
    for a, _ in x.terms:
        out.append(a)
        if isinstance(a, Div | Mod | Clamp):
            out += atoms(a.x)
    return out


# ------------------------------------------------------------- unit tests
IN = Var("i", 4)
OUT = Var("o", 3)
X = Var("x", 100)
Y = Var("y", 7)


def lin(v: Var) -> Lin:
    return Lin.of(v)


def test_construction_is_normalized() -> None:
    assert Lin.of(5) == Lin((), 5)
    assert lin(X) + 0 == lin(X)
    assert lin(X) - lin(X) == Lin()
    assert lin(X) * 0 == Lin()
    assert (lin(X) + lin(Y)) == (lin(Y) + lin(X))  # sorted terms
    assert (lin(X) * 3 + 2).coeff(X) == 3
    assert (lin(X) * 3 + 2).const == 2


def test_split_indices_divide_back() -> None:
    """`(o*c + i) // c == o` and `% c == i` when `0 <= i < c` (undoing `split`)."""
    v = lin(OUT) * 4 + IN
    assert v.floordiv(4) == lin(OUT)
    assert v.mod(4) == lin(IN)
    assert (v + 8).floordiv(4) == lin(OUT) + 2
    assert (v + 8).mod(4) == lin(IN)


def test_fuse_recombines() -> None:
    """`(x // c) * c + x % c == x` (undoing `fuse` and flattening)."""
    assert lin(X).floordiv(8) * 8 + lin(X).mod(8) == lin(X)
    assert lin(X).mod(8) + lin(X).floordiv(8) * 8 == lin(X)
    # scaled by k as a whole, and with other terms around
    assert lin(X).floordiv(5) * 15 + lin(X).mod(5) * 3 + lin(Y) == lin(X) * 3 + lin(Y)
    # the two parts must match: different coefficients do not recombine
    mixed = lin(X).floordiv(8) * 7 + lin(X).mod(8)
    assert any(isinstance(a, Div) for a, _ in mixed.terms)


def test_nested_div_mod_rules() -> None:
    x = lin(X)
    assert x.floordiv(4).floordiv(3) == x.floordiv(12)
    assert x.floordiv(4).mod(3) == x.mod(12).floordiv(4)
    assert x.mod(12).mod(4) == x.mod(4)
    # 5 does not divide 12: stays a modulo of a modulo
    assert x.mod(12).mod(5) == Lin.of(Mod(x.mod(12), 5))


def test_range_decided_folding() -> None:
    assert lin(IN).floordiv(4) == Lin()
    assert lin(IN).mod(8) == lin(IN)
    assert (lin(IN) + 4).floordiv(8) == Lin()  # 4..7 // 8 == 0
    assert (lin(IN) + 8).floordiv(4) == Lin.of(2) + lin(IN).floordiv(4)
    assert (lin(IN) + 5).floordiv(4) != Lin.of(1)  # 5..8 // 4 spans 1..2
    assert lin(X).floordiv(1) == lin(X)
    assert lin(X).mod(1) == Lin()


def test_clamp_folding() -> None:
    assert lin(IN).clamp(0, 3) == lin(IN)
    assert lin(IN).clamp(None, 10) == lin(IN)
    c = lin(IN).clamp(0, 2)
    assert c == Lin.of(Clamp(lin(IN), None, 2))  # the lower bound is decided
    assert c.range() == (0, 2)
    d = (lin(IN) - 2).clamp(0, None)
    assert d.range() == (0, 1)


def test_ranges() -> None:
    assert lin(X).range() == (0, 99)
    assert (lin(X) * 2 - lin(Y) * 3 + 5).range() == (5 - 18, 198 + 5)
    assert lin(X).floordiv(10).range() == (0, 9)
    assert lin(X).mod(7).range() == (0, 6)
    assert Lin.of(3).range() == (3, 3)


def test_uses_linear_in_substitute() -> None:
    e = lin(X).floordiv(4) + lin(Y) * 2
    assert e.uses(X) and e.uses(Y) and not e.uses(IN)
    assert e.linear_in(Y) and not e.linear_in(X)
    assert e.coeff(Y) == 2 and e.coeff(X) == 0
    # substituting the split of x simplifies the division away
    s = e.substitute({X: lin(OUT) * 4 + IN})
    assert s == lin(OUT) + lin(Y) * 2
    assert not s.uses(X)


# -------------------------------------------------------- property tests
@dataclass(frozen=True)
class Tree:
    """An expression as built, evaluated directly and as a `Lin`."""

    direct: Callable[[Env], int]
    build: Callable[[], Lin]
    text: str


def _leaf(vars_: list[Var]) -> st.SearchStrategy[Tree]:
    def var(v: Var) -> Tree:
        return Tree(lambda env: env[v], lambda: Lin.of(v), v.name)

    def const(c: int) -> Tree:
        return Tree(lambda env: c, lambda: Lin.of(c), str(c))

    return st.one_of(st.sampled_from(vars_).map(var), st.integers(-20, 20).map(const))


def _extend(children: st.SearchStrategy[Tree]) -> st.SearchStrategy[Tree]:
    def add(a: Tree, b: Tree) -> Tree:
        return Tree(
            lambda env: a.direct(env) + b.direct(env),
            lambda: a.build() + b.build(),
            f"({a.text} + {b.text})",
        )

    def mul(a: Tree, k: int) -> Tree:
        return Tree(
            lambda env: a.direct(env) * k, lambda: a.build() * k, f"{a.text}*{k}"
        )

    def div(a: Tree, c: int) -> Tree:
        return Tree(
            lambda env: a.direct(env) // c,
            lambda: a.build().floordiv(c),
            f"({a.text} // {c})",
        )

    def mod(a: Tree, c: int) -> Tree:
        return Tree(
            lambda env: a.direct(env) % c, lambda: a.build().mod(c), f"({a.text} % {c})"
        )

    def clamp(a: Tree, lo: int | None, width: int | None) -> Tree:
        hi = None if width is None else (lo if lo is not None else 0) + width

        def direct(env: Env) -> int:
            v = a.direct(env)
            v = v if lo is None else max(v, lo)
            return v if hi is None else min(v, hi)

        return Tree(
            direct, lambda: a.build().clamp(lo, hi), f"clamp({a.text}, {lo}, {hi})"
        )

    divisors = st.integers(1, 12)
    return st.one_of(
        st.builds(add, children, children),
        st.builds(mul, children, st.integers(-6, 6)),
        st.builds(div, children, divisors),
        st.builds(mod, children, divisors),
        st.builds(
            clamp,
            children,
            st.none() | st.integers(-10, 20),
            st.none() | st.integers(0, 30),
        ),
    )


@st.composite
def cases(draw: st.DrawFn) -> tuple[Tree, list[Var], list[Env]]:
    extents = draw(st.lists(st.integers(1, 40), min_size=1, max_size=3))
    vars_ = [Var(f"v{k}", e) for k, e in enumerate(extents)]
    tree = draw(st.recursive(_leaf(vars_), _extend, max_leaves=12))
    envs = [{v: draw(st.integers(0, v.extent - 1)) for v in vars_} for _ in range(8)]
    # the corners of the domain too
    envs.append({v: 0 for v in vars_})
    envs.append({v: v.extent - 1 for v in vars_})
    return tree, vars_, envs


@settings(max_examples=120, deadline=None)
@given(cases())
def test_simplified_expression_evaluates_like_the_original(
    case: tuple[Tree, list[Var], list[Env]],
) -> None:
    tree, _, envs = case
    x = tree.build()
    for env in envs:
        assert eval_lin(x, env) == tree.direct(env), (tree.text, x, env)


@settings(max_examples=120, deadline=None)
@given(cases())
def test_ranges_contain_every_value(case: tuple[Tree, list[Var], list[Env]]) -> None:
    tree, _, envs = case
    x = tree.build()
    for env in envs:
        lo, hi = x.range()
        v = eval_lin(x, env)
        assert lo is None or lo <= v, (tree.text, x, env, lo)
        assert hi is None or v <= hi, (tree.text, x, env, hi)
        # and so does the range of every nested atom
        for a in atoms(x):
            alo, ahi = a.range()
            av = eval_atom(a, env)
            assert (alo is None or alo <= av) and (ahi is None or av <= ahi), (
                tree.text,
                a,
            )


@settings(max_examples=60, deadline=None)
@given(cases(), st.integers(1, 9))
def test_split_substitution_preserves_values(
    case: tuple[Tree, list[Var], list[Env]], factor: int
) -> None:
    """Substituting `v = o*f + i` (a `split`) keeps every value."""
    tree, vars_, envs = case
    v = vars_[0]
    o, i = Var("o", -(-v.extent // factor)), Var("i", min(factor, v.extent))
    x = tree.build()
    s = x.substitute({v: Lin.of(o) * factor + i})
    for env in envs:
        split_env = dict(env)
        split_env[o], split_env[i] = divmod(env[v], factor)
        if split_env[i] >= i.extent:  # factor > extent: the value is o == 0
            continue
        assert eval_lin(s, split_env) == eval_lin(x, env), (tree.text, s)
