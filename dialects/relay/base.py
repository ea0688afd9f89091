"""The machinery every relay op shares: `RelayOp` and the op-pattern kinds.

`RelayOp` infers an op's result types from its operands and properties, verifies
by re-inferring, and gives every op the custom form `%r = relay.op %a, %b {props}
: (types) -> type`. Beside it live the helpers the op families' type inference is
written with (shapes, broadcasting, axes, element-kind checks), the typed
property views (`OpAttrs` and its fields: an op family declares its properties
once, with their defaults, and reads them as `op.attrs.<name>`), the
sliding-window geometry (`Window`) that convolution, pooling and
im2col share, and the attribute builders (`i64_array`, `i64_attr`, `f64_attr`)
that frontends and passes build op properties with.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import IntEnum
from typing import Any, ClassVar, Self

from xdsl.dialects.builtin import (
    AnyFloat,
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
    f64,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    OptionalDef,
    VariadicDef,
    VerificationContext,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from lamina.dialects.shapes import dims_of, shape_dims, symbolic_tensor
from lamina.symbolic import Dim, SymbolicError


class OpPattern(IntEnum):
    """TVM's op-pattern kinds, ordered as fusion compares them."""

    ELEMWISE = 0
    BROADCAST = 1
    INJECTIVE = 2
    COMM_REDUCE = 3
    OUT_ELEMWISE_FUSABLE = 4
    TUPLE = 7
    OPAQUE = 8

    @property
    def label(self) -> str:
        return self.name.lower().replace("_", "-")


# -------------------------------------------------------------------- helpers
def tensor(shape: Sequence[Dim], element_type: Attribute) -> TensorType:
    """A tensor type; symbolic dims print as `?` and are named in its encoding."""
    return symbolic_tensor(shape, element_type)


def shape_of(t: Attribute) -> tuple[Dim, ...]:
    """A tensor type's shape, its symbolic dims as `Sym` expressions."""
    assert isinstance(t, TensorType)
    return shape_dims(t)


def broadcast_shapes(op_name: str, *shapes: Sequence[Dim]) -> tuple[Dim, ...]:
    """numpy's broadcasting rule, with an error that names the clashing dimension.

    A symbolic dim broadcasts with 1 and with itself; against another size it is
    refused, since it would have to be that size or 1 depending on the run."""
    rank = max(len(s) for s in shapes)
    out: list[Dim] = []
    for axis in range(rank):
        dims = {s[axis - rank + len(s)] for s in shapes if axis - rank + len(s) >= 0}
        dims.discard(1)
        if len(dims) > 1:
            listed = " and ".join("x".join(map(str, s)) or "scalar" for s in shapes)
            raise VerifyException(
                f"{op_name}: shapes {listed} do not broadcast (dimension {axis} of "
                f"the result would be one of [{', '.join(map(str, sorted(dims, key=_dim_key)))}])"
            )
        out.append(dims.pop() if dims else 1)
    return tuple(out)


def _dim_key(d: Dim) -> tuple[int, str]:
    return (d, "") if isinstance(d, int) else (1 << 62, str(d))


def normalize_axis(op_name: str, axis: int, rank: int) -> int:
    if not -rank <= axis < max(rank, 1):
        raise VerifyException(
            f"{op_name}: axis {axis} is out of range for a rank-{rank} tensor "
            f"(expected {-rank} <= axis < {rank})"
        )
    return axis % rank if rank else 0


def dims_text(dims: Sequence[Dim]) -> str:
    return "[" + ", ".join(map(str, dims)) + "]"


def is_float(t: Attribute) -> bool:
    return isinstance(t, AnyFloat)


def is_bool(t: Attribute) -> bool:
    return isinstance(t, IntegerType) and t.width.data == 1


def is_int(t: Attribute) -> bool:
    """An integer element type other than bool (i1)."""
    return isinstance(t, IntegerType) and t.width.data > 1


def require_element(
    op_name: str,
    t: TensorType,
    *,
    floating: bool = False,
    integer: bool = False,
    boolean: bool = False,
) -> None:
    """Check that the element type of `t` is one of the allowed kinds."""
    elem = t.get_element_type()
    if (
        (floating and is_float(elem))
        or (integer and is_int(elem))
        or (boolean and is_bool(elem))
    ):
        return
    kinds = [
        k
        for k, ok in (
            ("floating-point", floating),
            ("integer", integer),
            ("boolean (i1)", boolean),
        )
        if ok
    ]
    raise VerifyException(f"{op_name}: needs a {' or '.join(kinds)} tensor, got {t}")


