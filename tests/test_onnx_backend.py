"""ONNX's backend conformance suite (`onnx.backend.test.BackendTest`) on lamina.

Which cases run is generated from the converter registry: for every op in
`lamina.frontends.onnx.CONVERTERS`, the in-scope node, simple, pytorch-converted and
pytorch-operator cases that exercise it and use no op without a converter (see
`lamina.tools.onnx_conformance`). A new converter brings its cases in by
itself. Cases outside that set are not collected at all (rather than thousands of
skips); `bench/conformance.py` measures the whole suite, unsupported ops included.
The `real` kind (the light models) is covered by `test_onnx_light_models.py`.

Refusals are explicit and strict. The cases lamina is known to refuse (a
`NotImplementedError`, i.e. `UnsupportedOpError`: a converter refusing an attribute
or mode) are listed by name in `UNSUPPORTED`, with a piece of the expected message;
each is a strict xfail (`pytest -rx` shows the listed message). So:

- a listed case that starts to pass fails (XPASS(strict)): remove it from the list;
- a listed case that fails otherwise (another exception, another message) fails;
- an unlisted case that raises `NotImplementedError` fails: an op regressed into
  "unsupported" (fix it), or a new case (a new converter, a new onnx) is refused
  on purpose (add it to the list, with the message);
- a listed name that is no longer a runnable case fails
  `test_unsupported_list_names_runnable_cases`.

Other expected failures (wrong results, known bugs) go in `XFAIL`, a regex over
test names with the reason for each, also strict; keep both lists short.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

import numpy as np
import onnx
import onnx.backend.test
import pytest
from onnx import TensorProto, helper

import lamina
import lamina.tools.onnx_backend as backend
from lamina.frontends.onnx import CONVERTERS
from lamina.tools import onnx_conformance
from lamina.tools.onnx_backend import LaminaBackend

KINDS = ("node", *onnx_conformance.MODEL_KINDS)

#: Runnable cases per op with a converter: {op: [test names]}.
RUNNABLE = onnx_conformance.runnable_cases(CONVERTERS, KINDS)

#: The runnable cases lamina refuses (NotImplementedError), by test name without
#: `_cpu`, with a piece of the message each must give. Measured with onnx 1.23.2:
#: these are refused. Each is a strict xfail (see the docstring).
UNSUPPORTED: dict[str, str] = {}

#: Other expected failures: a regex over test names (without the `_cpu` suffix) and
#: why. Each is a known lamina limitation or bug, reported, not hidden; strict: an
#: entry that starts to pass fails the run (remove it then).
XFAIL: dict[str, str] = {
    r"^test_dft_inverse(_opset19)?$": (
        "the expected values hold numpy's complex64 FFT rounding (1.9e-7 where the exact "
        "value, which lamina gives, is 0) and atol is 1e-7; onnxruntime fails them too"
    ),
}


class RefusedError(AssertionError):
    """A refusal that is not the expected one (not a NotImplementedError, so it
    fails even under an xfail mark that only accepts NotImplementedError)."""


def _expect_refusals(test: Callable[..., Any], case: str) -> Callable[..., Any]:
    """Run `case`, holding its NotImplementedError to `UNSUPPORTED`: a listed
    case must be refused with its message (the strict xfail mark, set by `_suite`,
    then makes it an xfail, and a pass an XPASS(strict) failure); an unlisted one
    must not be refused at all."""
    expected = UNSUPPORTED.get(case)

    @functools.wraps(test)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return test(*args, **kwargs)
        except NotImplementedError as e:
            if expected is None:
                raise RefusedError(
                    f"{case} is refused but not listed in UNSUPPORTED: {e}\n"
                    "An op regressed into 'unsupported' (fix it), or the refusal is "
                    "deliberate (add the case to UNSUPPORTED with its message)."
                ) from e
            if expected not in str(e):
                raise RefusedError(
                    f"{case} is refused with {str(e)!r}, not the listed {expected!r}"
                ) from e
            raise

    return run


class SpecializingBackend(LaminaBackend):
    """The backend with specialization on: the suite is the kernels' conformance
    bar, including the cases that need a run-time input as a constant (a Reshape's
    shape); `bench/conformance.py` measures the pass rate without it."""

    @classmethod
    def prepare(cls, model: Any, device: str = "CPU", **kwargs: Any) -> Any:
        kwargs.setdefault("specialize", True)
        return super().prepare(model, device, **kwargs)


def _suite() -> dict[str, type]:
    """onnx's BackendTest classes, holding only the runnable cases."""
    backend_test = onnx.backend.test.BackendTest(SpecializingBackend, __name__)
    for names in RUNNABLE.values():
        backend_test.include("^(" + "|".join(re.escape(n) for n in names) + ")_cpu$")
    wanted = {f"{n}_cpu" for names in RUNNABLE.values() for n in names}
    suite = {}
    for cls_name, cls in backend_test.test_cases.items():
        for name in [n for n in vars(cls) if n.startswith("test_")]:
            if name not in wanted:
                delattr(cls, name)  # no converter for one of its ops, or out of scope
                continue
            case = name[: -len("_cpu")]
            test = _expect_refusals(getattr(cls, name), case)
            reasons = [r for p, r in XFAIL.items() if re.search(p, case)]
            if case in UNSUPPORTED:
                test = pytest.mark.xfail(
                    reason=f"unsupported: {UNSUPPORTED[case]}", raises=NotImplementedError,
                    strict=True,
                )(test)
            elif reasons:
                test = pytest.mark.xfail(reason=reasons[0], strict=True)(test)
            setattr(cls, name, test)
        if any(n.startswith("test_") for n in vars(cls)):
            suite[cls_name] = cls
    return suite


globals().update(_suite())


