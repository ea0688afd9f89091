"""The matcher: what each pattern of `language.py` matches, and `Match`.

Matching is a visitor over the pattern classes (TVM's `DFPatternMatcher`): one
generator per class yields every way the pattern matches a value, given the
bindings made so far, so a later failure backtracks into the alternatives
(`p | q`) and the operand orders of commutative ops (an op whose class sets
`COMMUTATIVE = True`, such as `relay.add` or `relay.multiply`, matches its two
operands in either order) that are still untried.

Like TVM's matcher, a multiply/divide pattern also matches the other association of
the same product (`relay.multiply`/`relay.divide` only; add and subtract are not
re-associated, as in TVM): `(a * b) / c` matches `b * (a / c)` and `a * (b / c)`,
and `a * (b / c)` matches `(b * a) / c`. This is real-number algebra: on integers
the two forms can round differently.

A pattern object used twice in one pattern must match the same value; an
op-level pattern (an op, a call, a tuple, a dominator) bound to an op accepts
any result of that op. The callee of a call (`is_op("add")` in
`is_op("add")(x, y)`) is a predicate on the op, not a binding, so one callee can
serve several calls.

Entry points: `try_match(pattern, value) -> Match | None` (also
`pattern.try_match(value)`, and `pattern.match(value) -> bool`). A `Match` gives
the bound value of every sub-pattern (`m[p]`), the matched ops (`m.ops`, in block
order), the embedded constants, the inputs (in the pattern's leaf order, see
`Match.inputs`) and the outputs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from enum import Enum
from typing import Any

import numpy as np
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
    UnitAttr,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.traits import ConstantLike, IsTerminator

from lamina.dialects.constants import constant_data
from lamina.dialects.relay_region import FusedOp
from lamina.pattern.language import (
    AltPattern,
    AttrPattern,
    CallPattern,
    ConstantPattern,
    ConstantValuePattern,
    DataTypePattern,
    DominatorPattern,
    ExprPattern,
    OpNamePattern,
    Pattern,
    ShapePattern,
    TupleGetItemPattern,
    TuplePattern,
    TypePattern,
    VarPattern,
    WildcardPattern,
    entry_point,
)

# ------------------------------------------------------------------ match state


class _State:
    """Bindings of one (partial) match: pattern id -> (pattern, value), the ops the
    match covers and the constants it embeds (dicts used as ordered sets). A state
    yielded by a matcher belongs to the receiver, which may change it.

    `paths` keeps what the sub-patterns of a dominator's path matched: the path is
    matched afresh at every op on it, so its sub-patterns are not bindings, but the
    values they met still count for the order of the match's inputs (TVM keeps
    them the same way, as several values per pattern node)."""

    __slots__ = ("bound", "consts", "ops", "paths")

    def __init__(
        self,
        bound: dict[int, tuple[Pattern, SSAValue]] | None = None,
        ops: dict[Operation, None] | None = None,
        consts: dict[Operation, None] | None = None,
        paths: dict[int, tuple[SSAValue, ...]] | None = None,
    ) -> None:
        self.bound = bound if bound is not None else {}
        self.ops = ops if ops is not None else {}
        self.consts = consts if consts is not None else {}
        self.paths = paths if paths is not None else {}

    def copy(self) -> _State:
        return _State(dict(self.bound), dict(self.ops), dict(self.consts), dict(self.paths))

    def add_op(self, op: Operation) -> None:
        if op.has_trait(ConstantLike):
            self.consts[op] = None
        else:
            self.ops[op] = None


#: How a pattern class matches: every state in which `pattern` matches `value`.
Visitor = Callable[[Any, SSAValue, _State, bool], Iterator[_State]]
_VISITORS: dict[type, Visitor] = {}


def _visits(*classes: type[Pattern]) -> Callable[[Visitor], Visitor]:
    def register(fn: Visitor) -> Visitor:
        for cls in classes:
            _VISITORS[cls] = fn
        return fn

    return register


def _visitor(p: Pattern) -> Visitor:
    fn = _VISITORS.get(type(p))
    if fn is None:  # a subclass of a pattern class: its nearest base's visitor
        base = next((c for c in type(p).__mro__ if c in _VISITORS), None)
        if base is None:
            raise NotImplementedError(f"no matcher for {type(p).__name__}")
        fn = _VISITORS[type(p)] = _VISITORS[base]
    return fn


def _match(p: Pattern, v: SSAValue, st: _State, memo: bool = True) -> Iterator[_State]:
    """Every way `p` matches `v` given the bindings in `st` (which is not changed)."""
    if memo:
        prev = st.bound.get(id(p))
        if prev is not None:
            pv = prev[1]
            if pv is v or (
                p.op_level
                and isinstance(pv, OpResult)
                and isinstance(v, OpResult)
                and pv.op is v.op
            ):
                yield st.copy()
            return
    for s in _visitor(p)(p, v, st, memo):
        if memo:
            s.bound[id(p)] = (p, v)
        yield s


def _match_seq(
    pats: Sequence[Pattern], vals: Sequence[SSAValue], st: _State
) -> Iterator[_State]:
    if not pats:
        yield st.copy()
        return
    for s in _match(pats[0], vals[0], st):
        yield from _match_seq(pats[1:], vals[1:], s)


def _operand_groups(op: Operation) -> list[SSAValue | tuple[SSAValue, ...]] | None:
    """The op's operands grouped as its IRDL definition declares them."""
    if not isinstance(op, IRDLOperation):
        return None
    groups: list[SSAValue | tuple[SSAValue, ...]] = []
    for name, _ in op.get_irdl_definition().operands:
        val = getattr(op, name)
        if val is None:
            groups.append(())
        elif isinstance(val, SSAValue):
            groups.append(val)
        else:
            groups.append(tuple(val))
    return groups


