"""Signal converters: DFT as a product with a constant DFT matrix; STFT and
MelWeightMatrix over index ranges.

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

import math
from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects.builtin import IntegerType, StringAttr, UnitAttr, f64
from xdsl.ir import Block, Operation, SSAValue

from lamina.dialects import relay
from lamina.dialects.dtypes import numpy_dtype
from lamina.dialects.shapes import dims_attr
from lamina.frontends.onnx import runtime_shapes as rs
from lamina.frontends.onnx.context import NodeContext, constant, shape
from lamina.frontends.onnx.control import switch
from lamina.frontends.onnx.helpers import _cast, _dtype, _elem, _ints, _reshape
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


# ------------------------------------------------------------ STFT, MelWeightMatrix
Count = int | SSAValue


def _scalar(ctx: NodeContext, i: int, what: str) -> Count:
    """Scalar input `i` as an int when it is a constant, else as an i64 scalar
    read when the model runs."""
    if math.prod(d if isinstance(d, int) else 2 for d in shape(ctx.input(i))) != 1:
        raise ctx.error(f"{what} ('{ctx.node.input[i]}') must be a scalar, got {ctx.input(i).type}")
    if ctx.at_run_time(i):
        return rs.ShapeMath(ctx).i64(_reshape(ctx, ctx.input(i), []))
    return _ints(ctx.const_value(i))[0]


def _iota(ctx: NodeContext, n: Count, what: str) -> SSAValue:
    """`[0, n)` as i64: a constant for a known `n`, else over a size set by the data."""
    if isinstance(n, int):
        return ctx.constant(np.arange(n, dtype=np.int64))
    return rs.arange(ctx, n, what)


def _column(m: rs.ShapeMath, v: SSAValue, axis: int, rank: int) -> SSAValue:
    """1-D `v` laid along `axis` of a rank-`rank` tensor of ones elsewhere."""
    return m.reshape(v, [shape(v)[0] if a == axis else 1 for a in range(rank)])


@converter(
    "STFT",
    emits=("relay.take", "relay.dense", "relay.dyn_arange", "relay.cos", "relay.sin"),
    notes="real or complex signal, onesided; frame step, length and window constant or given at run time",
)
def _stft(ctx: NodeContext) -> Sequence[SSAValue]:
    """Frames `f * step + t` of the signal (`relay.take`), times the window,
    then a product with the DFT matrix `[bins * 2, window * c]` (cosines and
    sines of `2 pi ((t k) mod n) / n`, zero for `t >= n`), built from index
    ranges: folded to a constant when the sizes are known, computed when the
    model runs otherwise (the frames and bins then sizes set by the data)."""
    x = ctx.input(0)
    dims = shape(x)
    if len(dims) != 3 or dims[-1] not in (1, 2) or not relay.is_float(_elem(x)):
        raise ctx.error(
            f"signal must be floating-point [batch, length, 1] (real) or [batch, length, 2] "
            f"(complex), got shape {list(dims)} of {numpy_dtype(_elem(x))}"
        )
    batch, length, parts = dims
    m = rs.ShapeMath(ctx)
    step = _scalar(ctx, 1, "frame_step")
    window = ctx.optional_input(2)
    n: Count | None = _scalar(ctx, 3, "frame_length") if ctx.optional_input(3) is not None else None
    if window is not None:
        (w_size,) = shape(window) if len(shape(window)) == 1 else (None,)
        if not isinstance(w_size, int):
            raise ctx.error(f"window must be 1-D of a static size, got {window.type}")
        if n is None:
            n = w_size
    else:
        if n is None:  # one frame: the whole signal
            n = length if isinstance(length, int) else m.dim(length)
        w_size = n
    if (isinstance(step, int) and step < 1) or (isinstance(n, int) and n < 1):
        raise ctx.error(f"frame_step and frame_length must be >= 1, got {step} and {n}")
    if not isinstance(step, int) or not isinstance(n, int):
        sizes_ok = m.and_(m.le(1, step), m.le(1, n))
        step = m.check(m.v(step), sizes_ok, "frame_step and frame_length must be >= 1")
    onesided = bool(ctx.attr("onesided", 1))
    if isinstance(length, int) and isinstance(step, int) and isinstance(n, int):
        frames: Count = max(0, (length - n) // step + 1)
    else:
        span = m.sub(m.dim(length), n)
        frames = m.where(m.le(0, span), m.add(m.div(span, step), 1), 0)
    bins: Count = n // 2 + 1 if onesided and isinstance(n, int) else n
    if onesided and not isinstance(n, int):
        bins = m.add(m.div(n, 2), 1)

    # The frames: [batch, frames, w_size, parts], zero past the signal's end.
    f, t, k = _iota(ctx, frames, "frames"), _iota(ctx, w_size, "taps"), _iota(ctx, bins, "bins")
    taps = shape(t)[0]
    at = m.add(m.mul(_column(m, f, 0, 2), step), _column(m, t, 1, 2))
    last = m.sub(m.dim(length), 1)
    framed = ctx.emit(relay.TakeOp(x, m.min(at, last), axis=relay.i64_attr(1)))
    gain: SSAValue | None = None
    if window is not None:
        gain = _cast(ctx, window, _elem(x))
    if not (isinstance(w_size, int) and isinstance(n, int) and isinstance(length, int) and isinstance(step, int)
            and isinstance(frames, int) and (frames - 1) * step + w_size <= length):
        inside = _cast(ctx, m.le(at, last), _elem(x))  # [frames, w_size]
        gain = inside if gain is None else m.mul(inside, _column(m, gain, 1, 2))
    if gain is not None:
        framed = m.mul(framed, m.reshape(gain, [*([1] * (4 - len(shape(gain)) - 1)), *shape(gain), 1]))

    # The DFT matrix [bins, 2, w_size, parts]: sample t of a frame adds to bin k.
    turns = m.mod(m.mul(_column(m, k, 0, 2), _column(m, t, 1, 2)), n)
    angle = m.div(m.mul(_cast(ctx, turns, f64), m.v(2 * np.pi, f64)), _cast(ctx, m.v(n), f64))
    used = _cast(ctx, m.lt(_column(m, t, 1, 2), n), f64)  # a window past the DFT size is cut
    cos = m.reshape(m.mul(ctx.emit(relay.CosOp(angle)), used), [shape(k)[0], 1, taps, 1])
    sin = m.reshape(m.mul(ctx.emit(relay.SinOp(angle)), used), [shape(k)[0], 1, taps, 1])
    minus_sin = ctx.emit(relay.NegativeOp(sin))

    def cat(parts_: Sequence[SSAValue], axis: int) -> SSAValue:
        return ctx.emit(relay.ConcatenateOp(*parts_, axis=relay.i64_attr(axis)))

    if parts == 1:  # re = x cos, im = -x sin
        matrix = cat([cos, minus_sin], 1)
    else:  # re = xr cos + xi sin, im = xi cos - xr sin
        matrix = cat([cat([cos, sin], 3), cat([minus_sin, cos], 3)], 1)
    out_bins = shape(k)[0]
    matrix = m.reshape(_cast(ctx, matrix, _elem(x)), [out_bins * 2, taps * parts])
    rows = m.reshape(framed, [batch * shape(f)[0], taps * parts])
    y = ctx.emit(relay.DenseOp(rows, matrix, transpose_b=UnitAttr()))
    return [m.reshape(y, [batch, shape(f)[0], out_bins, 2])]


_LN10 = math.log(10.0)


@converter(
    "MelWeightMatrix",
    emits=("relay.dyn_arange", "relay.exp", "relay.floor", "relay.where"),
    notes="every input constant or given at run time",
)
def _mel_weight_matrix(ctx: NodeContext) -> Sequence[SSAValue]:
    """ONNX's triangular mel filters `[dft_length / 2 + 1, num_mel_bins]`:
    filter i rises from edge i to i + 1 and falls to i + 2, the edges evenly
    spaced in mel between the two given frequencies, each floored to a DFT
    bin; computed in f64 over index ranges (a constant once folded, when the
    sizes are known)."""
    m = rs.ShapeMath(ctx)
    mels = _scalar(ctx, 0, "num_mel_bins")
    dft = _scalar(ctx, 1, "dft_length")
    if (isinstance(mels, int) and mels < 0) or (isinstance(dft, int) and dft < 0):
        raise ctx.error(f"num_mel_bins and dft_length must be non-negative, got {mels} and {dft}")
    if not isinstance(mels, int) or not isinstance(dft, int):
        ok = m.and_(m.le(0, mels), m.le(0, dft))
        mels = m.check(m.v(mels), ok, "num_mel_bins and dft_length must be non-negative")
    spectrum: Count = dft // 2 + 1 if isinstance(dft, int) else m.add(m.div(dft, 2), 1)
    out = _dtype(ctx, int(ctx.attr("output_datatype", 1)))

    def real(i: int) -> SSAValue:
        v = ctx.input(i)
        if math.prod(d if isinstance(d, int) else 2 for d in shape(v)) != 1:
            raise ctx.error(f"input #{i} ('{ctx.node.input[i]}') must be a scalar, got {v.type}")
        return _cast(ctx, _reshape(ctx, v, []), f64)

    def mel(hertz: SSAValue) -> SSAValue:  # 2595 log10(1 + f / 700)
        ln = ctx.emit(relay.LogOp(m.add(m.div(hertz, m.v(700.0, f64)), m.v(1.0, f64))))
        return m.mul(ln, m.v(2595 / _LN10, f64))

    rate, low, high = real(2), mel(real(3)), mel(real(4))
    step = m.div(m.sub(high, low), _cast(ctx, m.add(m.v(mels), 2), f64))
    i = _cast(ctx, _iota(ctx, mels, "mel"), f64)

    def edge(offset: int) -> SSAValue:  # floor((dft + 1) 700 (10^(mel / 2595) - 1) / rate), row [1, mels]
        at = m.add(m.mul(m.add(i, m.v(float(offset), f64)), step), low)
        hertz = m.mul(m.sub(ctx.emit(relay.ExpOp(m.mul(at, m.v(_LN10 / 2595, f64)))), m.v(1.0, f64)), m.v(700.0, f64))
        scaled = m.div(m.mul(_cast(ctx, m.add(m.v(dft), 1), f64), hertz), rate)
        return _column(m, ctx.emit(relay.FloorOp(scaled)), 1, 2)

    left, center, right = edge(0), edge(1), edge(2)
    j = _column(m, _cast(ctx, _iota(ctx, spectrum, "spectrum"), f64), 0, 2)
    rise, fall = m.sub(center, left), m.sub(right, center)
    up = m.where(
        m.eq(rise, m.v(0.0, f64)),
        _cast(ctx, m.eq(j, center), f64),
        m.where(m.and_(m.le(left, j), m.le(j, center)), m.div(m.sub(j, left), rise), m.v(0.0, f64)),
    )
    down = m.and_(m.lt(m.v(0.0, f64), fall), m.and_(m.le(center, j), m.lt(j, right)))
    return [_cast(ctx, m.where(down, m.div(m.sub(right, j), fall), up), out)]