def _tensor_operands(op_name: str, types: Sequence[Attribute]) -> list[TensorType]:
    out: list[TensorType] = []
    for i, t in enumerate(types):
        if not isinstance(t, TensorType):
            raise VerifyException(f"{op_name}: operand #{i} must be a tensor, got {t}")
        try:
            shape_dims(t)
        except SymbolicError as e:
            raise VerifyException(f"{op_name}: operand #{i}: {e}") from None
        out.append(t)
    return out


def _same_element_type(op_name: str, types: Sequence[TensorType]) -> Attribute:
    elems = {t.get_element_type() for t in types}
    if len(elems) > 1:
        raise VerifyException(
            f"{op_name}: operands must share an element type, got "
            + ", ".join(str(t.get_element_type()) for t in types)
        )
    return types[0].get_element_type()


# ------------------------------------------------------------ typed properties
PropSource = Operation | Mapping[str, Attribute]


class Field:
    """One property of an `OpAttrs` view, read as a Python value. The key is
    the name the field is assigned to in the view's class body, so a property
    is spelt once, where its view declares it with its default."""

    key: str

    def __set_name__(self, owner: type, name: str) -> None:
        self.key = name

    def __get__(self, view: OpAttrs | None, owner: type | None = None) -> Any:
        if view is None:
            return self
        return self.read(view.props.get(self.key), view.op_name)

    def read(self, attr: Attribute | None, op_name: str) -> Any:
        raise NotImplementedError


class FlagField(Field):
    """A unit property: set or not."""

    def read(self, attr: Attribute | None, op_name: str) -> Any:
        return attr is not None


class _Defaulted(Field):
    def __init__(self, default: Any):
        self.default = default


class IntField(_Defaulted):
    """An integer property, `default` when absent."""

    def read(self, attr: Attribute | None, op_name: str) -> Any:
        return attr.value.data if isinstance(attr, IntegerAttr) else self.default


class FloatField(_Defaulted):
    """A float property, `default` when absent."""

    def read(self, attr: Attribute | None, op_name: str) -> Any:
        return attr.value.data if isinstance(attr, FloatAttr) else self.default


class StrField(_Defaulted):
    """A string property, `default` when absent."""

    def read(self, attr: Attribute | None, op_name: str) -> Any:
        return attr.data if isinstance(attr, StringAttr) else self.default


class ChoiceField(Field):
    """A string property that must be one of `allowed` (`default` when absent);
    a VerifyException naming the op and the choices otherwise."""

    def __init__(self, allowed: Sequence[str], default: str):
        self.allowed, self.default = allowed, default

    def read(self, attr: Attribute | None, op_name: str) -> Any:
        value = attr.data if isinstance(attr, StringAttr) else self.default
        if value not in self.allowed:
            raise VerifyException(
                f"{op_name}: {self.key} must be one of {', '.join(self.allowed)}, "
                f'got "{value}"'
            )
        return value


class IntsField(_Defaulted):
    """An integer array property (a tuple), `default` when absent (`()`
    unless told; `None` tells an absent array from an empty one)."""

    def __init__(self, default: Any = ()):
        self.default = default

    def read(self, attr: Attribute | None, op_name: str) -> Any:
        if attr is None:
            return self.default
        return self.values(attr) if isinstance(attr, DenseArrayBase) else ()

    @staticmethod
    def values(attr: DenseArrayBase) -> tuple[Any, ...]:
        return tuple(int(v) for v in attr.get_values())


class FloatsField(IntsField):
    """A float array property (a tuple), `default` when absent."""

    @staticmethod
    def values(attr: DenseArrayBase) -> tuple[Any, ...]:
        return tuple(float(v) for v in attr.get_values())


class AttrField(Field):
    """A property as its attribute (None when absent), for a verifier that
    checks its kind itself."""

    def read(self, attr: Attribute | None, op_name: str) -> Any:
        return attr


class DimsField(Field):
    """A required property holding dims (`dims_attr`: static, or with symbolic
    names)."""

    def read(self, attr: Attribute | None, op_name: str) -> Any:
        if attr is None:
            raise KeyError(self.key)
        try:
            return dims_of(attr)
        except SymbolicError as e:
            raise VerifyException(f"{op_name}: {self.key}: {e}") from None


