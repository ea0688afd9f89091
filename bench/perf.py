"""lamina against onnxruntime and numpy, measured in one run, at equal thread counts.

    .venv/bin/python bench/perf.py                          # every model, 1 thread
    .venv/bin/python bench/perf.py --threads 1,2            # 1 and 2 threads
    .venv/bin/python bench/perf.py --models matmul512,conv3x3 --threads 1 --repeat 50
    .venv/bin/python bench/perf.py --json perf.json --profile

Each row runs everything on the same number of threads (`--threads`, default 1):
lamina is compiled with `num_threads` = threads, onnxruntime gets
`intra_op_num_threads` = threads (`inter_op_num_threads` = 1), and numpy's OpenBLAS
is limited to that many threads too (`scipy_openblas_set_num_threads`; the header
says if that was impossible). For each model and thread count it reports lamina's
median latency (after a warm-up run), GFLOP/s (multiply-adds count two),
onnxruntime's median latency (CPU provider, all graph optimizations) and the ratio
lamina / onnxruntime, numpy's latency (a direct numpy program for the matmuls, the
MLP and the conv; onnx's numpy `ReferenceEvaluator` for the other models, timed
once, on 1 thread only), lamina's compile time and its workspace arena against the
sum of all intermediates. `--profile` adds lamina's slowest kernels. Outputs are
checked against onnxruntime before anything is timed. Each timing starts after a
pause (`SETTLE`), when the pool threads of the engine timed before have stopped
spinning.

The compile time is a cold compile, whatever the caller's environment: the script
turns lamina's disk cache off itself (`LAMINA_CACHE=0` around each compile), and
compiles a one-op model first so that no row pays the process's one-off start-up
(lazy imports, LLVM's initialization).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import lamina
from lamina.codegen import cache
from lamina.codegen.peak import describe_host
from lamina.tools.demo import mlp_model
from lamina.tools.models import resnet18, resnet_mini, transformer_block
from lamina.tools.report import measure as latencies_ms


# ------------------------------------------------------------------ models
def _model(nodes: list, inputs: list, outputs: list, inits: list) -> onnx.ModelProto:  # type: ignore[type-arg]
    graph = helper.make_graph(nodes, "bench", inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def _vi(name: str, shape: list[int]) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def matmul(n: int) -> onnx.ModelProto:
    node = helper.make_node("MatMul", ["a", "b"], ["c"])
    return _model([node], [_vi("a", [n, n]), _vi("b", [n, n])], [_vi("c", [n, n])], [])


def conv3x3(c: int = 64, hw: int = 56) -> onnx.ModelProto:
    rng = np.random.default_rng(0)
    w = (rng.standard_normal((c, c, 3, 3)) / np.sqrt(9 * c)).astype(np.float32)
    node = helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1])
    return _model(
        [node], [_vi("x", [1, c, hw, hw])], [_vi("y", [1, c, hw, hw])],
        [numpy_helper.from_array(w, "w")],
    )


def _light_resnet50() -> onnx.ModelProto:
    path = os.path.join(os.path.dirname(onnx.__file__), "backend/test/data/light/light_resnet50.onnx")
    return onnx.load(path)


MODELS: dict[str, Callable[[], onnx.ModelProto]] = {
    "mlp": mlp_model,
    "small_cnn": resnet_mini,
    "resnet18": resnet18,
    "transformer": transformer_block,
    "matmul512": lambda: matmul(512),
    "matmul1024": lambda: matmul(1024),
    "conv3x3": conv3x3,
    "resnet50_light": _light_resnet50,
}


# ------------------------------------------------------------------ numpy
def _numpy_program(name: str, model: onnx.ModelProto) -> Callable[[dict[str, np.ndarray]], object] | None:
    """A direct numpy program for the simple models, else None."""
    weights = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    if name.startswith("matmul"):
        return lambda f: f["a"] @ f["b"]
    if name == "mlp":
        layers = [(weights[f"fc{i}.weight"].T.copy(), weights[f"fc{i}.bias"]) for i in range(3)]

        def mlp(f: dict[str, np.ndarray]) -> np.ndarray:
            x = f["input"]
            for i, (w, b) in enumerate(layers):
                x = x @ w + b
                if i < len(layers) - 1:
                    x = np.maximum(x, 0)
            e = np.exp(x - x.max(axis=-1, keepdims=True))
            return e / e.sum(axis=-1, keepdims=True)

        return mlp
    if name == "conv3x3":
        w = weights["w"]
        wmat = w.reshape(w.shape[0], -1)

        def conv(f: dict[str, np.ndarray]) -> np.ndarray:
            x = np.pad(f["x"][0], ((0, 0), (1, 1), (1, 1)))
            win = np.lib.stride_tricks.sliding_window_view(x, (3, 3), axis=(1, 2))
            cols = win.transpose(0, 3, 4, 1, 2).reshape(wmat.shape[1], -1)
            return (wmat @ cols).reshape(1, w.shape[0], *f["x"].shape[2:])

        return conv
    return None


# ------------------------------------------------------------------ measuring
cold_cache = cache.disabled


def cold_compile(model: onnx.ModelProto, threads: int) -> tuple[lamina.CompiledModel, float]:
    """`lamina.compile` with the disk cache off, and its wall time in seconds."""
    with cold_cache():
        t0 = time.perf_counter()
        exe = lamina.compile(model, num_threads=threads)
        return exe, time.perf_counter() - t0


def warm_up() -> None:
    """Compile and run a one-op model: the process's one-off costs (lazy imports,
    LLVM's initialization, the JIT's libraries) then weigh on no row."""
    node = helper.make_node("Relu", ["x"], ["y"])
    exe, _ = cold_compile(_model([node], [_vi("x", [4])], [_vi("y", [4])], []), 1)
    exe.run(np.zeros(4, np.float32))


def numpy_blas_threads(n: int) -> bool:
    """Limit numpy's OpenBLAS to `n` threads (what threadpoolctl does, which the
    environment does not have); False if numpy's BLAS offers no such call."""
    import ctypes

    np.ones((2, 2)) @ np.ones((2, 2))  # make sure numpy's BLAS is loaded
    try:
        with open("/proc/self/maps") as f:
            paths = {ln.split()[-1] for ln in f if "openblas" in ln.lower() and "numpy" in ln}
    except OSError:
        return False
    done = False
    for path in paths:
        lib = ctypes.CDLL(path)
        for symbol in (
            "scipy_openblas_set_num_threads64_", "openblas_set_num_threads64_",
            "openblas_set_num_threads",
        ):
            fn = getattr(lib, symbol, None)
            if fn is not None:
                fn.argtypes = [ctypes.c_int]
                fn(n)
                done = True
                break
    return done


