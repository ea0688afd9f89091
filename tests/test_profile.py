"""Per-kernel profiles grouped by op class (`lamina bench --profile`)."""

from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper, numpy_helper

import lamina
from lamina.dialects import relay
from lamina.passes import PassContext
from lamina.tools.profile import by_class, op_class, profile


def _model():
    rng = np.random.default_rng(0)

    def w(name, shape):
        return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)

    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["a"], pads=[1, 1, 1, 1]),  # dense conv
        helper.make_node("Relu", ["a"], ["b"]),
        helper.make_node("Conv", ["b", "w2"], ["c"], pads=[1, 1, 1, 1], group=8),  # depthwise
        helper.make_node("Conv", ["c", "w3"], ["d"], group=2),  # grouped
        helper.make_node("MaxPool", ["d"], ["e"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Flatten", ["e"], ["f"]),
        helper.make_node("MatMul", ["f", "w4"], ["g"]),  # a packed weight (relay.dense_pack)
        helper.make_node("Softmax", ["g"], ["y"]),
    ]
    inits = [w("w1", [8, 3, 3, 3]), w("w2", [8, 1, 3, 3]), w("w3", [8, 4, 1, 1]), w("w4", [128, 16])]
    graph = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16])],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_kernels_are_grouped_by_op_class():
    model = _model()
    x = np.random.default_rng(1).standard_normal((1, 3, 8, 8)).astype(np.float32)

    def build(ctx: PassContext) -> lamina.CompiledModel:
        return lamina.compile(model, pass_context=ctx)

    kernels = profile(build, 3, {"x": x}, 3)
    classes = {k.op_class for k in kernels}
    assert {"conv", "depthwise conv", "grouped conv", "pool", "matmul", "norm/softmax"} <= classes
    assert "other" not in classes
    grouped = by_class(kernels)
    assert {g.name for g in grouped} == classes
    assert sum(g.calls for g in grouped) == sum(k.calls for k in kernels)
    assert np.isclose(sum(g.median_ms for g in grouped), sum(k.median_ms for k in kernels))
    assert [g.median_ms for g in grouped] == sorted((g.median_ms for g in grouped), reverse=True)
    # Work per inference, read from the TE kernels: the [1, 128] x [128, 16] product
    # is 2 * 128 * 16 flops over its input, weight and output bytes at least.
    (mm,) = [k for k in kernels if k.op_class == "matmul"]
    assert mm.flops == 2 * 128 * 16 and mm.bytes >= 4 * (128 + 128 * 16 + 16)
    assert mm.gflops == mm.flops / mm.median_ms / 1e6
    assert mm.roofline(100.0, lambda n: 1e9) == 100.0  # compute-bound on infinite bandwidth
    assert mm.roofline(100.0, lambda n: 10.0) == mm.flops / mm.bytes * 10.0  # memory-bound
    (conv,) = [k for k in kernels if k.op_class == "conv"]
    assert conv.flops == 2 * 8 * 8 * 8 * 3 * 3 * 3  # 8 channels x 8x8 pixels x 27 taps
    assert {g.name: g.flops for g in grouped}["matmul"] == mm.flops


INT8_OPS = """
func.func @conv(%x: tensor<1x4x10x10x16xui8>, %w: tensor<2x4x3x3x4x64xi8>, %b: tensor<2x16xi32>, %m: tensor<2x16xf32>, %z: tensor<ui8>, %a: tensor<7x64xui8>, %wd: tensor<3x16x64xi8>, %bd: tensor<48xi32>, %md: tensor<48xf32>, %zd: tensor<i8>, %xq: tensor<1x4x6x6xui8>, %wq: tensor<6x4x3x3xi8>, %wg: tensor<6x2x3x3xi8>, %zx: tensor<ui8>, %zw: tensor<i8>, %zc: tensor<6x1x1x1xi8>, %ma: tensor<3x4xui8>, %mb: tensor<4x5xi8>, %r: tensor<1x2x4x4x16xui8>, %s: tensor<f32>) -> (tensor<1x2x4x4x16xui8>, tensor<7x48xi8>, tensor<1x6x4x4xi32>, tensor<1x6x4x4xi32>, tensor<3x5xi32>, tensor<1x2x4x4x16xui8>) {
  %0 = qnn.conv2d_nchwc %x, %w, %b, %m, %z {strides = array<i64: 2, 2>, dilation = array<i64: 1, 1>} : (tensor<1x4x10x10x16xui8>, tensor<2x4x3x3x4x64xi8>, tensor<2x16xi32>, tensor<2x16xf32>, tensor<ui8>)
  %1 = qnn.dense_packed %a, %wd, %bd, %md, %zd : (tensor<7x64xui8>, tensor<3x16x64xi8>, tensor<48xi32>, tensor<48xf32>, tensor<i8>)
  %2 = qnn.conv2d %xq, %wq, %zx, %zw : (tensor<1x4x6x6xui8>, tensor<6x4x3x3xi8>, tensor<ui8>, tensor<i8>)
  %3 = qnn.conv2d %xq, %wg, %zx, %zc {groups = 2 : i64} : (tensor<1x4x6x6xui8>, tensor<6x2x3x3xi8>, tensor<ui8>, tensor<6x1x1x1xi8>)
  %4 = qnn.matmul %ma, %mb, %zx, %zw : (tensor<3x4xui8>, tensor<4x5xi8>, tensor<ui8>, tensor<i8>)
  %5 = qnn.conv2d_nchwc_add %x, %w, %b, %m, %z, %r, %s, %s, %z, %s, %z {strides = array<i64: 2, 2>, dilation = array<i64: 1, 1>} : (tensor<1x4x10x10x16xui8>, tensor<2x4x3x3x4x64xi8>, tensor<2x16xi32>, tensor<2x16xf32>, tensor<ui8>, tensor<1x2x4x4x16xui8>, tensor<f32>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>)
  func.return %0, %1, %2, %3, %4, %5 : tensor<1x2x4x4x16xui8>, tensor<7x48xi8>, tensor<1x6x4x4xi32>, tensor<1x6x4x4xi32>, tensor<3x5xi32>, tensor<1x2x4x4x16xui8>
}
"""


def test_int8_products_count_as_their_float_kind():
    """An int8 model's time goes to conv and matmul, not layout/copy."""
    fn = lamina.parse(INT8_OPS).body.block.first_op
    ops = [o for o in fn.body.block.ops if isinstance(o, relay.RelayOp)]
    assert [op_class(o) for o in ops] == ["conv", "matmul", "conv", "grouped conv", "matmul", "conv"]
