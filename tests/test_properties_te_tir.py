"""Property tests over random TE and TIR programs: the compiled result equals a
small numpy reference interpreter of the same IR, and the text round-trips.

TE: a `te.func` of placeholders and `te.compute`s (elementwise arithmetic, index
arithmetic such as transposed and reversed reads, reductions sum/max/min), called
from a graph `@main` and compiled with `lamina.compile`. TIR: a `tir.prim_func` of
loop nests (serial / parallel / unrolled) with loads, stores, `tir.if` and an
accumulation, lowered with `lower-tir-to-llvm` and JIT-compiled.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, SSAValue

import lamina
from lamina.dialects import te, tir

F32 = np.float32
SCALE = int(os.environ.get("LAMINA_PROPERTY_SCALE", "1"))

# ------------------------------------------------------- scalar interpreter
FLOAT_BINARY: dict[str, Callable[[F32, F32], F32]] = {
    "arith.addf": lambda a, b: F32(a + b),
    "arith.subf": lambda a, b: F32(a - b),
    "arith.mulf": lambda a, b: F32(a * b),
    "arith.maximumf": lambda a, b: F32(max(a, b)),
    "arith.minimumf": lambda a, b: F32(min(a, b)),
}
INDEX_BINARY: dict[str, Callable[[int, int], int]] = {
    "arith.addi": lambda a, b: a + b,
    "arith.subi": lambda a, b: a - b,
    "arith.muli": lambda a, b: a * b,
}
CMPF = {"ogt": np.greater, "olt": np.less, "oge": np.greater_equal}


def scalar_op(op: Operation, args: list) -> object:  # type: ignore[type-arg]
    """The value of one arith / math op on Python / numpy scalars."""
    if op.name == "arith.constant":
        v = op.properties["value"]
        return F32(v.value.data) if "f" in str(v.type) else int(v.value.data)
    if op.name in FLOAT_BINARY:
        return FLOAT_BINARY[op.name](*args)
    if op.name in INDEX_BINARY:
        return INDEX_BINARY[op.name](*args)
    if op.name == "arith.negf":
        return F32(-args[0])
    if op.name == "math.tanh":
        return F32(np.tanh(args[0]))
    if op.name == "arith.cmpf":
        pred = str(op.properties["predicate"].value.data)
        names = {2: "ogt", 4: "olt", 3: "oge"}
        return bool(CMPF[names[int(pred)]](*args))
    if op.name == "arith.select":
        return args[1] if args[0] else args[2]
    raise NotImplementedError(f"interpreter: {op.name}")


# ------------------------------------------------------------ TE programs
@dataclass
class TeProgram:
    """A te.func under construction, with the numpy value of every tensor."""

    placeholders: list[tuple[str, np.ndarray]] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    values: dict[str, np.ndarray] = field(default_factory=dict)
    n: int = 0

    def fresh(self, prefix: str) -> str:
        self.n += 1
        return f"%{prefix}{self.n}"


def ttype(shape: tuple[int, ...]) -> str:
    return f"tensor<{''.join(f'{d}x' for d in shape)}f32>"


@st.composite
def te_programs(draw: st.DrawFn) -> tuple[str, list[np.ndarray], list[np.ndarray]]:
    """(module text, inputs, numpy reference outputs) of a random te.func."""
    p = TeProgram()
    rank = draw(st.integers(1, 2))
    base = tuple(draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank)))
    for k in range(draw(st.integers(1, 2))):
        arr = draw(hnp.arrays(F32, base, elements=st.floats(-2, 2, width=32)))
        name = f"%P{k}"
        p.placeholders.append((name, arr))
        p.lines.append(f'  {name} = te.placeholder "in{k}" : {ttype(base)}')
        p.values[name] = arr
    tensors = [n for n, _ in p.placeholders]
    outputs: list[str] = []
    for step in range(draw(st.integers(1, 4))):
        # Every placeholder is read: the first compute combines them (an unused
        # placeholder is test_unused_placeholder's case).
        first = step == 0 and len(tensors) == 2
        src = tensors[0] if first else draw(st.sampled_from(tensors))
        sv = p.values[src]
        kind = "elementwise" if first else draw(
            st.sampled_from(["elementwise", "elementwise", "transpose", "reverse", "reduce"])
        )
        if kind == "reduce" and sv.ndim:
            red = draw(st.sampled_from(["sum", "max", "min"]))
            out_shape = sv.shape[:-1]
            idx = [p.fresh("i") for _ in out_shape]
            k = p.fresh("k")
            r = p.fresh("r")
            ref = {"sum": np.sum, "max": np.max, "min": np.min}[red](sv, axis=-1)
            body = [f"    {r} = te.read {src}[{', '.join([*idx, k])}] : {ttype(sv.shape)}"]
            name = p.fresh("C")
            p.lines.append(
                f"  {name} = te.compute ({', '.join(idx)}) reduce {red} ({k}) [{sv.shape[-1]}] : {ttype(out_shape)} {{"
            )
            p.lines += [*body, f"    te.yield {r} : f32", "  }"]
        elif kind == "transpose" and sv.ndim == 2:
            out_shape = sv.shape[::-1]
            i, j, r = p.fresh("i"), p.fresh("j"), p.fresh("r")
            name = p.fresh("C")
            p.lines += [
                f"  {name} = te.compute ({i}, {j}) : {ttype(out_shape)} {{",
                f"    {r} = te.read {src}[{j}, {i}] : {ttype(sv.shape)}",
                f"    te.yield {r} : f32",
                "  }",
            ]
            ref = sv.T
        elif kind == "reverse" and sv.ndim:
            idx = [p.fresh("i") for _ in sv.shape]
            last, c, r = p.fresh("c"), p.fresh("rev"), p.fresh("r")
            name = p.fresh("C")
            p.lines += [
                f"  {name} = te.compute ({', '.join(idx)}) : {ttype(sv.shape)} {{",
                f"    {last} = arith.constant {sv.shape[-1] - 1} : index",
                f"    {c} = arith.subi {last}, {idx[-1]} : index",
                f"    {r} = te.read {src}[{', '.join([*idx[:-1], c])}] : {ttype(sv.shape)}",
                f"    te.yield {r} : f32",
                "  }",
            ]
            ref = sv[..., ::-1]
        else:  # elementwise over src and another tensor of the same shape
            others = [t for t in tensors if p.values[t].shape == sv.shape]
            other = tensors[1] if first else draw(st.sampled_from(others))
            op = draw(st.sampled_from(sorted(FLOAT_BINARY)))
            idx = [p.fresh("i") for _ in sv.shape]
            a, b, r = p.fresh("a"), p.fresh("b"), p.fresh("r")
            ts = ttype(sv.shape)
            at = f"[{', '.join(idx)}]"
            name = p.fresh("C")
            lines = [
                f"  {name} = te.compute ({', '.join(idx)}) : {ts} {{",
                f"    {a} = te.read {src}{at} : {ts}",
                f"    {b} = te.read {other}{at} : {ts}",
                f"    {r} = {op} {a}, {b} : f32",
            ]
            fn = np.vectorize(FLOAT_BINARY[op], otypes=[F32])
            ref = fn(sv, p.values[other]).reshape(sv.shape)
            if draw(st.booleans()):
                t = p.fresh("t")
                lines.append(f"    {t} = math.tanh {r} : f32")
                r, ref = t, np.tanh(ref)
            p.lines += [*lines, f"    te.yield {r} : f32", "  }"]
        p.values[name] = np.asarray(ref, F32)
        tensors.append(name)
        outputs.append(name)
    outs = [outputs[-1]]
    if len(outputs) > 1 and (len(p.placeholders) == 2 or draw(st.booleans())):
        outs.insert(0, outputs[0])  # with two placeholders: the one reading both
    otypes = ", ".join(ttype(p.values[o].shape) for o in outs)
    ins = ", ".join(ttype(a.shape) for _, a in p.placeholders)
    args = ", ".join(f"%x{k}: {ttype(a.shape)}" for k, (_, a) in enumerate(p.placeholders))
    call_args = ", ".join(f"%x{k}" for k in range(len(p.placeholders)))
    text = "\n".join(
        [
            "te.func @kernel {",
            *p.lines,
            f"  te.output {', '.join(outs)} : {otypes}",
            "}",
            f"func.func @main({args}) -> ({otypes}) {{",
            f"  %0:{len(outs)} = te.call @kernel({call_args}) : ({ins}) -> ({otypes})"
            if len(outs) > 1
            else f"  %0 = te.call @kernel({call_args}) : ({ins}) -> ({otypes})",
            f"  func.return {', '.join(f'%0#{k}' for k in range(len(outs))) if len(outs) > 1 else '%0'} : {otypes}",
            "}",
        ]
    )
    return text, [a for _, a in p.placeholders], [p.values[o] for o in outs]


def _run_region(block: Block, env: dict[SSAValue, object], tensors: dict[SSAValue, np.ndarray]) -> object:
    for op in block.ops:
        if isinstance(op, te.YieldOp):
            return env[op.operands[0]]
        if isinstance(op, te.ReadOp):
            src, *idx = op.operands
            env[op.results[0]] = tensors[src][tuple(int(env[i]) for i in idx)]  # type: ignore[call-overload]
            continue
        env[op.results[0]] = scalar_op(op, [env[v] for v in op.operands])
    raise AssertionError("no te.yield")


REDUCE_INIT = {"sum": 0.0, "max": -np.inf, "min": np.inf, "prod": 1.0}
REDUCE_COMBINE: dict[str, Callable[[F32, F32], F32]] = {
    "sum": lambda a, b: F32(a + b),
    "max": lambda a, b: F32(max(a, b)),
    "min": lambda a, b: F32(min(a, b)),
    "prod": lambda a, b: F32(a * b),
}


def interpret_te(fn: te.FuncOp, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """Evaluate a te.func point by point."""
    tensors: dict[SSAValue, np.ndarray] = {}
    it = iter(inputs)
    for op in fn.body.block.ops:
        if isinstance(op, te.PlaceholderOp):
            tensors[op.results[0]] = next(it)
        elif isinstance(op, te.ComputeOp):
            t = op.results[0].type
            shape = tuple(t.get_shape())  # type: ignore[attr-defined]
            block = op.body.block
            n_out = len(shape)
            kind = None if op.reduce is None else str(op.reduce.data.value)
            extents = [] if op.reduce_extents is None else [int(e) for e in op.reduce_extents.get_values()]
            out = np.empty(shape, F32)
            for index in np.ndindex(*shape):
                if kind is None:
                    env = dict(zip(block.args, index, strict=True))
                    out[index] = _run_region(block, env, tensors)  # type: ignore[arg-type]
                    continue
                acc = F32(REDUCE_INIT[kind])
                for r in np.ndindex(*extents):
                    env = dict(zip(block.args, (*index, *r), strict=True))
                    acc = REDUCE_COMBINE[kind](acc, _run_region(block, env, tensors))  # type: ignore[arg-type]
                out[index] = acc
            assert n_out == len(index) if shape else True
            tensors[op.results[0]] = out
        elif isinstance(op, te.OutputOp):
            return [tensors[v] for v in op.operands]
    raise AssertionError("no te.output")


def te_func(module: ModuleOp) -> te.FuncOp:
    return next(op for op in module.ops if isinstance(op, te.FuncOp))


@settings(max_examples=25 * SCALE, deadline=None)
@given(case=te_programs())
def test_te_round_trip_and_interpreter(case) -> None:  # type: ignore[no-untyped-def]
    text, inputs, want = case
    module = lamina.parse(text)
    for generic in (False, True):
        printed = lamina.print_ir(module, generic=generic)
        assert lamina.print_ir(lamina.parse(printed), generic=generic) == printed
    for got, ref in zip(interpret_te(te_func(module), inputs), want, strict=True):
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)


@settings(max_examples=12 * SCALE, deadline=None)
@given(case=te_programs())
def test_compiled_te_matches_interpreter(case) -> None:  # type: ignore[no-untyped-def]
    text, inputs, _ = case
    module = lamina.parse(text)
    want = interpret_te(te_func(module), inputs)
    # opt level 1: the graph passes would run on the te.func too, and cse merges
    # identical computes into a duplicated output (test_cse_duplicate_outputs).
    got = lamina.compile(module, opt_level=1).run(*inputs)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


# ------------------------------------------------------------ TIR programs
def memref(shape: tuple[int, ...]) -> str:
    return f"memref<{''.join(f'{d}x' for d in shape)}f32>"


@st.composite
def tir_programs(draw: st.DrawFn) -> tuple[str, list[np.ndarray], tuple[int, int]]:
    """(module text, inputs, (rows, cols)): y[i, j] = f(x[i, j], z[j]) and
    s[i] = sum_j y[i, j] (or max), with random loop kinds, an optional `tir.if`."""
    n, m = draw(st.integers(1, 5)), draw(st.integers(1, 6))
    x = draw(hnp.arrays(F32, (n, m), elements=st.floats(-2, 2, width=32)))
    z = draw(hnp.arrays(F32, (m,), elements=st.floats(-2, 2, width=32)))
    outer = draw(st.sampled_from(["serial", "parallel", "unrolled"]))
    inner = draw(st.sampled_from(["serial", "unrolled"]))
    op = draw(st.sampled_from(sorted(FLOAT_BINARY)))
    red = draw(st.sampled_from(["arith.addf", "arith.maximumf"]))
    init = "0.0" if red == "arith.addf" else "-3.0e+38"
    guarded = draw(st.booleans())
    body = [
        "      %a = tir.load %x[%i, %j] : " + memref((n, m)),
        "      %b = tir.load %z[%j] : " + memref((m,)),
        f"      %v = {op} %a, %b : f32",
    ]
    if guarded:  # y = v > 0 ? v : -v, as a tir.if
        body += [
            "      %zero = arith.constant 0.0 : f32",
            "      %pos = arith.cmpf ogt, %v, %zero : f32",
            "      tir.if %pos {",
            f"        tir.store %v, %y[%i, %j] : {memref((n, m))}",
            "      } else {",
            "        %nv = arith.negf %v : f32",
            f"        tir.store %nv, %y[%i, %j] : {memref((n, m))}",
            "      }",
            f"      %w = tir.load %y[%i, %j] : {memref((n, m))}",
        ]
    else:
        body += [f"      tir.store %v, %y[%i, %j] : {memref((n, m))}", "      %w = arith.addf %v, %zero0 : f32"]
    body += [
        f"      %acc = tir.load %s[%i] : {memref((n,))}",
        f"      %new = {red} %acc, %w : f32",
        f"      tir.store %new, %s[%i] : {memref((n,))}",
    ]
    text = "\n".join(
        [
            f"tir.prim_func @kernel(%x: {memref((n, m))}, %z: {memref((m,))}, %y: {memref((n, m))}, %s: {memref((n,))}) {{",
            "  %c0 = arith.constant 0 : index",
            "  %c1 = arith.constant 1 : index",
            f"  %n = arith.constant {n} : index",
            f"  %m = arith.constant {m} : index",
            f"  %init = arith.constant {init} : f32",
            "  %zero0 = arith.constant 0.0 : f32",
            f"  tir.for {outer} %i = %c0 to %n step %c1 {{",
            f"    tir.store %init, %s[%i] : {memref((n,))}",
            f"    tir.for {inner} %j = %c0 to %m step %c1 {{",
            *body,
            "    }",
            "  }",
            "  tir.return",
            "}",
        ]
    )
    return text, [x, z], (n, m)


def _run_tir(block: Block, env: dict[SSAValue, object], bufs: dict[SSAValue, np.ndarray]) -> None:
    for op in block.ops:
        if isinstance(op, tir.ForOp):
            lo, hi, step = (int(env[v]) for v in op.operands[:3])  # type: ignore[call-overload]
            for i in range(lo, hi, step):
                env[op.body.block.args[0]] = i
                _run_tir(op.body.block, env, bufs)
        elif isinstance(op, tir.IfOp):
            regions = op.regions
            taken = regions[0] if env[op.operands[0]] else (regions[1] if len(regions) > 1 else None)
            if taken is not None and taken.blocks:
                _run_tir(taken.blocks[0], env, bufs)
        elif isinstance(op, tir.LoadOp):
            buf, *idx = op.operands
            env[op.results[0]] = bufs[buf][tuple(int(env[i]) for i in idx)]  # type: ignore[call-overload]
        elif isinstance(op, tir.StoreOp):
            value, buf, *idx = op.operands
            bufs[buf][tuple(int(env[i]) for i in idx)] = env[value]  # type: ignore[call-overload]
        elif op.name in ("tir.return", "tir.yield"):
            return
        else:
            env[op.results[0]] = scalar_op(op, [env[v] for v in op.operands])


def interpret_tir(fn: tir.PrimFuncOp, arrays: list[np.ndarray]) -> None:
    """Run a prim_func on numpy buffers, in place."""
    block = fn.body.block
    _run_tir(block, {}, dict(zip(block.args, arrays, strict=True)))


def aligned(a: np.ndarray) -> np.ndarray:
    raw = np.empty(a.nbytes + 64, np.uint8)
    start = -raw.ctypes.data % 64
    out = raw[start : start + a.nbytes].view(a.dtype).reshape(a.shape)
    out[...] = a
    return out


@settings(max_examples=15 * SCALE, deadline=None)
@given(case=tir_programs())
def test_compiled_tir_matches_interpreter(case) -> None:  # type: ignore[no-untyped-def]
    from lamina.codegen.jit import jit_compile
    from lamina.lowering.tir_to_llvm import LowerTirToLlvmPass

    text, (x, z), (n, m) = case
    module = lamina.parse(text)
    printed = lamina.print_ir(module)
    assert lamina.print_ir(lamina.parse(printed)) == printed
    fn = next(op for op in module.ops if isinstance(op, tir.PrimFuncOp))
    want_y, want_s = np.full((n, m), np.nan, F32), np.full((n,), np.nan, F32)
    interpret_tir(fn, [x, z, want_y, want_s])

    LowerTirToLlvmPass().apply(Context(), module)
    native = jit_compile(module)
    bufs = [aligned(x), aligned(z), aligned(np.full((n, m), np.nan, F32)), aligned(np.full((n,), np.nan, F32))]
    entry = ctypes.CFUNCTYPE(None, *[ctypes.c_void_p] * 4)(native.address("kernel"))
    entry(*[ctypes.c_void_p(b.ctypes.data) for b in bufs])
    np.testing.assert_allclose(bufs[2], want_y, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bufs[3], want_s, rtol=1e-5, atol=1e-5)


def test_unused_placeholder() -> None:
    """A placeholder nothing reads stays an argument of the kernel (dce keeps it)."""
    text = """
    te.func @kernel {
      %P0 = te.placeholder "in0" : tensor<2xf32>
      %P1 = te.placeholder "in1" : tensor<2xf32>
      %C = te.compute (%i) : tensor<2xf32> {
        %r = te.read %P0[%i] : tensor<2xf32>
        te.yield %r : f32
      }
      te.output %C : tensor<2xf32>
    }
    func.func @main(%x0: tensor<2xf32>, %x1: tensor<2xf32>) -> tensor<2xf32> {
      %0 = te.call @kernel(%x0, %x1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      func.return %0 : tensor<2xf32>
    }"""
    x = np.array([1, 2], F32)
    np.testing.assert_array_equal(lamina.compile(lamina.parse(text)).run(x, x)[0], x)


def test_cse_duplicate_outputs() -> None:
    """cse merges identical computes; the output listed twice is copied."""
    text = """
    te.func @kernel {
      %P = te.placeholder "in0" : tensor<2xf32>
      %A = te.compute (%i) : tensor<2xf32> {
        %r = te.read %P[%i] : tensor<2xf32>
        te.yield %r : f32
      }
      %B = te.compute (%j) : tensor<2xf32> {
        %s = te.read %P[%j] : tensor<2xf32>
        te.yield %s : f32
      }
      te.output %A, %B : tensor<2xf32>, tensor<2xf32>
    }
    func.func @main(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
      %0:2 = te.call @kernel(%x) : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
      func.return %0#0, %0#1 : tensor<2xf32>, tensor<2xf32>
    }"""
    x = np.array([1, 2], F32)
    a, b = lamina.compile(lamina.parse(text), opt_level=2).run(x)
    np.testing.assert_array_equal(a, x)
    np.testing.assert_array_equal(b, x)
