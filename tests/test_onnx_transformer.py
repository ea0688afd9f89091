"""Transformer-block ops against onnx.reference: Attention over an external KV
cache (`nonpad_kv_seqlen`, run-time lengths) with causal, window and mask
combinations; RotaryEmbedding; TensorScatter (run-time write positions, linear
and circular); SwiGLU. Shapes and attributes beyond the node tests', models
compiled once over symbolic sizes, and the errors that name the node."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

import lamina
from tests.test_onnx_ops import Case, Const, check, model_of, rand

RNG = np.random.default_rng(7)


def _lengths(*values: int) -> np.ndarray:
    return np.array(values, np.int64)


def check_symbolic(
    op: str,
    inputs: list[tuple[str, int, list[Any]]],
    attrs: dict[str, Any],
    opset: int,
    feeds_at: list[dict[str, np.ndarray]],
    outputs: int = 1,
    rtol: float = 1e-5,
) -> None:
    """One node over inputs `(name, elem type, dims)` (an empty name: left out)
    whose named dims are symbolic, compiled once and run on every feed against
    onnx.reference."""
    names = [name for name, _, _ in inputs]
    outs = [f"y{i}" for i in range(outputs)]
    node = helper.make_node(op, names, outs, name="node", **attrs)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info(n, t, d) for n, t, d in inputs if n],
        [helper.make_tensor_value_info(o, TensorProto.UNDEFINED, None) for o in outs],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 10
    exe = lamina.compile(model)
    ref = ReferenceEvaluator(model)
    for feeds in feeds_at:
        got = exe.run(**feeds)
        want = ref.run(None, feeds)
        for g, w in zip(got, want, strict=True):
            assert g.shape == w.shape, f"{op} at {[f.shape for f in feeds.values()]}"
            np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol)


# ------------------------------------------------- Attention, external cache
def _attention(b: int, hq: int, hkv: int, q: int, kv: int, lengths: np.ndarray, mask: Any = None,
               three_d: bool = False, outputs: int = 1, **attrs: Any) -> Case:
    d = 4
    if three_d:
        qkv = [rand(b, q, hq * d), rand(b, kv, hkv * d), rand(b, kv, hkv * 5)]
        attrs = {"q_num_heads": hq, "kv_num_heads": hkv, **attrs}
    else:
        qkv = [rand(b, hq, q, d), rand(b, hkv, kv, d), rand(b, hkv, kv, 5)]
    return Case("Attention", [*qkv, mask, None, None, lengths], attrs, outputs=outputs)


def test_attention_external_cache_masks():
    """Padding alone, causal, windows on either side and both, each with its
    offset aligned to every batch entry's end; lengths of 0, short of the
    query (negative offsets: rows left without keys) and the whole cache."""
    lengths = _lengths(0, 2, 5, 7)
    cases = [
        _attention(4, 2, 2, 3, 7, lengths, **attrs)
        for attrs in (
            {},
            {"is_causal": 1},
            {"left_window_size": 1},
            {"right_window_size": 0},
            {"left_window_size": 2, "right_window_size": 1},
            {"is_causal": 1, "left_window_size": 2},
            {"is_causal": 1, "right_window_size": 3},
            {"is_causal": 1, "softcap": 2.0, "scale": 0.3},
        )
    ]
    check(cases, opset=25, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("causal", [0, 1])
def test_attention_external_cache_with_masks_gqa_and_3d(causal):
    """Masks of every rank (bool and additive; a short last dim padded) combine
    with the cache's own; grouped-query heads; 3-D inputs; every output."""
    lengths = _lengths(3, 6)
    b, hq, hkv, q, kv = 2, 4, 2, 3, 6
    cases = [
        _attention(b, hq, hkv, q, kv, lengths, rand(q, kv) < 1.5, is_causal=causal),
        _attention(b, hq, hkv, q, kv, lengths, rand(hq, q, kv, dtype=np.bool_), is_causal=causal),
        _attention(b, hq, hkv, q, kv, lengths, rand(b, 1, q, kv, low=-1, high=1), is_causal=causal),
        _attention(b, hq, hkv, q, kv, lengths, rand(b, hq, q, 4, low=-1, high=1), is_causal=causal),
        _attention(b, hq, hkv, q, kv, lengths, rand(1, kv, dtype=np.bool_), is_causal=causal,
                   left_window_size=1),
        _attention(b, hq, hkv, q, kv, lengths, three_d=True, is_causal=causal),
        _attention(b, hq, hkv, q, kv, lengths, is_causal=causal, outputs=4,
                   qk_matmul_output_mode=3),
        _attention(b, hq, hkv, q, kv, lengths, rand(q, kv), is_causal=causal, outputs=4,
                   qk_matmul_output_mode=2),
        _attention(b, hq, hkv, 1, kv, lengths, is_causal=causal),  # decoding
    ]
    check(cases, opset=25, rtol=1e-5, atol=1e-6)


