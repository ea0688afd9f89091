"""Every ONNX op lamina imports, differentially against onnx.reference.

Each test builds one model holding many single-node cases (to compile once per
test, not once per case): every case's data inputs are graph inputs, its
shape-like inputs initializers. The model runs on onnx's ReferenceEvaluator and on
lamina, and every output must match in shape, dtype and value.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import onnx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import lamina
from lamina.frontends.onnx import CONVERTERS

RNG = np.random.default_rng(0)


@dataclass
class Const:
    """An input given as an initializer (a constant to the importer)."""

    value: Any


@dataclass
class Case:
    op: str
    inputs: Sequence[Any]  # arrays (graph inputs), Const (initializers), None (absent)
    attrs: dict[str, Any] = field(default_factory=dict)
    outputs: int = 1


def model_of(cases: Sequence[Case], opset: int) -> tuple[onnx.ModelProto, list[np.ndarray]]:
    """One model holding every case (inputs `c{k}_i{j}`, outputs `c{k}_o{j}`), and
    the values of its graph inputs in order."""
    nodes, inputs, inits, outputs, feeds = [], [], [], [], []
    for k, case in enumerate(cases):
        names = []
        for j, value in enumerate(case.inputs):
            name = f"c{k}_i{j}"
            if value is None:
                names.append("")
                continue
            names.append(name)
            if isinstance(value, Const):
                inits.append(numpy_helper.from_array(np.asarray(value.value), name))
                continue
            arr = np.asarray(value)
            elem = helper.np_dtype_to_tensor_dtype(arr.dtype)
            inputs.append(helper.make_tensor_value_info(name, elem, arr.shape))
            feeds.append(arr)
        outs = [f"c{k}_o{j}" for j in range(case.outputs)]
        nodes.append(helper.make_node(case.op, names, outs, name=f"case{k}", **case.attrs))
        outputs += [helper.make_tensor_value_info(o, TensorProto.UNDEFINED, None) for o in outs]
    graph = helper.make_graph(nodes, "cases", inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model, feeds


def check(
    cases: Sequence[Case], opset: int = 18, rtol: float = 1e-5, atol: float = 1e-6
) -> None:
    """lamina's outputs equal onnx.reference's for every case."""
    model, feeds = model_of(cases, opset)
    names = [i.name for i in model.graph.input]
    expected = ReferenceEvaluator(model).run(None, dict(zip(names, feeds, strict=True)))
    # The spec's element type wins over the reference's (its integer sums widen).
    inferred = onnx.shape_inference.infer_shapes(model).graph.output
    expected = [
        np.asarray(want).astype(helper.tensor_dtype_to_np_dtype(vi.type.tensor_type.elem_type))
        if vi.type.tensor_type.elem_type
        else want
        for want, vi in zip(expected, inferred, strict=True)
    ]
    got = lamina.compile(model).run(*feeds)
    outs = [o.name for o in model.graph.output]
    for name, want, have in zip(outs, expected, got, strict=True):
        case = cases[int(name[1 : name.index("_")])]
        what = f"{case.op} {case.attrs} on {[getattr(i, 'shape', i) for i in case.inputs]}"
        want = np.asarray(want)
        assert have.shape == want.shape, f"{what}: shape {have.shape} != {want.shape}"
        assert have.dtype == want.dtype, f"{what}: dtype {have.dtype} != {want.dtype}"
        if want.dtype.kind in "biu":
            np.testing.assert_array_equal(have, want, err_msg=what)
        else:
            np.testing.assert_allclose(have, want, rtol=rtol, atol=atol, err_msg=what)


def rand(*shape: int, dtype: Any = np.float32, low: float = -3, high: float = 3) -> np.ndarray:
    if np.dtype(dtype) == np.bool_:
        return RNG.random(shape) < 0.5
    if np.dtype(dtype).kind in "iu":
        return RNG.integers(low, high, shape, endpoint=True).astype(dtype)
    return RNG.uniform(low, high, shape).astype(dtype)


SPECIAL = np.array([0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, np.inf, -np.inf, np.nan], np.float32)
INTS = (np.int8, np.int16, np.int32, np.int64, np.uint8)


# -------------------------------------------------------------- elementwise
UNARY_FLOAT = {
    "Relu": {},
    "Neg": {},
    "Abs": {},
    "Sign": {},
    "Exp": {},
    "Floor": {},
    "Ceil": {},
    "Round": {},
    "Sin": {},
    "Cos": {},
    "Tan": {},
    "Tanh": {},
    "Erf": {},
    "Asin": {},
    "Acos": {},
    "Atan": {},
    "Sinh": {},
    "Cosh": {},
    "Asinh": {},
    "Acosh": {},
    "Atanh": {},
    "Sigmoid": {},
    "Softplus": {},
    "Softsign": {},
    "HardSwish": {},
    "LeakyRelu": {"alpha": 0.2},
    "Elu": {"alpha": 0.7},
    "Selu": {},
    "HardSigmoid": {"alpha": 0.3, "beta": 0.4},
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_unary_float_ops(dtype):
    x = np.concatenate([rand(18), SPECIAL]).astype(dtype).reshape(4, 7)
    cases = [Case(op, [x], attrs) for op, attrs in UNARY_FLOAT.items()]
    cases += [Case("Elu", [x]), Case("LeakyRelu", [x])]  # default attributes
    positive = rand(2, 5, dtype=dtype, low=0.01, high=9)
    cases += [Case(op, [positive]) for op in ("Log", "Sqrt", "Reciprocal")]
    check(cases, opset=18, rtol=2e-6 if dtype == np.float32 else 1e-12)


def test_gelu_both_approximations():
    x = rand(3, 9)
    check([Case("Gelu", [x]), Case("Gelu", [x], {"approximate": "tanh"})], opset=20)


@pytest.mark.parametrize("dtype", INTS)
def test_unary_integer_ops(dtype):
    x = rand(3, 4, dtype=dtype, low=0 if dtype == np.uint8 else -100, high=100)
    ops = ["Relu", "Abs", "Sign"] + ([] if dtype == np.uint8 else ["Neg"])
    check([Case(op, [x]) for op in ops], opset=14)


def test_logical_ops():
    a, b = rand(3, 4, dtype=np.bool_), rand(4, dtype=np.bool_)
    check([Case(op, [a, b]) for op in ("And", "Or", "Xor")] + [Case("Not", [a])])


BINARY_ARITH = ("Add", "Sub", "Mul", "Div")
COMPARE = ("Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual")


@pytest.mark.parametrize("dtype", [np.float32, np.float64, *INTS])
def test_binary_ops_and_comparisons(dtype):
    a = rand(2, 3, 4, dtype=dtype, low=0 if dtype == np.uint8 else -20, high=20)
    b = rand(3, 1, dtype=dtype, low=1, high=9)
    b[0, 0] = a[0, 0, 0]  # some equal elements
    cases = [Case(op, [a, b]) for op in BINARY_ARITH + COMPARE]
    cases += [Case("Mod", [a, b]), Case("Mod", [a, b], {"fmod": 1})]
    if np.dtype(dtype).kind == "f":
        cases.append(Case("Pow", [np.abs(a) + 0.5, b]))
        cases.append(Case("Pow", [a, np.array(2.0, dtype=dtype)]))
        cases.append(Case("Equal", [np.array([np.nan, 1.0], dtype), np.array([np.nan, 1.0], dtype)]))
    else:
        cases.append(Case("Pow", [a, np.array([0, 1, 2, 3], dtype=dtype)]))
    check(cases, opset=13)


def test_integer_division_by_zero_and_minus_one():
    """numpy's answers (0 and wrap-around), without trapping."""
    a = np.array([7, -7, -128, 5, 0, 127], np.int8)
    b = np.array([0, 0, -1, -1, 3, -2], np.int8)
    check([Case("Div", [a, b]), Case("Mod", [a, b]), Case("Mod", [a, b], {"fmod": 1})])


def test_float_mod_signs_and_edges():
    a = np.array([5.5, -5.5, 5.5, -5.5, 1e10, 3.0, -0.0, np.inf, 2.0, 7.0], np.float32)
    b = np.array([2.0, 2.0, -2.0, -2.0, 3.1, np.inf, 1.0, 2.0, 0.0, -np.inf], np.float32)
    check([Case("Mod", [a, b], {"fmod": 1}), Case("Mod", [a, b])], opset=13)


@given(
    shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=4, max_side=4),
    op=st.sampled_from(BINARY_ARITH + COMPARE + ("Pow",)),
    dtype=st.sampled_from([np.float32, np.int32]),
)
@settings(max_examples=15, deadline=None)
def test_binary_broadcasting_property(shapes, op, dtype):
    a_shape, b_shape = shapes.input_shapes
    a = rand(*a_shape, dtype=dtype, low=1, high=5)
    b = rand(*b_shape, dtype=dtype, low=1, high=5)
    check([Case(op, [a, b])], opset=13)


def test_legacy_broadcast_attribute():
    """Before opset 7, B aligns with A from `axis` (onnx.reference lacks this)."""
    a, b, c = rand(2, 3, 4, 5), rand(3, 4), rand(5)
    cases = [Case("Add", [a, b], {"broadcast": 1, "axis": 1}), Case("Mul", [a, c], {"broadcast": 1})]
    model, feeds = model_of(cases, 6)
    add, mul = lamina.compile(model).run(*feeds)
    np.testing.assert_allclose(add, a + b[:, :, None], rtol=1e-6)
    np.testing.assert_allclose(mul, a * c, rtol=1e-6)


def test_variadic_max_min_sum_mean():
    a, b, c = rand(2, 3), rand(3), rand(1, 3)
    cases = [Case(op, ins) for op in ("Max", "Min", "Sum", "Mean") for ins in ([a], [a, b], [a, b, c])]
    ints = rand(2, 3, dtype=np.int32, low=-50, high=50), rand(3, dtype=np.int32, low=-50, high=50)
    cases += [Case(op, list(ints)) for op in ("Max", "Min", "Sum", "Mean")]
    nan = np.array([np.nan, 1.0, 2.0], np.float32)
    cases += [Case("Max", [nan, b]), Case("Min", [b, nan])]
    check(cases, opset=13)


def test_clip_attribute_and_input_forms():
    x = np.concatenate([rand(11), [np.nan]]).astype(np.float32)
    lo, hi = np.float32(-1.5), np.float32(2)
    check([Case("Clip", [x], {"min": -1.0, "max": 0.5}), Case("Clip", [x], {"max": 0.0}), Case("Clip", [x])], opset=6)
    i = rand(12, dtype=np.int32, low=-9, high=9)
    check(
        [
            Case("Clip", [x, Const(lo), Const(hi)]),
            Case("Clip", [x, None, Const(hi)]),
            Case("Clip", [x, Const(lo)]),
            Case("Clip", [x]),
            Case("Clip", [x, np.array(-0.5, np.float32), np.array(1.0, np.float32)]),
            Case("Clip", [x, Const(lo), np.array(1.0, np.float32)]),
            Case("Clip", [i, Const(np.int32(-3)), Const(np.int32(4))]),
        ],
        opset=13,
    )


CAST_TYPES = (np.float32, np.float64, np.int8, np.int16, np.int32, np.int64, np.uint8, np.bool_)


