"""RoiAlign (an extern kernel), DeformConv (deform_im2col and a matmul) and
MaxUnpool (a scatter into zeros) against onnx.reference (and onnxruntime for
RoiAlign, and a direct numpy loop for DeformConv beyond 2-D), with their
regions, offsets, masks and indices as run-time inputs."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

import lamina
from tests.test_onnx_ops import RNG, Case, Const, check, model_of, rand


# ------------------------------------------------------------------ RoiAlign
def _rois(n: int, height: int, width: int, scale: float) -> np.ndarray:
    """Regions in image coordinates: inside, across the border, tiny, and
    malformed (x2 < x1)."""
    x1 = RNG.uniform(-3, width / scale, n)
    y1 = RNG.uniform(-3, height / scale, n)
    boxes = np.stack([x1, y1, x1 + RNG.uniform(0.2, 9, n) / scale, y1 + RNG.uniform(0.2, 9, n) / scale], 1)
    boxes[0] = [1, 1, 0.5, 0.2]  # malformed
    boxes[1] = [width / scale - 1, -2, width / scale + 4, 1]  # across the border
    return boxes.astype(np.float32)


def _roi_cases(dtype: type = np.float32) -> list[Case]:
    x = rand(2, 3, 12, 10, dtype=dtype)
    cases = []
    for mode, transform, ratio, size, scale in itertools.product(
        ("avg", "max"), ("half_pixel", "output_half_pixel"), (0, 2), ((1, 1), (3, 4)), (1.0, 0.5)
    ):
        rois = _rois(6, 12, 10, scale).astype(dtype)
        index = RNG.integers(0, 2, 6).astype(np.int64)
        attrs = {
            "mode": mode, "coordinate_transformation_mode": transform, "sampling_ratio": ratio,
            "output_height": size[0], "output_width": size[1], "spatial_scale": scale,
        }
        cases.append(Case("RoiAlign", [x, rois, index], attrs))
    return cases


def test_roi_align_modes_transforms_and_grids():
    check(_roi_cases(), opset=16, rtol=1e-5, atol=1e-5)


def test_roi_align_f64_and_defaults():
    x = rand(1, 2, 9, 9, dtype=np.float64)
    rois = _rois(4, 9, 9, 1.0).astype(np.float64)
    check([Case("RoiAlign", [x, rois, np.zeros(4, np.int64)])], opset=16, rtol=1e-9, atol=1e-9)


def _against_onnxruntime(cases: list[Case], opset: int) -> None:
    ort = pytest.importorskip("onnxruntime")
    model, feeds = model_of(cases, opset)
    for out in model.graph.output:
        out.type.tensor_type.elem_type = TensorProto.FLOAT
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    want = session.run(None, dict(zip([i.name for i in model.graph.input], feeds, strict=True)))
    got = lamina.compile(model).run(*feeds)
    for w, g in zip(want, got, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


def test_roi_align_against_onnxruntime():
    _against_onnxruntime(_roi_cases()[::3], 16)


def test_roi_align_opset_10_does_not_shift():
    """Opset 10 has no coordinate_transformation_mode: no half-pixel shift, and
    a malformed region is 1x1 (onnx.reference applies opset 16's default)."""
    cases = [
        Case("RoiAlign", [rand(1, 2, 9, 9), _rois(4, 9, 9, 1.0), np.zeros(4, np.int64)], attrs)
        for attrs in ({}, {"output_height": 2, "output_width": 3, "mode": "max", "sampling_ratio": 3})
    ]
    _against_onnxruntime(cases, 10)


def test_roi_align_bad_batch_index_reads_zeros():
    x = rand(2, 1, 4, 4)
    model, _ = model_of([Case("RoiAlign", [x, _rois(3, 4, 4, 1.0), np.array([0, 2, -1])], {"mode": "max"})], 16)
    (got,) = lamina.compile(model).run(x, _rois(3, 4, 4, 1.0), np.array([0, 2, -1], np.int64))
    assert np.all(got[1:] == 0)


# ---------------------------------------------------------------- DeformConv
def _deform_conv(x, w, offset, bias=None, mask=None, strides=None, pads=None, dilations=None,
                 group=1, offset_group=1):  # type: ignore[no-untyped-def]
    """DeformConv over any number of spatial axes, straight from the spec
    (checked against onnx.reference in 2-D below)."""
    n, c, *size = x.shape
    r = len(size)
    oc, cg, *kernel = w.shape
    strides, dilations = strides or [1] * r, dilations or [1] * r
    pads = pads or [0] * (2 * r)
    out = offset.shape[2:]
    taps = list(itertools.product(*(range(k) for k in kernel)))
    offset = offset.reshape(n, offset_group, len(taps), r, *out)
    mask = np.ones((n, offset_group, len(taps), *out)) if mask is None else mask.reshape(n, offset_group, len(taps), *out)
    y = np.zeros((n, oc, *out))
    for b, f, *o in itertools.product(range(n), range(oc), *(range(d) for d in out)):
        g = f // (oc // group)
        for ci, (t, tap) in itertools.product(range(cg), enumerate(taps)):
            ch = g * cg + ci
            og = ch // (c // offset_group)
            p = [o[a] * strides[a] - pads[a] + tap[a] * dilations[a] + offset[(b, og, t, a, *o)] for a in range(r)]
            lo = [math.floor(v) for v in p]
            value = 0.0
            for corner in itertools.product((0, 1), repeat=r):
                at = [lo[a] + corner[a] for a in range(r)]
                if all(0 <= at[a] < size[a] for a in range(r)):
                    weight = math.prod(p[a] - lo[a] if corner[a] else 1 - (p[a] - lo[a]) for a in range(r))
                    value += weight * x[(b, ch, *at)]
            y[(b, f, *o)] += w[(f, ci, *tap)] * mask[(b, og, t, *o)] * value
    if bias is not None:
        y += bias.reshape(1, -1, *([1] * r))
    return y.astype(x.dtype)


def _deform_inputs(x_shape, w_shape, out, offset_group=1, with_mask=True):  # type: ignore[no-untyped-def]
    r = len(x_shape) - 2
    taps = math.prod(w_shape[2:])
    offset = rand(x_shape[0], offset_group * taps * r, *out, low=-2.5, high=2.5)
    mask = rand(x_shape[0], offset_group * taps, *out, low=0, high=1) if with_mask else None
    return rand(*x_shape), rand(*w_shape), offset, mask


def test_deform_conv_2d_groups_offsets_masks_bias():
    cases = []
    for (c, oc, group, offset_group), (pads, strides, dilations), with_mask, with_bias in itertools.product(
        [(2, 3, 1, 1), (4, 6, 2, 2), (4, 2, 1, 4), (6, 4, 2, 3)],
        [([0, 0, 0, 0], [1, 1], [1, 1]), ([1, 2, 0, 1], [2, 1], [1, 2])],
        (False, True),
        (False, True),
    ):
        x_shape, kernel = (2, c, 7, 6), (3, 2)
        out = [(7 + pads[0] + pads[2] - ((kernel[0] - 1) * dilations[0] + 1)) // strides[0] + 1,
               (6 + pads[1] + pads[3] - ((kernel[1] - 1) * dilations[1] + 1)) // strides[1] + 1]
        x, w, offset, mask = _deform_inputs(x_shape, (oc, c // group, *kernel), out, offset_group, with_mask)
        bias = rand(oc) if with_bias else None
        attrs = {"group": group, "offset_group": offset_group, "pads": pads, "strides": strides,
                 "dilations": dilations, "kernel_shape": list(kernel)}
        cases.append(Case("DeformConv", [x, w, offset, bias, mask], attrs))
    check(cases, opset=19, rtol=1e-4, atol=1e-4)


def test_deform_conv_numpy_reference_agrees_with_onnx_in_2d():
    """The numpy loop the N-D tests use is checked against onnx.reference."""
    from onnx.reference.ops.op_deform_conv import _deform_conv_implementation

    x, w, offset, mask = _deform_inputs((1, 4, 5, 6), (2, 2, 2, 3), [3, 2], 2)
    bias = rand(2)
    kw = {"strides": [2, 2], "pads": [1, 0, 1, 1], "dilations": [1, 2], "group": 2, "offset_group": 2}
    want = _deform_conv_implementation(x, w, offset, bias, mask, kw["dilations"], 2, [2, 3], 2, kw["pads"], kw["strides"])
    np.testing.assert_allclose(_deform_conv(x, w, offset, bias, mask, **kw), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("r", [1, 3])
def test_deform_conv_other_ranks(r):
    size, kernel = [6, 5, 4][:r], [3, 2, 2][:r]
    pads, strides, dilations = [1] * (2 * r), [2] + [1] * (r - 1), [1] * (r - 1) + [2]
    out = [(size[a] + 2 - ((kernel[a] - 1) * dilations[a] + 1)) // strides[a] + 1 for a in range(r)]
    x, w, offset, mask = _deform_inputs((2, 4, *size), (4, 2, *kernel), out, 2)
    bias = rand(4)
    attrs = {"group": 2, "offset_group": 2, "pads": pads, "strides": strides, "dilations": dilations}
    model, feeds = model_of([Case("DeformConv", [x, w, offset, bias, mask], attrs)], 19)
    (got,) = lamina.compile(model).run(*feeds)
    want = _deform_conv(x, w, offset, bias, mask, strides, pads, dilations, 2, 2)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_deform_conv_weights_as_constants_and_errors():
    x, w, offset, _ = _deform_inputs((1, 2, 5, 5), (2, 2, 2, 2), [4, 4])
    check([Case("DeformConv", [x, Const(w), offset, Const(rand(2))])], opset=22, rtol=1e-4, atol=1e-4)
    model, _ = model_of([Case("DeformConv", [x, w, offset], {"group": 3})], 19)
    with pytest.raises(lamina.FrontendError, match=r"DeformConv.*group=3 must divide"):
        lamina.from_onnx(model)
    model, _ = model_of([Case("DeformConv", [x, w, offset[:, :4]])], 19)
    with pytest.raises(lamina.LaminaError, match=r"offset tensor<1x4x4x4xf32> must have shape \[1, 8, 4, 4\]"):
        lamina.from_onnx(model)


# ----------------------------------------------------------------- MaxUnpool
def _unpool_case(shape, kernel, strides, pads, output_shape=None):  # type: ignore[no-untyped-def]
    """Values and distinct flat indices into the unpooled shape."""
    r = len(kernel)
    full = [*shape[:2], *((shape[2 + a] - 1) * strides[a] - pads[a] - pads[r + a] + kernel[a] for a in range(r))]
    indices = RNG.choice(math.prod(full), math.prod(shape), replace=False).reshape(shape).astype(np.int64)
    inputs: list = [rand(*shape), indices]
    if output_shape is not None:
        inputs.append(Const(np.array(output_shape, np.int64)))
    return Case("MaxUnpool", inputs, {"kernel_shape": kernel, "strides": strides, "pads": pads})


def test_max_unpool_ranks_strides_pads_and_output_shape():
    cases = [
        _unpool_case((2, 3, 4), [2], [2], [0, 0]),
        _unpool_case((1, 2, 3, 3), [3, 2], [2, 2], [1, 0, 0, 1]),
        _unpool_case((1, 1, 2, 2), [2, 2], [2, 2], [0, 0, 0, 0], [1, 1, 5, 6]),
        _unpool_case((2, 1, 2, 3, 2), [2, 2, 2], [1, 2, 2], [0] * 6),
        _unpool_case((1, 2, 3, 3), [2, 2], [1, 1], [0, 0, 0, 0], [1, 2, 4, 4]),
    ]
    check(cases, opset=11)


def test_max_unpool_undoes_max_pool():
    x = rand(1, 2, 6, 6)
    pool = helper.make_node("MaxPool", ["x"], ["y", "i"], kernel_shape=[2, 2], strides=[2, 2])
    unpool = helper.make_node("MaxUnpool", ["y", "i"], ["z"], kernel_shape=[2, 2], strides=[2, 2])
    graph = helper.make_graph(
        [pool, unpool], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)])
    (got,) = lamina.compile(model).run(x)
    blocks = x.reshape(1, 2, 3, 2, 3, 2).transpose(0, 1, 2, 4, 3, 5).reshape(1, 2, 3, 3, 4)
    kept = blocks == blocks.max(-1, keepdims=True)
    want = np.where(kept, blocks, 0).reshape(1, 2, 3, 3, 2, 2).transpose(0, 1, 2, 4, 3, 5).reshape(x.shape)
    np.testing.assert_array_equal(got, want)


def test_max_unpool_output_shape_given_at_run_time():
    """output_shape as a graph input: one compile, several shapes (each at
    least the unpooled one, padded with zeros at the end of each axis), against
    onnx.reference; a shape smaller than the unpooled one, or another batch,
    stops the run with the node's name; value specialization still asks for it
    as a constant."""
    case = _unpool_case((2, 3, 2, 3), [2, 2], [2, 2], [0, 0, 0, 0])
    x, indices = case.inputs
    model, _ = model_of([Case("MaxUnpool", [x, indices, np.array([2, 3, 4, 6], np.int64)], case.attrs)], 11)
    exe = lamina.compile(model)
    reference = ReferenceEvaluator(model)
    for out in ([2, 3, 4, 6], [2, 3, 7, 6], [2, 3, 4, 9], [2, 3, 5, 8]):
        feeds = {"c0_i0": x, "c0_i1": indices, "c0_i2": np.array(out, np.int64)}
        (got,) = exe.run(**feeds)
        (want,) = reference.run(None, feeds)
        assert got.shape == tuple(out)
        np.testing.assert_array_equal(got, want)
    for bad in ([2, 3, 3, 6], [1, 3, 4, 6]):
        feeds = {"c0_i0": x, "c0_i1": indices, "c0_i2": np.array(bad, np.int64)}
        with pytest.raises(lamina.InputError, match=r"\(MaxUnpool, opset 11\): the output_shape .* at least the unpooled shape \[2, 3, 4, 6\]"):
            exe.run(**feeds)
    with pytest.raises(lamina.FrontendError, match=r"MaxUnpool.*input #2 \('c0_i2'\) must be a constant"):
        lamina.from_onnx(model, run_time_values=False)


def test_max_unpool_output_shape_errors():
    bad = _unpool_case((1, 1, 2, 2), [2, 2], [2, 2], [0, 0, 0, 0], [1, 1, 3, 5])
    model, _ = model_of([bad], 11)
    with pytest.raises(lamina.FrontendError, match=r"output_shape \[1, 1, 3, 5\] must .* at least the unpooled shape \[1, 1, 4, 4\]"):
        lamina.from_onnx(model)
    case = _unpool_case((1, 1, 2, 2), [2, 2], [2, 2], [0, 0, 0, 0])
    model, _ = model_of([Case("MaxUnpool", [*case.inputs, np.array([1, 1, 5], np.int64)], case.attrs)], 11)
    with pytest.raises(lamina.FrontendError, match=r"output_shape must be 1-D with 4 entries \(X's rank\), got shape \[3\]"):
        lamina.from_onnx(model)

