"""LinearAttention and CausalConvWithState against onnx.reference: every update
rule, grouped heads, per-head and per-key decay, past states, a decoding step
(no loop) and prefills (a relay.loop, also over a symbolic length); causal
convolutions with and without past state, bias and activation, inputs shorter
than the kernel and a kernel of 1; and the errors that name the node."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
from onnx import TensorProto

import lamina
from tests.test_onnx_ops import Case, Const, check, model_of, rand
from tests.test_onnx_transformer import check_symbolic

RNG = np.random.default_rng(11)
GATED = ("gated", "gated_delta")
DELTA = ("delta", "gated_delta")


def _unit_keys(b: int, t: int, h: int, d: int) -> np.ndarray:
    """Keys L2-normalized per head (the delta rules expect them so)."""
    k = rand(b, t, h, d, low=-1, high=1)
    k /= np.linalg.norm(k, axis=-1, keepdims=True)
    return k.reshape(b, t, h * d)


def _linear_attention(rule: str, b: int, t: int, hq: int, hkv: int, dk: int, dv: int,
                      past: bool = False, per_key: bool = True, beta_heads: bool = True,
                      dtype: Any = np.float32, **attrs: Any) -> Case:
    inputs: list[Any] = [
        rand(b, t, hq * dk, low=-1, high=1),
        _unit_keys(b, t, hkv, dk),
        rand(b, t, hkv * dv, low=-1, high=1),
        rand(b, hkv, dk, dv, low=-1, high=1) if past else None,
        -rand(b, t, hkv * dk if per_key else hkv, low=0.01, high=1) if rule in GATED else None,
        rand(b, t, hkv if beta_heads else 1, low=0, high=1) if rule in DELTA else None,
    ]
    while inputs[-1] is None:
        inputs.pop()
    inputs = [None if x is None else x.astype(dtype) for x in inputs]
    attrs = {"update_rule": rule, "q_num_heads": hq, "kv_num_heads": hkv, **attrs}
    return Case("LinearAttention", inputs, attrs, outputs=2)


@pytest.mark.parametrize("rule", ["linear", "gated", "delta", "gated_delta"])
def test_linear_attention_rules(rule):
    """Prefill (a loop) and decoding (one step), with and without a past state;
    grouped and multi-query heads; dk != dv; per-head decay and a shared beta."""
    cases = [
        _linear_attention(rule, b, t, hq, hkv, dk, dv, past=past)
        for (b, t), (hq, hkv, dk, dv), past in itertools.product(
            [(2, 5), (1, 1), (3, 2)],
            [(2, 2, 4, 4), (4, 2, 3, 5), (3, 1, 4, 2)],
            [False, True],
        )
    ]
    cases += [
        _linear_attention(rule, 2, 4, 2, 2, 4, 3, per_key=False, beta_heads=False, scale=0.7),
        _linear_attention(rule, 1, 1, 4, 2, 2, 3, past=True, per_key=False, beta_heads=False),
    ]
    check(cases, opset=27, rtol=1e-4, atol=1e-5)


def test_linear_attention_long_sequence_and_f64():
    """A longer prefill, whose state decays and accumulates over 40 steps, in f32
    and in f64 (the reference computes in f32)."""
    cases = [
        _linear_attention("gated_delta", 2, 40, 4, 2, 8, 8, past=True),
        _linear_attention("linear", 1, 40, 2, 2, 4, 4),
        _linear_attention("gated", 1, 6, 2, 1, 4, 4, past=True, dtype=np.float64),
    ]
    check(cases, opset=27, rtol=1e-4, atol=1e-4)


def test_linear_attention_over_symbolic_batch_and_sequence():
    """One model whose sequence length (the loop's trip count) and batch are
    symbolic, run at several of them, a single token among them."""
    hq, hkv, dk, dv = 4, 2, 4, 3
    inputs = [
        ("q", TensorProto.FLOAT, ["b", "t", hq * dk]),
        ("k", TensorProto.FLOAT, ["b", "t", hkv * dk]),
        ("v", TensorProto.FLOAT, ["b", "t", hkv * dv]),
        ("s", TensorProto.FLOAT, ["b", hkv, dk, dv]),
        ("g", TensorProto.FLOAT, ["b", "t", hkv]),
        ("beta", TensorProto.FLOAT, ["b", "t", hkv]),
    ]
    feeds = []
    for b, t in [(1, 1), (2, 6), (3, 3)]:
        c = _linear_attention("gated_delta", b, t, hq, hkv, dk, dv, past=True, per_key=False)
        feeds.append(dict(zip([n for n, _, _ in inputs], c.inputs, strict=True)))
    attrs = {"q_num_heads": hq, "kv_num_heads": hkv}
    check_symbolic("LinearAttention", inputs, attrs, 27, feeds, outputs=2, rtol=1e-4)
    # Without a past state: zeros of a symbolic batch.
    inputs[3] = ("", 0, [])
    feeds = [{n: x for n, x in f.items() if n != "s"} for f in feeds]
    check_symbolic("LinearAttention", inputs, attrs, 27, feeds, outputs=2, rtol=1e-4)


# ------------------------------------------------------------- causal convolution
def _causal_conv(b: int, c: int, length: int, k: int, bias: bool, past: bool,
                 const_weights: bool = False, **attrs: Any) -> Case:
    w, bias_v = rand(c, 1, k, low=-1, high=1), rand(c, low=-1, high=1)
    inputs: list[Any] = [
        rand(b, c, length, low=-2, high=2),
        Const(w) if const_weights else w,
        (Const(bias_v) if const_weights else bias_v) if bias else None,
        rand(b, c, k - 1, low=-2, high=2) if past else None,
    ]
    while inputs[-1] is None:
        inputs.pop()
    return Case("CausalConvWithState", inputs, attrs, outputs=2)


@pytest.mark.parametrize("activation", ["none", "silu", "swish"])
def test_causal_conv_with_state(activation):
    """Prefill and decoding, inputs shorter than the kernel (the state then holds
    zeros or past positions), a kernel of one (an empty state), weights given as
    inputs and as initializers."""
    cases = [
        _causal_conv(b, c, length, k, bias, past, const, activation=activation)
        for (b, c, length, k), (bias, past, const) in itertools.product(
            [(2, 3, 7, 4), (1, 5, 1, 3), (2, 2, 2, 5), (3, 4, 6, 1), (1, 1, 3, 2)],
            [(False, False, False), (True, True, False), (True, False, True), (False, True, True)],
        )
    ]
    check(cases, opset=27, rtol=1e-5, atol=1e-5)


def test_causal_conv_with_state_over_symbolic_batch_and_length():
    inputs = [
        ("x", TensorProto.FLOAT, ["b", 3, "n"]),
        ("w", TensorProto.FLOAT, [3, 1, 4]),
        ("bias", TensorProto.FLOAT, [3]),
        ("s", TensorProto.FLOAT, ["b", 3, 3]),
    ]
    feeds = [
        {"x": rand(b, 3, n), "w": rand(3, 1, 4), "bias": rand(3), "s": rand(b, 3, 3)}
        for b, n in [(1, 1), (2, 2), (3, 9)]
    ]
    check_symbolic("CausalConvWithState", inputs, {"activation": "silu"}, 27, feeds, outputs=2)
    feeds = [{"x": f["x"], "w": f["w"]} for f in feeds]
    check_symbolic("CausalConvWithState", inputs[:2], {}, 27, feeds, outputs=2)


# ------------------------------------------------------------------------ errors
def _la(**over: Any) -> Case:
    case = _linear_attention("gated_delta", 1, 2, 2, 2, 4, 4)
    case.attrs.update(over)
    return case


@pytest.mark.parametrize(
    ("case", "message"),
    [
        (_la(update_rule="mamba"), 'update_rule "mamba" is not one of linear, gated, delta, gated_delta'),
        (_la(q_num_heads=3), r"q_num_heads \(3\) must be a positive multiple of kv_num_heads \(2\)"),
        (_la(update_rule="delta"), 'update_rule "delta" takes no decay input'),
        (Case("LinearAttention", [rand(1, 2, 8), rand(1, 2, 8), rand(1, 2, 8)],
              {"q_num_heads": 2, "kv_num_heads": 2}, outputs=2),
         'update_rule "gated_delta" needs the decay input'),
        (Case("LinearAttention", [rand(1, 2, 8), rand(1, 2, 8), rand(1, 2, 8), None, rand(1, 2, 3),
                                  rand(1, 2, 2)], {"q_num_heads": 2, "kv_num_heads": 2}, outputs=2),
         r"decay must be \[1, 2, 2\] or \[1, 2, 8\], got \[1, 2, 3\]"),
        (Case("LinearAttention", [rand(1, 2, 8), rand(1, 2, 8), rand(1, 2, 8), rand(1, 2, 4, 3)],
              {"q_num_heads": 2, "kv_num_heads": 2, "update_rule": "linear"}, outputs=2),
         r"past_state must be \[1, 2, 4, 4\]"),
        (Case("CausalConvWithState", [rand(1, 2, 5), rand(2, 1, 3)], {"activation": "gelu"}, outputs=2),
         'activation "gelu" is not one of none, silu, swish'),
        (Case("CausalConvWithState", [rand(1, 2, 5), rand(2, 2, 3)], outputs=2),
         r"weight must be \[2, 1, k\] \(depthwise\)"),
        (Case("CausalConvWithState", [rand(1, 2, 5), rand(2, 1, 3), None, rand(1, 2, 3)], outputs=2),
         r"past_state must be \[1, 2, 2\] \(k - 1 positions\)"),
    ],
)
def test_errors_name_the_node(case, message):
    model, _ = model_of([case], 27)
    with pytest.raises(lamina.FrontendError, match=message) as e:
        lamina.from_onnx(model)
    assert f"ONNX node 'case0' ({case.op}, opset 27)" in str(e.value)
