"""Recurrent converters: RNN, GRU and LSTM as a `relay.loop` over the sequence.

Everything that does not depend on the state is computed once, before the
loop: the input projection of every step and direction is one batched product
(`[dirs, seq, batch, input] x W^T`, plus the biases it can hold: `Wb + Rb`
but GRU's `Rbh` under `linear_before_reset`), `[dirs, seq, batch, gates *
hidden]`. The loop's body is one step of both directions at once: the
step's row of the projection (`relay.take` at the iteration), `h @ R^T` as one
batched `relay.matmul` over the directions, then the gates with elementwise
ops (peepholes, `clip`, the activations Sigmoid, Tanh, Relu, LeakyRelu,
HardSigmoid, Elu, Softplus, Affine and ScaledTanh with their alpha/beta, one
set per direction). The hidden (and cell) state are the loop-carried values,
the hidden state also its scan output: `Y` is the stack, `Y_h`/`Y_c` the final
state. The trip count is the sequence length, static or symbolic: one compile
runs any length. Layout 1 (batch first) is transposed to time-major and back.

The reverse direction runs forward over the sequence reversed
(`relay.reverse_sequence`, per batch entry up to its length), and its outputs
are reversed back: so both directions step together. `sequence_lens` (a
constant or a run-time value) masks the steps: a step at or past a batch
entry's length keeps its state, and `Y` is zero there, so `Y_h` (and `Y_c`)
hold the state after the entry's last valid step, or zeros for an entry of
length 0 (onnxruntime's answer); reversed up to its length, an entry's
reverse direction starts at its own last valid step.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects.builtin import IntegerType, TensorType, i1
from xdsl.ir import Block, Region, SSAValue

from lamina.dialects import relay
from lamina.dialects.dtypes import numpy_dtype
from lamina.dialects.shapes import dims_attr
from lamina.frontends.onnx.attention import dim_scalar, static_differ
from lamina.frontends.onnx.context import NodeContext, shape
from lamina.frontends.onnx.helpers import _cast, _elem, _ints, _reshape, _scalar
from lamina.frontends.onnx.registry import converter
from lamina.symbolic import Dim

I64 = IntegerType(64)

#: Gates per cell, and the activations a cell applies by default.
_GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}
_DEFAULT_ACTIVATIONS = {"RNN": ["Tanh"], "GRU": ["Sigmoid", "Tanh"], "LSTM": ["Sigmoid", "Tanh", "Tanh"]}
_SUPPORTED = "Sigmoid, Tanh, Relu, LeakyRelu, HardSigmoid, Elu, Softplus, Affine, ScaledTanh"

#: An activation: emits `f(x)` into a context (the loop's body, or the graph).
Act = Callable[[NodeContext, SSAValue], SSAValue]
#: One activation as the node names it: (name, alpha, beta).
ActSpec = tuple[str, float | None, float | None]


# ------------------------------------------------------------ small emitters
def _add(ctx: NodeContext, a: SSAValue, b: SSAValue) -> SSAValue:
    return ctx.emit(relay.AddOp(a, b))


def _mul(ctx: NodeContext, a: SSAValue, b: SSAValue) -> SSAValue:
    return ctx.emit(relay.MultiplyOp(a, b))


def _slice(ctx: NodeContext, x: SSAValue, axis: int, begin: Dim, end: Dim) -> SSAValue:
    """`x[..., begin:end, ...]` along `axis`."""
    dims = shape(x)
    if begin == 0 and end == dims[axis]:
        return x
    lo = [begin if a == axis else 0 for a in range(len(dims))]
    hi = [end if a == axis else d for a, d in enumerate(dims)]
    return ctx.emit(relay.StridedSliceOp(x, begin=dims_attr(lo), end=dims_attr(hi)))


def _concat(ctx: NodeContext, xs: Sequence[SSAValue], axis: int) -> SSAValue:
    return xs[0] if len(xs) == 1 else ctx.emit(relay.ConcatenateOp(*xs, axis=relay.i64_attr(axis)))


def _transpose(ctx: NodeContext, x: SSAValue, perm: Sequence[int]) -> SSAValue:
    return ctx.emit(relay.TransposeOp(x, perm=relay.i64_array(list(perm))))


def _activation(ctx: NodeContext, spec: ActSpec) -> Act:
    """ONNX's recurrent activation `name` with its alpha and beta (defaults where None)."""
    name, alpha, beta = spec

    def a(default: float) -> float:
        return default if alpha is None else alpha

    def b(default: float) -> float:
        return default if beta is None else beta

    def affine(c: NodeContext, x: SSAValue) -> SSAValue:
        return _add(c, _mul(c, x, _scalar(c, a(1.0), x)), _scalar(c, b(0.0), x))

    def scaled_tanh(c: NodeContext, x: SSAValue) -> SSAValue:
        inner = c.emit(relay.TanhOp(_mul(c, x, _scalar(c, b(1.0), x))))
        return _mul(c, inner, _scalar(c, a(1.0), x))

    table: dict[str, Act] = {
        "sigmoid": lambda c, x: c.emit(relay.SigmoidOp(x)),
        "tanh": lambda c, x: c.emit(relay.TanhOp(x)),
        "relu": lambda c, x: c.emit(relay.ReluOp(x)),
        "leakyrelu": lambda c, x: c.emit(relay.LeakyReluOp(x, alpha=relay.f64_attr(a(0.01)))),
        "hardsigmoid": lambda c, x: c.emit(
            relay.HardSigmoidOp(x, alpha=relay.f64_attr(a(0.2)), beta=relay.f64_attr(b(0.5)))
        ),
        "elu": lambda c, x: c.emit(relay.EluOp(x, alpha=relay.f64_attr(a(1.0)))),
        "softplus": lambda c, x: c.emit(relay.SoftplusOp(x)),
        "affine": affine,
        "scaledtanh": scaled_tanh,
    }
    fn = table.get(name.lower())
    if fn is None:
        raise ctx.unsupported(f"activation {name} is not supported (supported: {_SUPPORTED})")
    return fn