def test_cast_between_every_supported_type():
    x = np.array([0.0, 1.0, -1.0, 2.7, -2.7, 100.9, 0.5], np.float32)
    cases = []
    for src, dst in itertools.product(CAST_TYPES, CAST_TYPES):
        v = np.abs(x) if np.dtype(src) == np.uint8 or np.dtype(dst) == np.uint8 else x
        value = v.astype(src)
        to = helper.np_dtype_to_tensor_dtype(np.dtype(dst))
        cases.append(Case("Cast", [value], {"to": to}))
    cases.append(Case("CastLike", [x, np.zeros(1, np.int32)]))
    check(cases, opset=19)


def test_where_and_prelu():
    cond = rand(2, 1, 4, dtype=np.bool_)
    a, b = rand(3, 4), rand(2, 3, 1)
    x = rand(2, 3, 4, 5)
    check(
        [
            Case("Where", [cond, a, b]),
            Case("Where", [cond, rand(4, dtype=np.int64), rand(2, 1, 1, dtype=np.int64)]),
            Case("PRelu", [x, rand(3, 1, 1)]),
            Case("PRelu", [x, rand(5)]),
            Case("PRelu", [x, np.array([0.25], np.float32)]),
        ],
        opset=16,
    )


def test_identity_and_dropout():
    x = rand(3, 4)
    check(
        [
            Case("Identity", [x]),
            Case("Dropout", [x], outputs=2),
            Case("Dropout", [x, Const(np.float32(0.5)), Const(np.bool_(False))]),
        ],
        opset=13,
    )


# ------------------------------------------------------------------ softmax
def test_softmax_and_log_softmax_semantics():
    x = rand(2, 3, 4)
    cases = [
        Case(op, [x], {} if axis is None else {"axis": axis})
        for op in ("Softmax", "LogSoftmax")
        for axis in (None, 0, 1, -1)
    ]
    check(cases, opset=13)


def test_softmax_before_opset_13_flattens_from_axis():
    """Before opset 13 the input is coerced to 2-D at `axis` (default 1) and the
    softmax runs over the flattened tail; onnx.reference lacks this."""
    x = rand(2, 3, 4)
    axes = (None, 0, 1, 2, -1)
    cases = [
        Case(op, [x], {} if axis is None else {"axis": axis})
        for op in ("Softmax", "LogSoftmax")
        for axis in axes
    ]
    model, feeds = model_of(cases, 11)
    got = lamina.compile(model).run(*feeds)
    for case, y in zip(cases, got, strict=True):
        axis = case.attrs.get("axis", 1) % 3
        flat = x.reshape(int(np.prod(x.shape[:axis])), -1).astype(np.float64)
        shifted = flat - flat.max(axis=1, keepdims=True)
        logs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
        want = (np.exp(logs) if case.op == "Softmax" else logs).reshape(x.shape)
        np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-6, err_msg=str(case.attrs))


def test_gemm_and_matmul():
    a, b, c = rand(4, 3), rand(3, 5), rand(5)
    check(
        [
            Case("Gemm", [a, b, c]),
            Case("Gemm", [a.T.copy(), b.T.copy(), rand(4, 1)], {"transA": 1, "transB": 1, "alpha": 0.5, "beta": 2.0}),
            Case("MatMul", [rand(2, 4, 3), rand(3, 5)]),
            Case("MatMul", [rand(3), rand(2, 3, 2)]),
        ],
        opset=13,
        rtol=1e-5,
        atol=1e-5,
    )


# --------------------------------------------------------------- convolution
def test_conv_groups_dilations_pads_strides():
    x2 = rand(1, 4, 7, 6)
    cases = [
        Case("Conv", [x2, rand(6, 4, 3, 3), rand(6)], {"pads": [1, 1, 1, 1]}),
        Case("Conv", [x2, rand(4, 2, 3, 2)], {"group": 2, "strides": [2, 1], "pads": [0, 1, 2, 0]}),
        Case("Conv", [x2, rand(4, 1, 3, 3), rand(4)], {"group": 4, "dilations": [2, 2], "pads": [2, 2, 2, 2]}),
        Case("Conv", [x2, rand(8, 1, 3, 3)], {"group": 4, "auto_pad": "SAME_UPPER", "strides": [2, 2]}),
        Case("Conv", [x2, rand(3, 4, 2, 2)], {"auto_pad": "SAME_LOWER"}),
        Case("Conv", [x2, rand(3, 4, 3, 2)], {"auto_pad": "VALID", "strides": [2, 3]}),
        Case("Conv", [rand(2, 3, 9), rand(4, 3, 3), rand(4)], {"pads": [1, 2], "strides": [2]}),
        Case("Conv", [rand(1, 2, 4, 5, 3), rand(2, 2, 2, 3, 2)], {"pads": [1, 0, 1, 0, 1, 0]}),
        Case("Conv", [rand(1, 2, 5, 5, dtype=np.float64), rand(2, 2, 3, 3, dtype=np.float64)]),
    ]
    check(cases, opset=11, rtol=1e-4, atol=1e-4)


def test_conv_transpose():
    x = rand(1, 2, 3, 4)
    cases = [
        Case("ConvTranspose", [x, rand(2, 3, 3, 3), rand(3)]),
        Case("ConvTranspose", [x, rand(2, 2, 3, 2)], {"strides": [2, 3], "pads": [1, 0, 1, 1]}),
        Case("ConvTranspose", [x, rand(2, 1, 3, 3)], {"strides": [2, 2], "output_padding": [1, 1], "dilations": [1, 1]}),
        Case("ConvTranspose", [x, rand(2, 2, 2, 2)], {"dilations": [2, 2]}),
        Case("ConvTranspose", [x, rand(2, 3, 3, 3)], {"strides": [2, 2], "output_shape": [7, 9]}),
        Case("ConvTranspose", [x, rand(2, 3, 3, 3)], {"strides": [2, 2], "output_shape": [8, 10]}),
        Case("ConvTranspose", [x, rand(2, 1, 3, 3)], {"strides": [2, 2], "auto_pad": "SAME_UPPER"}),
        Case("ConvTranspose", [rand(1, 4, 3, 3), rand(4, 1, 3, 3)], {"group": 4}),
        Case("ConvTranspose", [rand(1, 2, 5), rand(2, 3, 3)], {"strides": [3]}),
        Case("ConvTranspose", [rand(1, 1, 2, 3, 2), rand(1, 2, 2, 2, 2)], {"strides": [2, 1, 2]}),
    ]
    check(cases, opset=11, rtol=1e-4, atol=1e-4)


# ------------------------------------------------------------------- pooling
def test_max_pool():
    x = rand(1, 2, 7, 6)
    cases = [
        Case("MaxPool", [x], {"kernel_shape": [3, 3]}),
        Case("MaxPool", [x], {"kernel_shape": [3, 2], "strides": [2, 2], "pads": [1, 0, 1, 1]}),
        Case("MaxPool", [x], {"kernel_shape": [2, 2], "strides": [2, 2], "ceil_mode": 1}),
        Case("MaxPool", [x], {"kernel_shape": [3, 3], "dilations": [2, 1], "strides": [1, 2]}),
        Case("MaxPool", [x], {"kernel_shape": [3, 3], "auto_pad": "SAME_UPPER", "strides": [2, 2]}),
        Case("MaxPool", [x], {"kernel_shape": [2, 3], "auto_pad": "VALID"}),
        Case("MaxPool", [rand(2, 3, 8)], {"kernel_shape": [3], "strides": [2], "pads": [1, 1]}),
        Case("MaxPool", [rand(1, 1, 4, 4, 4)], {"kernel_shape": [2, 2, 2], "strides": [2, 2, 2]}),
        Case("MaxPool", [rand(1, 2, 5, 5, dtype=np.int8, low=-100, high=100)], {"kernel_shape": [2, 2], "strides": [2, 1]}),
        Case("MaxPool", [rand(1, 2, 5, 5, dtype=np.uint8, low=0, high=200)], {"kernel_shape": [3, 3]}),
        # (strides other than 1 take onnx.reference down its path with Indices)
        Case("MaxPool", [x], {"kernel_shape": [2, 2], "pads": [1, 1, 1, 1], "strides": [1, 2]}, outputs=2),
        Case("MaxPool", [x], {"kernel_shape": [3, 3], "strides": [2, 2], "storage_order": 1}, outputs=2),
    ]
    check(cases, opset=12)


def test_average_pool():
    x = rand(1, 2, 7, 6)
    cases = [
        Case("AveragePool", [x], {"kernel_shape": [3, 3]}),
        Case("AveragePool", [x], {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}),
        Case("AveragePool", [x], {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1], "count_include_pad": 1}),
        Case("AveragePool", [x], {"kernel_shape": [3, 2], "strides": [2, 2], "pads": [1, 0, 2, 1], "count_include_pad": 1}),
        Case("AveragePool", [x], {"kernel_shape": [2, 2], "strides": [2, 2], "ceil_mode": 1}),
        Case("AveragePool", [x], {"kernel_shape": [2, 2], "strides": [2, 2], "ceil_mode": 1, "count_include_pad": 1}),
        Case("AveragePool", [x], {"kernel_shape": [3, 3], "auto_pad": "SAME_UPPER"}),
        Case("AveragePool", [x], {"kernel_shape": [2, 2], "auto_pad": "SAME_LOWER", "count_include_pad": 1}),
        Case("AveragePool", [x], {"kernel_shape": [2, 2], "dilations": [2, 2], "pads": [1, 1, 1, 1]}),
        Case("AveragePool", [rand(2, 3, 9)], {"kernel_shape": [4], "strides": [2], "pads": [2, 1]}),
        Case("AveragePool", [rand(1, 1, 4, 5, 3)], {"kernel_shape": [2, 2, 2], "pads": [1, 0, 1, 0, 1, 0]}),
    ]
    check(cases, opset=19)


def test_global_pools():
    x = rand(2, 3, 4, 5)
    check([Case("GlobalAveragePool", [x]), Case("GlobalMaxPool", [x]), Case("GlobalAveragePool", [rand(1, 2, 6)])])


# ------------------------------------------------------------- normalization
def test_normalizations():
    x = rand(3, 3, 4, 5)  # onnx.reference's LRN is only right when N >= C
    c = 3
    scale, bias = rand(c), rand(c)
    mean, var = rand(c), rand(c, low=0.1, high=2)
    cases = [
        Case("BatchNormalization", [x, scale, bias, mean, var]),
        Case("BatchNormalization", [x, scale, bias, mean, var], {"epsilon": 1e-2}),
        Case("BatchNormalization", [x, scale, bias, mean, var], {"training_mode": 1, "momentum": 0.8}, outputs=3),
        Case("BatchNormalization", [rand(4, 3), scale, bias, mean, var]),
        Case("BatchNormalization", [rand(2, 3, 5, dtype=np.float64), *(v.astype(np.float64) for v in (scale, bias, mean, var))]),
        Case("InstanceNormalization", [x, scale, bias], {"epsilon": 1e-3}),
        Case("InstanceNormalization", [rand(2, 3, 7), scale, bias]),
        Case("LRN", [x], {"size": 3}),
        Case("LRN", [x], {"size": 2, "alpha": 0.01, "beta": 0.5, "bias": 2.0}),
    ]
    check(cases, opset=15, rtol=1e-4, atol=1e-5)


