"""Run-time misuse: wrong inputs raise `InputError`s showing expected against got;
non-contiguous inputs work; one `CompiledModel` serves many threads at once."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper

import lamina
from lamina.errors import InputError, LaminaError

RNG = np.random.default_rng(8)
W1 = RNG.standard_normal((64, 48)).astype(np.float32)
B1 = RNG.standard_normal(64).astype(np.float32)
W2 = RNG.standard_normal((10, 64)).astype(np.float32)


def mlp() -> onnx.ModelProto:
    nodes = [
        h.make_node("Gemm", ["x", "w1", "b1"], ["h"], transB=1, name="fc1"),
        h.make_node("Relu", ["h"], ["r"], name="relu"),
        h.make_node("MatMul", ["r", "w2t"], ["logits"], name="fc2"),
        h.make_node("Add", ["logits", "bias"], ["z"], name="add"),
        h.make_node("Softmax", ["z"], ["probs"], axis=-1, name="softmax"),
    ]
    inits = [
        numpy_helper.from_array(W1, "w1"),
        numpy_helper.from_array(B1, "b1"),
        numpy_helper.from_array(np.ascontiguousarray(W2.T), "w2t"),
    ]
    g = h.make_graph(
        nodes,
        "mlp",
        [h.make_tensor_value_info("x", T.FLOAT, [4, 48]), h.make_tensor_value_info("bias", T.FLOAT, [10])],
        [h.make_tensor_value_info("probs", T.FLOAT, [4, 10])],
        inits,
    )
    return h.make_model(g, opset_imports=[h.make_opsetid("", 17)], ir_version=8)


def reference(x: np.ndarray, bias: np.ndarray) -> np.ndarray:
    z = np.maximum(x.astype(np.float64) @ W1.T + B1, 0) @ W2.T + bias
    e = np.exp(z - z.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


@pytest.fixture(scope="module")
def exe() -> lamina.CompiledModel:
    return lamina.compile(mlp())


X = RNG.standard_normal((4, 48)).astype(np.float32)
BIAS = RNG.standard_normal(10).astype(np.float32)


def check(out: list[np.ndarray], x: np.ndarray = X, bias: np.ndarray = BIAS) -> None:
    (probs,) = out
    assert probs.shape == (4, 10) and probs.dtype == np.float32
    np.testing.assert_allclose(probs, reference(x, bias), rtol=1e-4, atol=1e-5)


def test_correct_use(exe: lamina.CompiledModel) -> None:
    check(exe.run(X, BIAS))
    check(exe.run(x=X, bias=BIAS))
    check(exe(X, bias=BIAS))
    assert exe.input_names == ["x", "bias"] and exe.output_names == ["probs"]


@pytest.mark.parametrize(
    "args, kwargs, expected",
    [
        ((X[:2], BIAS), {}, r"input 'x': expected shape \(4, 48\), got \(2, 48\)"),
        ((X.reshape(4, 48, 1), BIAS), {}, r"expected shape \(4, 48\), got \(4, 48, 1\)"),
        ((X.astype(np.float64), BIAS), {}, "input 'x': expected dtype float32, got float64"),
        ((X.astype(np.int32), BIAS), {}, "expected dtype float32, got int32"),
        ((X.tolist(), BIAS), {}, "expected dtype float32, got float64"),
        ((X,), {}, r"missing input\(s\): bias: float32\[10\]"),
        ((), {}, r"missing input\(s\): x: float32\[4, 48\], bias: float32\[10\]"),
        ((X, BIAS, BIAS), {}, r"takes 2 input\(s\), got 3"),
        ((X, BIAS), {"bias": BIAS}, "given twice"),
        ((X, BIAS), {"y": BIAS}, "unknown input 'y'; the model's inputs are x: float32"),
        ((None, BIAS), {}, "input 'x'"),
        (("text", BIAS), {}, "input 'x'"),
    ],
)
def test_wrong_inputs_show_expected_and_got(
    exe: lamina.CompiledModel, args: tuple, kwargs: dict, expected: str
) -> None:
    with pytest.raises(InputError, match=expected) as info:
        exe.run(*args, **kwargs)
    assert isinstance(info.value, LaminaError) and "\n" not in str(info.value)


def unaligned(x: np.ndarray) -> np.ndarray:
    """A copy of `x` whose data starts 4 bytes past a 64-byte boundary."""
    raw = np.empty(x.nbytes + 128, np.uint8)
    start = (-raw.ctypes.data) % 64 + 4
    out = raw[start : start + x.nbytes].view(x.dtype).reshape(x.shape)
    out[...] = x
    assert out.ctypes.data % 64 == 4
    return out


@pytest.mark.parametrize(
    "make",
    [
        lambda x: np.asfortranarray(x),
        lambda x: np.repeat(x, 2, axis=1)[:, ::2],
        lambda x: x[::-1][::-1],
        lambda x: np.flip(np.flip(x, 1).copy(), 1),
        lambda x: unaligned(x),
    ],
    ids=["fortran", "strided", "reversed", "negative-stride", "unaligned"],
)
def test_non_contiguous_inputs(exe: lamina.CompiledModel, make) -> None:  # type: ignore[no-untyped-def]
    x = make(X)
    np.testing.assert_array_equal(x, X)
    check(exe.run(x, BIAS[::-1][::-1]))


def test_read_only_and_broadcast_views(exe: lamina.CompiledModel) -> None:
    x = X.copy()
    x.setflags(write=False)
    bias = np.broadcast_to(np.float32(0.5), (10,))  # stride 0
    check(exe.run(x, bias), bias=np.full(10, 0.5, np.float32))
    np.testing.assert_array_equal(x, X)  # inputs are never written


def test_outputs_are_fresh_arrays(exe: lamina.CompiledModel) -> None:
    (a,) = exe.run(X, BIAS)
    (b,) = exe.run(X, BIAS)
    assert a is not b and not np.shares_memory(a, b)
    a[:] = 0
    check([b])


def test_eight_threads_at_once(exe: lamina.CompiledModel) -> None:
    rng = np.random.default_rng(0)
    jobs = [
        (rng.standard_normal((4, 48)).astype(np.float32), rng.standard_normal(10).astype(np.float32))
        for _ in range(8)
    ]
    barrier = threading.Barrier(8)

    def work(i: int) -> list[np.ndarray]:
        x, bias = jobs[i]
        barrier.wait()  # all threads call the model at the same moment
        return [exe.run(x, bias)[0] for _ in range(25)]

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(work, range(8)))
    for (x, bias), outs in zip(jobs, results, strict=True):
        ref = reference(x, bias)
        for out in outs:
            np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-5)


def test_threads_with_errors_do_not_disturb_others(exe: lamina.CompiledModel) -> None:
    def work(i: int) -> str:
        if i % 2:
            try:
                exe.run(X[:1], BIAS)
            except InputError as e:
                return str(e)
            return "no error"
        check(exe.run(X, BIAS))
        return "ok"

    with ThreadPoolExecutor(8) as pool:
        outcomes = list(pool.map(work, range(16)))
    assert outcomes[::2] == ["ok"] * 8
    assert all("expected shape" in o for o in outcomes[1::2])


def test_f64_to_f16_conversion_does_not_crash() -> None:
    # `fptrunc double to half` is a libcall; the JIT once jumped to a bad address
    # for it (found by bench/fuzz_onnx.py with a float16 Mod).
    t, u = "tensor<6xf64>", "tensor<6xf16>"
    exe = lamina.compile(lamina.parse(f"""
    func.func @main(%x: {t}) -> {u} {{
      %0 = relay.cast %x {{dtype = f16}} : ({t}) -> {u}
      func.return %0 : {u}
    }}"""))
    x = np.arange(6.0) + 0.3
    np.testing.assert_array_equal(exe.run(x)[0], x.astype(np.float16))


@pytest.mark.parametrize("bad", [-3, 0, 2.5, "4", True])
def test_bad_num_threads_are_refused(exe: lamina.CompiledModel, bad: object) -> None:
    """By compile (before compiling), the model's constructor and its setter: not
    taken as the default (0) or passed on to OpenMP (-3)."""
    message = r"num_threads must be a positive integer \(or None for the default\), got "
    with pytest.raises(InputError, match=message):
        lamina.compile(mlp(), num_threads=bad)  # type: ignore[arg-type]
    with pytest.raises(InputError, match=message):
        lamina.CompiledModel(exe.record, exe._native, exe._params, num_threads=bad)  # type: ignore[arg-type]
    before = exe.num_threads
    with pytest.raises(InputError, match=message):
        exe.num_threads = bad  # type: ignore[assignment]
    assert exe.num_threads == before
    exe.num_threads = np.int64(2)
    assert exe.num_threads == 2 and type(exe.num_threads) is int
    check(exe.run(X, BIAS))
    exe.num_threads = before
