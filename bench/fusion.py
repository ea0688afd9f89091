"""Kernels launched and latency with and without operator fusion, vs onnxruntime.

    .venv/bin/python bench/fusion.py                       # ResNet-18 + transformer block
    .venv/bin/python bench/fusion.py --models resnet18 --image-size 64 --repeat 5
    .venv/bin/python bench/fusion.py --threads 2              # both on 2 threads

For each model (tools/models.py) and each configuration

- `O1`: opt level 1 (simplify-inference, fold-constant; no fusion),
- `O3-nofuse`: opt level 3 with `disabled_passes=["fuse-ops"]`,
- `O3`: opt level 3 (fusion),

it reports the kernels one inference launches (graph ops left in `main` after the
graph passes: a `relay.fused` group is one kernel, constants none), the fused
groups, the compile time and the median latency over `--repeat` runs after one
warm-up run, next to onnxruntime's (CPU provider, all graph optimizations) on the
same input in the same process.

Both run on the same number of threads, `--threads` (default 1): lamina compiles
with `num_threads` = threads, onnxruntime gets `intra_op_num_threads` = threads
(`inter_op_num_threads` = 1); the output says which. Compile times are cold: the
script turns lamina's disk cache off itself (`LAMINA_CACHE=0` around each compile), after compiling a one-op model so that
no configuration pays the process's start-up.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

import numpy as np
import onnx

import lamina
from lamina.codegen import cache
from lamina.passes import PassContext, run_pipeline
from lamina.tools.models import resnet18, transformer_block
from lamina.tools.report import measure

CONFIGS: dict[str, Callable[[], PassContext]] = {
    "O1": lambda: PassContext(opt_level=1),
    "O3-nofuse": lambda: PassContext(opt_level=3, disabled_passes=["fuse-ops"]),
    "O3": lambda: PassContext(opt_level=3),
}


def _input(model: onnx.ModelProto) -> np.ndarray:
    dims = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]
    return np.random.default_rng(0).standard_normal(dims).astype(np.float32)


def _median_time(fn: Callable[[], object], repeat: int) -> float:
    """Median seconds of `repeat` calls after a warm-up (`lamina bench`'s timer)."""
    return float(np.median(measure(fn, repeat, 1))) / 1e3


cold_cache = cache.disabled


def warm_up() -> None:
    """Compile and run a one-op model: the process's one-off costs (lazy imports,
    LLVM's initialization) then weigh on no configuration's compile time."""
    from onnx import TensorProto, helper

    vi = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [4]) for n in "xy"]
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "warm", vi[:1], vi[1:])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    with cold_cache():
        lamina.compile(model, num_threads=1).run(np.zeros(4, np.float32))


def kernel_count(model: onnx.ModelProto, ctx: PassContext) -> tuple[int, int]:
    """(kernels launched, fused groups) after the graph passes under `ctx`."""
    from xdsl.dialects import func

    mod = lamina.from_onnx(model)
    run_pipeline(mod, "optimize", ctx)
    fn = next(op for op in mod.ops if isinstance(op, func.FuncOp))
    kernels = [
        op for op in fn.body.block.ops if op.name not in ("relay.constant", "func.return")
    ]
    return len(kernels), sum(1 for op in kernels if op.name == "relay.fused")


def bench_model(
    name: str, model: onnx.ModelProto, repeat: int, threads: int = 1
) -> list[dict[str, object]]:
    """onnxruntime's row and one per configuration, all on `threads` threads."""
    import onnxruntime as ort

    x = _input(model)
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    feed = {sess.get_inputs()[0].name: x}
    ref = sess.run(None, feed)[0]
    rows: list[dict[str, object]] = [
        {
            "model": name,
            "config": "onnxruntime",
            "threads": threads,
            "kernels": len(model.graph.node),
            "groups": "-",
            "compile_s": "-",
            "latency_ms": 1e3 * _median_time(lambda: sess.run(None, feed), repeat),
            "max_err": 0.0,
        }
    ]
    for config, make_ctx in CONFIGS.items():
        kernels, groups = kernel_count(model, make_ctx())
        with cold_cache():
            t = time.perf_counter()
            exe = lamina.compile(model, num_threads=threads, pass_context=make_ctx())
            compile_s = time.perf_counter() - t
        (y,) = exe.run(x)
        rows.append(
            {
                "model": name,
                "config": config,
                "threads": threads,
                "kernels": kernels,
                "groups": groups,
                "compile_s": compile_s,
                "latency_ms": 1e3 * _median_time(lambda exe=exe: exe.run(x), repeat),
                "max_err": float(np.max(np.abs(y - ref))),
            }
        )
        print(_row(rows[-1]), file=sys.stderr, flush=True)
    return rows


def _row(r: dict[str, object]) -> str:
    def f(v: object, spec: str) -> str:
        return format(v, spec) if isinstance(v, float) else str(v)

    return (
        f"| {r['model']} | {r['config']} | {r['threads']} | {r['kernels']} | {r['groups']} | "
        f"{f(r['compile_s'], '.2f')} | {f(r['latency_ms'], '.1f')} | {f(r['max_err'], '.1e')} |"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="resnet18,transformer", help="comma-separated")
    ap.add_argument("--image-size", type=int, default=224, help="ResNet-18 input side")
    ap.add_argument("--seq", type=int, default=128, help="transformer sequence length")
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument(
        "--threads", type=int, default=1,
        help="threads for lamina (num_threads) and onnxruntime (intra_op_num_threads) alike",
    )
    args = ap.parse_args(argv)
    if args.threads < 1:
        ap.error("--threads must be positive")
    print(
        f"threads: {args.threads} for lamina (num_threads) and onnxruntime "
        f"(intra_op_num_threads) alike; compile times are cold (LAMINA_CACHE=0)",
        file=sys.stderr, flush=True,
    )
    warm_up()
    builders = {
        "resnet18": lambda: resnet18(image_size=args.image_size),
        "transformer": lambda: transformer_block(seq=args.seq),
    }
    rows = []
    for name in args.models.split(","):
        if name not in builders:
            ap.error(f"unknown model {name!r}; known: {', '.join(builders)}")
        rows += bench_model(name, builders[name](), args.repeat, args.threads)
    print(
        f"Threads: {args.threads} for lamina (num_threads) and onnxruntime "
        "(intra_op_num_threads) alike."
    )
    print(
        "| model | config | threads | kernels | fused groups | compile (s) | latency (ms) "
        "| max abs err |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(_row(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
