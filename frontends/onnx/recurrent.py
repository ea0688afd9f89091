"""Recurrent converters: RNN, GRU and LSTM, unrolled over their (static) sequence.

The input projection of every time step is one GEMM (`[seq * batch, input] x
W^T`); each step then adds `h @ R^T` (a `relay.dense`) and applies its gates
with elementwise ops, which fusion merges per step. Directions forward, reverse
and bidirectional; layouts 0 (sequence first) and 1 (batch first); biases,
initial states, LSTM peepholes, `clip`, GRU's `linear_before_reset`, and the
activations Sigmoid, Tanh, Relu, LeakyRelu, HardSigmoid, Elu, Softplus, Affine
and ScaledTanh (with their alpha/beta).

`sequence_lens` (a constant or a run-time value) masks the steps: a step at or
past a batch entry's length keeps its state and writes zeros to `Y`, so `Y_h`
(and `Y_c`) hold the state after the entry's last valid step, or zeros for an
entry of length 0 (onnxruntime's answer). The reverse direction runs from the
last step down, so each entry starts at its own last valid step.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects.builtin import IntegerType, UnitAttr
from xdsl.ir import SSAValue

from lamina.dialects import relay
from lamina.dialects.dtypes import numpy_dtype
from lamina.frontends.onnx.context import NodeContext, shape
from lamina.frontends.onnx.helpers import _cast, _elem, _ints, _reshape, _scalar
from lamina.frontends.onnx.registry import converter

I64 = IntegerType(64)

#: Gates per cell, and the activations a cell applies by default.
_GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}
_DEFAULT_ACTIVATIONS = {"RNN": ["Tanh"], "GRU": ["Sigmoid", "Tanh"], "LSTM": ["Sigmoid", "Tanh", "Tanh"]}


class _Cell:
    """Emits one recurrent node's ops."""

    def __init__(self, ctx: NodeContext):
        self.ctx = ctx
        self.op = ctx.node.op_type
        self.hidden = int(ctx.attr("hidden_size", 0)) or shape(ctx.input(2))[-1]
        self.gates = _GATES[self.op]
        clip = ctx.attr("clip")
        self.clip = None if clip is None else float(clip)
        #: sequence_lens as an i64 [batch, 1] when it masks steps (`run` sets it).
        self.lens: SSAValue | None = None

    # --- small emitters ---------------------------------------------------
    def emit(self, op: relay.RelayOp) -> SSAValue:
        return self.ctx.emit(op)

    def add(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(relay.AddOp(a, b))

    def mul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(relay.MultiplyOp(a, b))

    def take(self, x: SSAValue, axis: int, begin: int, end: int) -> SSAValue:
        """`x[..., begin:end, ...]` along `axis`."""
        dims = shape(x)
        lo = [begin if a == axis else 0 for a in range(len(dims))]
        hi = [end if a == axis else d for a, d in enumerate(dims)]
        return self.emit(relay.StridedSliceOp(x, begin=relay.i64_array(lo), end=relay.i64_array(hi)))

    def gate(self, x: SSAValue, k: int) -> SSAValue:
        """Gate `k` of a `[batch, gates * hidden]` value."""
        return self.take(x, len(shape(x)) - 1, k * self.hidden, (k + 1) * self.hidden)

    def concat(self, xs: list[SSAValue], axis: int) -> SSAValue:
        return xs[0] if len(xs) == 1 else self.emit(relay.ConcatenateOp(*xs, axis=relay.i64_attr(axis)))

    def transpose(self, x: SSAValue, perm: Sequence[int]) -> SSAValue:
        return self.emit(relay.TransposeOp(x, perm=relay.i64_array(list(perm))))

    def dense(self, a: SSAValue, w: SSAValue) -> SSAValue:
        """`a @ w^T`."""
        return self.emit(relay.DenseOp(a, w, transpose_b=UnitAttr()))

    def activation(self, name: str, alpha: float | None, beta: float | None) -> Callable[[SSAValue], SSAValue]:
        def affine(x: SSAValue, a: float, b: float) -> SSAValue:
            return self.add(self.mul(x, _scalar(self.ctx, a, x)), _scalar(self.ctx, b, x))

        table: dict[str, Callable[[SSAValue], SSAValue]] = {
            "sigmoid": lambda x: self.emit(relay.SigmoidOp(x)),
            "tanh": lambda x: self.emit(relay.TanhOp(x)),
            "relu": lambda x: self.emit(relay.ReluOp(x)),
            "leakyrelu": lambda x: self.emit(relay.LeakyReluOp(x, alpha=relay.f64_attr(0.01 if alpha is None else alpha))),
            "hardsigmoid": lambda x: self.emit(relay.HardSigmoidOp(
                x, alpha=relay.f64_attr(0.2 if alpha is None else alpha), beta=relay.f64_attr(0.5 if beta is None else beta))),
            "elu": lambda x: self.emit(relay.EluOp(x, alpha=relay.f64_attr(1.0 if alpha is None else alpha))),
            "softplus": lambda x: self.emit(relay.SoftplusOp(x)),
            "affine": lambda x: affine(x, 1.0 if alpha is None else alpha, 0.0 if beta is None else beta),
            "scaledtanh": lambda x: self.mul(
                self.emit(relay.TanhOp(self.mul(x, _scalar(self.ctx, 1.0 if beta is None else beta, x)))),
                _scalar(self.ctx, 1.0 if alpha is None else alpha, x)),
        }
        fn = table.get(name.lower())
        if fn is None:
            raise self.ctx.unsupported(
                f"activation {name} is not supported (supported: Sigmoid, Tanh, Relu, LeakyRelu, "
                "HardSigmoid, Elu, Softplus, Affine, ScaledTanh)"
            )
        return fn

    def clipped(self, x: SSAValue) -> SSAValue:
        if self.clip is None:
            return x
        return self.emit(relay.ClipOp(x, a_min=relay.f64_attr(-self.clip), a_max=relay.f64_attr(self.clip)))

    # --- the node ---------------------------------------------------------
    def activations(self, directions: int) -> list[list[Callable[[SSAValue], SSAValue]]]:
        """Per direction, the cell's activation functions."""
        per = len(_DEFAULT_ACTIVATIONS[self.op])
        names = [n.decode() if isinstance(n, bytes) else str(n) for n in self.ctx.attr("activations", [])]
        if not names:
            names = _DEFAULT_ACTIVATIONS[self.op] * directions
        if len(names) != per * directions:
            raise self.ctx.error(f"needs {per * directions} activations ({per} per direction), got {names}")
        alphas = list(self.ctx.attr("activation_alpha", []))
        betas = list(self.ctx.attr("activation_beta", []))
        fns = [
            self.activation(n, alphas[i] if i < len(alphas) else None, betas[i] if i < len(betas) else None)
            for i, n in enumerate(names)
        ]
        return [fns[d * per : (d + 1) * per] for d in range(directions)]

    def run(self) -> list[SSAValue]:
        ctx = self.ctx
        direction = ctx.attr("direction", "forward")
        direction = direction.decode() if isinstance(direction, bytes) else str(direction)
        if direction not in ("forward", "reverse", "bidirectional"):
            raise ctx.error(f'direction="{direction}" is not forward, reverse or bidirectional')
        if int(ctx.attr("input_forget", 0)):
            raise ctx.unsupported("input_forget=1 is not supported")
        x = ctx.input(0)
        batch_first = int(ctx.attr("layout", 0)) == 1
        if batch_first:
            x = self.transpose(x, [1, 0, 2])
        seq, batch, size = shape(x)
        self.lens = self.sequence_lens(seq, batch)
        dirs = 2 if direction == "bidirectional" else 1
        acts = self.activations(dirs)
        outs, last_h, last_c = [], [], []
        for d in range(dirs):
            reverse = direction == "reverse" or d == 1
            ys, h, c = self.direction(x, d, reverse, acts[d], (seq, batch, size))
            outs.append(ys)
            last_h.append(_reshape(self.ctx, self.final(h), [1, batch, self.hidden]))
            if c is not None:
                last_c.append(_reshape(self.ctx, self.final(c), [1, batch, self.hidden]))
        y = self.concat(outs, 1)  # [seq, dirs, batch, hidden]
        y_h = self.concat(last_h, 0)  # [dirs, batch, hidden]
        results = [y, y_h]
        if self.op == "LSTM":
            results.append(self.concat(last_c, 0))
        if batch_first:
            results = [self.transpose(results[0], [2, 0, 1, 3])] + [self.transpose(r, [1, 0, 2]) for r in results[1:]]
        return results[: ctx.num_outputs]

    def sequence_lens(self, seq: int, batch: int) -> SSAValue | None:
        """`sequence_lens` as an i64 `[batch, 1]`, or None when every entry runs
        the whole sequence (no input, or a constant of `seq`s)."""
        ctx = self.ctx
        if len(ctx.node.input) <= 4 or not ctx.node.input[4]:
            return None
        lens = ctx.input(4)
        if shape(lens) != (batch,):
            raise ctx.error(f"sequence_lens has shape {list(shape(lens))}, expected [{batch}] (one length per batch entry)")
        if not relay.is_int(_elem(lens)):
            raise ctx.error(f"sequence_lens must be an integer tensor, got {numpy_dtype(_elem(lens))}")
        if ctx.is_const(4):
            values = _ints(ctx.const_value(4))
            if any(not 0 <= n <= seq for n in values):
                raise ctx.error(f"sequence_lens {values} must lie in 0..{seq} (the sequence length)")
            if all(n == seq for n in values):
                return None
        return _reshape(ctx, _cast(ctx, lens, I64), [batch, 1])

    def running(self, t: int) -> SSAValue | None:
        """Which batch entries are still running at step `t` (`t < length`), as
        an i1 `[batch, 1]`; None without sequence_lens."""
        if self.lens is None:
            return None
        return self.emit(relay.LessOp(self.ctx.constant(np.array(t, np.int64)), self.lens))

    def kept(self, running: SSAValue | None, new: SSAValue, old: SSAValue) -> SSAValue:
        """`new` where the entry is running, `old` past its length."""
        return new if running is None else self.emit(relay.WhereOp(running, new, old))

    def final(self, state: SSAValue) -> SSAValue:
        """A final state, zero for the entries of length 0 (as onnxruntime)."""
        if self.lens is None:
            return state
        started = self.emit(relay.LessOp(self.ctx.constant(np.array(0, np.int64)), self.lens))
        return self.emit(relay.WhereOp(started, state, _scalar(self.ctx, 0.0, state)))

    def state(self, index: int, d: int, batch: int, like: SSAValue) -> SSAValue:
        """Initial state input `index` of direction `d` as `[batch, hidden]`, or
        zeros (the input is `[dirs, batch, hidden]`, batch first in layout 1)."""
        if len(self.ctx.node.input) > index and self.ctx.node.input[index]:
            axis = 1 if int(self.ctx.attr("layout", 0)) == 1 else 0
            return _reshape(self.ctx, self.take(self.ctx.input(index), axis, d, d + 1), [batch, self.hidden])
        return self.ctx.constant(np.zeros((batch, self.hidden), numpy_dtype(_elem(like))), "h0")

    def direction(
        self,
        x: SSAValue,
        d: int,
        reverse: bool,
        acts: list[Callable[[SSAValue], SSAValue]],
        dims: tuple[int, int, int],
    ) -> tuple[SSAValue, SSAValue, SSAValue | None]:
        """Unroll direction `d`: its outputs `[seq, 1, batch, hidden]` and its
        final hidden (and, for an LSTM, cell) state."""
        ctx, hid, g = self.ctx, self.hidden, self.gates
        seq, batch, size = dims
        w = _reshape(self.ctx, self.take(ctx.input(1), 0, d, d + 1), [g * hid, size])
        r = _reshape(self.ctx, self.take(ctx.input(2), 0, d, d + 1), [g * hid, hid])
        has_bias = len(ctx.node.input) > 3 and bool(ctx.node.input[3])
        b = _reshape(self.ctx, self.take(ctx.input(3), 0, d, d + 1), [2 * g * hid]) if has_bias else None
        wb = None if b is None else self.take(b, 0, 0, g * hid)
        rb = None if b is None else self.take(b, 0, g * hid, 2 * g * hid)
        xw = self.dense(_reshape(self.ctx, x, [seq * batch, size]), w)
        if wb is not None:
            xw = self.add(xw, wb)
        xw = _reshape(self.ctx, xw, [seq, batch, g * hid])
        h = self.state(5, d, batch, x)
        c = self.state(6, d, batch, x) if self.op == "LSTM" else None
        peep = None
        if self.op == "LSTM" and len(ctx.node.input) > 7 and ctx.node.input[7]:
            peep = _reshape(self.ctx, self.take(ctx.input(7), 0, d, d + 1), [3 * hid])
        ys: list[SSAValue | None] = [None] * seq
        for t in reversed(range(seq)) if reverse else range(seq):
            xt = _reshape(self.ctx, self.take(xw, 0, t, t + 1), [batch, g * hid])
            running = self.running(t)
            if self.op == "RNN":
                pre = self.add(xt, self.dense(h, r))
                h_new = acts[0](self.clipped(pre if rb is None else self.add(pre, rb)))
            elif self.op == "GRU":
                h_new = self.gru_step(xt, h, r, rb, acts)
            else:
                assert c is not None
                h_new, c_new = self.lstm_step(xt, h, c, r, rb, peep, acts)
                c = self.kept(running, c_new, c)
            h = self.kept(running, h_new, h)
            y = self.kept(running, h_new, _scalar(self.ctx, 0.0, h_new))
            ys[t] = _reshape(self.ctx, y, [1, 1, batch, hid])
        steps = [y for y in ys if y is not None]
        return self.concat(steps, 0), h, c

    def gru_step(
        self, xt: SSAValue, h: SSAValue, r: SSAValue, rb: SSAValue | None, acts: list[Callable[[SSAValue], SSAValue]]
    ) -> SSAValue:
        """Gates z, r, h (ONNX's order): `h' = (1 - z) * h~ + z * h`."""
        f, g = acts
        hid = self.hidden
        r_z, r_r, r_h = (self.take(r, 0, k * hid, (k + 1) * hid) for k in range(3))
        b_z, b_r, b_h = (None, None, None) if rb is None else (self.gate(rb, k) for k in range(3))

        def biased(v: SSAValue, bias: SSAValue | None) -> SSAValue:
            return v if bias is None else self.add(v, bias)

        z = f(self.clipped(self.add(self.gate(xt, 0), biased(self.dense(h, r_z), b_z))))
        reset = f(self.clipped(self.add(self.gate(xt, 1), biased(self.dense(h, r_r), b_r))))
        if int(self.ctx.attr("linear_before_reset", 0)):
            candidate = self.mul(reset, biased(self.dense(h, r_h), b_h))
        else:
            candidate = biased(self.dense(self.mul(reset, h), r_h), b_h)
        h_new = g(self.clipped(self.add(self.gate(xt, 2), candidate)))
        one_minus_z = self.emit(relay.SubtractOp(_scalar(self.ctx, 1.0, z), z))
        return self.add(self.mul(one_minus_z, h_new), self.mul(z, h))

    def lstm_step(
        self,
        xt: SSAValue,
        h: SSAValue,
        c: SSAValue,
        r: SSAValue,
        rb: SSAValue | None,
        peep: SSAValue | None,
        acts: list[Callable[[SSAValue], SSAValue]],
    ) -> tuple[SSAValue, SSAValue]:
        """Gates i, o, f, c (ONNX's order), peepholes p_i, p_o, p_f."""
        f, g, act_h = acts
        pre = self.add(xt, self.dense(h, r))
        if rb is not None:
            pre = self.add(pre, rb)
        gi, go, gf, gc = (self.gate(pre, k) for k in range(4))
        if peep is not None:
            gi = self.add(gi, self.mul(self.gate(peep, 0), c))
            gf = self.add(gf, self.mul(self.gate(peep, 2), c))
        i = f(self.clipped(gi))
        forget = f(self.clipped(gf))
        c_new = self.add(self.mul(forget, c), self.mul(i, g(self.clipped(gc))))
        if peep is not None:
            go = self.add(go, self.mul(self.gate(peep, 1), c_new))
        o = f(self.clipped(go))
        return self.mul(o, act_h(c_new)), c_new


@converter(
    "RNN", "GRU", "LSTM",
    emits=("relay.dense", "relay.strided_slice", "relay.sigmoid", "relay.tanh", "relay.where"),
    notes="unrolled; all directions, layouts, peepholes, clip; sequence_lens (constant or run-time) masks the steps",
)
def _recurrent(ctx: NodeContext) -> Sequence[SSAValue]:
    return _Cell(ctx).run()
