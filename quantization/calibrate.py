"""Calibrate: the range of each annotated activation, from the float model
compiled by lamina and run on calibration inputs (TVM's calibrate step).

- `minmax`: the smallest and largest value seen;
- `percentile`: the 0.01th and 99.99th percentiles of the values (a 2048-bin
  histogram over the min-max range, from a second pass);
- `kl`: TensorRT's entropy calibration: the clipping threshold of |x| whose
  quantized distribution (255 levels for a non-negative tensor, 127 each side
  for a signed one) is closest to the histogram in KL divergence. Exact zeros
  are left out of the histogram: the zero point holds them at any scale, and
  a ReLU's spike of them would otherwise pull the threshold far in.

The model gets the tensors as extra outputs and is compiled once (`compile`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
import onnx
from onnx import TensorProto, helper

from lamina.driver import compile as lamina_compile
from lamina.errors import LaminaError

METHODS = ("minmax", "percentile", "kl")
BINS = 2048
PERCENTILE = 99.99


def _probe(model: onnx.ModelProto, tensors: Sequence[str]) -> onnx.ModelProto:
    """`model` with `tensors` as extra outputs."""
    out = onnx.ModelProto()
    out.CopyFrom(model)
    have = {o.name for o in out.graph.output}
    out.graph.output.extend(helper.make_tensor_value_info(t, TensorProto.FLOAT, None) for t in tensors if t not in have)
    return out


class _Observer:
    """The float model with `tensors` as outputs, compiled once by lamina; each
    pass over the samples yields each sample's finite values of each tensor."""

    def __init__(self, model: onnx.ModelProto, tensors: Sequence[str], samples: Sequence[dict[str, np.ndarray]]) -> None:
        self.samples = samples
        self.exe = lamina_compile(_probe(model, tensors), input_shapes={k: list(v.shape) for k, v in samples[0].items()})
        self.wanted = set(tensors)

    def __iter__(self) -> Iterator[dict[str, np.ndarray]]:
        names = [s.name for s in self.exe.outputs]
        for feeds in self.samples:
            outs = self.exe.run(**feeds)
            yield {n: v[np.isfinite(v)] for n, v in zip(names, outs, strict=True) if n in self.wanted}


def kl_threshold(hist: np.ndarray, edges: np.ndarray, levels: int) -> float:
    """TensorRT's entropy calibration over a histogram of |x|: the threshold
    (an upper bin edge) minimizing KL(P || Q), P the histogram clipped there
    (outliers into its last bin), Q it merged into `levels` bins and spread
    back over the bins P has."""
    hist = hist.astype(np.float64)
    if hist.sum() == 0 or len(hist) <= levels:
        return float(edges[-1])
    best, best_i = np.inf, len(hist)
    for i in range(levels, len(hist) + 1):
        p = hist[:i].copy()
        p[-1] += hist[i:].sum()
        chunk = np.arange(i) * levels // i
        present = hist[:i] > 0
        sums = np.bincount(chunk, weights=hist[:i], minlength=levels)
        counts = np.bincount(chunk, weights=present, minlength=levels)
        q = np.where(present, sums[chunk] / np.maximum(counts[chunk], 1), 0.0)
        p /= p.sum()
        q /= max(q.sum(), 1e-300)
        mask = p > 0
        q_safe = np.where(q[mask] > 0, q[mask], 1e-12)  # a bin P has and Q lost: heavily penalized
        divergence = float(np.sum(p[mask] * np.log(p[mask] / q_safe)))
        if divergence < best:
            best, best_i = divergence, i
    return float(edges[best_i])


def _histogram_ranges(observed: _Observer, bounds: dict[str, tuple[float, float]], method: str) -> dict[str, tuple[float, float]]:
    """Percentile or KL ranges from a second pass: histograms over the
    min-max bounds (signed for percentile, of |x| for KL)."""
    spans = {t: (lo, hi) if method == "percentile" else (0.0, max(abs(lo), abs(hi))) for t, (lo, hi) in bounds.items()}
    hists = {t: np.zeros(BINS) for t in bounds}
    for values in observed:
        for t, (a, b) in spans.items():
            if b > a:
                # KL: zeros are exact at any scale (the zero point), so a ReLU's
                # spike of zeros is left out rather than pulling the threshold in
                data = values[t] if method == "percentile" else np.abs(values[t][values[t] != 0])
                hists[t] += np.histogram(data, BINS, (a, b))[0]
    out = {}
    for t, (lo, hi) in bounds.items():
        a, b = spans[t]
        if b <= a:
            out[t] = (lo, hi)
            continue
        edges = np.linspace(a, b, BINS + 1)
        if method == "percentile":
            cdf = np.cumsum(hists[t]) / hists[t].sum()
            low = float(edges[int(np.searchsorted(cdf, 1 - PERCENTILE / 100))])
            high = float(edges[min(int(np.searchsorted(cdf, PERCENTILE / 100)) + 1, BINS)])
            out[t] = (max(lo, min(low, 0.0)), min(hi, max(high, 0.0)))
        else:
            threshold = kl_threshold(hists[t], edges, 255 if lo >= 0 else 127)
            out[t] = (max(lo, -threshold), min(hi, threshold))
    return out


def calibrate(model: onnx.ModelProto, tensors: Sequence[str], samples: Sequence[dict[str, np.ndarray]],
              method: str = "minmax") -> dict[str, tuple[float, float]]:
    """Each tensor's [min, max] for quantization, by `method` (`METHODS`)."""
    if method not in METHODS:
        raise LaminaError(f"quantize: unknown calibration method '{method}'; use one of {', '.join(METHODS)}")
    if not samples:
        raise LaminaError("quantize: no calibration inputs; give at least one")
    if not tensors:
        return {}
    observed = _Observer(model, tensors, samples)
    lows = dict.fromkeys(tensors, np.inf)
    highs = dict.fromkeys(tensors, -np.inf)
    for values in observed:
        for t in tensors:
            if values[t].size:
                lows[t] = min(lows[t], float(values[t].min()))
                highs[t] = max(highs[t], float(values[t].max()))
    empty = [t for t in tensors if lows[t] > highs[t]]
    if empty:
        raise LaminaError(f"quantize: tensors {empty[:5]} have no finite value on the calibration inputs")
    bounds = {t: (lows[t], highs[t]) for t in tensors}
    return bounds if method == "minmax" else _histogram_ranges(observed, bounds, method)


__all__ = ["METHODS", "calibrate", "kl_threshold"]
