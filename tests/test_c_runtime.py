"""lamina's C runtime API (lamina.h) on this machine, with no Python running the
model: the runner `lamina run` uses for foreign libraries, run natively here, the
deploy-c example, two models linked into one program, and the API's errors.
Each is differential: the same model's outputs from the Python runtime."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import lamina
from lamina.codegen.artifact import library_metadata, run_library
from lamina.codegen.descriptor import c_string, include_dir, model_name, name_from_path
from lamina.errors import CompileError, LaminaError

ROOT = Path(__file__).resolve().parents[1]
F, I64 = TensorProto.FLOAT, TensorProto.INT64

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")


def _model(nodes: list[onnx.NodeProto], inputs: list, outputs: list, inits: list | None = None) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=inits or [])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def _dense(batch: int | str = "batch") -> onnx.ModelProto:
    """y = relu(x @ w + b), z = sum(x) over axis 1: two outputs, a symbolic batch."""
    rng = np.random.default_rng(0)
    w = helper.make_tensor("w", F, [16, 8], rng.standard_normal((16, 8)).astype(np.float32).ravel())
    b = helper.make_tensor("b", F, [8], rng.standard_normal(8).astype(np.float32))
    axes = helper.make_tensor("axes", I64, [1], [1])
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["m"]),
        helper.make_node("Add", ["m", "b"], ["a"]),
        helper.make_node("Relu", ["a"], ["y"]),
        helper.make_node("ReduceSum", ["x", "axes"], ["z"], keepdims=0),
    ]
    return _model(
        nodes,
        [helper.make_tensor_value_info("x", F, [batch, 16])],
        [helper.make_tensor_value_info("y", F, [batch, 8]), helper.make_tensor_value_info("z", F, [batch])],
        [w, b, axes],
    )


def _expand() -> onnx.ModelProto:
    """Expand to a shape given as data: sizes the model sets without a bound
    (planned at a capacity it asks to grow), and a check that stops bad shapes."""
    return _model(
        [helper.make_node("Expand", ["x", "s"], ["y"], name="grow")],
        [helper.make_tensor_value_info("x", F, [3, 1]), helper.make_tensor_value_info("s", I64, [2])],
        [helper.make_tensor_value_info("y", F, None)],
    )


def test_the_runner_runs_a_static_model_as_python_does(tmp_path: Path) -> None:
    exe = lamina.compile(_dense(batch=4))
    exe.export(tmp_path / "dense.so")
    x = np.random.default_rng(1).standard_normal((4, 16)).astype(np.float32)
    for got, want in zip(run_library(tmp_path / "dense.so", {"x": x}), exe.run(x), strict=True):
        np.testing.assert_array_equal(got, want)


def test_symbolic_sizes_are_bound_from_the_inputs(tmp_path: Path) -> None:
    exe = lamina.compile(_dense())
    exe.export(tmp_path / "dense.so")
    rng = np.random.default_rng(2)
    for batch in (1, 5, 33):
        x = rng.standard_normal((batch, 16)).astype(np.float32)
        got = run_library(tmp_path / "dense.so", {"x": x})
        assert [g.shape for g in got] == [(batch, 8), (batch,)]
        for g, w in zip(got, exe.run(x), strict=True):
            np.testing.assert_array_equal(g, w)


def test_sizes_the_model_sets_grow_their_capacity_and_checks_stop_the_run(tmp_path: Path) -> None:
    exe = lamina.compile(_expand())
    exe.export(tmp_path / "grow.so")
    x = np.arange(3, dtype=np.float32).reshape(3, 1)
    for s in [(3, 1), (3, 7), (3, 40)]:
        (got,) = run_library(tmp_path / "grow.so", {"x": x, "s": np.array(s, np.int64)})
        (want,) = exe.run(x=x, s=np.array(s, np.int64))
        assert got.shape == want.shape == s
        np.testing.assert_array_equal(got, want)
    with pytest.raises(LaminaError, match=r"the model stopped.*ONNX node 'grow'.*does not broadcast"):
        run_library(tmp_path / "grow.so", {"x": x, "s": np.array([4, 2], np.int64)})


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int32, np.uint8, np.bool_])
def test_every_element_type_goes_through_npy_and_the_api(tmp_path: Path, dtype: type) -> None:
    model = _model(
        [helper.make_node("Identity", ["x"], ["t"]), helper.make_node("Identity", ["t"], ["y"])],
        [helper.make_tensor_value_info("x", helper.np_dtype_to_tensor_dtype(np.dtype(dtype)), ["n", 3])],
        [helper.make_tensor_value_info("y", helper.np_dtype_to_tensor_dtype(np.dtype(dtype)), ["n", 3])],
    )
    lamina.compile(model).export(tmp_path / "same.so")
    x = (np.arange(15) % 7).reshape(5, 3).astype(dtype)
    (y,) = run_library(tmp_path / "same.so", {"x": x})
    assert y.dtype == x.dtype
    np.testing.assert_array_equal(y, x)


def _build(tmp_path: Path, source: str, libraries: list[Path], name: str = "prog") -> Path:
    (tmp_path / f"{name}.c").write_text(source)
    exe = tmp_path / name
    subprocess.run(
        ["cc", "-O1", "-Wall", "-Werror", f"-I{include_dir()}", str(tmp_path / f"{name}.c"),
         *map(str, libraries), "-Wl,-rpath," + str(tmp_path), "-o", str(exe)],
        check=True, capture_output=True, text=True,
    )
    return exe


_TWO_MODELS = r"""
#include <stdio.h>
#include "lamina.h"
#include "npy.h"
const lamina_model *first_model(void);
const lamina_model *second_model(void);

