"""`qnn-fold-qdq`: QDQ chains as integer qnn ops (onnxruntime's QDQ
transformers, TVM's QDQ handling).

A QDQ model (`onnxruntime.quantization.quantize_static`) computes in float
between `qnn.dequantize` and `qnn.quantize`; the pass recognizes, with the
pattern language, the chains that have an integer form and rewrites them:

- `quantize(act?(bias?(conv2d | matmul | dense(dequantize x, dequantize w))))`
  -> `qnn.conv2d`/`qnn.matmul` (i32) + the bias in i32 (quantized with scale
  `x_scale * w_scale`, as onnxruntime's QDQ bias; a `qnn.dequantize` of an i32
  bias at that scale gives its integers as they are) + `qnn.requantize` by
  `x_scale * w_scale / y_scale` to the output's zero point; a relu or clip
  (`act`) becomes the requantize's clamp range. x per tensor; w per tensor or
  per output channel (axis 0 of a conv weight, the last axis of a matmul's,
  the N axis of a dense's); Gemm's alpha and beta are folded into the scales;
- `quantize(act?(add | multiply(dequantize a, dequantize b)))` -> `qnn.add` /
  `qnn.mul` (a clip of the integers for `act`);
- `quantize(softmax(dequantize x))` -> `qnn.softmax`: onnxruntime's
  QLinearSoftmax arithmetic (its table of exp, its `floor(1 / y_scale)`), so
  a model quantized by onnxruntime gives the codes of its int8 run;
- `quantize(concatenate(dequantize ...))` -> each input brought to the output's
  scale (as it is when they agree, else `qnn.requantize`), concatenated;
- `quantize(act?(op(dequantize q)))` for max pools, max/min reductions and data
  movement (reshape, transpose, strided_slice, take, gather, broadcast_to,
  tile), and `quantize(act?(dequantize q))` itself: `op` on the integers, then
  brought to the output's scale (they commute: requantization is monotone);
- `quantize(mean | avg_pool2d(dequantize q))` -> the sum of `q - zp` in i32
  (`relay.sum`; a pool's windows by `relay.im2col`) requantized by
  `scale / (y_scale * count)` (a pool only where every window counts the same);
- a conv2d/matmul/dense of dequantized operands whose result is not quantized
  -> the integer product, dequantized by `x_scale * w_scale` (onnxruntime's
  MatMulIntegerToFloat).

Scales and zero points must be constants; activations are quantized per tensor.
A chain that does not fit stays as it is (correct in float). Counters:
`qnn-fold-qdq.<kind>` for each rewrite, `qnn-fold-qdq.left.<op>.<reason>` for
each op left reading dequantized values.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import FloatAttr, ModuleOp, f32
from xdsl.ir import Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.traits import IsTerminator, is_side_effect_free

from lamina.dialects import qnn, relay
from lamina.dialects.relay.base import OpPattern, is_float
from lamina.passes import record_statistic
from lamina.passes.registry import register_pass
from lamina.pattern import Match, Pattern, PatternCallback, is_op, rewrite, wildcard
from lamina.transforms.graph import qdq_params as qp
from lamina.transforms.graph.qdq_params import I32, Quantized, Reason

Reasons = dict[Operation, Reason]
#: Ops that move or select values, or take a max: they commute with a monotone
#: requantization, so they run on the integers.
MOVES = (
    "reshape", "transpose", "strided_slice", "take", "gather", "gather_nd", "broadcast_to", "tile",
    "max_pool1d", "max_pool2d", "max_pool3d", "max", "min",
)


def _dq() -> Pattern:
    return is_op("qnn.dequantize")(wildcard(), wildcard(), wildcard())


def _quantized(p: Pattern) -> Pattern:
    return is_op("qnn.quantize")(p, wildcard(), wildcard())


def _short(name: str) -> str:
    return name.split(".", 1)[1]


def _single_use(op: Operation) -> bool:
    return len(op.results) == 1 and len(list(op.results[0].uses)) == 1


def _float(op: Operation, name: str) -> float | None:
    attr = op.properties.get(name)
    return float(attr.value.data) if isinstance(attr, FloatAttr) else None


class _Rule(PatternCallback):
    """A chain rewrite rooted at a `qnn.quantize` (or, for the float-out
    product, at the product): `fold(match)` returns the new value or the reason
    the chain stays in float, kept in `reasons` for the ops that stay."""

    def __init__(self, pattern: Pattern, reasons: Reasons) -> None:
        super().__init__(pattern)
        self.reasons = reasons

    def fold(self, m: Match) -> SSAValue | Reason:
        raise NotImplementedError

    def callback(self, m: Match) -> SSAValue | None:
        inner = [op for op in m.ops if op is not m.op and not isinstance(op, qnn.DequantizeOp)]
        got = "shared-intermediate" if not all(_single_use(op) for op in inner) else self.fold(m)
        if isinstance(got, str):
            for op in [*inner, m.op]:
                if op is not None:
                    self.reasons[op] = got
            return None
        for kind in self.kinds(m):
            record_statistic(f"qnn-fold-qdq.{kind}")
        return got

    def kinds(self, m: Match) -> list[str]:
        """What a rewrite of `m` counts as (`qnn-fold-qdq.<kind>`)."""
        return [self.kind(m)]

    def kind(self, m: Match) -> str:
        return type(self).__name__


class _Activated(_Rule):
    """Rules whose chain may end with a relu or a clip: `self.relu`, `self.clip`."""

    def activated(self, p: Pattern) -> Pattern:
        self.relu, self.clip = is_op("relu")(p), is_op("clip")(p)
        return p | self.relu | self.clip

    def bounds(self, m: Match, out: Quantized) -> tuple[int, int]:
        if self.relu in m:
            return qp.clamp_bounds("relu", None, None, out)
        if self.clip in m:
            op = m[self.clip].op  # type: ignore[attr-defined]
            return qp.clamp_bounds("clip", _float(op, "a_min"), _float(op, "a_max"), out)
        return qp.clamp_bounds(None, None, None, out)


# ------------------------------------------------------------------ products
@dataclass
class _Product:
    """An integer product, checked but not built yet (a rule that gives up
    leaves no op behind): `op` over `x` and `w` (its zero point `w_zp`, a
    scalar or a vector along its output channels); the real value of one unit
    of the accumulator (`x_scale * w_scale`, f32, shaped to broadcast against
    it); what is added after it (a dense's own bias, times beta)."""

    op: Operation
    x: Quantized
    w: Quantized
    w_zp: np.ndarray
    unit: np.ndarray
    bias: SSAValue | None = None
    beta: float = 1.0

    @property
    def shape(self) -> tuple[int, ...]:
        return qp.shape(self.op.results[0])

    def build(self) -> SSAValue:
        """The i32 accumulator: `qnn.conv2d` or `qnn.matmul` (a dense's
        transposes as `relay.transpose`, folded for a constant weight)."""
        x_zp = qp.constant(self.x.zp.reshape(()), self.x.elem)
        if isinstance(self.op, relay.Conv2DOp):
            props = {k: self.op.properties[k] for k in ("strides", "padding", "dilation", "groups") if k in self.op.properties}
            w_zp = qp.constant(qp.placed(self.w_zp, 4, 0), self.w.elem)
            return qnn.Conv2DOp(self.x.q, self.w.q, x_zp, w_zp, **props).results[0]
        lhs, rhs = self.x.q, self.w.q
        if isinstance(self.op, relay.DenseOp):
            lhs = _transpose(lhs) if self.op.attrs.transpose_a else lhs
            rhs = _transpose(rhs) if self.op.attrs.transpose_b else rhs
        return qnn.MatMulOp(lhs, rhs, x_zp, qp.constant(self.w_zp, self.w.elem)).results[0]


def _weight(w: Quantized, rank: int, axis: int) -> tuple[np.ndarray, np.ndarray] | Reason:
    scale, zp = qp.along(w.scale, rank, axis), qp.along(w.zp, rank, axis)
    if scale is None or zp is None:
        return "weight-scale-not-per-output-channel"
    return scale, zp


def integer_product(op: Operation, x: Quantized, w: Quantized) -> _Product | Reason:
    """`op` (conv2d, matmul or dense over dequantized x and w) on the integers,
    or why it cannot be."""
    if not x.per_tensor:
        return "per-channel-activation"
    x_scale = np.float32(x.scale.reshape(()))
    if isinstance(op, relay.Conv2DOp):
        if any(d < 0 for d in qp.shape(op.results[0])):  # qnn-canonicalize's conv2d needs static sizes
            return "symbolic-shape"
        got = _weight(w, 4, 0)
        return got if isinstance(got, str) else _Product(op, x, w, got[1], qp.placed(x_scale * got[0], 4, 1))
    if isinstance(op, relay.MatmulOp):
        w_rank = len(qp.shape(w.q))
        got = _weight(w, w_rank, w_rank - 1) if w_rank > 1 else _weight(w, 1, 1)  # a vector: one column
        return got if isinstance(got, str) else _Product(op, x, w, got[1], x_scale * got[0])
    assert isinstance(op, relay.DenseOp)
    got = _weight(w, 2, 0 if op.attrs.transpose_b else 1)
    if isinstance(got, str):
        return got
    alpha, beta = _float(op, "alpha"), _float(op, "beta")
    unit = (x_scale * got[0] * np.float32(1.0 if alpha is None else alpha)).astype(np.float32)
    bias = op.operands[2] if len(op.operands) == 3 else None
    return _Product(op, x, w, got[1], unit, bias, 1.0 if beta is None else beta)


def _transpose(v: SSAValue) -> SSAValue:
    return relay.TransposeOp(v, perm=relay.i64_array([1, 0])).results[0]


def _bias_real(v: SSAValue) -> np.ndarray | None:
    """A constant bias in f64: a `qnn.dequantize`'s integers times its scale,
    computed in f64, so that a bias quantized at the accumulator's scale gives
    its integers back exactly."""
    if isinstance(v, OpResult) and isinstance(v.op, qnn.DequantizeOp):
        q, s, z = (qp.constant_value(o) for o in v.op.operands)
        if q is not None and s is not None and z is not None:
            return (q.astype(np.int64) - z.astype(np.int64)) * s.astype(np.float64)
    data = qp.constant_value(v)
    return None if data is None else data.astype(np.float64)


def quantized_bias(v: SSAValue, product: _Product, along: int | None, beta: float = 1.0) -> np.ndarray | Reason:
    """The constant float bias `v` (times `beta`) in units of the accumulator,
    rounded half to even, as i32; `along`: the axis of a bias_add's 1-D bias."""
    real = _bias_real(v)
    if real is None:
        return "bias-not-constant"
    if along is not None:
        real = qp.placed(real.reshape(-1), len(product.shape), along)
    ints = np.rint(real * beta / product.unit.astype(np.float64))
    if not _fits(ints.shape, product.shape):
        return "bias-shape"
    if not np.isfinite(ints).all() or np.abs(ints).max(initial=0) > np.iinfo(np.int32).max:
        return "bias-out-of-i32"
    return ints.astype(np.int32)


def _fits(shape: tuple[int, ...], into: tuple[int, ...]) -> bool:
    """Whether `shape` broadcasts to `into` without changing it (a size-1 dim
    fits any, a symbolic one, -1, only a 1)."""
    return len(shape) <= len(into) and all(d in (1, t) for d, t in zip(reversed(shape), reversed(into), strict=False))


def _product_pattern(x: Pattern, w: Pattern, bias: Pattern) -> Pattern:
    two = is_op("conv2d", "matmul", "dense")(x, w)
    return two | is_op("dense")(x, w, bias)


class FoldProduct(_Activated):
    """`quantize(act?(bias?(product(dequantize x, dequantize w))))`."""

    def __init__(self, reasons: Reasons) -> None:
        self.x, self.w, self.bias = _dq(), _dq(), wildcard()
        self.prod = _product_pattern(self.x, self.w, self.bias)
        self.bias_add = is_op("bias_add")(self.prod, self.bias)
        self.add = is_op("add")(self.prod, self.bias)
        super().__init__(_quantized(self.activated(self.prod | self.bias_add | self.add)), reasons)

    def kind(self, m: Match) -> str:
        return _short(m[self.prod].op.name)  # type: ignore[attr-defined]

    def fold(self, m: Match) -> SSAValue | Reason:
        x, w, out = qp.dequantized(m[self.x]), qp.dequantized(m[self.w]), qp.output(m.op)  # type: ignore[arg-type]
        for got in (x, w, out):
            if isinstance(got, str):
                return got
        assert isinstance(x, Quantized) and isinstance(w, Quantized) and isinstance(out, Quantized)
        product = integer_product(m[self.prod].op, x, w)  # type: ignore[attr-defined]
        if isinstance(product, str):
            return product
        biases = []
        for bias, along, beta in (
            (product.bias, None, product.beta),
            (m.get(self.bias) if self.bias_add in m else None, self._bias_axis(m), 1.0),
            (m.get(self.bias) if self.add in m else None, None, 1.0),
        ):
            if bias is not None:
                ints = quantized_bias(bias, product, along, beta)
                if isinstance(ints, str):
                    return ints
                biases.append(ints)
        acc = product.build()
        for ints in biases:
            acc = relay.AddOp(acc, qp.constant(ints, I32)).results[0]
        multiplier = (product.unit / np.float32(out.scale.reshape(()))).astype(np.float32)
        return qp.requantize(acc, multiplier, out, self.bounds(m, out))

    def _bias_axis(self, m: Match) -> int | None:
        if self.bias_add not in m:
            return None
        op = m[self.bias_add].op  # type: ignore[attr-defined]
        return op.attrs.axis % len(qp.shape(op.results[0]))


class FoldProductToFloat(_Rule):
    """`product(dequantize x, dequantize w)` whose result is not quantized:
    the integer product, dequantized (a dense's bias added in float)."""

    def __init__(self, reasons: Reasons) -> None:
        self.x, self.w, self.bias = _dq(), _dq(), wildcard()
        super().__init__(_product_pattern(self.x, self.w, self.bias), reasons)

    def kind(self, m: Match) -> str:
        return f"{_short(m.op.name)}-float-out"  # type: ignore[union-attr]

    def fold(self, m: Match) -> SSAValue | Reason:
        x, w = qp.dequantized(m[self.x]), qp.dequantized(m[self.w])
        if isinstance(x, str) or isinstance(w, str):
            return x if isinstance(x, str) else w  # type: ignore[return-value]
        if qp.element(m.root) != f32:
            return "not-f32"
        product = integer_product(m.op, x, w)  # type: ignore[arg-type]
        if isinstance(product, str):
            return product
        if product.bias is not None and product.beta != 1.0:
            return "gemm-beta"
        unit, zero = qp.constant(product.unit), qp.constant(np.int32(0), I32)
        real = qnn.DequantizeOp(product.build(), unit, zero).results[0]
        return real if product.bias is None else relay.AddOp(real, product.bias).results[0]


# ------------------------------------------------------------ elementwise
class FoldBinary(_Activated):
    """`quantize(act?(add | multiply(dequantize a, dequantize b)))` -> qnn.add / qnn.mul."""

    OPS: ClassVar[dict[str, type[qnn.QnnOp]]] = {"relay.add": qnn.AddOp, "relay.multiply": qnn.MulOp}

    def __init__(self, reasons: Reasons) -> None:
        self.a, self.b = _dq(), _dq()
        self.op = is_op("add", "multiply")(self.a, self.b)
        super().__init__(_quantized(self.activated(self.op)), reasons)

    def kind(self, m: Match) -> str:
        return _short(m[self.op].op.name)  # type: ignore[attr-defined]

    def fold(self, m: Match) -> SSAValue | Reason:
        a, b, out = qp.dequantized(m[self.a]), qp.dequantized(m[self.b]), qp.output(m.op)  # type: ignore[arg-type]
        for got in (a, b, out):
            if isinstance(got, str):
                return got
        assert isinstance(a, Quantized) and isinstance(b, Quantized) and isinstance(out, Quantized)
        cls = self.OPS[m[self.op].op.name]  # type: ignore[attr-defined]
        value = cls(a.q, b.q, *_scale_zp(a), *_scale_zp(b), *_scale_zp(_scalar(out))).results[0]
        lo, hi = self.bounds(m, out)
        if (lo, hi) == qnn.quantized_range(out.elem):
            return value
        return relay.ClipOp(value, a_min=relay.f64_attr(lo), a_max=relay.f64_attr(hi)).results[0]


def _scale_zp(t: Quantized) -> tuple[SSAValue, SSAValue]:
    return qp.constant(t.scale), qp.constant(t.zp, t.elem)


def _scalar(t: Quantized) -> Quantized:
    return Quantized(t.q, t.scale.reshape(()), t.zp.reshape(()))


def _through(v: SSAValue, q: Operation) -> tuple[Quantized, Quantized] | Reason:
    """What a one-input chain reads (`v = dequantize(x)`) and what its
    quantize `q` writes, both per tensor; or why not."""
    x, out = qp.dequantized(v), qp.output(q)  # type: ignore[arg-type]
    for got in (x, out):
        if isinstance(got, str):
            return got
    assert isinstance(x, Quantized) and isinstance(out, Quantized)
    return (x, out) if x.per_tensor else "per-channel-activation"


class FoldSoftmax(_Rule):
    """`quantize(softmax(dequantize x))` -> `qnn.softmax` (onnxruntime's
    QLinearSoftmax, as its QDQ transformer fuses it)."""

    def __init__(self, reasons: Reasons) -> None:
        self.x = _dq()
        self.softmax = is_op("softmax")(self.x)
        super().__init__(_quantized(self.softmax), reasons)

    def kind(self, m: Match) -> str:
        return "softmax"

    def fold(self, m: Match) -> SSAValue | Reason:
        op, got = m[self.softmax].op, _through(m[self.x], m.op)  # type: ignore[attr-defined, arg-type]
        if isinstance(got, str):
            return got
        x, out = got
        if x.elem not in qnn.QUANTIZED[:2] or out.elem not in qnn.QUANTIZED[:2]:
            return "not-8-bit"
        dims = qp.shape(x.q)
        axis = op.attrs.axis % len(dims)
        if dims[axis] < 0:
            return "symbolic-shape"
        return qnn.SoftmaxOp(
            x.q, *_scale_zp(_scalar(x)), *_scale_zp(_scalar(out)), axis=relay.i64_attr(axis)
        ).results[0]


class FoldConcatenate(_Rule):
    """`quantize(concatenate(dequantize ...))`: each input at the output's scale."""

    def __init__(self, reasons: Reasons) -> None:
        self.cat = is_op("concatenate")(None)
        super().__init__(_quantized(self.cat), reasons)

    def kind(self, m: Match) -> str:
        return "concatenate"

    def fold(self, m: Match) -> SSAValue | Reason:
        cat, out = m[self.cat].op, qp.output(m.op)  # type: ignore[attr-defined, arg-type]
        if isinstance(out, str):
            return out
        ins = [qp.dequantized(v) for v in cat.operands]
        for x in ins:
            if isinstance(x, str):
                return x
            if not x.per_tensor:
                return "per-channel-activation"
        values = [qp.rescale(x, out, qnn.quantized_range(out.elem)) for x in ins]  # type: ignore[arg-type]
        return relay.ConcatenateOp(*values, **dict(cat.properties)).results[0]


class FoldTable(_Rule):
    """`quantize(f(dequantize x))` for `f` elementwise float ops of x and scalar
    constants (a gelu, a tanh, a sigmoid, ...) on an 8-bit x: `f` of the 256
    codes by the same ops (a table, computed once) and a `relay.take` of it at
    the codes, as onnxruntime's and TVM's int8 lookup tables. Each code gives
    what the float chain gives it."""

    def __init__(self, reasons: Reasons) -> None:
        self.value = wildcard()
        super().__init__(_quantized(self.value), reasons)

    def kind(self, m: Match) -> str:
        return "table"

    def fold(self, m: Match) -> SSAValue | Reason:
        got = _elementwise_region(m[self.value])
        if isinstance(got, str):
            return got
        ops, source = got
        params = _through(source, m.op)  # type: ignore[arg-type]
        if isinstance(params, str):
            return params
        x, out = params
        if x.elem not in qnn.QUANTIZED[:2]:
            return "not-8-bit"
        lo, hi = qnn.quantized_range(x.elem)
        real = (np.arange(lo, hi + 1, dtype=np.float32) - np.float32(x.zp.reshape(()))) * np.float32(x.scale.reshape(()))
        values = {source: qp.constant(real, name="codes")}  # (qnn.dequantize's f32 steps)
        for op in ops:
            new = type(op)(*(values.get(v, v) for v in op.operands), **dict(op.properties))
            values[op.results[0]] = new.results[0]
        table = qnn.QuantizeOp(values[m[self.value]], *_scale_zp(_scalar(out))).results[0]
        if len(qp.shape(table)) != 1:
            table = relay.ReshapeOp(table, shape=relay.i64_array([hi - lo + 1])).results[0]
        index = relay.CastOp(x.q, dtype=I32).results[0]
        if lo:
            index = relay.AddOp(index, qp.constant(np.int32(-lo), I32)).results[0]
        return relay.TakeOp(table, index, axis=relay.i64_attr(0)).results[0]


def _elementwise_region(root: SSAValue) -> tuple[list[Operation], SSAValue] | Reason:
    """The elementwise float ops computing `root` from one dequantized value and
    scalar constants, in block order, read only by each other (and `root` by
    its quantize); and that value."""
    region: set[Operation] = set()
    source: SSAValue | None = None
    work = [root]
    while work:
        v = work.pop()
        if not isinstance(v, OpResult):
            return "not-elementwise"
        op = v.op
        if _dequantizes(v):
            if source is not None and source is not v:
                return "two-inputs"
            source = v
        elif isinstance(op, relay.ConstantOp):
            if math.prod(qp.shape(v)) != 1:
                return "not-elementwise"
        elif op not in region:
            if getattr(op, "PATTERN", None) not in (OpPattern.ELEMWISE, OpPattern.BROADCAST) or isinstance(op, qnn.QnnOp):
                return "not-elementwise"
            if len(op.results) != 1 or not is_float(qp.element(op.results[0])) or not is_side_effect_free(op):
                return "not-elementwise"
            region.add(op)
            work.extend(op.operands)
    if source is None or not region:
        return "not-elementwise"
    if qp.shape(root) != qp.shape(source):
        return "broadcasts"
    for op in region:
        if op is not root.owner and any(use.operation not in region for use in op.results[0].uses):
            return "shared-intermediate"
    if len(list(root.uses)) != 1:
        return "shared-intermediate"
    block = root.owner.parent  # type: ignore[union-attr]
    assert block is not None
    return [op for op in block.ops if op in region], source


def _moves(v: SSAValue) -> list[Operation]:
    """The chain of `MOVES` ops that computes `v` from its first operand down,
    top first, each but the top used once (a transpose then a flatten)."""
    chain: list[Operation] = []
    while isinstance(v, OpResult) and _short(v.op.name) in MOVES and (not chain or _single_use(v.op)):
        chain.append(v.op)
        v = v.op.operands[0]
    return chain


class FoldMove(_Activated):
    """`quantize(act?(op(...(dequantize q))))` for chains of `MOVES`, and
    `quantize(act?(dequantize q))`: on the integers, then rescaled."""

    def __init__(self, reasons: Reasons) -> None:
        self.x = _dq()
        self.move = is_op(*MOVES)(None)
        super().__init__(_quantized(self.activated(self.move | self.x)), reasons)

    def kinds(self, m: Match) -> list[str]:
        if self.move not in m:
            return ["rescale"]
        return [_short(op.name) for op in reversed(_moves(m[self.move]))]

    def fold(self, m: Match) -> SSAValue | Reason:
        chain = _moves(m[self.move]) if self.move in m else []
        got = _through(chain[-1].operands[0] if chain else m[self.x], m.op)  # type: ignore[arg-type]
        if isinstance(got, str):
            return got
        x, out = got
        if any(_dequantizes(o) for op in chain for o in op.operands[1:]):
            return "float-operand"
        moved = x.q
        for op in reversed(chain):
            moved = type(op)(moved, *op.operands[1:], **dict(op.properties)).results[0]
        return qp.rescale(Quantized(moved, x.scale, x.zp), out, self.bounds(m, out))


class FoldAverage(_Rule):
    """`quantize(mean | avg_pool2d(dequantize q))`: an i32 sum of `q - zp`,
    requantized by `scale / (y_scale * count)`."""

    def __init__(self, reasons: Reasons) -> None:
        self.x = _dq()
        self.avg = is_op("mean", "avg_pool2d")(self.x)
        super().__init__(_quantized(self.avg), reasons)

    def kind(self, m: Match) -> str:
        return _short(m[self.avg].op.name)  # type: ignore[attr-defined]

    def fold(self, m: Match) -> SSAValue | Reason:
        op, got = m[self.avg].op, _through(m[self.x], m.op)  # type: ignore[attr-defined, arg-type]
        if isinstance(got, str):
            return got
        x, out = got
        dims = qp.shape(x.q)
        if any(d < 0 for d in dims):
            return "symbolic-shape"
        if isinstance(op, relay.AvgPool2DOp):
            if op.attrs.ceil_mode:
                return "ceil-mode"
            if not op.attrs.count_include_pad and any(op.attrs.padding or ()):
                return "padding-not-counted"
        centred = qp.widen(x.q, x.zp.reshape(()))
        total, count = _sum_pool(op, centred, dims) if isinstance(op, relay.AvgPool2DOp) else _sum(op, centred, dims)
        ratio = np.float64(x.scale.reshape(())) / (np.float64(out.scale.reshape(())) * count)
        return qp.requantize(total, np.asarray(ratio, np.float32), out, qnn.quantized_range(out.elem))


def _sum(op: Operation, centred: SSAValue, dims: tuple[int, ...]) -> tuple[SSAValue, int]:
    """The i32 sum over a mean's axes, and how many values each sum adds."""
    axes = list(range(len(dims))) if op.attrs.axes is None else [a % len(dims) for a in op.attrs.axes]
    total = relay.SumOp(centred, **dict(op.properties)).results[0]
    return total, math.prod(dims[a] for a in axes)


def _sum_pool(op: Operation, centred: SSAValue, dims: tuple[int, ...]) -> tuple[SSAValue, int]:
    """Window sums of NCHW `centred` (im2col, then a sum over each window; every
    window counts the same: padding counted, no ceil mode), and the count."""
    kh, kw = op.attrs.pool_size
    n, c = dims[:2]
    oh, ow = qp.shape(op.results[0])[2:]
    window = {k: op.properties[k] for k in ("strides", "padding", "dilation") if k in op.properties}
    cols = relay.Im2ColOp(centred, kernel_size=relay.i64_array([kh, kw]), **window).results[0]
    cols = relay.ReshapeOp(cols, shape=relay.i64_array([n, c, kh * kw, oh, ow])).results[0]
    return relay.SumOp(cols, axes=relay.i64_array([2])).results[0], kh * kw


# ------------------------------------------------------------------ the pass
RULES: tuple[type[_Rule], ...] = (
    FoldProduct, FoldBinary, FoldSoftmax, FoldConcatenate, FoldMove, FoldAverage, FoldTable, FoldProductToFloat,
)


def _dequantizes(v: SSAValue) -> bool:
    return isinstance(v, OpResult) and isinstance(v.op, qnn.DequantizeOp)


def _reads_quantized(v: SSAValue) -> bool:
    """Whether `v` dequantizes a u8/s8/s16 tensor (not an i32 accumulator or bias)."""
    return _dequantizes(v) and qp.element(v.op.data) != I32  # type: ignore[attr-defined]


def _left(root: Operation, reasons: Reasons) -> int:
    """Record every op still reading a dequantized value, with why; how many."""
    count = 0
    for op in root.walk():
        if isinstance(op, qnn.QnnOp) or op.has_trait(IsTerminator):
            continue
        if any(_reads_quantized(o) for o in op.operands):
            record_statistic(f"qnn-fold-qdq.left.{_short(op.name)}.{reasons.get(op, 'no-integer-form')}")
            count += 1
    return count


def _dead(root: Operation) -> set[Operation]:
    return {op for op in root.walk() if op.results and not any(r.uses for r in op.results)}


def _erase_dead(root: Operation, before: set[Operation]) -> None:
    """Erase the float ops the rewrites left without uses (dead now, not in
    `before`: `qnn.dequantize`s, the lower ops of a chain of moves, a
    tabulated chain) and what only fed them (the reshaped scales)."""
    work = [op for op in _dead(root) if op not in before]
    while work:
        op = work.pop()
        if op.parent is None or any(r.uses for r in op.results) or not is_side_effect_free(op):
            continue
        producers = [o.op for o in op.operands if isinstance(o, OpResult)]
        Rewriter.erase_op(op)
        work.extend(producers)


def fold_qdq(root: Operation) -> int:
    """Rewrite the QDQ chains under `root` into integer qnn ops; the number of
    chains rewritten."""
    reasons: Reasons = {}
    dead = _dead(root)
    done = rewrite([rule(reasons) for rule in RULES], root)
    _erase_dead(root, dead)
    _left(root, reasons)
    return done


@register_pass
@dataclass(frozen=True)
class QnnFoldQdqPass(ModulePass):
    """QDQ chains (dequantize -> op -> quantize) as integer qnn ops."""

    name = "qnn-fold-qdq"
    opt_level: ClassVar[int] = 1

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        fold_qdq(op)


__all__ = [
    "MOVES",
    "RULES",
    "FoldAverage",
    "FoldBinary",
    "FoldConcatenate",
    "FoldMove",
    "FoldProduct",
    "FoldProductToFloat",
    "FoldSoftmax",
    "FoldTable",
    "QnnFoldQdqPass",
    "fold_qdq",
    "integer_product",
    "quantized_bias",
]