def _match_operands(
    args: Sequence[Pattern], op: Operation, st: _State
) -> Iterator[_State]:
    if any(isinstance(a, TuplePattern) for a in args):
        groups = _operand_groups(op)
        if groups is None or len(groups) != len(args):
            return
        yield from _match_groups(args, groups, st)
        return
    operands = list(op.operands)
    if len(args) != len(operands):
        return
    yield from _match_seq(args, operands, st)
    if (
        len(args) == 2
        and getattr(type(op), "COMMUTATIVE", False) is True
        and operands[0] is not operands[1]
    ):
        yield from _match_seq(args, operands[::-1], st)


def _match_groups(
    args: Sequence[Pattern],
    groups: Sequence[SSAValue | tuple[SSAValue, ...]],
    st: _State,
) -> Iterator[_State]:
    if not args:
        yield st.copy()
        return
    arg, group = args[0], groups[0]
    if isinstance(arg, TuplePattern):
        values = (group,) if isinstance(group, SSAValue) else group
        heads: Iterator[_State] = _match_fields(arg, values, st)
    elif isinstance(group, SSAValue):
        heads = _match(arg, group, st)
    elif len(group) == 1:
        heads = _match(arg, group[0], st)
    else:
        return
    for s in heads:
        yield from _match_groups(args[1:], groups[1:], s)


def _match_fields(
    p: TuplePattern, values: Sequence[SSAValue], st: _State
) -> Iterator[_State]:
    if p.fields is None:
        yield st.copy()
    elif len(p.fields) == len(values):
        yield from _match_seq(p.fields, values, st)


# ------------------------------------------------------------- the pattern kinds
@_visits(WildcardPattern)
def _wildcard(p: WildcardPattern, v: SSAValue, st: _State, memo: bool) -> Iterator[_State]:
    yield st.copy()


@_visits(VarPattern)
def _var(p: VarPattern, v: SSAValue, st: _State, memo: bool) -> Iterator[_State]:
    if isinstance(v, BlockArgument) and (p.name is None or v.name_hint == p.name):
        yield st.copy()


@_visits(ConstantPattern)
def _constant(p: ConstantPattern, v: SSAValue, st: _State, memo: bool) -> Iterator[_State]:
    if isinstance(v, OpResult) and v.op.has_trait(ConstantLike):
        s = st.copy()
        s.consts[v.op] = None
        yield s


@_visits(ExprPattern)
def _expr(p: ExprPattern, v: SSAValue, st: _State, memo: bool) -> Iterator[_State]:
    if v is p.value:
        s = st.copy()
        if isinstance(v, OpResult) and v.op.has_trait(ConstantLike):
            s.consts[v.op] = None
        yield s


