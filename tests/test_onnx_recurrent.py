"""RNN, GRU and LSTM (a relay.loop over the sequence) against onnx.reference
and onnxruntime: directions, layouts, biases, initial states, peepholes, clip,
linear_before_reset and activations, with weights both as graph inputs and as
initializers; sequence_lens; a symbolic sequence length and batch, compiled
once and run at many; the import's shape (one loop whatever the length) and
its errors."""

from __future__ import annotations

import itertools

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import lamina
from lamina.dialects import relay
from tests.test_onnx_ops import Case, Const, check, model_of, rand

GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}


def _case(op: str, seq: int, batch: int, size: int, hidden: int, direction: str, layout: int,
          bias: bool, initial: bool, const_weights: bool, **attrs) -> Case:
    dirs = 2 if direction == "bidirectional" else 1
    g = GATES[op]
    x = rand(batch, seq, size, low=-1, high=1) if layout else rand(seq, batch, size, low=-1, high=1)
    w, r = rand(dirs, g * hidden, size, low=-1, high=1), rand(dirs, g * hidden, hidden, low=-1, high=1)
    inputs: list = [x, Const(w) if const_weights else w, Const(r) if const_weights else r]
    inputs.append(rand(dirs, 2 * g * hidden, low=-1, high=1) if bias else None)
    inputs.append(None)  # sequence_lens
    state = (batch, dirs, hidden) if layout else (dirs, batch, hidden)
    inputs.append(rand(*state, low=-1, high=1) if initial else None)
    if op == "LSTM":
        inputs.append(rand(*state, low=-1, high=1) if initial else None)
        inputs.append(rand(dirs, 3 * hidden, low=-1, high=1) if attrs.pop("peepholes", False) else None)
    while inputs and inputs[-1] is None:
        inputs.pop()
    attrs = {"hidden_size": hidden, "direction": direction, **attrs}
    if layout:
        attrs["layout"] = 1
    return Case(op, inputs, attrs, outputs=3 if op == "LSTM" else 2)


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
def test_directions_layouts_biases_and_states(op):
    cases = [
        _case(op, seq, batch, size, hidden, direction, layout, bias, initial, const)
        for (seq, batch, size, hidden), direction, layout, (bias, initial, const) in itertools.product(
            [(4, 3, 5, 6), (1, 1, 2, 3)],
            ["forward", "reverse", "bidirectional"],
            [0, 1],
            [(True, True, False), (False, False, True)],
        )
    ]
    check(cases, opset=14, rtol=1e-4, atol=1e-5)


def check_ort(cases: list[Case], opset: int = 14) -> None:
    """lamina against onnxruntime, for what onnx.reference ignores (its LSTM and
    GRU drop `clip` and `activations`; its RNN knows only Tanh and Affine)."""
    import onnxruntime as ort

    model, feeds = model_of(cases, opset)
    for out in model.graph.output:  # onnxruntime wants output types: all f32 here
        out.type.tensor_type.elem_type = TensorProto.FLOAT
    names = [i.name for i in model.graph.input]
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    expected = session.run(None, dict(zip(names, feeds, strict=True)))
    got = lamina.compile(model).run(*feeds)
    for want, have in zip(expected, got, strict=True):
        np.testing.assert_allclose(have, want, rtol=1e-4, atol=1e-5)


def test_lstm_peepholes_and_clip():
    check([_case("LSTM", 5, 2, 3, 4, "forward", 0, True, True, False, peepholes=True)],
          opset=14, rtol=1e-4, atol=1e-5)
    check_ort([
        _case("LSTM", 5, 2, 3, 4, "bidirectional", 0, True, False, True, peepholes=True, clip=0.5),
        _case("GRU", 3, 2, 3, 4, "reverse", 0, True, True, False, clip=0.3),
    ])


def test_gru_linear_before_reset_and_activations():
    check([_case("GRU", 4, 2, 3, 5, "forward", 0, True, True, False, linear_before_reset=1)],
          opset=14, rtol=1e-4, atol=1e-5)
    check_ort([
        _case("GRU", 4, 2, 3, 5, "bidirectional", 0, True, False, False,
              activations=["HardSigmoid", "LeakyRelu", "Sigmoid", "Tanh"],
              activation_alpha=[0.3, 0.1], activation_beta=[0.4]),
        _case("RNN", 3, 2, 3, 4, "forward", 0, True, False, False, activations=["Relu"]),
        _case("LSTM", 3, 2, 3, 4, "forward", 0, True, False, False,
              activations=["HardSigmoid", "Elu", "Softplus"], activation_alpha=[0.25, 0.9]),
    ])


