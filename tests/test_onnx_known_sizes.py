"""Sizes set from values given when the model runs, known to the rest of the
import (`frontends/onnx/known_sizes`): a node reading the same run-time value
as an op that set a size gets that size; ConstantOfShape over symbolic dims;
an If on a constant condition converted in place; a size-setting op kept when
only its size is used. Each model is compiled once and run on several values
against `onnx.reference`."""

from __future__ import annotations

import re

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import lamina
from lamina.frontends.onnx import from_onnx

I64, F = TensorProto.INT64, TensorProto.FLOAT


def _model(nodes: list[onnx.NodeProto], inputs: list[onnx.ValueInfoProto], outputs: dict[str, int]) -> onnx.ModelProto:
    outs = [helper.make_tensor_value_info(n, t, None) for n, t in outputs.items()]
    graph = helper.make_graph(nodes, "g", inputs, outs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])


def _ints(name: str, values: list[int]) -> onnx.NodeProto:
    return helper.make_node("Constant", [], [name], value_ints=values)


def _int(name: str, value: int) -> onnx.NodeProto:
    return helper.make_node("Constant", [], [name], value_int=value)


def _same(model: onnx.ModelProto, exe: lamina.CompiledModel, feeds: dict[str, np.ndarray]) -> None:
    got = exe.run(**feeds)
    want = ReferenceEvaluator(model).run(None, feeds)
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape and g.dtype == w.dtype, (feeds, g.shape, w.shape)
        np.testing.assert_array_equal(g, w)


def _sizes(text: str, op: str) -> list[str]:
    """The `size = [...]` / `shape = [...]` names of every `op` in the module's text."""
    return re.findall(rf'{re.escape(op)} .*?(?:sizes?|shape) = \[([^\]]*)\]', text)


def _grid_model() -> onnx.ModelProto:
    """AffineGrid's expanded function in small: zeros over [D, H, W] sliced out
    of the run-time `size` (D a constant 1), then `arange(H)` and `arange(W)`
    broadcast against them: the aranges' lengths are the zeros' sizes."""
    nodes = [
        helper.make_node("Split", ["size"], ["n", "c", "h", "w"], num_outputs=4),
        _ints("one", [1]),
        helper.make_node("Concat", ["n", "c", "one", "h", "w"], ["ncdhw"], axis=0),
        _ints("b", [2]),
        _ints("e", [5]),
        helper.make_node("Slice", ["ncdhw", "b", "e"], ["dhw"]),
        helper.make_node("ConstantOfShape", ["dhw"], ["zeros"]),
        _int("zero", 0),
        _int("step", 1),
        helper.make_node("Squeeze", ["h"], ["h0"]),
        helper.make_node("Squeeze", ["w"], ["w0"]),
        helper.make_node("Range", ["zero", "h0", "step"], ["hi"]),
        helper.make_node("Range", ["zero", "w0", "step"], ["wi"]),
        helper.make_node("Cast", ["hi"], ["hf"], to=F),
        helper.make_node("Cast", ["wi"], ["wf"], to=F),
        _ints("last", [-1]),
        helper.make_node("Unsqueeze", ["hf", "last"], ["hcol"]),
        helper.make_node("Add", ["zeros", "hcol"], ["rows"]),
        helper.make_node("Add", ["rows", "wf"], ["grid"]),
    ]
    return _model(nodes, [helper.make_tensor_value_info("size", I64, [4])], {"grid": F})


def test_a_size_read_again_is_the_same_size() -> None:
    model = _grid_model()
    text = str(from_onnx(model))
    (zeros,) = _sizes(text, "relay.dyn_broadcast_to")
    assert zeros.startswith('"", ')  # D is the constant 1, not a new size
    h, w = (s.strip() for s in zeros.split(",")[1:])
    aranges = _sizes(text, "relay.arange")
    assert sorted(aranges) == sorted([h, w]), aranges  # no relay.dyn_arange of their own
    assert "relay.dyn_arange" not in text
    exe = lamina.compile(model)
    for size in ([2, 3, 4, 5], [1, 1, 1, 1], [3, 2, 0, 6], [1, 7, 2, 1]):
        _same(model, exe, {"size": np.array(size, np.int64)})


def test_constant_of_shape_over_symbolic_dims() -> None:
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("ConstantOfShape", ["s"], ["y"], value=numpy_helper.from_array(np.array([7], np.int32))),
    ]
    model = _model(nodes, [helper.make_tensor_value_info("x", F, ["n", 3])], {"y": TensorProto.INT32})
    assert "relay.broadcast_to" in str(from_onnx(model))
    exe = lamina.compile(model)
    for n in (1, 4, 2):
        _same(model, exe, {"x": np.zeros((n, 3), np.float32)})


