"""The nine "light" real models that onnx ships (ResNet-50, DenseNet-121, ...).

onnx's `BackendTest` runs them as its `real` kind: `data/real/test_<name>/data.json`
names the model (`data/light/light_<name>.onnx`, whose weights are ConstantOfShape
nodes) and the tolerances; the input is `Runner.generate_dummy_data(random=False)`
(arange / n as float32) and the expected output is the shipped
`light_<name>_output_0.pb`. This test does the same without writing under
`~/.onnx` as the runner does.

A model that uses an op lamina has no converter for is an expected failure, and only
an `UnsupportedOpError` counts as that: any other failure is a real one.
"""

from __future__ import annotations

import json
import os
import time

import numpy as np
import onnx
import pytest
from onnx import numpy_helper
from onnx.backend.test.runner import Runner

from lamina.errors import UnsupportedOpError
from lamina.frontends.onnx import CONVERTERS
from lamina.tools.onnx_backend import LaminaBackend
from lamina.tools.onnx_conformance import DATA_DIR, op_types


def _light_cases() -> list[tuple[str, str, float, float]]:
    out = []
    real = os.path.join(DATA_DIR, "real")
    for name in sorted(os.listdir(real)):
        meta = os.path.join(real, name, "data.json")
        if not os.path.isfile(meta):
            continue
        with open(meta) as f:
            data = json.load(f)
        url = data.get("url", "")
        if not url.startswith("onnx/backend/test/data/light/"):
            continue
        path = os.path.join(DATA_DIR, "light", os.path.basename(url))
        out.append((name, path, data.get("rtol", 1e-3), data.get("atol", 1e-7)))
    return out


def _params() -> list[object]:
    params = []
    for name, path, rtol, atol in _light_cases():
        missing = sorted(op_types(onnx.load(path)) - set(CONVERTERS))
        marks = []
        if missing:
            marks.append(
                pytest.mark.xfail(
                    reason="ops without a converter yet: " + ", ".join(missing),
                    raises=UnsupportedOpError,
                    strict=False,
                )
            )
        params.append(pytest.param(path, rtol, atol, id=name, marks=marks))
    return params


def test_all_nine_light_models_are_shipped():
    names = {c[0] for c in _light_cases()}
    assert len(names) == 9, names
    for _, path, _, _ in _light_cases():
        assert os.path.isfile(path)
        assert os.path.isfile(path.removesuffix(".onnx") + "_output_0.pb")


@pytest.mark.parametrize(("path", "rtol", "atol"), _params())
def test_light_model(path: str, rtol: float, atol: float):
    model = onnx.load(path)
    init = {t.name for t in model.graph.initializer}
    inputs = [
        Runner.generate_dummy_data(vi, seed=0, name=path, random=False)
        for vi in model.graph.input
        if vi.name not in init
    ]
    expected = []
    for i in range(len(model.graph.output)):
        ref = path.removesuffix(".onnx") + f"_output_{i}.pb"
        expected.append(numpy_helper.to_array(onnx.load_tensor(ref)))
    start = time.perf_counter()
    rep = LaminaBackend.prepare(model, "CPU")
    outputs = list(rep.run(inputs))
    elapsed = time.perf_counter() - start
    Runner.assert_similar_outputs(expected, outputs, rtol=rtol, atol=atol)
    assert all(np.isfinite(o).all() for o in outputs)
    print(f"{os.path.basename(path)}: compiled and ran in {elapsed:.1f} s")
