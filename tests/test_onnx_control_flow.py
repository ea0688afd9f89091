"""If, Loop and Scan end to end: ONNX models compiled by lamina against
`onnx.reference.ReferenceEvaluator`, on several inputs per compile."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import lamina
from lamina.errors import LaminaError

F = TensorProto.FLOAT


def _model(nodes, inputs, outputs, inits=(), opset: int = 17) -> onnx.ModelProto:  # type: ignore[no-untyped-def]
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    onnx.checker.check_model(model)
    return model


def _check(
    model: onnx.ModelProto, feeds: dict[str, np.ndarray], exe: lamina.CompiledModel | None = None,
    reference: str = "onnx",
) -> None:
    exe = exe or lamina.compile(model)
    got = exe.run(**feeds)
    if reference == "onnxruntime":
        ort = pytest.importorskip("onnxruntime")
        sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        want = sess.run(None, feeds)
    else:
        want = ReferenceEvaluator(model).run(None, feeds)
    for g, w in zip(got, want, strict=True):
        assert g.shape == np.asarray(w).shape
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def _if_model() -> onnx.ModelProto:
    """y = c ? relu(x) * w : x - w, reading x and w from the outer graph."""
    then_g = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Mul", ["r", "w"], ["t"])],
        "then", [], [helper.make_tensor_value_info("t", F, [2, 3])],
    )
    else_g = helper.make_graph(
        [helper.make_node("Sub", ["x", "w"], ["e"])], "else", [], [helper.make_tensor_value_info("e", F, [2, 3])]
    )
    return _model(
        [
            helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
            helper.make_node("Greater", ["s", "zero"], ["c"]),
            helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g),
        ],
        [helper.make_tensor_value_info("x", F, [2, 3])],
        [helper.make_tensor_value_info("y", F, [2, 3])],
        [
            numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3) / 4, "w"),
            numpy_helper.from_array(np.float32(0), "zero"),
        ],
    )


@pytest.fixture(scope="module")
def if_exe() -> tuple[onnx.ModelProto, lamina.CompiledModel]:
    model = _if_model()
    return model, lamina.compile(model)


@given(st.lists(st.floats(-4, 4, width=32), min_size=6, max_size=6))
@settings(max_examples=25, deadline=None)
def test_if_takes_the_branch_the_data_says(if_exe, values: list[float]) -> None:  # type: ignore[no-untyped-def]
    model, exe = if_exe
    _check(model, {"x": np.array(values, np.float32).reshape(2, 3)}, exe)


def test_if_on_a_constant_is_inlined() -> None:
    model = _if_model()
    model.graph.node[1].op_type = "Identity"
    del model.graph.node[1].input[1]
    model.graph.node[0].CopyFrom(helper.make_node("Constant", [], ["s"], value=numpy_helper.from_array(np.array(True))))
    module = lamina.from_onnx(model)
    assert "relay.if" not in str(module)
    _check(model, {"x": np.ones((2, 3), np.float32)})


def test_if_branches_of_different_types_are_refused() -> None:
    model = _if_model()
    else_g = next(a.g for a in model.graph.node[2].attribute if a.name == "else_branch")
    else_g.node[0].CopyFrom(helper.make_node("ReduceSum", ["x"], ["e"], keepdims=0))
    else_g.output[0].type.tensor_type.shape.Clear()
    with pytest.raises(LaminaError, match="branches yield different types"):
        lamina.from_onnx(model)


def _loop_model(with_cond: bool) -> onnx.ModelProto:
    """acc += x * (i + 1) for i < M; stacks acc each iteration. With a
    condition, the loop stops once acc's sum exceeds `limit`."""
    body_nodes = [
        helper.make_node("Cast", ["i"], ["fi"], to=F),
        helper.make_node("Add", ["fi", "one"], ["k"]),
        helper.make_node("Mul", ["x", "k"], ["step"]),
        helper.make_node("Add", ["acc_in", "step"], ["acc_out"]),
        helper.make_node("Identity", ["acc_out"], ["scan"]),
    ]
    if with_cond:
        body_nodes += [
            helper.make_node("ReduceSum", ["acc_out"], ["total"], keepdims=0),
            helper.make_node("Less", ["total", "limit"], ["cond_out"]),
        ]
    else:
        body_nodes.append(helper.make_node("Identity", ["cond_in"], ["cond_out"]))
    body = helper.make_graph(
        body_nodes,
        "body",
        [
            helper.make_tensor_value_info("i", TensorProto.INT64, []),
            helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
            helper.make_tensor_value_info("acc_in", F, [3]),
        ],
        [
            helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
            helper.make_tensor_value_info("acc_out", F, [3]),
            helper.make_tensor_value_info("scan", F, [3]),
        ],
    )
    return _model(
        [helper.make_node("Loop", ["M", "cond", "acc0"], ["acc", "stack"], body=body)],
        [helper.make_tensor_value_info("x", F, [3]), helper.make_tensor_value_info("acc0", F, [3])],
        [helper.make_tensor_value_info("acc", F, [3]), helper.make_tensor_value_info("stack", F, ["n", 3])],
        [
            numpy_helper.from_array(np.array(6, np.int64), "M"),
            numpy_helper.from_array(np.array(True), "cond"),
            numpy_helper.from_array(np.float32(1), "one"),
            numpy_helper.from_array(np.float32(40), "limit"),
        ],
    )


