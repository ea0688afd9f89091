"""alter-op-layout (O3): convolutions become pad + im2col + 1x1 convolution and
dense weights are packed in column panels (or transposed) at compile time; compiled models still compute what
onnxruntime / the ONNX reference evaluator compute."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator
from xdsl.dialects.builtin import ModuleOp

import lamina
from lamina.dialects import relay
from lamina.passes import PassContext, run_pipeline
from lamina.target import Target
from lamina.tools.models import resnet18

RNG = np.random.default_rng(0)


#: The target the rewrites below are counted for: its blocks and choices are
#: AVX-512's (16 f32 lanes), whatever the host running the tests has.
AVX512 = Target.parse("x86_64-linux-gnu -mcpu=znver4")


def optimized(model: onnx.ModelProto, opt_level: int) -> ModuleOp:
    """The graph after the graph-level pipeline at `opt_level` (no lowering),
    for `AVX512`."""
    module = lamina.from_onnx(model)
    run_pipeline(
        module, "optimize", PassContext(opt_level=opt_level, target=AVX512), mlir_ctx=lamina.context()
    )
    return module


def count(module: ModuleOp, cls: type) -> int:
    return sum(isinstance(op, cls) for op in module.walk())


def conv_kernels(module: ModuleOp) -> list[tuple[int, ...]]:
    """The kernel (spatial) shapes of the module's conv2d weights."""
    out = []
    for op in module.walk():
        if isinstance(op, relay.Conv2DOp):
            out.append(tuple(op.operands[1].type.get_shape()[2:]))  # type: ignore[attr-defined]
    return out


