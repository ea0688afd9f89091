"""Contractions: `relay.matmul`, `relay.dense` (ONNX Gemm), `relay.dense_pack`
(a product with its weight in column panels) and the N-d
convolutions and transposed convolutions.

These are the ops that do the arithmetic work of a network; fusion treats them
as OUT_ELEMWISE_FUSABLE (elementwise consumers fuse into them). Convolutions are
NC... layout with strides, dilation, padding and groups, their output sizes
computed by the shared `Window` geometry.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from xdsl.dialects.builtin import (
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    TensorType,
    UnitAttr,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from lamina.dialects.relay.base import (
    FlagField,
    FloatField,
    IntField,
    IntsField,
    OpAttrs,
    OpPattern,
    RelayOp,
    Window,
    WindowAttrs,
    _nchw,
    _same_element_type,
    _spatial,
    broadcast_shapes,
    i64_array,
    i64_attr,
    require_element,
    shape_of,
    tensor,
    window_defaults,
)


class DenseAttrs(OpAttrs):
    transpose_a = FlagField()
    transpose_b = FlagField()
    alpha = FloatField(1.0)
    beta = FloatField(1.0)


class ConvAttrs(WindowAttrs):
    groups = IntField(1)


class ConvTransposeAttrs(ConvAttrs):
    output_padding = IntsField(None)


# ---------------------------------------------------------- matmul and dense
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
    DEFAULTS: ClassVar[dict[str, Any]] = {"alpha": 1.0, "beta": 1.0}

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
    ATTRS: ClassVar[type[OpAttrs]] = DenseAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        elem = _same_element_type(cls.name, types)
        a, b = shape_of(types[0]), shape_of(types[1])
        if len(a) != 2 or len(b) != 2:
            raise VerifyException(
                f"relay.dense: operands must be 2-D, got ranks {len(a)} and {len(b)}"
            )
        attrs = cls.attrs_of(props)
        m, k = (a[1], a[0]) if attrs.transpose_a else a
        k2, n = (b[1], b[0]) if attrs.transpose_b else b
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


@irdl_op_definition
class DensePackOp(RelayOp):
    """A matrix product whose weight is packed in column panels (TVM's
    `dense_pack`): data `[..., M, K]`, weight `[N/nb, K, nb]` (panel `p` holds
    columns `p*nb ..< (p+1)*nb` of the `K x N` weight, row after row), result
    `[..., M, N]`: `out[..., m, n] = sum(k) data[..., m, k] * weight[n / nb, k,
    n % nb]`. A GEMM micro-kernel reads each panel as one contiguous stream;
    `alter-op-layout` makes it from a product with a constant weight (packed at
    compile time)."""

    name = "relay.dense_pack"
    data = operand_def(TensorType)
    weight = operand_def(TensorType)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        elem = _same_element_type(cls.name, types)
        require_element(cls.name, types[0], floating=True)
        x, w = shape_of(types[0]), shape_of(types[1])
        if len(x) < 2 or len(w) != 3:
            raise VerifyException(
                f"{cls.name}: needs data [..., M, K] and a packed weight [N/nb, K, nb], "
                f"got {types[0]} and {types[1]}"
            )
        if x[-1] != w[1]:
            raise VerifyException(
                f"{cls.name}: contraction dimensions differ: data has {x[-1]} columns, "
                f"the weight's panels {w[1]} rows"
            )
        return tensor([*x[:-1], w[0] * w[2]], elem)


# ---------------------------------------------------------------- convolution
class ConvOp(RelayOp):
    """N-d convolution (NC... layout, weight O x C/groups x kernel...), with
    strides, dilation, padding and groups (depthwise when groups = channels)."""

    DEFAULTS: ClassVar[dict[str, Any]] = {"groups": 1}

    data = operand_def(TensorType)
    weight = operand_def(TensorType)
    strides = opt_prop_def(DenseArrayBase)
    padding = opt_prop_def(DenseArrayBase)
    dilation = opt_prop_def(DenseArrayBase)
    groups = opt_prop_def(IntegerAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    SPATIAL: ClassVar[int] = 2
    ATTRS: ClassVar[type[OpAttrs]] = ConvAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        elem = _same_element_type(cls.name, types)
        require_element(cls.name, types[0], floating=True)
        n = cls.SPATIAL
        x = _nchw(cls.name, types[0], n)
        w = shape_of(types[1])
        groups = cls.attrs_of(props).groups
        if len(w) != n + 2:
            raise VerifyException(
                f"{cls.name}: weight must be {n + 2}-D (out channels, in channels / "
                f"groups, kernel...), got {types[1]}"
            )
        if groups < 1 or x[1] % groups or w[0] % groups or w[1] * groups != x[1]:
            raise VerifyException(
                f"{cls.name}: {x[1]} input channels in {groups} group(s) need a weight "
                f"with {x[1] // max(groups, 1)} input channels and a multiple of "
                f"{groups} output channels, got weight {types[1]}"
            )
        win = Window(cls.name, props, n)
        out = [win.output_size(cls.name, i, x[2 + i], w[2 + i]) for i in range(n)]
        return tensor([x[0], w[0], *out], elem)

    def rebuilt(
        self, data: SSAValue, weight: SSAValue, strides: Sequence[int], dilation: Sequence[int],
        pad_begin: Sequence[int], pad_end: Sequence[int],
    ) -> ConvOp:
        """A convolution of this one's rank and groups over `data` and `weight`
        with the window given (what the graph rewrites of convolutions build)."""
        return type(self)(
            data, weight, strides=i64_array(strides), dilation=i64_array(dilation),
            padding=i64_array([*pad_begin, *pad_end]), groups=i64_attr(self.attrs.groups),
        )


@irdl_op_definition
class Conv1DOp(ConvOp):
    name = "relay.conv1d"
    DEFAULTS: ClassVar[dict[str, Any]] = window_defaults(1)
    SPATIAL: ClassVar[int] = 1


@irdl_op_definition
class Conv2DOp(ConvOp):
    name = "relay.conv2d"
    DEFAULTS: ClassVar[dict[str, Any]] = window_defaults(2)
    SPATIAL: ClassVar[int] = 2


@irdl_op_definition
class Conv3DOp(ConvOp):
    name = "relay.conv3d"
    DEFAULTS: ClassVar[dict[str, Any]] = window_defaults(3)
    SPATIAL: ClassVar[int] = 3


class ConvTransposeOp(RelayOp):
    """N-d transposed convolution (weight C x O/groups x kernel...): output size
    `stride * (in - 1) + output_padding + dilation * (kernel - 1) + 1 - padding`
    (negative padding grows the output, as ONNX's output_shape may ask)."""

    DEFAULTS: ClassVar[dict[str, Any]] = {"groups": 1}

    data = operand_def(TensorType)
    weight = operand_def(TensorType)
    strides = opt_prop_def(DenseArrayBase)
    padding = opt_prop_def(DenseArrayBase)
    dilation = opt_prop_def(DenseArrayBase)
    output_padding = opt_prop_def(DenseArrayBase)
    groups = opt_prop_def(IntegerAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    SPATIAL: ClassVar[int] = 2
    ATTRS: ClassVar[type[OpAttrs]] = ConvTransposeAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        elem = _same_element_type(cls.name, types)
        require_element(cls.name, types[0], floating=True)
        n = cls.SPATIAL
        x = _nchw(cls.name, types[0], n)
        w = shape_of(types[1])
        groups = cls.attrs_of(props).groups
        if len(w) != n + 2 or groups < 1 or w[0] != x[1] or x[1] % groups:
            raise VerifyException(
                f"{cls.name}: weight must be {n + 2}-D with {x[1]} input channels "
                f"(divisible by {groups} group(s)) first, got {types[1]}"
            )
        win = Window(cls.name, props, n, negative_padding=True)
        extra = _spatial(cls.name, "output_padding", cls.attrs_of(props).output_padding, n, 0)
        out = []
        for i in range(n):
            size = (
                win.strides[i] * (x[2 + i] - 1)
                + extra[i]
                + win.dilation[i] * (w[2 + i] - 1)
                + 1
                - win.pad_begin[i]
                - win.pad_end[i]
            )
            if size < 1 or not 0 <= extra[i] < max(win.strides[i], win.dilation[i]):
                raise VerifyException(
                    f"{cls.name}: spatial axis {i} would have size {size} (output "
                    f"padding {extra[i]} must be less than the stride or dilation)"
                )
            out.append(size)
        return tensor([x[0], w[1] * groups, *out], elem)


@irdl_op_definition
class Conv1DTransposeOp(ConvTransposeOp):
    name = "relay.conv1d_transpose"
    DEFAULTS: ClassVar[dict[str, Any]] = {**window_defaults(1), "output_padding": (0,)}
    SPATIAL: ClassVar[int] = 1


@irdl_op_definition
class Conv2DTransposeOp(ConvTransposeOp):
    name = "relay.conv2d_transpose"
    DEFAULTS: ClassVar[dict[str, Any]] = {**window_defaults(2), "output_padding": (0, 0)}
    SPATIAL: ClassVar[int] = 2


@irdl_op_definition
class Conv3DTransposeOp(ConvTransposeOp):
    name = "relay.conv3d_transpose"
    DEFAULTS: ClassVar[dict[str, Any]] = {**window_defaults(3), "output_padding": (0, 0, 0)}
    SPATIAL: ClassVar[int] = 3


#: The convolution and the transposed convolution of each number of spatial axes.
CONV_OPS: dict[int, type[ConvOp]] = {1: Conv1DOp, 2: Conv2DOp, 3: Conv3DOp}
CONV_TRANSPOSE_OPS: dict[int, type[ConvTransposeOp]] = {
    1: Conv1DTransposeOp, 2: Conv2DTransposeOp, 3: Conv3DTransposeOp,
}
