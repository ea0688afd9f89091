"""canonicalize: xDSL's canonicalizer plus relay's canonical forms (simplify-expr's
rules); random chains of transposes, reshapes and identities keep their values."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from xdsl.dialects import func

import lamina
from lamina.passes import PassContext, all_passes, pass_opt_level, run_pipeline
from lamina.transforms.graph.canonicalize import CanonicalizePass
from lamina.transforms.graph.fold_constant import evaluate


def _t(shape) -> str:
    return "tensor<" + "x".join(map(str, shape)) + "xf32>"


@st.composite
def chains(draw):
    """A function applying a random chain of transpose / reshape / identity ops."""
    rank = draw(st.integers(1, 4))
    shape = tuple(draw(st.lists(st.integers(1, 3), min_size=rank, max_size=rank)))
    lines, cur, cur_shape = [], "%x", shape
    for i in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["transpose", "reshape", "add0", "mul1", "sub0", "div1"]))
        out = f"%v{i}"
        if kind == "transpose":
            perm = draw(st.permutations(range(len(cur_shape))))
            new_shape = tuple(cur_shape[p] for p in perm)
            lines.append(
                f"{out} = relay.transpose {cur} {{perm = array<i64: {', '.join(map(str, perm))}>}}"
                f" : ({_t(cur_shape)}) -> {_t(new_shape)}"
            )
        elif kind == "reshape":
            size = int(np.prod(cur_shape))
            new_shape = draw(
                st.sampled_from([s for s in [(size,), (1, size), (size, 1), cur_shape[::-1], cur_shape]])
            )
            lines.append(
                f"{out} = relay.reshape {cur} {{shape = array<i64: {', '.join(map(str, new_shape))}>}}"
                f" : ({_t(cur_shape)}) -> {_t(new_shape)}"
            )
        else:
            op = {"add0": "add", "mul1": "multiply", "sub0": "subtract", "div1": "divide"}[kind]
            value = "1.0" if kind in ("mul1", "div1") else "0.0"
            # a splat of the same shape (removed) or of a broadcasting shape (kept)
            c_shape = draw(st.sampled_from([cur_shape, (2, *cur_shape)]))
            new_shape = c_shape
            lines.append(f"%c{i} = relay.constant dense<{value}> : {_t(c_shape)}")
            lines.append(
                f"{out} = relay.{op} {cur}, %c{i} : ({_t(cur_shape)}, {_t(c_shape)}) -> {_t(new_shape)}"
            )
        cur, cur_shape = out, new_shape
    src = (
        f"func.func @main(%x: {_t(shape)}) -> {_t(cur_shape)} {{\n  "
        + "\n  ".join(lines)
        + f"\n  func.return {cur} : {_t(cur_shape)}\n}}"
    )
    return src, shape


@given(chain=chains(), seed=st.integers(0, 2**16))
def test_canonicalize_keeps_values(chain, seed):
    src, shape = chain
    mod = lamina.parse(src)
    fn = next(op for op in mod.ops if isinstance(op, func.FuncOp))
    x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    (before,) = evaluate(fn.body.block, [x])
    ops_before = sum(1 for _ in mod.walk())
    run_pipeline(mod, "canonicalize", PassContext(opt_level=2))
    mod.verify()
    assert sum(1 for _ in mod.walk()) <= ops_before
    fn = next(op for op in mod.ops if isinstance(op, func.FuncOp))
    (after,) = evaluate(fn.body.block, [x])
    np.testing.assert_array_equal(after, before)
    names = [op.name for op in fn.body.block.ops]
    # no two transposes / reshapes in a row survive
    for op in fn.body.block.ops:
        if op.name in ("relay.transpose", "relay.reshape"):
            producer = op.operands[0].owner
            assert getattr(producer, "name", None) != op.name, names


def test_canonicalize_is_lamina_pass_at_level_2():
    cls = all_passes()["canonicalize"]()
    assert cls is CanonicalizePass
    assert pass_opt_level(cls) == 2
