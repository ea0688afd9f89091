"""Models compiled for wasm32 (SIMD128): the WebAssembly module runs in wasmtime
(`lamina run`) and in node through lamina.mjs, matching onnxruntime."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest

import lamina
from lamina.codegen.artifact import run_wasm
from lamina.errors import LaminaError
from lamina.runtime.seal import check_seal
from lamina.tools.models import resnet, transformer_block

pytest.importorskip("wasmtime", reason="needs wasmtime (the cross extra)")


def _close(got: np.ndarray, want: np.ndarray, rel: float = 1e-4) -> None:
    assert got.shape == want.shape
    assert float(np.abs(got - want).max()) / max(float(np.abs(want).max()), 1e-6) <= rel


def _ort(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


@pytest.fixture(scope="module")
def cnn(tmp_path_factory: pytest.TempPathFactory) -> tuple[onnx.ModelProto, Path]:
    model = resnet((1, 1), (16, 32), image_size=32, num_classes=10, name="cnn")
    path = tmp_path_factory.mktemp("wasm") / "cnn.wasm"
    lamina.compile(model, target="wasm32").export(path)
    return model, path


def test_a_cnn_runs_in_wasmtime_as_onnxruntime_does(cnn) -> None:
    model, path = cnn
    x = np.random.default_rng(0).standard_normal((1, 3, 32, 32)).astype(np.float32)
    name = model.graph.input[0].name
    (got,) = run_wasm(path, {name: x})
    _close(got, _ort(model, {name: x})[0])


def test_the_module_is_sealed_and_has_the_loader_beside_it(cnn) -> None:
    _, path = cnn
    record, _ = check_seal(path)  # the seal's custom section keeps the module valid
    assert record["format"] == "lamina-seal"
    assert (path.parent / "lamina.mjs").read_text().startswith("// lamina.mjs")
    with pytest.raises(LaminaError, match=r"WebAssembly module.*lamina run"):
        lamina.load(path)


def test_symbolic_sizes_and_errors_in_wasmtime(tmp_path: Path) -> None:
    model = transformer_block(batch="batch", seq="seq", d_model=64, heads=4, d_ff=128)
    lamina.compile(model, target="wasm32").export(tmp_path / "block.wasm")
    rng = np.random.default_rng(1)
    name = model.graph.input[0].name
    for batch, seq in [(1, 3), (2, 9)]:
        x = rng.standard_normal((batch, seq, 64)).astype(np.float32)
        (got,) = run_wasm(tmp_path / "block.wasm", {name: x})
        _close(got, _ort(model, {name: x})[0])
    with pytest.raises(LaminaError, match=r"axis 2 is 63, the model takes 64"):
        run_wasm(tmp_path / "block.wasm", {name: np.zeros((1, 2, 63), np.float32)})


_NODE = """
import { loadModel } from "./lamina.mjs";
import { readFileSync } from "node:fs";
const model = await loadModel(readFileSync(process.argv[2]));
const x = JSON.parse(readFileSync(process.argv[3], "utf8"));
const [y] = model.run({ [model.inputs[0].name]: { data: Float32Array.from(x.data), shape: x.shape } });
console.log(JSON.stringify({ inputs: model.inputs, shape: y.shape, data: Array.from(y.data) }));
"""


def test_lamina_mjs_runs_the_module_in_node(cnn, tmp_path: Path) -> None:
    if shutil.which("node") is None:
        pytest.skip("needs node")
    model, path = cnn
    x = np.random.default_rng(2).standard_normal((1, 3, 32, 32)).astype(np.float32)
    (path.parent / "run.mjs").write_text(_NODE)
    (tmp_path / "x.json").write_text(json.dumps({"data": x.ravel().tolist(), "shape": list(x.shape)}))
    out = subprocess.run(["node", str(path.parent / "run.mjs"), str(path), str(tmp_path / "x.json")],
                         capture_output=True, text=True, check=True)
    result = json.loads(out.stdout)
    assert result["inputs"] == [{"name": model.graph.input[0].name, "shape": [1, 3, 32, 32], "dtype": "float32"}]
    got = np.asarray(result["data"], np.float32).reshape(result["shape"])
    _close(got, _ort(model, {model.graph.input[0].name: x})[0])