@pytest.mark.parametrize("with_cond", [False, True])
def test_loop_carries_state_and_stacks_scan_outputs(with_cond: bool) -> None:
    model = _loop_model(with_cond)
    exe = lamina.compile(model)
    rng = np.random.default_rng(0)
    rows = set()
    for scale in (0.0, 0.5, 1.0, 3.0, 20.0):
        feeds = {"x": (rng.random(3) * scale).astype(np.float32), "acc0": rng.random(3).astype(np.float32)}
        _check(model, feeds, exe)
        rows.add(exe.run(**feeds)[1].shape[0])
    assert rows == {6} if not with_cond else len(rows) > 1  # the condition stops it early


def _scan_model(reverse: bool, out_axis: int) -> onnx.ModelProto:
    """A running sum and product over the rows of x (ONNX Scan), with an
    outer weight read inside the body."""
    body = helper.make_graph(
        [
            helper.make_node("Add", ["s_in", "row"], ["s_out"]),
            helper.make_node("Mul", ["s_out", "w"], ["y"]),
        ],
        "body",
        [helper.make_tensor_value_info("s_in", F, [4]), helper.make_tensor_value_info("row", F, [4])],
        [helper.make_tensor_value_info("s_out", F, [4]), helper.make_tensor_value_info("y", F, [4])],
    )
    return _model(
        [
            helper.make_node(
                "Scan", ["s0", "x"], ["s", "ys"], body=body, num_scan_inputs=1,
                scan_input_directions=[int(reverse)], scan_output_axes=[out_axis],
            )
        ],
        [helper.make_tensor_value_info("s0", F, [4]), helper.make_tensor_value_info("x", F, ["t", 4])],
        [
            helper.make_tensor_value_info("s", F, [4]),
            helper.make_tensor_value_info("ys", F, ["t", 4] if out_axis == 0 else [4, "t"]),
        ],
        [numpy_helper.from_array(np.linspace(0.5, 2, 4).astype(np.float32), "w")],
    )


@pytest.mark.parametrize(("reverse", "out_axis"), [(False, 0), (True, 0), (False, 1)])
def test_scan_over_a_symbolic_length(reverse: bool, out_axis: int) -> None:
    model = _scan_model(reverse, out_axis)
    exe = lamina.compile(model)  # `t` stays symbolic: one compile for every length
    # onnx's reference has no reverse scan: a reverse scan of x is a forward
    # scan of x read from its end
    # scan, and an output along axis 1 is the axis-0 output transposed
    reference = ReferenceEvaluator(_scan_model(False, 0))
    rng = np.random.default_rng(1)
    for t in (1, 2, 7, 30):
        s0, x = rng.random(4).astype(np.float32), rng.random((t, 4)).astype(np.float32)
        s, ys = reference.run(None, {"s0": s0, "x": x[::-1].copy() if reverse else x})
        want = [s, ys.T if out_axis == 1 else ys]
        for got, w in zip(exe.run(s0=s0, x=x), want, strict=True):
            np.testing.assert_allclose(got, w, rtol=1e-5, atol=1e-6)


def test_if_inside_a_loop_body() -> None:
    """Each iteration adds x or subtracts it, by the parity of i."""
    then_g = helper.make_graph([helper.make_node("Add", ["a_in", "x"], ["a1"])], "t", [], [helper.make_tensor_value_info("a1", F, [2])])
    else_g = helper.make_graph([helper.make_node("Sub", ["a_in", "x"], ["a2"])], "e", [], [helper.make_tensor_value_info("a2", F, [2])])
    body = helper.make_graph(
        [
            helper.make_node("Mod", ["i", "two"], ["r"]),
            helper.make_node("Equal", ["r", "zero"], ["even"]),
            helper.make_node("If", ["even"], ["a_out"], then_branch=then_g, else_branch=else_g),
            helper.make_node("Identity", ["c_in"], ["c_out"]),
        ],
        "body",
        [
            helper.make_tensor_value_info("i", TensorProto.INT64, []),
            helper.make_tensor_value_info("c_in", TensorProto.BOOL, []),
            helper.make_tensor_value_info("a_in", F, [2]),
        ],
        [helper.make_tensor_value_info("c_out", TensorProto.BOOL, []), helper.make_tensor_value_info("a_out", F, [2])],
    )
    model = _model(
        [helper.make_node("Loop", ["M", "", "a0"], ["a"], body=body)],
        [helper.make_tensor_value_info("x", F, [2]), helper.make_tensor_value_info("a0", F, [2]), helper.make_tensor_value_info("M", TensorProto.INT64, [])],
        [helper.make_tensor_value_info("a", F, [2])],
        [numpy_helper.from_array(np.array(2, np.int64), "two"), numpy_helper.from_array(np.array(0, np.int64), "zero")],
    )
    exe = lamina.compile(model)
    for m in (0, 1, 4, 7):  # a run-time trip count
        feeds = {"x": np.array([1.5, -2], np.float32), "a0": np.array([0.25, 1], np.float32), "M": np.array(m, np.int64)}
        # onnx's reference evaluator gets this one wrong (it returns a0 for M = 1)
        _check(model, feeds, exe, reference="onnxruntime")