#: Seconds of pause before each engine's timing: the thread pools of the engine
#: timed before (onnxruntime's and lamina's workers spin a while after a call)
#: go idle first, instead of taking a core from the next.
SETTLE = 0.5


def _median(fn: Callable[[], object], repeat: int) -> float:
    """Median seconds of `repeat` calls after a warm-up (`lamina bench`'s timer),
    after a pause of `SETTLE`."""
    time.sleep(SETTLE)
    return float(np.median(latencies_ms(fn, repeat, 1))) / 1e3


def feeds(model: onnx.ModelProto, seed: int = 0) -> dict[str, np.ndarray]:
    """Random inputs (a symbolic dim is 1): floats from a normal distribution,
    int64 inputs (token ids) in 0..999."""
    rng = np.random.default_rng(seed)
    init = {i.name for i in model.graph.initializer}
    out: dict[str, np.ndarray] = {}
    for i in model.graph.input:
        if i.name in init:
            continue
        t = i.type.tensor_type
        dims = [d.dim_value or 1 for d in t.shape.dim]
        if t.elem_type == onnx.TensorProto.INT64:
            out[i.name] = rng.integers(0, 1000, dims).astype(np.int64)
        else:
            out[i.name] = rng.standard_normal(dims).astype(np.float32)
    return out


def model_flops(model: onnx.ModelProto) -> int:
    """Flops of one inference, from lamina's graph (see `topi.flops`)."""
    from lamina.dialects import relay
    from lamina.lowering.topi import flops

    module = lamina.from_onnx(model)
    return sum(flops(op) for op in module.walk() if isinstance(op, relay.RelayOp) and not isinstance(op, relay.ConstantOp))


@dataclass
class Row:
    model: str
    threads: int
    lamina_ms: float
    gflops: float
    ort_ms: float
    ratio: float
    numpy_ms: float | None
    compile_s: float
    arena_mb: float
    intermediates_mb: float
    max_rel_err: float


