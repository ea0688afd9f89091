"""DFT (a product with a constant DFT matrix) against onnx.reference: forward
and inverse, real and complex input, one-sided (RFFT, IRFFT), dft_length
shorter and longer than the signal, every axis, opsets 17 and 20, the axis as
a constant and as a run-time input (one branch per axis, the output's dims set
at run time when they depend on the axis)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import lamina
from tests.test_onnx_ops import Case, Const, check, model_of, rand


def _dft(x: np.ndarray, axis: int | None, opset: int, length: int | None = None, **attrs: int) -> Case:
    """A DFT case: the axis an attribute before opset 20, a constant input after."""
    inputs: list = [x, None if length is None else Const(np.array(length, np.int64))]
    if opset >= 20:
        inputs.append(None if axis is None else Const(np.array(axis, np.int64)))
    elif axis is not None:
        attrs["axis"] = axis
    while inputs[-1] is None:
        inputs.pop()
    return Case("DFT", inputs, attrs)


@pytest.mark.parametrize("opset", [17, 20])
def test_forward_and_inverse_along_every_axis(opset):
    cases = []
    for shape, (inverse, onesided) in itertools.product(
        [(6, 1), (3, 8, 2), (2, 5, 4, 1), (2, 3, 7, 2)], [(0, 0), (1, 0), (0, 1), (1, 1)]
    ):
        if onesided and not inverse and shape[-1] == 2 and opset == 17:
            continue  # opset 17 wants real input for an RFFT
        x = rand(*shape, dtype=np.float64)
        for axis in range(len(shape) - 1):
            if inverse and onesided and shape[axis] == 1:
                continue  # an IRFFT of one point has no default length
            negative = axis - len(shape) if axis % 2 else axis
            cases.append(_dft(x, negative, opset, inverse=inverse, onesided=onesided))
    check(cases, opset=opset, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("opset", [17, 20])
def test_dft_length_pads_and_truncates(opset):
    x, z = rand(2, 6, 1, dtype=np.float64), rand(3, 5, 2, dtype=np.float64)
    cases = [
        _dft(v, 1, opset, length, inverse=inverse, onesided=onesided)
        for v in (x, z)
        for length in (1, 3, 6, 9, 10)
        for inverse, onesided in ((0, 0), (1, 0), (0, 1), (1, 1))
        if not (onesided and not inverse and v.shape[-1] == 2 and opset == 17)
    ]
    check(cases, opset=opset, rtol=1e-9, atol=1e-9)


def test_defaults_and_float32():
    """Opset 17's axis defaults to 1, opset 20's to -2; f32 within f32 noise."""
    x = rand(4, 16, 3, 2)
    check([_dft(x, None, 17), _dft(x, None, 17, inverse=1), _dft(x, None, 17, onesided=1)], opset=17,
          rtol=1e-4, atol=1e-4)
    check([_dft(x, None, 20), _dft(x[..., :1], None, 20, 20, onesided=1)], opset=20, rtol=1e-4, atol=1e-4)


def test_a_run_time_axis_takes_its_branch():
    """The axis as a graph input: the output's shape changes with it (a
    one-sided DFT halves the axis it runs along)."""
    x, z = rand(2, 6, 4, 1, dtype=np.float64), rand(3, 4, 2, dtype=np.float64)
    cases = [
        Case("DFT", [x, None, np.array(axis, np.int64)], {"onesided": onesided, "inverse": inverse})
        for axis, (inverse, onesided) in itertools.product((0, 1, 2, -2, -3, -4), ((0, 0), (0, 1), (1, 0)))
    ]
    cases += [Case("DFT", [z, Const(np.array(5, np.int64)), np.array(axis, np.int64)]) for axis in (0, -2)]
    cases += [Case("DFT", [z, None, np.array(1, np.int32)], {"inverse": 1, "onesided": 1})]
    check(cases, opset=20, rtol=1e-9, atol=1e-9)


def test_a_run_time_axis_compiles_once_for_every_axis():
    """One compiled model, fed each axis in turn."""
    x = rand(3, 6, 5, 2)
    model, _ = model_of([Case("DFT", [x, None, np.array(0, np.int64)], {"onesided": 1})], 20)
    exe = lamina.compile(model)
    for axis in (0, 1, 2, -2, -3, -4):
        (got,) = exe.run(x, np.array(axis, np.int64))
        want = np.fft.fft(x[..., 0] + 1j * x[..., 1], axis=axis % 4)
        want = np.take(want, range(x.shape[axis % 4] // 2 + 1), axis=axis % 4)
        np.testing.assert_allclose(got, np.stack([want.real, want.imag], -1), rtol=1e-4, atol=1e-4)


def test_refusals_name_the_node_and_the_fix():
    x = rand(2, 6, 1)
    model, _ = model_of([Case("DFT", [x, np.array(4, np.int64)])], 20)
    with pytest.raises(lamina.FrontendError, match=r"DFT.*dft_length.*must be a constant"):
        lamina.from_onnx(model)
    model, _ = model_of([_dft(x, 2, 20)], 20)
    with pytest.raises(lamina.FrontendError, match=r"axis 2 is outside \[-3, -2\] and \[0, 1\]"):
        lamina.from_onnx(model)
    model, _ = model_of([_dft(rand(2, 6, 3), 1, 20)], 20)
    with pytest.raises(lamina.FrontendError, match=r"\[\.\.\., 1\] \(real\) or \[\.\.\., 2\] \(complex\)"):
        lamina.from_onnx(model)
    model, _ = model_of([_dft(rand(2, 1, 2), 1, 20, inverse=1, onesided=1)], 20)
    with pytest.raises(lamina.FrontendError, match=r"one point needs dft_length"):
        lamina.from_onnx(model)


def test_a_run_time_axis_without_a_transform_and_over_symbolic_sizes():
    """An IRFFT over a one-point axis (no default length: ONNX leaves it
    undefined) gives an empty result; a symbolic axis size is refused, since
    the value may pick it."""
    x = rand(1, 6, 4, 2)
    model, _ = model_of([Case("DFT", [x, None, np.array(0, np.int64)], {"inverse": 1, "onesided": 1})], 20)
    exe = lamina.compile(model)
    assert exe.run(x, np.array(0, np.int64))[0].shape == (0, 6, 4, 1)
    assert exe.run(x, np.array(-3, np.int64))[0].shape == (1, 10, 4, 1)
    dims = model.graph.input[0].type.tensor_type.shape.dim
    dims[2].Clear()
    dims[2].dim_param = "frames"
    with pytest.raises(lamina.FrontendError, match=r"DFT.*axes \[2\] .* have symbolic sizes.*make the axis a constant"):
        lamina.from_onnx(model)


def test_value_specialization_asks_for_the_axis_and_the_length():
    """With run-time values off (the backend's specialization), a run-time
    axis or dft_length is asked for as a constant, naming the input (so the
    backend binds it), instead of compiling the per-axis branches."""
    x = rand(2, 6, 1)
    model, _ = model_of([Case("DFT", [x, None, np.array(1, np.int64)])], 20)
    with pytest.raises(lamina.FrontendError, match=r"\(DFT, opset 20\): input #2 \('c0_i2'\) must be a constant"):
        lamina.from_onnx(model, run_time_values=False)
    model, _ = model_of([Case("DFT", [x, np.array(4, np.int64)])], 20)
    with pytest.raises(lamina.FrontendError, match=r"\(DFT, opset 20\): input #1 \('c0_i1'\) must be a constant"):
        lamina.from_onnx(model, run_time_values=False)