def test_layer_normalization():
    x = rand(2, 3, 4)
    cases = [
        Case("LayerNormalization", [x, rand(4), rand(4)]),
        Case("LayerNormalization", [x, rand(4)], {"epsilon": 1e-3}),
        Case("LayerNormalization", [x, rand(3, 4), rand(4)], {"axis": 1}),
        Case("LayerNormalization", [x, rand(2, 3, 4)], {"axis": 0}),
        Case("LayerNormalization", [x, rand(4), rand(4)], {"axis": -1}, outputs=3),
        Case("LayerNormalization", [x, rand(3, 4)], {"axis": -2}, outputs=3),
    ]
    check(cases, opset=17, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(("rows", "size", "axis"), [(64, 768, -1), (4, 1024, -1), (3, 4 * 256, -2)])
def test_layer_normalization_is_onnxruntimes_bit_for_bit(rows: int, size: int, axis: int) -> None:
    """Over a transformer's row (768 or 1024 values, one axis or two), a layer
    norm computes as onnxruntime does (a mean summed in f64, the variance in 8
    FMA lanes combined pairwise, a fused scale and shift), on any host: the
    same f32 bits. (A QDQ model's float layer norm then quantizes as in
    onnxruntime's int8 run.) Short rows (16 to 64 values) differ by an ulp on
    some draws: not matched yet."""
    ort = pytest.importorskip("onnxruntime")
    rng = np.random.default_rng(size + rows)
    shape = [rows, size] if axis == -1 else [rows, 4, size // 4]
    norm = shape[axis:]
    g, b = (rng.uniform(-3, 3, norm).astype(np.float32) for _ in range(2))
    node = helper.make_node("LayerNormalization", ["x", "g", "b"], ["y"], axis=axis, epsilon=1e-12)
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)],
        [numpy_helper.from_array(g, "g"), numpy_helper.from_array(b, "b")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    exe = lamina.compile(model, num_threads=1)
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    for scale, shift in ((1.0, 0.0), (3.0, 2.5), (9.0, 7.5)):
        x = (rng.uniform(-3, 3, shape) * scale + shift).astype(np.float32)
        np.testing.assert_array_equal(exe.run(x)[0], sess.run(None, {"x": x})[0])


# --------------------------------------------------------------- reductions
REDUCE = (
    "ReduceSum",
    "ReduceMean",
    "ReduceMax",
    "ReduceMin",
    "ReduceProd",
    "ReduceL1",
    "ReduceL2",
    "ReduceSumSquare",
    "ReduceLogSum",
    "ReduceLogSumExp",
)


def _reduce_cases(op: str, x: np.ndarray, opset: int) -> list[Case]:
    """Axes as an attribute before the op's switch to an input, as an input after."""
    since = 13 if op == "ReduceSum" else 18
    cases = []
    for axes, keep in (([1], 1), ([0, 2], 0), ([-1], 1), (None, 0), (None, 1)):
        attrs: dict[str, Any] = {"keepdims": keep}
        ins: list[Any] = [x]
        if axes is not None:
            if opset >= since:
                ins.append(Const(np.array(axes, np.int64)))
            else:
                attrs["axes"] = axes
        cases.append(Case(op, ins, attrs))
    if opset >= since:
        cases.append(Case(op, [x, Const(np.zeros(0, np.int64))], {"noop_with_empty_axes": 1}))
    return cases


@pytest.mark.parametrize("opset", [11, 13, 18])
def test_reductions(opset):
    x = rand(3, 4, 5, low=0.5, high=1.5)
    cases = [c for op in REDUCE for c in _reduce_cases(op, x, opset)]
    check(cases, opset=opset, rtol=1e-5, atol=1e-5)


def test_integer_and_bool_reductions():
    x = rand(3, 4, dtype=np.int32, low=-9, high=9)
    b = rand(3, 4, dtype=np.bool_)
    cases = [Case(op, [x, Const(np.array([1], np.int64))]) for op in ("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceSumSquare")]
    cases += [Case(op, [b, Const(np.array([0], np.int64))], {"keepdims": 0}) for op in ("ReduceMax", "ReduceMin")]
    check(cases, opset=20)


def test_argmax_argmin():
    x = rand(3, 4, 5, dtype=np.int32, low=0, high=3)  # many ties
    f = np.array([[1.0, np.nan, 3.0, np.nan], [2.0, 2.0, 1.0, 1.0]], np.float32)
    cases = [
        Case(op, [v], attrs)
        for op in ("ArgMax", "ArgMin")
        for v in (x, f)
        for attrs in ({}, {"axis": 1}, {"axis": -1, "keepdims": 0}, {"axis": 1, "select_last_index": 1})
    ]
    check(cases, opset=13)


# ------------------------------------------------------------------ layout
def test_reshape_flatten_transpose_squeeze_unsqueeze():
    x = rand(2, 1, 3, 4)
    cases = [
        Case("Reshape", [x, Const(np.array([0, -1, 4], np.int64))]),
        Case("Reshape", [x, Const(np.array([6, 4], np.int64))]),
        Case("Reshape", [rand(0, 3), Const(np.array([3, 0], np.int64))], {"allowzero": 1}),
        Case("Flatten", [x]),
        Case("Flatten", [x], {"axis": 0}),
        Case("Flatten", [x], {"axis": -1}),
        Case("Transpose", [x]),
        Case("Transpose", [x], {"perm": [2, 0, 3, 1]}),
        Case("Squeeze", [x]),
        Case("Squeeze", [x, Const(np.array([1], np.int64))]),
        Case("Unsqueeze", [x, Const(np.array([0, -1], np.int64))]),
        Case("Unsqueeze", [rand(3), Const(np.array([1, 0], np.int64))]),
    ]
    check(cases, opset=14)
    check([Case("Squeeze", [x], {"axes": [1]}), Case("Unsqueeze", [x], {"axes": [2, 5]})], opset=11)


def test_concat_split():
    a, b, c = rand(2, 3), rand(2, 1), rand(2, 0)
    x = rand(6, 5)
    check(
        [
            Case("Concat", [a, b, c, a], {"axis": 1}),
            Case("Concat", [a, rand(3, 3)], {"axis": -2}),
            Case("Concat", [rand(2, 3, dtype=np.int64)], {"axis": 0}),
            Case("Split", [x, Const(np.array([1, 3, 2], np.int64))], outputs=3),
            Case("Split", [x], {"axis": 1, "num_outputs": 2}, outputs=2),
            Case("Split", [x], {"num_outputs": 4}, outputs=4),
            Case("Split", [x], {"axis": -1}, outputs=5),
        ],
        opset=18,
    )
    check([Case("Split", [x], {"split": [2, 4]}, outputs=2), Case("Split", [x], outputs=3)], opset=11)


@pytest.mark.parametrize("opset", [9, 13])
def test_slice(opset):
    x = rand(5, 6, 7)
    specs = [
        ([1, 0], [3, 10], [0, 2], [1, 2]),
        ([-1], [-100], [1], [-1]),
        ([4, 6], [-6, 0], [0, 2], [-2, -3]),
        ([2], [2], [0], [1]),
        ([-3, 1], [1000, -1], [2, 0], None),
        ([0], [5], None, None),
    ]
    cases = []
    for starts, ends, axes, steps in specs:
        if opset < 10:
            if steps and any(s != 1 for s in steps):
                continue
            attrs: dict[str, Any] = {"starts": starts, "ends": ends}
            if axes is not None:
                attrs["axes"] = axes
            cases.append(Case("Slice", [x], attrs))
            continue
        ins = [x, Const(np.array(starts)), Const(np.array(ends))]
        ins.append(None if axes is None else Const(np.array(axes)))
        ins.append(None if steps is None else Const(np.array(steps)))
        cases.append(Case("Slice", ins))
    check(cases, opset=opset)


@st.composite
def slices(draw: st.DrawFn) -> tuple[tuple[int, ...], list[list[int]]]:
    """A shape and per-axis (start, end, step) with starts/ends past either end."""
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, max_side=6))
    specs = []
    for d in shape:
        step = draw(st.sampled_from([1, 2, 3, -1, -2]))
        # (below -d with a negative step onnx.reference follows numpy, not ONNX:
        # see test_slice_start_below_the_axis_with_negative_step)
        start = draw(st.integers(-d - 2 if step > 0 else -d, d + 2))
        end = draw(st.integers(-d - 2, d + 2) | st.sampled_from([2**62, -(2**62)]))
        specs.append([start, end, step])
    return shape, specs


@given(case=slices())
@settings(max_examples=12, deadline=None)
def test_slice_property(case):
    shape, specs = case
    starts, ends, steps = (np.array(v, np.int64) for v in zip(*specs, strict=True))
    x = rand(*shape)
    check([Case("Slice", [x, Const(starts), Const(ends), Const(np.arange(len(shape))), Const(steps)])])


@given(
    shape=hnp.array_shapes(min_dims=1, max_dims=4, max_side=4),
    data=st.data(),
    op=st.sampled_from(REDUCE),
    keep=st.booleans(),
)
@settings(max_examples=12, deadline=None)
def test_reduction_property(shape, data, op, keep):
    axes = data.draw(st.lists(st.integers(-len(shape), len(shape) - 1), max_size=len(shape), unique_by=lambda a: a % len(shape)))
    x = rand(*shape, low=0.5, high=1.5)
    ins: list[Any] = [x] + ([Const(np.array(axes, np.int64))] if axes else [])
    check([Case(op, ins, {"keepdims": int(keep)})], opset=18, rtol=1e-5, atol=1e-5)


def test_slice_start_below_the_axis_with_negative_step():
    """ONNX clamps a start below -size into the axis (onnxruntime and shape
    inference agree); onnx.reference, like numpy, gives an empty slice."""
    x = rand(3)
    case = Case("Slice", [x, Const(np.array([-5])), Const(np.array([-(2**62)])), None, Const(np.array([-1]))])
    model, feeds = model_of([case], 13)
    (y,) = lamina.compile(model).run(*feeds)
    np.testing.assert_array_equal(y, x[::-1][-1:])
    ort = pytest.importorskip("onnxruntime")
    model.graph.output[0].type.tensor_type.elem_type = TensorProto.FLOAT
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    np.testing.assert_array_equal(y, sess.run(None, {"c0_i0": x})[0])


def test_gather_gather_elements_expand_tile():
    x = rand(4, 5, 3)
    idx = np.array([[0, -1], [3, 2]], np.int64)
    cases = [
        Case("Gather", [x, idx]),
        Case("Gather", [x, np.array([4, -5, 0], np.int32)], {"axis": 1}),
        Case("Gather", [x, np.array(-1, np.int64)], {"axis": 2}),
        Case("Gather", [x, Const(np.array([1, 2], np.int64))], {"axis": 0}),
        Case("GatherElements", [x, RNG.integers(-3, 3, (4, 5, 6))], {"axis": 2}),
        Case("GatherElements", [rand(3, 3), np.array([[1, 2, 0], [2, 0, 0], [-1, -2, -3]], np.int32)], {"axis": 0}),
        Case("Expand", [rand(3, 1), Const(np.array([2, 1, 4], np.int64))]),
        Case("Expand", [rand(1, 4), Const(np.array([3, 1], np.int64))]),
        Case("Tile", [rand(2, 3), Const(np.array([2, 3], np.int64))]),
        Case("Tile", [rand(2, 3, dtype=np.int8, low=-5, high=5), Const(np.array([1, 0], np.int64))]),
    ]
    check(cases, opset=13)


