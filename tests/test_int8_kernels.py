"""The int8 kernels: `tir.dot4` (VNNI and its plain-vector fallback),
`qnn.conv2d_nchwc` and `qnn.dense_packed` through `qnn-legalize`, bit-exact
against an integer numpy reference and onnxruntime's QLinearConv and
QLinearMatMul (the requantization: f32 product, round half to even, as
onnxruntime)."""

from __future__ import annotations

import ctypes

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

import lamina
from lamina.codegen.jit import jit_compile
from lamina.codegen.kernels import kernel_name
from lamina.dialects import qnn
from lamina.frontends.onnx import from_onnx
from lamina.lowering.tir_to_llvm import arith as llvm_arith
from lamina.lowering.tir_to_llvm import lower_module
from tests.ort_int8 import assert_like_onnxruntime
from tests.test_onnx_quantize import add_ref
from tests.test_tir_to_llvm import aligned, parse

RNG = np.random.default_rng(7)


# ------------------------------------------------------------------ tir.dot4
DOT4 = """
tir.prim_func @dot(%acc: memref<{n}xi32>, %a: memref<4xui8>, %aw: memref<{w}xui8>, %b: memref<{w}xi8>, %out: memref<{n}xi32>, %out2: memref<{n}xi32>) {{
  %c0 = arith.constant 0 : index
  %v = tir.load %acc[%c0] : memref<{n}xi32>, vector<{n}xi32>
  %x = tir.load %a[%c0] : memref<4xui8>, vector<4xui8>
  %xw = tir.load %aw[%c0] : memref<{w}xui8>, vector<{w}xui8>
  %y = tir.load %b[%c0] : memref<{w}xi8>, vector<{w}xi8>
  %d = tir.dot4 %v, %x, %y : vector<{n}xi32>, vector<4xui8>, vector<{w}xi8>
  %e = tir.dot4 %v, %xw, %y : vector<{n}xi32>, vector<{w}xui8>, vector<{w}xi8>
  tir.store %d, %out[%c0] : memref<{n}xi32>, vector<{n}xi32>
  tir.store %e, %out2[%c0] : memref<{n}xi32>, vector<{n}xi32>
  tir.return
}}
"""


@pytest.mark.parametrize("lanes", [16, 8, 4])
@pytest.mark.parametrize("vnni", [True, False])
def test_dot4_sums_quads_exactly(lanes: int, vnni: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if not vnni:
        monkeypatch.setattr(llvm_arith, "vnni_lanes", lambda: 0)
    module = parse(DOT4.format(n=lanes, w=4 * lanes))
    lower_module(module)
    native = jit_compile(module)
    call = ctypes.CFUNCTYPE(None, *[ctypes.c_void_p] * 6)(native.address("dot"))
    for extreme in (False, True):  # the largest products: nothing may saturate
        acc = aligned(RNG.integers(-(2**30), 2**30, lanes).astype(np.int32))
        a = aligned(np.full(4, 255, np.uint8) if extreme else RNG.integers(0, 256, 4).astype(np.uint8))
        aw = aligned(np.full(4 * lanes, 255, np.uint8) if extreme else RNG.integers(0, 256, 4 * lanes).astype(np.uint8))
        b = aligned(np.full(4 * lanes, -128, np.int8) if extreme else RNG.integers(-128, 128, 4 * lanes).astype(np.int8))
        out, out2 = aligned(np.zeros(lanes, np.int32)), aligned(np.zeros(lanes, np.int32))
        call(*(ctypes.c_void_p(v.ctypes.data) for v in (acc, a, aw, b, out, out2)))
        quads = b.astype(np.int64).reshape(lanes, 4)
        np.testing.assert_array_equal(out, acc + (np.tile(a.astype(np.int64), (lanes, 1)) * quads).sum(1))
        np.testing.assert_array_equal(out2, acc + (aw.astype(np.int64).reshape(lanes, 4) * quads).sum(1))


# ------------------------------------------------------------------ models
def _conv_model(c: int, o: int, k: int, pads: int, stride: int, dilation: int, h: int, w_zp: int = 0, relu: bool = False) -> tuple:
    w = RNG.integers(-127, 128, (o, c, k, k)).astype(np.int8)
    inits = {
        "w": w,
        "ws": (RNG.random(o) * 0.01 + 0.001).astype(np.float32),
        "wz": np.full(o, w_zp, np.int8),
        "xs": np.array(0.02, np.float32),
        "xz": np.array(RNG.integers(0, 256), np.uint8),
        "ys": np.array(0.05, np.float32),
        "yz": np.array(0 if relu else RNG.integers(0, 256), np.uint8),
        "b": RNG.integers(-3000, 3000, o).astype(np.int32),
    }
    node = helper.make_node(
        "QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"], ["y"],
        pads=[pads] * 4, strides=[stride] * 2, dilations=[dilation] * 2,
    )
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", TensorProto.UINT8, [1, c, h, h])],
        [helper.make_tensor_value_info("y", TensorProto.UINT8, None)],
        [numpy_helper.from_array(v, n) for n, v in inits.items()],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), inits


