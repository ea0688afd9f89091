"""Constant folding while importing: shapes are static, so a node whose inputs
are all constants (initializers, `Constant`s, `Shape`s of static tensors, ...) is
evaluated by `onnx.reference` and becomes a constant instead of relay ops.
"""

from __future__ import annotations

import numpy as np
import onnx
from xdsl.ir import SSAValue

from lamina.frontends.onnx.checks import check_size
from lamina.frontends.onnx.context import describe_node
from lamina.symbolic import SymbolicError

#: Ops whose reference implementation loops in Python per element: never folded.
SLOW_TO_FOLD = frozenset(
    {"Conv", "ConvTranspose", "MaxPool", "AveragePool", "LpPool", "LRN", "Resize"}
)
#: Ops kept as ops on constants: a DequantizeLinear of a constant weight keeps
#: its integers and scales for `qnn-fold-qdq` (integer kernels); `fold-constant`
#: dequantizes those left in float.
KEPT_FOR_GRAPH_PASSES = frozenset({"DequantizeLinear"})
#: Constant inputs up to this many elements (in total) are folded by evaluation.
FOLD_LIMIT = 1 << 20


def fold(
    node: onnx.NodeProto, ins: list[SSAValue | None], consts: dict[SSAValue, np.ndarray], opset: int
) -> list[np.ndarray] | None:
    """Evaluate a node whose inputs are all constants with onnx.reference; None
    when it cannot (or should not) be folded."""
    if node.op_type in SLOW_TO_FOLD | KEPT_FOR_GRAPH_PASSES or any(v is not None and v not in consts for v in ins):
        return None
    if any(v is not None and consts[v].dtype == object for v in ins):
        return fold_symbolic(node, [None if v is None else consts[v] for v in ins])
    if sum(consts[v].size for v in ins if v is not None) > FOLD_LIMIT:
        return None
    if not any(v is not None for v in ins) and node.op_type != "Constant":
        return None  # no inputs: a source op (random, ...), not a computation
    _check_fold_size(node, [None if v is None else consts[v] for v in ins], opset)
    from onnx.reference import ReferenceEvaluator  # slow to import: only when folding

    feeds = {name: consts[v] for name, v in zip(node.input, ins, strict=False) if v is not None}
    try:
        outs = ReferenceEvaluator(node, opsets={"": opset}).run(None, feeds)
    except Exception:  # the converter reports what is wrong, in its own words
        return None
    arrays = [np.asarray(o) for o in outs]
    if any(a.dtype.kind not in "biuf" for a in arrays):
        return None
    return arrays


def fold_symbolic(node: onnx.NodeProto, ins: list[np.ndarray | None]) -> list[np.ndarray] | None:
    """Evaluate a shape computation over symbolic dims (object arrays of `int | Sym`):
    the `Shape -> Gather -> Concat -> Reshape` chains of exported models, and the
    `Equal`/`Where` an exporter writes around them. None when the node is not one,
    or its result depends on the sizes' values (`Equal(batch, seq)`): then it is
    converted and computed at run time."""
    fn = _SYMBOLIC.get(node.op_type)
    if fn is None:
        return None
    attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
    try:
        out = fn(attrs, ins)
    except (SymbolicError, ValueError, TypeError, IndexError):
        return None
    out = np.asarray(out)
    return [out if out.dtype == bool else np.asarray(out, dtype=object)]


def _axes(attrs: dict, ins: list[np.ndarray | None]) -> list[int]:
    if len(ins) > 1 and ins[1] is not None:
        return [int(a) for a in ins[1].reshape(-1)]
    return list(attrs.get("axes", []))


def _unsqueeze(attrs: dict, ins: list[np.ndarray | None]) -> np.ndarray:
    x = ins[0]
    axes = _axes(attrs, ins)
    rank = x.ndim + len(axes)
    for a in sorted(a % rank for a in axes):
        x = np.expand_dims(x, a)
    return x


def _squeeze(attrs: dict, ins: list[np.ndarray | None]) -> np.ndarray:
    axes = _axes(attrs, ins)
    return np.squeeze(ins[0], axis=tuple(axes) if axes else None)


def _slice(attrs: dict, ins: list[np.ndarray | None]) -> np.ndarray:
    x = ins[0]
    starts, ends = (list(map(int, v.reshape(-1))) for v in ins[1:3])
    axes = list(map(int, ins[3].reshape(-1))) if len(ins) > 3 and ins[3] is not None else list(range(len(starts)))
    steps = list(map(int, ins[4].reshape(-1))) if len(ins) > 4 and ins[4] is not None else [1] * len(starts)
    index = [slice(None)] * x.ndim
    for a, b, e, st in zip(axes, starts, ends, steps, strict=True):
        index[a] = slice(b, e, st)
    return x[tuple(index)]


