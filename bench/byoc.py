"""BYOC benchmark: lamina with targets=["blas"] vs onnxruntime, equal threads.

    python bench/byoc.py                       # MatMul 512^3 and ResNet-18 224x224
    python bench/byoc.py --models matmul       # one of: matmul, resnet18, mlp
    python bench/byoc.py --coretype SkylakeX   # OpenBLAS kernels (LAMINA_OPENBLAS_CORETYPE)
    python bench/byoc.py --no-blas             # lamina's own kernels, for comparison
    python bench/byoc.py --threads 2           # both on 2 threads

Both run on the same number of threads, `--threads` (default 1): lamina and its
OpenBLAS with num_threads = threads, onnxruntime with intra_op_num_threads =
threads (inter_op_num_threads = 1); the output says which. "run()" is `CompiledModel.run` (it copies the inputs
into padded, aligned buffers and allocates the outputs); "native" calls the
compiled entry point alone with bound buffers. Each latency is the minimum and the median over
`--runs` runs after a warm-up; outputs are checked against onnxruntime. The compile
time is cold: the script turns lamina's disk cache off (`LAMINA_CACHE=0`) for it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time


def _times(fn, runs: int) -> tuple[float, float]:
    fn()
    ts = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return min(ts) * 1e3, statistics.median(ts) * 1e3


def _native_call(exe, feeds):
    """The compiled main alone, inputs bound and outputs allocated once (what
    run() adds: input copies and output allocation). None if the executor's
    internals changed."""
    import ctypes

    try:
        ins = exe._bind((), feeds)
        from lamina.runtime.model import aligned_empty

        outs = [aligned_empty(s.shape, s.dtype) for s in exe.outputs]
        table = (ctypes.c_void_p * (len(ins) + len(outs)))(*[a.ctypes.data for a in (*ins, *outs)])
        ws = exe._workspace()
        params = ctypes.addressof(exe._param_table)

        def call(keep=(ins, outs)):  # the buffers must outlive the calls
            exe._entry(ctypes.addressof(table), params, ws.ctypes.data)

        call()
        return call
    except Exception:
        return None


def _matmul(n: int = 512):
    import numpy as np
    from onnx import TensorProto, helper

    g = helper.make_graph(
        [helper.make_node("MatMul", ["a", "b"], ["c"])],
        "matmul",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, [n, n]),
         helper.make_tensor_value_info("b", TensorProto.FLOAT, [n, n])],
        [helper.make_tensor_value_info("c", TensorProto.FLOAT, [n, n])],
    )
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    rng = np.random.default_rng(0)
    feeds = {"a": rng.standard_normal((n, n), dtype=np.float32),
             "b": rng.standard_normal((n, n), dtype=np.float32)}
    return f"MatMul {n}x{n}x{n}", model, feeds


def _resnet18(size: int = 224):
    import numpy as np

    from lamina.tools.models import resnet18

    x = np.random.default_rng(0).standard_normal((1, 3, size, size), dtype=np.float32)
    return f"ResNet-18 {size}x{size}", resnet18(batch=1, image_size=size), {"input": x}


def _mlp():
    import numpy as np

    from lamina.tools.demo import mlp_model

    x = np.random.default_rng(0).standard_normal((1, 784), dtype=np.float32)
    return "MLP 784-512-512-10", mlp_model(), {"input": x}


MODELS = {"matmul": _matmul, "resnet18": _resnet18, "mlp": _mlp}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="matmul,resnet18")
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--coretype", help="OpenBLAS kernel set, e.g. SkylakeX or Haswell")
    ap.add_argument("--no-blas", action="store_true", help="compile without targets")
    ap.add_argument(
        "--threads", type=int, default=1,
        help="threads for lamina (num_threads) and onnxruntime (intra_op_num_threads) alike",
    )
    args = ap.parse_args(argv)
    if args.threads < 1:
        ap.error("--threads must be positive")
    if args.coretype:
        os.environ["LAMINA_OPENBLAS_CORETYPE"] = args.coretype

    import numpy as np
    import onnxruntime as ort

    import lamina
    from lamina.codegen import cache

    targets = [] if args.no_blas else ["blas"]
    if targets:
        from lamina.backends import blas

        print(f"OpenBLAS kernels: {blas.openblas_core()}")
    print(
        f"threads: {args.threads} for lamina (num_threads) and onnxruntime "
        "(intra_op_num_threads) alike; compile times are cold (LAMINA_CACHE=0)"
    )
    print(
        f"{'model':<22} {'lamina run() ms':>19} {'ORT ms':>17} {'ratio':>6}"
        f" {'lamina native ms':>17} {'ratio':>6}"
    )
    print(f"{'':<22} {'min / median':>19} {'min / median':>17} {'':>6} {'min':>17}")
    for name in args.models.split(","):
        title, model, feeds = MODELS[name]()
        with cache.disabled():  # a cold compile, whatever the caller says
            t = time.perf_counter()
            exe = lamina.compile(model, targets=targets, num_threads=args.threads)
            compile_s = time.perf_counter() - t
        so = ort.SessionOptions()
        so.intra_op_num_threads = args.threads
        so.inter_op_num_threads = 1
        sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
        ours = exe.run(**feeds)[0]
        ref = sess.run(None, feeds)[0]
        err = float(np.abs(ours - ref).max() / max(np.abs(ref).max(), 1e-30))
        lmin, lmed = _times(lambda exe=exe, feeds=feeds: exe.run(**feeds), args.runs)
        omin, omed = _times(lambda sess=sess, feeds=feeds: sess.run(None, feeds), args.runs)
        native = _native_call(exe, feeds)
        nmin = _times(native, args.runs)[0] if native else float("nan")
        print(
            f"{title:<22} {lmin:8.3f} / {lmed:8.3f} {omin:7.3f} / {omed:7.3f} {lmin / omin:5.2f}x"
            f" {nmin:17.3f} {nmin / omin:5.2f}x   (max rel err {err:.1e}, compile {compile_s:.1f} s)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