# ------------------------------------------- gather_nd, one-hot, einsum, ...
def test_gather_nd():
    x = rand(4, 3, 5)
    cases = []
    for idx_dtype in (np.int64, np.int32):
        cases += [
            Case("GatherND", [x, RNG.integers(-4, 4, (6, 1)).astype(idx_dtype)]),
            Case("GatherND", [x, np.array([[0, -1], [3, 2], [-4, 0]], idx_dtype)]),
            Case("GatherND", [x, RNG.integers(-3, 3, (2, 2, 3)).astype(idx_dtype)]),
        ]
    cases += [
        Case("GatherND", [rand(1, 1), np.zeros((2, 3, 2), np.int64)]),
        Case("GatherND", [rand(5, dtype=np.int8, low=-9, high=9), np.array([[4], [-5], [0]], np.int64)]),
        Case("GatherND", [rand(3, 2, dtype=np.bool_), np.array([[1]], np.int64)]),
        Case("GatherND", [rand(2, 3, dtype=np.uint8, low=0, high=200), np.array([[[1, 2]], [[0, -1]]], np.int64)]),
    ]
    check(cases, opset=11)
    batched = [
        Case("GatherND", [x, RNG.integers(-3, 3, (4, 1)).astype(np.int64)], {"batch_dims": 1}),
        Case("GatherND", [x, RNG.integers(-3, 3, (4, 2, 2)).astype(np.int32)], {"batch_dims": 1}),
        Case("GatherND", [x, RNG.integers(-5, 5, (4, 3, 1))], {"batch_dims": 2}),
        Case("GatherND", [x, RNG.integers(-5, 5, (4, 3, 2, 1))], {"batch_dims": 2}),
        Case("GatherND", [rand(2, 1, 3, 2, dtype=np.float64), RNG.integers(-2, 2, (2, 1, 4, 2))], {"batch_dims": 2}),
        Case("GatherND", [rand(1, 6, dtype=np.int64), np.array([[[5], [-6]]], np.int64)], {"batch_dims": 1}),
        Case("GatherND", [x, np.array([[0, 1]], np.int64)], {"batch_dims": 0}),
    ]
    check(batched, opset=12)
    check(batched, opset=13)


def test_reverse_sequence():
    cases = []
    for dtype in (np.float32, np.int32, np.float64, np.bool_):
        x = rand(5, 3, 2, dtype=dtype)
        cases += [
            Case("ReverseSequence", [x, np.array([5, 1, 3], np.int64)]),
            Case("ReverseSequence", [x.transpose(1, 0, 2).copy(), np.array([0, 2, 5], np.int64)], {"batch_axis": 0, "time_axis": 1}),
        ]
    cases += [
        Case("ReverseSequence", [rand(4, 4), np.array([4, 3, 2, 1], np.int64)], {"batch_axis": 1, "time_axis": 0}),
        Case("ReverseSequence", [rand(1, 6, 2, 3), np.array([4], np.int64)], {"batch_axis": -4, "time_axis": -3}),
        Case("ReverseSequence", [rand(3, 1), np.array([1, 0, 1], np.int64)], {"batch_axis": 0, "time_axis": 1}),
    ]
    check(cases, opset=10)


def test_one_hot():
    depth = Const(np.array(5, np.int64))
    values = np.array([-1.5, 2.0], np.float32)
    cases = []
    for dtype in (np.int64, np.int32, np.int8, np.float32, np.float64):
        idx = np.array([[0, -1, 4], [-5, 5, -6], [2, 3, 1]]).astype(dtype)  # 5, -6: out of range
        for axis in (-1, 0, 1, -3):
            cases.append(Case("OneHot", [idx, depth, values], {"axis": axis}))
    cases += [
        Case("OneHot", [np.array([0, 3, 7, 255], np.uint8), Const(np.array(10.0, np.float32)), np.array([0, 1], np.int64)]),
        Case("OneHot", [np.array(2, np.int64), Const(np.array(3, np.int32)), np.array([5, 9], np.int32)]),
        Case("OneHot", [np.array([[1.0, 9.0], [2.0, -4.0]], np.float32), Const(np.array(10.0, np.float32)), np.array([1.0, 3.0], np.float64)], {"axis": 1}),
        Case("OneHot", [RNG.integers(-3, 3, (2, 1, 3)), Const(np.array(3, np.int64)), np.array([0, 1], np.int8)], {"axis": 2}),
        Case("OneHot", [np.array([0, 1, -1], np.int64), Const(np.array(1, np.int64)), np.array([3, 7], np.uint8)]),
    ]
    check(cases, opset=11)
    check([Case("OneHot", [np.array([[0, 2], [1, 1]], np.int64), depth, values], {"axis": 0})], opset=9)
    # depth as a 1-element 1-D tensor (which onnx.reference refuses)
    model, feeds = model_of([Case("OneHot", [np.array([2, -1, 0], np.int32), Const(np.array([3.0], np.float32)), values])], 11)
    (y,) = lamina.compile(model).run(*feeds)
    np.testing.assert_array_equal(y, np.where(np.eye(3, dtype=bool)[[2, 2, 0]], values[1], values[0]))


