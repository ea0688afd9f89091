"""The relay dialect's Python API: builders, type inference, verifiers."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import DenseResourceAttr, ModuleOp, TensorType, f32, i32
from xdsl.ir import Block, Region
from xdsl.utils.exceptions import VerifyException

import lamina
from lamina.dialects import relay
from lamina.dialects.resources import blobs


def args(*types: TensorType) -> list:
    return list(Block(arg_types=types).args)


def t(*shape: int, elem=f32) -> TensorType:
    return TensorType(elem, list(shape))


@pytest.mark.parametrize(
    ("a", "b", "out"),
    [((4, 3), (3,), (4, 3)), ((2, 1, 5), (7, 1), (2, 7, 5)), ((), (3,), (3,))],
)
def test_binary_broadcast_infers(a, b, out):
    x, y = args(t(*a), t(*b))
    for cls in (relay.AddOp, relay.SubtractOp, relay.MultiplyOp, relay.DivideOp):
        assert relay.shape_of(cls(x, y).result.type) == out


def test_broadcast_mismatch_names_the_dimension():
    x, y = args(t(4, 3), t(5))
    with pytest.raises(VerifyException, match=r"do not broadcast \(dimension 1"):
        relay.AddOp(x, y)


def test_element_types_must_match():
    x, y = args(t(4), t(4, elem=i32))
    with pytest.raises(VerifyException, match="share an element type"):
        relay.AddOp(x, y)


@pytest.mark.parametrize(
    ("a", "b", "out"),
    [
        ((2, 3), (3, 4), (2, 4)),
        ((5, 2, 3), (3, 4), (5, 2, 4)),
        ((1, 2, 3), (6, 3, 4), (6, 2, 4)),
        ((3,), (3, 4), (4,)),
        ((2, 3), (3,), (2,)),
        ((3,), (3,), ()),
    ],
)
def test_matmul_shapes_follow_numpy(a, b, out):
    x, y = args(t(*a), t(*b))
    assert relay.shape_of(relay.MatmulOp(x, y).result.type) == out
    assert np.matmul(np.zeros(a), np.zeros(b)).shape == out


def test_dense_transposes_and_bias():
    a, b, c = args(t(8, 2), t(5, 8), t(5))
    op = relay.DenseOp(
        a, b, c, transpose_a=relay.UnitAttr(), transpose_b=relay.UnitAttr()
    )
    assert relay.shape_of(op.result.type) == (2, 5)
    with pytest.raises(VerifyException, match="contraction dimensions differ"):
        relay.DenseOp(a, b)


def test_reshape_and_transpose_errors():
    (x,) = args(t(3, 4))
    assert relay.shape_of(relay.ReshapeOp(x, shape=relay.i64_array([2, 6])).result.type) == (2, 6)
    with pytest.raises(VerifyException, match="12 elements"):
        relay.ReshapeOp(x, shape=relay.i64_array([5]))
    with pytest.raises(VerifyException, match="not a permutation"):
        relay.TransposeOp(x, perm=relay.i64_array([0, 0]))
    with pytest.raises(VerifyException, match="out of range"):
        relay.SoftmaxOp(x, axis=relay.i64_attr(2))


def test_pattern_kinds_are_data():
    assert relay.AddOp.PATTERN is relay.OpPattern.BROADCAST
    assert relay.ReluOp.PATTERN is relay.OpPattern.ELEMWISE
    assert relay.DenseOp.PATTERN is relay.OpPattern.OUT_ELEMWISE_FUSABLE
    assert relay.ReshapeOp.PATTERN is relay.OpPattern.INJECTIVE
    assert relay.SoftmaxOp.PATTERN is relay.OpPattern.OPAQUE
    assert relay.OpPattern.OUT_ELEMWISE_FUSABLE.label == "out-elemwise-fusable"


def test_parser_infers_result_type_and_checks_given_one():
    text = """
    func.func @f(%a: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<4x3xf32> {
      %0 = relay.add %a, %b : (tensor<4x3xf32>, tensor<3xf32>)
      func.return %0 : tensor<4x3xf32>
    }"""
    m = lamina.parse(text)
    assert "-> tensor<4x3xf32>" in lamina.print_ir(m)
    bad = text.replace("tensor<3xf32>)\n", "tensor<3xf32>) -> tensor<3x3xf32>\n")
    with pytest.raises(lamina.IRError, match="does not match the inferred type"):
        lamina.parse(bad)


def _weights_module(arr: np.ndarray) -> tuple[str, ModuleOp]:
    key = blobs.add("w", arr)
    ty = TensorType(f32, list(arr.shape))
    block = Block()
    const = relay.ConstantOp(DenseResourceAttr.from_params(key, ty))
    block.add_ops([const, func.ReturnOp(const.output)])
    fn = func.FuncOp("main", ([], [ty]), Region(block))
    return key, ModuleOp([fn])


def test_resources_are_elided_above_the_limit_and_round_trip_on_request():
    arr = np.arange(1024, dtype=np.float32).reshape(32, 32)
    key, module = _weights_module(arr)
    elided = lamina.print_ir(module)
    assert f"dense_resource<{key}>" in elided
    assert "dialect_resources" not in elided
    full = lamina.print_ir(module, resources_limit=None)
    assert "dialect_resources" in full
    again = lamina.parse(full)
    const = next(op for op in again.walk() if isinstance(op, relay.ConstantOp))
    new_key = const.value.resource_handle.data
    np.testing.assert_array_equal(blobs.array(new_key, (32, 32), np.dtype(np.float32)), arr)


def test_small_resources_print_in_full_by_default():
    arr = np.array([1.0, 2.0], dtype=np.float32)
    _, module = _weights_module(arr)
    assert '"0x040000000000803F00000040"' in lamina.print_ir(module)
