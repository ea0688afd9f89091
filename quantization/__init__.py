"""lamina's post-training quantizer, in TVM's annotate -> calibrate -> realize
shape, on ONNX:

    q = lamina.quantize("model.onnx", samples, calibrate="minmax")
    exe = lamina.compile(q.model)         # integer qnn ops (qnn-fold-qdq)
    for layer in q.left: print(layer)     # what stayed float, and why

- annotate (`annotate.py`): batch norms folded into their convolutions, then
  the nodes to quantize: Conv/Gemm/MatMul (with a bias Add and a Relu/Clip
  fused), Add, Mul, Concat, pools, data movement; the rest stays float;
- calibrate (`calibrate.py`): the float model compiled by lamina runs the
  calibration inputs; each annotated activation's range by min-max,
  percentile (99.99) or KL-divergence (entropy) calibration;
- realize (`realize.py`): a QDQ ONNX model (u8 activations, s8 weights per
  channel or per tensor, i32 biases), which lamina compiles to integer ops and
  onnxruntime runs as int8.

`quantize` returns a `QuantizedModel`: the QDQ `onnx.ModelProto`, the nodes left
in float with their reasons (also logged at INFO on `lamina.quantization`),
and the calibrated ranges.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import onnx

from lamina.errors import InputError
from lamina.quantization.annotate import LeftInFloat, annotate, fold_batch_norms
from lamina.quantization.calibrate import METHODS
from lamina.quantization.calibrate import calibrate as calibrate_ranges
from lamina.quantization.realize import realize

LOG = logging.getLogger("lamina.quantization")


@dataclass(frozen=True)
class QuantizedModel:
    """What `quantize` returns: the QDQ model, the nodes left in float with
    why, and each calibrated activation's [min, max]."""

    model: onnx.ModelProto
    left: list[LeftInFloat]
    ranges: dict[str, tuple[float, float]]


def _inputs(model: onnx.ModelProto) -> list[str]:
    inits = {i.name for i in model.graph.initializer}
    return [i.name for i in model.graph.input if i.name not in inits]


def _input_shapes(model: onnx.ModelProto) -> dict[str, list[int | str]]:
    """Each input's declared shape: sizes, and names (or '?') for symbolic dims."""
    out: dict[str, list[int | str]] = {}
    inits = {i.name for i in model.graph.initializer}
    for vi in model.graph.input:
        tt = vi.type.tensor_type
        if vi.name in inits or not vi.type.HasField("tensor_type") or not tt.HasField("shape"):
            continue
        out[vi.name] = [
            d.dim_value if d.HasField("dim_value") else (d.dim_param or "?") for d in tt.shape.dim
        ]
    return out


def _check_shape(k: int, name: str, given: tuple[int, ...], expected: list[int | str]) -> None:
    """A sample's array against its input's declared shape (symbolic dims take any size)."""
    if len(given) == len(expected) and all(
        not isinstance(e, int) or e == g for g, e in zip(given, expected, strict=True)
    ):
        return
    shown = "[" + ", ".join(map(str, expected)) + "]"
    raise InputError(
        f"quantize: calibration sample {k}: input '{name}' has shape {list(given)}, but "
        f"the model's input '{name}' is {shown}; give samples of the input's shape (one "
        "inference's input each)"
    )


def samples_of(model: onnx.ModelProto, data: Iterable[Mapping[str, Any] | np.ndarray]) -> list[dict[str, np.ndarray]]:
    """Calibration samples as input dicts: each item a dict of the model's
    inputs, or (a one-input model) the input's array; each array is checked
    against its input's declared shape."""
    names = _inputs(model)
    shapes = _input_shapes(model)
    out = []
    for k, item in enumerate(data):
        if isinstance(item, np.ndarray):
            if len(names) != 1:
                raise InputError(
                    f"quantize: calibration sample {k} is one array, but the model has inputs "
                    f"{names}; give a dict of them"
                )
            item = {names[0]: item}
        if not isinstance(item, Mapping):
            raise InputError(f"quantize: calibration sample {k} is a {type(item).__name__}; give a dict of arrays")
        missing = [n for n in names if n not in item]
        if missing:
            raise InputError(f"quantize: calibration sample {k} lacks inputs {missing} (the model's inputs: {names})")
        sample = {n: np.asarray(item[n]) for n in names}
        for n in names:
            if n in shapes:
                _check_shape(k, n, sample[n].shape, shapes[n])
        out.append(sample)
    return out


def _load(model: onnx.ModelProto | str | Path) -> onnx.ModelProto:
    if isinstance(model, onnx.ModelProto):
        return model
    path = Path(model)
    if not path.is_file():
        raise InputError(f"quantize: no ONNX model at '{path}'")
    return onnx.load(str(path))


def quantize(
    model: onnx.ModelProto | str | Path,
    calibration_data: Iterable[Mapping[str, Any] | np.ndarray],
    calibrate: str = "minmax",
    per_channel: bool = True,
    skip: Iterable[str] = (),
) -> QuantizedModel:
    """Quantize a float ONNX model (a ModelProto or a path) after calibrating it
    on `calibration_data` (input dicts, or arrays for a one-input model) with
    `calibrate` (`minmax`, `percentile` or `kl`); weights per output channel
    unless `per_channel=False`; `skip`: node names (or first outputs) to leave
    in float."""
    if calibrate not in METHODS:
        raise InputError(f"quantize: unknown calibration method '{calibrate}'; use one of {', '.join(METHODS)}")
    float_model = fold_batch_norms(_load(model))
    samples = samples_of(float_model, calibration_data)
    plan = annotate(float_model, skip)
    ranges = calibrate_ranges(float_model, plan.tensors, samples, calibrate)
    quantized = realize(float_model, plan, ranges, per_channel)
    for layer in plan.left:
        LOG.info("left in float: %s", layer)
    return QuantizedModel(quantized, plan.left, ranges)


__all__ = ["METHODS", "LeftInFloat", "QuantizedModel", "quantize", "samples_of"]