@_visits(ConstantValuePattern)
def _constant_value(
    p: ConstantValuePattern, v: SSAValue, st: _State, memo: bool
) -> Iterator[_State]:
    if not (isinstance(v, OpResult) and v.op.has_trait(ConstantLike)):
        return
    data = constant_data(v.op)
    if data is None:
        return
    if p.data.ndim == 0:
        ok = bool(np.all(data == p.data))
    else:
        ok = data.shape == p.data.shape and bool(np.array_equal(data, p.data))
    if ok:
        s = st.copy()
        s.consts[v.op] = None
        yield s


@_visits(OpNamePattern)
def _op_name(p: OpNamePattern, v: SSAValue, st: _State, memo: bool) -> Iterator[_State]:
    if not isinstance(v, OpResult):
        return
    op = v.op
    if op.name in p.names or (p.classes and isinstance(op, p.classes)):
        s = st.copy()
        s.add_op(op)
        yield s


@_visits(CallPattern)
def _call(p: CallPattern, v: SSAValue, st: _State, memo: bool) -> Iterator[_State]:
    if not isinstance(v, OpResult):
        return
    op = v.op
    callee_matched = False
    # The callee is a predicate on the op, shared by every call that uses it.
    for s in _match(p.op, v, st, memo=False):
        callee_matched = True
        if p.args is None:
            s.add_op(op)
            yield s
            continue
        for s2 in _match_operands(p.args, op, s):
            s2.add_op(op)
            yield s2
    if not callee_matched:  # as TVM: only a call of another op is re-associated
        for other in _reassociations(p, op):
            yield from _match(other, v, st, memo=False)


# ---------------------------------------------------------------- re-association
_MULTIPLY, _DIVIDE = "relay.multiply", "relay.divide"


def _is_binary_call(p: Pattern, name: str) -> bool:
    """Whether `p` is `is_op(name)(a, b)`: a call of that one op, two operands."""
    if not (
        isinstance(p, CallPattern)
        and isinstance(p.op, OpNamePattern)
        and p.args is not None
        and len(p.args) == 2
    ):
        return False
    names = set(p.op.names) | {getattr(c, "name", None) for c in p.op.classes}
    return names == {name}


def _uses_op(op: Operation, name: str) -> bool:
    return any(isinstance(u, OpResult) and u.op.name == name for u in op.operands)


def _reassociations(p: CallPattern, op: Operation) -> Iterator[CallPattern]:
    """The other associations of a multiply/divide pattern that may match `op`
    (TVM's CallPattern matching): `(a * b) / c` on a multiply of a divide is tried
    as `b * (a / c)`, then `a * (b / c)`; `x * (a / c)` (either operand order) on a
    divide of a multiply as `(a * x) / c`. The new patterns keep the original
    operand patterns, so those bind as usual; the callees are shared predicates."""
    if len(op.operands) != 2:
        return
    if op.name == _MULTIPLY and _is_binary_call(p, _DIVIDE) and _uses_op(op, _DIVIDE):
        assert p.args is not None
        prod, c = p.args
        if _is_binary_call(prod, _MULTIPLY):
            assert isinstance(prod, CallPattern) and prod.args is not None
            for i in (0, 1):
                quotient = CallPattern(p.op, [prod.args[i], c])
                yield CallPattern(prod.op, [prod.args[1 - i], quotient])
    elif op.name == _DIVIDE and _is_binary_call(p, _MULTIPLY) and _uses_op(op, _MULTIPLY):
        assert p.args is not None
        for i in (0, 1):
            quot = p.args[i]
            if _is_binary_call(quot, _DIVIDE):
                assert isinstance(quot, CallPattern) and quot.args is not None
                prod = CallPattern(p.op, [quot.args[0], p.args[1 - i]])
                yield CallPattern(quot.op, [prod, quot.args[1]])


@_visits(TuplePattern)
def _tuple(p: TuplePattern, v: SSAValue, st: _State, memo: bool) -> Iterator[_State]:
    if not isinstance(v, OpResult):
        return
    for s in _match_fields(p, list(v.op.results), st):
        s.add_op(v.op)
        yield s


@_visits(TupleGetItemPattern)
def _tuple_get_item(
    p: TupleGetItemPattern, v: SSAValue, st: _State, memo: bool
) -> Iterator[_State]:
    if not isinstance(v, OpResult):
        return
    if p.index is not None and v.index != p.index:
        return
    yield from _match(p.tuple, v, st)


