"""`fold-constant`: evaluate graph ops whose operands are all constants.

TVM's `FoldConstant`. Ops are visited in block order, so a chain of constant ops
folds in one pass: each folded result is a new `relay.constant` that the next op
sees. A result whose elements are all equal becomes a splat `dense<v>`, a small one
(at most `lamina.dialects.relay.constant.INLINE_LIMIT` elements) an inline `dense<[...]>`, and anything larger a
`dense_resource` blob (weights never go through text). Constants left without uses
are erased.

Evaluation uses numpy, one evaluator per op name in `EVALUATORS`; an op without
one is left as it is (and counted as `fold-constant.no-evaluator`). A new graph op
becomes foldable with

    @register_evaluator("relay.my_op")
    def my_op(op, args: list[np.ndarray]) -> np.ndarray: ...

An evaluator raises `NotFoldable` (or returns None) to leave one op alone, e.g. an
integer division by zero. `evaluate(block, arrays)` runs a whole graph block with
the same evaluators: a reference interpreter for testing graph passes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import (
    ModuleOp,
    TensorType,
)
from xdsl.ir import Block, Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.traits import IsTerminator

from lamina.dialects import relay
from lamina.dialects.constants import constant_data
from lamina.dialects.dtypes import numpy_dtype
from lamina.dialects.relay.constant import make_constant
from lamina.dialects.relay_region import FusedOp
from lamina.errors import LaminaError
from lamina.passes import record_statistic
from lamina.passes.registry import register_pass
from lamina.plugins import EVALUATORS_GROUP
from lamina.registry import Registry

Evaluator = Callable[[Operation, list[np.ndarray]], np.ndarray | None]


def _check_evaluator(name: str, obj: object) -> Evaluator:
    if not callable(obj):
        raise LaminaError(f"the evaluator of '{name}' is not callable: {obj!r}")
    return obj  # type: ignore[return-value]


#: numpy evaluators by op name: lamina's and the plugins' (entry-point group
#: `lamina.evaluators`, the entry point's name is the op name).
EVALUATORS: Registry[Evaluator] = Registry("numpy evaluator", EVALUATORS_GROUP, _check_evaluator)


class NotFoldable(Exception):
    """Raised by an evaluator to leave an op unfolded."""


def register_evaluator(*names: str) -> Callable[[Evaluator], Evaluator]:
    """Register a numpy evaluator for the ops `names` (full op names)."""

    def wrap(fn: Evaluator) -> Evaluator:
        for name in names:
            EVALUATORS.register(name, fn)
        return fn

    return wrap


# ------------------------------------------------------------------ evaluators
@register_evaluator("relay.add")
def _add(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    return np.add(args[0], args[1])


@register_evaluator("relay.subtract")
def _subtract(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    return np.subtract(args[0], args[1])


@register_evaluator("relay.multiply")
def _multiply(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    return np.multiply(args[0], args[1])


@register_evaluator("relay.divide")
def _divide(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    a, b = args
    if a.dtype.kind in "iub":
        if np.any(b == 0):
            raise NotFoldable("integer division by zero")
        # ONNX's Div: truncate toward zero.
        q = np.abs(a) // np.abs(b)
        return np.where((a < 0) != (b < 0), -q, q)
    return np.true_divide(a, b)


@register_evaluator("relay.exp")
def _exp(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    return np.exp(args[0])


@register_evaluator("relay.floor")
def _floor(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    return np.floor(args[0])


@register_evaluator("relay.relu")
def _relu(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    return np.maximum(args[0], np.zeros((), args[0].dtype))


@register_evaluator("relay.matmul")
def _matmul(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    return np.matmul(args[0], args[1])


@register_evaluator("relay.dense")
def _dense(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    a, b = args[0], args[1]
    if op.attrs.transpose_a:
        a = a.T
    if op.attrs.transpose_b:
        b = b.T
    out = op.attrs.alpha * np.matmul(a, b)
    if len(args) == 3:
        out = out + op.attrs.beta * args[2]
    return out


@register_evaluator("relay.softmax")
def _softmax(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    x = args[0]
    axis = relay.normalize_axis(op.name, op.attrs.axis, x.ndim)
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


@register_evaluator("relay.reshape")
def _reshape(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    return args[0].reshape(op.attrs.shape)


@register_evaluator("relay.transpose")
def _transpose(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    return np.transpose(args[0], op.attrs.perm)


@register_evaluator("relay.cast")
def _cast(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    to = numpy_dtype(op.results[0].type.get_element_type())  # type: ignore[attr-defined]
    x = args[0]
    if x.dtype.kind == "f" and to.kind in "iu" and not np.all(np.isfinite(x)):
        raise NotFoldable("a non-finite float cast to an integer")
    return x.astype(to)


@register_evaluator("relay.round")
def _round(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    return np.round(args[0])  # half to even, as relay.round


@register_evaluator("relay.clip")
def _clip(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    x = args[0]
    lo, hi = op.attrs.a_min, op.attrs.a_max
    if lo is not None:
        x = np.where(x < lo, np.asarray(lo).astype(x.dtype), x)
    if hi is not None:
        x = np.where(x > hi, np.asarray(hi).astype(x.dtype), x)
    return x


@register_evaluator("relay.broadcast_to")
def _broadcast_to(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    return np.broadcast_to(args[0], op.attrs.shape).copy()


@register_evaluator("relay.rsqrt")
def _rsqrt(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    return 1.0 / np.sqrt(args[0])


def _along(op: Operation, v: np.ndarray, rank: int) -> np.ndarray:
    """A per-channel vector shaped to broadcast along the op's `axis` (1)."""
    axis = relay.normalize_axis(op.name, op.attrs.axis, rank)
    return v.reshape((-1,) + (1,) * (rank - 1 - axis))


