"""Neural-network ops: softmax and log-softmax, `relay.bias_add`, N-d max and
average pooling (and max pooling with argmax indices), and the normalizations
(batch, layer, instance norm and local response normalization).

Pooling shares the `Window` geometry with the convolutions; the normalizations
check their per-channel (or per-normalized-shape) parameters against the data.
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
    i64,
)
from xdsl.ir import Attribute
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from lamina.dialects.relay.base import (
    _FLOATING,
    _NUMERIC,
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
    normalize_axis,
    require_element,
    shape_of,
    tensor,
    window_defaults,
)


class SoftmaxAttrs(OpAttrs):
    axis = IntField(-1)


class SafeSoftmaxAttrs(SoftmaxAttrs):
    safe = FlagField()


class BiasAddAttrs(OpAttrs):
    axis = IntField(1)


class PoolAttrs(WindowAttrs):
    pool_size = IntsField(None)
    ceil_mode = FlagField()


class AvgPoolAttrs(PoolAttrs):
    count_include_pad = FlagField()


class ArgmaxPoolAttrs(PoolAttrs):
    column_major = FlagField()


class EpsilonAttrs(OpAttrs):
    epsilon = FloatField(1e-5)


class NormAttrs(EpsilonAttrs):
    axis = IntField(1)


class LayerNormAttrs(NormAttrs):
    axis = IntField(-1)


class LRNAttrs(OpAttrs):
    size = IntField(1)
    axis = IntField(1)
    alpha = FloatField(1e-4)
    beta = FloatField(0.75)
    bias = FloatField(1.0)


# -------------------------------------------------------------------- softmax
class SoftmaxBase(RelayOp):
    data = operand_def(TensorType)
    axis = prop_def(IntegerAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    ATTRS: ClassVar[type[OpAttrs]] = SoftmaxAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        require_element(cls.name, types[0], floating=True)
        normalize_axis(cls.name, cls.attrs_of(props).axis, len(shape_of(types[0])))
        return types[0]


@irdl_op_definition
class SoftmaxOp(SoftmaxBase):
    """softmax along one axis (ONNX opset >= 13 semantics). With `safe`
    (PyTorch's `_safe_softmax`, what its attention decomposes to), a slice
    whose every element is -inf gives zeros, not NaN."""

    name = "relay.softmax"
    safe = opt_prop_def(UnitAttr)
    ATTRS: ClassVar[type[OpAttrs]] = SafeSoftmaxAttrs


@irdl_op_definition
class LogSoftmaxOp(SoftmaxBase):
    """log(softmax) along one axis, computed as `x - max - log(sum(exp(x - max)))`."""

    name = "relay.log_softmax"


@irdl_op_definition
class BiasAddOp(RelayOp):
    """Add a 1-D bias along `axis` (1 by default)."""

    name = "relay.bias_add"
    DEFAULTS: ClassVar[dict[str, Any]] = {"axis": 1}

    data = operand_def(TensorType)
    bias = operand_def(TensorType)
    axis = opt_prop_def(IntegerAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.BROADCAST
    ATTRS: ClassVar[type[OpAttrs]] = BiasAddAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        _same_element_type(cls.name, types)
        shape = shape_of(types[0])
        axis = normalize_axis(cls.name, cls.attrs_of(props).axis, len(shape))
        if shape_of(types[1]) != (shape[axis],):
            raise VerifyException(
                f"{cls.name}: bias must be 1-D of size {shape[axis]} (axis {axis} of "
                f"the data), got {types[1]}"
            )
        return types[0]


class PoolOp(RelayOp):
    """N-d pooling over the spatial axes of NC... data. `ceil_mode` rounds the
    output size up (the last window must start inside the input or its padding)."""

    data = operand_def(TensorType)
    pool_size = prop_def(DenseArrayBase)
    strides = opt_prop_def(DenseArrayBase)
    padding = opt_prop_def(DenseArrayBase)
    dilation = opt_prop_def(DenseArrayBase)
    ceil_mode = opt_prop_def(UnitAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    SPATIAL: ClassVar[int] = 2
    ELEMENTS: ClassVar[dict[str, bool]] = _NUMERIC
    ATTRS: ClassVar[type[OpAttrs]] = PoolAttrs

    @classmethod
    def spatial(cls, data: TensorType) -> int:
        """The number of spatial axes the op pools over."""
        return cls.SPATIAL

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        require_element(cls.name, types[0], **cls.ELEMENTS)
        n = cls.spatial(types[0])
        x = _nchw(cls.name, types[0], n)
        attrs = cls.attrs_of(props)
        kernel = _spatial(cls.name, "pool_size", attrs.pool_size, n, 1)
        if any(k < 1 for k in kernel):
            raise VerifyException(f"{cls.name}: pool_size {list(kernel)} must be positive")
        win = Window(cls.name, props, n)
        ceil = attrs.ceil_mode
        out = [win.output_size(cls.name, i, x[2 + i], kernel[i], ceil) for i in range(n)]
        return tensor([x[0], x[1], *out], types[0].get_element_type())


class MaxPoolOp(PoolOp):
    """Maximum over each window; padding never wins (it is -inf)."""


class AvgPoolOp(PoolOp):
    """Mean over each window: over the window's positions inside the padded input
    with `count_include_pad`, else over those inside the input."""

    count_include_pad = opt_prop_def(UnitAttr)
    ELEMENTS: ClassVar[dict[str, bool]] = _FLOATING
    ATTRS: ClassVar[type[OpAttrs]] = AvgPoolAttrs


@irdl_op_definition
class MaxPoolWithArgmaxOp(MaxPoolOp):
    """N-d max pooling that also returns, for each window, the flat index (i64)
    into the data of its first maximum: row-major, or with `column_major` the
    spatial axes in column-major order (ONNX MaxPool's Indices)."""

    name = "relay.max_pool_with_argmax"
    indices = result_def(TensorType)
    column_major = opt_prop_def(UnitAttr)
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    ATTRS: ClassVar[type[OpAttrs]] = ArgmaxPoolAttrs

    @classmethod
    def spatial(cls, data: TensorType) -> int:
        return max(data.get_num_dims() - 2, 1)

    @classmethod
    def infer(
        cls, types: list[TensorType], props: dict[str, Attribute]
    ) -> list[TensorType]:
        values = super().infer(types, props)
        assert isinstance(values, TensorType)
        return [values, tensor(shape_of(values), i64)]


@irdl_op_definition
class MaxPool1DOp(MaxPoolOp):
    name = "relay.max_pool1d"
    DEFAULTS: ClassVar[dict[str, Any]] = window_defaults(1)
    SPATIAL: ClassVar[int] = 1


@irdl_op_definition
class MaxPool2DOp(MaxPoolOp):
    name = "relay.max_pool2d"
    DEFAULTS: ClassVar[dict[str, Any]] = window_defaults(2)
    SPATIAL: ClassVar[int] = 2


@irdl_op_definition
class MaxPool3DOp(MaxPoolOp):
    name = "relay.max_pool3d"
    DEFAULTS: ClassVar[dict[str, Any]] = window_defaults(3)
    SPATIAL: ClassVar[int] = 3


@irdl_op_definition
class AvgPool1DOp(AvgPoolOp):
    name = "relay.avg_pool1d"
    DEFAULTS: ClassVar[dict[str, Any]] = window_defaults(1)
    SPATIAL: ClassVar[int] = 1


@irdl_op_definition
class AvgPool2DOp(AvgPoolOp):
    name = "relay.avg_pool2d"
    DEFAULTS: ClassVar[dict[str, Any]] = window_defaults(2)
    SPATIAL: ClassVar[int] = 2


@irdl_op_definition
class AvgPool3DOp(AvgPoolOp):
    name = "relay.avg_pool3d"
    DEFAULTS: ClassVar[dict[str, Any]] = window_defaults(3)
    SPATIAL: ClassVar[int] = 3


def _channel_params(
    op_name: str, types: Sequence[TensorType], channels: int, names: Sequence[str]
) -> None:
    for t, what in zip(types, names, strict=True):
        if shape_of(t) != (channels,):
            raise VerifyException(
                f"{op_name}: {what} must be 1-D of size {channels} (one per channel), "
                f"got {t}"
            )


@irdl_op_definition
class BatchNormOp(RelayOp):
    """Inference batch normalization along `axis` (1 by default):
    `(x - mean) / sqrt(var + epsilon) * gamma + beta`."""

    name = "relay.batch_norm"
    DEFAULTS: ClassVar[dict[str, Any]] = {"axis": 1, "epsilon": 1e-5}

    data = operand_def(TensorType)
    gamma = operand_def(TensorType)
    beta = operand_def(TensorType)
    moving_mean = operand_def(TensorType)
    moving_var = operand_def(TensorType)
    axis = opt_prop_def(IntegerAttr)
    epsilon = opt_prop_def(FloatAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.BROADCAST
    ATTRS: ClassVar[type[OpAttrs]] = NormAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        _same_element_type(cls.name, types)
        require_element(cls.name, types[0], floating=True)
        shape = shape_of(types[0])
        axis = normalize_axis(cls.name, cls.attrs_of(props).axis, len(shape))
        _channel_params(
            cls.name, types[1:], shape[axis], ("gamma", "beta", "moving_mean", "moving_var")
        )
        return types[0]


@irdl_op_definition
class LayerNormOp(RelayOp):
    """Normalize over the trailing axes from `axis` (-1 by default) to zero mean and
    unit variance, then scale by `gamma` and shift by `beta` (both broadcast to the
    normalized shape), as ONNX LayerNormalization."""

    name = "relay.layer_norm"
    DEFAULTS: ClassVar[dict[str, Any]] = {"axis": -1, "epsilon": 1e-5}

    data = operand_def(TensorType)
    gamma = operand_def(TensorType)
    beta = opt_operand_def(TensorType)
    axis = opt_prop_def(IntegerAttr)
    epsilon = opt_prop_def(FloatAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    ATTRS: ClassVar[type[OpAttrs]] = LayerNormAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        _same_element_type(cls.name, types)
        require_element(cls.name, types[0], floating=True)
        shape = shape_of(types[0])
        axis = normalize_axis(cls.name, cls.attrs_of(props).axis, len(shape))
        inner = shape[axis:]
        for t, what in zip(types[1:], ("gamma", "beta"), strict=False):
            if broadcast_shapes(cls.name, inner, shape_of(t)) != inner:
                raise VerifyException(
                    f"{cls.name}: {what} {t} must broadcast to the normalized shape "
                    f"{list(inner)}"
                )
        return types[0]


@irdl_op_definition
class InstanceNormOp(RelayOp):
    """Normalize each (batch, channel) slice over the spatial axes, then scale and
    shift per channel."""

    name = "relay.instance_norm"
    DEFAULTS: ClassVar[dict[str, Any]] = {"epsilon": 1e-5}

    data = operand_def(TensorType)
    gamma = operand_def(TensorType)
    beta = operand_def(TensorType)
    epsilon = opt_prop_def(FloatAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    ATTRS: ClassVar[type[OpAttrs]] = EpsilonAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        _same_element_type(cls.name, types)
        require_element(cls.name, types[0], floating=True)
        shape = shape_of(types[0])
        if len(shape) < 3:
            raise VerifyException(
                f"{cls.name}: data must have a batch, a channel and at least one "
                f"spatial axis, got {types[0]}"
            )
        _channel_params(cls.name, types[1:], shape[1], ("gamma", "beta"))
        return types[0]


@irdl_op_definition
class LRNOp(RelayOp):
    """Local response normalization across channels (`axis`, 1 by default):
    `x / (bias + alpha / size * sum(x^2 over size neighbours)) ** beta`."""

    name = "relay.lrn"
    DEFAULTS: ClassVar[dict[str, Any]] = {"axis": 1, "alpha": 1e-4, "beta": 0.75, "bias": 1.0}

    data = operand_def(TensorType)
    size = prop_def(IntegerAttr)
    axis = opt_prop_def(IntegerAttr)
    alpha = opt_prop_def(FloatAttr)
    beta = opt_prop_def(FloatAttr)
    bias = opt_prop_def(FloatAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    ATTRS: ClassVar[type[OpAttrs]] = LRNAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        attrs = cls.attrs_of(props)
        require_element(cls.name, types[0], floating=True)
        normalize_axis(cls.name, attrs.axis, len(shape_of(types[0])))
        if attrs.size < 1:
            raise VerifyException(f"{cls.name}: size must be positive")
        return types[0]