@_visits(AltPattern)
def _alt(p: AltPattern, v: SSAValue, st: _State, memo: bool) -> Iterator[_State]:
    yield from _match(p.left, v, st, memo)
    yield from _match(p.right, v, st, memo)


# ------------------------------------------------------------------- conditions
_MISSING = object()
_REGISTRY_ALIASES = {"TOpPattern": "PATTERN"}


def attr_to_python(attr: Attribute) -> Any:
    """A Python view of an attribute, for `has_attr` comparisons."""
    if isinstance(attr, IntegerAttr) and attr.type == IntegerType(1):
        return bool(attr.value.data)
    if isinstance(attr, IntegerAttr | FloatAttr):
        return attr.value.data
    if isinstance(attr, StringAttr):
        return attr.data
    if isinstance(attr, UnitAttr):
        return True
    if isinstance(attr, DenseArrayBase):
        return tuple(attr.get_values())
    if isinstance(attr, ArrayAttr):
        return tuple(attr_to_python(a) for a in attr.data)
    if isinstance(attr, DictionaryAttr):
        return {k: attr_to_python(a) for k, a in attr.data.items()}
    return attr


def _op_default(op: Operation, key: str) -> Any:
    """The value an op's property `key` has when it is not written out: the entry
    of a `DEFAULTS` class variable (a dict of Python values or attributes) of the
    op's class or, for a key it does not list, of its nearest base class that does
    (so a family base can state what its members share); `_MISSING` if none."""
    for cls in type(op).__mro__:
        defaults = cls.__dict__.get("DEFAULTS")
        if isinstance(defaults, Mapping) and key in defaults:
            return defaults[key]
    return _MISSING


def _lookup_attr(op: Operation, key: str) -> Any:
    if key in op.properties:
        return op.properties[key]
    if key in op.attributes:
        return op.attributes[key]
    default = _op_default(op, key)
    if default is not _MISSING:  # TVM's attributes always carry their defaults
        return default
    reg = _REGISTRY_ALIASES.get(key, key)
    if reg.isupper():
        return getattr(type(op), reg, _MISSING)
    return _MISSING


def _values_equal(actual: Any, expected: Any) -> bool:
    if isinstance(expected, Attribute):
        if isinstance(actual, Attribute):
            return actual == expected
        py = attr_to_python(expected)  # `actual` is a default, a Python value
        return not isinstance(py, Attribute) and _values_equal(actual, py)
    if isinstance(actual, Attribute):
        actual = attr_to_python(actual)
    if isinstance(expected, list | tuple):
        return (
            isinstance(actual, list | tuple)
            and len(actual) == len(expected)
            and all(_values_equal(a, e) for a, e in zip(actual, expected, strict=True))
        )
    if isinstance(expected, Enum) and not isinstance(actual, Enum):
        return actual == expected.value
    return bool(actual == expected)


def _condition(cls: type[Pattern]) -> Callable[[Callable[[Any, SSAValue], bool]], Any]:
    """Register `test(p, v)` as the condition of `cls`'s patterns: they match
    what their `pattern` matches, on a value that passes the test."""

    def register(test: Callable[[Any, SSAValue], bool]) -> Any:
        def visit(p: Any, v: SSAValue, st: _State, memo: bool) -> Iterator[_State]:
            if test(p, v):
                yield from _match(p.pattern, v, st, memo)

        _VISITORS[cls] = visit
        return test

    return register


@_condition(AttrPattern)
def _has_attrs(p: AttrPattern, v: SSAValue) -> bool:
    if not p.attrs:
        return True
    if not isinstance(v, OpResult):
        return False
    for key, expected in p.attrs.items():
        actual = _lookup_attr(v.op, key)
        if actual is _MISSING:
            if expected is False:  # an absent flag is False
                continue
            return False
        if not _values_equal(actual, expected):
            return False
    return True


@_condition(TypePattern)
def _has_type(p: TypePattern, v: SSAValue) -> bool:
    if isinstance(p.type, type):
        return isinstance(v.type, p.type)
    return v.type == p.type


@_condition(DataTypePattern)
def _has_dtype(p: DataTypePattern, v: SSAValue) -> bool:
    return isinstance(v.type, TensorType) and v.type.get_element_type() == p.dtype


