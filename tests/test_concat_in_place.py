"""Concatenation without copies (`lamina.lowering.concat_slices`): operands
computed by calls are computed in their slice of the concatenation's buffer
(`tir.view`), the others copied there. Any mix of operands (calls, inputs,
weights, one value twice, a nested concatenation, a value also returned or read
after the concatenation) matches numpy; unaligned slices stay a kernel."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper

import lamina
from lamina.dialects import relay, te, tir
from lamina.frontends.onnx import from_onnx
from lamina.passes import PassContext
from lamina.pipelines import lower_to

#: The operands a concatenation may read: name -> how numpy computes it from x.
SOURCES = {
    "relu": lambda x: np.maximum(x, 0),
    "sig": lambda x: 1 / (1 + np.exp(-x)),
    "x": lambda x: x,
    "w": lambda x: np.full_like(x, 0.5),
    "inner": lambda x: np.concatenate([np.maximum(x, 0), -x], axis=1),
}


def _model(parts: list[str], shape: list[int], also_out: bool) -> bytes:
    nodes = [
        helper.make_node("Relu", ["x"], ["relu"]),
        helper.make_node("Sigmoid", ["x"], ["sig"]),
        helper.make_node("Neg", ["x"], ["neg"]),
        helper.make_node("Concat", ["relu", "neg"], ["inner"], axis=1),
        helper.make_node("Concat", parts, ["cat"], axis=1),
        helper.make_node("Tanh", ["cat"], ["y"]),
        helper.make_node("Abs", [parts[0]], ["after"]),  # a slice read after the join
    ]
    w = numpy_helper.from_array(np.full(shape, 0.5, np.float32), "w")
    width = sum(2 if p == "inner" else 1 for p in parts) * shape[1]
    outs = [
        helper.make_tensor_value_info("y", TensorProto.FLOAT, [shape[0], width, *shape[2:]]),
        helper.make_tensor_value_info("after", TensorProto.FLOAT, None),
    ]
    if also_out:
        outs.append(helper.make_tensor_value_info("relu", TensorProto.FLOAT, shape))
    graph = helper.make_graph(
        nodes, "m", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)], outs, [w]
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()


@settings(max_examples=10, deadline=None)
@given(
    st.lists(st.sampled_from(sorted(SOURCES)), min_size=1, max_size=5),
    st.sampled_from([[1, 2, 16], [1, 3, 4, 8], [1, 2, 5], [2, 2, 16]]),
    st.booleans(),
    st.booleans(),
    st.integers(0, 2**31 - 1),
)
def test_any_operands_match_numpy(parts, shape, also_out, fuse, seed):
    """(Unfused, every elementwise op is a call of its own, as a convolution is.)"""
    x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    ctx = PassContext(opt_level=2, disabled_passes=[] if fuse else ["fuse-ops"])
    exe = lamina.compile(_model(parts, shape, also_out), num_threads=1, pass_context=ctx)
    got = exe.run(x)
    cat = np.concatenate([SOURCES[p](x) for p in parts], axis=1)
    np.testing.assert_allclose(got[0], np.tanh(cat), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[1], np.abs(SOURCES[parts[0]](x)), rtol=1e-5, atol=1e-6)
    if also_out:
        np.testing.assert_allclose(got[2], np.maximum(x, 0))


def _tir(parts: list[str], shape: list[int]):
    module = from_onnx(_model(parts, shape, False))
    return lower_to(module, "tir", PassContext(opt_level=2, disabled_passes=["fuse-ops"]))


def test_calls_write_their_slices():
    """The calls' results are views of the join's buffer: only the input and
    the weight are copied, and no concatenation kernel is left."""
    main = next(op for op in _tir(["relu", "x", "sig", "w"], [1, 2, 16]).ops if op.sym_name.data == "main")
    views = [op for op in main.walk() if isinstance(op, tir.ViewOp)]
    assert sorted(v.offset.value.data for v in views) == [0, 32, 64, 96]
    calls = [op.callee.string_value() for op in main.walk() if isinstance(op, tir.CallOp)]
    assert sum(c.startswith("copy") for c in calls) == 2
    assert not any(c.startswith("concatenate") for c in calls)


@pytest.mark.parametrize("shape", [[1, 2, 5], [2, 2, 16]])
def test_slices_that_are_not_whole_blocks_stay_a_kernel(shape):
    """Unaligned slices (20 bytes), or slices that are not contiguous (a
    batch of 2 before the axis): the concatenation is a kernel, as before."""
    module = from_onnx(_model(["relu", "sig"], shape, False))
    lowered = lower_to(module, "te", PassContext(opt_level=2, disabled_passes=["fuse-ops"]))
    assert not any(isinstance(op, relay.ConcatenateOp) for op in lowered.walk())
    assert any(isinstance(op, te.FuncOp) and op.sym_name.data.startswith("concatenate") for op in lowered.ops)


def _dense_block(layers: int, growth: int, side: int) -> bytes:
    """DenseNet's block: each layer concatenates every feature map before it
    and adds `growth` channels (a 1x1 convolution and a ReLU)."""
    rng = np.random.default_rng(layers)
    nodes, inits, feats, channels = [], [], ["x"], 16
    for i in range(layers):
        cat = f"cat{i}"
        nodes.append(helper.make_node("Concat", list(feats), [cat], axis=1))
        w = (rng.standard_normal((growth, channels, 1, 1)) / channels).astype(np.float32)
        inits.append(numpy_helper.from_array(w, f"w{i}"))
        nodes += [
            helper.make_node("Conv", [cat, f"w{i}"], [f"c{i}"]),
            helper.make_node("Relu", [f"c{i}"], [f"f{i}"]),
        ]
        feats.append(f"f{i}")
        channels += growth
    nodes.append(helper.make_node("Concat", list(feats), ["y"], axis=1))
    graph = helper.make_graph(
        nodes, "dense",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16, side, side])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, channels, side, side])], inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()


@pytest.mark.parametrize("layers,growth,side", [(4, 16, 5), (3, 32, 4), (3, 8, 3)])
def test_a_dense_block_matches_the_reference(layers, growth, side):
    """Each concatenation extends the last (simplify-expr), and the feature
    maps are computed in place where their slices allow (growth 8 at 3x3 is
    72 floats, not a whole 64-byte block: copied)."""
    from onnx.reference import ReferenceEvaluator

    model = _dense_block(layers, growth, side)
    x = np.random.default_rng(1).standard_normal((1, 16, side, side)).astype(np.float32)
    (want,) = ReferenceEvaluator(model).run(None, {"x": x})
    (got,) = lamina.compile(model, num_threads=1).run(x)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