@register_evaluator("relay.bias_add")
def _bias_add(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    return args[0] + _along(op, args[1], args[0].ndim)


@register_evaluator("relay.batch_norm")
def _batch_norm(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    x, gamma, beta, mean, var = args
    eps = op.attrs.epsilon
    r = x.ndim
    return (x - _along(op, mean, r)) / np.sqrt(_along(op, var, r) + eps) * _along(
        op, gamma, r
    ) + _along(op, beta, r)


@register_evaluator("relay.det")
def _det(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    x = args[0]
    return np.linalg.det(x.astype(np.float64)).astype(x.dtype)


@register_evaluator("relay.ngram_count")
def _ngram_count(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    data, grams, slots = args
    width = op.attrs.width
    n = grams.shape[1]
    where = {tuple(int(v) for v in g): int(s) for g, s in zip(grams, slots, strict=True)}
    rows = data.reshape(-1, data.shape[-1]).astype(np.int64)
    out = np.zeros((rows.shape[0], width), np.int64)
    for r, row in enumerate(rows):
        for d in range(1, (op.attrs.max_skip if n > 1 else 0) + 2):
            for s in range(len(row) - (n - 1) * d):
                slot = where.get(tuple(int(v) for v in row[s : s + (n - 1) * d + 1 : d]))
                if slot is not None and 0 <= slot < width:
                    out[r, slot] += 1
    return out.reshape(*data.shape[:-1], width)


# Data movement over constants: a model's masks and position tables built by
# slicing and assigning into slices (torch's functionalized writes) fold.
@register_evaluator("relay.strided_slice")
def _strided_slice(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    x = args[0]
    attrs = op.attrs
    steps = attrs.strides or [1] * x.ndim
    for axis, (b, e, s) in enumerate(zip(attrs.begin, attrs.end, steps, strict=True)):
        if not (isinstance(b, int) and isinstance(e, int)):
            raise NotFoldable("symbolic slice bounds")
        n = relay.StridedSliceOp.extent(b, e, s)
        x = np.take(x, b + s * np.arange(n, dtype=np.int64), axis=axis)
    return x


@register_evaluator("relay.concatenate")
def _concatenate(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    return np.concatenate(args, axis=relay.normalize_axis(op.name, op.attrs.axis, args[0].ndim))


@register_evaluator("relay.pad")
def _pad(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    x = args[0]
    widths = list(op.attrs.pad_width)
    if op.attrs.pad_mode != "constant" or min(widths) < 0:
        raise NotFoldable("a pad other than a constant one")
    pairs = list(zip(widths[: x.ndim], widths[x.ndim :], strict=True))
    return np.pad(x, pairs, constant_values=np.asarray(op.attrs.pad_value).astype(x.dtype))


@register_evaluator("relay.where")
def _where(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    return np.where(args[0], args[1], args[2])


_COMPARE = {
    "relay.equal": np.equal, "relay.not_equal": np.not_equal, "relay.less": np.less,
    "relay.less_equal": np.less_equal, "relay.greater": np.greater,
    "relay.greater_equal": np.greater_equal,
}


@register_evaluator(*_COMPARE)
def _compare(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    return _COMPARE[op.name](args[0], args[1])


def evaluate(block: Block, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Run a graph block (a function body or a `relay.fused` body) on numpy arrays
    with `EVALUATORS`: a reference interpreter for testing graph passes. Returns
    the values of the block's terminator."""
    env: dict[SSAValue, np.ndarray] = dict(zip(block.args, args, strict=True))
    for op in block.ops:
        if op.has_trait(IsTerminator):
            return [env[v] for v in op.operands]
        if isinstance(op, relay.ConstantOp):
            data = constant_data(op)
            if data is None:
                raise LaminaError(f"evaluate: the data of {op.result.name_hint} is elided")
            env[op.results[0]] = data
        elif isinstance(op, FusedOp):
            outs = evaluate(op.body.block, [env[v] for v in op.operands])
            env.update(zip(op.results, outs, strict=True))
        else:
            fn = EVALUATORS.lookup(op.name)
            if fn is None:
                raise LaminaError(f"evaluate: no numpy evaluator for {op.name}")
            with np.errstate(all="ignore"):
                value = fn(op, [env[v] for v in op.operands])
            t = op.results[0].type
            assert isinstance(t, TensorType)
            env[op.results[0]] = np.asarray(value).astype(
                numpy_dtype(t.get_element_type()), copy=False
            )
    raise LaminaError("evaluate: the block has no terminator")


# ------------------------------------------------------------------- the pass
def _operand_data(op: Operation) -> list[np.ndarray] | None:
    arrays = []
    for operand in op.operands:
        if not (isinstance(operand, OpResult) and isinstance(operand.op, relay.ConstantOp)):
            return None
        data = constant_data(operand.op)
        if data is None:
            return None
        arrays.append(data)
    return arrays


def fold_block(block: Block) -> tuple[int, int]:
    """Fold the constant ops of `block`; return (folded, without an evaluator)."""
    folded = missing = 0
    for op in list(block.ops):
        if (
            not isinstance(op, relay.RelayOp)
            or isinstance(op, relay.ConstantOp)
            or not op.operands
            or len(op.results) != 1
            or not isinstance(op.results[0].type, TensorType)
            or not all(isinstance(d, int) for d in relay.shape_of(op.results[0].type))
        ):
            continue  # (a result of symbolic shape, e.g. a broadcast to one, is no constant)
        args = _operand_data(op)
        if args is None:
            continue
        evaluator = EVALUATORS.lookup(op.name)
        if evaluator is None:
            missing += 1
            continue
        try:
            with np.errstate(all="ignore"):
                value = evaluator(op, args)
        except NotFoldable:
            continue
        if value is None:
            continue
        result = op.results[0]
        const = make_constant(value, result.type, result.name_hint or "folded")  # type: ignore[arg-type]
        const.result.name_hint = result.name_hint
        block.insert_op_before(const, op)
        result.replace_all_uses_with(const.result)
        producers = [o.op for o in op.operands if isinstance(o, OpResult)]
        Rewriter.erase_op(op)
        for p in producers:
            if p.parent is not None and not any(r.uses for r in p.results):
                Rewriter.erase_op(p)
        folded += 1
    return folded, missing


def fold_constants(root: Operation) -> int:
    """Fold every constant op under `root`; return how many were folded."""
    folded = missing = 0
    blocks = [b for op in root.walk() for r in op.regions for b in r.blocks]
    for block in blocks:
        f, m = fold_block(block)
        folded += f
        missing += m
    record_statistic("fold-constant.folded", folded)
    record_statistic("fold-constant.no-evaluator", missing)
    return folded


@register_pass
@dataclass(frozen=True)
class FoldConstantPass(ModulePass):
    """Evaluate graph ops whose operands are all constants."""

    name = "fold-constant"
    opt_level: ClassVar[int] = 1

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        fold_constants(op)


__all__ = [
    "EVALUATORS",
    "FoldConstantPass",
    "NotFoldable",
    "evaluate",
    "fold_constants",
    "register_evaluator",
]
