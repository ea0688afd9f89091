"""Property tests over random relay graphs: many ops, shapes and broadcasting.

A hypothesis strategy builds a graph op by op together with its numpy reference
values (so result types come from numpy, and lamina's type inference is checked
against them). Properties: print -> parse -> print is the identity in the custom and
generic forms; the compiled graph equals numpy; every graph pass preserves numerics
(checked with a small numpy interpreter of the IR, `relay.fused` included).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    UnitAttr,
)
from xdsl.ir import Block, Operation
from xdsl.printer import Printer

import lamina
from lamina.dialects import relay
from lamina.dialects.constants import constant_data
from lamina.transforms.graph.fold_constant import EVALUATORS

F32 = np.float32
#: Multiplies the examples per property (LAMINA_PROPERTY_SCALE=10 for a long run).
SCALE = int(os.environ.get("LAMINA_PROPERTY_SCALE", "1"))


def ttype(shape: tuple[int, ...], dtype: np.dtype | None = None) -> str:
    elem = "i1" if dtype == np.bool_ else "f32"
    return f"tensor<{''.join(f'{d}x' for d in shape)}{elem}>"


def i64s(values: tuple[int, ...] | list[int]) -> str:
    return f"array<i64: {', '.join(map(str, values))}>" if len(values) else "array<i64>"


def vtype(a: np.ndarray) -> str:
    return ttype(a.shape, a.dtype)


def literal(a: np.ndarray) -> str:
    def rec(x: np.ndarray) -> str:
        if x.ndim == 0:
            return repr(float(x))
        return "[" + ", ".join(rec(v) for v in x) + "]"

    return f"dense<{rec(a)}> : {ttype(a.shape)}"


@dataclass
class Graph:
    """A relay function under construction and the numpy value of each SSA name."""

    inputs: list[tuple[str, np.ndarray]] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    values: dict[str, np.ndarray] = field(default_factory=dict)
    used: set[str] = field(default_factory=set)

    def emit(self, op: str, operands: list[str], out: np.ndarray, attrs: str = "") -> str:
        name = f"%v{len(self.lines)}"
        out = np.asarray(out)
        out = out if out.dtype == np.bool_ else out.astype(F32)
        types = ", ".join(vtype(self.values[o]) for o in operands)
        attr = f" {{{attrs}}}" if attrs else ""
        self.lines.append(
            f"  {name} = relay.{op} {', '.join(operands)}{attr} : ({types}) -> {vtype(out)}"
        )
        self.values[name] = out
        self.used.update(operands)
        return name

    def constant(self, value: np.ndarray) -> str:
        name = f"%c{len(self.lines)}"
        self.lines.append(f"  {name} = relay.constant {literal(value)}")
        self.values[name] = value.astype(F32)
        return name

    def text(self, results: list[str]) -> str:
        args = ", ".join(f"%{n}: {vtype(a)}" for n, a in self.inputs)
        rtypes = ", ".join(vtype(self.values[r]) for r in results)
        body = "\n".join(self.lines)
        return (
            f"func.func @main({args}) -> ({rtypes}) {{\n{body}\n"
            f"  func.return {', '.join(results)} : {rtypes}\n}}\n"
        )


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


def _softmax(x: np.ndarray, axis: int) -> np.ndarray:
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


UNARY: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "relu": lambda x: np.maximum(x, 0),
    "negative": np.negative,
    "abs": np.abs,
    "tanh": np.tanh,
    "sigmoid": _sigmoid,
    "floor": np.floor,
    "ceil": np.ceil,
}
BINARY: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "add": np.add,
    "subtract": np.subtract,
    "multiply": np.multiply,
    "maximum": np.maximum,
    "minimum": np.minimum,
}
REDUCE: dict[str, Callable[..., np.ndarray]] = {
    "sum": np.sum,
    "mean": np.mean,
    "max": np.max,
    "min": np.min,
}



def _erf(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf, otypes=[np.float64])(x)


def _conv1d(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    k = w.shape[2]
    cols = np.stack([x[:, :, i : i + x.shape[2] - k + 1] for i in range(k)], -1)  # N C W' K
    return np.einsum("ncwk,ock->now", cols, w)


def _pool1d(x: np.ndarray, k: int, fn: Callable[..., np.ndarray]) -> np.ndarray:
    return fn(np.stack([x[:, :, i : i + x.shape[2] - k + 1] for i in range(k)], -1), axis=-1)


def _layer_norm(x: np.ndarray, g: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * g + b


def _pad(x: np.ndarray, widths: list[int], value: float) -> np.ndarray:
    n = x.ndim
    return np.pad(x, list(zip(widths[:n], widths[n:], strict=True)), constant_values=value)


#: Reference semantics of more ops, from operands and attributes as Python values
#: (`attrs` below): shared by the generator and the interpreter.
REF: dict[str, Callable[[list[np.ndarray], dict[str, object]], np.ndarray]] = {
    "exp": lambda a, p: np.exp(a[0]),
    "log": lambda a, p: np.log(a[0]),
    "sqrt": lambda a, p: np.sqrt(a[0]),
    "sin": lambda a, p: np.sin(a[0]),
    "cos": lambda a, p: np.cos(a[0]),
    "erf": lambda a, p: _erf(a[0]),
    "softplus": lambda a, p: np.log1p(np.exp(a[0])),
    "power": lambda a, p: np.power(a[0], a[1]),
    "prelu": lambda a, p: np.where(a[0] > 0, a[0], a[1] * a[0]),
    "logsumexp": lambda a, p: np.log(np.sum(np.exp(a[0]), axis=tuple(p["axes"]), keepdims="keepdims" in p)),  # type: ignore[arg-type]
    "log_softmax": lambda a, p: np.log(_softmax(a[0], p["axis"])),  # type: ignore[arg-type]
    "conv1d": lambda a, p: _conv1d(a[0], a[1]),
    "max_pool1d": lambda a, p: _pool1d(a[0], p["pool_size"][0], np.max),  # type: ignore[index]
    "avg_pool1d": lambda a, p: _pool1d(a[0], p["pool_size"][0], np.mean),  # type: ignore[index]
    "layer_norm": lambda a, p: _layer_norm(a[0], a[1], a[2], p["epsilon"]),  # type: ignore[arg-type]
    "strided_slice": lambda a, p: a[0][
        tuple(slice(b, e, s) for b, e, s in zip(p["begin"], p["end"], p["strides"], strict=True))  # type: ignore[call-overload]
    ],
    "pad": lambda a, p: _pad(a[0], p["pad_width"], p.get("pad_value", 0.0)),  # type: ignore[arg-type]
    "tile": lambda a, p: np.tile(a[0], p["reps"]),  # type: ignore[call-overload]
    "broadcast_to": lambda a, p: np.broadcast_to(a[0], p["shape"]),  # type: ignore[arg-type]
}


def attrs_text(p: dict[str, object]) -> str:
    """Python attribute values as relay's attribute dictionary text."""
    out = []
    for k, v in p.items():
        if v is True:
            out.append(k)
        elif isinstance(v, list):
            out.append(f"{k} = {i64s(v)}")
        elif isinstance(v, float):
            out.append(f"{k} = {v:.9e} : f64")
        else:
            out.append(f"{k} = {v} : i64")
    return ", ".join(out)