def test_old_opset_and_full_sequence_lens():
    x = rand(3, 2, 4)
    w, r = rand(1, 4 * 5, 4, low=-1, high=1), rand(1, 4 * 5, 5, low=-1, high=1)
    lens = Const(np.array([3, 3], np.int32))
    check([Case("LSTM", [x, w, r, None, lens], {"hidden_size": 5}, outputs=3)], opset=7,
          rtol=1e-4, atol=1e-5)


def _lens_case(op: str, direction: str, lens: np.ndarray, constant: bool, layout: int = 0,
               seq: int = 5, size: int = 3, hidden: int = 4) -> Case:
    """A cell over sequences of the given lengths, with a bias and initial
    states (outputs Y, Y_h and, for an LSTM, Y_c)."""
    batch = len(lens)
    case = _case(op, seq, batch, size, hidden, direction, layout, True, True, False)
    inputs = list(case.inputs) + [None] * (6 - len(case.inputs))
    inputs[4] = Const(lens) if constant else lens
    return Case(op, inputs, case.attrs, case.outputs)


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
def test_sequence_lens_mask_the_steps(op):
    """Past its length an entry keeps its state and writes zeros; Y_h (Y_c)
    is the state at its last step, zeros for a length of 0: onnxruntime's
    answers, for random lengths in every direction, given at run time or as
    constants."""
    rng = np.random.default_rng(7)
    cases = [
        _lens_case(op, direction, rng.integers(0, 6, 4).astype(np.int32), constant)
        for direction in ("forward", "reverse", "bidirectional")
        for constant in (False, True)
    ]
    cases.append(_lens_case(op, "bidirectional", np.array([5, 0, 1, 5], np.int32), False))
    check_ort(cases)


def test_sequence_lens_in_the_batch_first_layout():
    """Layout 1 (which onnxruntime lacks) against layout 0 run there."""
    import onnxruntime as ort

    lens = np.array([2, 5, 0], np.int32)
    for op in ("GRU", "LSTM"):
        first = _lens_case(op, "bidirectional", lens, False, layout=1)
        model, feeds = model_of([first], 14)
        got = lamina.compile(model).run(*feeds)
        x, w, r, b, _, h0, *more = first.inputs
        swap = [np.swapaxes(v, 0, 1) for v in (x, h0, *more[:1])]
        attrs = {k: v for k, v in first.attrs.items() if k != "layout"}
        time_first = Case(op, [swap[0], w, r, b, lens, *swap[1:], *more[1:]], attrs, first.outputs)
        model, feeds = model_of([time_first], 14)
        for out in model.graph.output:
            out.type.tensor_type.elem_type = TensorProto.FLOAT
        session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        want = session.run(None, dict(zip([i.name for i in model.graph.input], feeds, strict=True)))
        np.testing.assert_allclose(got[0], np.transpose(want[0], (2, 0, 1, 3)), rtol=1e-4, atol=1e-5)
        for g, wnt in zip(got[1:], want[1:], strict=True):
            np.testing.assert_allclose(g, np.swapaxes(wnt, 0, 1), rtol=1e-4, atol=1e-5)


def test_out_of_range_constant_sequence_lens_are_errors():
    x = rand(3, 2, 4)
    w, r = rand(1, 5, 4), rand(1, 5, 5)
    model, _ = model_of([Case("RNN", [x, w, r, None, Const(np.array([3, 4], np.int32))], {"hidden_size": 5}, outputs=2)], 14)
    with pytest.raises(lamina.FrontendError, match=r"sequence_lens \[3, 4\] must lie in 0\.\.3 \(the sequence length\)"):
        lamina.from_onnx(model)