def test_unsupported_list_names_runnable_cases():
    """Every listed refusal is a case this suite runs: a stale name (a case renamed
    or dropped by onnx, or no longer runnable) would silently test nothing."""
    runnable = {n for names in RUNNABLE.values() for n in names}
    stale = sorted(set(UNSUPPORTED) - runnable)
    assert not stale, f"UNSUPPORTED names cases that do not run: {stale}"


# ---------------------------------------------------------------- the API itself
def _model(
    node: onnx.NodeProto,
    inputs: list[onnx.ValueInfoProto],
    out_shape: list[int | str] | None,
    opset: int = 17,
) -> onnx.ModelProto:
    out = helper.make_tensor_value_info(node.output[0], TensorProto.FLOAT, out_shape)
    graph = helper.make_graph([node], "g", inputs, [out])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def test_prepare_run_returns_named_outputs():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])
    model = _model(helper.make_node("Add", ["x", "y"], ["sum"]), [x, y], [2, 3])
    rep = backend.prepare(model, "CPU")
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.ones(3, np.float32)
    out = rep.run([a, b])
    np.testing.assert_array_equal(out[0], a + b)
    np.testing.assert_array_equal(out["sum"], a + b)
    np.testing.assert_array_equal(out.sum, a + b)
    (by_name,) = rep.run({"y": b, "x": a})
    np.testing.assert_array_equal(by_name, a + b)
    np.testing.assert_array_equal(backend.run_model(model, [a, b])[0], a + b)


@pytest.mark.parametrize("specialize", [False, True])
def test_symbolic_dims_compile_once_or_per_shape(specialize: bool):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 4])
    model = _model(helper.make_node("Relu", ["x"], ["y"]), [x], ["n", 4])
    rep = backend.prepare(model, specialize=specialize)
    for n in (1, 3, 1):
        a = np.linspace(-1, 1, 4 * n, dtype=np.float32).reshape(n, 4)
        np.testing.assert_array_equal(rep.run(a)[0], np.maximum(a, 0))
    assert len(rep._cache) == (2 if specialize else 1)


def test_shapeless_input_gets_symbolic_dims_of_its_rank():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, None)
    model = _model(helper.make_node("Relu", ["x"], ["y"]), [x], None)
    rep = backend.prepare(model, specialize=False, check=False)  # (no output shape)
    for shape in ((2, 3), (5, 1), (4,)):
        a = np.linspace(-1, 1, int(np.prod(shape)), dtype=np.float32).reshape(shape)
        np.testing.assert_array_equal(rep.run(a)[0], np.maximum(a, 0))
    assert len(rep._cache) == 2  # one compile per rank


def test_specialization_follows_the_environment(monkeypatch):
    monkeypatch.setenv(backend.SPECIALIZE_ENV, "1")
    assert backend.LaminaRep(_model(helper.make_node("Relu", ["x"], ["y"]), [
        helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])], [2])).specialize
    monkeypatch.setenv(backend.SPECIALIZE_ENV, "0")
    assert not backend.specialize_default()


def test_shape_input_is_specialized_to_its_value():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 6])
    s = helper.make_tensor_value_info("s", TensorProto.INT64, [2])
    model = _model(helper.make_node("Reshape", ["x", "s"], ["y"]), [x, s], ["a", "b"])
    rep = backend.prepare(model, specialize=True)
    a = np.arange(12, dtype=np.float32).reshape(2, 6)
    for shape in ([3, 4], [-1, 2], [3, 4]):
        (y,) = rep.run([a, np.array(shape, np.int64)])
        np.testing.assert_array_equal(y, a.reshape(shape))
    assert rep.frozen == ["s"]
    # Only small shape-like values are bound: a 17-element one is read when the
    # model runs, as are values the model computes itself.
    x1 = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])
    s17 = helper.make_tensor_value_info("s", TensorProto.INT64, [17])
    big = _model(helper.make_node("Reshape", ["x", "s"], ["y"]), [x1, s17], [1] * 17)
    rep17 = backend.prepare(big, specialize=True)
    for dims in ([1] * 17, [-1] + [1] * 16):
        (y,) = rep17.run([np.full(1, 7, np.float32), np.array(dims, np.int64)])
        assert y.shape == (1,) * 17 and y.item() == 7
    assert rep17.frozen == [] and len(rep17._cache) == 1
    # Without binding values (and by default), one compile runs every shape.
    for rep in (backend.prepare(model, specialize=True, specialize_constants=False), backend.prepare(model)):
        for shape, want in (([3, 4], (3, 4)), ([-1, 2], (6, 2)), ([12, 1], (12, 1)), ([0, -1], (2, 6))):
            (y,) = rep.run([a, np.array(shape, np.int64)])
            np.testing.assert_array_equal(y, a.reshape(want))
        assert rep.frozen == [] and len(rep._cache) <= 1
        with pytest.raises(lamina.InputError, match=r"Reshape.*must keep the input's element count"):
            rep.run([a, np.array([5, 2], np.int64)])


def test_unsupported_op_is_a_not_implemented_error():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    model = _model(helper.make_node("NoSuchOp", ["x"], ["y"]), [x], [2])
    with pytest.raises(NotImplementedError, match="NoSuchOp"):
        backend.prepare(model, check=False)
    assert backend.is_compatible(model)  # only the device: unsupported must fail


def test_run_node_and_devices():
    node = helper.make_node("Mul", ["a", "a"], ["b"])
    a = np.array([1, -2, 3], np.int32)
    (b,) = backend.run_node(node, [a])
    np.testing.assert_array_equal(b, a * a)
    assert b.dtype == np.int32
    assert backend.supports_device("CPU")
    assert not backend.supports_device("CUDA")
    with pytest.raises(lamina.LaminaError, match="CPU"):
        backend.run_node(node, [a], device="CUDA")