# ------------------------------------------------------------ the loop's inputs
@dataclasses.dataclass
class _Inputs:
    """What a step reads besides the state, direction-major: the input
    projection `xw [dirs, seq, batch, gates * hidden]`, `R^T` as `rt [dirs,
    hidden, gates * hidden]` (a GRU without `linear_before_reset`: only the z
    and r gates', its h gate's in `rh [dirs, hidden, hidden]`), GRU's `Rbh
    [dirs, 1, hidden]` under `linear_before_reset`, the peepholes `[dirs, 1, 3
    * hidden]` and the lengths as an i64 `[batch, 1]`."""

    xw: SSAValue
    rt: SSAValue
    rh: SSAValue | None = None
    rbh: SSAValue | None = None
    peep: SSAValue | None = None
    lens: SSAValue | None = None

    _FIELDS = ("xw", "rt", "rh", "rbh", "peep", "lens")

    def values(self) -> list[SSAValue]:
        return [v for v in (getattr(self, f) for f in self._FIELDS) if v is not None]

    def rebound(self, values: Sequence[SSAValue]) -> _Inputs:
        """The same inputs as `values` (the loop body's arguments, in `values()`'s order)."""
        it = iter(values)
        return _Inputs(**{f: None if getattr(self, f) is None else next(it) for f in self._FIELDS})


