"""Signal converters: DFT as a product with a constant DFT matrix.

The signal axis is moved next to the last (real, imaginary) axis, so that each
signal is one row of interleaved values `[n_in * c_in]` (c_in is 1 for real
input, 2 for complex); a `relay.dense` with the matrix `[n_out * c_out,
n_in * c_in]` (built in f64 at import, any length) maps it to the
interleaved output. The matrix folds in everything else: `dft_length` (rows
past it are zero, missing rows are zero padding), the inverse's sign and 1/n,
the one-sided output (RFFT) and the Hermitian input of the inverse one-sided
transform (IRFFT). O(n^2) per signal, fine for the frame lengths models use.

An axis given at run time (opset 20's input) becomes one branch per axis
(`control.switch`); when the axis decides the output's shape, each branch pads
its result to a common bound and the varying dims become sizes set at run time
(`relay.narrow`), as reductions over run-time axes do.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects.builtin import IntegerType, StringAttr, UnitAttr
from xdsl.ir import Block, Operation, SSAValue

from lamina.dialects import relay
from lamina.dialects.dtypes import numpy_dtype
from lamina.dialects.shapes import dims_attr
from lamina.frontends.onnx.context import NodeContext, constant, shape
from lamina.frontends.onnx.control import switch
from lamina.frontends.onnx.helpers import _cast, _elem, _ints, _reshape
from lamina.frontends.onnx.registry import converter
from lamina.symbolic import Dim

Emit = Callable[[Operation], SSAValue]
Const = Callable[[np.ndarray, str], SSAValue]


class _Transform:
    """One DFT node's settings: which transform, and over what length."""

    def __init__(self, ctx: NodeContext, dims: Sequence[Dim]):
        self.dims = list(dims)
        self.inverse = bool(ctx.attr("inverse", 0))
        self.onesided = bool(ctx.attr("onesided", 0))
        self.length: int | None = None
        if ctx.optional_input(1) is not None:
            if ctx.at_run_time(1):
                raise ctx.error(
                    f"dft_length ('{ctx.node.input[1]}') must be a constant: it sizes the "
                    "output and the DFT matrix (make it an initializer)"
                )
            self.length = _ints(ctx.const_value(1))[0]
            if self.length < 1:
                raise ctx.error(f"dft_length must be >= 1, got {self.length}")

    def signal(self, axis: int) -> int | None:
        """The transform's length along `axis`, None if it has none (an axis
        of symbolic size, or an IRFFT of one input point without dft_length)."""
        n = self.dims[axis]
        if not isinstance(n, int):
            return None
        if self.length is not None:
            return self.length
        length = 2 * (n - 1) if self.inverse and self.onesided else n
        return length if length >= 1 else None

    def out_dims(self, axis: int) -> list[Dim]:
        """The output's shape; an axis without a transform has 0 points."""
        length = self.signal(axis) or 0
        real_out = self.inverse and self.onesided
        n_out = length // 2 + 1 if self.onesided and not self.inverse else length
        return [n_out if a == axis else d for a, d in enumerate(self.dims[:-1])] + [1 if real_out else 2]

    def matrix(self, axis: int) -> np.ndarray:
        """`[n_out * c_out, n_in * c_in]`: interleaved input to interleaved output."""
        n_in, c_in = self.dims[axis], self.dims[-1]
        assert isinstance(n_in, int) and isinstance(c_in, int)
        length = self.signal(axis)
        assert length is not None
        out = self.out_dims(axis)
        n_out, c_out = out[axis], out[-1]
        assert isinstance(n_out, int)
        if self.inverse and self.onesided:  # IRFFT: the input is half a Hermitian spectrum
            used = min(n_in, length // 2 + 1)
            k, n = np.arange(used)[:, None], np.arange(length)[None, :]
            angle = 2 * np.pi * ((k * n) % length) / length
            twice = np.where((k == 0) | (2 * k == length), 1.0, 2.0) / length
            m = np.zeros((n_in, c_in, n_out, 1))
            m[:used, 0, :, 0] = twice * np.cos(angle)
            if c_in == 2:
                m[:used, 1, :, 0] = -twice * np.sin(angle)
        else:
            used = min(n_in, length)
            n, k = np.arange(used)[:, None], np.arange(n_out)[None, :]
            angle = 2 * np.pi * ((k * n) % length) / length
            scale = 1.0 / length if self.inverse else 1.0
            cos, sin = scale * np.cos(angle), scale * np.sin(angle) * (1 if self.inverse else -1)
            m = np.zeros((n_in, c_in, n_out, 2))
            m[:used, 0, :, 0], m[:used, 0, :, 1] = cos, sin
            if c_in == 2:
                m[:used, 1, :, 0], m[:used, 1, :, 1] = -sin, cos
        assert m.shape[2:] == (n_out, c_out)
        return m.reshape(n_in * c_in, n_out * c_out).T

    def apply(self, emit: Emit, const: Const, x: SSAValue, axis: int) -> SSAValue:
        """The DFT of `x` along `axis`, its ops placed by `emit`."""
        rank = len(self.dims)
        order = [a for a in range(rank - 1) if a != axis] + [axis, rank - 1]
        moved = [self.dims[a] for a in order]
        if order != list(range(rank)):
            x = emit(relay.TransposeOp(x, perm=relay.i64_array(order)))
        rows: Dim = 1
        for d in moved[:-2]:
            rows = rows * d
        flat = emit(relay.ReshapeOp(x, shape=dims_attr([rows, moved[-2] * moved[-1]])))
        weights = const(self.matrix(axis).astype(numpy_dtype(_elem(x))), "dft_matrix")
        y = emit(relay.DenseOp(flat, weights, transpose_b=UnitAttr()))
        out = self.out_dims(axis)
        y = emit(relay.ReshapeOp(y, shape=dims_attr([*moved[:-2], out[axis], out[-1]])))
        if order != list(range(rank)):
            y = emit(relay.TransposeOp(y, perm=relay.i64_array(list(np.argsort(order)))))
        return y


@converter(
    "DFT",
    emits=("relay.dense", "relay.transpose", "relay.reshape", "relay.if", "relay.narrow"),
    notes="real or complex input; inverse, onesided (RFFT, IRFFT); a constant dft_length; "
    "the axis as attribute, constant or run-time input",
)
def _dft(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    dims = shape(x)
    rank = len(dims)
    if rank < 2 or dims[-1] not in (1, 2) or not relay.is_float(_elem(x)):
        raise ctx.error(
            f"input must be floating-point [..., 1] (real) or [..., 2] (complex) of rank >= 2, "
            f"got shape {list(dims)} of {numpy_dtype(_elem(x))}"
        )
    t = _Transform(ctx, dims)

    def axis_of(a: int) -> int:
        if not (-rank <= a <= -2 or 0 <= a <= rank - 2):
            raise ctx.error(f"axis {a} is outside [{-rank}, -2] and [0, {rank - 2}] (the last axis holds the complex parts)")
        a %= rank
        if t.signal(a) is None:
            raise ctx.error(
                f"axis {a} (of size {dims[a]}) has no DFT length: it must be static, and an "
                "inverse one-sided DFT of one point needs dft_length"
            )
        return a

    if ctx.opset < 20:
        axis = axis_of(int(ctx.attr("axis", 1)))
    elif ctx.optional_input(2) is None:
        axis = axis_of(-2)
    elif not ctx.at_run_time(2):
        axis = axis_of(_ints(ctx.const_value(2))[0])
    else:
        return [_runtime_axis(ctx, t, x)]
    return [t.apply(ctx.emit, ctx.constant, x, axis)]


def _runtime_axis(ctx: NodeContext, t: _Transform, x: SSAValue) -> SSAValue:
    """The DFT along an axis known when the model runs: one branch per axis
    (a value out of range takes the last). An axis without a transform (an
    IRFFT of one point, which ONNX leaves undefined) gives an empty output."""
    rank = len(t.dims)
    axes = list(range(rank - 1))
    symbolic = [a for a in axes if not isinstance(t.dims[a], int)]
    if symbolic:
        raise ctx.error(
            f"its axis is a run-time input, and axes {symbolic} (of shape {t.dims}) have "
            "symbolic sizes, which a DFT matrix cannot have; make the axis a constant or "
            "those sizes static"
        )
    outs = {a: t.out_dims(a) for a in axes}
    bound = [max(o[j] for o in outs.values()) for j in range(rank)]  # type: ignore[type-var]
    varying = [j for j in range(rank) if len({o[j] for o in outs.values()}) > 1]

    def branch(axis: int, block: Block, args: list[SSAValue]) -> list[SSAValue]:
        def emit(op: Operation) -> SSAValue:
            block.add_op(op)
            return op.results[0]

        def const(value: np.ndarray, name: str) -> SSAValue:
            return constant(None, block, value, name)

        got = outs[axis]
        if t.signal(axis) is None:  # nothing to transform: zeros, narrowed to nothing
            zero = const(np.zeros((), numpy_dtype(_elem(x))), "zero")
            y = emit(relay.BroadcastToOp(zero, shape=dims_attr(bound)))
        else:
            y = t.apply(emit, const, args[0], axis)
            if got != bound:
                grow = [b - g for b, g in zip(bound, got, strict=True)]  # type: ignore[operator]
                y = emit(relay.PadOp(y, pad_width=relay.i64_array([0] * rank + grow)))
        return [y, *(const(np.array(got[j], np.int64), "dft_dim") for j in varying)]

    selector = _cast(ctx, _reshape(ctx, ctx.input(2), []), IntegerType(64))
    cases = [((a, a - rank), a) for a in axes]
    y, *counts = switch(ctx, selector, cases, [x], branch)
    for j, count in zip(varying, counts, strict=True):
        size = StringAttr(ctx.fresh_size("dft"))
        y = ctx.emit(relay.NarrowOp(y, count, axis=relay.i64_attr(j), size=size))
    return y
