"""Real models compiled for other machines and run there: every zoo model given
(default ResNet-18, MobileNetV2 and BERT-base from torchvision and transformers,
random weights, `bench/zoo_models.py`) compiled for aarch64 (NEON), riscv64 (RVV)
and wasm32 (SIMD128), exported, and run through `lamina run`'s machinery
(`lamina.codegen.artifact.run_artifact`: the C runner under qemu-user, or
wasmtime), against onnxruntime on this machine.

    python bench/cross.py [--models resnet18,mobilenet_v2,bert] [--targets ...]

The table gives the largest error relative to the largest output, compile and
export time, and the run time under emulation (qemu's and wasmtime's time on
this host, not the target's speed).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort

sys.path.insert(0, str(Path(__file__).resolve().parent))

import zoo_models

import lamina
from lamina.codegen.artifact import run_artifact
from lamina.codegen.peak import describe_host

TARGETS = ["aarch64-linux-gnu", "riscv64-linux-gnu -mattr=+v", "wasm32"]


def _inputs(model) -> dict[str, np.ndarray]:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(0)
    feeds = {}
    for i in model.graph.input:
        shape = [d.dim_value or 1 for d in i.type.tensor_type.shape.dim]
        if i.type.tensor_type.elem_type == 7:  # int64 token ids
            feeds[i.name] = rng.integers(0, 1000, shape).astype(np.int64)
        else:
            feeds[i.name] = rng.standard_normal(shape).astype(np.float32)
    return feeds


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default="resnet18,mobilenet_v2,bert")
    p.add_argument("--targets", default=";".join(TARGETS), help="';'-separated target strings")
    args = p.parse_args()
    print(f"host: {describe_host()}")
    print("| model | target | max rel. error vs onnxruntime | compile + export s | run s (emulated) |")
    print("|---|---|---|---|---|")
    worst = 0.0
    for name in args.models.split(","):
        model = zoo_models.load(name)
        feeds = _inputs(model)
        sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        want = sess.run(None, feeds)
        for target in args.targets.split(";"):
            with tempfile.TemporaryDirectory() as tmp:
                path = Path(tmp) / (f"{name}.wasm" if target.startswith("wasm") else f"{name}.so")
                t0 = time.perf_counter()
                lamina.compile(model, target=target).export(path)
                t1 = time.perf_counter()
                got = run_artifact(path, feeds)
                t2 = time.perf_counter()
            err = max(
                float(np.abs(g - w).max()) / max(float(np.abs(w).max()), 1e-12)
                for g, w in zip(got, want, strict=True)
            )
            worst = max(worst, err)
            print(f"| {name} | `{target}` | {err:.1e} | {t1 - t0:.1f} | {t2 - t1:.1f} |", flush=True)
    print(f"\nworst relative error: {worst:.1e} ({'within' if worst <= 1e-4 else 'OVER'} 1e-4)")
    return 0 if worst <= 1e-4 else 1


if __name__ == "__main__":
    raise SystemExit(main())