# ------------------------------------------------- symbolic sequence and batch
def _symbolic_model(op: str, size: int, hidden: int, direction: str, lens: bool = True,
                    **attrs) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """One node over `x [seq, batch, size]` with `seq` and `batch` symbolic,
    its weights initializers, `sequence_lens` and the initial states graph
    inputs; the initializers by name."""
    dirs, g = (2 if direction == "bidirectional" else 1), GATES[op]
    rng = np.random.default_rng(3)
    consts = {
        "w": rng.uniform(-1, 1, (dirs, g * hidden, size)).astype(np.float32),
        "r": rng.uniform(-1, 1, (dirs, g * hidden, hidden)).astype(np.float32),
        "b": rng.uniform(-1, 1, (dirs, 2 * g * hidden)).astype(np.float32),
    }
    if op == "LSTM" and attrs.pop("peepholes", False):
        consts["p"] = rng.uniform(-1, 1, (dirs, 3 * hidden)).astype(np.float32)
    state = helper.make_tensor_value_info
    inputs = [state("x", TensorProto.FLOAT, ["seq", "batch", size])]
    names = ["x", "w", "r", "b", "", "h0"]
    if lens:
        names[4] = "lens"
        inputs.append(state("lens", TensorProto.INT32, ["batch"]))
    inputs.append(state("h0", TensorProto.FLOAT, [dirs, "batch", hidden]))
    outs = ["y", "y_h"]
    if op == "LSTM":
        names += ["c0", "p" if "p" in consts else ""]
        inputs.append(state("c0", TensorProto.FLOAT, [dirs, "batch", hidden]))
        outs.append("y_c")
    node = helper.make_node(op, names, outs, name="rec", hidden_size=hidden, direction=direction, **attrs)
    graph = helper.make_graph(
        [node], "g", inputs, [state(o, TensorProto.FLOAT, None) for o in outs],
        [numpy_helper.from_array(v, k) for k, v in consts.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    model.ir_version = 8
    return model, consts


def _feeds(op: str, seq: int, batch: int, size: int, hidden: int, dirs: int, lens: bool) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seq * 31 + batch)
    feeds = {"x": rng.uniform(-1, 1, (seq, batch, size)).astype(np.float32)}
    if lens:
        feeds["lens"] = rng.integers(0, seq + 1, batch).astype(np.int32)
    feeds["h0"] = rng.uniform(-1, 1, (dirs, batch, hidden)).astype(np.float32)
    if op == "LSTM":
        feeds["c0"] = rng.uniform(-1, 1, (dirs, batch, hidden)).astype(np.float32)
    return feeds


SYMBOLIC_CASES = [
    ("RNN", "bidirectional", True, {}),
    ("RNN", "reverse", False, {"activations": ["Relu"], "clip": 2.0}),
    ("GRU", "bidirectional", True, {"linear_before_reset": 1}),
    ("GRU", "forward", True, {"activations": ["HardSigmoid", "Affine"], "activation_alpha": [0.3, 0.5],
                              "activation_beta": [0.4, 0.1]}),
    ("GRU", "reverse", False, {"clip": 0.7}),
    ("LSTM", "bidirectional", True, {"peepholes": True,
                                     "activations": ["Sigmoid", "Tanh", "Tanh", "HardSigmoid", "Elu", "Softplus"]}),
    ("LSTM", "forward", False, {"clip": 0.5}),
]


@pytest.mark.parametrize(("op", "direction", "lens", "attrs"), SYMBOLIC_CASES)
def test_symbolic_sequence_and_batch_compile_once(op, direction, lens, attrs):
    """A symbolic sequence length (the loop's trip count) and batch: compiled
    once, run at several lengths and batches (one step among them), with
    run-time sequence_lens, against onnxruntime."""
    import onnxruntime as ort

    size, hidden = 3, 5
    dirs = 2 if direction == "bidirectional" else 1
    model, _ = _symbolic_model(op, size, hidden, direction, lens, **dict(attrs))
    exe = lamina.compile(model)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    for seq, batch in [(1, 1), (7, 3), (2, 4), (16, 2)]:
        feeds = _feeds(op, seq, batch, size, hidden, dirs, lens)
        got = exe.run(**feeds)
        want = session.run(None, feeds)
        for name, g, w in zip(["Y", "Y_h", "Y_c"], got, want, strict=False):
            assert g.shape == w.shape, f"{op} {name} at seq {seq}, batch {batch}"
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5, err_msg=f"{op} {name} at seq {seq}, batch {batch}")


def _ops(model: onnx.ModelProto) -> list[str]:
    module = lamina.from_onnx(model)
    return [op.name for op in module.walk()]


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
def test_one_loop_whatever_the_length(op):
    """The node imports to one relay.loop over the sequence whose body is one
    step of both directions: the graph does not grow with the length."""
    size = {}
    for seq in (2, 40):
        case = _case(op, seq, 3, 4, 5, "bidirectional", 0, True, True, True)
        model, _ = model_of([case], 14)
        names = _ops(model)
        assert names.count(relay.LoopOp.name) == 1
        size[seq] = len(names)
    assert size[2] == size[40]


