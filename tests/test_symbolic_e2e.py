"""Models compiled once with symbolic dims, run at many sizes: differential tests
against onnx.reference and against the same model compiled for static shapes."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto as T
from onnx import helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import lamina
from lamina.tools.models import resnet_mini, transformer_block

vi = helper.make_tensor_value_info
rng = np.random.default_rng(0)


def _model(nodes: list, ins: list, outs: list, inits: list | None = None) -> onnx.ModelProto:  # type: ignore[type-arg]
    g = helper.make_graph(nodes, "g", ins, outs, inits or [])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    return m


def _check(m: onnx.ModelProto, feeds_at: list[dict[str, np.ndarray]], rtol: float = 1e-5) -> None:
    exe = lamina.compile(m)  # once
    ref = ReferenceEvaluator(m)
    for feeds in feeds_at:
        got = exe.run(**feeds)
        want = ref.run(None, feeds)
        for g, w in zip(got, want, strict=True):
            assert g.shape == w.shape
            np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol)


def _x(*shape: int, dtype: type = np.float32) -> np.ndarray:
    return rng.standard_normal(shape).astype(dtype)


W = numpy_helper.from_array(_x(64, 32), "w")
B = numpy_helper.from_array(_x(32), "b")
SIZES = [(1, 1), (2, 7), (3, 33)]


def test_dense_over_batch_and_seq() -> None:
    m = _model(
        [helper.make_node("MatMul", ["x", "w"], ["t"]), helper.make_node("Add", ["t", "b"], ["y"])],
        [vi("x", T.FLOAT, ["b", "s", 64])],
        [vi("y", T.FLOAT, ["b", "s", 32])],
        [W, B],
    )
    _check(m, [{"x": _x(b, s, 64)} for b, s in SIZES], rtol=1e-4)


def test_attention_core_over_seq() -> None:
    """Batched matmuls whose reduction runs over `seq`, and a softmax along it."""
    m = _model(
        [
            helper.make_node("MatMul", ["q", "k"], ["s"]),
            helper.make_node("Softmax", ["s"], ["p"], axis=-1),
            helper.make_node("MatMul", ["p", "v"], ["y"]),
        ],
        [vi("q", T.FLOAT, ["b", 4, "s", 16]), vi("k", T.FLOAT, ["b", 4, 16, "s"]), vi("v", T.FLOAT, ["b", 4, "s", 16])],
        [vi("y", T.FLOAT, ["b", 4, "s", 16])],
    )
    _check(m, [{"q": _x(b, 4, s, 16), "k": _x(b, 4, 16, s), "v": _x(b, 4, s, 16)} for b, s in SIZES], rtol=1e-4)


def test_layer_norm_reshape_transpose() -> None:
    lw, lb = numpy_helper.from_array(_x(64), "lw"), numpy_helper.from_array(_x(64), "lb")
    shp = numpy_helper.from_array(np.array([0, 0, 4, 16], np.int64), "shp")
    m = _model(
        [
            helper.make_node("LayerNormalization", ["x", "lw", "lb"], ["n"], axis=-1),
            helper.make_node("Reshape", ["n", "shp"], ["r"]),
            helper.make_node("Transpose", ["r"], ["y"], perm=[0, 2, 1, 3]),
        ],
        [vi("x", T.FLOAT, ["b", "s", 64])],
        [vi("y", T.FLOAT, ["b", 4, "s", 16])],
        [lw, lb, shp],
    )
    _check(m, [{"x": _x(b, s, 64)} for b, s in SIZES])


def test_position_ids_from_the_sizes() -> None:
    """BERT's embeddings: a constant table sliced to `seq`, `arange(seq)`,
    an Expand to the symbolic shape; the slice's bound is checked at run time."""
    table = numpy_helper.from_array(np.arange(40, dtype=np.int64).reshape(1, 40) * 3, "table")
    zero, one = (numpy_helper.from_array(np.array([v], np.int64), n) for v, n in ((0, "zero"), (1, "one")))
    m = _model(
        [
            helper.make_node("Shape", ["x"], ["shape"]),
            helper.make_node("Slice", ["shape", "one", "two"], ["seq1"]),
            helper.make_node("Slice", ["table", "zero", "seq1", "one", "one"], ["pos"]),
            helper.make_node("Squeeze", ["seq1"], ["seq"]),
            helper.make_node("Range", ["z0", "seq", "o0"], ["ar"]),
            helper.make_node("Add", ["pos", "ar"], ["sum"]),
            helper.make_node("Expand", ["sum", "shape"], ["y"]),
        ],
        [vi("x", T.INT64, ["b", "s"])],
        [vi("y", T.INT64, ["b", "s"])],
        [
            table, zero, one,
            numpy_helper.from_array(np.array([2], np.int64), "two"),
            numpy_helper.from_array(np.array(0, np.int64), "z0"),
            numpy_helper.from_array(np.array(1, np.int64), "o0"),
        ],
    )
    _check(m, [{"x": np.zeros((b, s), np.int64)} for b, s in ((1, 1), (3, 5), (2, 40))])
    with pytest.raises(lamina.InputError, match=r"s - 40 <= 0 must hold"):
        lamina.compile(m).run(np.zeros((1, 41), np.int64))