small_floats = st.floats(-2, 2, width=32, allow_subnormal=False)


def _array(draw: st.DrawFn, shape: tuple[int, ...]) -> np.ndarray:
    return draw(hnp.arrays(F32, shape, elements=small_floats))


def _bounded(g: Graph, v: str) -> str:
    """`v` squashed into [-1, 1] when it has grown large (keeps float error small)."""
    if np.abs(g.values[v]).max(initial=0) > 8:
        return g.emit("tanh", [v], np.tanh(g.values[v]))
    return v


@st.composite
def graphs(draw: st.DrawFn, max_ops: int = 7) -> tuple[str, list[np.ndarray], list[np.ndarray]]:
    """(module text, input arrays, numpy reference outputs)."""
    g = Graph()
    shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=1, max_dims=3, min_side=1, max_side=4))
    for i, shape in enumerate((*shapes.input_shapes, shapes.result_shape)[: draw(st.integers(1, 3))]):
        arr = _array(draw, shape)
        g.inputs.append((f"in{i}", arr))
        g.values[f"%in{i}"] = arr
    pool = [f"%in{i}" for i in range(len(g.inputs))]
    for _ in range(draw(st.integers(1, max_ops))):
        kind = draw(st.sampled_from(["unary", "binary", "binary", "const", "reduce", "softmax", "transpose", "reshape", "clip", "matmul", "dense", "divide", "leaky_relu", "where", "concat", "dup", "more", "more", "more"]))
        x = draw(st.sampled_from(pool))
        xv = g.values[x]
        if kind == "unary":
            op = draw(st.sampled_from(sorted(UNARY)))
            pool.append(g.emit(op, [x], UNARY[op](xv)))
        elif kind == "binary":
            op = draw(st.sampled_from(sorted(BINARY)))
            ys = [p for p in pool if _broadcasts(xv.shape, g.values[p].shape)]
            y = draw(st.sampled_from(ys))
            pool.append(_bounded(g, g.emit(op, [x, y], BINARY[op](xv, g.values[y]))))
        elif kind == "const":  # identities and constant subgraphs for the passes
            op = draw(st.sampled_from(["add", "multiply", "subtract"]))
            shape = draw(st.sampled_from([(), xv.shape[-1:], xv.shape]))
            value = draw(st.sampled_from([np.zeros(shape), np.ones(shape), None]))
            c = g.constant(_array(draw, shape) if value is None else value)
            if draw(st.booleans()):  # a constant-only op, for fold-constant
                c = g.emit("multiply", [c, c], g.values[c] * g.values[c])
            pool.append(g.emit(op, [x, c], BINARY[op](xv, g.values[c])))
        elif kind == "reduce" and xv.ndim:
            op = draw(st.sampled_from(sorted(REDUCE)))
            axes = sorted(draw(st.sets(st.integers(0, xv.ndim - 1), min_size=1)))
            keep = draw(st.booleans())
            attrs = f"axes = {i64s(axes)}" + (", keepdims" if keep else "")
            pool.append(g.emit(op, [x], REDUCE[op](xv, axis=tuple(axes), keepdims=keep), attrs))
        elif kind == "softmax" and xv.ndim:
            axis = draw(st.integers(-xv.ndim, xv.ndim - 1))
            pool.append(g.emit("softmax", [x], _softmax(xv, axis), f"axis = {axis} : i64"))
        elif kind == "transpose" and xv.ndim > 1:
            perm = draw(st.permutations(range(xv.ndim)))
            pool.append(g.emit("transpose", [x], xv.transpose(perm), f"perm = {i64s(perm)}"))
        elif kind == "reshape":
            shape = draw(st.sampled_from([(xv.size,), (1, xv.size), (*xv.shape, 1), tuple(reversed(xv.shape))]))
            if int(np.prod(shape)) == xv.size:
                pool.append(g.emit("reshape", [x], xv.reshape(shape), f"shape = {i64s(shape)}"))
        elif kind == "clip":
            lo = draw(st.sampled_from([-1.0, 0.0]))
            pool.append(g.emit("clip", [x], np.clip(xv, lo, 1.0), f"a_min = {lo} : f64, a_max = 1.0 : f64"))
        elif kind == "matmul" and xv.ndim in (1, 2):
            n = draw(st.integers(1, 3))
            w = g.constant(_array(draw, (xv.shape[-1], n)))
            pool.append(_bounded(g, g.emit("matmul", [x, w], xv @ g.values[w])))
        elif kind == "dense" and xv.ndim == 2:
            n = draw(st.integers(1, 3))
            w = g.constant(_array(draw, (n, xv.shape[1])))
            pool.append(_bounded(g, g.emit("dense", [x, w], xv @ g.values[w].T, "transpose_b")))
        elif kind == "divide":
            shape = draw(st.sampled_from([(), xv.shape[-1:]]))
            c = g.constant(draw(hnp.arrays(F32, shape, elements=st.floats(0.5, 2, width=32))))
            pool.append(g.emit("divide", [x, c], xv / g.values[c]))
        elif kind == "leaky_relu":
            pool.append(g.emit("leaky_relu", [x], np.where(xv > 0, xv, F32(0.25) * xv), "alpha = 0.25 : f64"))
        elif kind == "where":
            ys = [p for p in pool if _broadcasts(xv.shape, g.values[p].shape)]
            y = draw(st.sampled_from(ys))
            cond = g.emit("greater", [x, y], xv > g.values[y])
            out = np.where(g.values[cond], xv, g.values[y])
            pool.append(g.emit("where", [cond, x, y], out))
        elif kind == "concat" and xv.ndim:
            axis = draw(st.integers(0, xv.ndim - 1))
            pool.append(g.emit("concatenate", [x, x], np.concatenate([xv, xv], axis), f"axis = {axis} : i64"))
        elif kind == "more":
            more = _more(draw, g, x)
            if more is not None:
                pool.append(_bounded(g, more))
        elif kind == "dup" and g.lines:  # a common subexpression, for cse
            op = draw(st.sampled_from(sorted(UNARY)))
            a = g.emit(op, [x], UNARY[op](xv))
            b = g.emit(op, [x], UNARY[op](xv))
            pool.append(g.emit("add", [a, b], g.values[a] + g.values[b]))
    results = [pool[-1]]
    dead = [p for p in pool if p not in g.used and p != pool[-1] and not p.startswith("%in")]
    if dead and draw(st.booleans()):
        results.append(dead[0])
    # Unused ops stay in the graph: dead code for dce.
    return g.text(results), [a for _, a in g.inputs], [g.values[r] for r in results]


