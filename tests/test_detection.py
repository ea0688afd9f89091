"""A small detection post-process (bench/detection.py's graph: box decoding,
TopK, NonMaxSuppression, gathers of a data-dependent size), compiled once and
checked against onnxruntime on several random inputs."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

import lamina

BENCH = Path(__file__).resolve().parent.parent / "bench" / "detection.py"


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("lamina_bench_detection", BENCH)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(("anchors", "classes", "pre_nms"), [(300, 5, 100), (97, 3, 200)])
def test_postprocess_matches_onnxruntime(anchors: int, classes: int, pre_nms: int) -> None:
    ort = pytest.importorskip("onnxruntime")
    bench = _bench()
    model = bench.postprocess_model(anchors, classes, pre_nms, per_class=20)
    exe = lamina.compile(model, num_threads=1)
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    kept = set()
    for seed in range(4):
        feeds = bench.inputs(anchors, classes, seed)
        got, want = exe.run(**feeds), sess.run(None, feeds)
        assert bench.agree(got, want) is None, bench.agree(got, want)
        assert got[0].shape[1:] == (4,) and got[2].dtype == np.int64
        kept.add(len(want[2]))
    assert max(kept) > 0  # the inputs do select boxes


def test_postprocess_keeps_nothing_when_every_score_is_low() -> None:
    bench = _bench()
    model = bench.postprocess_model(50, 2, 20)
    exe = lamina.compile(model)
    feeds = bench.inputs(50, 2, 0)
    feeds["logits"][:] = -20.0  # sigmoid far below the 0.05 score threshold
    boxes, scores, labels = exe.run(**feeds)
    assert boxes.shape == (0, 4) and scores.shape == (0,) and labels.shape == (0,)
