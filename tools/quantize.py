"""`lamina quantize`'s work: calibration inputs from files, the quantized model
written as ONNX (QDQ) or as graph-level IR (its integer qnn ops), and the
report of what stayed float.

Calibration inputs (`--calibration`): an `.npz` file or a folder of `.npy` /
`.npz` files (in name order). An array of an input's rank is one sample; one
rank higher, samples stacked along its first axis. A `.npy` (or an unnamed
`arr_0`) is the input of a one-input model; an `.npz` names its inputs.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import onnx

from lamina.errors import LaminaError
from lamina.fileio import check_writable, write_atomic
from lamina.frontends.onnx import from_onnx
from lamina.ir import print_ir
from lamina.passes import PassContext, run_pipeline
from lamina.quantization import METHODS, QuantizedModel, quantize

OUTPUTS = (".onnx", ".mlir")


def _ranks(model: onnx.ModelProto) -> dict[str, int]:
    inits = {i.name for i in model.graph.initializer}
    return {i.name: len(i.type.tensor_type.shape.dim) for i in model.graph.input if i.name not in inits}


def _read(path: Path) -> dict[str, np.ndarray]:
    try:
        data = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as e:
        raise LaminaError(f"cannot read calibration inputs from '{path}': {e}") from None
    return {"arr_0": data} if isinstance(data, np.ndarray) else dict(data.items())


def _samples(arrays: dict[str, np.ndarray], ranks: dict[str, int], where: Path) -> list[dict[str, np.ndarray]]:
    """The samples one file holds: one, or several stacked along a first axis."""
    if set(arrays) == {"arr_0"} and len(ranks) == 1:
        arrays = {next(iter(ranks)): arrays["arr_0"]}
    missing = sorted(set(ranks) - set(arrays))
    if missing:
        raise LaminaError(
            f"calibration file '{where}' lacks inputs {missing}: name its arrays after the model's "
            f"inputs {sorted(ranks)} (np.savez(FILE, {next(iter(ranks))}=...))"
        )
    stacked = {n: arrays[n].ndim == ranks[n] + 1 for n in ranks}
    for n, rank in ranks.items():
        if arrays[n].ndim not in (rank, rank + 1):
            raise LaminaError(
                f"calibration input '{n}' in '{where}' has rank {arrays[n].ndim}; the model's input "
                f"has rank {rank} (give one sample, or samples stacked along a first axis)"
            )
    if not any(stacked.values()):
        return [{n: arrays[n] for n in ranks}]
    counts = {arrays[n].shape[0] for n in ranks if stacked[n]}
    if len(counts) != 1 or not all(stacked.values()):
        raise LaminaError(f"calibration file '{where}': its inputs hold different numbers of samples")
    return [{n: arrays[n][k] for n in ranks} for k in range(counts.pop())]


def load_calibration(path: str, model: onnx.ModelProto) -> list[dict[str, np.ndarray]]:
    """The calibration samples in an `.npz` file or a folder of `.npy`/`.npz` files."""
    where = Path(path)
    ranks = _ranks(model)
    if where.is_dir():
        files = sorted(p for p in where.iterdir() if p.suffix in (".npy", ".npz"))
        if not files:
            raise LaminaError(f"calibration folder '{where}' has no .npy or .npz files")
    elif where.is_file():
        files = [where]
    else:
        raise LaminaError(f"cannot read calibration inputs '{where}': no such file or folder")
    return [s for f in files for s in _samples(_read(f), ranks, f)]


def write(result: QuantizedModel, output: str) -> str:
    """Write the quantized model: `.onnx` (QDQ) or `.mlir` (graph-level IR after
    `qnn-fold-qdq`, weights included); what was written, for the report."""
    suffix = Path(output).suffix.lower()
    if suffix == ".onnx":
        write_atomic(output, result.model.SerializeToString())
        return "QDQ ONNX"
    module = run_pipeline(from_onnx(result.model), "qnn-fold-qdq", PassContext(opt_level=3))
    write_atomic(output, print_ir(module, resources_limit=None))
    return "graph-level IR with integer qnn ops"


def check_output(output: str) -> None:
    if Path(output).suffix.lower() not in OUTPUTS:
        raise LaminaError(f"cannot write a quantized model to '{output}': give -o FILE.onnx (QDQ) or FILE.mlir (qnn IR)")


def report(result: QuantizedModel) -> list[str]:
    """The lines saying what stayed float and why."""
    if not result.left:
        return ["every quantizable node is quantized; none left in float"]
    return [f"left in float ({len(result.left)}):", *(f"  {layer}" for layer in result.left)]


def cmd_quantize(args: argparse.Namespace, model_file: Callable[[str, Sequence[str]], tuple[Path, str]]) -> int:
    """`lamina quantize`: lamina's quantizer (annotate, calibrate on the float
    model compiled by lamina, realize) to a QDQ .onnx or qnn .mlir file;
    `model_file` checks the model path as the other commands do."""
    path, _ = model_file(args.model, ("onnx",))
    check_output(args.output)
    check_writable(args.output)
    float_model = onnx.load(str(path))
    samples = load_calibration(args.calibration, float_model)
    result = quantize(float_model, samples, calibrate=args.calibrate, per_channel=not args.per_tensor, skip=args.skip)
    what = write(result, args.output)
    weights = "per tensor" if args.per_tensor else "per channel"
    print(f"quantized {path.name} ({args.calibrate} on {len(samples)} inputs, weights {weights}) -> {args.output} ({what})")
    print("\n".join(report(result)))
    return 0


def add_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser,
               fn: Callable[[argparse.Namespace], int]) -> None:
    """The `quantize` subcommand, running `fn`."""
    q = sub.add_parser("quantize", parents=[common], help="quantize a float model to int8 (QDQ)")
    q.add_argument("model", help="a float ONNX model")
    q.add_argument("--calibration", required=True, metavar="DIR|FILE.npz",
                   help="calibration inputs: a folder of .npy/.npz files, or an .npz")
    q.add_argument("-o", "--output", required=True, metavar="OUT.onnx|OUT.mlir",
                   help="the QDQ ONNX model, or its graph-level IR (integer qnn ops)")
    q.add_argument("--calibrate", choices=METHODS, default="minmax", help="range calibration (default minmax)")
    q.add_argument("--per-tensor", action="store_true", help="one scale per weight (default: per channel)")
    q.add_argument("--skip", nargs="+", default=[], metavar="NAME", help="nodes (by name or first output) to leave in float")
    q.set_defaults(fn=fn)


__all__ = ["OUTPUTS", "add_parser", "check_output", "cmd_quantize", "load_calibration", "report", "write"]