class _Cell:
    """Emits one recurrent node's ops."""

    def __init__(self, ctx: NodeContext):
        self.ctx = ctx
        self.op = ctx.node.op_type
        self.gates = _GATES[self.op]
        self.hidden: int = int(ctx.attr("hidden_size", 0)) or int(shape(ctx.input(2))[-1])
        clip = ctx.attr("clip")
        self.clip = None if clip is None else float(clip)
        self.linear_before_reset = self.op == "GRU" and bool(int(ctx.attr("linear_before_reset", 0)))
        direction = str(ctx.attr("direction", "forward"))
        if direction not in ("forward", "reverse", "bidirectional"):
            raise ctx.error(f'direction="{direction}" is not forward, reverse or bidirectional')
        self.dirs = 2 if direction == "bidirectional" else 1
        #: Per direction, whether it runs over the sequence reversed.
        self.reversed = [direction == "reverse" or d == 1 for d in range(self.dirs)]
        self.batch_first = int(ctx.attr("layout", 0)) == 1
        if int(ctx.attr("input_forget", 0)):
            raise ctx.unsupported("input_forget=1 is not supported")
        #: Per activation slot of the cell (f, g, h), one spec per direction.
        self.acts = self.activation_specs()

    # --- attributes and inputs --------------------------------------------
    def activation_specs(self) -> list[list[ActSpec]]:
        per = len(_DEFAULT_ACTIVATIONS[self.op])
        given = self.ctx.attr("activations", [])
        names = [n.decode() if isinstance(n, bytes) else str(n) for n in given] or _DEFAULT_ACTIVATIONS[self.op] * self.dirs
        if len(names) != per * self.dirs:
            raise self.ctx.error(f"needs {per * self.dirs} activations ({per} per direction), got {names}")
        alphas = list(self.ctx.attr("activation_alpha", []))
        betas = list(self.ctx.attr("activation_beta", []))
        specs: list[ActSpec] = [
            (n, alphas[i] if i < len(alphas) else None, betas[i] if i < len(betas) else None)
            for i, n in enumerate(names)
        ]
        for spec in specs:
            _activation(self.ctx, spec)  # refuses an unknown name now
        return [[specs[d * per + k] for d in range(self.dirs)] for k in range(per)]

    def given(self, i: int) -> bool:
        return len(self.ctx.node.input) > i and bool(self.ctx.node.input[i])

    def weight(self, i: int, name: str, dims: Sequence[Dim]) -> SSAValue:
        """Input `i`, checked to be `dims`."""
        v = self.ctx.input(i)
        if static_differ(shape(v), dims):
            raise self.ctx.error(f"{name} has shape {list(shape(v))}, expected {list(dims)}")
        return v

    def sequence_lens(self, seq: Dim, batch: Dim) -> SSAValue | None:
        """`sequence_lens` as an i64 `[batch]`, or None when every entry runs
        the whole sequence (no input, or a constant of `seq`s)."""
        ctx = self.ctx
        if not self.given(4):
            return None
        lens = ctx.input(4)
        if static_differ(shape(lens), (batch,)):
            raise ctx.error(f"sequence_lens has shape {list(shape(lens))}, expected [{batch}] (one length per batch entry)")
        if not relay.is_int(_elem(lens)):
            raise ctx.error(f"sequence_lens must be an integer tensor, got {numpy_dtype(_elem(lens))}")
        if ctx.is_const(4):
            values = _ints(ctx.const_value(4))
            if isinstance(seq, int) and any(not 0 <= n <= seq for n in values):
                raise ctx.error(f"sequence_lens {values} must lie in 0..{seq} (the sequence length)")
            if all(n == seq for n in values):
                return None
        return _cast(ctx, lens, I64)

    def initial(self, i: int, name: str, batch: Dim, like: SSAValue) -> SSAValue:
        """Initial state input `i` as `[dirs, batch, hidden]` (batch first in
        layout 1), or zeros."""
        ctx = self.ctx
        if not self.given(i):
            zero = _scalar(ctx, 0.0, like)
            return ctx.emit(relay.BroadcastToOp(zero, shape=dims_attr([self.dirs, batch, self.hidden])))
        if self.batch_first:
            v = self.weight(i, name, [batch, self.dirs, self.hidden])
            return _cast(ctx, _transpose(ctx, v, [1, 0, 2]), _elem(like))
        return _cast(ctx, self.weight(i, name, [self.dirs, batch, self.hidden]), _elem(like))

    # --- the node ---------------------------------------------------------
    def run(self) -> list[SSAValue]:
        ctx = self.ctx
        x = ctx.input(0)
        if len(shape(x)) != 3:
            raise ctx.error(f"X must be 3-D, got {list(shape(x))}")
        if self.batch_first:
            x = _transpose(ctx, x, [1, 0, 2])
        seq, batch, _ = shape(x)
        lens = self.sequence_lens(seq, batch)
        inputs = self.inputs(x, lens)
        states = [self.initial(5, "initial_h", batch, x)]
        if self.op == "LSTM":
            states.append(self.initial(6, "initial_c", batch, x))
        finals, stack = self.recur(inputs, states, seq)
        y = self.outputs(stack, lens)  # [seq, dirs, batch, hidden]
        results = [y, *(self.final(s, lens) for s in finals)]
        if self.batch_first:
            results = [_transpose(ctx, y, [2, 0, 1, 3])] + [_transpose(ctx, r, [1, 0, 2]) for r in results[1:]]
        return results[: ctx.num_outputs]

    def inputs(self, x: SSAValue, lens: SSAValue | None) -> _Inputs:
        """The loop's read-only inputs, computed once before it."""
        ctx, hid, dirs = self.ctx, self.hidden, self.dirs
        gh = self.gates * hid
        seq, batch, size = shape(x)
        w = self.weight(1, "W", [dirs, gh, size])
        r = self.weight(2, "R", [dirs, gh, hid])
        full = lens
        if full is None and any(self.reversed):
            full = ctx.emit(relay.BroadcastToOp(dim_scalar(ctx, seq), shape=dims_attr([batch])))
        rows = []
        for rev in self.reversed:
            xd = x
            if rev:
                assert full is not None
                xd = ctx.emit(relay.ReverseSequenceOp(
                    x, full, batch_axis=relay.i64_attr(1), time_axis=relay.i64_attr(0)))
            rows.append(_reshape(ctx, xd, [1, seq, batch, size]))
        wt = _reshape(ctx, _transpose(ctx, w, [0, 2, 1]), [dirs, 1, size, gh])
        xw = ctx.emit(relay.MatmulOp(_concat(ctx, rows, 0), wt))
        result = _Inputs(xw=xw, rt=_transpose(ctx, r, [0, 2, 1]))
        if self.given(3):
            b = _cast(ctx, self.weight(3, "B", [dirs, 2 * gh]), _elem(x))
            wb, rb = _slice(ctx, b, 1, 0, gh), _slice(ctx, b, 1, gh, 2 * gh)
            if self.linear_before_reset:  # Rbh is added to h @ Rh^T, inside the reset
                result.rbh = _reshape(ctx, _slice(ctx, rb, 1, 2 * hid, gh), [dirs, 1, hid])
                rb = _concat(ctx, [_slice(ctx, rb, 1, 0, 2 * hid), _scalar_like(ctx, 0.0, x, [dirs, hid])], 1)
            result.xw = _add(ctx, xw, _reshape(ctx, _add(ctx, wb, rb), [dirs, 1, 1, gh]))
        if self.op == "GRU" and not self.linear_before_reset:  # (r * h) @ Rh^T
            result.rh = _slice(ctx, result.rt, 2, 2 * hid, gh)
            result.rt = _slice(ctx, result.rt, 2, 0, 2 * hid)
        if self.op == "LSTM" and self.given(7):
            p = _cast(ctx, self.weight(7, "P", [dirs, 3 * hid]), _elem(x))
            result.peep = _reshape(ctx, p, [dirs, 1, 3 * hid])
        if lens is not None:
            result.lens = _reshape(ctx, lens, [batch, 1])
        return result

    def recur(self, inputs: _Inputs, states: list[SSAValue], seq: Dim) -> tuple[list[SSAValue], SSAValue]:
        """The loop over the steps from `states`: the final states and the
        hidden states stacked, `[seq, dirs, batch, hidden]`. Also for a short
        static sequence: unrolled, fusion merges the last step's gates into
        `Y`'s layout ops, which then recompute the cell for each element they
        read (an LSTM of one step ran 4x slower so; a GRU no faster)."""
        ctx = self.ctx
        scalar_i64, scalar_i1 = TensorType(I64, []), TensorType(i1, [])
        operands = [*states, *inputs.values()]
        block = Block(arg_types=[scalar_i64, scalar_i1, *(v.type for v in operands)])
        body = dataclasses.replace(ctx, block=block)
        i, cond, *args = block.args
        new = self.step(body, i, list(args[: len(states)]), inputs.rebound(args[len(states) :]))
        block.add_op(relay.YieldOp(cond, *new, new[0]))
        trips, always = dim_scalar(ctx, seq), ctx.constant(np.array(True))
        results = ctx.emit_all(relay.LoopOp(trips, always, operands, len(states), Region(block), seq))
        return results[: len(states)], results[len(states)]

    def outputs(self, stack: SSAValue, lens: SSAValue | None) -> SSAValue:
        """`Y` from the stacked hidden states: zeros at and past each entry's
        length, the reversed directions reversed back."""
        ctx = self.ctx
        seq, _, batch, _ = shape(stack)
        if lens is not None:
            steps = ctx.emit(relay.ArangeOp(size=dims_attr([seq]), start=relay.i64_attr(0), step=relay.i64_attr(1)))
            valid = ctx.emit(relay.LessOp(_reshape(ctx, steps, [seq, 1, 1, 1]), _reshape(ctx, lens, [1, 1, batch, 1])))
            stack = ctx.emit(relay.WhereOp(valid, stack, _scalar(ctx, 0.0, stack)))
        if not any(self.reversed):
            return stack
        full = lens
        if full is None:
            full = ctx.emit(relay.BroadcastToOp(dim_scalar(ctx, seq), shape=dims_attr([batch])))
        parts = []
        for d, rev in enumerate(self.reversed):
            part = _slice(ctx, stack, 1, d, d + 1)
            if rev:
                part = ctx.emit(relay.ReverseSequenceOp(
                    part, full, batch_axis=relay.i64_attr(2), time_axis=relay.i64_attr(0)))
            parts.append(part)
        return _concat(ctx, parts, 1)

    def final(self, state: SSAValue, lens: SSAValue | None) -> SSAValue:
        """A final state, zero for the entries of length 0 (as onnxruntime)."""
        if lens is None:
            return state
        ctx = self.ctx
        started = ctx.emit(relay.LessOp(ctx.constant(np.array(0, np.int64)), _reshape(ctx, lens, [shape(lens)[0], 1])))
        return ctx.emit(relay.WhereOp(started, state, _scalar(ctx, 0.0, state)))

    # --- one step ---------------------------------------------------------
    def apply(self, ctx: NodeContext, slot: int, x: SSAValue) -> SSAValue:
        """Activation `slot` (f, g or h) of each direction on `x [dirs, ...]`,
        `x` clipped first (but for LSTM's h, which acts on the cell state)."""
        specs = self.acts[slot]
        if all(s == specs[0] for s in specs):
            return _activation(ctx, specs[0])(ctx, x)
        parts = [_activation(ctx, s)(ctx, _slice(ctx, x, 0, d, d + 1)) for d, s in enumerate(specs)]
        return _concat(ctx, parts, 0)

    def clipped(self, ctx: NodeContext, x: SSAValue) -> SSAValue:
        if self.clip is None:
            return x
        return ctx.emit(relay.ClipOp(x, a_min=relay.f64_attr(-self.clip), a_max=relay.f64_attr(self.clip)))

    def gate(self, ctx: NodeContext, x: SSAValue, k: int, n: int = 1) -> SSAValue:
        """Gates `k .. k + n` of a `[dirs, batch, gates * hidden]` value."""
        return _slice(ctx, x, 2, k * self.hidden, (k + n) * self.hidden)

    def step(self, ctx: NodeContext, i: SSAValue, states: list[SSAValue], inputs: _Inputs) -> list[SSAValue]:
        """Step `i` (an i64 scalar) of every direction: the next states."""
        xt = ctx.emit(relay.TakeOp(inputs.xw, i, axis=relay.i64_attr(1)))  # [dirs, batch, gh]
        h = states[0]
        hr = ctx.emit(relay.MatmulOp(h, inputs.rt))
        if self.op == "RNN":
            new = [self.apply(ctx, 0, self.clipped(ctx, _add(ctx, xt, hr)))]
        elif self.op == "GRU":
            new = [self.gru(ctx, xt, h, hr, inputs)]
        else:
            new = list(self.lstm(ctx, _add(ctx, xt, hr), states[1], inputs.peep))
        if inputs.lens is not None:  # past its length an entry keeps its state
            running = ctx.emit(relay.LessOp(i, inputs.lens))
            new = [ctx.emit(relay.WhereOp(running, n, old)) for n, old in zip(new, states, strict=True)]
        return new

    def gru(self, ctx: NodeContext, xt: SSAValue, h: SSAValue, hr: SSAValue, inputs: _Inputs) -> SSAValue:
        """Gates z, r, h (ONNX's order): `h' = (1 - z) * h~ + z * h`."""
        zr = self.apply(ctx, 0, self.clipped(ctx, _add(ctx, self.gate(ctx, xt, 0, 2), self.gate(ctx, hr, 0, 2))))
        z, reset = self.gate(ctx, zr, 0), self.gate(ctx, zr, 1)
        if self.linear_before_reset:
            hh = self.gate(ctx, hr, 2)
            if inputs.rbh is not None:
                hh = _add(ctx, hh, inputs.rbh)
            candidate = _mul(ctx, reset, hh)
        else:
            assert inputs.rh is not None
            candidate = ctx.emit(relay.MatmulOp(_mul(ctx, reset, h), inputs.rh))
        h_new = self.apply(ctx, 1, self.clipped(ctx, _add(ctx, self.gate(ctx, xt, 2), candidate)))
        one_minus_z = ctx.emit(relay.SubtractOp(_scalar(ctx, 1.0, z), z))
        return _add(ctx, _mul(ctx, one_minus_z, h_new), _mul(ctx, z, h))

    def lstm(self, ctx: NodeContext, pre: SSAValue, c: SSAValue, peep: SSAValue | None) -> tuple[SSAValue, SSAValue]:
        """Gates i, o, f, c (ONNX's order), peepholes p_i, p_o, p_f."""
        gi, go, gf, gc = (self.gate(ctx, pre, k) for k in range(4))
        if peep is not None:
            gi = _add(ctx, gi, _mul(ctx, self.gate(ctx, peep, 0), c))
            gf = _add(ctx, gf, _mul(ctx, self.gate(ctx, peep, 2), c))
        i = self.apply(ctx, 0, self.clipped(ctx, gi))
        forget = self.apply(ctx, 0, self.clipped(ctx, gf))
        c_new = _add(ctx, _mul(ctx, forget, c), _mul(ctx, i, self.apply(ctx, 1, self.clipped(ctx, gc))))
        if peep is not None:
            go = _add(ctx, go, _mul(ctx, self.gate(ctx, peep, 1), c_new))
        o = self.apply(ctx, 0, self.clipped(ctx, go))
        return _mul(ctx, o, self.apply(ctx, 2, c_new)), c_new


def _scalar_like(ctx: NodeContext, value: float, like: SSAValue, dims: Sequence[Dim]) -> SSAValue:
    """`value` broadcast to `dims`, of `like`'s element type."""
    return ctx.emit(relay.BroadcastToOp(_scalar(ctx, value, like), shape=dims_attr(list(dims))))


@converter(
    "RNN", "GRU", "LSTM",
    emits=("relay.loop", "relay.matmul", "relay.take", "relay.reverse_sequence", "relay.sigmoid", "relay.tanh"),
    notes="a relay.loop over the sequence (static or symbolic), both directions in one step; all "
    "layouts, peepholes, clip, activations; sequence_lens (constant or run-time) masks the steps",
)
def _recurrent(ctx: NodeContext) -> Sequence[SSAValue]:
    return _Cell(ctx).run()
