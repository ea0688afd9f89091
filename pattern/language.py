"""The pattern language: pattern classes and the builders that make them.

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
  `{"transpose_b": True}`, `{"lamina.composite": "dense_bias"}`), then the value
  an unwritten property defaults to (the op class's `DEFAULTS`, e.g.
  `{"groups": 1}`: TVM's attributes always carry their defaults), then op-registry
  data, the upper-case class variables of the op (`{"PATTERN": OpPattern.ELEMWISE}`
  - `"TOpPattern"` is accepted as TVM's name for it - or `{"COMMUTATIVE": True}`);
  an absent flag matches False;
- `p.has_type(t)` (a type, or a type class such as `TensorType`), `p.has_dtype(f32)`
  (or `"float32"`), `p.has_shape((1, 3))`;
- `p | q` (alternatives, tried in order), `p.optional(f)` (`p | f(p)`; `f` a
  function or a pattern to call), `dominates(parent, path, child)` (TVM's
  dominator pattern: every operand of `child`, transitively, is the one `parent`
  or matches `path`, and `child` post-dominates `parent`; operands that are
  arguments or constants, such as a `bias_add`'s bias, are skipped);
- `a + b`, `a - b`, `a * b`, `a / b` for relay's arithmetic ops (add and multiply
  match either operand order; a multiply/divide chain matches its other
  association, `(a * b) / c` and `a * (b / c)`, as in TVM).

A pattern object used twice in one pattern must match the same value (a diamond
shares its `matmul` node); an op pattern used as the callee of several calls
(`add = is_op("add"); add(x, y) ... add(z, w)`) is a predicate, not a binding.

This module is the syntax only: what each pattern means is `matcher.py`'s (TVM
keeps the same split between its Python pattern classes and its C++
`DFPatternMatcher`). The method forms `p.match(v)`, `p.try_match(v)` and
`p.partition(module)` call the matcher and the partitioner through
`ENTRY_POINTS`, which those modules fill in when they are imported.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache
from typing import Any, TypeVar

import numpy as np
from xdsl.ir import Attribute, Operation, SSAValue

from lamina.dialects.dtypes import element_type
from lamina.errors import LaminaError
from lamina.ir import lamina_dialects

# ------------------------------------------------------------------ entry points
#: The implementations of the method forms of `Pattern` (`try_match`,
#: `partition`), by name. The matcher and the partitioner are built on this
#: module (language <- matcher <- partition), so instead of being imported here
#: they register their entry point with `entry_point` when loaded; importing
#: `lamina.pattern` loads them all.
ENTRY_POINTS: dict[str, Callable[..., Any]] = {}

_F = TypeVar("_F", bound=Callable[..., Any])


def entry_point(fn: _F) -> _F:
    """Register `fn` as the implementation of `Pattern.<fn.__name__>`."""
    ENTRY_POINTS[fn.__name__] = fn
    return fn


def _call_entry_point(name: str, *args: Any) -> Any:
    fn = ENTRY_POINTS.get(name)
    if fn is None:  # pragma: no cover - `lamina.pattern` registers every one
        raise LaminaError(f"pattern: no '{name}' registered (import lamina.pattern)")
    return fn(*args)


# ---------------------------------------------------------------------- patterns
class Pattern:
    """Base of all patterns; see the module docstring for the language."""

    #: Matches an op rather than one of its results: a memoized op-level pattern
    #: accepts any result of the op it is bound to (so that `is_tuple_get_item(p, 0)`
    #: and `is_tuple_get_item(p, 1)` can share `p`).
    op_level: bool = False

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

    # --- matching (method forms of matcher.try_match, partition.partition) ---
    def try_match(self, value: SSAValue | Operation) -> Any:
        """The first `Match` of this pattern rooted at `value` (an op: at one of its
        results, in order), or None."""
        return _call_entry_point("try_match", self, value)

    def match(self, value: SSAValue | Operation) -> bool:
        return self.try_match(value) is not None

    def partition(
        self,
        module: Operation,
        attrs: Mapping[str, Any] | None = None,
        check: Callable[[Any], bool] | None = None,
    ) -> list[Any]:
        """`partition(self, module, attrs, check)`: the new `relay.fused` ops."""
        return _call_entry_point("partition", self, module, attrs, check)


def _as_pattern(p: Any) -> Pattern:
    if isinstance(p, Pattern):
        return p
    if p is None:
        raise LaminaError("None is not a pattern (use wildcard())")
    return is_expr(p)


class WildcardPattern(Pattern):
    def __repr__(self) -> str:
        return "wildcard()"


class VarPattern(Pattern):
    """A block argument (a function parameter or a fused region's argument)."""

    def __init__(self, name: str | None = None) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"is_var({self.name!r})" if self.name else "is_var()"


class ConstantPattern(Pattern):
    """A value defined by a constant-like op (relay.constant, arith.constant)."""

    def __repr__(self) -> str:
        return "is_constant()"


class ExprPattern(Pattern):
    """That very SSA value."""

    def __init__(self, value: SSAValue) -> None:
        self.value = value

    def __repr__(self) -> str:
        return f"is_expr({self.value.name_hint or self.value})"


class ConstantValuePattern(Pattern):
    """A constant whose data equals `data` (a scalar: every element equals it)."""

    def __init__(self, data: Any) -> None:
        self.data = np.asarray(data)

    def __repr__(self) -> str:
        return f"is_expr({self.data.tolist()!r})"


@cache
def _known_ops() -> frozenset[str]:
    return frozenset(op.name for d in lamina_dialects() for op in d.operations)


class OpNamePattern(Pattern):
    """A value defined by one of these ops (by name or op class)."""

    op_level = True

    def __init__(self, names: Iterable[str], classes: Iterable[type[Operation]] = ()):
        self.names = frozenset(names)
        self.classes = tuple(classes)

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

    def __repr__(self) -> str:
        fields = "None" if self.fields is None else repr(self.fields)
        return f"is_tuple({fields})"


class TupleGetItemPattern(Pattern):
    """Result #`index` (any result if None) of an op matching `tuple`."""

    def __init__(self, tuple_: Pattern, index: int | None = None) -> None:
        self.tuple = tuple_
        self.index = index

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

    def root_names(self) -> frozenset[str] | None:
        a, b = self.left.root_names(), self.right.root_names()
        return None if a is None or b is None else a | b

    def __repr__(self) -> str:
        return f"({self.left!r} | {self.right!r})"


class _Wrapper(Pattern):
    """A pattern with an extra condition on the matched value."""

    def __init__(self, pattern: Pattern) -> None:
        self.pattern = pattern

    def root_names(self) -> frozenset[str] | None:
        return self.pattern.root_names()


class AttrPattern(_Wrapper):
    def __init__(self, pattern: Pattern, attrs: dict[str, Any]) -> None:
        super().__init__(pattern)
        self.attrs = attrs
        self.op_level = pattern.op_level

    def __repr__(self) -> str:
        return f"{self.pattern!r}.has_attr({self.attrs!r})"


class TypePattern(_Wrapper):
    def __init__(self, pattern: Pattern, t: Attribute | type) -> None:
        super().__init__(pattern)
        self.type = t

    def __repr__(self) -> str:
        shown = self.type.__name__ if isinstance(self.type, type) else self.type
        return f"{self.pattern!r}.has_type({shown})"


def element_type_of(dtype: Attribute | str) -> Attribute:
    """An element type from an xDSL type or a name: "float32", "f32", "int64"..."""
    if isinstance(dtype, Attribute):
        return dtype
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

    def __repr__(self) -> str:
        return f"{self.pattern!r}.has_dtype({self.dtype})"


class ShapePattern(_Wrapper):
    def __init__(self, pattern: Pattern, shape: Sequence[int]) -> None:
        super().__init__(pattern)
        self.shape = tuple(int(d) for d in shape)

    def __repr__(self) -> str:
        return f"{self.pattern!r}.has_shape({self.shape})"


class DominatorPattern(Pattern):
    """TVM's dominator pattern: `child` matches; each of its operands is either the
    (single) value `parent` matches, or is defined by an op matching `path` whose
    operands satisfy the same rule; and every use of `parent` leads to `child`.
    Leaf operands (arguments, constants) are skipped, but each op needs at least
    one operand that is not a leaf."""

    op_level = True

    def __init__(self, parent: Pattern, path: Pattern, child: Pattern) -> None:
        self.parent = parent
        self.path = path
        self.child = child

    def root_names(self) -> frozenset[str] | None:
        return self.child.root_names()

    def __repr__(self) -> str:
        return f"dominates({self.parent!r}, {self.path!r}, {self.child!r})"


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
