"""Winograd convolution, F(m x m, 3 x 3) (`conv2d-winograd`): the transform
matrices, the ops' numpy evaluators and the compiled kernels against the direct
convolution over shapes (odd sizes, tiles past the output, channels that are
not a whole block, batches, padding), which convolutions are rewritten, and a
default build left as it is. The choice by tuning records is tested in
tests/test_winograd_tuning.py."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import lamina
from lamina.dialects.resources import blobs
from lamina.errors import LaminaError
from lamina.ir import parse, print_ir
from lamina.lowering.topi.winograd import (
    POINTS,
    input_transform,
    output_transform,
    weight_transform,
    winograd_matrices,
)
from lamina.passes import PassContext, run_pipeline
from lamina.target import Target
from lamina.transforms.graph.fold_constant import evaluate

LANES = Target.host().lanes(32)
RNG = np.random.default_rng(3)


def _conv(x: np.ndarray, w: np.ndarray, pads: tuple[int, int, int, int]) -> np.ndarray:
    """The direct 3x3 convolution in f64: NCHW data, `[K, C, 3, 3]` weight."""
    top, left, bottom, right = pads
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (top, bottom), (left, right)))
    windows = np.lib.stride_tricks.sliding_window_view(xp, (3, 3), axis=(2, 3))
    return np.einsum("nchwij,kcij->nkhw", windows, w.astype(np.float64))


def _model(n: int, c: int, k: int, hw: tuple[int, int], pads: tuple[int, int, int, int]) -> onnx.ModelProto:
    """Conv(3x3, bias) -> Relu, and a residual Add of the input when `c == k`."""
    w = (RNG.standard_normal((k, c, 3, 3)) / np.sqrt(9 * c)).astype(np.float32)
    b = RNG.standard_normal(k).astype(np.float32)
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=list(pads), kernel_shape=[3, 3])]
    out = "c"
    oh, ow = hw[0] + pads[0] + pads[2] - 2, hw[1] + pads[1] + pads[3] - 2
    if c == k and (oh, ow) == hw:
        nodes.append(helper.make_node("Add", ["c", "x"], ["s"]))
        out = "s"
    nodes.append(helper.make_node("Relu", [out], ["y"]))
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [n, c, *hw])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [n, k, oh, ow])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _tiles(m: int) -> PassContext:
    """A compile that gives every eligible conv Winograd's tile size `m`."""
    return PassContext(opt_level=3, config={"conv2d-winograd.tile-size": m})


def _graph(model: onnx.ModelProto, ctx: PassContext) -> str:
    """The graph after the graph passes, as text (its blobs released: the next
    compile names its own alike)."""
    with blobs.recording() as created:
        try:
            module = lamina.from_onnx(model)
            run_pipeline(module, "optimize", ctx)
            return print_ir(module, resources_limit=0)
        finally:
            blobs.release(created)


# ------------------------------------------------------------------ matrices
@pytest.mark.parametrize("m", sorted(POINTS))
def test_the_matrices_compute_the_correlation(m: int) -> None:
    """`A^T ((G g) * (B^T d))` is the 1-D correlation of `d` with `g`, and
    `A^T ((G g G^T) * (B^T d B)) A` the 2-D one, to f64 rounding."""
    at, bt, g = winograd_matrices(m)
    a = m + 2
    d, k = RNG.standard_normal(a), RNG.standard_normal(3)
    np.testing.assert_allclose(at @ ((g @ k) * (bt @ d)), np.correlate(d, k, "valid"), rtol=0, atol=1e-12)
    d2, k2 = RNG.standard_normal((a, a)), RNG.standard_normal((1, 1, 3, 3))
    u = weight_transform(k2, m, 1)[0, :, 0, 0].reshape(a, a)
    y = output_transform(m) @ (u * (input_transform(m) @ d2 @ input_transform(m).T)) @ output_transform(m).T
    want = _conv(d2[None, None], k2, (0, 0, 0, 0))[0, 0]
    np.testing.assert_allclose(y, want, rtol=0, atol=1e-11)


def test_the_points_are_tvms_and_other_tile_sizes_are_refused() -> None:
    assert POINTS[2] == (0.0, -1.0, 1.0)
    assert POINTS[4] == (0.0, -1.0, 1.0, 0.5, -2.0)  # Barabasz et al., TVM's for F(4, 3)
    with pytest.raises(ValueError, match="no Winograd points for F"):
        winograd_matrices(3)


