"""Converters of ops with extern kernels (`lamina.dialects.relay.algorithm`):
ScatterND, ScatterElements (and its old name Scatter), TopK, CumSum, CumProd,
Det and TfIdfVectorizer (a `relay.ngram_count` per n-gram length over the
pool sorted at import, then the weighting as elementwise ops)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import IntegerType, StringAttr, f32
from xdsl.ir import Block, SSAValue

from lamina.dialects import relay
from lamina.dialects.dtypes import numpy_dtype
from lamina.frontends.onnx.context import NodeContext, shape
from lamina.frontends.onnx.control import switch
from lamina.frontends.onnx.dynamic import topk_runtime_k
from lamina.frontends.onnx.helpers import (
    _axis,
    _cast,
    _elem,
    _ints,
    _rank,
    _reshape,
    _unit,
)
from lamina.frontends.onnx.registry import converter


def _reduction(ctx: NodeContext) -> StringAttr | None:
    reduction = ctx.attr("reduction", "none")
    reduction = reduction.decode() if isinstance(reduction, bytes) else str(reduction)
    if reduction not in relay.SCATTER_REDUCTIONS:
        raise ctx.error(
            f'reduction="{reduction}" is not one of {", ".join(relay.SCATTER_REDUCTIONS)}'
        )
    return None if reduction == "none" else StringAttr(reduction)


@converter("ScatterND", emits=("relay.scatter_nd",), notes="reduction, negative indices")
def _scatter_nd(ctx: NodeContext) -> Sequence[SSAValue]:
    data, indices, updates = ctx.input(0), ctx.input(1), ctx.input(2)
    return [ctx.emit(relay.ScatterNDOp(data, indices, updates, reduction=_reduction(ctx)))]


@converter(
    "ScatterElements", "Scatter", emits=("relay.scatter_elements",), notes="reduction, negative indices"
)
def _scatter_elements(ctx: NodeContext) -> Sequence[SSAValue]:
    data, indices, updates = ctx.input(0), ctx.input(1), ctx.input(2)
    axis = _axis(ctx, int(ctx.attr("axis", 0)), _rank(data))
    op = relay.ScatterElementsOp(
        data, indices, updates, axis=relay.i64_attr(axis), reduction=_reduction(ctx)
    )
    return [ctx.emit(op)]


@converter("TopK", emits=("relay.topk",), notes="largest, sorted (always sorted); k at run time over a static axis")
def _topk(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    rank = _rank(x)
    axis = _axis(ctx, int(ctx.attr("axis", -1)), rank)
    largest = _unit(ctx.attr("largest", 1))
    if ctx.opset >= 10 and ctx.at_run_time(1):
        return topk_runtime_k(ctx, x, axis, largest)
    k = _ints(ctx.const_value(1))[0] if ctx.opset >= 10 else int(ctx.attr("k"))
    if not 0 <= k <= shape(x)[axis]:
        raise ctx.error(f"k = {k} is outside 0..{shape(x)[axis]} (the size of axis {axis})")
    op = relay.TopKOp(x, k=relay.i64_attr(k), axis=relay.i64_attr(axis), largest=largest)
    ctx.emit(op)
    return list(op.results)


def _cumulative(ctx: NodeContext, kind: str) -> Sequence[SSAValue]:
    x = ctx.input(0)
    rank = _rank(x)

    def scan(axis: int, block: Block | None = None, args: Sequence[SSAValue] = ()) -> SSAValue:
        op = relay.CumulativeOp(
            args[0] if block is not None else x,
            axis=relay.i64_attr(axis),
            kind=StringAttr(kind),
            exclusive=_unit(ctx.attr("exclusive", 0)),
            reverse=_unit(ctx.attr("reverse", 0)),
        )
        if block is None:
            return ctx.emit(op)
        block.add_op(op)
        return op.output

    if not ctx.at_run_time(1):
        return [scan(_axis(ctx, _ints(ctx.const_value(1))[0], rank))]
    # The axis is a run-time value: one scan per axis, chosen when it runs.
    axis = _cast(ctx, _reshape(ctx, ctx.input(1), []), IntegerType(64))
    cases = [((a, a - rank), a) for a in range(rank)]
    return switch(ctx, axis, cases, [x], lambda a, block, args: [scan(a, block, args)])


@converter("CumSum", emits=("relay.cumulative",), notes="exclusive, reverse")
def _cumsum(ctx: NodeContext) -> Sequence[SSAValue]:
    return _cumulative(ctx, "sum")


@converter("CumProd", emits=("relay.cumulative",), notes="exclusive, reverse")
def _cumprod(ctx: NodeContext) -> Sequence[SSAValue]:
    return _cumulative(ctx, "prod")


@converter("Det", emits=("relay.det",), notes="LU with partial pivoting, in f64")
def _det(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    dims = shape(x)
    if len(dims) < 2 or dims[-1] != dims[-2]:
        raise ctx.error(f"X must hold square matrices [..., M, M], got shape {list(dims)}")
    if not relay.is_float(_elem(x)):
        raise ctx.error(f"X must be floating-point, got {numpy_dtype(_elem(x))}")
    return [ctx.emit(relay.DetOp(x))]


_TFIDF_MODES = ("TF", "IDF", "TFIDF")


def _tfidf_pools(ctx: NodeContext, lo: int, hi: int) -> dict[int, dict[tuple[int, ...], int]]:
    """The pool's n-grams of lengths `lo..hi`, per length: n-gram -> its index
    in the pool (the last one for a repeated n-gram, as the reference's trie
    keeps it)."""
    pool = [int(v) for v in ctx.attr("pool_int64s", [])]
    starts = [int(v) for v in ctx.attr("ngram_counts", [])]
    indexes = ctx.attr("ngram_indexes", [])
    if any(b < a for a, b in zip(starts, [*starts[1:], len(pool)], strict=True)) or (starts and starts[0] < 0):
        raise ctx.error(f"ngram_counts {starts} must be ascending offsets into pool_int64s (of {len(pool)} items)")
    bounds = list(zip(starts, [*starts[1:], len(pool)], strict=True))
    for n, (a, b) in enumerate(bounds, start=1):
        if (b - a) % n:
            raise ctx.error(f"the {n}-grams of pool_int64s ({b - a} items from {a}) are not a whole number of {n}-grams")
    total = sum((b - a) // n for n, (a, b) in enumerate(bounds, start=1))
    if total != len(indexes):
        raise ctx.error(f"ngram_indexes has {len(indexes)} entries for the pool's {total} n-grams")
    pools: dict[int, dict[tuple[int, ...], int]] = {}
    gram = 0  # the n-gram's index in the pool (and in ngram_indexes)
    for n, (a, b) in enumerate(bounds, start=1):
        count = (b - a) // n
        if lo <= n <= hi and count:
            pools[n] = {tuple(pool[a + i * n : a + (i + 1) * n]): gram + i for i in range(count)}
        gram += count
    return pools


@converter(
    "TfIdfVectorizer",
    emits=("relay.ngram_count", "relay.cast", "relay.multiply", "relay.where"),
    notes="pool_int64s (not pool_strings); TF, IDF, TFIDF; skips; [C] and [N, C] input",
)
def _tfidf(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    if ctx.has_attr("pool_strings"):
        raise ctx.unsupported("pool_strings (string input) is not supported; only pool_int64s")
    if len(shape(x)) not in (1, 2) or not relay.is_int(_elem(x)):
        raise ctx.error(f"X must be [C] or [N, C] integers, got {list(shape(x))} of {numpy_dtype(_elem(x))}")
    mode = str(ctx.attr("mode", ""))
    if mode not in _TFIDF_MODES:
        raise ctx.error(f'mode="{mode}" is not one of {", ".join(_TFIDF_MODES)}')
    lo, hi = int(ctx.attr("min_gram_length", 0)), int(ctx.attr("max_gram_length", 0))
    skip = int(ctx.attr("max_skip_count", 0))
    if not 1 <= lo <= hi or skip < 0:
        raise ctx.error(f"needs 1 <= min_gram_length ({lo}) <= max_gram_length ({hi}) and max_skip_count ({skip}) >= 0")
    indexes = [int(v) for v in ctx.attr("ngram_indexes", [])]
    if not indexes or min(indexes) < 0:
        raise ctx.error(f"ngram_indexes {indexes} must be non-empty and non-negative")
    width = max(indexes) + 1
    pools = _tfidf_pools(ctx, lo, hi)
    counts: SSAValue | None = None
    for n, grams in pools.items() or [(1, {})]:  # no n-gram at all: zeros
        keys = sorted(grams)
        op = relay.NgramCountOp(
            x,
            ctx.constant(np.array(keys, np.int64).reshape(len(keys), n), "tfidf_grams"),
            ctx.constant(np.array([indexes[grams[k]] for k in keys], np.int64), "tfidf_slots"),
            width=relay.i64_attr(width),
            max_skip=relay.i64_attr(skip),
        )
        c = ctx.emit(op)
        counts = c if counts is None else ctx.emit(relay.AddOp(counts, c))
    assert counts is not None
    tf = _cast(ctx, counts, f32)
    weights = [float(w) for w in ctx.attr("weights", [])]
    if mode == "TF" or (mode == "TFIDF" and not weights):
        return [tf]
    if weights and len(weights) != len(indexes):
        raise ctx.error(f"weights has {len(weights)} entries, not one per n-gram ({len(indexes)})")
    # Each n-gram's weight goes to its column (the spec's and onnxruntime's
    # reading; onnx.reference takes weights[column] instead).
    column_weight = np.ones(width, np.float32)
    if weights:
        used = sorted({i for grams in pools.values() for i in grams.values()})
        columns = [indexes[i] for i in used]
        if len(set(columns)) < len(columns):
            raise ctx.unsupported(
                f"n-grams sharing an output column (ngram_indexes {indexes}) with weights in {mode} "
                "mode are not supported"
            )
        for i in used:
            column_weight[indexes[i]] = weights[i]
    w = ctx.constant(column_weight, "tfidf_weights")
    if mode == "TFIDF":
        return [ctx.emit(relay.MultiplyOp(tf, w))]
    seen = ctx.emit(relay.GreaterOp(counts, ctx.constant(np.array(0, np.int64))))
    return [ctx.emit(relay.WhereOp(seen, w, ctx.constant(np.array(0.0, np.float32))))]
