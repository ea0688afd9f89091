"""Dataflow patterns over graph IR: TVM Relay's pattern language, on xDSL values.

A pattern describes an SSA value and how it was computed. Build patterns with

- `is_op("relay.add")` (or `"add"`, or an op class): a value defined by that op;
  call it to constrain the operands, `is_op("add")(wildcard(), is_constant())`
  (`is_op("concatenate")(None)` takes any operands); `wildcard()(x)` is any op;
- `wildcard()`, `is_var(name=None)` (a block argument: a function's or a fused
  region's parameter), `is_constant()` (an op with the ConstantLike trait),
  `is_expr(value)` (that very SSA value, or a constant holding that data; a
  scalar matches a constant whose every element equals it);
- `is_tuple(fields)` / `is_tuple_get_item(tuple, index=None)`: MLIR has no tuple
  values, so a "tuple" is the result list of a multi-result op (`is_tuple` matches
  an op whose results match `fields`), `is_tuple_get_item(p, i)` is result #i of
  an op matching `p`; as an operand pattern, `is_tuple(fields)` matches a variadic
  operand group (`is_tuple(None)`: any number of operands);
- `p.has_attr({...})`: op properties, then attributes (`{"axis": 1}`,
  `{"transpose_b": True}`, `{"lamina.composite": "dense_bias"}`), then op-registry
  data, the upper-case class variables of the op (`{"PATTERN": OpPattern.ELEMWISE}`
  - `"TOpPattern"` is accepted as TVM's name for it - or `{"COMMUTATIVE": True}`);
  an absent flag matches False;
- `p.has_type(t)` (a type, or a type class such as `TensorType`), `p.has_dtype(f32)`
  (or `"float32"`), `p.has_shape((1, 3))`;
- `p | q` (alternatives, tried in order), `p.optional(f)` (`p | f(p)`; `f` a
  function or a pattern to call), `dominates(parent, path, child)` (TVM's
  dominator pattern: every operand of `child`, transitively, is the one `parent`
  or matches `path`, and `child` post-dominates `parent`);
- `a + b`, `a - b`, `a * b`, `a / b` for relay's arithmetic ops.

A pattern object used twice in one pattern must match the same value (a diamond
shares its `matmul` node); an op pattern used as the callee of several calls
(`add = is_op("add"); add(x, y) ... add(z, w)`) is a predicate, not a binding.
Ops whose class sets `COMMUTATIVE = True` (`relay.add`, `relay.multiply`, ...)
match their two operands in either order. Matching backtracks: alternatives and
commutative orders are revisited when a later operand fails.

Entry points:

- `pattern.match(value) -> bool`; `pattern.try_match(value) -> Match | None`: the
  `Match` gives the bound value of every sub-pattern (`m[p]`), the matched ops
  (`m.ops`, in block order), embedded constants, inputs and outputs.
- `rewrite(callbacks, module)`: callbacks are `(pattern, fn)` pairs or
  `PatternCallback` objects; `fn(match)` returns the new value (an SSA value, an op
  whose results replace the matched op's, a list of values) or None to leave the
  match alone. New ops may be returned unattached (and may use the matched
  values, `relu(match.root)`): they are inserted right after the matched op.
  Rounds (each callback in turn, ops in block order) run until one changes
  nothing; more than `max_iterations` rounds that change something (default: the
  `pattern.max-iterations` pass config) is a `LaminaError` naming the callbacks
  that kept firing. A `PatternCallback(rewrite_once=True)` fires in the first
  round only. Matched ops left without uses are erased. Each callback's count is
  reported to the running pass as `rewrite.<name>`.
- `wrap_ops(ops, attrs)`: the region building behind `partition`, also used by
  `fuse-ops`.
- `partition(pattern, module, attrs=None, check=None)`: wrap each match into a
  `relay.fused` region op (`dialects/relay_region.py`) carrying `attrs` and
  `lamina.partitioned_from` (TVM's "PartitionedFromPattern", e.g.
  `"matmul_add_relu_"`). Matches inside existing `relay.fused` bodies are not
  partitioned again.

Partition policies:

- Overlap: all matches in a block are found first; the larger (more ops) wins, then
  the earlier (by the position of its root op); a match overlapping an accepted
  one is dropped.
- Escaping values: a group's results are the results of its root op. Any other
  matched value that is also used outside the match refuses that partition (the
  ops are left as they are). Constants are the one exception: they are cheap, so
  a constant matched by `is_constant()`, `is_expr(...)` or an op pattern is cloned
  into the region (the original stays for its other users, or is erased).
  Constants matched by `wildcard()` become inputs, as in TVM.
- `check(match) -> bool` vetoes a match before the overlap policy applies.

Types are local: relay ops infer their result type when built, so a callback's
new ops are typed on construction. A replacement of a different type re-infers
the types of the users of the replaced value, and of their users while types keep
changing, never the whole module; a user that cannot be re-typed (such as
`func.return`) makes that a `LaminaError` naming the callback.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from enum import Enum
from functools import cache
from typing import Any, TypeAlias

import numpy as np
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    DictionaryAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
    UnitAttr,
    f64,
    i64,
)
from xdsl.ir import (
    Attribute,
    Block,
    BlockArgument,
    Operation,
    OpResult,
    Region,
    SSAValue,
)
from xdsl.irdl import IRDLOperation
from xdsl.rewriter import Rewriter
from xdsl.traits import ConstantLike, IsTerminator, is_side_effect_free
from xdsl.utils.exceptions import VerifyException

from lamina.dialects import relay
from lamina.dialects.relay_region import FusedOp, YieldOp
from lamina.errors import LaminaError
from lamina.passes import PassContext, record_statistic

# ------------------------------------------------------------------ match state


class _State:
    """Bindings of one (partial) match: pattern id -> (pattern, value), the ops the
    match covers and the constants it embeds (dicts used as ordered sets). A state
    yielded by a matcher belongs to the receiver, which may change it."""

    __slots__ = ("bound", "consts", "ops")

    def __init__(
        self,
        bound: dict[int, tuple[Pattern, SSAValue]] | None = None,
        ops: dict[Operation, None] | None = None,
        consts: dict[Operation, None] | None = None,
    ) -> None:
        self.bound = bound if bound is not None else {}
        self.ops = ops if ops is not None else {}
        self.consts = consts if consts is not None else {}

    def copy(self) -> _State:
        return _State(dict(self.bound), dict(self.ops), dict(self.consts))

    def add_op(self, op: Operation) -> None:
        if op.has_trait(ConstantLike):
            self.consts[op] = None
        else:
            self.ops[op] = None


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
    for s in p._gen(v, st, memo):
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
        heads: Iterator[_State] = arg._match_fields(values, st)
    elif isinstance(group, SSAValue):
        heads = _match(arg, group, st)
    elif len(group) == 1:
        heads = _match(arg, group[0], st)
    else:
        return
    for s in heads:
        yield from _match_groups(args[1:], groups[1:], s)


# ---------------------------------------------------------------------- patterns
class Pattern:
    """Base of all patterns; see the module docstring for the language."""

    #: Matches an op rather than one of its results: a memoized op-level pattern
    #: accepts any result of the op it is bound to (so that `is_tuple_get_item(p, 0)`
    #: and `is_tuple_get_item(p, 1)` can share `p`).
    op_level: bool = False

    def _gen(self, v: SSAValue, st: _State, memo: bool) -> Iterator[_State]:
        raise NotImplementedError

    def root_names(self) -> frozenset[str] | None:
        """Names of the ops a match can be rooted at (None: any value)."""
        return None

    # --- building --------------------------------------------------------
    def __call__(self, *args: Pattern | None) -> CallPattern:
        if len(args) == 1 and args[0] is None:
            return CallPattern(self, None)
        return CallPattern(self, [_as_pattern(a) for a in args])

    def __or__(self, other: Pattern) -> AltPattern:
        return AltPattern(self, _as_pattern(other))

    def __add__(self, other: Any) -> CallPattern:
        return is_op("relay.add")(self, _as_pattern(other))

    def __sub__(self, other: Any) -> CallPattern:
        return is_op("relay.subtract")(self, _as_pattern(other))

    def __mul__(self, other: Any) -> CallPattern:
        return is_op("relay.multiply")(self, _as_pattern(other))

    def __truediv__(self, other: Any) -> CallPattern:
        return is_op("relay.divide")(self, _as_pattern(other))

    def has_attr(self, attrs: Mapping[str, Any]) -> AttrPattern:
        """Match only if the defining op has these attributes (see module doc)."""
        return AttrPattern(self, dict(attrs))

    def has_type(self, t: Attribute | type) -> TypePattern:
        return TypePattern(self, t)

    def has_dtype(self, dtype: Attribute | str) -> DataTypePattern:
        return DataTypePattern(self, dtype)

    def has_shape(self, shape: Sequence[int]) -> ShapePattern:
        return ShapePattern(self, shape)

    def optional(self, option: Callable[[Pattern], Pattern] | Pattern) -> AltPattern:
        """`self`, or `option` applied to `self` (TVM's `optional`)."""
        return AltPattern(self, option(self))

    def dominates(self, parent: Pattern, path: Pattern | None = None) -> DominatorPattern:
        """TVM's method form: `child.dominates(parent, path)`."""
        return DominatorPattern(parent, path if path is not None else wildcard(), self)

    # --- matching ----------------------------------------------------------
    def try_match(self, value: SSAValue | Operation) -> Match | None:
        """The first match of this pattern rooted at `value` (an op: at one of its
        results, in order), or None."""
        values = value.results if isinstance(value, Operation) else (value,)
        for v in values:
            for st in _match(self, v, _State()):
                return Match(self, v, st)
        return None

    def match(self, value: SSAValue | Operation) -> bool:
        return self.try_match(value) is not None

    def partition(
        self,
        module: Operation,
        attrs: Mapping[str, Any] | None = None,
        check: Callable[[Match], bool] | None = None,
    ) -> list[FusedOp]:
        return partition(self, module, attrs, check)


def _as_pattern(p: Any) -> Pattern:
    if isinstance(p, Pattern):
        return p
    if p is None:
        raise LaminaError("None is not a pattern (use wildcard())")
    return is_expr(p)


class WildcardPattern(Pattern):
    def _gen(self, v: SSAValue, st: _State, memo: bool) -> Iterator[_State]:
        yield st.copy()

    def __repr__(self) -> str:
        return "wildcard()"


class VarPattern(Pattern):
    """A block argument (a function parameter or a fused region's argument)."""

    def __init__(self, name: str | None = None) -> None:
        self.name = name

    def _gen(self, v: SSAValue, st: _State, memo: bool) -> Iterator[_State]:
        if isinstance(v, BlockArgument) and (
            self.name is None or v.name_hint == self.name
        ):
            yield st.copy()

    def __repr__(self) -> str:
        return f"is_var({self.name!r})" if self.name else "is_var()"


class ConstantPattern(Pattern):
    """A value defined by a constant-like op (relay.constant, arith.constant)."""

    def _gen(self, v: SSAValue, st: _State, memo: bool) -> Iterator[_State]:
        if isinstance(v, OpResult) and v.op.has_trait(ConstantLike):
            s = st.copy()
            s.consts[v.op] = None
            yield s

    def __repr__(self) -> str:
        return "is_constant()"


class ExprPattern(Pattern):
    """That very SSA value."""

    def __init__(self, value: SSAValue) -> None:
        self.value = value

    def _gen(self, v: SSAValue, st: _State, memo: bool) -> Iterator[_State]:
        if v is self.value:
            s = st.copy()
            if isinstance(v, OpResult) and v.op.has_trait(ConstantLike):
                s.consts[v.op] = None
            yield s

    def __repr__(self) -> str:
        return f"is_expr({self.value.name_hint or self.value})"


def constant_data(op: Operation) -> np.ndarray | None:
    """The data of a constant op as a numpy array, if it can be read."""
    from lamina.dialects.dtypes import numpy_dtype
    from lamina.dialects.resources import blobs

    value = op.properties.get("value") or op.attributes.get("value")
    try:
        if isinstance(value, DenseIntOrFPElementsAttr):
            t = value.get_type()
            assert isinstance(t, TensorType)
            data = np.array(value.get_values(), dtype=numpy_dtype(t.get_element_type()))
            shape = tuple(t.get_shape())
            # A splat (one value, any shape, rank 0 included) or the full data.
            return np.broadcast_to(data.reshape(()), shape) if data.size == 1 else data.reshape(shape)
        if isinstance(value, DenseResourceAttr):
            t = value.type
            assert isinstance(t, TensorType)
            return blobs.array(
                value.resource_handle.data,
                tuple(t.get_shape()),
                numpy_dtype(t.get_element_type()),
            )
        if isinstance(value, IntegerAttr | FloatAttr):
            return np.array(value.value.data)
    except LaminaError:
        return None
    return None


class ConstantValuePattern(Pattern):
    """A constant whose data equals `data` (a scalar: every element equals it)."""

    def __init__(self, data: Any) -> None:
        self.data = np.asarray(data)

    def _gen(self, v: SSAValue, st: _State, memo: bool) -> Iterator[_State]:
        if not (isinstance(v, OpResult) and v.op.has_trait(ConstantLike)):
            return
        data = constant_data(v.op)
        if data is None:
            return
        if self.data.ndim == 0:
            ok = bool(np.all(data == self.data))
        else:
            ok = data.shape == self.data.shape and bool(np.array_equal(data, self.data))
        if ok:
            s = st.copy()
            s.consts[v.op] = None
            yield s

    def __repr__(self) -> str:
        return f"is_expr({self.data.tolist()!r})"


@cache
def _known_ops() -> frozenset[str]:
    from lamina.ir import lamina_dialects

    return frozenset(op.name for d in lamina_dialects() for op in d.operations)


class OpNamePattern(Pattern):
    """A value defined by one of these ops (by name or op class)."""

    op_level = True

    def __init__(self, names: Iterable[str], classes: Iterable[type[Operation]] = ()):
        self.names = frozenset(names)
        self.classes = tuple(classes)

    def _gen(self, v: SSAValue, st: _State, memo: bool) -> Iterator[_State]:
        if not isinstance(v, OpResult):
            return
        op = v.op
        if op.name in self.names or (self.classes and isinstance(op, self.classes)):
            s = st.copy()
            s.add_op(op)
            yield s

    def root_names(self) -> frozenset[str] | None:
        if self.classes:
            names = {getattr(c, "name", None) for c in self.classes}
            if None in names or any(not isinstance(n, str) for n in names):
                return None
            return self.names | frozenset(names)  # type: ignore[arg-type]
        return self.names

    def __repr__(self) -> str:
        shown = sorted(self.names) + [c.__name__ for c in self.classes]
        return f"is_op({', '.join(repr(n) for n in shown)})"


class CallPattern(Pattern):
    """An op (matched by the `op` pattern, on the same value) whose operands match
    `args` (None: any operands)."""

    op_level = True

    def __init__(self, op: Pattern, args: Sequence[Pattern] | None) -> None:
        if isinstance(op, CallPattern) and op.args is None:
            op = op.op
        self.op = op
        self.args = None if args is None else list(args)

    def _gen(self, v: SSAValue, st: _State, memo: bool) -> Iterator[_State]:
        if not isinstance(v, OpResult):
            return
        op = v.op
        # The callee is a predicate on the op, shared by every call that uses it.
        for s in _match(self.op, v, st, memo=False):
            if self.args is None:
                s.add_op(op)
                yield s
                continue
            for s2 in _match_operands(self.args, op, s):
                s2.add_op(op)
                yield s2

    def root_names(self) -> frozenset[str] | None:
        return self.op.root_names()

    def __repr__(self) -> str:
        args = "None" if self.args is None else ", ".join(map(repr, self.args))
        return f"{self.op!r}({args})"


class TuplePattern(Pattern):
    """The results of a multi-result op (or, as an operand pattern, a variadic
    operand group); `fields=None` takes any number."""

    op_level = True

    def __init__(self, fields: Sequence[Pattern] | None) -> None:
        self.fields = None if fields is None else [_as_pattern(f) for f in fields]

    def _match_fields(
        self, values: Sequence[SSAValue], st: _State
    ) -> Iterator[_State]:
        if self.fields is None:
            yield st.copy()
        elif len(self.fields) == len(values):
            yield from _match_seq(self.fields, values, st)

    def _gen(self, v: SSAValue, st: _State, memo: bool) -> Iterator[_State]:
        if not isinstance(v, OpResult):
            return
        for s in self._match_fields(list(v.op.results), st):
            s.add_op(v.op)
            yield s

    def __repr__(self) -> str:
        fields = "None" if self.fields is None else repr(self.fields)
        return f"is_tuple({fields})"


class TupleGetItemPattern(Pattern):
    """Result #`index` (any result if None) of an op matching `tuple`."""

    def __init__(self, tuple_: Pattern, index: int | None = None) -> None:
        self.tuple = tuple_
        self.index = index

    def _gen(self, v: SSAValue, st: _State, memo: bool) -> Iterator[_State]:
        if not isinstance(v, OpResult):
            return
        if self.index is not None and v.index != self.index:
            return
        yield from _match(self.tuple, v, st)

    def root_names(self) -> frozenset[str] | None:
        return self.tuple.root_names()

    def __repr__(self) -> str:
        return f"is_tuple_get_item({self.tuple!r}, {self.index})"


class AltPattern(Pattern):
    """`left`, else `right`."""

    def __init__(self, left: Pattern, right: Pattern) -> None:
        self.left = left
        self.right = right
        self.op_level = left.op_level and right.op_level

    def _gen(self, v: SSAValue, st: _State, memo: bool) -> Iterator[_State]:
        yield from _match(self.left, v, st, memo)
        yield from _match(self.right, v, st, memo)

    def root_names(self) -> frozenset[str] | None:
        a, b = self.left.root_names(), self.right.root_names()
        return None if a is None or b is None else a | b

    def __repr__(self) -> str:
        return f"({self.left!r} | {self.right!r})"


class _Wrapper(Pattern):
    """A pattern with an extra condition on the matched value."""

    def __init__(self, pattern: Pattern) -> None:
        self.pattern = pattern

    def _test(self, v: SSAValue) -> bool:
        raise NotImplementedError

    def _gen(self, v: SSAValue, st: _State, memo: bool) -> Iterator[_State]:
        if self._test(v):
            yield from _match(self.pattern, v, st, memo)

    def root_names(self) -> frozenset[str] | None:
        return self.pattern.root_names()


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


def _lookup_attr(op: Operation, key: str) -> Any:
    if key in op.properties:
        return op.properties[key]
    if key in op.attributes:
        return op.attributes[key]
    reg = _REGISTRY_ALIASES.get(key, key)
    if reg.isupper():
        return getattr(type(op), reg, _MISSING)
    return _MISSING


def _values_equal(actual: Any, expected: Any) -> bool:
    if isinstance(expected, Attribute):
        return actual == expected
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


class AttrPattern(_Wrapper):
    def __init__(self, pattern: Pattern, attrs: dict[str, Any]) -> None:
        super().__init__(pattern)
        self.attrs = attrs
        self.op_level = pattern.op_level

    def _test(self, v: SSAValue) -> bool:
        if not self.attrs:
            return True
        if not isinstance(v, OpResult):
            return False
        for key, expected in self.attrs.items():
            actual = _lookup_attr(v.op, key)
            if actual is _MISSING:
                if expected is False:  # an absent flag is False
                    continue
                return False
            if not _values_equal(actual, expected):
                return False
        return True

    def __repr__(self) -> str:
        return f"{self.pattern!r}.has_attr({self.attrs!r})"


class TypePattern(_Wrapper):
    def __init__(self, pattern: Pattern, t: Attribute | type) -> None:
        super().__init__(pattern)
        self.type = t

    def _test(self, v: SSAValue) -> bool:
        if isinstance(self.type, type):
            return isinstance(v.type, self.type)
        return v.type == self.type

    def __repr__(self) -> str:
        shown = self.type.__name__ if isinstance(self.type, type) else self.type
        return f"{self.pattern!r}.has_type({shown})"


def element_type_of(dtype: Attribute | str) -> Attribute:
    """An element type from an xDSL type or a name: "float32", "f32", "int64"..."""
    if isinstance(dtype, Attribute):
        return dtype
    from lamina.dialects.dtypes import element_type

    short = {"f16": "float16", "f32": "float32", "f64": "float64", "i1": "bool"}
    name = short.get(dtype, dtype)
    if name.startswith("i") and name[1:].isdigit():
        name = f"int{name[1:]}"
    try:
        return element_type(np.dtype(name))
    except TypeError:
        raise LaminaError(f"unknown dtype '{dtype}'") from None


class DataTypePattern(_Wrapper):
    def __init__(self, pattern: Pattern, dtype: Attribute | str) -> None:
        super().__init__(pattern)
        self.dtype = element_type_of(dtype)

    def _test(self, v: SSAValue) -> bool:
        return isinstance(v.type, TensorType) and v.type.get_element_type() == self.dtype

    def __repr__(self) -> str:
        return f"{self.pattern!r}.has_dtype({self.dtype})"


class ShapePattern(_Wrapper):
    def __init__(self, pattern: Pattern, shape: Sequence[int]) -> None:
        super().__init__(pattern)
        self.shape = tuple(int(d) for d in shape)

    def _test(self, v: SSAValue) -> bool:
        return isinstance(v.type, TensorType) and tuple(v.type.get_shape()) == self.shape

    def __repr__(self) -> str:
        return f"{self.pattern!r}.has_shape({self.shape})"


class DominatorPattern(Pattern):
    """TVM's dominator pattern: `child` matches; each of its operands is either the
    (single) value `parent` matches, or is defined by an op matching `path` whose
    operands satisfy the same rule; and every use of `parent` leads to `child`."""

    op_level = True

    def __init__(self, parent: Pattern, path: Pattern, child: Pattern) -> None:
        self.parent = parent
        self.path = path
        self.child = child

    def _gen(self, v: SSAValue, st: _State, memo: bool) -> Iterator[_State]:
        if not isinstance(v, OpResult):
            return
        for s in _match(self.child, v, st):
            s2 = self._paths(v.op, s, set())
            if s2 is None:
                continue
            bound = s2.bound.get(id(self.parent))
            if bound is not None and _post_dominates(v.op, bound[1]):
                yield s2

    def _paths(self, op: Operation, st: _State, done: set[Operation]) -> _State | None:
        if not op.operands:
            return None
        for u in op.operands:
            parent = next(_match(self.parent, u, st), None)
            if parent is not None:
                st = parent
                continue
            if not isinstance(u, OpResult) or not u.op.operands:
                return None
            if u.op in done:
                continue
            path = next(_match(self.path, u, _State()), None)
            if path is None:
                return None
            st = st.copy()
            st.ops.update(path.ops)
            st.consts.update(path.consts)
            st.add_op(u.op)
            done.add(u.op)
            nested = self._paths(u.op, st, done)
            if nested is None:
                return None
            st = nested
        return st

    def root_names(self) -> frozenset[str] | None:
        return self.child.root_names()

    def __repr__(self) -> str:
        return f"dominates({self.parent!r}, {self.path!r}, {self.child!r})"


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


# ---------------------------------------------------------------- constructors
def wildcard() -> WildcardPattern:
    return WildcardPattern()


def is_var(name: str | None = None) -> VarPattern:
    return VarPattern(name)


def is_constant() -> ConstantPattern:
    return ConstantPattern()


def is_expr(value: Any) -> Pattern:
    """`value` itself (an SSA value or a single-result op), or constant data (a
    number or an array)."""
    if isinstance(value, Operation):
        if len(value.results) != 1:
            raise LaminaError(
                f"is_expr: {value.name} has {len(value.results)} results; pass one"
            )
        value = value.results[0]
    if isinstance(value, SSAValue):
        return ExprPattern(value)
    if isinstance(value, int | float | bool | np.ndarray | np.generic | list | tuple):
        return ConstantValuePattern(value)
    raise LaminaError(f"is_expr: cannot match {value!r}")


def is_op(*ops: str | type[Operation]) -> CallPattern:
    """A value defined by one of `ops`: full names (`"relay.add"`), relay names
    without the prefix (`"add"`) or op classes (for ops of dialects lamina does
    not load). Call the result to constrain the operands."""
    if not ops:
        raise LaminaError("is_op needs at least one op")
    names: set[str] = set()
    classes: list[type[Operation]] = []
    for op in ops:
        if isinstance(op, type):
            classes.append(op)
            continue
        name = op if "." in op else f"relay.{op}"
        if name not in _known_ops():
            close = difflib.get_close_matches(name, _known_ops(), n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise LaminaError(
                f"is_op: unknown op '{op}'{hint}; pass the op class to match ops of "
                "dialects lamina does not load"
            )
        names.add(name)
    return CallPattern(OpNamePattern(names, classes), None)


def is_tuple(fields: Sequence[Pattern] | None) -> TuplePattern:
    return TuplePattern(fields)


def is_tuple_get_item(tuple_: Pattern, index: int | None = None) -> TupleGetItemPattern:
    return TupleGetItemPattern(tuple_, index)


def has_attr(attrs: Mapping[str, Any], pattern: Pattern | None = None) -> AttrPattern:
    return (pattern or wildcard()).has_attr(attrs)


def has_type(t: Attribute | type, pattern: Pattern | None = None) -> TypePattern:
    return (pattern or wildcard()).has_type(t)


def has_dtype(dtype: Attribute | str, pattern: Pattern | None = None) -> DataTypePattern:
    return (pattern or wildcard()).has_dtype(dtype)


def has_shape(shape: Sequence[int], pattern: Pattern | None = None) -> ShapePattern:
    return (pattern or wildcard()).has_shape(shape)


def dominates(parent: Pattern, path: Pattern, child: Pattern) -> DominatorPattern:
    return DominatorPattern(parent, path, child)


# ------------------------------------------------------------------------ Match
class Match:
    """A match of `pattern` rooted at `root`."""

    def __init__(self, pattern: Pattern, root: SSAValue, state: _State) -> None:
        self.pattern = pattern
        self.root = root
        self._bound = dict(state.bound)
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
        """Values the matched ops use that the match does not define, in order of
        first use."""
        return self._inputs(self.ops)

    def _inputs(self, ordered_ops: Sequence[Operation]) -> tuple[SSAValue, ...]:
        inside = set(self._ops) | set(self.constants)
        out: dict[SSAValue, None] = {}
        for op in ordered_ops:
            for operand in op.operands:
                if not (isinstance(operand, OpResult) and operand.op in inside):
                    out[operand] = None
        return tuple(out)

    def __repr__(self) -> str:
        names = ", ".join(op.name for op in self.ops)
        at = self.root.name_hint or (self.op.name if self.op else "a block argument")
        return f"<Match {self.pattern!r} at {at}: {names}>"


def _in_block_order(ops: Sequence[Operation]) -> list[Operation]:
    if len(ops) < 2:
        return list(ops)
    block = ops[0].parent
    if block is None or any(op.parent is not block for op in ops):
        return list(ops)
    wanted = set(ops)
    return [op for op in block.ops if op in wanted]


# ---------------------------------------------------------------------- rewrite
RewriteResult: TypeAlias = SSAValue | Operation | Sequence[SSAValue] | None


class PatternCallback:
    """A rewrite (TVM's `DFPatternCallback`): set `pattern`, override `callback`.
    With `rewrite_once`, it only fires in the first round of `rewrite`."""

    pattern: Pattern
    rewrite_once: bool = False

    def __init__(self, pattern: Pattern | None = None, rewrite_once: bool = False):
        if pattern is not None:
            self.pattern = pattern
        self.rewrite_once = rewrite_once

    @property
    def name(self) -> str:
        return type(self).__name__

    def callback(self, match: Match) -> RewriteResult:
        raise NotImplementedError


class _Callback:
    def __init__(
        self, name: str, pattern: Pattern, fn: Callable[[Match], RewriteResult], once: bool
    ) -> None:
        self.name = name
        self.pattern = pattern
        self.fn = fn
        self.once = once
        self.names = pattern.root_names()


def _callbacks(
    callbacks: PatternCallback
    | tuple[Pattern, Callable[[Match], RewriteResult]]
    | Sequence[PatternCallback | tuple[Pattern, Callable[[Match], RewriteResult]]],
) -> list[_Callback]:
    if isinstance(callbacks, PatternCallback) or (
        isinstance(callbacks, tuple)
        and len(callbacks) == 2
        and isinstance(callbacks[0], Pattern)
    ):
        callbacks = [callbacks]  # type: ignore[list-item]
    out = []
    for cb in callbacks:  # type: ignore[union-attr]
        if isinstance(cb, PatternCallback):
            if not isinstance(getattr(cb, "pattern", None), Pattern):
                raise LaminaError(f"callback {cb.name} has no pattern")
            out.append(_Callback(cb.name, cb.pattern, cb.callback, cb.rewrite_once))
        elif isinstance(cb, tuple) and len(cb) == 2 and isinstance(cb[0], Pattern):
            fn = cb[1]
            name = getattr(fn, "__name__", None) or repr(cb[0])
            out.append(_Callback(name, cb[0], fn, False))
        else:
            raise LaminaError(
                f"a rewrite callback is a PatternCallback or a (pattern, function) "
                f"pair, got {cb!r}"
            )
    return out


def _blocks(root: Operation, into_fused: bool) -> Iterator[Block]:
    for region in root.regions:
        for block in region.blocks:
            yield block
            for op in block.ops:
                if op.regions and (into_fused or not isinstance(op, FusedOp)):
                    yield from _blocks(op, into_fused)


def _candidates(root: Operation, names: frozenset[str] | None, into_fused: bool):
    for block in list(_blocks(root, into_fused)):
        for op in list(block.ops):
            if names is None or op.name in names:
                yield op


def _first_match(pattern: Pattern, op: Operation) -> Match | None:
    for v in op.results:
        for st in _match(pattern, v, _State()):
            return Match(pattern, v, st)
    return None


def _new_values(name: str, match: Match, new: RewriteResult) -> list[SSAValue] | None:
    """The values replacing the match's root (one) or its op's results (all)."""
    if new is None:
        return None
    if isinstance(new, Operation):
        if len(new.results) == 1:
            return [new.results[0]]
        new = list(new.results)
    if isinstance(new, SSAValue):
        return [new]
    values = list(new)
    if not all(isinstance(v, SSAValue) for v in values):
        raise LaminaError(
            f"rewrite callback '{name}' must return an SSA value, an op, a list of "
            f"values or None, got {new!r}"
        )
    if match.op is None or len(values) != len(match.op.results):
        count = len(match.op.results) if match.op is not None else 1
        raise LaminaError(
            f"rewrite callback '{name}' returned {len(values)} values for an op with "
            f"{count} results"
        )
    return values


def _insert_new_ops(
    values: Sequence[SSAValue], block: Block, after: Operation | None
) -> set[Operation]:
    """Insert the unattached ops that `values` depend on, producers first, after
    `after` (None: at the start of `block`); return them."""
    order: list[Operation] = []
    seen: set[Operation] = set()

    def visit(op: Operation) -> None:
        if op in seen or op.parent is not None:
            return
        seen.add(op)
        for operand in op.operands:
            if isinstance(operand, OpResult):
                visit(operand.op)
        order.append(op)

    for v in values:
        if isinstance(v, OpResult):
            visit(v.op)
    if order:
        if after is not None:
            block.insert_ops_after(order, after)
        elif block.first_op is not None:
            block.insert_ops_before(order, block.first_op)
        else:
            block.add_ops(order)
    return seen


def _retype_users(name: str, old_type: Attribute, value: SSAValue) -> None:
    """Re-infer the result types of `value`'s users (and theirs, while they
    change) after `value` replaced a value of `old_type`."""
    work = [value]
    while work:
        v = work.pop()
        for use in list(v.uses):
            user = use.operation
            if isinstance(user, relay.RelayOp) and not isinstance(user, relay.ConstantOp):
                try:
                    new_t = type(user).infer_type(user.operand_types, dict(user.properties))
                except VerifyException as e:
                    raise LaminaError(
                        f"rewrite callback '{name}' replaced a {old_type} by a "
                        f"{value.type}, and its user {user.name} does not accept it: {e}"
                    ) from None
                if len(user.results) == 1 and new_t != user.results[0].type:
                    work.append(Rewriter.replace_value_with_new_type(user.results[0], new_t))
            else:
                raise LaminaError(
                    f"rewrite callback '{name}' replaced a {old_type} by a {value.type}, "
                    f"but its user {user.name} cannot be re-typed; return a value of "
                    f"type {old_type}"
                )


def _erase_dead(ops: Iterable[Operation]) -> None:
    """Erase those of `ops` (in reverse order) that are attached, unused and free
    of side effects."""
    for op in reversed(list(ops)):
        if (
            op.parent is not None
            and not any(r.uses for r in op.results)
            and is_side_effect_free(op)
        ):
            Rewriter.erase_op(op)


def _is_before(a: Operation, b: Operation) -> bool:
    op = a.next_op
    while op is not None:
        if op is b:
            return True
        op = op.next_op
    return False


def _apply(cb: _Callback, match: Match) -> bool:
    values = _new_values(cb.name, match, cb.fn(match))
    if values is None:
        return False
    root_op = match.op
    olds = [match.root] if len(values) == 1 else list(root_op.results)  # type: ignore[union-attr]
    if all(n is o for n, o in zip(values, olds, strict=True)):
        return False
    # New ops go right after the matched op (they may use its results), or at the
    # start of the block of a matched block argument.
    block = root_op.parent if root_op is not None else match.root.owner
    assert isinstance(block, Block)
    inserted = _insert_new_ops(values, block, root_op)
    for v in values:
        if (
            root_op is not None
            and isinstance(v, OpResult)
            and v.op not in inserted
            and v.op is not root_op
            and v.op.parent is block
            and _is_before(root_op, v.op)
        ):
            raise LaminaError(
                f"rewrite callback '{cb.name}' returned {v.op.name}'s result, "
                "which is defined after the matched op"
            )
    for old, new in zip(olds, values, strict=True):
        if old is new:
            continue
        old_type = old.type
        # New ops may use the old value (`relu(match.root)`): keep those uses.
        old.replace_uses_with_if(new, lambda use: use.operation not in inserted)
        if new.type != old_type:
            _retype_users(cb.name, old_type, new)
    inner = list(match.ops)
    if root_op is not None and root_op not in inner:
        inner.append(root_op)
    _erase_dead([*match.constants, *inner])
    return True


def rewrite(
    callbacks: PatternCallback
    | tuple[Pattern, Callable[[Match], RewriteResult]]
    | Sequence[PatternCallback | tuple[Pattern, Callable[[Match], RewriteResult]]],
    module: Operation,
    *,
    max_iterations: int | None = None,
) -> int:
    """Apply the callbacks to every match in `module` (rounds in block order, each
    callback in turn) until a round changes nothing; return the number of
    rewrites. Reports `rewrite.<callback>` counts to the running pass."""
    cbs = _callbacks(callbacks)
    cap = (
        max_iterations
        if max_iterations is not None
        else int(PassContext.current().get_config("pattern.max-iterations"))
    )
    total: Counter[str] = Counter()
    for iteration in range(cap + 1):
        fired: Counter[str] = Counter()
        for cb in cbs:
            if cb.once and iteration > 0:
                continue
            for op in _candidates(module, cb.names, into_fused=True):
                if op.parent is None:  # erased by an earlier rewrite
                    continue
                match = _first_match(cb.pattern, op)
                if match is not None and _apply(cb, match):
                    fired[cb.name] += 1
        if not fired:
            break
        if iteration == cap:
            still = ", ".join(f"{n} ({c} rewrites)" for n, c in fired.items())
            raise LaminaError(
                f"pattern rewrite did not converge after {cap} iterations; still "
                f"firing in the last one: {still}. A callback probably undoes "
                "another or rewrites its own result; raise pattern.max-iterations "
                "if the rewrite is just long"
            )
        total += fired
    for name, count in total.items():
        record_statistic(f"rewrite.{name}", count)
    return sum(total.values())


# -------------------------------------------------------------------- partition
def _to_attribute(value: Any) -> Attribute:
    if isinstance(value, Attribute):
        return value
    if isinstance(value, bool):
        return IntegerAttr.from_bool(value)
    if isinstance(value, int):
        return IntegerAttr(value, i64)
    if isinstance(value, float):
        return FloatAttr(value, f64)
    if isinstance(value, str):
        return StringAttr(value)
    raise LaminaError(f"partition: cannot make an attribute of {value!r}")


def _escapes(match: Match, inner: set[Operation]) -> bool:
    root_op = match.op
    for op in inner:
        if op is root_op:
            continue
        for r in op.results:
            if any(use.operation not in inner for use in r.uses):
                return True
    return False


def wrap_ops(
    ops: Sequence[Operation],
    attrs: Mapping[str, Attribute],
    constants: Sequence[Operation] = (),
) -> FusedOp:
    """Move `ops` (one block's ops in block order, whose last op is the group's
    root and whose other results are used only inside the group) into a new
    `relay.fused` op in place of the root. `constants` are cloned into the region
    (the originals are erased if nothing else uses them); every other value the
    ops use becomes an operand, in order of first use."""
    root_op = ops[-1]
    inner_set = set(ops)
    outside = inner_set | set(constants)
    inputs: dict[SSAValue, None] = {}
    for op in ops:
        for operand in op.operands:
            if not (isinstance(operand, OpResult) and operand.op in outside):
                inputs[operand] = None
    block = Block(arg_types=[v.type for v in inputs])
    for arg, v in zip(block.args, inputs, strict=True):
        arg.name_hint = v.name_hint
    mapping: dict[SSAValue, SSAValue] = dict(zip(inputs, block.args, strict=True))
    for c in constants:
        clone = c.clone()
        block.add_op(clone)
        mapping.update(zip(c.results, clone.results, strict=True))
    fused = FusedOp(list(inputs), Region(block), [r.type for r in root_op.results], attrs)
    parent = root_op.parent
    assert parent is not None
    parent.insert_op_before(fused, root_op)
    for old, new in zip(root_op.results, fused.results, strict=True):
        old.replace_uses_with_if(new, lambda use: use.operation not in inner_set)
        new.name_hint = old.name_hint
    for op in ops:
        op.detach()
        block.add_op(op)
        for i, operand in enumerate(op.operands):
            if operand in mapping:
                op.operands[i] = mapping[operand]
    block.add_op(YieldOp(*root_op.results))
    _erase_dead(constants)
    return fused


def _wrap(
    match: Match, attrs: dict[str, Attribute], position: Mapping[Operation, int]
) -> FusedOp:
    inner = sorted(match._ops, key=position.__getitem__)
    consts = sorted(match.constants, key=position.__getitem__)
    label = "".join(op.name.removeprefix("relay.") + "_" for op in inner)
    return wrap_ops(
        inner, {**attrs, "lamina.partitioned_from": StringAttr(label)}, consts
    )


def partition(
    pattern: Pattern,
    module: Operation,
    attrs: Mapping[str, Any] | None = None,
    check: Callable[[Match], bool] | None = None,
) -> list[FusedOp]:
    """Wrap every accepted match of `pattern` into a `relay.fused` op carrying
    `attrs` (see the module docstring for the overlap and escaping-value
    policies); return the new ops."""
    extra = {k: _to_attribute(v) for k, v in (attrs or {}).items()}
    names = pattern.root_names()
    created: list[FusedOp] = []
    for block in list(_blocks(module, into_fused=False)):
        position = {op: i for i, op in enumerate(block.ops)}
        found: list[Match] = []
        for op in list(block.ops):
            if names is not None and op.name not in names:
                continue
            m = _first_match(pattern, op)
            if m is None or m.op is not op or op not in m._ops:
                continue
            if any(o.parent is not block for o in (*m._ops, *m.constants)):
                continue
            if check is not None and not check(m):
                continue
            found.append(m)
        found.sort(key=lambda m: (-len(m._ops), position[m.op]))  # type: ignore[index]
        taken: set[Operation] = set()
        accepted: list[Match] = []
        for m in found:
            inner = set(m._ops)
            if inner & taken or _escapes(m, inner):
                continue
            taken |= inner
            accepted.append(m)
        for m in sorted(accepted, key=lambda m: position[m.op]):  # type: ignore[index]
            created.append(_wrap(m, extra, position))
    record_statistic("partition.groups", len(created))
    return created


__all__ = [
    "AltPattern",
    "AttrPattern",
    "CallPattern",
    "ConstantPattern",
    "ConstantValuePattern",
    "DataTypePattern",
    "DominatorPattern",
    "ExprPattern",
    "Match",
    "OpNamePattern",
    "Pattern",
    "PatternCallback",
    "ShapePattern",
    "TupleGetItemPattern",
    "TuplePattern",
    "TypePattern",
    "VarPattern",
    "WildcardPattern",
    "attr_to_python",
    "constant_data",
    "dominates",
    "has_attr",
    "has_dtype",
    "has_shape",
    "has_type",
    "is_constant",
    "is_expr",
    "is_op",
    "is_tuple",
    "is_tuple_get_item",
    "is_var",
    "partition",
    "rewrite",
    "wildcard",
    "wrap_ops",
]