class OpAttrs:
    """The typed view of an op's properties (TVM's `Attrs`): a subclass per op
    family declares its properties as fields with their defaults, and each op
    names its view in `ATTRS`. `op.attrs.groups` reads a built op;
    `cls.attrs_of(props).groups` the property dict `infer` is given. Fields read
    lazily, so a verifier checks them in the order it asks for them."""

    __slots__ = ("op_name", "props")

    def __init__(self, src: PropSource, op_name: str = ""):
        self.props: Mapping[str, Attribute] = (
            src.properties if isinstance(src, Operation) else src
        )
        self.op_name = op_name or (src.name if isinstance(src, Operation) else "")

    @classmethod
    def fields(cls) -> dict[str, Field]:
        """The view's fields by key, its bases' first."""
        return {
            k: f
            for c in reversed(cls.__mro__)
            for k, f in vars(c).items()
            if isinstance(f, Field)
        }

    def checked(self) -> Self:
        """The view, once each of its choices has been checked (in declaration
        order): a choice outside its allowed values raises here."""
        for key, field in self.fields().items():
            if isinstance(field, ChoiceField):
                getattr(self, key)
        return self

    def is_set(self, field: Field) -> bool:
        """Whether the op writes `field` out (`TriluAttrs.k`, say), rather than
        leaving it to its default."""
        return field.key in self.props

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={getattr(self, k)!r}" for k in self.fields())
        return f"{type(self).__name__}({shown})"


class WindowAttrs(OpAttrs):
    """Strides, dilation and padding of a sliding window, `None` when absent
    (`Window` gives them with their defaults)."""

    strides = IntsField(None)
    dilation = IntsField(None)
    padding = IntsField(None)


# ----------------------------------------------------------------------- base
def window_defaults(spatial: int) -> dict[str, tuple[int, ...]]:
    """The defaults of a window op over `spatial` axes: unit strides and
    dilation, no padding."""
    return {"strides": (1,) * spatial, "dilation": (1,) * spatial, "padding": (0,) * (2 * spatial)}


