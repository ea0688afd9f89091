"""TfIdfVectorizer (a binary search of each n-gram in the sorted pool, per
n-gram length) against onnx.reference and onnxruntime: TF, IDF and TFIDF
with and without weights, n-gram lengths and skips, pools holding lengths
outside the range, shuffled output columns, [C] and [N, C] input of i32
and i64."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from onnx import TensorProto
from xdsl.dialects import func

import lamina
from lamina.transforms.graph.fold_constant import evaluate
from tests.test_onnx_ops import RNG, Case, check, model_of

_MODES = ("TF", "IDF", "TFIDF")


def _pool(lengths: dict[int, int], alphabet: int) -> tuple[list[int], list[int], int]:
    """pool_int64s and ngram_counts holding up to `lengths[n]` distinct
    n-grams of each length n = 1, 2, ... (none for a missing length), and how
    many n-grams they hold."""
    pool, counts, total = [], [], 0
    for n in range(1, max(lengths) + 1):
        counts.append(len(pool))
        grams = {tuple(int(v) for v in RNG.integers(0, alphabet, n)) for _ in range(lengths.get(n, 0) * 3)}
        for g in sorted(grams, key=lambda _: RNG.random())[: lengths.get(n, 0)]:
            pool.extend(g)
            total += 1
    return pool, counts, total


def _cases(dtype: type, weights: tuple[bool, ...], shuffle_weighted: bool) -> list[Case]:
    """Every mode with (and, for TF, without) `weights`; the output columns
    shuffled, unless weighted and not `shuffle_weighted`."""
    cases = []
    for (lo, hi), skip, mode, weighted, shape in itertools.product(
        [(1, 1), (1, 2), (2, 2), (2, 3), (1, 3)],
        [0, 1, 3],
        _MODES,
        weights,
        [(13,), (3, 11)],
    ):
        if mode == "TF" and weighted:
            continue
        pool, counts, grams = _pool({1: 4, 2: 6, 3: 3}, 4)
        # shuffled columns; without weights, some left unused
        indexes = RNG.permutation(grams if weighted else grams + 2)[:grams].tolist()
        if weighted and not shuffle_weighted:
            indexes = list(range(grams))
        attrs = {
            "mode": mode, "min_gram_length": lo, "max_gram_length": hi, "max_skip_count": skip,
            "pool_int64s": pool, "ngram_counts": counts, "ngram_indexes": indexes,
        }
        if weighted:
            attrs["weights"] = RNG.uniform(0.5, 2, grams).round(3).tolist()
        cases.append(Case("TfIdfVectorizer", [RNG.integers(0, 5, shape).astype(dtype)], attrs))
    return cases


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_against_the_reference(dtype):
    """With weights (the reference fails on IDF and TFIDF without them), in
    their columns' order (it reads weights[column], not the n-gram's)."""
    check(_cases(dtype, (True,), False), opset=9)


def test_against_onnxruntime():
    """Without weights too (all ones), and with the weights of n-grams in
    shuffled columns."""
    cases = _cases(np.int64, (False, True), True)[::3]
    x = np.array([[1, 1, 1, 2, 3, 3], [3, 3, 3, 3, 1, 2]], np.int64)
    shared = {"min_gram_length": 1, "max_gram_length": 1, "pool_int64s": [1, 2, 3],
              "ngram_counts": [0], "ngram_indexes": [1, 1, 0], "max_skip_count": 0}  # two n-grams in column 1
    cases += [Case("TfIdfVectorizer", [x], {**shared, "mode": mode}) for mode in _MODES]
    _against_onnxruntime(cases)


def _against_onnxruntime(cases: list[Case]) -> None:
    ort = pytest.importorskip("onnxruntime")
    model, feeds = model_of(cases, 9)
    for out in model.graph.output:
        out.type.tensor_type.elem_type = TensorProto.FLOAT
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    want = session.run(None, dict(zip([i.name for i in model.graph.input], feeds, strict=True)))
    got = lamina.compile(model).run(*feeds)
    for w, g in zip(want, got, strict=True):  # (weights times counts: an ulp apart at most)
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=0)


def test_repeated_grams_empty_pools_and_large_values():
    """A repeated n-gram counts in its last column (the reference's trie); a
    pool without n-grams in range gives zeros; values beyond i32 never match
    i32 data."""
    x = np.array([[5, 6, 5, 6, 7], [7, 7, 7, 7, 7]], np.int32)
    base = {"mode": "TF", "min_gram_length": 1, "max_gram_length": 2, "max_skip_count": 1}
    cases = [
        Case("TfIdfVectorizer", [x], {**base, "pool_int64s": [5, 6, 5, 6, 7, 7], "ngram_counts": [0, 2],
                                      "ngram_indexes": [0, 1, 2, 3]}),
        Case("TfIdfVectorizer", [x], {**base, "min_gram_length": 3, "max_gram_length": 3,
                                      "pool_int64s": [5, 6], "ngram_counts": [0, 0], "ngram_indexes": [0]}),
        Case("TfIdfVectorizer", [x], {**base, "pool_int64s": [2**40, 5], "ngram_counts": [0],
                                      "ngram_indexes": [1, 0]}),
    ]
    check(cases, opset=9)


def test_bad_attributes_are_errors_naming_the_node():
    x = np.array([1, 2, 3], np.int64)
    base = {"mode": "TF", "min_gram_length": 1, "max_gram_length": 1, "pool_int64s": [1, 2, 3],
            "ngram_counts": [0], "ngram_indexes": [0, 1, 2]}
    for attrs, message in [
        ({"mode": "BM25"}, r'mode="BM25" is not one of TF, IDF, TFIDF'),
        ({"ngram_indexes": [0, 1]}, r"ngram_indexes has 2 entries for the pool's 3 n-grams"),
        ({"ngram_counts": [0, 2], "min_gram_length": 2, "max_gram_length": 2},
         r"the 2-grams of pool_int64s \(1 items from 2\) are not a whole number of 2-grams"),
        ({"min_gram_length": 2}, r"needs 1 <= min_gram_length \(2\) <= max_gram_length \(1\)"),
        ({"mode": "IDF", "weights": [1.0]}, r"weights has 1 entries, not one per n-gram \(3\)"),
        ({"mode": "TFIDF", "weights": [1.0, 2.0, 3.0], "ngram_indexes": [0, 1, 1]},
         r"n-grams sharing an output column .* with weights in TFIDF mode are not supported"),
    ]:
        model, _ = model_of([Case("TfIdfVectorizer", [x], {**base, **attrs})], 9)
        with pytest.raises(lamina.FrontendError, match=r"TfIdfVectorizer.*" + message):
            lamina.from_onnx(model)
    model, _ = model_of([Case("TfIdfVectorizer", [x.astype(np.float32)], base)], 9)
    with pytest.raises(lamina.FrontendError, match=r"X must be \[C\] or \[N, C\] integers"):
        lamina.from_onnx(model)


def test_ngram_count_evaluator_agrees_with_the_kernel():
    """relay.ngram_count's numpy evaluator (fold-constant) and its kernel, a
    slot out of range counting nothing."""
    src = """
    func.func @main(%x: tensor<3x9xi32>, %g: tensor<4x2xi64>, %s: tensor<4xi64>) -> tensor<3x5xi64> {
      %c = relay.ngram_count %x, %g, %s {width = 5 : i64, max_skip = 2 : i64} : (tensor<3x9xi32>, tensor<4x2xi64>, tensor<4xi64>) -> tensor<3x5xi64>
      func.return %c : tensor<3x5xi64>
    }"""
    x = RNG.integers(0, 3, (3, 9)).astype(np.int32)
    grams = np.array([[0, 1], [1, 1], [2, 0], [2, 2]], np.int64)
    slots = np.array([4, 0, 7, 2], np.int64)
    (compiled,) = lamina.compile(lamina.parse(src)).run(x, grams, slots)
    fn = next(op for op in lamina.parse(src).ops if isinstance(op, func.FuncOp))
    (evaluated,) = evaluate(fn.body.block, [x, grams, slots])
    np.testing.assert_array_equal(compiled, evaluated)
    assert compiled.sum() > 0
