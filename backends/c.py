"""Target `c`: elementwise ops and composites as C source, built with `cc`.

TVM's "ccompiler" example done properly: the codegen writes a C function for
each outlined function (one loop nest per op, and one fused loop nest per
composite, broadcasting included), compiles it into a shared library with the
system C compiler (`lamina.backends.cc`), and lamina's `main` calls it. Nothing
goes through lamina's own LLVM path.

Ops: add, subtract, multiply, divide, maximum, minimum, relu, negative, abs,
exp, tanh, sigmoid, sqrt on float32/float64 tensors. Composites (pattern table,
`c.<name>`): `add_relu` (relu(a + b)), `multiply_add` (a * b + c) and `swish`
(x * sigmoid(x)). Splat constants are inlined as literals.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import func
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    Float32Type,
    Float64Type,
    TensorType,
)
from xdsl.ir import Operation, OpResult, SSAValue

from lamina.backends.cc import (
    FunctionGen,
    bcast_index,
    c_float,
    c_type,
    compile_shared,
    numel,
    shape,
)
from lamina.backends.registry import (
    CompositePattern,
    ExternalFunction,
    register_target,
    stable_symbol,
)
from lamina.dialects import relay
from lamina.dialects.relay_region import FusedOp, YieldOp
from lamina.errors import CompileError
from lamina.pattern import Match, is_op, wildcard

# op name -> C expression builder over operand expressions (T: the C type)
_BINARY: dict[str, Callable[[str, str, str], str]] = {
    "relay.add": lambda t, a, b: f"({a} + {b})",
    "relay.subtract": lambda t, a, b: f"({a} - {b})",
    "relay.multiply": lambda t, a, b: f"({a} * {b})",
    "relay.divide": lambda t, a, b: f"({a} / {b})",
    "relay.maximum": lambda t, a, b: f"lmax_{t}({a}, {b})",
    "relay.minimum": lambda t, a, b: f"lmin_{t}({a}, {b})",
}
_UNARY: dict[str, Callable[[str, str], str]] = {
    "relay.relu": lambda t, a: f"lrelu_{t}({a})",
    "relay.negative": lambda t, a: f"(-{a})",
    "relay.abs": lambda t, a: f"fabs{'f' if t == 'float' else ''}({a})",
    "relay.exp": lambda t, a: f"exp{'f' if t == 'float' else ''}({a})",
    "relay.tanh": lambda t, a: f"tanh{'f' if t == 'float' else ''}({a})",
    "relay.sqrt": lambda t, a: f"sqrt{'f' if t == 'float' else ''}({a})",
    "relay.sigmoid": lambda t, a: f"lsigmoid_{t}({a})",
}

_PRELUDE = "\n".join(
    f"static inline {t} lmax_{t}({t} a, {t} b) {{ return (a != a || a > b) ? a : b; }}\n"
    f"static inline {t} lmin_{t}({t} a, {t} b) {{ return (a != a || a < b) ? a : b; }}\n"
    f"static inline {t} lrelu_{t}({t} a) {{ return (a != a || a > 0) ? a : 0; }}\n"
    f"static inline {t} lsigmoid_{t}({t} a) {{ return 1 / (1 + exp{s}(-a)); }}"
    for t, s in (("float", "f"), ("double", ""))
)


def check_float(op: Operation) -> bool | str:
    for v in (*op.operands, *op.results):
        t = v.type
        if not isinstance(t, TensorType) or not isinstance(
            t.get_element_type(), Float32Type | Float64Type
        ):
            return f"{op.name}: {t} is not a float32/float64 tensor"
    return True


def check_match(m: Match) -> bool | str:
    for op in m.ops:
        verdict = check_float(op)
        if verdict is not True:
            return verdict
    return True


def _binary(name: str):
    return is_op(name)(wildcard(), wildcard())


PATTERNS = [
    CompositePattern(
        "add_relu", is_op("relay.relu")(_binary("relay.add")), check_match
    ),
    CompositePattern(
        "multiply_add", is_op("relay.add")(_binary("relay.multiply"), wildcard()), check_match
    ),
    CompositePattern(
        "swish",
        (lambda x: is_op("relay.multiply")(x, is_op("relay.sigmoid")(x)))(wildcard()),
        check_match,
    ),
]

OPS = {name: check_float for name in (*_BINARY, *_UNARY)}


def _splat(op: Operation) -> float | None:
    if isinstance(op, relay.ConstantOp) and isinstance(op.value, DenseIntOrFPElementsAttr):
        values = set(op.value.get_values())
        if len(values) == 1:
            return float(values.pop())
    return None


class _Gen(FunctionGen):
    """C loop nests of one outlined elementwise function."""

    def expr(
        self, v: SSAValue, out: Sequence[int], ivs: Sequence[str], env: dict[SSAValue, SSAValue]
    ) -> str:
        """C expression of `v` at output index `ivs` (broadcast to `out`); `env`
        binds a composite's block arguments to the values outside."""
        if v in env:
            return self.expr(env[v], out, ivs, {})
        if v in self.names:
            return f"{self.names[v]}[{bcast_index(out, shape(v.type), ivs)}]"
        if isinstance(v, OpResult):
            splat = _splat(v.op)
            if splat is not None:
                return c_float(splat, c_type(v.type))
            if v.op.parent_block() is not self.fn.body.block:  # inside a composite
                return self.op_expr(v.op, out, ivs, env)
        raise CompileError(f"target 'c': no value for {v}")

    def op_expr(self, op: Operation, out: Sequence[int], ivs: Sequence[str], env) -> str:
        t = c_type(op.results[0].type)
        args = [self.expr(a, out, ivs, env) for a in op.operands]
        if op.name in _BINARY:
            return _BINARY[op.name](t, *args)
        if op.name in _UNARY:
            return _UNARY[op.name](t, *args)
        raise CompileError(f"target 'c' cannot compile {op.name}")

    def loop(self, result: SSAValue, body: Callable[[Sequence[int], Sequence[str]], str]) -> None:
        out = shape(result.type)
        dest = self.outputs[result][0] if result in self.outputs else self.w.scratch(
            numel(result.type), c_type(result.type)
        )
        ivs = [f"i{d}" for d in range(len(out))]
        for d, n in enumerate(out):
            self.w.line(f"for (long {ivs[d]} = 0; {ivs[d]} < {n}; {ivs[d]}++)")
        flat = bcast_index(out, out, ivs)
        self.w.line(f"    {dest}[{flat}] = {body(out, ivs)};")
        self.names[result] = dest

    def run(self) -> str:
        for op in self.fn.body.block.ops:
            if isinstance(op, func.ReturnOp):
                break
            if _splat(op) is not None:
                continue
            if isinstance(op, FusedOp):
                env = dict(zip(op.body.block.args, op.operands, strict=True))
                y = op.body.block.last_op
                assert isinstance(y, YieldOp) and len(y.operands) == 1
                root = y.operands[0]
                self.loop(op.results[0], lambda out, ivs, root=root, env=env: self.expr(root, out, ivs, env))
            elif op.name in _BINARY or op.name in _UNARY:
                self.loop(op.results[0], lambda out, ivs, op=op: self.op_expr(op, out, ivs, {}))
            else:
                raise CompileError(f"target 'c' cannot compile {op.name}")
        for v, dests in self.outputs.items():
            src = self.names.get(v)
            if src is None:  # e.g. a returned splat constant
                raise CompileError("target 'c': a result is not computed by an op")
            for d in dests:
                if d != src:
                    self.w.line(f"memcpy({d}, {src}, {numel(v.type)} * sizeof(*{d}));")
        return self.w.function("SYMBOL", self.n_args, _PRELUDE)


def codegen(fn: func.FuncOp) -> ExternalFunction:
    """C source for the outlined function, compiled into a shared library."""
    source = _Gen(fn).run()
    symbol = stable_symbol("lamina_c", source)
    source = source.replace("void SYMBOL(", f"void {symbol}(")
    return ExternalFunction(symbol, (compile_shared(source, name="c"),), source=source)


TARGET = register_target(
    "c",
    ops=OPS,
    patterns=PATTERNS,
    codegen=codegen,
    description="C source for elementwise ops and composites, built with cc",
)

__all__ = ["OPS", "PATTERNS", "TARGET", "check_float", "codegen"]