static int run(const lamina_model *m, const char *in, const char *out) {
    char err[256];
    lamina_npy x;
    lamina_session *s;
    if (lamina_npy_read(in, &x, err, sizeof err) || lamina_session_create(m, &s)) return 1;
    lamina_tensor t = {NULL, x.dtype, x.rank, x.shape, x.data};
    if (lamina_run(s, &t, 1) != LAMINA_OK) { fprintf(stderr, "%s\n", lamina_session_error(s)); return 1; }
    int rc = lamina_npy_write(out, lamina_session_output(s, 0), err, sizeof err);
    lamina_session_destroy(s);
    lamina_npy_free(&x);
    return rc;
}

int main(int argc, char **argv) {
    (void)argc;
    printf("%s %s\n", first_model()->name, second_model()->name);
    return run(first_model(), argv[1], argv[2]) || run(second_model(), argv[1], argv[3]);
}
"""


def test_two_models_link_into_one_program(tmp_path: Path) -> None:
    """Both define their kernels, entry and runtime: prefixed or hidden, no clash."""
    first = lamina.compile(_dense(batch=2))
    second_model = _dense(batch=2)
    second_model.graph.node[2].op_type = "Sigmoid"  # another model, same kernels' names
    second = lamina.compile(second_model)
    first.export(tmp_path / "libfirst.so", name="first")
    second.export(tmp_path / "libsecond.so", name="second")
    prog = _build(tmp_path, _TWO_MODELS, [tmp_path / "libfirst.so", tmp_path / "libsecond.so"])
    x = np.random.default_rng(3).standard_normal((2, 16)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    out = subprocess.run([str(prog), str(tmp_path / "x.npy"), str(tmp_path / "a.npy"), str(tmp_path / "b.npy")],
                         capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["first", "second"]
    np.testing.assert_array_equal(np.load(tmp_path / "a.npy"), first.run(x)[0])
    np.testing.assert_array_equal(np.load(tmp_path / "b.npy"), second.run(x)[0])


_ERRORS = r"""
#include <stdio.h>
#include "lamina.h"
const lamina_model *dense_model(void);

#define SHOW(call) do { lamina_status st = (call); \
    printf("%d %s | %s\n", (int)st, lamina_status_string(st), lamina_session_error(s)); } while (0)

