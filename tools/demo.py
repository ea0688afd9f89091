"""`lamina demo`: compile a built-in ResNet-style CNN with a pass-by-pass progress
display, check it against onnxruntime (or onnx.reference), time it, export it as a
shared library and reload it.

`mlp_model` (an ONNX MLP) is the small model of the tests.
"""

from __future__ import annotations

import itertools
import sys
import time
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import lamina
from lamina.fileio import temporary_folder
from lamina.passes import PassContext
from lamina.pipelines import standard_pipeline
from lamina.tools.models import resnet_mini
from lamina.tools.report import CompileProgress, console, measure


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


def reference(model: onnx.ModelProto, x: np.ndarray) -> tuple[np.ndarray, str]:
    """The model's output on `x` from onnxruntime, else onnx.reference, and which."""
    try:
        import onnxruntime as ort
    except ImportError:
        from onnx.reference import ReferenceEvaluator

        return ReferenceEvaluator(model).run(None, {"input": x})[0], "onnx.reference"
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, {"input": x})[0], "onnxruntime"


def main(threads: int | None = None) -> int:
    """Run the demo; 0 when lamina's output matches the reference."""
    out = console()
    model = resnet_mini()
    weights = sum(int(np.prod(t.dims)) for t in model.graph.initializer)
    out.print(
        "[bold]lamina demo[/]: ResNet-style CNN (ResNet-18's layout at half width), "
        f"ONNX, 3x128x128 -> 1000 classes, {weights / 1e6:.1f} M weights"
    )
    x = np.random.default_rng(1).standard_normal((1, 3, 128, 128)).astype(np.float32)
    progress = CompileProgress(out, len(standard_pipeline(3)), log=True)
    t0 = time.perf_counter()
    with progress.shown():
        exe = lamina.compile(
            model, num_threads=threads, pass_context=PassContext(3, instruments=[progress])
        )
    done = time.perf_counter()
    out.print(
        f"  [green]✓[/] {'LLVM code generation':<22} {1e3 * (done - progress.last_end):8.1f} ms"
    )
    out.print(f"  compiled in {done - t0:.2f} s; arena {exe.workspace_size / 1024:.0f} KiB")
    (y,) = exe.run(x)
    ref, name = reference(model, x)
    err = float(np.max(np.abs(y - ref)) / (np.max(np.abs(ref)) + 1e-12))
    ok = bool(np.allclose(y, ref, rtol=1e-3, atol=1e-4 * float(np.max(np.abs(ref)))))
    verdict = "[green]OK[/]" if ok else "[red]MISMATCH[/]"
    out.print(f"  max error vs {name} (relative to the largest logit): {err:.2e} -> {verdict}")
    ms = measure(lambda: exe.run(x), None, 3)
    out.print(
        f"  latency: median {np.median(ms):.2f} ms (p10 {np.percentile(ms, 10):.2f}, "
        f"p90 {np.percentile(ms, 90):.2f}) over {len(ms)} runs"
    )
    with temporary_folder("lamina-demo-") as tmp:
        lib = Path(tmp) / "resnet_mini.so"
        t1 = time.perf_counter()
        exe.export(lib)
        size = lib.stat().st_size / (1 << 20)
        same = np.array_equal(lamina.load(lib).run(x)[0], y)
        out.print(
            f"  exported a {size:.1f} MiB shared library in {time.perf_counter() - t1:.2f} s; "
            f"reloaded with lamina.load: {'identical outputs' if same else '[red]outputs differ[/]'}"
        )
    out.print(f"  top class: {int(np.argmax(y))} (logit {float(np.max(y)):.3f})")
    return 0 if ok and same else 1


if __name__ == "__main__":
    sys.exit(main())