def test_while_loop_is_refused_clearly() -> None:
    model = _loop_model(False)
    model.graph.node[0].input[0] = ""
    with pytest.raises(LaminaError, match="without a trip count"):
        lamina.from_onnx(model)


def _states_model() -> onnx.ModelProto:
    """A Loop whose states pass each other on: `(a, b, c, d) <- (a + b, a,
    d, c)` (Fibonacci, and a swap), and one computed from the others only
    (`e <- relu(e) * 0.5 + a`: its next value does not read the current one
    once it is computed, so it is computed in its state buffer)."""
    v = helper.make_tensor_value_info
    names = ["a", "b", "c", "d", "e"]
    body = helper.make_graph(
        [
            helper.make_node("Add", ["a", "b"], ["a_out"]),
            helper.make_node("Identity", ["a"], ["b_out"]),
            helper.make_node("Identity", ["d"], ["c_out"]),
            helper.make_node("Identity", ["c"], ["d_out"]),
            helper.make_node("Relu", ["e"], ["r"]),
            helper.make_node("Mul", ["r", "half"], ["h"]),
            helper.make_node("Add", ["h", "a"], ["e_out"]),
            helper.make_node("Identity", ["cond"], ["cond_out"]),
        ],
        "body",
        [v("i", TensorProto.INT64, []), v("cond", TensorProto.BOOL, []), *(v(n, F, [2]) for n in names)],
        [v("cond_out", TensorProto.BOOL, []), *(v(f"{n}_out", F, [2]) for n in names)],
    )
    return _model(
        [helper.make_node("Loop", ["M", "", *(f"{n}0" for n in names)], names, body=body)],
        [v("M", TensorProto.INT64, []), *(v(f"{n}0", F, [2]) for n in names)],
        [v(n, F, [2]) for n in names],
        [numpy_helper.from_array(np.float32(0.5), "half")],
    )


def test_loop_states_passed_on_to_each_other() -> None:
    """The states are assigned at once at the end of an iteration: a state
    that becomes another's is read before it is overwritten (against
    onnxruntime, for several trip counts, one compile)."""
    model = _states_model()
    exe = lamina.compile(model)
    rng = np.random.default_rng(1)
    for trips in (0, 1, 2, 5, 9):
        feeds = {"M": np.array(trips, np.int64)}
        feeds |= {f"{n}0": rng.uniform(-1, 1, 2).astype(np.float32) for n in "abcde"}
        _check(model, feeds, exe, reference="onnxruntime")


def _run_time_trips_model(with_cond: bool) -> onnx.ModelProto:
    """`_loop_model` with its trip count M a graph input: the stacks' rows are
    a size the loop sets from M when it runs."""
    model = _loop_model(with_cond)
    graph = model.graph
    kept = [t for t in graph.initializer if t.name != "M"]
    del graph.initializer[:]
    graph.initializer.extend(kept)
    graph.input.insert(0, helper.make_tensor_value_info("M", TensorProto.INT64, []))
    onnx.checker.check_model(model)
    return model


@pytest.mark.parametrize("with_cond", [False, True])
def test_loop_with_a_run_time_trip_count_stacks_its_scan_outputs(with_cond: bool) -> None:
    """One compile, trip counts 0 to 40 (the stacks' capacity grows, the run
    replanned), a negative one (no iteration), with and without a condition
    that stops the loop early: against onnxruntime."""
    model = _run_time_trips_model(with_cond)
    exe = lamina.compile(model)
    rng = np.random.default_rng(2)
    for trips in (3, 0, 7, 1, 40, -2, 5):
        feeds = {
            "M": np.array(trips, np.int64),
            "x": (rng.random(3) * 2).astype(np.float32),
            "acc0": rng.random(3).astype(np.float32),
        }
        _check(model, feeds, exe, reference="onnxruntime")