def _ref(g: Graph, op: str, operands: list[str], p: dict[str, object]) -> str:
    out = REF[op]([g.values[o] for o in operands], p)
    return g.emit(op, operands, out, attrs_text(p))


def _more(draw: st.DrawFn, g: Graph, x: str) -> str | None:
    """One of REF's ops on `x`, with operands and attributes that suit its shape."""
    xv = g.values[x]
    shape, rank = xv.shape, xv.ndim
    op = draw(st.sampled_from(sorted(REF)))
    if op == "exp":
        return _ref(g, op, [g.emit("tanh", [x], np.tanh(xv))], {})
    if op == "sqrt":
        return _ref(g, op, [g.emit("abs", [x], np.abs(xv))], {})
    if op == "log":
        a = g.emit("abs", [x], np.abs(xv))
        one = g.constant(np.ones(()))
        return _ref(g, op, [g.emit("add", [a, one], g.values[a] + 1)], {})
    if op in ("sin", "cos", "erf", "softplus"):
        return _ref(g, op, [x], {})
    if op == "power":
        return _ref(g, op, [x, g.constant(np.full((), 2.0))], {})
    if op == "prelu":
        return _ref(g, op, [x, g.constant(_array(draw, shape[-1:]))], {})
    if op == "logsumexp" and rank:
        axes = sorted(draw(st.sets(st.integers(0, rank - 1), min_size=1)))
        p: dict[str, object] = {"axes": axes}
        if draw(st.booleans()):
            p["keepdims"] = True
        return _ref(g, op, [x], p)
    if op == "log_softmax" and rank:
        return _ref(g, op, [x], {"axis": draw(st.integers(0, rank - 1))})
    if op in ("conv1d", "max_pool1d", "avg_pool1d") and rank != 3:
        flat = (1, 1, xv.size)
        x = g.emit("reshape", [x], xv.reshape(flat), f"shape = {i64s(flat)}")
        xv, shape, rank = g.values[x], flat, 3
    if op == "conv1d" and rank == 3:
        k = draw(st.integers(1, shape[2]))
        w = g.constant(_array(draw, (draw(st.integers(1, 3)), shape[1], k)))
        return _ref(g, op, [x, w], {})
    if op in ("max_pool1d", "avg_pool1d") and rank == 3:
        k = draw(st.integers(1, shape[2]))
        return _ref(g, op, [x], {"pool_size": [k], "strides": [1]})
    if op == "layer_norm" and rank:
        gamma = g.constant(_array(draw, shape[-1:]))
        beta = g.constant(_array(draw, shape[-1:]))
        return _ref(g, op, [x, gamma, beta], {"axis": -1, "epsilon": 1e-5})
    if op == "strided_slice" and rank:
        begin = [draw(st.integers(0, d - 1)) for d in shape]
        end = [draw(st.integers(b + 1, d)) for b, d in zip(begin, shape, strict=True)]
        strides = [draw(st.integers(1, 2)) for _ in shape]
        return _ref(g, op, [x], {"begin": begin, "end": end, "strides": strides})
    if op == "pad" and rank:
        widths = [draw(st.integers(0, 2)) for _ in range(2 * rank)]
        return _ref(g, op, [x], {"pad_width": widths, "pad_value": 0.5})
    if op == "tile" and rank:
        return _ref(g, op, [x], {"reps": [draw(st.integers(1, 2)) for _ in shape]})
    if op == "broadcast_to":
        return _ref(g, op, [x], {"shape": [2, *shape]})
    return None