def _torchscript_expand(value: str, target: list[str], out: str) -> list[onnx.NodeProto]:
    """How TorchScript's exporter writes `x.expand(*sizes)`: the sizes made
    safe against -1 (`Where(Equal(sizes, -1), ones, sizes)`), then Expand."""
    return [
        helper.make_node("Concat", target, [f"{out}_sizes"], axis=0),
        helper.make_node("Shape", [f"{out}_sizes"], [f"{out}_n"]),
        helper.make_node("ConstantOfShape", [f"{out}_n"], [f"{out}_ones"],
                         value=numpy_helper.from_array(np.array([1], np.int64))),
        helper.make_node("Mul", [f"{out}_ones", "minus_one"], [f"{out}_neg"]),
        helper.make_node("Equal", [f"{out}_sizes", f"{out}_neg"], [f"{out}_is_neg"]),
        helper.make_node("Where", [f"{out}_is_neg", f"{out}_ones", f"{out}_sizes"], [f"{out}_safe"]),
        helper.make_node("Expand", [value, f"{out}_safe"], [out]),
    ]


def test_exporter_shape_chains_keep_the_inputs_sizes() -> None:
    """BERT's and DistilBERT's mask and token-type expands, as the TorchScript
    exporter writes them (Shape -> Gather -> Unsqueeze -> Concat -> Equal/Where
    -> Expand): the Expand's dims are `batch` and `seq` themselves, so adding it
    to the input broadcasts (it was refused: fresh dims that might differ)."""
    axis0 = numpy_helper.from_array(np.array([0], np.int64), "axis0")
    m = _model(
        [
            helper.make_node("Shape", ["x"], ["shape"]),
            helper.make_node("Gather", ["shape", "i0"], ["batch"], axis=0),
            helper.make_node("Gather", ["shape", "i1"], ["seq"], axis=0),
            helper.make_node("Unsqueeze", ["batch", "axis0"], ["batch1"]),
            helper.make_node("Unsqueeze", ["seq", "axis0"], ["seq1"]),
            *_torchscript_expand("row", ["batch1", "seq1", "width"], "wide"),
            helper.make_node("Add", ["x", "wide"], ["y"]),
        ],
        [vi("x", T.FLOAT, ["batch", "seq", 8])],
        [vi("y", T.FLOAT, ["batch", "seq", 8])],
        [
            axis0,
            numpy_helper.from_array(np.array(0, np.int64), "i0"),
            numpy_helper.from_array(np.array(1, np.int64), "i1"),
            numpy_helper.from_array(np.array([8], np.int64), "width"),
            numpy_helper.from_array(np.array([-1], np.int64), "minus_one"),
            numpy_helper.from_array(_x(1, 1, 8), "row"),
        ],
    )
    exe = lamina.compile(m)
    assert exe.outputs[0].shape == exe.inputs[0].shape  # (batch, seq, 8): no fresh dims
    _check(m, [{"x": _x(b, s, 8)} for b, s in ((1, 1), (2, 7), (3, 40))])


def test_transformer_block_compiled_once_matches_static() -> None:
    d, h, ff = 64, 4, 128
    once = lamina.compile(transformer_block("batch", "seq", d_model=d, heads=h, d_ff=ff))
    for b, s in ((1, 1), (1, 7), (3, 20)):
        x = _x(b, s, d)
        static = lamina.compile(transformer_block(b, s, d_model=d, heads=h, d_ff=ff))
        np.testing.assert_allclose(once.run(x)[0], static.run(x)[0], rtol=1e-4, atol=1e-4)


def test_convnet_over_a_symbolic_batch() -> None:
    m = resnet_mini()
    for v in (m.graph.input[0], m.graph.output[0]):
        v.type.tensor_type.shape.dim[0].dim_param = "N"
    once = lamina.compile(m)
    name = m.graph.input[0].name
    for n in (1, 3):
        x = _x(n, 3, 128, 128)
        static = lamina.compile(m, input_shapes={name: [n, 3, 128, 128]})
        # (tiles differ, so sums differ in order: the zoo's tolerance)
        np.testing.assert_allclose(once.run(x)[0], static.run(x)[0], rtol=1e-4, atol=1e-4)


