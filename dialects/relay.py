"""The `relay` dialect: TVM Relay's graph level as xDSL ops over tensors.

Every op infers its result type from its operands and attributes, so builders and
the parser never need redundant types; the verifier re-infers and says exactly what
disagrees. Every op carries its op-pattern kind (TVM's `TOpPattern`) as class data,
which fusion and the pattern language read.

Custom form (the generic form always works too):

```mlir
%w = relay.constant dense_resource<fc1_w> : tensor<512x784xf32>
%0 = relay.dense %x, %w {transpose_b} : (tensor<1x784xf32>, tensor<512x784xf32>) -> tensor<1x512xf32>
%1 = relay.relu %0 : tensor<1x512xf32>
```

After `:` either a function type `(operands) -> result` or, when every operand and
the result share one type, just that type. The `-> result` part may be omitted when
parsing; the result type is then inferred.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from enum import IntEnum
from typing import ClassVar

from xdsl.dialects.builtin import (
    AnyFloat,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    FloatAttr,
    IntegerAttr,
    TensorType,
    UnitAttr,
    f64,
    i64,
)
from xdsl.ir import Attribute, Dialect, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    OptionalDef,
    VariadicDef,
    VerificationContext,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import ConstantLike, Pure
from xdsl.utils.exceptions import VerifyException


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


# ---------------------------------------------------------------------- helpers
def tensor(shape: Sequence[int], element_type: Attribute) -> TensorType:
    return TensorType(element_type, list(shape))


def shape_of(t: Attribute) -> tuple[int, ...]:
    assert isinstance(t, TensorType)
    return tuple(t.get_shape())


def broadcast_shapes(op_name: str, *shapes: Sequence[int]) -> tuple[int, ...]:
    """numpy's broadcasting rule, with an error that names the clashing dimension."""
    rank = max(len(s) for s in shapes)
    out: list[int] = []
    for axis in range(rank):
        dims = {s[axis - rank + len(s)] for s in shapes if axis - rank + len(s) >= 0}
        dims.discard(1)
        if len(dims) > 1:
            listed = " and ".join("x".join(map(str, s)) or "scalar" for s in shapes)
            raise VerifyException(
                f"{op_name}: shapes {listed} do not broadcast (dimension {axis} of "
                f"the result would be one of {sorted(dims)})"
            )
        out.append(dims.pop() if dims else 1)
    return tuple(out)


def normalize_axis(op_name: str, axis: int, rank: int) -> int:
    if not -rank <= axis < max(rank, 1):
        raise VerifyException(
            f"{op_name}: axis {axis} is out of range for a rank-{rank} tensor "
            f"(expected {-rank} <= axis < {rank})"
        )
    return axis % rank if rank else 0


def int_prop(op: Operation, name: str, default: int) -> int:
    attr = op.properties.get(name)
    return attr.value.data if isinstance(attr, IntegerAttr) else default


def float_prop(op: Operation, name: str, default: float) -> float:
    attr = op.properties.get(name)
    return attr.value.data if isinstance(attr, FloatAttr) else default


def ints_prop(op: Operation, name: str) -> tuple[int, ...]:
    attr = op.properties.get(name)
    return tuple(attr.get_values()) if isinstance(attr, DenseArrayBase) else ()


def flag_prop(op: Operation, name: str) -> bool:
    return name in op.properties


def _tensor_operands(op_name: str, types: Sequence[Attribute]) -> list[TensorType]:
    out: list[TensorType] = []
    for i, t in enumerate(types):
        if not isinstance(t, TensorType):
            raise VerifyException(f"{op_name}: operand #{i} must be a tensor, got {t}")
        if any(d < 0 for d in t.get_shape()):
            raise VerifyException(
                f"{op_name}: operand #{i} has a dynamic shape {t}; lamina needs static "
                "shapes (give input_shapes= when importing)"
            )
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