def test_loop_with_a_run_time_trip_count_needs_run_time_values() -> None:
    model = _run_time_trips_model(False)
    with pytest.raises(LaminaError, match=r"\(Loop, opset 17\): input #0 \('M'\) must be a constant"):
        lamina.from_onnx(model, run_time_values=False)


def _sum_of_squares_body() -> onnx.GraphProto:
    """acc += sum(x[i : 2 i + 1] ** 2): a slice whose length (i + 1, cut at
    the end of x) is set when the model runs, anew each iteration."""
    i64 = TensorProto.INT64
    return helper.make_graph(
        [
            helper.make_node("Identity", ["c"], ["c_out"]),
            helper.make_node("Unsqueeze", ["i", "axes"], ["start"]),
            helper.make_node("Mul", ["start", "two"], ["twice"]),
            helper.make_node("Add", ["twice", "one"], ["end"]),
            helper.make_node("Slice", ["x", "start", "end"], ["s"]),
            helper.make_node("Mul", ["s", "s"], ["sq"]),
            helper.make_node("ReduceSum", ["sq"], ["r"], keepdims=1),
            helper.make_node("Add", ["acc", "r"], ["acc_out"]),
            helper.make_node("Identity", ["acc_out"], ["scan"]),
        ],
        "body",
        [helper.make_tensor_value_info("i", i64, []), helper.make_tensor_value_info("c", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc", F, [1])],
        [helper.make_tensor_value_info("c_out", TensorProto.BOOL, []), helper.make_tensor_value_info("acc_out", F, [1]),
         helper.make_tensor_value_info("scan", F, [1])],
        [numpy_helper.from_array(np.array([0], np.int64), "axes"), numpy_helper.from_array(np.array([1], np.int64), "one"),
         numpy_helper.from_array(np.array([2], np.int64), "two")],
    )


def test_sizes_set_in_a_loop_body_grow_their_capacity() -> None:
    """A size the data sets inside a loop body, differently each iteration:
    the buffers are planned at its capacity, which doubles when an iteration
    outgrows it (a rerun), and the carried value's run-time size is matched
    to its type on entry (checked when the model runs)."""
    model = _model(
        [helper.make_node("Loop", ["n", "cond", "acc0"], ["acc", "stack"], body=_sum_of_squares_body())],
        [helper.make_tensor_value_info("n", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
         helper.make_tensor_value_info("x", F, ["length"]), helper.make_tensor_value_info("acc0", F, [1])],
        [helper.make_tensor_value_info("acc", F, [1]), helper.make_tensor_value_info("stack", F, ["n", 1])],
    )
    exe = lamina.compile(model)
    rng = np.random.default_rng(3)
    for n, length in [(3, 10), (8, 40), (2, 5), (20, 100), (5, 3), (30, 1000), (4, 10)]:
        feeds = {"n": np.array(n), "cond": np.array(True), "x": rng.standard_normal(length).astype(np.float32),
                 "acc0": np.array([1.0], np.float32)}
        _check(model, feeds, exe)


def test_a_carried_value_of_another_size_stops_the_run() -> None:
    """The body yields a slice of a size set when the model runs where the
    carried value is [1]: a run where that size is not 1 stops naming the Loop."""
    body = helper.make_graph(
        [
            helper.make_node("Identity", ["c"], ["c_out"]),
            helper.make_node("Unsqueeze", ["i", "axes"], ["start"]),
            helper.make_node("Add", ["start", "k"], ["end"]),
            helper.make_node("Slice", ["x", "start", "end"], ["y_out"]),
        ],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []), helper.make_tensor_value_info("c", TensorProto.BOOL, []),
         helper.make_tensor_value_info("y", F, [1])],
        [helper.make_tensor_value_info("c_out", TensorProto.BOOL, []), helper.make_tensor_value_info("y_out", F, [1])],
        [numpy_helper.from_array(np.array([0], np.int64), "axes")],
    )
    model = _model(
        [helper.make_node("Loop", ["n", "", "y0"], ["y"], body=body)],
        [helper.make_tensor_value_info("n", TensorProto.INT64, []), helper.make_tensor_value_info("x", F, [6]),
         helper.make_tensor_value_info("y0", F, [1]), helper.make_tensor_value_info("k", TensorProto.INT64, [1])],
        [helper.make_tensor_value_info("y", F, [1])],
    )
    exe = lamina.compile(model)
    x = np.arange(6, dtype=np.float32)
    (y,) = exe.run(n=np.array(3), x=x, y0=np.zeros(1, np.float32), k=np.array([1]))
    np.testing.assert_array_equal(y, [2.0])
    with pytest.raises(lamina.InputError, match=r"Loop.*yields #1 of shape .* where the loop needs \[1\]"):
        exe.run(n=np.array(3), x=x, y0=np.zeros(1, np.float32), k=np.array([2]))
