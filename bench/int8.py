"""int8 models quantized by onnxruntime (QDQ, per-channel weights), compiled by
lamina and checked and timed against onnxruntime's int8 run, in the same run.

    pip install -e '.[bench]'                       # torch/torchvision for the zoo export
    .venv/bin/python bench/int8.py                   # ResNet-18, ResNet-50 and BERT-base
    .venv/bin/python bench/int8.py --models resnet18 --inputs 100
    .venv/bin/python bench/int8.py --own --models resnet18 --calibrate minmax,kl

Each model of `bench/zoo_models.py` is quantized with
`onnxruntime.quantization.quantize_static` (QDQ format, u8 activations, s8
per-channel weights, calibrated on `--calibration` random inputs) and cached
next to the zoo's exports. lamina compiles the QDQ model (its `qnn` ops,
canonicalized) and runs `--inputs` other random inputs: the table gives how
often its top-1 (of the first output row: a classifier's logits, an encoder's
first token) equals onnxruntime's int8 top-1, the largest output difference in
quantization steps of the output (from onnxruntime's int8 run, and in brackets
from onnxruntime running the QDQ graph in float, unfused: the model's exact
meaning), the smallest cosine similarity with onnxruntime's int8 outputs, and
the 1-thread latencies of lamina's int8 build, onnxruntime's int8 and lamina's
fp32 build. The inputs are `bench/perf.py`'s random ones (token ids for BERT). The header names the
host's CPU and its measured peak.

`--own` quantizes the float zoo model with lamina's own quantizer instead
(`lamina.quantize`: calibrated on `--calibration` random inputs by each
`--calibrate` method, per-channel weights) and compares it with lamina's fp32
build on `--inputs` other inputs: the cosine similarity of the logits (the
smallest and the mean), how often the top-1 agrees, and the 1-thread latencies.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import onnx
from perf import feeds
from zoo import best_median, ort_session
from zoo_models import export, zoo_dir

import lamina
from lamina.codegen.peak import describe_host


def quantized(name: str, calibration: int) -> Path:
    """The zoo model `name` quantized to QDQ by onnxruntime (cached)."""
    from onnxruntime.quantization import (
        CalibrationDataReader,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    src = zoo_dir() / f"{name}.onnx"
    if not src.exists():
        export(name, src)
    out = zoo_dir() / f"{name}_qdq.onnx"
    if out.exists():
        return out
    model = onnx.load(str(src), load_external_data=False)

    class Reader(CalibrationDataReader):
        def __init__(self) -> None:
            self.it = iter([feeds(model, 12345 + k) for k in range(calibration)])

        def get_next(self):  # type: ignore[no-untyped-def]
            return next(self.it, None)

    pre = out.with_suffix(".pre.onnx")
    quant_pre_process(str(src), str(pre))
    quantize_static(
        str(pre), str(out), Reader(), quant_format=QuantFormat.QDQ, per_channel=True,
        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
    )
    pre.unlink()
    return out


def _steps(theirs: np.ndarray) -> float | None:
    """The output's quantization step (its smallest gap between values) when
    it lies on a grid (logits dequantized from u8), else None (features that
    leave the integers through float ops, as an encoder's last LayerNorm)."""
    values = np.unique(theirs)
    if values.size < 2:
        return 1.0
    step = float(np.diff(values).min())
    on_grid = np.allclose(np.round((values - values[0]) / step) * step, values - values[0], atol=step * 1e-3)
    return step if on_grid else None


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    a, b = a.ravel().astype(np.float64), b.ravel().astype(np.float64)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def run(name: str, inputs: int, calibration: int, rounds: int) -> str:
    path = quantized(name, calibration)
    model = onnx.load(str(path))
    t0 = time.perf_counter()
    exe = lamina.compile(model, num_threads=1)
    compile_s = time.perf_counter() - t0
    fp32 = lamina.compile(str(zoo_dir() / f"{name}.onnx"), num_threads=1)
    sess = ort_session(model, 1)
    exact = _float_qdq_session(model)
    same, worst, cosine, worst_exact = 0, 0.0, 1.0, 0.0
    for i in range(inputs):
        x = feeds(model, i)
        ours, theirs, ref = exe.run(**x)[0], sess.run(None, x)[0], exact.run(None, x)[0]
        # top-1 of the first row (a classifier's logits; an encoder's first token)
        same += int(ours.reshape(-1, ours.shape[-1])[0].argmax() == theirs.reshape(-1, theirs.shape[-1])[0].argmax())
        step = _steps(theirs)
        worst = max(worst, float(np.abs(ours - theirs).max() / step)) if step is not None else np.nan
        worst_exact = max(worst_exact, float(np.abs(ours - ref).max() / step)) if step is not None else np.nan
        cosine = min(cosine, _cosine(ours, theirs))
    x = feeds(model, 0)
    q, o, f = best_median([lambda: exe.run(**x), lambda: sess.run(None, x), lambda: fp32.run(**x)], rounds)
    print(f"  {name}: top-1 {same}/{inputs}, {q:.2f} ms (ORT int8 {o:.2f}, lamina fp32 {f:.2f})", flush=True)
    steps = "-" if np.isnan(worst) else f"{worst:.1f} ({worst_exact:.1f})"
    return (
        f"| {name} | {compile_s:.1f} s | {same}/{inputs} | {steps} | {cosine:.5f} | {q:.2f} | {o:.2f} | {f:.2f} | "
        f"{q / o:.2f}x | {f / q:.2f}x |"
    )


def _float_qdq_session(model: onnx.ModelProto):  # type: ignore[no-untyped-def]
    """onnxruntime running the QDQ graph as written (no int8 fusions: each
    DequantizeLinear and QuantizeLinear in float), the model's exact meaning."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    opts.intra_op_num_threads = 1
    return ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])


def run_own(name: str, method: str, inputs: int, calibration: int, rounds: int) -> str:
    """lamina's quantizer on the float zoo model `name`, against lamina's fp32 build."""
    src = zoo_dir() / f"{name}.onnx"
    if not src.exists():
        export(name, src)
    model = onnx.load(str(src))
    vi = model.graph.input[0]
    shape = [d.dim_value or 1 for d in vi.type.tensor_type.shape.dim]
    rng = np.random.default_rng(12345)
    samples = [rng.standard_normal(shape).astype(np.float32) for _ in range(calibration)]
    t0 = time.perf_counter()
    result = lamina.quantize(model, samples, calibrate=method)
    quantize_s = time.perf_counter() - t0
    exe = lamina.compile(result.model, num_threads=1)
    fp32 = lamina.compile(model, num_threads=1)
    cosines, same = [], 0
    for i in range(inputs):
        x = np.random.default_rng(1000 + i).standard_normal(shape).astype(np.float32)
        a, b = exe.run(x)[0].ravel().astype(np.float64), fp32.run(x)[0].ravel().astype(np.float64)
        cosines.append(float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b))))
        same += int(a.argmax() == b.argmax())
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    q, f = best_median([lambda: exe.run(x), lambda: fp32.run(x)], rounds)
    print(f"  {name} ({method}): cosine min {min(cosines):.4f}, {q:.2f} ms (fp32 {f:.2f}); "
          f"left in float: {[str(x) for x in result.left]}", flush=True)
    return (
        f"| {name} | {method} | {quantize_s:.1f} s | {min(cosines):.4f} | {np.mean(cosines):.4f} | {same}/{inputs} "
        f"| {q:.2f} | {f:.2f} | {f / q:.2f}x | {len(result.left)} |"
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default="resnet18,resnet50,bert")
    p.add_argument("--inputs", type=int, default=100, help="random inputs compared with onnxruntime")
    p.add_argument("--calibration", type=int, default=32, help="calibration inputs for quantize_static")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--own", action="store_true", help="lamina's quantizer on the float model instead")
    p.add_argument("--calibrate", default="minmax", help="--own's calibration methods (minmax,percentile,kl)")
    args = p.parse_args(argv)
    print(f"host: {describe_host()}")
    if args.own:
        rows = [
            run_own(n, m, args.inputs, args.calibration, args.rounds)
            for n in args.models.split(",") for m in args.calibrate.split(",")
        ]
        print(
            "\n| model (fp32) | calibrate | quantize | cosine min | cosine mean | top-1 = fp32 | lamina int8 ms "
            "| lamina fp32 ms | fp32 / int8 | left in float |\n|---|---|---|---|---|---|---|---|---|---|"
        )
        print("\n".join(rows))
        return 0
    rows = [run(n, args.inputs, args.calibration, args.rounds) for n in args.models.split(",")]
    print(
        "\n| model (QDQ) | compile | top-1 = ORT int8 | max output diff, steps (vs the QDQ graph in float) | min cosine vs ORT int8 | lamina int8 ms "
        "| ORT int8 ms | lamina fp32 ms | int8 vs ORT int8 | fp32 / int8 |\n|---|---|---|---|---|---|---|---|---|---|"
    )
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
