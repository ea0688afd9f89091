"""The built-in example: compile an ONNX MLP (784-512-512-10), check it, time it."""

from __future__ import annotations

import itertools
import sys
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def mlp_model(sizes: tuple[int, ...] = (784, 512, 512, 10), seed: int = 0) -> onnx.ModelProto:
    """An MLP as ONNX: Gemm+Relu layers, then Softmax. Weights are random."""
    rng = np.random.default_rng(seed)
    nodes, inits = [], []
    x = "input"
    for i, (n_in, n_out) in enumerate(itertools.pairwise(sizes)):
        w = (rng.standard_normal((n_out, n_in)) / np.sqrt(n_in)).astype(np.float32)
        b = (0.1 * rng.standard_normal(n_out)).astype(np.float32)
        inits += [numpy_helper.from_array(w, f"fc{i}.weight"), numpy_helper.from_array(b, f"fc{i}.bias")]
        nodes.append(helper.make_node("Gemm", [x, f"fc{i}.weight", f"fc{i}.bias"], [f"fc{i}"], name=f"fc{i}", transB=1))
        x = f"fc{i}"
        if i < len(sizes) - 2:
            nodes.append(helper.make_node("Relu", [x], [f"relu{i}"], name=f"relu{i}"))
            x = f"relu{i}"
    nodes.append(helper.make_node("Softmax", [x], ["probs"], name="softmax", axis=1))
    graph = helper.make_graph(
        nodes,
        "mlp",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, sizes[0]])],
        [helper.make_tensor_value_info("probs", TensorProto.FLOAT, [1, sizes[-1]])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def reference(model: onnx.ModelProto, x: np.ndarray) -> np.ndarray:
    from onnx.reference import ReferenceEvaluator

    return ReferenceEvaluator(model).run(None, {"input": x})[0]


def main() -> int:
    import lamina

    model = mlp_model()
    x = np.random.default_rng(1).standard_normal((1, 784)).astype(np.float32)
    print("lamina demo: ONNX MLP 784-512-512-10 (Gemm, Relu, Softmax)")
    t0 = time.perf_counter()
    exe = lamina.compile(model)
    print(f"  compiled in {time.perf_counter() - t0:.2f} s")
    (y,) = exe.run(x)
    ref = reference(model, x)
    err = float(np.max(np.abs(y - ref) / (np.abs(ref) + 1e-12)))
    ok = np.allclose(y, ref, rtol=1e-4, atol=1e-6)
    print(f"  max relative error vs onnx.reference: {err:.2e} -> {'OK' if ok else 'MISMATCH'}")
    times = []
    for _ in range(50):
        t = time.perf_counter()
        exe.run(x)
        times.append(time.perf_counter() - t)
    print(f"  latency: median {1e3 * float(np.median(times)):.3f} ms over {len(times)} runs")
    print(f"  top class: {int(np.argmax(y))} (p={float(np.max(y)):.3f})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