def _conv_reference(x: np.ndarray, p: dict[str, np.ndarray], pads: int, stride: int, dilation: int) -> np.ndarray:
    """QLinearConv with lamina's requantization: integers, then the f32 product."""
    xi = np.pad(x.astype(np.int64) - int(p["xz"]), [(0, 0), (0, 0), (pads, pads), (pads, pads)])
    w = p["w"].astype(np.int64) - p["wz"].astype(np.int64)[:, None, None, None]
    o, _, k, _ = w.shape
    span = (k - 1) * dilation + 1
    oh = (xi.shape[2] - span) // stride + 1
    acc = np.zeros((x.shape[0], o, oh, oh), np.int64)
    for r in range(k):
        for s in range(k):
            patch = xi[:, :, r * dilation : r * dilation + (oh - 1) * stride + 1 : stride, s * dilation : s * dilation + (oh - 1) * stride + 1 : stride]
            acc += np.einsum("nchw,oc->nohw", patch, w[:, :, r, s])
    acc += p["b"].astype(np.int64)[None, :, None, None]
    mult = (p["xs"] * p["ws"] / p["ys"]).astype(np.float32)
    q = np.round(acc.astype(np.float32) * mult[None, :, None, None]).astype(np.float64) + int(p["yz"])
    return np.clip(q, 0, 255).astype(np.uint8)


def _kernels(exe: lamina.CompiledModel) -> list[str]:
    """The model's kernels by name (compile-kernels' symbols without their hash)."""
    return [kernel_name(op.sym_name.data) for op in exe.exporter.module.ops if hasattr(op, "sym_name")]  # type: ignore[union-attr]


CONVS = [
    (16, 32, 3, 1, 1, 1, 12),  # blocked by 16
    (3, 16, 7, 3, 2, 1, 20),  # the stem: 3 channels padded to 4
    (64, 64, 1, 0, 1, 1, 9),  # 1x1
    (32, 48, 3, 2, 1, 2, 11),  # dilated
    (8, 16, 3, 1, 2, 1, 15),  # blocked by 4, strided, a tail of columns
    (16, 16, 5, 2, 1, 1, 31),  # more than a tile of columns
]