def test_attention_external_cache_over_symbolic_batch_and_lengths():
    """One model over a symbolic batch and cache length, the lengths read at run
    time."""
    inputs = [
        ("q", TensorProto.FLOAT, ["b", 2, 3, 4]),
        ("k", TensorProto.FLOAT, ["b", 2, "kv", 4]),
        ("v", TensorProto.FLOAT, ["b", 2, "kv", 4]),
        ("mask", TensorProto.BOOL, [3, "kv"]),
        ("", 0, []),
        ("", 0, []),
        ("lengths", TensorProto.INT64, ["b"]),
    ]
    feeds = []
    for b, kv in [(1, 3), (3, 8), (2, 5)]:
        feeds.append({
            "q": rand(b, 2, 3, 4), "k": rand(b, 2, kv, 4), "v": rand(b, 2, kv, 4),
            "mask": RNG.random((3, kv)) < 0.8,
            "lengths": RNG.integers(0, kv + 1, b).astype(np.int64),
        })
    check_symbolic("Attention", inputs, {"is_causal": 1, "left_window_size": 2}, 25,
                   feeds)


# ------------------------------------------------------------- RotaryEmbedding
def _rope(x: np.ndarray, dim: int, ids: bool, **attrs: Any) -> Case:
    if x.ndim == 4:
        b, _, s, head = x.shape
    else:
        b, s, hidden = x.shape
        head = hidden // attrs["num_heads"]
    half = (dim or head) // 2
    if ids:  # a table of angles (a weight), read at run-time positions
        angles = RNG.uniform(0, 6, (11, half)).astype(np.float32)
        caches = [Const(np.cos(angles)), Const(np.sin(angles)), RNG.integers(0, 11, (b, s)).astype(np.int64)]
    else:
        angles = RNG.uniform(0, 6, (b, s, half)).astype(np.float32)
        caches = [np.cos(angles), np.sin(angles)]
    if dim:
        attrs["rotary_embedding_dim"] = dim
    return Case("RotaryEmbedding", [x, *caches], attrs)


@pytest.mark.parametrize("interleaved", [0, 1])
def test_rotary_embedding(interleaved):
    cases = [
        _rope(x, dim, ids, interleaved=interleaved, **extra)
        for (x, dim, extra), ids in itertools.product(
            [
                (rand(2, 3, 5, 8), 0, {}),
                (rand(1, 2, 4, 12), 8, {}),
                (rand(3, 1, 1, 6), 2, {}),  # a decoding step, a 2-wide rotation
                (rand(2, 5, 24), 0, {"num_heads": 3}),
                (rand(1, 4, 32), 4, {"num_heads": 2}),
            ],
            [True, False],
        )
    ]
    check(cases, opset=23, rtol=1e-5, atol=1e-6)


def test_rotary_embedding_over_symbolic_batch_and_seq():
    inputs = [
        ("x", TensorProto.FLOAT, ["b", "s", 16]),
        ("cos", TensorProto.FLOAT, [20, 4]),
        ("sin", TensorProto.FLOAT, [20, 4]),
        ("ids", TensorProto.INT64, ["b", "s"]),
    ]
    angles = RNG.uniform(0, 6, (20, 4)).astype(np.float32)
    feeds = [
        {"x": rand(b, s, 16), "cos": np.cos(angles), "sin": np.sin(angles),
         "ids": RNG.integers(0, 20, (b, s)).astype(np.int64)}
        for b, s in [(1, 1), (2, 7), (3, 4)]
    ]
    attrs = {"num_heads": 2, "rotary_embedding_dim": 8, "interleaved": 1}
    check_symbolic("RotaryEmbedding", inputs, attrs, 23, feeds)