@pytest.mark.parametrize("m", [2, 4])
def test_the_numpy_evaluators_compose_to_the_convolution(m: int) -> None:
    """input transform -> matmul -> output transform, with fold-constant's
    evaluators: the direct convolution (blocked layouts, 2 images, tails)."""
    n, c, k, h, w, cb, kb, pads = 2, 12, 8, 7, 6, 4, 8, (1, 0, 2, 1)
    oh, ow = h + pads[0] + pads[2] - 2, w + pads[1] + pads[3] - 2
    a, th, tw = m + 2, -(-oh // m), -(-ow // m)
    p = n * th * tw
    text = f"""
    func.func @main(%x: tensor<{n}x{c // cb}x{h}x{w}x{cb}xf32>, %t: tensor<{a}x{a}xf32>,
                    %u: tensor<{k // kb}x{a * a}x{c}x{kb}xf32>, %s: tensor<{m}x{a}xf32>)
        -> tensor<{n}x{k // kb}x{oh}x{ow}x{kb}xf32> {{
      %v = relay.winograd_input_transform %x, %t {{tile_size = {m} : i64, padding = array<i64: {", ".join(map(str, pads))}>}}
        : (tensor<{n}x{c // cb}x{h}x{w}x{cb}xf32>, tensor<{a}x{a}xf32>)
      %mm = relay.matmul %v, %u : (tensor<{a * a}x{p}x{c}xf32>, tensor<{k // kb}x{a * a}x{c}x{kb}xf32>)
      %y = relay.winograd_output_transform %mm, %s {{tile_size = {m} : i64, output_size = array<i64: {oh}, {ow}>}}
        : (tensor<{k // kb}x{a * a}x{p}x{kb}xf32>, tensor<{m}x{a}xf32>)
      func.return %y : tensor<{n}x{k // kb}x{oh}x{ow}x{kb}xf32>
    }}"""
    fn = parse(text).body.block.first_op
    x = RNG.standard_normal((n, c, h, w)).astype(np.float32)
    wt = RNG.standard_normal((k, c, 3, 3)).astype(np.float32)
    blocked = x.reshape(n, c // cb, cb, h, w).transpose(0, 1, 3, 4, 2)
    args = [blocked, input_transform(m), weight_transform(wt, m, kb), output_transform(m)]
    (got,) = evaluate(fn.body.block, [np.ascontiguousarray(v, np.float32) for v in args])
    want = _conv(x, wt, pads).reshape(n, k // kb, kb, oh, ow).transpose(0, 1, 3, 4, 2)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-4 * np.abs(want).max())


# ------------------------------------------------------------- compiled kernels
@pytest.mark.parametrize(
    ("n", "c", "k", "hw", "pads", "m"),
    [
        (1, LANES, LANES, (8, 8), (1, 1, 1, 1), 4),  # whole tiles, a residual add
        (2, 24, 40, (13, 11), (1, 1, 1, 1), 4),  # 2 images, tails, blocks of 8
        (1, 3, 5, (9, 10), (0, 1, 2, 0), 2),  # blocks of 1, asymmetric padding
        (1, 2 * LANES, LANES, (7, 7), (1, 1, 1, 1), 2),  # a tail of m = 2
        (1, LANES, 2 * LANES, (5, 6), (0, 0, 0, 0), 4),  # no padding: one tile, past the output
        (3, LANES, LANES, (6, 9), (2, 2, 2, 2), 4),  # padding 2: more outputs than inputs
    ],
)
def test_winograd_matches_the_direct_convolution(n, c, k, hw, pads, m) -> None:
    model = _model(n, c, k, hw, pads)
    assert "relay.winograd_input_transform" in _graph(model, _tiles(m))
    x = RNG.standard_normal((n, c, *hw)).astype(np.float32)
    (want,) = lamina.compile(model, num_threads=1).run(x)
    (got,) = lamina.compile(model, num_threads=1, pass_context=_tiles(m)).run(x)
    assert np.abs(got - want).max() <= 1e-5 * np.abs(want).max()


def test_only_eligible_convolutions_are_rewritten() -> None:
    """Strides, dilations, groups and other kernel sizes stay direct."""
    c = LANES
    inits = {f"w{i}": RNG.standard_normal(s).astype(np.float32) for i, s in enumerate(
        [(c, c, 3, 3), (c, c, 3, 3), (c, 1, 3, 3), (c, c, 5, 5), (c, c, 3, 3)]
    )}
    nodes = [
        helper.make_node("Conv", ["x", "w0"], ["a"], pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("Conv", ["a", "w1"], ["b"], pads=[2, 2, 2, 2], dilations=[2, 2]),
        helper.make_node("Conv", ["b", "w2"], ["d"], pads=[1, 1, 1, 1], group=c),
        helper.make_node("Conv", ["d", "w3"], ["e"], pads=[2, 2, 2, 2]),
        helper.make_node("Conv", ["e", "w4"], ["y"], pads=[1, 1, 1, 1]),  # the only eligible one
    ]
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, c, 12, 12])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(v, k) for k, v in inits.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    assert _graph(model, _tiles(4)).count("relay.winograd_input_transform ") == 1


def test_a_default_build_is_unchanged() -> None:
    """Without a choice the pass rewrites nothing: the graph is the one a
    pipeline without it makes."""
    model = _model(1, LANES, LANES, (8, 8), (1, 1, 1, 1))
    default = _graph(model, PassContext(opt_level=3))
    assert default == _graph(model, PassContext(opt_level=3, disabled_passes=("conv2d-winograd",)))
    assert "winograd" not in default
    with pytest.raises(LaminaError, match="tile-size: 3 is not 0 or one of 2, 4, 6"):
        _graph(model, _tiles(3))
