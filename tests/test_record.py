"""The model record (`lamina.runtime.record`): its two encodings round-trip (JSON
for exported libraries, module attributes for lowered modules), a library of the
previous format still loads, and the runtime loads without the compiler."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects.builtin import ModuleOp

import lamina
from lamina.errors import LaminaError
from lamina.ir import parse, print_ir
from lamina.lowering.record import (
    entry_attributes,
    entry_from_attributes,
    read_entry,
    write_entry,
)
from lamina.runtime.model import CompiledModel
from lamina.runtime.record import (
    Assumption,
    Bound,
    EntryABI,
    LiveRange,
    ModelRecord,
    TensorSpec,
)
from lamina.symbolic import Dim, Sym
from lamina.tools.demo import mlp_model

# ------------------------------------------------------------------ strategies
NAMES = st.sampled_from(["n", "m", "batch", "seq", "k0"])


@st.composite
def dims(draw: st.DrawFn) -> Dim:
    if draw(st.booleans()):
        return draw(st.integers(0, 1 << 20))
    text = draw(NAMES)
    for _ in range(draw(st.integers(0, 2))):
        op = draw(st.sampled_from(["+", "*"]))
        term = draw(st.one_of(NAMES, st.integers(1, 9).map(str)))
        text = f"{text} {op} {term}"
    return Sym.parse(text)


DTYPES = st.sampled_from(
    [np.dtype(t) for t in ("float32", "float16", "float64", "int8", "uint8", "int32", "int64", "bool")]
)
TEXT = st.text(max_size=12)
specs = st.builds(TensorSpec, TEXT, st.lists(dims(), max_size=4).map(tuple), DTYPES)


@st.composite
def entries(draw: st.DrawFn, libraries: bool = True) -> EntryABI:
    return EntryABI(
        params=tuple(draw(st.lists(TEXT, max_size=4))),
        workspace_size=draw(st.integers(0, 1 << 40)),
        intermediate_bytes=draw(st.integers(0, 1 << 40)),
        sizes=tuple(draw(st.lists(NAMES, max_size=3))),
        bounds=tuple(
            draw(st.lists(st.builds(Bound, NAMES, st.one_of(st.none(), dims())), max_size=3))
        ),
        exits=tuple(draw(st.lists(TEXT, max_size=3))),
        dynamic_plan=draw(
            st.one_of(
                st.none(),
                st.lists(
                    st.builds(LiveRange, st.integers(0, 999), st.integers(0, 999), dims()),
                    max_size=4,
                ).map(tuple),
            )
        ),
        external_libraries=tuple(draw(st.lists(TEXT, max_size=2))) if libraries else (),
    )


@st.composite
def records(draw: st.DrawFn) -> ModelRecord:
    return ModelRecord(
        inputs=tuple(draw(st.lists(specs, max_size=3))),
        outputs=tuple(draw(st.lists(specs, max_size=3))),
        entry=draw(entries(libraries=False)),
        assumptions=tuple(
            draw(st.lists(st.builds(Assumption, dims(), st.integers(0, 1 << 40), TEXT), max_size=2))
        ),
    )


# ------------------------------------------------------------------ JSON
@settings(max_examples=200, deadline=None)
@given(record=records())
def test_the_record_round_trips_through_json(record: ModelRecord) -> None:
    text = json.dumps(record.to_json())
    assert ModelRecord.from_json(json.loads(text)) == record


def test_json_leaves_the_external_libraries_out() -> None:
    record = ModelRecord((), (), EntryABI(external_libraries=("/cache/libx.so",)))
    assert "/cache" not in json.dumps(record.to_json())
    assert ModelRecord.from_json(record.to_json()).entry.external_libraries == ()


def test_a_format_1_record_reads_with_defaults() -> None:
    """What export wrote before the record (library format 1) still decodes."""
    v1 = {
        "inputs": [{"name": "x", "shape": ["batch", 4], "dtype": "<f4"}],
        "outputs": [{"name": "y", "shape": ["batch", 2], "dtype": "<f4"}],
        "params": [{"offset": 0, "nbytes": 32, "shape": [4, 2], "dtype": "<f4"}],
        "workspace_size": 128,
        "sizes": ["batch"],
        "assumptions": [["batch", 4096, "why"]],
        "bounds": [],
        "exits": [],
        "dynamic_plan": [[0, 1, "16*batch"]],
    }
    record = ModelRecord.from_json(v1)
    batch = Sym.parse("batch")
    assert record.inputs == (TensorSpec("x", (batch, 4), np.dtype(np.float32)),)
    assert record.entry.params == () and record.entry.intermediate_bytes == 128
    assert record.entry.dynamic_plan == (LiveRange(0, 1, Sym.parse("16*batch")),)
    assert record.assumptions == (Assumption(batch, 4096, "why"),)
    assert record.is_symbolic


def test_a_malformed_record_is_an_error() -> None:
    with pytest.raises(LaminaError, match="malformed model record"):
        ModelRecord.from_json({"inputs": []})


# ------------------------------------------------------------ module attributes
@settings(max_examples=200, deadline=None)
@given(entry=entries())
def test_the_entry_round_trips_through_module_attributes(entry: EntryABI) -> None:
    assert entry_from_attributes(entry_attributes(entry)) == entry
    module = ModuleOp([])
    write_entry(module, EntryABI(sizes=("stale",), exits=("stale",)))
    write_entry(module, entry)
    assert read_entry(module) == entry


def test_the_entry_survives_printing_and_parsing() -> None:
    n = Sym.parse("n")
    entry = EntryABI(
        params=("w1", "w0"),
        workspace_size=192,
        intermediate_bytes=256,
        sizes=("n", "k"),
        bounds=(Bound("k", 2 * n), Bound("r", None)),
        exits=("the data asked for more memory than planned",),
        dynamic_plan=(LiveRange(3, 4, 4 * n), LiveRange(0, 1, 64)),
        external_libraries=("/lib/libblas.so",),
    )
    module = ModuleOp([])
    write_entry(module, entry)
    assert read_entry(parse(print_ir(module))) == entry


def test_a_foreign_attribute_is_an_error() -> None:
    module = parse('builtin.module attributes {lamina.sizes = [1, 2]} {}')
    with pytest.raises(LaminaError, match=r"lamina\.sizes"):
        read_entry(module)


def test_a_compiled_model_is_built_from_the_lowered_record() -> None:
    exe = lamina.compile(mlp_model((16, 8, 4)))
    record = exe.record
    assert [s.name for s in record.inputs] == exe.input_names
    assert record.entry.params and len(record.entry.params) == len(exe._params)
    assert record.entry == read_entry(exe.exporter.module)  # type: ignore[attr-defined]
    assert exe.workspace_size == record.entry.workspace_size
    assert exe.intermediate_bytes == record.entry.intermediate_bytes >= exe.workspace_size


def test_an_exported_model_loads_with_its_record_and_runs(tmp_path: Path) -> None:
    exe = lamina.compile(mlp_model((16, 8, 4)))
    path = tmp_path / "m.so"
    exe.export(path)
    loaded = lamina.load(path)
    assert loaded.record == exe.record
    x = np.random.default_rng(0).standard_normal((1, 16)).astype(np.float32)
    np.testing.assert_array_equal(loaded.run(x)[0], exe.run(x)[0])
    again = tmp_path / "again.so"
    loaded.export(again)  # a loaded model exports a copy of its library
    assert again.read_bytes() == path.read_bytes()


def test_a_model_without_an_exporter_says_so(tmp_path: Path) -> None:
    exe = lamina.compile(mlp_model((16, 8, 4)))
    bare = CompiledModel(exe.record, exe._native, exe._params)
    x = np.ones((1, 16), np.float32)
    np.testing.assert_array_equal(bare.run(x)[0], exe.run(x)[0])
    with pytest.raises(LaminaError, match="cannot be exported"):
        bare.export(tmp_path / "m.so")


def test_weights_must_match_the_record() -> None:
    exe = lamina.compile(mlp_model((16, 8, 4)))
    with pytest.raises(LaminaError, match="weight"):
        CompiledModel(exe.record, exe._native, exe._params[:-1])


def test_records_are_frozen() -> None:
    record = ModelRecord((), ())
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.inputs = ()  # type: ignore[misc]


# ------------------------------------------------------------------ importing
COMPILER = ("lamina.passes", "lamina.transforms", "lamina.lowering", "lamina.frontends",
            "lamina.dialects", "lamina.codegen", "lamina.driver", "lamina.tuning", "xdsl")


def _imported(code: str) -> list[str]:
    """The modules `python -X importtime -c code` loads, in a fresh process that
    imports this lamina."""
    root = str(Path(lamina.__file__).resolve().parent)
    here = str(Path(lamina.__file__).parent.parent)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([here, os.environ.get("PYTHONPATH", "")])}
    check = f"import lamina, os; assert os.path.realpath(os.path.dirname(lamina.__file__)) == {root!r}"
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"{code}; {check}"],
        capture_output=True, text=True, env=env, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = [ln for ln in proc.stderr.splitlines() if ln.startswith("import time:")]
    return [ln.rsplit("|", 1)[1].strip() for ln in lines[1:]]


@pytest.mark.parametrize("module", ["lamina.runtime", "lamina.runtime.library"])
def test_the_runtime_loads_without_the_compiler(module: str) -> None:
    loaded = _imported(f"import {module}")
    assert module in loaded
    compiler = [m for m in loaded if any(m == p or m.startswith(p + ".") for p in COMPILER)]
    assert compiler == []


def test_the_package_api_is_lazy() -> None:
    loaded = _imported("import lamina")
    assert "lamina.driver" not in loaded and "xdsl" not in loaded
    assert set(lamina.__all__) <= set(dir(lamina))
    for name in lamina.__all__:
        assert getattr(lamina, name) is not None
    assert lamina.load is __import__("lamina.runtime.library", fromlist=["load"]).load
    with pytest.raises(AttributeError, match="no attribute 'nonesuch'"):
        lamina.nonesuch  # type: ignore[attr-defined]  # noqa: B018