def measure(name: str, threads: int, repeat: int, profile: bool) -> Row:
    import onnxruntime as ort

    model = MODELS[name]()
    inputs = feeds(model)
    exe, compile_s = cold_compile(model, threads)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    sess = ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])
    ref = sess.run(None, inputs)[0]
    out = exe.run(**inputs)[0]
    err = float(np.abs(out - ref).max() / max(np.abs(ref).max(), 1e-30))
    if err > 1e-3:
        raise SystemExit(f"{name}: lamina differs from onnxruntime (max rel. error {err:.2e})")
    lam = _median(lambda: exe.run(**inputs), repeat)
    ortt = _median(lambda: sess.run(None, inputs), repeat)
    program = _numpy_program(name, model)
    numpy_blas_threads(threads)
    if program is not None:
        npt: float | None = _median(lambda: program(inputs), repeat)
        # numpy's OpenBLAS workers spin for a while after a call (THREAD_TIMEOUT,
        # ~2**28 cycles) and would steal the cores the next timing needs.
        time.sleep(0.5)
    elif threads == 1 and name not in ("resnet18", "resnet50_light"):
        from onnx.reference import ReferenceEvaluator

        evaluator = ReferenceEvaluator(model)
        npt = _median(lambda: evaluator.run(None, inputs), 1)
    else:
        npt = None
    if profile and threads == 1:
        _profile(model, inputs, repeat)
    return Row(
        name, threads, lam * 1e3, model_flops(model) / lam / 1e9, ortt * 1e3,
        lam / ortt, None if npt is None else npt * 1e3, compile_s,
        exe.workspace_size / 2**20, exe.intermediate_bytes / 2**20, err,
    )


def _profile(model: onnx.ModelProto, inputs: dict[str, np.ndarray], repeat: int) -> None:
    """lamina's slowest kernels, timed inside `main` (`lamina.tools.profile`, the
    mechanism of `lamina bench --profile`)."""
    from lamina.passes import PassContext
    from lamina.tools.profile import profile

    def build(ctx: PassContext) -> lamina.CompiledModel:
        return lamina.compile(model, num_threads=1, pass_context=ctx)

    kernels = profile(build, 3, inputs, repeat)
    total = sum(k.median_ms for k in kernels)
    print(f"  kernels: {sum(k.calls for k in kernels)} calls, {total:.2f} ms in all; slowest:")
    for k in kernels[:8]:
        print(f"    {k.median_ms:8.3f} ms  {k.name}  ({k.calls} call(s), {100 * k.share:.1f}%)")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default=",".join(MODELS), help="comma-separated: " + ", ".join(MODELS))
    p.add_argument(
        "--threads", default="1",
        help="comma-separated thread counts, each used by lamina, onnxruntime and numpy alike",
    )
    p.add_argument("--repeat", type=int, default=20)
    p.add_argument("--json", help="also write the rows to this file")
    p.add_argument("--profile", action="store_true", help="lamina's slowest kernels")
    args = p.parse_args(argv)
    thread_counts = [int(t) for t in args.threads.split(",")]
    if any(t < 1 for t in thread_counts):
        p.error("--threads: thread counts must be positive")
    same = "lamina (num_threads) and onnxruntime (intra_op_num_threads)"
    if numpy_blas_threads(1):
        same = "lamina (num_threads), onnxruntime (intra_op_num_threads) and numpy's OpenBLAS"
    else:
        same += "; numpy's BLAS could not be limited (its own default)"
    print(f"threads {args.threads}: each row ('thr') uses that many in {same}")
    print("compile times are cold: LAMINA_CACHE=0, set by this script around each compile")
    print(f"host: {describe_host()}")
    warm_up()
    rows = []
    header = (
        f"| {'model':<15}| thr | lamina ms | GFLOP/s | ORT ms | lamina/ORT | numpy ms "
        "| compile s | arena MB (of) |"
    )
    print(header)
    print("|" + "|".join("-" * (len(c)) for c in header.split("|")[1:-1]) + "|")
    for name in args.models.split(","):
        for threads in thread_counts:
            r = measure(name, threads, args.repeat, args.profile)
            rows.append(r)
            numpy_ms = "-" if r.numpy_ms is None else f"{r.numpy_ms:.2f}"
            print(
                f"| {r.model:<15}| {r.threads:>3} | {r.lamina_ms:>9.3f} | {r.gflops:>7.1f} | "
                f"{r.ort_ms:>6.3f} | {r.ratio:>10.2f} | {numpy_ms:>8} | {r.compile_s:>9.2f} | "
                f"{r.arena_mb:.1f} ({r.intermediates_mb:.1f}) |",
                flush=True,
            )
    if args.json:
        with open(args.json, "w") as f:
            json.dump([asdict(r) for r in rows], f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