def make_model(
    nodes: list[onnx.NodeProto],
    inputs: dict[str, tuple[int, ...]],
    outputs: dict[str, tuple[int, ...]],
    inits: dict[str, np.ndarray],
) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes,
        "g",
        [
            helper.make_tensor_value_info(n, TensorProto.FLOAT, s)
            for n, s in inputs.items()
        ],
        [
            helper.make_tensor_value_info(n, TensorProto.FLOAT, s)
            for n, s in outputs.items()
        ],
        [numpy_helper.from_array(a.astype(np.float32), n) for n, a in inits.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    return model


# One convolution per case: (name, input shape, weight shape, attributes, output shape).
CONVS: list[
    tuple[str, tuple[int, ...], tuple[int, ...], dict[str, object], tuple[int, ...]]
] = [
    (
        "stride2_pad1",
        (1, 3, 9, 9),
        (5, 3, 3, 3),
        {"strides": [2, 2], "pads": [1, 1, 1, 1]},
        (1, 5, 5, 5),
    ),
    (
        "dilated",
        (1, 3, 9, 9),
        (4, 3, 3, 3),
        {"dilations": [2, 2], "pads": [2, 2, 2, 2]},
        (1, 4, 9, 9),
    ),
    (
        "asymmetric",
        (1, 2, 7, 6),
        (3, 2, 2, 3),
        {"pads": [0, 1, 1, 0], "strides": [1, 2]},
        (1, 3, 7, 3),
    ),
    ("valid5x5", (1, 2, 9, 9), (3, 2, 5, 5), {}, (1, 3, 5, 5)),
    ("pointwise", (1, 3, 9, 9), (6, 3, 1, 1), {}, (1, 6, 9, 9)),
    ("pointwise_s2", (1, 3, 9, 9), (6, 3, 1, 1), {"strides": [2, 2]}, (1, 6, 5, 5)),
    (
        "grouped",
        (1, 4, 9, 9),
        (6, 2, 3, 3),
        {"group": 2, "pads": [1, 1, 1, 1]},
        (1, 6, 9, 9),
    ),
    (
        "depthwise",
        (1, 4, 9, 9),
        (4, 1, 3, 3),
        {"group": 4, "strides": [2, 2]},
        (1, 4, 4, 4),
    ),
]
ALTERED = {"stride2_pad1", "dilated", "asymmetric", "valid5x5", "pointwise_s2"}


def conv_model(batch: int) -> onnx.ModelProto:
    """Every case of CONVS as one output (with a bias, then a relu for some), plus
    a conv whose weight is a graph input (not a constant)."""
    nodes, inits, inputs, outputs = [], {}, {}, {}
    for name, xs, ws, attrs, ys in CONVS:
        x = f"x_{name}"
        inputs[x] = (batch, *xs[1:])
        inits[f"w_{name}"] = RNG.standard_normal(ws)
        inits[f"b_{name}"] = RNG.standard_normal(ws[0])
        conv = helper.make_node(
            "Conv",
            [x, f"w_{name}", f"b_{name}"],
            [f"c_{name}"],
            kernel_shape=list(ws[2:]),
            **attrs,
        )
        nodes.append(conv)
        nodes.append(helper.make_node("Relu", [f"c_{name}"], [f"y_{name}"]))
        outputs[f"y_{name}"] = (batch, *ys[1:])
    inputs["x_dyn"], inputs["w_dyn"] = (batch, 2, 6, 6), (3, 2, 3, 3)
    nodes.append(
        helper.make_node(
            "Conv", ["x_dyn", "w_dyn"], ["y_dyn"], strides=[2, 2], pads=[1, 1, 1, 1]
        )
    )
    outputs["y_dyn"] = (batch, 3, 3, 3)
    return make_model(nodes, inputs, outputs, inits)


def test_conv_rewrites() -> None:
    model = conv_model(1)
    o2, o3 = optimized(model, 2), optimized(model, 3)
    assert count(o2, relay.Im2ColOp) == 0  # an O3 pass
    assert count(o3, relay.Im2ColOp) == len(ALTERED) + 1  # + the dynamic-weight conv
    # padded ones are padded first, so the patches need no bounds checks; so is
    # the padded grouped conv, whose window schedule then reads whole vectors
    assert count(o3, relay.PadOp) == count(o2, relay.PadOp) + 4 + 1
    grouped = [op for op in o3.walk() if isinstance(op, relay.Conv2DOp) and op.attrs.groups > 1]
    assert len(grouped) == 2
    assert all(not any(relay.Window(op.name, op, 2).pad_begin) for op in grouped)
    # what is left: 1x1 GEMMs, and the grouped / depthwise convs
    kernels = conv_kernels(o3)
    assert sorted(k for k in kernels if k != (1, 1)) == [(3, 3), (3, 3)]
    assert len(kernels) == len(CONVS) + 1
    for op in o3.walk():
        if isinstance(op, relay.Im2ColOp):
            assert not (op.padding and any(op.padding.get_values()))  # type: ignore[union-attr]
    # the weight of the non-constant conv is reshaped in the graph
    assert any(
        isinstance(op, relay.ReshapeOp)
        and op.operands[0].type.get_shape() == (3, 2, 3, 3)  # type: ignore[attr-defined]
        for op in o3.walk()
    )


@pytest.mark.parametrize("batch", [1, 2])
def test_conv_numerics_match_reference(batch: int) -> None:
    model = conv_model(batch)
    feeds = {
        i.name: RNG.standard_normal(
            [d.dim_value for d in i.type.tensor_type.shape.dim]
        ).astype(np.float32)
        for i in model.graph.input
    }
    want = ReferenceEvaluator(model).run(None, feeds)
    exe = lamina.compile(model, opt_level=3, num_threads=2)
    got = exe.run(**feeds)
    names = [o.name for o in model.graph.output]
    assert exe.output_names == names
    for name, g, w in zip(names, got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4, err_msg=name)


def dense_model() -> onnx.ModelProto:
    """Gemm with transB (and alpha/beta), Gemm without, and a MatMul by a constant."""
    inits = {
        "w_t": RNG.standard_normal((13, 7)),  # N x K: transB
        "b_t": RNG.standard_normal(13),
        "w_n": RNG.standard_normal((7, 5)),
        "w_m": RNG.standard_normal((7, 9)),
    }
    nodes = [
        helper.make_node(
            "Gemm", ["x", "w_t", "b_t"], ["y_t"], transB=1, alpha=0.5, beta=2.0
        ),
        helper.make_node("Gemm", ["x", "w_n"], ["y_n"]),
        helper.make_node("MatMul", ["x", "w_m"], ["y_m"]),
        helper.make_node("Gemm", ["x", "wd"], ["y_d"], transB=1),  # a weight input
    ]
    return make_model(
        nodes,
        {"x": (6, 7), "wd": (3, 7)},
        {"y_t": (6, 13), "y_n": (6, 5), "y_m": (6, 9), "y_d": (6, 3)},
        inits,
    )


def test_dense_transposed_weight() -> None:
    model = dense_model()
    o2, o3 = optimized(model, 2), optimized(model, 3)

    def transposed(m: ModuleOp) -> int:
        return sum(
            isinstance(op, relay.DenseOp) and "transpose_b" in op.properties
            for op in m.walk()
        )

    assert transposed(o2) >= 2
    assert transposed(o3) == 1  # only the one with a non-constant weight is left
    x = RNG.standard_normal((6, 7)).astype(np.float32)
    wd = RNG.standard_normal((3, 7)).astype(np.float32)
    want = ReferenceEvaluator(model).run(None, {"x": x, "wd": wd})
    got = lamina.compile(model, opt_level=3).run(x, wd)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4)



