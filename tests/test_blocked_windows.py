"""Sliding windows in the blocked channel layout (`relay.depthwise_conv2d_nchwc`,
`relay.max_pool2d_nchwc`) and the blocks of `alter-op-layout`: MobileNet-style
inverted residual blocks, squeeze-and-excitation, a stem and its pool, against
onnxruntime over shapes, strides, dilations, asymmetric padding, channel
counts that are not a multiple of the lanes (a block of half of them, or no
block at all), batches of more than one; every point of the `window_nchwc` and
narrow `conv_nchwc` knob spaces against the default schedule."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import helper

import lamina
from lamina.dialects import relay
from lamina.ir import parse
from lamina.lowering.strategy import conv_nchwc
from lamina.lowering.strategy.window_nchwc import WindowNchwcKnobs, window_nchwc
from lamina.target import Target
from lamina.tuning import extract_tasks
from lamina.tuning.measure import _types, build, differs, random_inputs
from tests.test_blocked_conv import _model

ort = pytest.importorskip("onnxruntime")

LANES = Target.host().lanes(32)
RNG = np.random.default_rng(11)


def _compare(model: onnx.ModelProto, x_shape: tuple[int, ...], threads: int = 1) -> None:
    x = RNG.standard_normal(x_shape).astype(np.float32)
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (want,) = sess.run(None, {"x": x})
    (got,) = lamina.compile(model, num_threads=threads).run(x)
    np.testing.assert_allclose(got, want, rtol=2e-4, atol=2e-4)


def _ops(model: onnx.ModelProto) -> dict[str, int]:
    """The graph ops after the graph passes, counted by name."""
    module = lamina.from_onnx(model)
    lamina.run_pipeline(module, "optimize", lamina.PassContext(opt_level=3))
    counts: dict[str, int] = {}
    for op in module.walk():
        if isinstance(op, relay.RelayOp):
            counts[op.name] = counts.get(op.name, 0) + 1
    return counts


def _inverted_residual(
    c: int, hidden: int, kernel: int, stride: int, pads: list[int], dilation: int, residual: bool
) -> tuple[list[onnx.NodeProto], dict[str, np.ndarray]]:
    """A 3x3 convolution (what starts the blocked layout, as a network's stem
    does), then MobileNetV2's block: 1x1 expand, relu6, depthwise, relu6, 1x1
    project (plus its input when `residual`), with biases."""
    inits = {
        "ws": RNG.standard_normal((c, c, 3, 3)) * 0.2,
        "we": RNG.standard_normal((hidden, c, 1, 1)) * 0.3, "be": RNG.standard_normal(hidden),
        "wd": RNG.standard_normal((hidden, 1, kernel, kernel)) * 0.3, "bd": RNG.standard_normal(hidden),
        "wp": RNG.standard_normal((c, hidden, 1, 1)) * 0.3, "bp": RNG.standard_normal(c),
        "lo": np.array(0.0), "hi": np.array(6.0),
    }
    nodes = [
        helper.make_node("Conv", ["x", "ws"], ["s"], pads=[1, 1, 1, 1]),
        helper.make_node("Conv", ["s", "we", "be"], ["e"]),
        helper.make_node("Clip", ["e", "lo", "hi"], ["er"]),
        helper.make_node(
            "Conv", ["er", "wd", "bd"], ["d"], group=hidden, strides=[stride, stride], pads=pads,
            dilations=[dilation, dilation],
        ),
        helper.make_node("Clip", ["d", "lo", "hi"], ["dr"]),
        helper.make_node("Conv", ["dr", "wp", "bp"], ["p" if residual else "y"]),
    ]
    if residual:
        nodes.append(helper.make_node("Add", ["p", "s"], ["y"]))
    return nodes, inits


# (channels, hidden, kernel, stride, pads, dilation, height, width, batch)
BLOCKS = [
    (LANES, 2 * LANES, 3, 1, [1, 1, 1, 1], 1, 9, 11, 1),
    (2 * LANES, 3 * LANES, 3, 2, [1, 1, 1, 1], 1, 14, 13, 2),  # stride 2, odd sizes
    (3 * LANES // 2, 6 * LANES // 2 * 3, 5, 1, [2, 2, 2, 2], 1, 7, 7, 1),  # 24 and 144 on AVX-512
    (LANES // 2 * 5, LANES // 2 * 15, 5, 2, [1, 2, 2, 1], 1, 12, 17, 2),  # 40 -> 120, asymmetric
    (LANES, LANES, 3, 1, [2, 2, 2, 2], 2, 10, 6, 1),  # dilated
    (LANES, 2 * LANES, 7, 1, [3, 3, 3, 3], 1, 5, 5, 1),  # the window larger than the input
    (LANES, 2 * LANES, 3, 1, [0, 0, 0, 0], 1, 3, 20, 3),  # unpadded, batch 3
]


@pytest.mark.parametrize("case", BLOCKS, ids=lambda c: f"c{c[0]}h{c[1]}k{c[2]}s{c[3]}d{c[5]}n{c[8]}")
def test_inverted_residual_blocks_run_blocked(case: tuple) -> None:  # type: ignore[type-arg]
    c, hidden, k, s, pads, d, h, w, n = case
    out = [(size + pads[a] + pads[a + 2] - d * (k - 1) - 1) // s + 1 for a, size in enumerate((h, w))]
    nodes, inits = _inverted_residual(c, hidden, k, s, pads, d, residual=out == [h, w])
    model = _model(nodes, (n, c, h, w), inits)
    ops = _ops(model)
    assert ops.get("relay.depthwise_conv2d_nchwc") == 1 and "relay.conv2d" not in ops
    assert ops["relay.layout_transform"] == 2
    _compare(model, (n, c, h, w))


def test_two_threads() -> None:
    nodes, inits = _inverted_residual(LANES, 4 * LANES, 3, 2, [1, 1, 1, 1], 1, residual=False)
    _compare(_model(nodes, (2, LANES, 23, 19), inits), (2, LANES, 23, 19), threads=2)


def test_channels_without_a_block_stay_nchw() -> None:
    """Channels that neither the lanes nor half of them divide keep the NCHW
    schedules (the 3x3 an im2col GEMM, the depthwise the window template)."""
    c = next(v for v in range(LANES // 2, 4 * LANES) if v % (LANES // 2) and 2 * v % (LANES // 2))
    nodes, inits = _inverted_residual(c, 2 * c, 3, 1, [1, 1, 1, 1], 1, residual=True)
    model = _model(nodes, (2, c, 9, 9), inits)
    ops = _ops(model)
    assert "relay.depthwise_conv2d_nchwc" not in ops and "relay.layout_transform" not in ops
    assert ops["relay.im2col"] == 1
    _compare(model, (2, c, 9, 9))


def test_a_lone_depthwise_conv_stays_nchw() -> None:
    """A depthwise convolution with no blocked neighbour is not blocked: two
    transforms would cost more than its blocked schedule saves."""
    c = 2 * LANES
    w = RNG.standard_normal((c, 1, 3, 3))
    model = _model([helper.make_node("Conv", ["x", "w"], ["y"], group=c, pads=[1, 1, 1, 1])], (1, c, 8, 8), {"w": w})
    assert "relay.depthwise_conv2d_nchwc" not in _ops(model)
    _compare(model, (1, c, 8, 8))


def test_squeeze_and_excitation_stays_blocked() -> None:
    """EfficientNet's block (after a 3x3 convolution): the spatial mean is
    computed blocked, the scale it makes comes back through a transform of
    the [N, C, 1, 1] tensor only; negative axes name the spatial axes of the
    blocked tensor too."""
    c, squeeze = 2 * LANES, 4
    inits = {
        "ws": RNG.standard_normal((c, c, 3, 3)) * 0.2,
        "we": RNG.standard_normal((3 * c, c, 1, 1)) * 0.3, "wd": RNG.standard_normal((3 * c, 1, 3, 3)) * 0.3,
        "w1": RNG.standard_normal((squeeze, 3 * c, 1, 1)) * 0.3, "b1": RNG.standard_normal(squeeze),
        "w2": RNG.standard_normal((3 * c, squeeze, 1, 1)) * 0.3, "b2": RNG.standard_normal(3 * c),
        "wp": RNG.standard_normal((c, 3 * c, 1, 1)) * 0.3,
    }
    nodes = [
        helper.make_node("Conv", ["x", "ws"], ["st"], pads=[1, 1, 1, 1]),
        helper.make_node("Conv", ["st", "we"], ["e"]),
        helper.make_node("Sigmoid", ["e"], ["es"]),
        helper.make_node("Mul", ["e", "es"], ["ea"]),  # SiLU
        helper.make_node("Conv", ["ea", "wd"], ["d"], group=3 * c, pads=[1, 1, 1, 1]),
        helper.make_node("HardSwish", ["d"], ["da"]),
        helper.make_node("ReduceMean", ["da"], ["m"], axes=[-1, -2], keepdims=1),
        helper.make_node("Conv", ["m", "w1", "b1"], ["s1"]),
        helper.make_node("Relu", ["s1"], ["s1r"]),
        helper.make_node("Conv", ["s1r", "w2", "b2"], ["s2"]),
        helper.make_node("HardSigmoid", ["s2"], ["s"]),
        helper.make_node("Mul", ["da", "s"], ["z"]),
        helper.make_node("Conv", ["z", "wp"], ["p"]),
        helper.make_node("Add", ["p", "st"], ["y"]),
    ]
    model = _model(nodes, (2, c, 10, 7), inits)
    module = lamina.from_onnx(model)
    lamina.run_pipeline(module, "optimize", lamina.PassContext(opt_level=3))
    transforms = [op for op in module.walk() if isinstance(op, relay.LayoutTransformOp)]
    full = [t for t in transforms if t.results[0].type.get_shape()[2:4] != (1, 1)]  # type: ignore[attr-defined]
    assert len(full) == 2  # the input in, the result out
    assert any(isinstance(op, relay.MeanOp) and op.results[0].type.get_num_dims() == 5 for op in module.walk())
    _compare(model, (2, c, 10, 7))


# (kernel, strides, pads, dilations, ceil_mode, height, width)
POOLS = [
    ((3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 0, 16, 16),  # ResNet's
    ((3, 3), (2, 2), (0, 0, 0, 0), (1, 1), 1, 15, 12),  # GoogLeNet's, a ceil_mode tail
    ((2, 2), (2, 2), (0, 0, 0, 0), (1, 1), 0, 9, 7),
    ((3, 2), (1, 2), (1, 0, 1, 0), (2, 1), 1, 10, 11),  # dilated, asymmetric, a ceil_mode tail
]


@pytest.mark.parametrize("case", POOLS, ids=lambda c: f"k{c[0][0]}{c[0][1]}s{c[1][0]}c{c[4]}")
def test_a_stem_and_its_max_pool_run_blocked(case: tuple) -> None:  # type: ignore[type-arg]
    """A 3-channel stem conv reads the image as one block of 3 (NCHW3c); the
    max pool after it and the 1x1 conv after that stay blocked."""
    k, s, p, d, ceil, h, w = case
    c = 2 * LANES
    inits = {"w0": RNG.standard_normal((c, 3, 3, 3)), "w1": RNG.standard_normal((c, c, 1, 1)) * 0.2}
    nodes = [
        helper.make_node("Conv", ["x", "w0"], ["a"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["a"], ["r"]),
        helper.make_node(
            "MaxPool", ["r"], ["m"], kernel_shape=list(k), strides=list(s), pads=list(p), dilations=list(d),
            ceil_mode=ceil,
        ),
        helper.make_node("Conv", ["m", "w1"], ["y"]),
    ]
    model = _model(nodes, (2, 3, h, w), inits)
    ops = _ops(model)
    assert ops["relay.max_pool2d_nchwc"] == 1 and ops["relay.conv2d_nchwc"] == 2
    assert ops["relay.layout_transform"] == 2 and "relay.im2col" not in ops
    _compare(model, (2, 3, h, w))


def _task(text: str, template: str):  # type: ignore[no-untyped-def]
    (task,) = [t for t in extract_tasks(parse(text)) if t.template == template]
    return task


@pytest.mark.parametrize(
    ("x", "w", "y", "props"),
    [
        ("1x2x7x9x16", "2x3x3x16", "1x2x4x5x16", "strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>"),
        ("2x3x5x6x8", "3x5x5x8", "2x3x3x5x8", "padding = array<i64: 2, 1, 0, 2>"),
    ],
)
def test_every_window_nchwc_point_computes_the_same(x: str, w: str, y: str, props: str) -> None:
    """The default knobs are a point of the space; every point builds and
    gives the default schedule's result."""
    text = (
        f"func.func @main(%x: tensor<{x}xf32>, %w: tensor<{w}xf32>) -> tensor<{y}xf32> {{\n"
        f"  %0 = relay.depthwise_conv2d_nchwc %x, %w {{{props}}} : (tensor<{x}xf32>, tensor<{w}xf32>)\n"
        f"  %1 = relay.clip %0 {{a_min = 0.0 : f64, a_max = 6.0 : f64}} : tensor<{y}xf32>\n"
        f"  func.return %1 : tensor<{y}xf32>\n}}"
    )
    task = _task(text, "window_nchwc")
    space = task.space()
    assert task.default() in space
    ref_text = task.text()
    ref = build(ref_text, random_inputs(_types(ref_text)[0], 0))
    ref()
    points = list(space)
    assert len(points) > 20
    for knobs in points[:: max(1, len(points) // 40)]:
        kernel = build(task.text(knobs), ref.inputs)
        kernel()
        assert differs(kernel.outputs, ref.outputs) is None, knobs


def test_window_nchwc_rejects_spilling_tiles() -> None:
    space = WindowNchwcKnobs.space(Target.host(), (1, 2, 30, 30, 16), (3, 3), 32)
    assert "vector registers" in (space.check(WindowNchwcKnobs(16, 4, True, 16)) or "")
    assert window_nchwc((1, 2, 30, 30, 16), (3, 3)) == window_nchwc(
        (1, 2, 30, 30, 16), (3, 3), knobs=WindowNchwcKnobs.default(Target.host(), (1, 2, 30, 30, 16), (3, 3))
    )


def test_narrow_blocks_tile_several_output_blocks() -> None:
    """Blocks narrower than a vector: the default tile holds several of them
    (a divisor of their count), and every point of the space that does
    computes the same."""
    half = LANES // 2
    knobs = conv_nchwc.NchwcKnobs.default(Target.host(), (1, 5, 6, 6, half), 32)
    assert knobs.oc == 5 and knobs.cols * knobs.oc <= conv_nchwc.NCHWC_NARROW_POINTS
    assert conv_nchwc.NchwcKnobs.default(Target.host(), (1, 5, 6, 6, LANES), 32).oc == 1
    x, w, y = f"1x2x6x6x{LANES}", f"5x2x1x1x{LANES}x{half}", f"1x5x6x6x{half}"
    text = (
        f"func.func @main(%x: tensor<{x}xf32>, %w: tensor<{w}xf32>) -> tensor<{y}xf32> {{\n"
        f"  %0 = relay.conv2d_nchwc %x, %w : (tensor<{x}xf32>, tensor<{w}xf32>)\n"
        f"  func.return %0 : tensor<{y}xf32>\n}}"
    )
    task = _task(text, "conv_nchwc")
    ref_text = task.text()
    ref = build(ref_text, random_inputs(_types(ref_text)[0], 0))
    ref()
    for knobs in [k for k in task.space() if k.oc > 1 and k.grain == 16][::7]:
        kernel = build(task.text(knobs), ref.inputs)
        kernel()
        assert differs(kernel.outputs, ref.outputs) is None, knobs
