"""DFT (a product with a constant DFT matrix) against onnx.reference: forward
and inverse, real and complex input, one-sided (RFFT, IRFFT), dft_length
shorter and longer than the signal, every axis, opsets 17 and 20, the axis as
a constant and as a run-time input (one branch per axis, the output's dims set
at run time when they depend on the axis). STFT and MelWeightMatrix with
their sizes constant and given when the model runs."""

from __future__ import annotations

import itertools

import numpy as np
import onnx
import pytest
from onnx.reference import ReferenceEvaluator

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


# ------------------------------------------------------------ STFT
def _i64(v: int) -> np.ndarray:
    return np.array(v, np.int64)


def test_stft_constant_sizes():
    """Frame steps and lengths as initializers (the DFT matrix a constant):
    real and complex signals, one-sided or not, a window, a window longer or
    shorter than the DFT (its frames cut or zero-padded), no whole frame."""
    real, cplx = rand(2, 40, 1, dtype=np.float64), rand(1, 23, 2, dtype=np.float64)
    win6, win9 = rand(6, dtype=np.float64, low=0, high=1), rand(9, dtype=np.float64, low=0, high=1)
    cases = [
        Case("STFT", [real, Const(_i64(4)), None, Const(_i64(8))]),
        Case("STFT", [real, Const(_i64(3)), Const(win6)], {"onesided": 0}),
        Case("STFT", [cplx, Const(_i64(5)), None, Const(_i64(7))], {"onesided": 0}),
        Case("STFT", [cplx, Const(_i64(2)), win6]),
        Case("STFT", [real, Const(_i64(7)), win9, Const(_i64(8))]),
        Case("STFT", [real, Const(_i64(5)), win6, Const(_i64(9))]),
        Case("STFT", [cplx, Const(_i64(1)), None, Const(_i64(23))]),
        Case("STFT", [real, Const(_i64(6))]),  # one frame: the whole signal
    ]
    check(cases, opset=17, rtol=1e-9, atol=1e-9)


def test_stft_sizes_given_at_run_time():
    """The step and the frame length as graph inputs: the frames and bins are
    sizes set by the data; f32 within f32 noise."""
    x, z = rand(3, 64, 1), rand(2, 30, 2)
    cases = [
        Case("STFT", [x, _i64(8), None, _i64(16)]),
        Case("STFT", [x, _i64(5), rand(12, low=0, high=1)]),
        Case("STFT", [z, _i64(3), None, _i64(10)], {"onesided": 0}),
        Case("STFT", [z, _i64(4), rand(8, low=0, high=1), _i64(11)]),
    ]
    check(cases, opset=17, rtol=1e-4, atol=1e-4)


def test_stft_one_compile_many_sizes():
    """One model with a symbolic signal length and run-time step and length,
    run over many values against onnx.reference."""
    x = rand(2, 50, 1, dtype=np.float64)
    model, _ = model_of([Case("STFT", [x, _i64(4), None, _i64(8)])], 17)
    dims = model.graph.input[0].type.tensor_type.shape.dim
    dims[1].Clear()
    dims[1].dim_param = "samples"
    exe = lamina.compile(model)
    ref = ReferenceEvaluator(model)
    for length, step, frame in ((50, 4, 8), (17, 3, 16), (64, 16, 16), (9, 2, 9), (12, 5, 3)):
        sig = rand(2, length, 1, dtype=np.float64)
        feeds = [sig, _i64(step), _i64(frame)]
        (want,) = ref.run(None, dict(zip([i.name for i in model.graph.input], feeds, strict=True)))
        (got,) = exe.run(*feeds)
        assert got.shape == want.shape, (length, step, frame)
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9)
    (none,) = exe.run(rand(2, 7, 1, dtype=np.float64), _i64(1), _i64(8))  # shorter than a frame
    assert none.shape == (2, 0, 5, 2)
    model, _ = model_of([Case("STFT", [x, _i64(4)], {"onesided": 0})], 17)  # the signal's length
    dims = model.graph.input[0].type.tensor_type.shape.dim
    dims[1].Clear()
    dims[1].dim_param = "samples"
    exe = lamina.compile(model)
    for length in (5, 12):
        sig = rand(2, length, 1, dtype=np.float64)
        (got,) = exe.run(sig, _i64(4))
        want = np.fft.fft(sig[..., 0], axis=1)[:, None]
        np.testing.assert_allclose(got, np.stack([want.real, want.imag], -1), rtol=1e-9, atol=1e-9)


def test_stft_refusals_name_the_node():
    x = rand(1, 16, 1)
    model, _ = model_of([Case("STFT", [rand(1, 16, 3), Const(_i64(2)), None, Const(_i64(4))])], 17)
    with pytest.raises(lamina.FrontendError, match=r"STFT.*\[batch, length, 1\] \(real\)"):
        lamina.from_onnx(model)
    model, _ = model_of([Case("STFT", [x, Const(_i64(2)), None, Const(_i64(0))])], 17)
    with pytest.raises(lamina.FrontendError, match=r"STFT.*must be >= 1, got 2 and 0"):
        lamina.from_onnx(model)
    model, _ = model_of([Case("STFT", [x, _i64(2), None, _i64(4)])], 17)
    exe = lamina.compile(model)
    with pytest.raises(lamina.InputError, match=r"STFT.*frame_step and frame_length must be >= 1"):
        exe.run(x, _i64(0), _i64(4))


# ------------------------------------------------------------ MelWeightMatrix
MEL_SETTINGS = [  # num_mel_bins, dft_length, sample_rate, lower, upper
    (8, 16, 8192, 0.0, 4096.0),
    (20, 512, 16000, 20.0, 8000.0),
    (5, 64, 22050, 300.0, 5000.0),
    (13, 256, 44100, 0.0, 11025.0),
    (3, 10, 1000, 100.0, 400.0),
]


def _mel(settings: tuple, const: bool, dtype: int = 1) -> Case:
    mels, dft, rate, low, high = settings
    values = [np.array(mels, np.int32), np.array(dft, np.int64), np.array(rate, np.int32),
              np.array(low, np.float32), np.array(high, np.float32)]
    return Case("MelWeightMatrix", [Const(v) if const else v for v in values], {"output_datatype": dtype})


@pytest.mark.parametrize("const", [True, False], ids=["constant", "run-time"])
def test_mel_weight_matrix(const):
    cases = [_mel(s, const) for s in MEL_SETTINGS] + [_mel(MEL_SETTINGS[1], const, onnx.TensorProto.DOUBLE)]
    check(cases, opset=17, rtol=1e-6, atol=1e-6)
