"""Models compiled for other machines (aarch64, riscv64 with RVV), linked with
Zig's clang and run through `lamina run` under qemu-user: the outputs match
onnxruntime on this machine. `.ci/run` installs qemu-user and the targets' C
libraries; without them these tests are skipped, naming what is missing."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest

import lamina
from lamina.codegen import artifact, toolchain
from lamina.codegen.artifact import run_library
from lamina.errors import CompileError, LaminaError
from lamina.target import Target
from lamina.tools.cli import main as lamina_main
from lamina.tools.models import resnet, transformer_block

TARGETS = {
    "aarch64": "aarch64-linux-gnu",
    "riscv64": "riscv64-linux-gnu -mattr=+v",
}


def _needs(arch: str) -> None:
    try:
        artifact.emulator(arch)
        toolchain.zig_cc(Target.parse(TARGETS[arch]))
    except LaminaError as e:
        pytest.skip(str(e))


def _close(got: np.ndarray, want: np.ndarray, rel: float = 1e-4) -> None:
    scale = max(float(np.abs(want).max()), 1e-6)
    assert got.shape == want.shape
    assert float(np.abs(got - want).max()) / scale <= rel


def _ort(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


def _cnn() -> onnx.ModelProto:
    """A ResNet of two stages on 3x32x32 (convolutions, pooling, dense)."""
    return resnet((1, 1), (16, 32), image_size=32, num_classes=10, name="cnn")


@pytest.mark.parametrize("arch", list(TARGETS))
def test_a_cnn_runs_under_qemu_as_onnxruntime_does(arch: str, tmp_path: Path) -> None:
    _needs(arch)
    model = _cnn()
    lamina.compile(model, target=TARGETS[arch]).export(tmp_path / "cnn.so")
    x = np.random.default_rng(0).standard_normal((1, 3, 32, 32)).astype(np.float32)
    name = model.graph.input[0].name
    (got,) = run_library(tmp_path / "cnn.so", {name: x})
    _close(got, _ort(model, {name: x})[0])


def _conv_nets() -> onnx.ModelProto:
    """An audio front end (1-D convolutions, GELU) beside a video block (3-D
    convolutions, a residual, a pool): both run in blocked layouts whose block is
    the target's lanes (4 on NEON, RVV's from its vector length)."""
    rng = np.random.default_rng(3)

    def init(name: str, *shape: int) -> onnx.TensorProto:
        return onnx.numpy_helper.from_array((rng.standard_normal(shape) * 0.2).astype(np.float32), name)

    h = onnx.helper
    nodes = [
        h.make_node("Conv", ["audio", "a1"], ["a"], kernel_shape=[10], strides=[5]),
        h.make_node("Gelu", ["a"], ["ag"]),
        h.make_node("Conv", ["ag", "a2"], ["audio_out"], kernel_shape=[3], strides=[2], pads=[1, 1]),
        h.make_node("Conv", ["video", "v1"], ["v"], kernel_shape=[1, 3, 3], pads=[0, 1, 1, 0, 1, 1]),
        h.make_node("Relu", ["v"], ["vr"]),
        h.make_node("Conv", ["vr", "v2"], ["v2o"], kernel_shape=[3, 1, 1], pads=[1, 0, 0, 1, 0, 0]),
        h.make_node("Add", ["v2o", "video"], ["vs"]),
        h.make_node("ReduceMean", ["vs", "axes"], ["video_out"], keepdims=1),
    ]
    graph = h.make_graph(
        nodes, "convs",
        [h.make_tensor_value_info("audio", onnx.TensorProto.FLOAT, [1, 1, 400]),
         h.make_tensor_value_info("video", onnx.TensorProto.FLOAT, [1, 16, 4, 6, 6])],
        [h.make_tensor_value_info("audio_out", onnx.TensorProto.FLOAT, None),
         h.make_tensor_value_info("video_out", onnx.TensorProto.FLOAT, None)],
        [init("a1", 32, 1, 10), init("a2", 32, 32, 3), init("v1", 32, 16, 1, 3, 3), init("v2", 16, 32, 3, 1, 1),
         onnx.numpy_helper.from_array(np.array([2, 3, 4], np.int64), "axes")],
    )
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 20)])


@pytest.mark.parametrize("arch", list(TARGETS))
def test_blocked_1d_and_3d_convolutions_run_under_qemu(arch: str, tmp_path: Path) -> None:
    _needs(arch)
    model = _conv_nets()
    lamina.compile(model, target=TARGETS[arch]).export(tmp_path / "convs.so")
    rng = np.random.default_rng(4)
    feeds = {
        "audio": rng.standard_normal((1, 1, 400)).astype(np.float32),
        "video": rng.standard_normal((1, 16, 4, 6, 6)).astype(np.float32),
    }
    got = run_library(tmp_path / "convs.so", feeds)
    for g, w in zip(got, _ort(model, feeds), strict=True):
        _close(g, w)


@pytest.mark.parametrize("arch", list(TARGETS))
def test_a_transformer_block_with_symbolic_sizes_runs_under_qemu(arch: str, tmp_path: Path) -> None:
    _needs(arch)
    model = transformer_block(batch="batch", seq="seq", d_model=64, heads=4, d_ff=128)
    exe = lamina.compile(model, target=TARGETS[arch])
    exe.export(tmp_path / "block.so")
    rng = np.random.default_rng(1)
    for batch, seq in [(1, 5), (2, 17)]:
        feeds = {
            i.name: rng.standard_normal((batch, seq, 64)).astype(np.float32) for i in model.graph.input
        }
        got = run_library(tmp_path / "block.so", feeds)
        for g, w in zip(got, _ort(model, feeds), strict=True):
            _close(g, w)


def test_lamina_run_writes_the_outputs_of_a_foreign_library(tmp_path: Path, capsys) -> None:
    _needs("aarch64")
    model = _cnn()
    onnx.save(model, tmp_path / "cnn.onnx")
    lib = tmp_path / "cnn.so"
    assert lamina_main(["compile", str(tmp_path / "cnn.onnx"), "--target", TARGETS["aarch64"], "-o", str(lib)]) == 0
    x = np.random.default_rng(2).standard_normal((1, 3, 32, 32)).astype(np.float32)
    name = model.graph.input[0].name
    np.save(tmp_path / "x.npy", x)
    out = tmp_path / "out.npz"
    assert lamina_main(["run", str(lib), "--input", f"{name}=" + str(tmp_path / "x.npy"), "--output", str(out)]) == 0
    with np.load(out) as data:
        _close(data[model.graph.output[0].name], _ort(model, {name: x})[0])
    with pytest.raises(LaminaError, match=r"built for aarch64.*lamina run"):
        lamina.load(lib)


@pytest.mark.parametrize("arch", list(TARGETS))
def test_libraries_need_only_libc_libm_and_libpthread(arch: str, tmp_path: Path) -> None:
    _needs(arch)
    if shutil.which("readelf") is None:
        pytest.skip("needs readelf (binutils)")
    lamina.compile(_cnn(), target=TARGETS[arch]).export(tmp_path / "cnn.so")
    dyn = subprocess.run(["readelf", "-d", str(tmp_path / "cnn.so")], capture_output=True, text=True, check=True)
    needed = {line.split("[")[1].rstrip("]") for line in dyn.stdout.splitlines() if "(NEEDED)" in line}
    assert needed <= {"libc.so.6", "libm.so.6", "libpthread.so.0"} and "libc.so.6" in needed
    head = (tmp_path / "cnn.so").read_bytes()[:20]
    assert int.from_bytes(head[18:20], "little") == {"aarch64": 183, "riscv64": 243}[arch]


def test_a_missing_cross_toolchain_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(toolchain.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(CompileError, match=r"pip install 'lamina\[cross\]'"):
        toolchain.c_compiler(Target.parse("aarch64-linux-gnu"))
    assert toolchain.zig_triple(Target.parse("riscv64-linux-gnu")) == "riscv64-linux-gnu.2.28"
    assert toolchain.zig_triple(Target.parse("aarch64-linux-musl")) == "aarch64-linux-musl"
    assert toolchain.zig_triple(Target.parse("wasm32")) == "wasm32-wasi"


def test_a_missing_emulator_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    artifact.emulator.cache_clear()
    monkeypatch.setattr(artifact.shutil, "which", lambda name: None)
    try:
        with pytest.raises(LaminaError, match=r"apt install qemu-user libc6-arm64-cross"):
            artifact.emulator("aarch64")
        assert artifact.emulator(Target.host().arch) == []
    finally:
        artifact.emulator.cache_clear()