class RelayOp(IRDLOperation):
    """Base of relay's graph ops: tensor results inferred from the operands and
    properties. Most ops have one result; an op whose `infer` returns a list (e.g.
    `relay.split`) has one result per entry."""

    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    #: The values of optional properties the op does not write out (TVM's
    #: attribute defaults). The pattern language's `has_attr` reads them, merged
    #: along the class hierarchy; a property with no entry has no default.
    DEFAULTS: ClassVar[dict[str, Any]] = {}
    #: The typed view of the op's properties (`op.attrs`, `cls.attrs_of(props)`).
    ATTRS: ClassVar[type[OpAttrs]] = OpAttrs

    def __init__(
        self,
        *operands: SSAValue | Operation | None,
        result_type: Attribute | None = None,
        result_types: Sequence[Attribute] | None = None,
        **props: Attribute | None,
    ):
        flat = [SSAValue.get(o) for o in operands if o is not None]
        properties = {k: v for k, v in props.items() if v is not None}
        if result_types is None:
            result_types = (
                [result_type]
                if result_type is not None
                else self.infer_types([o.type for o in flat], properties)
            )
        super().__init__(
            operands=self._group(flat),
            result_types=self._group_results(list(result_types)),
            properties=properties,
        )

    # --- to be provided by each op --------------------------------------
    @classmethod
    def infer(
        cls, types: list[TensorType], props: dict[str, Attribute]
    ) -> TensorType | list[TensorType]:
        """The result type (or, for multi-result ops, the list of result types)
        for operands of `types` and properties `props`; raise VerifyException with
        a message naming the op when they are invalid."""
        raise NotImplementedError

    # --- shared machinery -----------------------------------------------
    @classmethod
    def infer_types(
        cls, types: Sequence[Attribute], props: dict[str, Attribute]
    ) -> list[TensorType]:
        """Every result type, as a list."""
        inferred = cls.infer(_tensor_operands(cls.name, types), props)
        return list(inferred) if isinstance(inferred, list | tuple) else [inferred]

    @classmethod
    def infer_type(
        cls, types: Sequence[Attribute], props: dict[str, Attribute]
    ) -> TensorType:
        """The result type of a single-result op."""
        (t,) = cls.infer_types(types, props)
        return t

    @classmethod
    def _group(cls, flat: list[SSAValue]) -> list[SSAValue | list[SSAValue]]:
        defs = cls.get_irdl_definition().operands
        groups: list[SSAValue | list[SSAValue]] = []
        rest = list(flat)
        required = sum(
            1 for _, d in defs if not isinstance(d, OptionalDef | VariadicDef)
        )
        for _, d in defs:
            if isinstance(d, OptionalDef):
                groups.append([rest.pop(0)] if len(rest) > required else [])
            elif isinstance(d, VariadicDef):
                take = len(rest) - required
                groups.append(rest[:take])
                rest = rest[take:]
            else:
                if not rest:
                    raise VerifyException(
                        f"{cls.name} needs {required} operands, got {len(flat)}"
                    )
                groups.append(rest.pop(0))
                required -= 1
        if rest:
            raise VerifyException(f"{cls.name}: too many operands ({len(flat)})")
        return groups

    @classmethod
    def _group_results(
        cls, types: list[Attribute]
    ) -> list[Attribute | list[Attribute]]:
        defs = cls.get_irdl_definition().results
        if len(defs) == 1 and isinstance(defs[0][1], VariadicDef):
            return [types]
        if len(types) != len(defs):
            raise VerifyException(
                f"{cls.name} has {len(defs)} result(s), got {len(types)} type(s)"
            )
        return list(types)

    @property
    def attrs(self) -> Any:
        """The op's properties as its `ATTRS` view reads them (typed values,
        defaults filled in)."""
        return self.ATTRS(self.properties, self.name)

    @classmethod
    def attrs_of(cls, props: Mapping[str, Attribute]) -> Any:
        """The `ATTRS` view of a property dict (as `infer` is given)."""
        return cls.ATTRS(props, cls.name)

    @property
    def result(self) -> SSAValue:
        return self.results[0]

    def verify_(self) -> None:
        expected = self.infer_types(self.operand_types, dict(self.properties))
        got = list(self.result_types)
        if got != expected:
            def show(ts: Sequence[Attribute]) -> str:
                return str(ts[0]) if len(ts) == 1 else f"({', '.join(map(str, ts))})"

            raise VerifyException(
                f"{self.name}: result type {show(got)} does not match the "
                f"inferred type {show(expected)}"
            )

    @classmethod
    def check_signature(cls, num_operands: int, props: dict[str, Attribute]) -> None:
        """Operand count and properties as the op's definition wants them, checked
        before `infer` (which assumes both)."""
        cls._group([None] * num_operands)  # type: ignore[list-item]
        for name, pdef in cls.get_irdl_definition().properties.items():
            if name not in props:
                if not isinstance(pdef, OptionalDef):
                    raise VerifyException(f"{cls.name}: property '{name}' is required")
                continue
            try:
                pdef.constr.verify(props[name], VerificationContext())
            except VerifyException as e:
                raise VerifyException(
                    f"{cls.name}: property '{name}' = {props[name]} is invalid: {e}"
                ) from None

    @classmethod
    def parse(cls, parser: Parser) -> RelayOp:
        start = parser.pos
        unresolved = parser.parse_optional_undelimited_comma_separated_list(
            parser.parse_optional_unresolved_operand, parser.parse_unresolved_operand
        ) or []
        attrs = parser.parse_optional_attr_dict()
        end = parser.pos
        parser.parse_punctuation(":")
        result_types = None
        if parser.parse_optional_punctuation("(") is not None:
            types = []
            if parser.parse_optional_punctuation(")") is None:
                types = parser.parse_comma_separated_list(
                    Parser.Delimiter.NONE, parser.parse_type
                )
                parser.parse_punctuation(")")
            if parser.parse_optional_punctuation("->") is not None:
                if parser.parse_optional_punctuation("(") is not None:
                    result_types = parser.parse_comma_separated_list(
                        Parser.Delimiter.NONE, parser.parse_type
                    )
                    parser.parse_punctuation(")")
                else:
                    result_types = [parser.parse_type()]
        else:
            single = parser.parse_type()
            types = [single] * len(unresolved)
            result_types = [single]
        if len(types) != len(unresolved):
            parser.raise_error(
                f"{cls.name}: {len(unresolved)} operands but {len(types)} types",
                start,
                end,
            )
        operands = [
            parser.resolve_operand(u, t) for u, t in zip(unresolved, types, strict=True)
        ]
        prop_names = cls.get_irdl_definition().properties
        props = {k: v for k, v in attrs.items() if k in prop_names}
        other = {k: v for k, v in attrs.items() if k not in prop_names}
        try:
            cls.check_signature(len(operands), props)
            inferred = cls.infer_types(types, props)
        except VerifyException as e:
            parser.raise_error(str(e), start, end)
        if result_types is not None and list(result_types) != inferred:
            shown = ", ".join(map(str, result_types))
            want = ", ".join(map(str, inferred))
            parser.raise_error(
                f"{cls.name}: result type {shown} does not match the inferred "
                f"type {want}",
                start,
                end,
            )
        op = cls(*operands, result_types=inferred, **props)
        op.attributes |= other
        return op

    def print(self, printer: Printer) -> None:
        if self.operands:
            printer.print_string(" ")
            printer.print_list(self.operands, printer.print_operand)
        printer.print_op_attributes({**self.properties, **self.attributes})
        printer.print_string(" : ")
        results = list(self.result_types)
        types = [*self.operand_types, *results]
        if self.operands and len(results) == 1 and len(set(types)) == 1:
            printer.print_attribute(types[0])
            return
        printer.print_string("(")
        printer.print_list(self.operand_types, printer.print_attribute)
        printer.print_string(") -> ")
        if len(results) == 1:
            printer.print_attribute(results[0])
            return
        printer.print_string("(")
        printer.print_list(results, printer.print_attribute)
        printer.print_string(")")