def _broadcasts(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    try:
        np.broadcast_shapes(a, b)
    except ValueError:
        return False
    return True


# ------------------------------------------------------------------- interpreter
def _py(attr: object) -> object:
    """An attribute as a Python value (the inverse of `attrs_text`)."""
    if isinstance(attr, DenseArrayBase):
        return [int(v) for v in attr.get_values()]
    if isinstance(attr, IntegerAttr):
        return int(attr.value.data)
    if isinstance(attr, FloatAttr):
        return float(attr.value.data)
    if isinstance(attr, UnitAttr):
        return True
    if isinstance(attr, StringAttr):
        return attr.data
    raise NotImplementedError(f"interpreter: attribute {attr}")


def _ints(op: Operation, name: str) -> list[int]:
    attr = op.properties.get(name)
    return [int(v) for v in attr.get_values()] if isinstance(attr, DenseArrayBase) else []


def _eval_op(op: Operation, args: list[np.ndarray]) -> list[np.ndarray]:
    name = op.name.removeprefix("relay.")
    p = op.properties
    if isinstance(op, relay.ConstantOp):
        return [np.asarray(constant_data(op))]
    if name in UNARY:
        return [UNARY[name](args[0])]
    if name in BINARY:
        return [BINARY[name](*args)]
    if name in REDUCE:
        axes = tuple(_ints(op, "axes")) or None
        return [REDUCE[name](args[0], axis=axes, keepdims="keepdims" in p)]
    if name == "softmax":
        return [_softmax(args[0], p["axis"].value.data)]
    if name == "transpose":
        return [args[0].transpose(_ints(op, "perm"))]
    if name == "reshape":
        return [args[0].reshape(_ints(op, "shape"))]
    if name == "clip":
        return [np.clip(args[0], p["a_min"].value.data, p["a_max"].value.data)]
    if name == "matmul":
        return [args[0] @ args[1]]
    if name == "divide":
        return [args[0] / args[1]]
    if name == "leaky_relu":
        return [np.where(args[0] > 0, args[0], p["alpha"].value.data * args[0])]
    if name == "greater":
        return [args[0] > args[1]]
    if name == "where":
        return [np.where(*args)]
    if name == "concatenate":
        return [np.concatenate(args, p["axis"].value.data)]
    if name == "fused":
        return interpret_block(op.regions[0].block, args)
    if name in REF:
        return [REF[name](args, {k: _py(v) for k, v in p.items()})]
    if op.name in EVALUATORS:  # fold-constant's evaluators: dense, bias_add, ...
        return [EVALUATORS[op.name](op, args)]
    raise NotImplementedError(f"interpreter: {op.name}")


def interpret_block(block: Block, args: list[np.ndarray]) -> list[np.ndarray]:
    env = dict(zip(block.args, args, strict=True))
    for op in block.ops:
        if op.name in ("func.return", "relay.yield"):
            return [env[v] for v in op.operands]
        for r, value in zip(op.results, _eval_op(op, [env[v] for v in op.operands]), strict=True):
            env[r] = value
    raise AssertionError("no terminator")


def interpret(module: ModuleOp, inputs: list[np.ndarray]) -> list[np.ndarray]:
    (fn,) = [op for op in module.ops if isinstance(op, func.FuncOp)]
    return interpret_block(fn.body.block, inputs)


def close(got: list[np.ndarray], want: list[np.ndarray]) -> None:
    assert len(got) == len(want)
    for a, b in zip(got, want, strict=True):
        assert np.shape(a) == np.shape(b)
        np.testing.assert_allclose(np.asarray(a, np.float64), np.asarray(b, np.float64), rtol=2e-4, atol=2e-4)


# ------------------------------------------------------------------- properties
@settings(max_examples=30 * SCALE, deadline=None)
@given(case=graphs())
def test_print_parse_print_is_identity(case) -> None:  # type: ignore[no-untyped-def]
    text, _, _ = case
    module = lamina.parse(text)
    for generic in (False, True):
        printed = lamina.print_ir(module, generic=generic)
        again = lamina.print_ir(lamina.parse(printed), generic=generic)
        assert again == printed
    import io

    out = io.StringIO()
    Printer(stream=out, print_generic_format=True).print_op(module)
    assert isinstance(module.ops.first, func.FuncOp)
    assert out.getvalue().strip() in lamina.print_ir(module, generic=True)


@settings(max_examples=30 * SCALE, deadline=None)
@given(case=graphs())
def test_interpreter_matches_numpy(case) -> None:  # type: ignore[no-untyped-def]
    text, inputs, want = case
    close(interpret(lamina.parse(text), inputs), want)


@settings(max_examples=12 * SCALE, deadline=None)
@given(case=graphs(max_ops=6))
def test_compiled_graph_matches_numpy(case) -> None:  # type: ignore[no-untyped-def]
    text, inputs, want = case
    exe = lamina.compile(lamina.parse(text))
    close(exe.run(*inputs), want)


GRAPH_PASSES = [
    "fold-constant",
    "simplify-inference",
    "canonicalize",
    "cse",
    "dce",
    "fuse-ops",
    "simplify-expr",
    "optimize",
]


@pytest.mark.parametrize("name", GRAPH_PASSES)
@settings(max_examples=15 * SCALE, deadline=None)
@given(case=graphs())
def test_graph_pass_preserves_numerics(name: str, case) -> None:  # type: ignore[no-untyped-def]
    text, inputs, want = case
    module = lamina.parse(text)
    lamina.run_pipeline(module, [name], lamina.PassContext(opt_level=3))
    module.verify()
    close(interpret(module, inputs), want)


def test_interpreter_rejects_unknown_ops() -> None:
    module = lamina.parse("""
    func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
      %0 = relay.tan %x : tensor<2xf32>
      func.return %0 : tensor<2xf32>
    }""")
    with pytest.raises(NotImplementedError):
        interpret(module, [np.zeros(2, F32)])