EINSUM_EQUATIONS = [
    ("ij->ji", [(3, 4)]),
    ("ij->i", [(3, 4)]),
    ("ij", [(3, 1)]),
    ("ba", [(2, 3)]),
    ("bA", [(2, 3)]),
    ("...ii->...i", [(3, 5, 5)]),
    ("ii", [(4, 4)]),
    ("iii->i", [(3, 3, 3)]),
    ("i...i", [(3, 2, 3)]),
    ("->", [()]),
    ("...", [()]),
    ("i,i", [(5,), (5,)]),
    ("i,i->", [(1,), (3,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("i,j", [(3,), (1,)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    ("ij,kj->ik", [(2, 3), (4, 3)]),
    ("bij, bjk -> bik", [(5, 2, 3), (5, 3, 4)]),
    ("bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)]),
    ("...ij,...jk", [(2, 1, 3, 4), (5, 4, 2)]),
    ("...ij,jk->...ik", [(3, 4), (4, 2)]),
    ("ij,ij->ij", [(2, 3), (2, 3)]),
    ("ij,ij->", [(2, 3), (2, 3)]),
    ("iij,jk->ki", [(3, 3, 2), (2, 4)]),
    ("abc,cd,de->ae", [(2, 3, 4), (4, 5), (5, 2)]),
    ("ab,ab,ab->a", [(3, 2), (3, 2), (1, 2)]),
    ("ab,bc,ca", [(2, 3), (3, 4), (4, 2)]),
    ("i,jk,k->ij", [(2,), (3, 4), (4,)]),
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_einsum(dtype):
    cases = [
        Case("Einsum", [rand(*s, dtype=dtype) for s in shapes], {"equation": eq})
        for eq, shapes in EINSUM_EQUATIONS
    ]
    check(cases, opset=12, rtol=1e-5, atol=1e-5)


def _lp_pool_spec(x: np.ndarray, kernel_shape: Sequence[int], p: int = 2, pads: Sequence[int] | None = None,
                  strides: Sequence[int] | None = None, dilations: Sequence[int] | None = None,
                  ceil_mode: int = 0, auto_pad: str = "NOTSET") -> np.ndarray:
    """LpPool as the spec defines it: `(sum |x|^p)^(1/p)` over the window's taps
    inside the input. onnx.reference differs at a ceil_mode tail (it scales a
    partial window's mean) and with dilated auto_pad windows."""
    n = x.ndim - 2
    strides, dilations = strides or [1] * n, dilations or [1] * n
    pads = list(pads or [0] * (2 * n))
    sizes = x.shape[2:]
    if auto_pad.startswith("SAME"):
        for a, (size, k, s, d) in enumerate(zip(sizes, kernel_shape, strides, dilations, strict=True)):
            total = max(0, (-(-size // s) - 1) * s + (k - 1) * d + 1 - size)
            pads[a] = total // 2 if auto_pad == "SAME_UPPER" else total - total // 2
            pads[n + a] = total - pads[a]
    outs = []
    for a, (size, k, s, d) in enumerate(zip(sizes, kernel_shape, strides, dilations, strict=True)):
        span, total = (k - 1) * d + 1, size + pads[a] + pads[n + a]
        o = (total - span + (s - 1 if ceil_mode else 0)) // s + 1
        outs.append(o - 1 if ceil_mode and (o - 1) * s >= size + pads[a] else o)
    y = np.zeros(x.shape[:2] + tuple(outs))
    for o in itertools.product(*map(range, outs)):
        for t in itertools.product(*map(range, kernel_shape)):
            pos = [o[a] * strides[a] - pads[a] + t[a] * dilations[a] for a in range(n)]
            if all(0 <= q < size for q, size in zip(pos, sizes, strict=True)):
                y[(..., *o)] += np.abs(x[(..., *pos)].astype(np.float64)) ** p
    return (y ** (1.0 / p)).astype(x.dtype)


def test_lp_pool():
    x = rand(2, 3, 7, 6)
    cases = [
        Case("LpPool", [x], {"kernel_shape": [3, 3]}),
        Case("LpPool", [x], {"kernel_shape": [3, 2], "p": 3, "pads": [1, 0, 2, 1], "strides": [2, 2]}),
        Case("LpPool", [x], {"kernel_shape": [2, 2], "p": 1, "pads": [1, 1, 1, 1]}),
        Case("LpPool", [x], {"kernel_shape": [2, 2], "p": 4, "auto_pad": "SAME_UPPER"}),
        Case("LpPool", [x], {"kernel_shape": [3, 2], "auto_pad": "SAME_LOWER", "strides": [2, 1]}),
        Case("LpPool", [x], {"kernel_shape": [2, 3], "auto_pad": "VALID", "strides": [2, 2]}),
        Case("LpPool", [x], {"kernel_shape": [7, 6]}),
        Case("LpPool", [rand(1, 2, 9, dtype=np.float64)], {"kernel_shape": [4], "strides": [3], "pads": [1, 2], "p": 5}),
        Case("LpPool", [rand(1, 2, 4, 5, 3)], {"kernel_shape": [2, 2, 2], "pads": [1, 0, 1, 0, 1, 0]}),
    ]
    check(cases, opset=11, rtol=1e-4, atol=1e-5)
    check([*cases[:3], Case("LpPool", [x], {"kernel_shape": [2, 2], "dilations": [2, 1], "p": 3})], opset=18, rtol=1e-4, atol=1e-5)
    check([Case("LpPool", [x], {"kernel_shape": [2, 2], "p": 2.0})], opset=1, rtol=1e-4, atol=1e-5)
    check([Case("LpPool", [rand(1, 2, 5, 5, dtype=np.float16)], {"kernel_shape": [2, 2], "p": 3})], opset=18, rtol=1e-2, atol=1e-2)
    # Where onnx.reference departs from the spec: ceil_mode tails, dilated auto_pad.
    spec = [
        (x, {"kernel_shape": [2, 2], "p": 1, "strides": [2, 2], "ceil_mode": 1}),
        (x, {"kernel_shape": [3, 2], "p": 3, "strides": [2, 3], "pads": [1, 1, 0, 1], "ceil_mode": 1}),
        (rand(1, 2, 9), {"kernel_shape": [4], "strides": [3], "ceil_mode": 1, "pads": [1, 1]}),
        (x, {"kernel_shape": [2, 2], "p": 4, "dilations": [2, 1], "auto_pad": "SAME_UPPER"}),
        (x, {"kernel_shape": [2, 3], "dilations": [3, 2], "auto_pad": "SAME_LOWER", "strides": [2, 1]}),
    ]
    model, feeds = model_of([Case("LpPool", [v], attrs) for v, attrs in spec], 18)
    for (v, attrs), y in zip(spec, lamina.compile(model).run(*feeds), strict=True):
        np.testing.assert_allclose(y, _lp_pool_spec(v, **attrs), rtol=1e-4, atol=1e-5, err_msg=str(attrs))


def test_center_crop_pad():
    x = rand(20, 8, 3)
    cases = [
        Case("CenterCropPad", [x, Const(np.array([10, 10, 3], np.int64))]),
        Case("CenterCropPad", [x, Const(np.array([10, 9], np.int64))], {"axes": [0, 1]}),
        Case("CenterCropPad", [x, Const(np.array([10, 9], np.int64))], {"axes": [-3, -2]}),
        Case("CenterCropPad", [x, Const(np.array([5, 4], np.int64))], {"axes": [2, 0]}),
        Case("CenterCropPad", [x, Const(np.array([20, 8, 3], np.int64))]),
        Case("CenterCropPad", [x, Const(np.array([1, 1, 1], np.int32))]),
        Case("CenterCropPad", [x, Const(np.array([23, 13, 4], np.int64))]),
        Case("CenterCropPad", [rand(1, 5, dtype=np.int32), Const(np.array([4, 2], np.int64))]),
        Case("CenterCropPad", [rand(3, 4, dtype=np.uint8, low=0, high=99), Const(np.array([6], np.int64))], {"axes": [-1]}),
        Case("CenterCropPad", [rand(2, 7, dtype=np.float64), Const(np.array([3], np.int64))], {"axes": [1]}),
    ]
    check(cases, opset=18)


@pytest.mark.parametrize(
    ("case", "opset", "message"),
    [
        (Case("GatherND", [rand(2, 3), np.zeros((2, 3), np.int64)]), 13, r"last axis of indices \[2, 3\] must have a size in 1..2"),
        (Case("GatherND", [rand(2, 3), np.zeros((3, 1), np.int64)], {"batch_dims": 1}), 13, r"differ in their first 1 \(batch\)"),
        (Case("GatherND", [rand(2, 3), np.zeros((2, 1), np.int64)], {"batch_dims": 2}), 13, "batch_dims 2 must be in 0..1"),
        (Case("OneHot", [np.array([1], np.int64), Const(np.array(3, np.int64)), np.array([0.0, 1.0, 2.0], np.float32)]), 11, "values must be 1-D of size 2"),
        (Case("OneHot", [np.array([1], np.int64), Const(np.array([3, 4], np.int64)), np.array([0.0, 1.0], np.float32)]), 11, "depth must hold exactly one value"),
        (Case("OneHot", [np.array([1], np.int64), Const(np.array(0, np.int64)), np.array([0.0, 1.0], np.float32)]), 11, "depth must be positive"),
        (Case("Einsum", [rand(2, 3), rand(3, 4)], {"equation": "ij,jk,kl->il"}), 12, "has 3 input term"),
        (Case("Einsum", [rand(2, 3)], {"equation": "ijk->i"}), 12, "has 3 labels but its operand has rank 2"),
        (Case("Einsum", [rand(2, 3)], {"equation": "i1->i"}), 12, "not a letter"),
        (Case("Einsum", [rand(2, 3), rand(4, 5)], {"equation": "ij,jk"}), 12, "label 'j' has sizes 3 and 4"),
        (Case("Einsum", [rand(2, 3, 4)], {"equation": "...j->j"}), 12, r"the output needs '\.\.\.'"),
        (Case("ReverseSequence", [rand(2, 3, 4), np.array([1, 2, 3], np.int64)], {"batch_axis": 2, "time_axis": 0}), 10, "must be 0 and 1"),
        (Case("CenterCropPad", [rand(3, 4), Const(np.array([2], np.int64))]), 18, r"shape \[2\] needs one size per axis"),
        (Case("CenterCropPad", [rand(3, 4), Const(np.array([2, 2], np.int64))], {"axes": [1, -1]}), 18, "repeat an axis"),
        (Case("LpPool", [rand(1, 1, 4, 4)], {"kernel_shape": [2]}), 18, r"kernel_shape \[2\] must have 2 positive values"),
        (Case("LpPool", [rand(1, 1, 2, 2)], {"kernel_shape": [3, 3]}), 18, "does not fit the input"),
    ],
)
def test_indexing_and_pooling_errors_name_the_node(case, opset, message):
    model, _ = model_of([case], opset)
    with pytest.raises(lamina.FrontendError, match=message) as e:
        lamina.from_onnx(model)
    assert f"ONNX node 'case0' ({case.op}, opset {opset})" in str(e.value)


def test_pad_modes():
    x = rand(3, 4)
    pads = Const(np.array([1, 2, 2, 1], np.int64))
    cases = [
        Case("Pad", [x, pads]),
        Case("Pad", [x, pads, Const(np.float32(1.5))]),
        Case("Pad", [x, pads], {"mode": "reflect"}),
        Case("Pad", [x, pads], {"mode": "edge"}),
        Case("Pad", [x, pads], {"mode": "wrap"}),
        Case("Pad", [x, Const(np.array([2, 5, 2, 4], np.int64))], {"mode": "reflect"}),
        Case("Pad", [rand(2, 3, 4), Const(np.array([1, 2], np.int64)), None, Const(np.array([-1], np.int64))]),
        Case("Pad", [rand(2, 3, dtype=np.int32, low=-9, high=9), pads, Const(np.int32(7))]),
    ]
    check(cases, opset=19)
    check([Case("Pad", [x], {"pads": [0, 1, 1, 0], "value": 2.0}), Case("Pad", [x], {"pads": [1, 1, 1, 1], "mode": "edge"})], opset=2)


def test_pad_with_negative_widths_crops():
    """onnx.reference refuses negative pads; ONNX (and numpy slicing) crop."""
    x = rand(3, 4)
    model, feeds = model_of([Case("Pad", [x, Const(np.array([-1, 1, 0, -2], np.int64))])], 13)
    (y,) = lamina.compile(model).run(*feeds)
    np.testing.assert_array_equal(y, np.pad(x, [(0, 0), (1, 0)])[1:, :-2])


def test_trilu():
    x = rand(2, 4, 5)
    cases = [
        Case("Trilu", [x]),
        Case("Trilu", [x], {"upper": 0}),
        Case("Trilu", [x, Const(np.array(2, np.int64))]),
        Case("Trilu", [x, Const(np.array(-1, np.int64))], {"upper": 0}),
        Case("Trilu", [rand(3, 3, dtype=np.int64, low=1, high=9), Const(np.array(-7, np.int64))]),
    ]
    check(cases, opset=14)


# ------------------------------------------------------------------ resize
COORDINATE_MODES = ("half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric")


def test_resize_nearest():
    x = rand(1, 2, 4, 5)
    up, down = Const(np.array([1, 1, 2.0, 1.5], np.float32)), Const(np.array([1, 1, 0.5, 0.6], np.float32))
    cases = [
        Case("Resize", [x, None, scales], {"mode": "nearest", "coordinate_transformation_mode": mode, "nearest_mode": rounding})
        for mode in COORDINATE_MODES
        for rounding in ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")
        for scales in (up, down)
    ]
    sizes = Const(np.array([1, 2, 7, 3], np.int64))
    cases.append(Case("Resize", [x, None, None, sizes], {"mode": "nearest"}))
    check(cases, opset=13)


def test_resize_linear_and_cubic():
    x = rand(1, 1, 4, 6)
    sizes = Const(np.array([1, 1, 7, 4], np.int64))
    scales = Const(np.array([1, 1, 1.5, 0.5], np.float32))
    cases = [
        Case("Resize", [x, None, s, z], {"mode": mode, "coordinate_transformation_mode": coords})
        for mode in ("linear", "cubic")
        for coords in COORDINATE_MODES
        for s, z in ((scales, None), (None, sizes))
    ]
    cases += [
        Case("Resize", [x, None, scales], {"mode": "cubic", "cubic_coeff_a": -0.5, "exclude_outside": 1}),
        Case(
            "Resize",
            [x, Const(np.array([0, 0, 0.2, 0.1, 1, 1, 0.8, 1.2], np.float32)), None, sizes],
            {"mode": "linear", "coordinate_transformation_mode": "tf_crop_and_resize", "extrapolation_value": 9.0},
        ),
        Case("Resize", [x, None, scales], {"mode": "linear", "antialias": 1}),
        Case("Resize", [x, None, Const(np.array([0.6, 0.4], np.float32))], {"mode": "cubic", "antialias": 1, "axes": [2, 3]}),
        Case("Resize", [x, None, None, Const(np.array([3, 5], np.int64))], {"axes": [2, 3], "keep_aspect_ratio_policy": "not_larger"}),
        Case("Resize", [x, None, None, Const(np.array([3, 5], np.int64))], {"axes": [2, 3], "keep_aspect_ratio_policy": "not_smaller"}),
    ]
    check(cases, opset=19, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    ("mode", "attrs"),
    [
        ("linear", {}),
        ("cubic", {}),
        ("linear", {"coordinate_transformation_mode": "align_corners"}),
        ("cubic", {"coordinate_transformation_mode": "pytorch_half_pixel", "exclude_outside": 1, "cubic_coeff_a": -0.5}),
        ("cubic", {"coordinate_transformation_mode": "asymmetric"}),
    ],
)
def test_resize_antialias_with_run_time_scales_and_sizes(mode, attrs):
    """Antialias with scales or sizes given when the model runs (the taps along
    each axis a size set by the scale): one compile per model, the input's
    spatial dims symbolic, downscales, upscales (no widening) and mixes,
    against onnx.reference."""
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, "h", "w"])]
    scales = helper.make_tensor_value_info("scales", TensorProto.FLOAT, [4])
    sizes = helper.make_tensor_value_info("sizes", TensorProto.INT64, [2])
    runs = {
        "scales": ([scales], ["x", "", "scales"], {}, [(9, 7, [1, 1, 0.5, 0.4]), (6, 8, [1, 1, 1.5, 0.3]),
                                                     (5, 5, [1, 1, 0.8, 1.0]), (12, 4, [1, 1, 0.25, 2.0])]),
        "sizes": ([sizes], ["x", "", "", "sizes"], {"axes": [2, 3]}, [(9, 7, [4, 3]), (6, 8, [9, 2]), (10, 10, [1, 3])]),
    }
    for shape_in, names, extra, cases in runs.values():
        node = helper.make_node("Resize", names, ["y"], mode=mode, antialias=1, **attrs, **extra)
        graph = helper.make_graph([node], "g", inputs + shape_in, [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
        exe = lamina.compile(model)
        reference = ReferenceEvaluator(model)
        for h, w, value in cases:
            feeds = {"x": rand(1, 2, h, w), shape_in[0].name: np.array(value, np.float32 if shape_in[0] is scales else np.int64)}
            (got,) = exe.run(**feeds)
            (want,) = reference.run(None, feeds)
            assert got.shape == want.shape, f"{mode} {attrs} at {(h, w)}, {value}"
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg=f"{mode} {attrs} at {(h, w)}, {value}")


def test_resize_opset_10_and_upsample():
    """Resize-10 and Upsample use asymmetric coordinates (nearest: floor); the
    reference has no Resize-10, so it is checked against numpy."""
    x = rand(1, 1, 3, 4)
    scales = Const(np.array([1, 1, 2, 3], np.float32))
    model, feeds = model_of([Case("Resize", [x, scales]), Case("Resize", [x, scales], {"mode": "linear"})], 10)
    nearest, linear = lamina.compile(model).run(*feeds)
    np.testing.assert_array_equal(nearest, x.repeat(2, axis=2).repeat(3, axis=3))
    rows = np.minimum(np.arange(6) / 2, 2)
    cols = np.minimum(np.arange(12) / 3, 3)
    r0, c0 = np.floor(rows).astype(int), np.floor(cols).astype(int)
    r1, c1 = np.minimum(r0 + 1, 2), np.minimum(c0 + 1, 3)
    fr, fc = (rows - r0)[:, None], (cols - c0)[None, :]
    img = x[0, 0]
    want = (
        img[r0][:, c0] * (1 - fr) * (1 - fc)
        + img[r0][:, c1] * (1 - fr) * fc
        + img[r1][:, c0] * fr * (1 - fc)
        + img[r1][:, c1] * fr * fc
    )
    np.testing.assert_allclose(linear[0, 0], want, rtol=1e-5, atol=1e-6)
    check([Case("Upsample", [x, scales])], opset=9)


def test_legacy_opset_forms():
    """Opset-1 forms that later became inputs or changed type (checked against
    numpy: onnx.reference does not implement them all)."""
    x = rand(1, 1, 2, 3)
    cases = [
        Case("Upsample", [x], {"height_scale": 2.0, "width_scale": 3.0, "mode": "nearest"}),
        Case("Cast", [x * 10], {"to": "INT32"}),
        Case("Tile", [x, Const(np.array(2, np.int64)), Const(np.array(3, np.int64))]),
        Case("Split", [rand(5, 2), Const(np.array([2, 3], np.int64))], outputs=2),
        Case("Reshape", [x], {"shape": [3, 2]}),
    ]
    model, feeds = model_of(cases, 1)
    model.ir_version = 3
    up, cast, tile, s0, s1, reshaped = lamina.compile(model).run(*feeds)
    np.testing.assert_array_equal(up, x.repeat(2, axis=2).repeat(3, axis=3))
    np.testing.assert_array_equal(cast, (x * 10).astype(np.int32))
    np.testing.assert_array_equal(tile, np.tile(x, (1, 1, 1, 2)))
    np.testing.assert_array_equal(np.concatenate([s0, s1]), feeds[3])
    assert s0.shape == (2, 2)
    np.testing.assert_array_equal(reshaped, x.reshape(3, 2))


# ----------------------------------------------------------------- shapes
def test_shape_ops_fold_to_constants():
    x = rand(2, 3, 4)
    cases = [
        Case("Shape", [x]),
        Case("Shape", [x], {"start": 1}),
        Case("Shape", [x], {"start": -2, "end": -1}),
        Case("Size", [x]),
        Case("ConstantOfShape", [Const(np.array([2, 3], np.int64))]),
        Case("ConstantOfShape", [Const(np.array([2], np.int64))], {"value": numpy_helper.from_array(np.array([7], np.int32))}),
        Case("Range", [Const(np.int64(1)), Const(np.int64(10)), Const(np.int64(3))]),
        Case("Range", [Const(np.float32(0.5)), Const(np.float32(-2)), Const(np.float32(-0.75))]),
        Case("Constant", [], {"value": numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3))}),
        Case("Constant", [], {"value_ints": [1, 2, 3]}),
        Case("Constant", [], {"value_float": 2.5}),
    ]
    model, _ = model_of(cases, 17)
    module = lamina.from_onnx(model)
    ops = {op.name for op in module.walk()} - {"builtin.module", "func.func", "func.return"}
    assert ops == {"relay.constant"}, ops
    check(cases, opset=17)


def test_shape_arithmetic_folds_away():
    """Shape -> Gather -> Unsqueeze -> Concat -> Reshape: only the reshape stays."""
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "zero"], ["n"], axis=0),
        helper.make_node("Unsqueeze", ["n", "axes"], ["n1"]),
        helper.make_node("Concat", ["n1", "minus1"], ["target"], axis=0),
        helper.make_node("Mul", ["n", "two"], ["n2"]),
        helper.make_node("Reshape", ["x", "target"], ["y"]),
    ]
    inits = [
        numpy_helper.from_array(np.array(0, np.int64), "zero"),
        numpy_helper.from_array(np.array([0], np.int64), "axes"),
        numpy_helper.from_array(np.array([-1], np.int64), "minus1"),
        numpy_helper.from_array(np.array(2, np.int64), "two"),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None), helper.make_tensor_value_info("n2", TensorProto.INT64, None)],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    module = lamina.from_onnx(model)
    names = [op.name for op in module.walk() if op.name.startswith("relay.") and op.name != "relay.constant"]
    assert names == ["relay.reshape"]
    x = rand(2, 3, 4)
    y, n2 = lamina.compile(model).run(x)
    np.testing.assert_array_equal(y, x.reshape(2, 12))
    assert n2 == 4


def test_every_converter_is_exercised_here():
    """Keep the op tests complete: every registered ONNX op appears in a test of
    this file or of its siblings `test_onnx_*.py` (algorithm, recurrent, ...)."""
    import re
    from pathlib import Path

    text = "".join(p.read_text() for p in sorted(Path(__file__).parent.glob("test_onnx_*.py")))
    mentioned = set(re.findall(r'"([A-Z][A-Za-z0-9]+)"', text))
    mentioned |= set(UNARY_FLOAT) | set(REDUCE) | set(BINARY_ARITH) | set(COMPARE)
    missing = sorted(k for k in CONVERTERS if k.split(":")[-1] not in mentioned)  # ("<domain>:<type>" by its type)
    assert not missing, f"converters without a test in tests/test_onnx_*.py: {missing}"


# ------------------------------------------------------------------ errors
def test_converter_errors_name_the_node():
    x = rand(2, 3)
    model, _ = model_of([Case("Col2Im", [rand(1, 4, 4), np.array([3, 3], np.int64), Const(np.array([2, 2], np.int64))])], 18)
    with pytest.raises(lamina.FrontendError, match=r"ONNX node 'case0' \(Col2Im, opset 18\): input #1 \('c0_i1'\) must be a constant"):
        lamina.from_onnx(model, run_time_values=False)
    model, _ = model_of([Case("Concat", [x, rand(3, 3)], {"axis": 1})], 14)
    with pytest.raises(lamina.FrontendError, match=r"'case0' \(Concat.*relay.concatenate: .* differ outside axis 1"):
        lamina.from_onnx(model)


def test_shape_from_a_graph_input_names_that_input():
    nodes = [helper.make_node("Add", ["n", "one"], ["m"]), helper.make_node("Col2Im", ["x", "m", "block"], ["y"])]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("n", TensorProto.INT64, [2]), helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(np.array(1, np.int64), "one"), numpy_helper.from_array(np.array([2, 2], np.int64), "block")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    with pytest.raises(lamina.FrontendError, match=r"graph input #0 \('n'\) must be a constant: input #1 \('m'\)"):
        lamina.from_onnx(model, run_time_values=False)


@pytest.mark.parametrize(
    ("case", "opset", "message"),
    [
        (Case("Gelu", [rand(3)], {"approximate": "erf"}), 20, 'approximate="erf" is not supported'),
        (Case("Conv", [rand(1, 1, 4, 4), rand(1, 1, 2, 2)], {"auto_pad": "SAME"}), 11, 'auto_pad="SAME" is not supported'),
        (Case("Resize", [rand(1, 1, 2, 2), None, Const(np.array([1, 1, 2, 2], np.float32))], {"mode": "bicubic"}), 13, 'mode="bicubic" is not supported'),
        (Case("Pad", [rand(2, 2), Const(np.array([1, 1, 1, 1], np.int64))], {"mode": "mirror"}), 13, 'mode="mirror" is not supported'),
        (Case("Cast", [rand(2)], {"to": TensorProto.STRING}), 13, "element type STRING is not supported"),
        (Case("Constant", [], {"sparse_value": helper.make_sparse_tensor(numpy_helper.from_array(np.ones(1, np.float32)), numpy_helper.from_array(np.zeros(1, np.int64)), [2])}), 13, "sparse_value"),
    ],
)
def test_unsupported_attribute_values(case, opset, message):
    model, _ = model_of([case], opset)
    with pytest.raises(lamina.UnsupportedOpError, match=message) as e:
        lamina.from_onnx(model)
    assert isinstance(e.value, NotImplementedError)
    assert "ONNX node 'case0'" in str(e.value)


def test_converted_shapes_are_checked_against_onnx_inference(monkeypatch):
    """A converter that gets a shape wrong is caught at its node."""
    from lamina.dialects import relay
    from lamina.frontends import onnx as frontend

    def wrong(ctx):
        return [ctx.emit(relay.TransposeOp(ctx.input(0), perm=relay.i64_array([1, 0])))]

    monkeypatch.setitem(frontend.CONVERTERS, "Relu", wrong)
    model, _ = model_of([Case("Relu", [rand(2, 3)])], 14)
    with pytest.raises(lamina.FrontendError, match=r"'case0' \(Relu.*shape \[3, 2\] but ONNX infers \[2, 3\]"):
        lamina.from_onnx(model)


# -------------------------------------------------------------- round trip
def test_imported_module_round_trips_through_text():
    """ONNX -> relay -> text -> parse -> text is the identity, generic form too."""
    x = rand(1, 3, 8, 8)
    cases = [
        Case("Conv", [x, rand(4, 3, 3, 3), rand(4)], {"pads": [1, 1, 1, 1]}),
        Case("MaxPool", [x], {"kernel_shape": [2, 2], "strides": [2, 2]}, outputs=2),
        Case("Split", [x], {"axis": 1, "num_outputs": 3}, outputs=3),
        Case("Resize", [x, None, Const(np.array([1, 1, 2, 2], np.float32))], {"mode": "linear"}),
        Case("Pad", [x, Const(np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64))], {"mode": "reflect"}),
        Case("ReduceMean", [x, Const(np.array([2, 3], np.int64))]),
        Case("Cast", [x], {"to": TensorProto.INT8}),
        Case("ArgMax", [x], {"axis": 1, "select_last_index": 1}),
        Case("Clip", [x, Const(np.float32(0)), Const(np.float32(6))]),
        Case("LayerNormalization", [x, rand(8)]),
        Case("Where", [rand(8, dtype=np.bool_), x, rand(1)]),
        Case("Slice", [x, Const(np.array([7])), Const(np.array([-9])), Const(np.array([3])), Const(np.array([-2]))]),
    ]
    model, _ = model_of(cases, 18)
    module = lamina.from_onnx(model)
    for generic in (False, True):
        text = lamina.print_ir(module, generic=generic, resources_limit=None)
        assert lamina.print_ir(lamina.parse(text), generic=generic, resources_limit=None) == text


# ------------------------------------------------ decomposed activations
def test_decomposed_activations():
    x = np.concatenate([rand(18), SPECIAL]).astype(np.float32).reshape(4, 7)
    i = rand(3, 5, dtype=np.int32, low=-4, high=4)
    cases = [
        Case("IsNaN", [x]),
        Case("IsInf", [x]),
        Case("IsInf", [x], {"detect_negative": 0}),
        Case("IsInf", [x], {"detect_positive": 0}),
        Case("Celu", [x]),
        Case("Celu", [x], {"alpha": 2.0}),
        Case("Mish", [rand(3, 4)]),
        Case("ThresholdedRelu", [x]),
        Case("ThresholdedRelu", [x], {"alpha": 0.5}),
        Case("Shrink", [x]),
        Case("Shrink", [x], {"lambd": 1.5, "bias": 1.5}),
        Case("Shrink", [i], {"lambd": 1.5, "bias": 1.0}),
    ]
    check(cases, opset=18, rtol=1e-5, atol=1e-6)


def test_swish():
    x = rand(3, 4)
    check([Case("Swish", [x]), Case("Swish", [x], {"alpha": 0.5})], opset=24)


def test_decomposed_normalizations():
    x = rand(2, 3, 4, 5)
    cases = [
        Case("MeanVarianceNormalization", [x]),
        Case("MeanVarianceNormalization", [x], {"axes": [1, -1]}),
        Case("LpNormalization", [x]),
        Case("LpNormalization", [np.abs(x)], {"axis": 1, "p": 1}),
        Case("LpNormalization", [np.zeros((2, 3), np.float32)], {"axis": 0}),
    ]
    check(cases, opset=18, rtol=1e-4, atol=1e-5)
    rms = [
        Case("RMSNormalization", [x, rand(5)]),
        Case("RMSNormalization", [x, rand(4, 5)], {"axis": 2, "epsilon": 1e-3}),
    ]
    check(rms, opset=23, rtol=1e-5, atol=1e-5)


def test_attention():
    q4, k4, v4 = rand(2, 4, 3, 8), rand(2, 2, 5, 8), rand(2, 2, 5, 6)
    q3, k3, v3 = rand(2, 3, 16), rand(2, 5, 8), rand(2, 5, 8)
    past_k, past_v = rand(2, 2, 2, 8), rand(2, 2, 2, 6)
    bool_mask = rand(3, 5, dtype=np.bool_)
    bool_mask[1] = False  # a fully masked row: zeros
    cases = [
        Case("Attention", [q4, k4, v4]),
        Case("Attention", [q4, k4, v4], {"scale": 0.3, "softcap": 2.0}),
        Case("Attention", [q4, k4, v4, rand(2, 1, 3, 5)], {"qk_matmul_output_mode": 2}, 4),
        Case("Attention", [q4, k4, v4, bool_mask], {"qk_matmul_output_mode": 3}, 4),
        Case("Attention", [q4, k4, v4, rand(3, 4)], {"is_causal": 1}),
        Case("Attention", [q4, k4, v4, None, past_k, past_v], {"is_causal": 1}, 3),
        Case("Attention", [q4, k4, v4, bool_mask[:, :2], past_k, past_v], {}, 4),
        Case("Attention", [q3, k3, v3], {"q_num_heads": 4, "kv_num_heads": 2}),
        Case("Attention", [q3[..., :8], k3, v3], {"q_num_heads": 2, "kv_num_heads": 2, "is_causal": 1}),
    ]
    check(cases, opset=23, rtol=1e-5, atol=1e-5)
    windows = [
        Case("Attention", [q4, k4, v4], {"left_window_size": 1}),
        Case("Attention", [q4, k4, v4, rand(3, 5)], {"left_window_size": 1, "right_window_size": 0}),
        Case("Attention", [q4, k4, v4, None, past_k, past_v], {"is_causal": 1, "left_window_size": 2}, 3),
    ]
    check(windows, opset=25, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", INTS)
def test_bitwise_ops(dtype):
    a = rand(3, 4, dtype=dtype, low=0 if dtype == np.uint8 else -100, high=100)
    b = rand(4, dtype=dtype, low=0 if dtype == np.uint8 else -100, high=100)
    cases = [Case(op, [a, b]) for op in ("BitwiseAnd", "BitwiseOr", "BitwiseXor")]
    cases.append(Case("BitwiseNot", [a]))
    check(cases, opset=18)


def test_bit_shift():
    x = rand(3, 4, dtype=np.uint8, low=0, high=255)
    s = np.array([0, 1, 7, 3], np.uint8)
    check([Case("BitShift", [x, s], {"direction": d}) for d in ("LEFT", "RIGHT")], opset=11)


def test_hardmax_eye_like_depth_space():
    x = rand(2, 3, 4)
    x[0, 0, :2] = 5.0  # ties: the first wins
    cases = [Case("Hardmax", [x]), Case("Hardmax", [x], {"axis": 1})]
    cases += [Case("EyeLike", [rand(3, 4)]), Case("EyeLike", [rand(4, 3)], {"k": -1, "dtype": 7})]
    y = rand(2, 8, 3, 2)
    cases += [
        Case("DepthToSpace", [y], {"blocksize": 2}),
        Case("DepthToSpace", [y], {"blocksize": 2, "mode": "CRD"}),
        Case("SpaceToDepth", [rand(2, 3, 4, 6)], {"blocksize": 2}),
    ]
    check(cases, opset=13)
    z = rand(2, 3, 4, 6)
    s2d = [Case("SpaceToDepth", [z], {"blocksize": 2, "mode": m}) for m in ("DCR", "CRD")]
    check(s2d, opset=25)
    # onnx.reference ignores the pre-13 2-D coercion; compare where it agrees.
    check([Case("Hardmax", [x[0]]), Case("Hardmax", [x], {"axis": 2})], opset=11)


def test_group_normalization_and_cumsum():
    x = rand(2, 6, 3, 2)
    gn = [
        Case("GroupNormalization", [x, rand(6), rand(6)], {"num_groups": 3}),
        Case("GroupNormalization", [x, rand(6), rand(6)], {"num_groups": 2, "epsilon": 1e-2}),
    ]
    check(gn, opset=21, rtol=1e-4, atol=1e-5)
    check([Case("GroupNormalization", [x, rand(3), rand(3)], {"num_groups": 3})], opset=18,
          rtol=1e-4, atol=1e-5)
    c = []
    for dtype in (np.float32, np.int32, np.int64):
        v = rand(3, 4, 5, dtype=dtype)
        for axis in (0, 1, -1):
            for attrs in ({}, {"exclusive": 1}, {"reverse": 1}, {"exclusive": 1, "reverse": 1}):
                c.append(Case("CumSum", [v, Const(np.array(axis, np.int32))], attrs))
    check(c, opset=14, rtol=1e-5, atol=1e-5)


def test_losses():
    x, x3 = rand(4, 5), rand(3, 5, 2, 2)
    t = np.array([0, 4, 2, 1], np.int64)
    t3 = RNG.integers(0, 5, (3, 2, 2)).astype(np.int64)
    t3[0, 0, 0] = 2
    w = rand(5, low=0.1, high=2)
    cases = []
    for op in ("NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"):
        for red in ("none", "sum", "mean"):
            cases += [
                Case(op, [x, t], {"reduction": red}),
                Case(op, [x, t, w], {"reduction": red}),
                Case(op, [x3, t3, w], {"reduction": red, "ignore_index": 2}),
                Case(op, [x3, t3], {"reduction": red, "ignore_index": 2}),
            ]
    cases.append(Case("SoftmaxCrossEntropyLoss", [x3, t3], {}, 2))
    check(cases, opset=13, rtol=1e-5, atol=1e-5)


# ----------------------------------------------------------------- sampling
GRID_MODES = list(
    itertools.product(("nearest", "linear", "cubic"), ("zeros", "border", "reflection"), (0, 1))
)


def _grid_sample_cases(x: np.ndarray, grid: np.ndarray, opset: int = 20) -> list[Case]:
    """Every mode x padding_mode x align_corners. A single-pixel axis with
    align_corners has no reflection span (the reference divides by zero there
    when a linear or cubic tap leaves it), so those cases are left out."""
    single = 1 in x.shape[2:]
    return [
        Case("GridSample", [x, grid], {"mode": m, "padding_mode": p, "align_corners": a})
        for m, p, a in GRID_MODES
        if not (single and a and p == "reflection" and m != "nearest")
    ]


@pytest.mark.parametrize(
    ("xshape", "gshape"),
    [
        ((2, 3, 7), (2, 5, 1)),  # 1-D
        ((2, 3, 4, 5), (2, 3, 6, 2)),
        ((2, 1, 1, 5), (2, 4, 3, 2)),  # a single-pixel axis
        ((1, 2, 3, 4, 5), (1, 2, 3, 2, 3)),  # 3-D
    ],
)
def test_grid_sample_modes_paddings_and_alignment(xshape, gshape):
    """Grid points inside and well outside the image. The reference computes
    cubic weights in f32, where they cancel: agreement is to about 1e-5."""
    x, grid = rand(*xshape), rand(*gshape, low=-1.6, high=1.6)
    check(_grid_sample_cases(x, grid), opset=20, rtol=1e-5, atol=2e-5)


def test_grid_sample_far_points_and_ties():
    """Points many images away (reflection folds them back) and points exactly
    between pixels (nearest rounds half to even)."""
    x = rand(1, 2, 4, 3)
    check(_grid_sample_cases(x, rand(1, 4, 4, 2, low=-9, high=9)), opset=20, rtol=1e-5, atol=2e-5)
    lin = np.linspace(-1, 1, 9, dtype=np.float32)
    ties = np.stack(np.meshgrid(lin, lin), -1)[None]
    check(_grid_sample_cases(rand(1, 1, 4, 4), ties), opset=20, rtol=1e-5, atol=2e-5)


def test_grid_sample_dtypes_and_opset_16():
    grid = rand(2, 3, 4, 2, low=-1.3, high=1.3)
    x64 = rand(2, 2, 4, 3, dtype=np.float64)
    cases = _grid_sample_cases(x64, grid) + _grid_sample_cases(x64, grid.astype(np.float64))
    check(cases, opset=20, rtol=1e-5, atol=2e-5)  # f32 coordinates and weights, as the reference
    ints = []  # integer and bool data: nearest only
    for dtype in (*INTS, np.bool_):
        x = rand(2, 2, 3, 5, dtype=dtype, low=0, high=100)
        ints += [Case("GridSample", [x, grid], {"mode": "nearest", "padding_mode": p, "align_corners": a})
                 for p in ("zeros", "border", "reflection") for a in (0, 1)]
    check(ints, opset=20)
    half = [Case("GridSample", [rand(1, 2, 3, 5, dtype=np.float16), grid[:1].astype(np.float16)], {"mode": m})
            for m in ("nearest", "linear", "cubic")]
    check(half, opset=20, rtol=2e-2, atol=2e-2)
    # Opset 16 (4-D only) names the modes bilinear and bicubic; its defaults are
    # bilinear, zeros. The reference knows nearest only, so the others are
    # compared with their opset-20 spelling.
    x = rand(2, 2, 3, 5)
    check([Case("GridSample", [x, grid], {"mode": "nearest", "padding_mode": "reflection"})], opset=16)
    for old, new in (("bilinear", "linear"), ("bicubic", "cubic"), (None, "linear")):
        attrs = {"padding_mode": "border", "align_corners": 1}
        m16, feeds = model_of([Case("GridSample", [x, grid], attrs | ({"mode": old} if old else {}))], 16)
        m20, _ = model_of([Case("GridSample", [x, grid], attrs | {"mode": new})], 20)
        want = ReferenceEvaluator(m20).run(None, dict(zip(["c0_i0", "c0_i1"], feeds, strict=True)))
        np.testing.assert_allclose(lamina.compile(m16).run(*feeds)[0], want[0], rtol=1e-5, atol=2e-5)


def test_affine_grid_2d_3d_and_into_grid_sample():
    """AffineGrid at every alignment, dtype and odd size (a single-pixel axis with
    align_corners makes the reference divide by zero; lamina puts it at 0)."""
    cases, half = [], []
    for size in ([2, 3, 4, 5], [1, 1, 1, 7], [3, 2, 6, 1], [2, 1, 3, 4, 5], [1, 2, 1, 3, 1]):
        r = len(size) - 2
        for align in (0, 1):
            if align and 1 in size[2:]:
                continue
            for dtype in (np.float32, np.float64, np.float16):
                theta = rand(size[0], r, r + 1, dtype=dtype)
                case = Case("AffineGrid", [theta, Const(np.array(size, np.int64))], {"align_corners": align})
                (half if dtype == np.float16 else cases).append(case)
    check(cases, opset=20, rtol=1e-5, atol=1e-5)
    check(half, opset=20, rtol=2e-3, atol=2e-3)
    # The usual pairing: a spatial transformer.
    theta = np.array([[[0.8, -0.3, 0.1], [0.2, 0.9, -0.2]]], np.float32)
    nodes = [
        helper.make_node("AffineGrid", ["theta", "size"], ["grid"], align_corners=0),
        helper.make_node("GridSample", ["x", "grid"], ["y"], mode="linear"),
    ]
    graph = helper.make_graph(
        nodes,
        "stn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 5, 6]),
         helper.make_tensor_value_info("theta", TensorProto.FLOAT, [1, 2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(np.array([1, 3, 4, 7], np.int64), "size")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])
    model.ir_version = 9
    x = rand(1, 3, 5, 6)
    want = ReferenceEvaluator(model).run(None, {"x": x, "theta": theta})[0]
    np.testing.assert_allclose(lamina.compile(model).run(x, theta)[0], want, rtol=1e-5, atol=1e-5)


def _col2im(n: int, c: int, image: list[int], block: list[int], dtype: Any = np.float32,
            **attrs: list[int]) -> Case:
    """A Col2Im case whose data has the right number of blocks."""
    nd = len(image)
    s, d = attrs.get("strides", [1] * nd), attrs.get("dilations", [1] * nd)
    p = attrs.get("pads", [0] * 2 * nd)
    blocks = [(image[i] + p[i] + p[i + nd] - d[i] * (block[i] - 1) - 1) // s[i] + 1 for i in range(nd)]
    x = rand(n, c * int(np.prod(block)), int(np.prod(blocks)), dtype=dtype)
    shapes = [Const(np.array(image, np.int64)), Const(np.array(block, np.int64))]
    return Case("Col2Im", [x, *shapes], attrs)


def test_col2im():
    cases = [
        _col2im(1, 1, [5, 5], [1, 5]),
        _col2im(2, 3, [5, 6], [2, 3]),
        _col2im(1, 2, [7, 5], [3, 2], strides=[2, 1]),
        _col2im(1, 2, [7, 6], [3, 2], strides=[2, 3], pads=[1, 0, 2, 1]),
        _col2im(2, 1, [9, 8], [2, 3], strides=[3, 2], pads=[1, 2, 0, 1], dilations=[2, 2]),
        _col2im(1, 2, [5, 5], [3, 3], strides=[4, 4]),  # pixels no block covers
        _col2im(1, 1, [1, 4], [1, 2]),
        _col2im(1, 2, [8], [3], strides=[2], pads=[1, 1]),  # 1-D
        _col2im(1, 1, [3, 4, 5], [2, 2, 2], strides=[1, 2, 1], dilations=[1, 1, 2]),  # 3-D
        _col2im(1, 2, [6, 5], [2, 2], np.float64, strides=[2, 1], pads=[1, 1, 1, 1]),
        _col2im(1, 2, [6, 5], [2, 2], np.int32),
        _col2im(2, 2, [6, 5], [2, 2], np.int64, strides=[2, 2]),
        _col2im(1, 1, [4, 4], [2, 2], np.uint8, strides=[2, 2]),
    ]
    check(cases, opset=18, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "attrs", [{}, {"strides": [2, 1], "pads": [1, 0, 2, 1]}, {"strides": [3, 2], "dilations": [2, 2], "pads": [1, 2, 0, 1]}]
)
def test_col2im_with_shapes_given_at_run_time(attrs):
    """image_shape and block_shape as graph inputs, the input's dims symbolic:
    one compile, run at several images, blocks and channels against
    onnx.reference (pixels no block covers are 0); shapes that do not tile the
    input stop the run with the node's name."""
    inputs = [
        helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", "ck", "l"]),
        helper.make_tensor_value_info("image", TensorProto.INT64, [2]),
        helper.make_tensor_value_info("block", TensorProto.INT64, [2]),
    ]
    node = helper.make_node("Col2Im", ["x", "image", "block"], ["y"], name="fold", **attrs)
    graph = helper.make_graph([node], "g", inputs, [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    exe = lamina.compile(model)
    reference = ReferenceEvaluator(model)
    for n, c, image, block in [(1, 1, [6, 9], [1, 3]), (2, 3, [7, 6], [2, 3]), (1, 2, [9, 8], [3, 2]), (1, 1, [4, 5], [1, 1])]:
        x = _col2im(n, c, image, block, **attrs).inputs[0]
        feeds = {"x": x, "image": np.array(image, np.int64), "block": np.array(block, np.int64)}
        (got,) = exe.run(**feeds)
        (want,) = reference.run(None, feeds)
        assert got.shape == want.shape == (n, c, *image)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    feeds = {"x": rand(1, 4, 3), "image": np.array([5, 5], np.int64), "block": np.array([2, 2], np.int64)}
    with pytest.raises(lamina.InputError, match=r"ONNX node 'fold' \(Col2Im, opset 18\): the image and block shapes .* must tile the input"):
        exe.run(**feeds)


def test_bitcast():
    f = np.concatenate([rand(10), SPECIAL]).reshape(4, 5)
    big = {"low": -(2**62), "high": 2**62}
    cases = [
        Case("BitCast", [f], {"to": TensorProto.INT32}),
        Case("BitCast", [rand(3, 4, dtype=np.int32, low=-(2**31), high=2**31 - 1)], {"to": TensorProto.FLOAT}),
        Case("BitCast", [f.astype(np.float64)], {"to": TensorProto.INT64}),
        Case("BitCast", [rand(7, dtype=np.int64, **big)], {"to": TensorProto.DOUBLE}),
        Case("BitCast", [rand(7, dtype=np.int8, low=-128, high=127)], {"to": TensorProto.UINT8}),
        Case("BitCast", [rand(7, dtype=np.uint8, low=0, high=255)], {"to": TensorProto.INT8}),
        Case("BitCast", [rand(2, 3, dtype=np.bool_)], {"to": TensorProto.UINT8}),
        Case("BitCast", [rand(2, 3, dtype=np.bool_)], {"to": TensorProto.INT8}),
        Case("BitCast", [rand(2, 3, dtype=np.uint8, low=0, high=1)], {"to": TensorProto.BOOL}),
        Case("BitCast", [f.astype(np.float16)], {"to": TensorProto.INT16}),
        Case("BitCast", [rand(5, dtype=np.int16, low=-30000, high=30000)], {"to": TensorProto.FLOAT16}),
        Case("BitCast", [np.float32(1.5)], {"to": TensorProto.INT32}),  # a scalar
        Case("BitCast", [rand(2, 0, 3)], {"to": TensorProto.INT32}),  # empty
        Case("BitCast", [rand(2, 3)], {"to": TensorProto.FLOAT}),  # the identity
    ]
    check(cases, opset=26)


@pytest.mark.parametrize(
    ("case", "opset", "error", "message"),
    [
        (Case("GridSample", [rand(1, 1, 3, 3), rand(1, 2, 2, 2)], {"mode": "bilinear"}), 20,
         lamina.UnsupportedOpError, 'mode="bilinear" is not supported; at opset 20 it is one of linear, nearest, cubic'),
        (Case("GridSample", [rand(1, 1, 3, 3), rand(1, 2, 2, 2)], {"padding_mode": "wrap"}), 20,
         lamina.UnsupportedOpError, 'padding_mode="wrap" is not supported'),
        (Case("GridSample", [rand(1, 1, 3, 3, dtype=np.int32), rand(1, 2, 2, 2)], {}), 20,
         lamina.UnsupportedOpError, "X must be floating-point, got int32"),
        (Case("GridSample", [rand(1, 1, 3, 3), rand(1, 2, 2, 3)], {}), 20,
         lamina.FrontendError, r"grid tensor<1x2x2x3xf32> must have the rank of the data"),
        (Case("GridSample", [rand(1, 1, 3), rand(1, 2, 1)], {"mode": "nearest"}), 16,
         lamina.FrontendError, r"X must be 4-D before opset 20, got shape \[1, 1, 3\]"),
        (Case("AffineGrid", [rand(2, 2, 3), Const(np.array([1, 1, 3, 3]))], {}), 20,
         lamina.FrontendError, r"theta of shape \[2, 2, 3\] must be \(1, 2, 3\)"),
        (Case("Col2Im", [rand(1, 4, 5), Const(np.array([3, 3])), Const(np.array([2, 2]))], {}), 18,
         lamina.FrontendError, r"axis 2 \(5\) must be the number of blocks, 2 x 2 = 4"),
        (Case("Col2Im", [rand(1, 4, 4), Const(np.array([3, 3])), Const(np.array([2]))], {}), 18,
         lamina.FrontendError, r"block_shape and image_shape must have one value per spatial axis each; block_shape has 1"),
        (Case("Col2Im", [rand(1, 4, 4), Const(np.array([3, 3])), Const(np.array([2, 2]))], {"pads": [1, 1]}), 18,
         lamina.FrontendError, r"pads \[1, 1\] needs 4 values for 2 spatial axes"),
        (Case("BitCast", [rand(3)], {"to": TensorProto.INT64}), 26,
         lamina.FrontendError, r"cannot reinterpret float32 \(32 bits\) as INT64 \(64 bits\)"),
    ],
)
def test_sampling_errors_name_the_node(case, opset, error, message):
    model, _ = model_of([case], opset)
    with pytest.raises(error, match=message) as e:
        lamina.from_onnx(model)
    assert "ONNX node 'case0'" in str(e.value)