@pytest.mark.parametrize(("c", "o", "k", "pads", "stride", "dilation", "h"), CONVS)
@pytest.mark.parametrize("vnni", [True, False])
def test_qlinear_conv_runs_the_packed_kernel_bit_exactly(c: int, o: int, k: int, pads: int, stride: int, dilation: int, h: int, vnni: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if not vnni:
        monkeypatch.setattr(llvm_arith, "vnni_lanes", lambda: 0)
    model, params = _conv_model(c, o, k, pads, stride, dilation, h)
    exe = lamina.compile(model, num_threads=2)
    assert "qnn_conv2d_nchwc" in _kernels(exe)
    session = ort.InferenceSession(model.SerializeToString())
    for _ in range(2):
        x = RNG.integers(0, 256, (1, c, h, h)).astype(np.uint8)
        (y,) = exe.run(x)
        np.testing.assert_array_equal(y, _conv_reference(x, params, pads, stride, dilation))
        (want,) = session.run(None, {"x": x})
        assert_like_onnxruntime(y, want)  # onnxruntime rounds alike


def test_a_weight_zero_point_keeps_the_generic_path() -> None:
    model, params = _conv_model(16, 16, 3, 1, 1, 1, 8, w_zp=3)
    exe = lamina.compile(model)
    assert "qnn_conv2d_nchwc" not in _kernels(exe)
    x = RNG.integers(0, 256, (1, 16, 8, 8)).astype(np.uint8)
    np.testing.assert_array_equal(exe.run(x)[0], _conv_reference(x, params, 1, 1, 1))


def _matmul_model(shape: tuple[int, ...], k: int, n: int) -> tuple:
    inits = {
        "as": np.array(0.03, np.float32),
        "az": np.array(RNG.integers(0, 256), np.uint8),
        "b": RNG.integers(-127, 128, (k, n)).astype(np.int8),
        "bs": (RNG.random(n) * 0.01 + 0.001).astype(np.float32),
        "bz": np.zeros(n, np.int8),
        "ys": np.array(0.2, np.float32),
        "yz": np.array(RNG.integers(0, 256), np.uint8),
    }
    node = helper.make_node("QLinearMatMul", ["a", "as", "az", "b", "bs", "bz", "ys", "yz"], ["y"])
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("a", TensorProto.UINT8, [*shape, k])],
        [helper.make_tensor_value_info("y", TensorProto.UINT8, None)],
        [numpy_helper.from_array(v, name) for name, v in inits.items()],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), inits


@pytest.mark.parametrize(("shape", "k", "n"), [((5,), 64, 32), ((2, 33), 128, 48), ((3, 1, 20), 96, 16), ((4,), 64, 20)])  # 20 columns: padded to whole vectors
def test_qlinear_matmul_runs_the_packed_kernel_bit_exactly(shape: tuple[int, ...], k: int, n: int) -> None:
    model, p = _matmul_model(shape, k, n)
    exe = lamina.compile(model)
    assert "qnn_dense_packed" in _kernels(exe)
    a = RNG.integers(0, 256, (*shape, k)).astype(np.uint8)
    (y,) = exe.run(a)
    acc = (a.astype(np.int64) - int(p["az"])) @ p["b"].astype(np.int64)
    mult = (p["as"] * p["bs"] / p["ys"]).astype(np.float32)
    want = np.clip(np.round(acc.astype(np.float32) * mult).astype(np.float64) + int(p["yz"]), 0, 255).astype(np.uint8)
    np.testing.assert_array_equal(y, want)
    (ref,) = ort.InferenceSession(model.SerializeToString()).run(None, {"a": a})
    assert_like_onnxruntime(y, ref)  # onnxruntime rounds alike


def test_legalize_leaves_what_it_cannot_run() -> None:
    model, _ = _matmul_model((4,), 30, 16)  # K not a multiple of 4
    module = from_onnx(model)
    lamina.run_pipeline(module, "qnn-legalize")
    assert any(isinstance(op, qnn.MatMulOp) for op in module.walk())


# ------------------------------------------------------------ residual adds
def _residual_model(c: int, h: int, conv_lhs: bool) -> tuple:
    """QLinearConv (1x1, c -> c) then QLinearAdd of its result and `r`."""
    model, p = _conv_model(c, c, 1, 0, 1, 1, h)
    add = {"rs": np.array(0.07, np.float32), "rz": np.array(RNG.integers(0, 256), np.uint8),
           "as": np.array(0.09, np.float32), "az": np.array(RNG.integers(0, 256), np.uint8)}
    pair = ["y", "ys", "yz", "r", "rs", "rz"] if conv_lhs else ["r", "rs", "rz", "y", "ys", "yz"]
    graph = model.graph
    graph.node.append(helper.make_node("QLinearAdd", [*pair, "as", "az"], ["out"], domain="com.microsoft"))
    graph.input.append(helper.make_tensor_value_info("r", TensorProto.UINT8, [1, c, h, h]))
    graph.initializer.extend(numpy_helper.from_array(v, n) for n, v in add.items())
    del graph.output[:]
    graph.output.append(helper.make_tensor_value_info("out", TensorProto.UINT8, None))
    model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    return model, {**p, **add}