def test_dense_pack() -> None:
    """Products by a constant weight whose columns divide into the lanes read it
    packed in column panels (`relay.dense_pack`, a bias added after it); odd row
    counts leave tails; alpha keeps the transposed dense."""
    inits = {
        "w_t": RNG.standard_normal((48, 7)),  # N x K: transB
        "b_t": RNG.standard_normal(48),
        "w_n": RNG.standard_normal((7, 32)),
        "b_n": RNG.standard_normal((5, 32)),
        "w_m": RNG.standard_normal((7, 64)),
        "w_a": RNG.standard_normal((32, 7)),
    }
    nodes = [
        helper.make_node("Gemm", ["x", "w_t", "b_t"], ["y_t"], transB=1),
        helper.make_node("Gemm", ["x", "w_n", "b_n"], ["y_n"]),
        helper.make_node("MatMul", ["x3", "w_m"], ["y_m"]),
        helper.make_node("Gemm", ["x", "w_a"], ["y_a"], transB=1, alpha=0.5),
    ]
    model = make_model(
        nodes,
        {"x": (5, 7), "x3": (3, 11, 7)},
        {"y_t": (5, 48), "y_n": (5, 32), "y_m": (3, 11, 64), "y_a": (5, 32)},
        inits,
    )
    o3 = optimized(model, 3)
    assert count(o3, relay.DensePackOp) == 3
    assert count(o3, relay.DenseOp) == 1  # alpha: the transposed dense
    assert count(optimized(model, 2), relay.DensePackOp) == 0
    x = RNG.standard_normal((5, 7)).astype(np.float32)
    x3 = RNG.standard_normal((3, 11, 7)).astype(np.float32)
    want = ReferenceEvaluator(model).run(None, {"x": x, "x3": x3})
    for threads in (1, 2):
        got = lamina.compile(model, opt_level=3, num_threads=threads).run(x, x3)
        for g, w in zip(got, want, strict=True):
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4)