@pytest.mark.parametrize("setter", ["inside", "before"])
def test_a_constant_branch_shares_the_sizes_around_it(setter: str) -> None:
    """An If on a constant condition converts its branch in place: an Expand
    setting `n` inside the branch, and a Range after it reading the same `n`;
    or the Expand before the If and the Range inside the branch."""
    expand = helper.make_node("Expand", ["c", "shape"], ["x"])
    arange = [
        _int("zero", 0),
        _int("step", 1),
        helper.make_node("Gather", ["shape", "zero"], ["n"]),
        helper.make_node("Range", ["zero", "n", "step"], ["i"]),
        helper.make_node("Cast", ["i"], ["f"], to=F),
        _ints("last", [-1]),
        helper.make_node("Unsqueeze", ["f", "last"], ["col"]),
    ]
    inside, after = ([expand], [*arange, helper.make_node("Add", ["b", "col"], ["y"])]) if setter == "inside" else (
        [*arange, helper.make_node("Add", ["x", "col"], ["t"])], [helper.make_node("Identity", ["b"], ["y"])]
    )
    then_out = "x" if setter == "inside" else "t"
    then_g = helper.make_graph(inside, "then", [], [helper.make_tensor_value_info(then_out, F, None)])
    else_g = helper.make_graph(
        [helper.make_node("Identity", ["c"], ["u"])], "else", [], [helper.make_tensor_value_info("u", F, None)]
    )
    nodes = [
        helper.make_node("Constant", [], ["c"], value=numpy_helper.from_array(np.ones((1, 3), np.float32))),
        *([expand] if setter == "before" else []),
        helper.make_node("Size", ["shape"], ["k"]),
        _int("two", 2),
        helper.make_node("Equal", ["k", "two"], ["is2"]),
        helper.make_node("If", ["is2"], ["b"], then_branch=then_g, else_branch=else_g),
        *after,
    ]
    model = _model(nodes, [helper.make_tensor_value_info("shape", I64, [2])], {"y": F})
    assert "relay.dyn_arange" not in str(from_onnx(model))
    exe = lamina.compile(model)
    for shape in ([4, 3], [1, 3], [5, 1]):
        _same(model, exe, {"shape": np.array(shape, np.int64)})


def test_a_size_set_in_a_branch_is_not_known_outside_it() -> None:
    """A size set inside a branch taken at run time is not the size of the
    same value after the If (the branch may not run): that Range sets its own."""
    then_nodes = [
        helper.make_node("Expand", ["c", "shape"], ["t"]),
        helper.make_node("ReduceSum", ["t"], ["ts"], keepdims=0),
    ]
    then_g = helper.make_graph(then_nodes, "then", [], [helper.make_tensor_value_info("ts", F, [])])
    else_g = helper.make_graph(
        [helper.make_node("Constant", [], ["u"], value=numpy_helper.from_array(np.array(-1, np.float32)))],
        "else", [], [helper.make_tensor_value_info("u", F, [])],
    )
    nodes = [
        helper.make_node("Constant", [], ["c"], value=numpy_helper.from_array(np.ones((1, 3), np.float32))),
        helper.make_node("If", ["flag"], ["x"], then_branch=then_g, else_branch=else_g),
        _int("zero", 0),
        _int("step", 1),
        helper.make_node("Gather", ["shape", "zero"], ["n"]),
        helper.make_node("Range", ["zero", "n", "step"], ["i"]),
        helper.make_node("Cast", ["i"], ["f"], to=F),
        helper.make_node("Add", ["f", "x"], ["y"]),
    ]
    inputs = [helper.make_tensor_value_info("flag", TensorProto.BOOL, []), helper.make_tensor_value_info("shape", I64, [2])]
    model = _model(nodes, inputs, {"y": F})
    assert "relay.dyn_arange" in str(from_onnx(model))
    exe = lamina.compile(model)
    for flag in (True, False):
        for shape in ([4, 3], [2, 1]):
            _same(model, exe, {"flag": np.array(flag), "shape": np.array(shape, np.int64)})


@pytest.mark.parametrize("use", ["ConstantOfShape", "Range"])
def test_an_op_setting_a_size_is_kept_when_only_its_size_is_used(use: str) -> None:
    """The Expand's result is unused, but its size is not (a Shape of it, or
    the same run-time value): dead-code elimination keeps it."""
    nodes = [
        helper.make_node("Constant", [], ["c"], value=numpy_helper.from_array(np.ones((1, 3), np.float32))),
        helper.make_node("Expand", ["c", "shape"], ["x"]),
    ]
    if use == "ConstantOfShape":
        nodes += [helper.make_node("Shape", ["x"], ["s"]), helper.make_node("ConstantOfShape", ["s"], ["y"])]
        out = F
    else:
        nodes += [
            _int("zero", 0),
            _int("step", 1),
            helper.make_node("Gather", ["shape", "zero"], ["n"]),
            helper.make_node("Range", ["zero", "n", "step"], ["y"]),
        ]
        out = I64
    model = _model(nodes, [helper.make_tensor_value_info("shape", I64, [2])], {"y": out})
    exe = lamina.compile(model)
    for shape in ([4, 3], [2, 1], [0, 3]):
        _same(model, exe, {"shape": np.array(shape, np.int64)})