@pytest.mark.parametrize("conv_lhs", [True, False])
@pytest.mark.parametrize(("c", "h"), [(32, 9), (16, 17)])  # a tail of columns; more than a tile
@pytest.mark.parametrize("vnni", [True, False])
def test_a_residual_add_fuses_into_the_conv_bit_exactly(c: int, h: int, conv_lhs: bool, vnni: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fused write-back gives what the add as a kernel of its own gives,
    bit for bit, and what onnxruntime's QLinearAdd gives."""
    from lamina.transforms.graph import qnn_legalize

    if not vnni:
        monkeypatch.setattr(llvm_arith, "vnni_lanes", lambda: 0)
    model, p = _residual_model(c, h, conv_lhs)
    fused = lamina.compile(model)
    assert "qnn_conv2d_nchwc_add" in _kernels(fused)
    monkeypatch.setattr(qnn_legalize, "_residual_add", lambda op: "off")
    apart = lamina.compile(model)
    assert "qnn_conv2d_nchwc_add" not in _kernels(apart) and "qnn_conv2d_nchwc" in _kernels(apart)
    session = ort.InferenceSession(model.SerializeToString())
    for _ in range(2):
        x = RNG.integers(0, 256, (1, c, h, h)).astype(np.uint8)
        r = RNG.integers(0, 256, (1, c, h, h)).astype(np.uint8)
        (y,) = fused.run(x, r)
        np.testing.assert_array_equal(y, apart.run(x, r)[0])
        conv = (_conv_reference(x, p, 0, 1, 1), p["ys"], p["yz"])
        res = (r, p["rs"], p["rz"])
        lhs, rhs = (conv, res) if conv_lhs else (res, conv)
        np.testing.assert_array_equal(y, add_ref(*lhs, *rhs, p["as"], p["az"], np.uint8))
        (ref,) = session.run(None, {"x": x, "r": r})
        assert_like_onnxruntime(y, ref)


@pytest.mark.parametrize(("pads", "ceil"), [((1, 1, 1, 1), 0), ((0, 0, 0, 0), 1), ((1, 0, 0, 1), 1)])
def test_a_max_pool_between_int8_convs_runs_blocked(pads: tuple[int, ...], ceil: int) -> None:
    """A u8 max pool between two int8 convolutions (a ResNet stem's) pools the
    blocked integers: no transform back to NCHW and none again after; its
    borders never win (the least u8 value), exactly as onnxruntime pools."""
    first, _ = _conv_model(8, 32, 3, 1, 1, 1, 15)
    w2 = RNG.integers(-127, 128, (32, 32, 1, 1)).astype(np.int8)
    graph = first.graph
    graph.node.append(helper.make_node("MaxPool", ["y"], ["m"], kernel_shape=[3, 3], strides=[2, 2], pads=list(pads), ceil_mode=ceil))
    graph.node.append(helper.make_node("QLinearConv", ["m", "ys", "yz", "w2", "ws", "wz", "zs", "zz"], ["out"]))
    graph.initializer.extend([numpy_helper.from_array(w2, "w2"), numpy_helper.from_array(np.array(0.4, np.float32), "zs"),
                              numpy_helper.from_array(np.array(7, np.uint8), "zz")])
    del graph.output[:]
    graph.output.append(helper.make_tensor_value_info("out", TensorProto.UINT8, None))
    exe = lamina.compile(first)
    kernels = _kernels(exe)
    assert "max_pool2d_nchwc" in kernels and sum("layout_transform" in k for k in kernels) == 2, kernels  # the input's and the output's
    session = ort.InferenceSession(first.SerializeToString())
    x = RNG.integers(0, 256, (1, 8, 15, 15)).astype(np.uint8)
    (y,) = exe.run(x)
    assert_like_onnxruntime(y, session.run(None, {"x": x})[0])
    # the pool in NCHW between the layout transforms (O0): the same integers
    np.testing.assert_array_equal(y, lamina.compile(first, opt_level=0).run(x)[0])
