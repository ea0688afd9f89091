"""The search's parts: loop-nest features, the XGBoost ranking model, the
evolutionary search and its moves (no measurement: synthetic costs)."""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from lamina.lowering.strategy.cpu import GemmKnobs
from lamina.target import Target
from lamina.tuning import extract_tasks
from lamina.tuning.cost_model import MIN_SAMPLES, XGBoostModel
from lamina.tuning.features import NAMES, features
from lamina.tuning.search import EvolutionarySearch, TaskState
from lamina.tuning.space import NEIGHBOUR, mutate, unmeasured
from lamina.tuning.tasks import Task

pytest.importorskip("xgboost")


def _gemm_task(rows: int = 24, k: int = 256, n: int = 64) -> Task:
    """x[rows, k] @ w[k, n] (a packed weight): one gemm task."""
    w = np.random.default_rng(0).standard_normal((k, n)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])], "mm",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [rows, k])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [rows, n])],
        [numpy_helper.from_array(w, "w")],
    )
    (task,) = extract_tasks(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]))
    assert task.template == "gemm"
    return task


def _feature(task: Task, knobs: GemmKnobs, name: str) -> float:
    return float(features(task, knobs)[NAMES.index(name)])


def test_features_describe_the_nest_and_its_reads() -> None:
    task = _gemm_task()
    lanes = Target.host().lanes(32)
    d = dataclasses.replace(task.default(), mr=8, nr=2 * lanes, kc=0)
    assert len(features(task, d)) == len(NAMES)
    # read 0 is the packed weight (the largest buffer): a contiguous vector per
    # reduce step, reused by the tile's 8 rows; read 1 the data, broadcast over
    # the lanes, each element reused by the tile's 2 x lanes columns
    assert _feature(task, d, "read 0: lane stride") == 1.0  # log2(1 + 1)
    assert _feature(task, d, "read 0: log2 tile reuse") == 3.0
    assert _feature(task, d, "read 1: lane stride") == 0.0
    assert _feature(task, d, "read 1: log2 tile reuse") == np.log2(2 * lanes)
    assert _feature(task, d, "read 1: reduce stride") == 1.0  # x[m, k]: along k
    assert _feature(task, d, "accumulators / registers") == 16 / Target.host().vector_registers
    # a one-row tile loads more per multiply-add; K blocks show
    one_row = dataclasses.replace(d, mr=1)
    intensity = "log2 multiply-adds per element loaded"
    assert _feature(task, one_row, intensity) < _feature(task, d, intensity)
    assert _feature(task, dataclasses.replace(d, kc=64), "log2 K blocks") == 2.0  # 256 / 64
    assert _feature(task, d, "log2 K blocks") == 0.0


def test_features_of_every_template_are_finite() -> None:
    """A model with a convolution, depthwise and grouped ones, a pool, a
    product and a softmax: every task's features are finite over its space."""
    rng = np.random.default_rng(0)

    def w(name: str, shape: list[int]) -> object:
        return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)

    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["a"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["a"], ["b"]),
        helper.make_node("Conv", ["b", "w2"], ["c"], pads=[1, 1, 1, 1], group=16),
        helper.make_node("Conv", ["c", "w3"], ["d"], group=2),
        helper.make_node("MaxPool", ["d"], ["e"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Flatten", ["e"], ["f"]),
        helper.make_node("MatMul", ["f", "w4"], ["g"]),
        helper.make_node("Softmax", ["g"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16])],
        [w("w1", [16, 3, 3, 3]), w("w2", [16, 1, 3, 3]), w("w3", [16, 8, 1, 1]), w("w4", [256, 16])],
    )
    tasks = extract_tasks(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]))
    assert len({t.template for t in tasks}) >= 3
    for task in tasks:
        points = [task.default(), *unmeasured(task.space(), set(), 8, random.Random(0))]
        for knobs in points:
            row = features(task, knobs)
            assert row.shape == (len(NAMES),) and np.isfinite(row).all(), (task.name, knobs)


def test_the_cost_model_ranks_candidates_within_each_task() -> None:
    """Throughput set by two features (and noise): trained on two tasks, the
    model ranks unseen candidates of each nearly in order; bad ones last."""
    rng = np.random.default_rng(0)
    model = XGBoostModel(seed=0)

    def seconds(row: np.ndarray, task: int) -> float:
        return (1.0 + task) * (1.0 + 2.0 * abs(row[0] - 0.3) + row[1]) * (1 + 0.01 * rng.standard_normal())

    for i in range(MIN_SAMPLES - 1):
        row = rng.random(8).astype(np.float32)
        model.add(f"t{i % 2}", row, seconds(row, i % 2))
    model.fit()
    assert not model.trained  # below MIN_SAMPLES
    for i in range(200):
        row = rng.random(8).astype(np.float32)
        bad = i % 25 == 0
        model.add(f"t{i % 2}", row, None if bad else seconds(row, i % 2))
    model.fit()
    assert model.trained and model.samples == MIN_SAMPLES - 1 + 200
    rows = [rng.random(8).astype(np.float32) for _ in range(100)]
    truth = np.array([-seconds(r, 0) for r in rows])
    scores = model.predict(rows)
    ranks = lambda v: np.argsort(np.argsort(v))  # noqa: E731
    assert np.corrcoef(ranks(scores), ranks(truth))[0, 1] > 0.8


def test_mutations_move_to_neighbours_mostly() -> None:
    space = _gemm_task().space()
    rng = random.Random(0)
    start = dataclasses.replace(space.point({n: c[0] for n, c in space.choices.items()}), mr=8)
    moves = [mutate(space, start, rng) for _ in range(2000)]
    mr_moves = [m.mr for m in moves if m is not None and m.mr != start.mr]
    assert mr_moves and all(m in space for m in moves if m is not None)
    near = sum(v in (7, 9) for v in mr_moves) / len(mr_moves)
    assert near > NEIGHBOUR - 0.1


def test_the_evolutionary_search_finds_the_cheap_region() -> None:
    """A synthetic cost (best at 8 rows x 2 vectors, no K blocks): after a
    random start, the model-guided proposals are far cheaper than random ones,
    all distinct and unmeasured."""
    task = _gemm_task()
    lanes = Target.host().lanes(32)
    state = TaskState(task, task.space())

    def cost(k: GemmKnobs) -> float:
        return 1.0 + abs(k.mr - 8) / 4 + abs(k.nr / lanes - 2) + (0.5 if k.kc else 0.0) + 0.1 * (k.grain == 1)

    search = EvolutionarySearch(XGBoostModel(seed=0))
    rng = random.Random(0)
    for k in unmeasured(state.space, set(), 48, rng):
        state.measured[k] = cost(k)
        search.observe(state, k, cost(k))
    search.round_done()
    picks = search.propose(state, 8, rng)
    assert len(set(picks)) == 8 and not set(picks) & set(state.measured)
    guided = np.mean([cost(k) for k in picks[:-1]])  # (the last one is the random share)
    rand = np.mean([cost(k) for k in unmeasured(state.space, set(state.measured), 200, random.Random(1))])
    assert guided < 0.75 * rand, (guided, rand)