@_condition(ShapePattern)
def _has_shape(p: ShapePattern, v: SSAValue) -> bool:
    return isinstance(v.type, TensorType) and tuple(v.type.get_shape()) == p.shape


# -------------------------------------------------------------------- dominator
@_visits(DominatorPattern)
def _dominator(p: DominatorPattern, v: SSAValue, st: _State, memo: bool) -> Iterator[_State]:
    if not isinstance(v, OpResult):
        return
    for s in _match(p.child, v, st):
        s2 = _dominator_paths(p, v.op, s, set())
        if s2 is None:
            continue
        bound = s2.bound.get(id(p.parent))
        if bound is not None and _post_dominates(v.op, bound[1]):
            yield s2


def _is_leaf(v: SSAValue) -> bool:
    """A function (or region) argument or a constant: TVM's leaf inputs."""
    return isinstance(v, BlockArgument) or (
        isinstance(v, OpResult) and v.op.has_trait(ConstantLike)
    )


def _dominator_paths(
    p: DominatorPattern, op: Operation, st: _State, done: set[Operation]
) -> _State | None:
    """`st` extended by `op`'s operands: each is `p.parent`'s value or the result
    of an op matching `p.path` (whose operands follow the same rule), or None.

    As in TVM, leaf operands (arguments and constants, such as the bias of a
    `bias_add` on the path) are skipped: they stay inputs of the match. At least
    one operand must not be a leaf, so every path leads back to the parent."""
    inner = [u for u in op.operands if not _is_leaf(u)]
    if not inner:
        return None
    for u in inner:
        parent = next(_match(p.parent, u, st), None)
        if parent is not None:
            st = parent
            continue
        assert isinstance(u, OpResult)  # not a leaf, so not a block argument
        if u.op in done:
            continue
        path = next(_match(p.path, u, _State()), None)
        if path is None:
            return None
        st = st.copy()
        st.ops.update(path.ops)
        st.consts.update(path.consts)
        for key, (_, value) in path.bound.items():
            st.paths[key] = (*st.paths.get(key, ()), value)
        for key, values in path.paths.items():
            st.paths[key] = (*st.paths.get(key, ()), *values)
        st.add_op(u.op)
        done.add(u.op)
        nested = _dominator_paths(p, u.op, st, done)
        if nested is None:
            return None
        st = nested
    return st


def _post_dominates(child: Operation, value: SSAValue) -> bool:
    """Whether every use of `value`, followed forward, reaches `child`."""
    starts = value.op.results if isinstance(value, OpResult) else (value,)
    stack = [use.operation for r in starts for use in r.uses]
    seen: set[Operation] = set()
    while stack:
        user = stack.pop()
        if user is child or user in seen:
            continue
        seen.add(user)
        if user.parent is not child.parent or user.has_trait(IsTerminator):
            return False
        stack.extend(use.operation for r in user.results for use in r.uses)
    return True