# ------------------------------------------------------------------------- base
class RelayOp(IRDLOperation):
    """Base of relay's graph ops: one tensor result, inferred from the operands."""

    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE

    def __init__(
        self,
        *operands: SSAValue | Operation | None,
        result_type: Attribute | None = None,
        **props: Attribute | None,
    ):
        flat = [SSAValue.get(o) for o in operands if o is not None]
        properties = {k: v for k, v in props.items() if v is not None}
        if result_type is None:
            result_type = self.infer_type([o.type for o in flat], properties)
        super().__init__(
            operands=self._group(flat),
            result_types=[result_type],
            properties=properties,
        )

    # --- to be provided by each op --------------------------------------
    @classmethod
    def infer(
        cls, types: list[TensorType], props: dict[str, Attribute]
    ) -> TensorType:
        raise NotImplementedError

    # --- shared machinery -----------------------------------------------
    @classmethod
    def infer_type(
        cls, types: Sequence[Attribute], props: dict[str, Attribute]
    ) -> TensorType:
        return cls.infer(_tensor_operands(cls.name, types), props)

    @classmethod
    def _group(cls, flat: list[SSAValue]) -> list[SSAValue | list[SSAValue]]:
        defs = cls.get_irdl_definition().operands
        groups: list[SSAValue | list[SSAValue]] = []
        rest = list(flat)
        for _, d in defs:
            if isinstance(d, OptionalDef):
                groups.append([rest.pop(0)] if rest else [])
            elif isinstance(d, VariadicDef):
                groups.append(rest)
                rest = []
            else:
                if not rest:
                    raise VerifyException(
                        f"{cls.name} needs {len(defs)} operands, got {len(flat)}"
                    )
                groups.append(rest.pop(0))
        if rest:
            raise VerifyException(f"{cls.name}: too many operands ({len(flat)})")
        return groups

    @property
    def result(self) -> SSAValue:
        return self.results[0]

    def verify_(self) -> None:
        expected = self.infer_type(self.operand_types, dict(self.properties))
        if self.results[0].type != expected:
            raise VerifyException(
                f"{self.name}: result type {self.results[0].type} does not match the "
                f"inferred type {expected}"
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
        result_type = None
        if parser.parse_optional_punctuation("(") is not None:
            types = []
            if parser.parse_optional_punctuation(")") is None:
                types = parser.parse_comma_separated_list(
                    Parser.Delimiter.NONE, parser.parse_type
                )
                parser.parse_punctuation(")")
            if parser.parse_optional_punctuation("->") is not None:
                result_type = parser.parse_type()
        else:
            single = parser.parse_type()
            types = [single] * len(unresolved)
            result_type = single
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
            inferred = cls.infer_type(types, props)
        except VerifyException as e:
            parser.raise_error(str(e), start, end)
        if result_type is not None and result_type != inferred:
            parser.raise_error(
                f"{cls.name}: result type {result_type} does not match the inferred "
                f"type {inferred}",
                start,
                end,
            )
        op = cls(*operands, result_type=inferred, **props)
        op.attributes |= other
        return op

    def print(self, printer: Printer) -> None:
        if self.operands:
            printer.print_string(" ")
            printer.print_list(self.operands, printer.print_operand)
        printer.print_op_attributes({**self.properties, **self.attributes})
        printer.print_string(" : ")
        types = [*self.operand_types, self.results[0].type]
        if self.operands and len(set(types)) == 1:
            printer.print_attribute(types[0])
            return
        printer.print_string("(")
        printer.print_list(self.operand_types, printer.print_attribute)
        printer.print_string(") -> ")
        printer.print_attribute(self.results[0].type)


# -------------------------------------------------------------------- constants
@irdl_op_definition
class ConstantOp(RelayOp):
    """A constant tensor: a `dense_resource` blob (weights) or an inline `dense`."""

    name = "relay.constant"
    value = prop_def(DenseResourceAttr | DenseIntOrFPElementsAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure(), ConstantLike())
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE

    def __init__(self, value: DenseResourceAttr | DenseIntOrFPElementsAttr):
        super().__init__(result_type=value.get_type(), value=value)

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        value = props["value"]
        assert isinstance(value, DenseResourceAttr | DenseIntOrFPElementsAttr)
        t = value.get_type()
        if not isinstance(t, TensorType):
            raise VerifyException(f"relay.constant: value must have a tensor type, got {t}")
        return t

    @classmethod
    def parse(cls, parser: Parser) -> ConstantOp:
        start = parser._current_token.span  # pyright: ignore[reportPrivateUsage]
        value = parser.parse_attribute()
        if not isinstance(value, DenseResourceAttr | DenseIntOrFPElementsAttr):
            parser.raise_error(
                "relay.constant expects dense_resource<...> or dense<...> : tensor<...>",
                start,
            )
        attrs = parser.parse_optional_attr_dict()
        op = cls(value)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_attribute(self.value)
        printer.print_op_attributes(self.attributes)


# ------------------------------------------------------------------ elementwise
class BinaryOp(RelayOp):
    """Elementwise binary arithmetic with numpy broadcasting."""

    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.BROADCAST
    COMMUTATIVE: ClassVar[bool] = False

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        elem = _same_element_type(cls.name, types)
        return tensor(broadcast_shapes(cls.name, *(shape_of(t) for t in types)), elem)


@irdl_op_definition
class AddOp(BinaryOp):
    name = "relay.add"
    COMMUTATIVE: ClassVar[bool] = True


@irdl_op_definition
class SubtractOp(BinaryOp):
    name = "relay.subtract"


@irdl_op_definition
class MultiplyOp(BinaryOp):
    name = "relay.multiply"
    COMMUTATIVE: ClassVar[bool] = True


@irdl_op_definition
class DivideOp(BinaryOp):
    """Division: true division for floats, truncating toward zero for integers
    (ONNX's Div)."""

    name = "relay.divide"


class UnaryOp(RelayOp):
    """Elementwise unary op: the result has the operand's type."""

    data = operand_def(TensorType)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.ELEMWISE

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        return types[0]


@irdl_op_definition
class ReluOp(UnaryOp):
    name = "relay.relu"


# --------------------------------------------------------------------- products
@irdl_op_definition
class MatmulOp(RelayOp):
    """numpy's matmul: batched, broadcast over leading dims, 1-D operands promoted."""

    name = "relay.matmul"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        elem = _same_element_type(cls.name, types)
        a, b = (shape_of(t) for t in types)
        if not a or not b:
            raise VerifyException("relay.matmul: operands must have rank >= 1")
        a2 = (1, *a) if len(a) == 1 else a
        b2 = (*b, 1) if len(b) == 1 else b
        if a2[-1] != b2[-2]:
            raise VerifyException(
                f"relay.matmul: contraction dimensions differ: lhs has {a2[-1]} "
                f"columns, rhs has {b2[-2]} rows"
            )
        batch = broadcast_shapes(cls.name, a2[:-2], b2[:-2])
        out = [*batch, a2[-2], b2[-1]]
        if len(a) == 1:
            out.pop(-2)
        if len(b) == 1:
            out.pop(-1)
        return tensor(out, elem)


@irdl_op_definition
class DenseOp(RelayOp):
    """ONNX Gemm: `alpha * op(a) @ op(b) + beta * bias` over 2-D operands, with
    `op` a transpose when `transpose_a`/`transpose_b` is set. TVM's `nn.dense` is
    the `transpose_b` case."""

    name = "relay.dense"
    a = operand_def(TensorType)
    b = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    transpose_a = opt_prop_def(UnitAttr)
    transpose_b = opt_prop_def(UnitAttr)
    alpha = opt_prop_def(FloatAttr)
    beta = opt_prop_def(FloatAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        elem = _same_element_type(cls.name, types)
        a, b = shape_of(types[0]), shape_of(types[1])
        if len(a) != 2 or len(b) != 2:
            raise VerifyException(
                f"relay.dense: operands must be 2-D, got ranks {len(a)} and {len(b)}"
            )
        m, k = (a[1], a[0]) if "transpose_a" in props else a
        k2, n = (b[1], b[0]) if "transpose_b" in props else b
        if k != k2:
            raise VerifyException(
                f"relay.dense: contraction dimensions differ: op(a) is {m}x{k}, "
                f"op(b) is {k2}x{n}"
            )
        if len(types) == 3:
            bias = shape_of(types[2])
            if broadcast_shapes(cls.name, bias, (m, n)) != (m, n):
                raise VerifyException(
                    f"relay.dense: bias of shape {'x'.join(map(str, bias))} does not "
                    f"broadcast to {m}x{n}"
                )
        return tensor((m, n), elem)


# ------------------------------------------------------------------------ nn ops
@irdl_op_definition
class SoftmaxOp(RelayOp):
    """softmax along one axis (ONNX opset >= 13 semantics)."""

    name = "relay.softmax"
    data = operand_def(TensorType)
    axis = prop_def(IntegerAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        if not isinstance(types[0].get_element_type(), AnyFloat):
            raise VerifyException("relay.softmax: needs a floating-point tensor")
        axis = props["axis"]
        assert isinstance(axis, IntegerAttr)
        normalize_axis(cls.name, axis.value.data, len(shape_of(types[0])))
        return types[0]


# ------------------------------------------------------------------------ layout
@irdl_op_definition
class ReshapeOp(RelayOp):
    """Reshape to a static `shape` with the same number of elements."""

    name = "relay.reshape"
    data = operand_def(TensorType)
    shape = prop_def(DenseArrayBase)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        attr = props["shape"]
        assert isinstance(attr, DenseArrayBase)
        new = tuple(int(v) for v in attr.get_values())
        old = shape_of(types[0])
        if any(d < 0 for d in new):
            raise VerifyException(
                f"relay.reshape: shape {list(new)} must be static and non-negative "
                "(resolve -1 and 0 before building the op)"
            )
        if math.prod(new) != math.prod(old):
            raise VerifyException(
                f"relay.reshape: cannot reshape {list(old)} ({math.prod(old)} elements) "
                f"to {list(new)} ({math.prod(new)} elements)"
            )
        return tensor(new, types[0].get_element_type())


@irdl_op_definition
class TransposeOp(RelayOp):
    """Permute dimensions: result dim i is operand dim perm[i]."""

    name = "relay.transpose"
    data = operand_def(TensorType)
    perm = prop_def(DenseArrayBase)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        attr = props["perm"]
        assert isinstance(attr, DenseArrayBase)
        perm = tuple(int(v) for v in attr.get_values())
        old = shape_of(types[0])
        if sorted(perm) != list(range(len(old))):
            raise VerifyException(
                f"relay.transpose: perm {list(perm)} is not a permutation of "
                f"0..{len(old) - 1}"
            )
        return tensor([old[p] for p in perm], types[0].get_element_type())


# --------------------------------------------------------------------- builders
def i64_array(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, [int(v) for v in values])


def i64_attr(value: int) -> IntegerAttr:
    return IntegerAttr(int(value), i64)


def f64_attr(value: float) -> FloatAttr:
    return FloatAttr(float(value), f64)


RELAY_OPS: tuple[type[RelayOp], ...] = (
    ConstantOp,
    AddOp,
    SubtractOp,
    MultiplyOp,
    DivideOp,
    ReluOp,
    MatmulOp,
    DenseOp,
    SoftmaxOp,
    ReshapeOp,
    TransposeOp,
)

Relay = Dialect("relay", list(RELAY_OPS), [])

__all__ = [
    "RELAY_OPS",
    "AddOp",
    "BinaryOp",
    "ConstantOp",
    "DenseOp",
    "DivideOp",
    "MatmulOp",
    "MultiplyOp",
    "OpPattern",
    "Relay",
    "RelayOp",
    "ReluOp",
    "ReshapeOp",
    "SoftmaxOp",
    "SubtractOp",
    "TransposeOp",
    "UnaryOp",
]