# -------------------------------------------------------------- element kinds
_NUMERIC: dict[str, bool] = {"floating": True, "integer": True}
_FLOATING: dict[str, bool] = {"floating": True}


# -------------------------------------------------------------------- windows
def _spatial(
    op_name: str, name: str, values: tuple[int, ...] | None, n: int, default: int
) -> tuple[int, ...]:
    """A per-spatial-axis property of `n` values (`default` for each if absent,
    i.e. `values` is None)."""
    if values is None:
        return (default,) * n
    if len(values) != n:
        raise VerifyException(
            f"{op_name}: {name} needs {n} values (one per spatial axis), got "
            f"{list(values)}"
        )
    return values


class Window:
    """The sliding-window geometry of a convolution or pooling over `n` spatial
    axes: strides, dilation and padding (`[begin..., end...]`, as in ONNX)."""

    def __init__(
        self, op_name: str, props: PropSource, n: int, negative_padding: bool = False
    ):
        a = WindowAttrs(props, op_name)
        self.strides = _spatial(op_name, "strides", a.strides, n, 1)
        self.dilation = _spatial(op_name, "dilation", a.dilation, n, 1)
        pad = _spatial(op_name, "padding", a.padding, 2 * n, 0)
        self.pad_begin, self.pad_end = pad[:n], pad[n:]
        if any(v < 1 for v in self.strides + self.dilation):
            raise VerifyException(
                f"{op_name}: strides {list(self.strides)} and dilation "
                f"{list(self.dilation)} must be positive"
            )
        if not negative_padding and any(v < 0 for v in pad):
            raise VerifyException(f"{op_name}: padding {list(pad)} must be non-negative")

    def output_size(
        self, op_name: str, axis: int, size: int, kernel: int, ceil_mode: bool = False
    ) -> int:
        span = (kernel - 1) * self.dilation[axis] + 1
        padded = size + self.pad_begin[axis] + self.pad_end[axis]
        if padded < span:
            raise VerifyException(
                f"{op_name}: the window (extent {span}) is larger than the padded "
                f"input (extent {padded}) along spatial axis {axis}"
            )
        stride = self.strides[axis]
        out = (padded - span + (stride - 1 if ceil_mode else 0)) // stride + 1
        # The last window must start inside the input or its begin padding.
        if ceil_mode and (out - 1) * stride >= size + self.pad_begin[axis]:
            out -= 1
        return out


    def overhang(self, axis: int, size: int, out: int, kernel: int) -> int:
        """How far past the input's end (of `size`) the last of `out` windows
        of `kernel` taps reaches along `axis` (0: it stays inside)."""
        reach = (out - 1) * self.strides[axis] + (kernel - 1) * self.dilation[axis] + 1
        return max(0, reach - self.pad_begin[axis] - size)


def _nchw(op_name: str, t: TensorType, spatial: int) -> tuple[int, ...]:
    shape = shape_of(t)
    if len(shape) != spatial + 2:
        raise VerifyException(
            f"{op_name}: data must be {spatial + 2}-D (batch, channels and {spatial} "
            f"spatial axes), got {t}"
        )
    return shape


# ------------------------------------------------------------------- builders
def i64_array(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, [int(v) for v in values])


def i64_attr(value: int) -> IntegerAttr:
    return IntegerAttr(int(value), i64)


def f64_attr(value: float) -> FloatAttr:
    return FloatAttr(float(value), f64)