@settings(max_examples=12, deadline=None)
@given(st.integers(1, 9), st.integers(1, 70), st.sampled_from([0, 1]))
def test_reductions_and_broadcasts_at_any_size(n: int, m: int, axis: int) -> None:
    """A model with a reduction along a symbolic axis and a broadcast back over
    it agrees with numpy at every size (one compile per axis, cached)."""
    exe = _compiled_norm(axis)
    x = _x(n, m)
    mean = x.mean(axis=axis, keepdims=True)
    np.testing.assert_allclose(exe.run(x)[0], x - mean, rtol=1e-5, atol=1e-5)


_NORMS: dict[int, lamina.CompiledModel] = {}


def _compiled_norm(axis: int) -> lamina.CompiledModel:
    if axis not in _NORMS:
        m = _model(
            [
                helper.make_node("ReduceMean", ["x"], ["m"], axes=[axis], keepdims=1),
                helper.make_node("Sub", ["x", "m"], ["y"]),
            ],
            [vi("x", T.FLOAT, ["n", "m"])],
            [vi("y", T.FLOAT, ["n", "m"])],
        )
        m.opset_import[0].version = 13
        _NORMS[axis] = lamina.compile(m)
    return _NORMS[axis]


def test_shape_mismatch_names_the_size() -> None:
    m = _model(
        [helper.make_node("Add", ["x", "y"], ["z"])],
        [vi("x", T.FLOAT, ["n", 4]), vi("y", T.FLOAT, ["n", 4])],
        [vi("z", T.FLOAT, ["n", 4])],
    )
    exe = lamina.compile(m)
    with pytest.raises(lamina.InputError, match=r"input 'y' axis 0 is 3, but input 'x' axis 0 gave size 'n' the value 2"):
        exe.run(_x(2, 4), _x(3, 4))


@pytest.mark.parametrize("target", ["blas", "c"])
def test_byoc_targets_leave_symbolic_ops_to_lamina(target: str) -> None:
    """BYOC codegens compile static shapes: ops over symbolic dims stay in lamina
    (annotate-target says why), and the model is still right at every size."""
    m = transformer_block("batch", "seq", d_model=64, heads=4, d_ff=128)
    exe = lamina.compile(m, targets=[target])
    for b, s in ((1, 3), (2, 5)):
        x = _x(b, s, 64)
        static = lamina.compile(transformer_block(b, s, d_model=64, heads=4, d_ff=128))
        np.testing.assert_allclose(exe.run(x)[0], static.run(x)[0], rtol=1e-4, atol=1e-4)


def test_batch_norm_over_symbolic_channels() -> None:
    """Statistics given at run time, over a symbolic channel count."""
    ins = [vi("x", T.FLOAT, [2, "c", 5])] + [vi(n, T.FLOAT, ["c"]) for n in ("g", "b", "m", "v")]
    m = _model([helper.make_node("BatchNormalization", ["x", "g", "b", "m", "v"], ["y"])], ins, [vi("y", T.FLOAT, [2, "c", 5])])
    feeds = [
        {"x": _x(2, c, 5), "g": _x(c), "b": _x(c), "m": _x(c), "v": np.abs(_x(c)) + 0.5}
        for c in (1, 4, 9)
    ]
    _check(m, feeds, rtol=1e-4)


def test_max_pool_over_a_symbolic_spatial_size_is_refused() -> None:
    m = _model(
        [helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[3, 3], pads=[2, 2, 2, 2])],
        [vi("x", T.FLOAT, [1, 3, "h", 28])],
        [vi("y", T.FLOAT, [1, 3, "h + 2", 30])],
    )
    with pytest.raises(lamina.LoweringError, match="max pooling over a symbolic spatial size"):
        lamina.compile(m)


def test_extern_kernel_over_symbolic_sizes() -> None:
    """Extern kernels (written with TirBuilder) take sizes too: a scatter."""
    m = _model(
        [helper.make_node("ScatterElements", ["x", "i", "u"], ["y"], axis=0, reduction="add")],
        [vi("x", T.FLOAT, ["a", 3]), vi("i", T.INT64, ["b", 3]), vi("u", T.FLOAT, ["b", 3])],
        [vi("y", T.FLOAT, ["a", 3])],
    )
    feeds = [
        {"x": _x(a, 3), "i": rng.integers(0, a, (b, 3)).astype(np.int64), "u": _x(b, 3)}
        for a, b in ((4, 2), (7, 5), (1, 1))
    ]
    _check(m, feeds)
