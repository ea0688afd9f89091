"""The `example` BYOC target: relu, add and add+relu on a small C library.

`register()` is the entry point (group `lamina.targets`): lamina calls it the
first time someone asks for target `example`.
"""

from functools import cache
from pathlib import Path

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import Float32Type, TensorType

from lamina.backends import (
    CompositePattern,
    ExternalFunction,
    register_target,
    stable_symbol,
)
from lamina.backends.cc import CWriter, compile_shared
from lamina.dialects.relay_region import FusedOp
from lamina.pattern import is_op, wildcard


@cache
def runtime_library() -> str:
    """The vendor library, built from its C source once (cached by lamina)."""
    source = (Path(__file__).parent / "example_runtime.c").read_text()
    return compile_shared(source, name="example_runtime")


# --- what the target takes: ops with check functions, composite patterns ---
def f32_same_shapes(op):
    types = [v.type for v in (*op.operands, *op.results)]
    if not all(isinstance(t, TensorType) and isinstance(t.get_element_type(), Float32Type) for t in types):
        return f"{op.name}: example takes float32 tensors only"
    if len({tuple(t.get_shape()) for t in types}) != 1:
        return f"{op.name}: example does not broadcast (operand shapes differ)"
    return True


def add_relu_check(match):
    return f32_same_shapes(match.op.operands[0].owner) if match.op else False


ADD_RELU = is_op("relay.relu")(is_op("relay.add")(wildcard(), wildcard()))


# --- the codegen: outlined func.func -> C glue calling the library ---------
def codegen(fn: func.FuncOp) -> ExternalFunction:
    w = CWriter()
    block = fn.body.block
    names = {a: f"((float *)a{i})" for i, a in enumerate(block.args)}
    ret = block.last_op
    outs = {v: f"((float *)a{len(block.args) + j})" for j, v in enumerate(ret.operands)}
    for op in block.ops:
        if op is ret:
            break
        n = int(np.prod(op.results[0].type.get_shape()))
        dest = outs.get(op.results[0]) or w.scratch(n, "float")
        if isinstance(op, FusedOp):  # the composite example.add_relu
            a, b = (names[v] for v in op.operands)
            w.line(f"example_add_relu({a}, {b}, {dest}, {n});")
        elif op.name == "relay.add":
            a, b = (names[v] for v in op.operands)
            w.line(f"example_add({a}, {b}, {dest}, {n});")
        else:  # relay.relu
            w.line(f"example_relu({names[op.operands[0]]}, {dest}, {n});")
        names[op.results[0]] = dest
    prelude = "\n".join(
        [
            "void example_relu(const float *, float *, long);",
            "void example_add(const float *, const float *, float *, long);",
            "void example_add_relu(const float *, const float *, float *, long);",
        ]
    )
    source = w.function("SYMBOL", len(block.args) + len(ret.operands), prelude)
    symbol = stable_symbol("example", source)
    source = source.replace("void SYMBOL(", f"void {symbol}(")
    lib = compile_shared(source, link=[runtime_library()], name="example_glue")
    return ExternalFunction(symbol, (lib,), source=source)


def register() -> None:
    register_target(
        "example",
        ops={"relay.relu": f32_same_shapes, "relay.add": f32_same_shapes},
        patterns=[CompositePattern("add_relu", ADD_RELU, add_relu_check)],
        codegen=codegen,
        runtime_libraries=lambda: [runtime_library()],
        description="the example plugin's target",
        override=True,
    )