int main(void) {
    const lamina_model *m = dense_model();
    lamina_session *s = NULL;
    printf("%d %d %d %lld %s\n", m->num_inputs, m->num_outputs, (int)m->inputs[0].rank,
           (long long)m->inputs[0].shape[0], m->inputs[0].dims[0]);
    printf("%d %d\n", lamina_input_index(m, "x"), lamina_output_index(m, "z"));
    if (lamina_session_create(m, &s) != LAMINA_OK) return 1;
    float data[3 * 16] = {0};
    int64_t good[2] = {3, 16}, bad[2] = {3, 15};
    lamina_tensor t = {"x", LAMINA_FLOAT32, 2, good, data};
    lamina_tensor wrong_type = {"x", LAMINA_INT64, 2, good, data};
    lamina_tensor wrong_shape = {"x", LAMINA_FLOAT32, 2, bad, data};
    lamina_tensor wrong_rank = {"x", LAMINA_FLOAT32, 1, good, data};
    lamina_tensor unknown = {"nope", LAMINA_FLOAT32, 2, good, data};
    lamina_tensor twice[2] = {t, t};
    SHOW(lamina_run(s, &wrong_type, 1));
    SHOW(lamina_run(s, &wrong_shape, 1));
    SHOW(lamina_run(s, &wrong_rank, 1));
    SHOW(lamina_run(s, &unknown, 1));
    SHOW(lamina_run(s, twice, 2));
    SHOW(lamina_run(s, NULL, 0));
    printf("%p\n", (const void *)lamina_session_output(s, 0));
    SHOW(lamina_run(s, &t, 1));
    const lamina_tensor *z = lamina_session_output(s, 1);
    printf("%s %d %lld %p\n", z->name, (int)z->rank, (long long)z->shape[0],
           (const void *)lamina_session_output(s, 2));
    printf("%d\n", (int)lamina_run(NULL, &t, 1));
    lamina_session_destroy(s);
    return 0;
}
"""


def test_bad_calls_get_status_codes_and_messages(tmp_path: Path) -> None:
    lamina.compile(_dense()).export(tmp_path / "libdense.so", name="dense")
    prog = _build(tmp_path, _ERRORS, [tmp_path / "libdense.so"])
    lines = subprocess.run([str(prog)], capture_output=True, text=True, check=True).stdout.splitlines()
    assert lines[0] == "1 2 2 -1 batch"
    assert lines[1] == "0 1"
    assert lines[2].startswith("3 wrong element type | input 'x': expected element type 1, got 11")
    assert lines[3] == "2 wrong shape | input 'x': axis 1 is 15, the model takes 16"
    assert lines[4] == "2 wrong shape | input 'x': expected 2 dimension(s), got 1"
    assert lines[5] == "1 invalid argument | unknown input 'nope'"
    assert lines[6] == "1 invalid argument | input 'x' given twice"
    assert lines[7] == "1 invalid argument | missing input 'x'"
    assert lines[8] in ("(nil)", "0")  # no output after a failed run
    assert lines[9] == "0 ok | "
    assert lines[10].startswith("z 1 3 ") and lines[10].endswith(("(nil)", " 0"))
    assert lines[11] == "1"


def test_the_deploy_c_example_runs_as_its_readme_says(tmp_path: Path) -> None:
    model = tmp_path / "dense.onnx"
    onnx.save(_dense(batch=2), model)
    x = np.random.default_rng(4).standard_normal((2, 16)).astype(np.float32)
    np.save(tmp_path / "in.npy", x)
    lamina_cmd = Path(sys.executable).parent / "lamina"
    subprocess.run(
        ["make", "-C", str(ROOT / "examples" / "deploy-c"), f"MODEL={model}", f"INPUT={tmp_path / 'in.npy'}",
         f"OUTPUT={tmp_path / 'out.npy'}", f"BUILD={tmp_path / 'build'}", f"LAMINA={lamina_cmd}"],
        check=True, capture_output=True, text=True, env={**os.environ, "PATH": f"{lamina_cmd.parent}:{os.environ['PATH']}"},
    )
    np.testing.assert_array_equal(np.load(tmp_path / "out.npy"), lamina.compile(model).run(x)[0])


def test_symbols_are_prefixed_and_hidden(tmp_path: Path) -> None:
    if shutil.which("nm") is None:
        pytest.skip("needs nm")
    lamina.compile(_dense()).export(tmp_path / "libdense.so", name="dense")
    out = subprocess.run(["nm", "-D", "--defined-only", str(tmp_path / "libdense.so")],
                         capture_output=True, text=True, check=True).stdout
    names = {line.split()[-1] for line in out.splitlines()}
    assert names == {
        "dense_main", "dense_model", "lamina_get_model", "lamina_set_num_threads",
        "lamina_params", "lamina_metadata", "lamina_metadata_size",
    }
    meta = library_metadata(tmp_path / "libdense.so")
    assert meta["name"] == "dense" and meta["entry"] == "dense_main"
    loaded = lamina.load(tmp_path / "libdense.so")
    x = np.ones((2, 16), np.float32)
    np.testing.assert_array_equal(loaded.run(x)[0], lamina.compile(_dense()).run(x)[0])


def test_model_names() -> None:
    assert name_from_path("out/resnet-18.v2.so") == "resnet_18"
    assert name_from_path("3d.so") == "m_3d"
    assert model_name("bert_base") == "bert_base"
    for bad in ("9x", "a-b", "lamina_x", ""):
        with pytest.raises(CompileError, match="cannot prefix C symbols"):
            model_name(bad)
    assert c_string('a"b\\c\n\u00e9?') == '"a\\042b\\134c\\012\\303\\251\\077"'