# ------------------------------------------------------------------------ Match
class Match:
    """A match of `pattern` rooted at `root`."""

    def __init__(self, pattern: Pattern, root: SSAValue, state: _State) -> None:
        self.pattern = pattern
        self.root = root
        self._bound = dict(state.bound)
        self._paths = dict(state.paths)
        self._ops = list(state.ops)
        self.constants: tuple[Operation, ...] = tuple(state.consts)

    def __getitem__(self, p: Pattern) -> SSAValue:
        got = self._bound.get(id(p))
        if got is None:
            raise KeyError(f"{p!r} is not bound in this match")
        return got[1]

    def get(self, p: Pattern, default: SSAValue | None = None) -> SSAValue | None:
        got = self._bound.get(id(p))
        return default if got is None else got[1]

    def __contains__(self, p: object) -> bool:
        return id(p) in self._bound

    @property
    def op(self) -> Operation | None:
        """The op defining the root value (None for a block argument)."""
        return self.root.op if isinstance(self.root, OpResult) else None

    @property
    def ops(self) -> tuple[Operation, ...]:
        """The matched ops (not the embedded constants), in block order."""
        return tuple(_in_block_order(self._ops))

    @property
    def outputs(self) -> tuple[SSAValue, ...]:
        """What the matched group produces: the results of its root op."""
        op = self.op
        return tuple(op.results) if op is not None else (self.root,)

    @property
    def inputs(self) -> tuple[SSAValue, ...]:
        """Values the matched ops use that the match does not define (the operands
        `partition` gives a group), in the pattern's leaf order, TVM's order of a
        partitioned function's parameters: the values bound to the pattern's leaves
        (`wildcard()`, `is_var`, `is_constant`, `is_expr`) and the operands of its
        fuzzy calls (`is_op(...)(None)`), walking the pattern operands first, left
        to right (a dominator: parent, path, child; a leaf used twice counts at its
        first place). Inputs no leaf met (a variadic operand group matched by
        `is_tuple(None)`) follow in order of first use."""
        inside = set(self._ops) | set(self.constants)
        used: dict[SSAValue, None] = {}
        for op in self.ops:
            for operand in op.operands:
                if not (isinstance(operand, OpResult) and operand.op in inside):
                    used[operand] = None
        ordered: dict[SSAValue, None] = {}
        for leaf in _leaves(self.pattern):
            for v in self._leaf_values(leaf):
                if v in used:
                    ordered[v] = None
        ordered.update(used)
        return tuple(ordered)

    def _leaf_values(self, leaf: Pattern) -> Iterator[SSAValue]:
        got = self._bound.get(id(leaf))
        values = (got[1],) if got is not None else ()
        values += self._paths.get(id(leaf), ())
        if isinstance(leaf, CallPattern):  # a fuzzy call: its op's operands
            for v in values:
                if isinstance(v, OpResult):
                    yield from v.op.operands
        else:
            yield from values

    def __repr__(self) -> str:
        names = ", ".join(op.name for op in self.ops)
        at = self.root.name_hint or (self.op.name if self.op else "a block argument")
        return f"<Match {self.pattern!r} at {at}: {names}>"


def _leaves(pattern: Pattern) -> Iterator[Pattern]:
    """The leaves and fuzzy calls (`args=None`) of `pattern`, in post-order of its
    operands (TVM's post-DFS order of the pattern graph); a pattern object met
    twice is given once; callees are predicates on an op, not leaves."""
    seen: set[int] = set()

    def walk(p: Pattern) -> Iterator[Pattern]:
        if id(p) in seen:
            return
        seen.add(id(p))
        if isinstance(p, CallPattern):
            if p.args is None:
                yield p
            for a in p.args or ():
                yield from walk(a)
        elif isinstance(p, TuplePattern):
            for f in p.fields or ():
                yield from walk(f)
        elif isinstance(p, TupleGetItemPattern):
            yield from walk(p.tuple)
        elif isinstance(p, AltPattern):
            yield from walk(p.left)
            yield from walk(p.right)
        elif isinstance(p, DominatorPattern):
            yield from walk(p.parent)
            yield from walk(p.path)
            yield from walk(p.child)
        elif isinstance(p, AttrPattern | TypePattern | DataTypePattern | ShapePattern):
            yield from walk(p.pattern)
        else:
            yield p

    return walk(pattern)


def _in_block_order(ops: Sequence[Operation]) -> list[Operation]:
    if len(ops) < 2:
        return list(ops)
    block = ops[0].parent
    if block is None or any(op.parent is not block for op in ops):
        return list(ops)
    wanted = set(ops)
    return [op for op in block.ops if op in wanted]


# ----------------------------------------------------------------- entry points
@entry_point
def try_match(pattern: Pattern, value: SSAValue | Operation) -> Match | None:
    """The first match of `pattern` rooted at `value` (an op: at one of its
    results, in order), or None."""
    values = value.results if isinstance(value, Operation) else (value,)
    for v in values:
        for st in _match(pattern, v, _State()):
            return Match(pattern, v, st)
    return None


def match_blocks(root: Operation, into_fused: bool) -> Iterator[Block]:
    """The blocks of `root`'s regions, nested ones included, where matches are
    searched: the bodies of `relay.fused` ops only `into_fused`."""
    for region in root.regions:
        for block in region.blocks:
            yield block
            for op in block.ops:
                if op.regions and (into_fused or not isinstance(op, FusedOp)):
                    yield from match_blocks(op, into_fused)


__all__ = ["Match", "attr_to_python", "match_blocks", "try_match"]