def test_weight_shapes_are_checked():
    x, w, r = rand(3, 2, 4), rand(1, 8, 4), rand(1, 8, 3)
    model, _ = model_of([Case("GRU", [x, Const(w), Const(r)], {"hidden_size": 2}, outputs=2)], 14)
    with pytest.raises(lamina.FrontendError, match=r"ONNX node 'case0' \(GRU, opset 14\): W has shape \[1, 8, 4\], expected \[1, 6, 4\]"):
        lamina.from_onnx(model)
    model, _ = model_of([Case("LSTM", [x, Const(rand(1, 8, 4)), Const(rand(1, 8, 2)), None, None, rand(2, 2, 2)],
                              {"hidden_size": 2}, outputs=3)], 14)
    with pytest.raises(lamina.FrontendError, match=r"initial_h has shape \[2, 2, 2\], expected \[1, 2, 2\]"):
        lamina.from_onnx(model)


# --------------------------------------------------------- bench/recurrent.py
def test_stacked_bidirectional_models_of_the_benchmark():
    """bench/recurrent.py's stacked models (two bidirectional layers, the second
    over the first's outputs), small, with a symbolic sequence length: its
    own check against onnxruntime at several lengths passes (exit code 0)."""
    import importlib.util
    import sys
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "bench" / "recurrent.py"
    spec = importlib.util.spec_from_file_location("lamina_bench_recurrent", path)
    assert spec and spec.loader
    bench = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = bench
    spec.loader.exec_module(bench)
    args = ["--inputs", "3", "--hidden", "5", "--batch", "2", "--seq", "4", "--runs", "1", "--rounds", "1", "--symbolic"]
    assert bench.main([*args, "--models", "lstm,gru,rnn"]) == 0


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
def test_packed_recurrent_weights(op):
    """Constant weights whose gates divide into the host's lanes are packed: the
    input projection, and in the loop's body the recurrent weight (one product
    per direction when there are two). Against onnxruntime, every direction,
    with lengths and without, GRU both ways of resetting."""
    rng = np.random.default_rng(3)
    cases = [
        _case(op, 6, batch, 8, hidden, direction, 0, True, True, True)
        for hidden, batch in ((16, 2), (32, 1))
        for direction in ("forward", "reverse", "bidirectional")
    ]
    lens = _lens_case(op, "bidirectional", rng.integers(0, 6, 3).astype(np.int32), True, hidden=16)
    lens.inputs[1], lens.inputs[2] = Const(lens.inputs[1]), Const(lens.inputs[2])
    cases.append(lens)
    if op == "GRU":
        cases.append(_case(op, 4, 2, 8, 16, "bidirectional", 0, True, False, True, linear_before_reset=1))
    check_ort(cases)


def test_recurrent_weights_are_packed_in_the_loop():
    """A bidirectional LSTM of 16 units: after `alter-op-layout`, the loop's
    body multiplies by packed constants (no batched product over the
    directions is left) and reads no weight as a loop input (the initial
    states, carried, stay inputs)."""
    case = _case("LSTM", 5, 2, 8, 16, "bidirectional", 0, True, False, True)
    model, _ = model_of([case], 14)
    module = lamina.from_onnx(model)
    lamina.run_pipeline(module, "optimize", lamina.PassContext(opt_level=3))
    (loop,) = [o for o in module.walk() if isinstance(o, relay.LoopOp)]
    inner = list(loop.body.block.walk())
    assert sum(isinstance(o, relay.DensePackOp) for o in inner) == 2
    assert not any(isinstance(o, relay.MatmulOp) for o in inner)
    read_only = list(loop.inputs)[loop.num_carried :]
    assert all(not isinstance(v.owner, relay.ConstantOp) for v in read_only)


@pytest.mark.parametrize("op", ["GRU", "LSTM"])
def test_packed_bidirectional_weights_at_symbolic_sizes(op):
    """The per-direction products keep a symbolic sequence and batch in their
    slices: compiled once, they match onnxruntime at every size."""
    import onnxruntime as ort

    rng = np.random.default_rng(4)
    hidden, size, g = 16, 8, GATES[op]
    inits = [
        numpy_helper.from_array(rng.uniform(-0.5, 0.5, (2, g * hidden, s)).astype(np.float32), n)
        for n, s in (("W", size), ("R", hidden))
    ]
    node = helper.make_node(op, ["x", "W", "R"], ["y"], hidden_size=hidden, direction="bidirectional")
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["seq", "batch", size])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    compiled = lamina.compile(model)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    for seq, batch in ((5, 2), (9, 3), (1, 1)):
        x = rng.standard_normal((seq, batch, size)).astype(np.float32)
        (got,) = compiled.run(x)
        np.testing.assert_allclose(got, session.run(None, {"x": x})[0], rtol=1e-4, atol=1e-5)