# --------------------------------------------------------------- TensorScatter
def test_tensor_scatter_modes_axes_and_positions():
    """Run-time write positions, wrapping around in circular mode (an update as
    long as the cache, positions past its end), along every non-batch axis."""
    cases = []
    for mode in ("linear", "circular"):
        for cache, rows, axis in [((3, 6, 4), 2, -2), ((2, 3, 5, 4), 3, 2), ((2, 5, 3), 1, 1),
                                  ((2, 2, 3, 7), 4, -1), ((2, 4), 4, 1)]:
            shape = list(cache)
            shape[axis] = rows
            length = cache[axis]
            high = length - rows if mode == "linear" else 2 * length
            starts = RNG.integers(0, high + 1, cache[0]).astype(np.int64)
            attrs = {"mode": mode, "axis": axis}
            cases.append(Case("TensorScatter", [rand(*cache), rand(*shape), starts], attrs))
            cases.append(Case("TensorScatter", [rand(*cache), rand(*shape)], attrs))  # at 0
    check(cases, opset=24)


def test_tensor_scatter_over_symbolic_batch_and_cache():
    inputs = [
        ("past", TensorProto.FLOAT, ["b", 2, "max", 3]),
        ("update", TensorProto.FLOAT, ["b", 2, 2, 3]),
        ("at", TensorProto.INT64, ["b"]),
    ]
    feeds = [
        {"past": rand(b, 2, m, 3), "update": rand(b, 2, 2, 3),
         "at": RNG.integers(0, 2 * m, b).astype(np.int64)}
        for b, m in [(1, 2), (3, 5), (2, 9)]
    ]
    check_symbolic("TensorScatter", inputs, {"mode": "circular"}, 24, feeds)


# ----------------------------------------------------------------------- SwiGLU
def test_swiglu():
    cases = [
        Case("SwiGLU", [rand(2, 4), rand(2, 4)]),
        Case("SwiGLU", [rand(3, 5, 7), rand(3, 5, 7)], {"alpha": 1.702}),
        Case("SwiGLU", [rand(6, dtype=np.float64), rand(6, dtype=np.float64)], {"alpha": -0.5}),
        Case("SwiGLU", [rand(1, 1, 1), rand(1, 1, 1)], {"alpha": 0.0}),
    ]
    check(cases, opset=28)


# ----------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    ("case", "opset", "error", "message"),
    [
        (Case("Attention", [rand(1, 2, 3, 4), rand(1, 2, 3, 4), rand(1, 2, 3, 4), None, rand(1, 2, 2, 4),
                            rand(1, 2, 2, 4), _lengths(3)], {}, outputs=1), 24,
         lamina.FrontendError, "cannot be combined with past_key and past_value"),
        (Case("Attention", [rand(2, 2, 3, 4), rand(2, 2, 3, 4), rand(2, 2, 3, 4), None, None, None,
                            _lengths(3, 3, 3)]), 24,
         lamina.FrontendError, r"nonpad_kv_seqlen must have shape \[2\]"),
        (Case("RotaryEmbedding", [rand(1, 2, 3, 8), rand(3, 5), rand(3, 5),
                                  np.zeros((1, 3), np.int64)], {"rotary_embedding_dim": 5}), 23,
         lamina.FrontendError, "rotary_embedding_dim 5 must be even"),
        (Case("RotaryEmbedding", [rand(1, 3, 8), rand(1, 3, 2), rand(1, 3, 2)], {}), 23,
         lamina.FrontendError, "a 3-D input needs num_heads > 0"),
        (Case("RotaryEmbedding", [rand(1, 2, 3, 8), rand(1, 3, 3), rand(1, 3, 3)], {}), 23,
         lamina.FrontendError, r"cos_cache must end in rotary_embedding_dim / 2 = 4"),
        (Case("TensorScatter", [rand(2, 4, 3), rand(2, 1, 3)], {"axis": 0}), 24,
         lamina.FrontendError, "axis must not be 0"),
        (Case("TensorScatter", [rand(2, 4, 3), rand(2, 5, 3)], {"axis": 1}), 24,
         lamina.FrontendError, r"the update's 5 rows along axis 1 overflow the cache's 4"),
        (Case("TensorScatter", [rand(2, 4, 3), rand(2, 1, 2)], {"axis": 1}), 24,
         lamina.FrontendError, r"must be the cache tensor<2x4x3xf32> but for axis 1"),
        (Case("SwiGLU", [rand(2, 4), rand(2, 1)]), 28,
         lamina.FrontendError, "SwiGLU does not broadcast"),
    ],
)
def test_errors_name_the_node(case, opset, error, message):
    model, _ = model_of([case], opset)
    with pytest.raises(error, match=message) as e:
        lamina.from_onnx(model)
    assert f"ONNX node 'case0' ({case.op}, opset {opset})" in str(e.value)