def test_resnet18_at_o3_matches_onnxruntime() -> None:
    ort = pytest.importorskip("onnxruntime")
    model = resnet18(image_size=32, num_classes=10)
    # every conv of ResNet-18 is altered to a blocked NCHW<x>c convolution (the
    # stem reads the image's 3 channels as one block, NCHW3c), and so is its max
    # pool: blocked from the first conv to the last (one transform in, one out).
    # The 3x3 convolutions on the last 2x2 maps read padding for 5/9 of their
    # products: conv-dead-taps computes each as 4 regions (blocked as well).
    n_convs = sum(n.op_type == "Conv" for n in model.graph.node)
    o3 = optimized(model, 3)
    assert count(o3, relay.Im2ColOp) == count(o3, relay.Conv2DOp) == 0
    assert n_convs == 20 and count(o3, relay.Conv2DNCHWcOp) == n_convs - 3 + 3 * 4
    assert count(o3, relay.MaxPool2DNCHWcOp) == 1
    assert count(o3, relay.LayoutTransformOp) == 2
    x = RNG.standard_normal((1, 3, 32, 32)).astype(np.float32)
    sess = ort.InferenceSession(
        model.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    (want,) = sess.run(None, {"input": x})
    (got,) = lamina.compile(model, opt_level=3, num_threads=2).run(x)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def fire_model(batch: int, side_channels: int) -> onnx.ModelProto:
    """A Fire/Inception module: two convolutions of the same input concatenated
    along the channels with a third operand of `side_channels` channels (the
    input itself, through a relu), a relu, then a convolution of the whole."""
    inits = {
        "w1": RNG.standard_normal((32, 32, 1, 1)), "w3": RNG.standard_normal((32, 32, 3, 3)),
        "wo": RNG.standard_normal((32, 64 + side_channels, 1, 1)),
    }
    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["e1"], kernel_shape=[1, 1]),
        helper.make_node("Conv", ["x", "w3"], ["e3"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["s"], ["side"]),
        helper.make_node("Concat", ["e1", "e3", "side"], ["cat"], axis=1),
        helper.make_node("Relu", ["cat"], ["r"]),
        helper.make_node("Conv", ["r", "wo"], ["y"], kernel_shape=[1, 1]),
    ]
    return make_model(
        nodes,
        {"x": (batch, 32, 7, 7), "s": (batch, side_channels, 7, 7)},
        {"y": (batch, 32, 7, 7), "cat": (batch, 64 + side_channels, 7, 7)},
        inits,
    )


@pytest.mark.parametrize(("batch", "side"), [(1, 32), (2, 16), (1, 5)])
def test_channel_concat_stays_blocked(batch: int, side: int) -> None:
    """A concatenation along the channels joins channel blocks when every operand
    fills whole blocks (no transforms between the convolutions), and keeps NCHW
    when one does not; the compiled model computes the reference's values."""
    model = fire_model(batch, side)
    module = optimized(model, 3)
    (cat,) = [op for op in module.walk() if isinstance(op, relay.ConcatenateOp)]
    blocked = side % 16 == 0
    assert (cat.output.type.get_num_dims() == 5) == blocked
    back = [op for op in module.walk() if isinstance(op, relay.LayoutTransformOp) and op.attrs.dst_layout == "NCHW"]
    if blocked:  # transformed back only for the two graph outputs
        assert len(back) == 2
        assert all(v.type.get_num_dims() == 5 for v in cat.operands)  # type: ignore[attr-defined]
    feeds = {
        i.name: RNG.standard_normal([d.dim_value for d in i.type.tensor_type.shape.dim]).astype(np.float32)
        for i in model.graph.input
    }
    want = ReferenceEvaluator(model).run(None, feeds)
    got = lamina.compile(model, opt_level=3).run(**feeds)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize(
    ("channels", "groups", "stride", "pad", "side"),
    [(64, 4, 1, 1, 9), (96, 6, 2, 1, 16), (32, 2, 1, 0, 7), (48, 3, 2, 0, 11)],
)
def test_grouped_conv_blocked_matches_reference(channels: int, groups: int, stride: int, pad: int, side: int) -> None:
    """Groups of 16 channels (the lanes on AVX-512; half of them on AVX2) become
    `relay.conv2d_nchwc {groups}` where the lanes allow, and match onnx's
    reference with a bias and a ReLU after them, at any stride and padding."""
    rng = np.random.default_rng(channels + side)
    w = (rng.standard_normal((channels, channels // groups, 3, 3)) / 8).astype(np.float32)
    b = rng.standard_normal(channels).astype(np.float32)
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], group=groups, strides=[stride] * 2, pads=[pad] * 4),
        helper.make_node("Relu", ["c"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "grouped", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, channels, side, side])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()
    module = lamina.from_onnx(model)
    run_pipeline(module, "optimize", PassContext(opt_level=3))
    convs = [op for op in module.walk() if isinstance(op, relay.Conv2DNCHWcOp)]
    if Target.host().lanes(32) == 16:
        assert [op.attrs.groups for op in convs] == [groups]
    x = rng.standard_normal((1, channels, side, side)).astype(np.float32)
    (want,) = ReferenceEvaluator(model).run(None, {"x": x})
    (got,) = lamina.compile(model, num_threads=1).run(x)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