def _cast(attrs: dict, ins: list[np.ndarray | None]) -> np.ndarray:
    if attrs.get("to") not in (6, 7):  # to int32/int64: dims stay dims
        raise TypeError("a cast of symbolic dims to a non-integer type")
    return ins[0]


def _binary(f):  # type: ignore[no-untyped-def]
    return lambda attrs, ins: f(ins[0], ins[1])


def _known_equal(a: object, b: object) -> bool:
    """Whether dims `a` and `b` are equal, when the sizes' positivity decides it
    (`seq == -1` is false for every size); a SymbolicError when only the sizes'
    values would."""
    if a == b:
        return True
    if a < b or a > b:  # type: ignore[operator]
        return False
    raise SymbolicError(f"whether {a} == {b} depends on the sizes")


def _equal(attrs: dict, ins: list[np.ndarray | None]) -> np.ndarray:
    a, b = np.broadcast_arrays(ins[0], ins[1])
    out = np.array([_known_equal(x, y) for x, y in zip(a.reshape(-1), b.reshape(-1), strict=True)], dtype=bool)
    return out.reshape(a.shape)


def _where(attrs: dict, ins: list[np.ndarray | None]) -> np.ndarray:
    if ins[0].dtype == object:
        raise TypeError("a condition over symbolic dims")
    return np.where(ins[0].astype(bool), ins[1], ins[2])


_SYMBOLIC = {
    "Identity": lambda attrs, ins: ins[0],
    "Cast": lambda attrs, ins: _cast(attrs, ins),
    "Gather": lambda attrs, ins: np.take(ins[0], ins[1].astype(np.int64), axis=int(attrs.get("axis", 0))),
    "Unsqueeze": _unsqueeze,
    "Squeeze": _squeeze,
    "Concat": lambda attrs, ins: np.concatenate(ins, axis=int(attrs["axis"])),
    "Slice": _slice,
    "Reshape": lambda attrs, ins: ins[0].reshape([int(d) for d in ins[1].reshape(-1)]),
    "Add": _binary(lambda a, b: a + b),
    "Sub": _binary(lambda a, b: a - b),
    "Mul": _binary(lambda a, b: a * b),
    "Div": _binary(lambda a, b: a // b),  # sizes are positive: truncation is floor
    # TorchScript's expand (`Where(Equal(shape, -1), 1, shape)`) and friends:
    # decided by the sizes' positivity, else computed when the model runs
    "Equal": _equal,
    "Where": _where,
}


def _check_fold_size(
    node: onnx.NodeProto, ins: list[np.ndarray | None], opset: int
) -> None:
    """Refuse to evaluate a node whose output, computed from constant inputs,
    would exceed the memory budget (e.g. ConstantOfShape of an absurd shape)."""
    op = node.op_type
    try:
        if op == "ConstantOfShape" and ins and ins[0] is not None:
            shape = [int(d) for d in ins[0].reshape(-1)]
        elif op == "Expand" and len(ins) > 1 and ins[0] is not None and ins[1] is not None:
            target = [int(d) for d in ins[1].reshape(-1)]
            shape = list(np.broadcast_shapes(ins[0].shape, tuple(max(d, 1) for d in target)))
        elif op == "Tile" and len(ins) > 1 and ins[0] is not None and ins[1] is not None:
            reps = [int(d) for d in ins[1].reshape(-1)]
            if len(reps) != ins[0].ndim:
                return
            shape = [a * r for a, r in zip(ins[0].shape, reps, strict=True)]
        elif op == "Range" and len(ins) > 2 and all(v is not None for v in ins[:3]):
            start, limit, delta = (float(np.asarray(v).reshape(-1)[0]) for v in ins[:3])  # type: ignore[union-attr]
            if delta == 0 or not np.isfinite([start, limit, delta]).all():
                return
            shape = [max(int(np.ceil((limit - start) / delta)), 0)]
        else:
            return
    except (ValueError, TypeError, OverflowError, IndexError):
        return  # the converter says what is wrong
    check_size(f"{describe_node(node, opset)}: its output", shape, 8)


__all__ = ["FOLD_LIMIT", "KEPT_FOR_GRAPH_PASSES", "SLOW_TO_FOLD", "fold", "fold_symbolic"]
