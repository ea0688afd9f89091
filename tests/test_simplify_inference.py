"""simplify-inference: batch norm to scale and shift, folded into conv / dense
weights; numerics checked against the numpy reference interpreter (random dense
graphs, hypothesis) and onnxruntime (conv graphs, ResNet-18)."""

from __future__ import annotations

import time

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from hypothesis import given
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper
from xdsl.dialects import func

import lamina
from lamina.dialects.relay_region import FusedOp
from lamina.passes import PassContext, run_pipeline
from lamina.tools.models import resnet18
from lamina.transforms.graph.fold_constant import evaluate
from lamina.transforms.graph.simplify_inference import simplify_inference


def _dense(a: np.ndarray) -> str:
    def fmt(v: object) -> str:
        if isinstance(v, list):
            return "[" + ", ".join(fmt(x) for x in v) + "]"
        return f"{float(v):.9e}"  # type: ignore[arg-type]

    return f"dense<{fmt(a.tolist())}>"


def _t(shape: tuple[int, ...]) -> str:
    return "tensor<" + "x".join(map(str, shape)) + "xf32>"


def _main(m):
    return next(op for op in m.ops if isinstance(op, func.FuncOp))


def _ops(m) -> list[str]:
    return [op.name for op in m.walk()]


# ------------------------------------------------------- dense graphs, numpy
@given(
    m=st.integers(1, 4),
    k=st.integers(1, 5),
    n=st.integers(1, 5),
    transpose_b=st.booleans(),
    bias=st.booleans(),
    const_stats=st.booleans(),
    relu=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_dense_batch_norm_numerics(m, k, n, transpose_b, bias, const_stats, relu, seed):
    rng = np.random.default_rng(seed)
    w = rng.standard_normal((n, k) if transpose_b else (k, n)).astype(np.float32)
    stats = [
        rng.uniform(0.5, 1.5, n),
        rng.standard_normal(n),
        rng.standard_normal(n),
        rng.uniform(0.1, 2.0, n),
    ]
    stats = [s.astype(np.float32) for s in stats]
    names = ["gamma", "beta", "mean", "var"]
    args = [f"%x: {_t((m, k))}"]
    lines = [f"%w = relay.constant {_dense(w)} : {_t(w.shape)}"]
    if const_stats:
        lines += [f"%{nm} = relay.constant {_dense(s)} : {_t((n,))}" for nm, s in zip(names, stats, strict=True)]
    else:
        args += [f"%{nm}: {_t((n,))}" for nm in names]
    operands, types = "%x, %w", f"{_t((m, k))}, {_t(w.shape)}"
    if bias:
        b = rng.standard_normal(n).astype(np.float32)
        lines.append(f"%b = relay.constant {_dense(b)} : {_t((n,))}")
        operands, types = operands + ", %b", types + f", {_t((n,))}"
    attr = " {transpose_b}" if transpose_b else ""
    out = _t((m, n))
    lines.append(f"%d = relay.dense {operands}{attr} : ({types}) -> {out}")
    lines.append(
        f"%bn = relay.batch_norm %d, %gamma, %beta, %mean, %var {{epsilon = 1.0e-03 : f64}}"
        f" : ({out}, {_t((n,))}, {_t((n,))}, {_t((n,))}, {_t((n,))}) -> {out}"
    )
    result = "%bn"
    if relu:
        lines.append(f"%r = relay.relu %bn : {out}")
        result = "%r"
    src = (
        f"func.func @main({', '.join(args)}) -> {out} {{\n  "
        + "\n  ".join(lines)
        + f"\n  func.return {result} : {out}\n}}"
    )
    mod = lamina.parse(src)
    fn = _main(mod)
    inputs = [rng.standard_normal((m, k)).astype(np.float32)]
    if not const_stats:
        inputs += stats
    before = evaluate(fn.body.block, inputs)
    simplify_inference(mod)
    mod.verify()
    names_after = _ops(mod)
    assert "relay.batch_norm" not in names_after
    if const_stats:
        # the scale went into the weights: one dense, no multiply
        assert "relay.multiply" not in names_after
        assert names_after.count("relay.dense") == 1
    after = evaluate(_main(mod).body.block, inputs)
    np.testing.assert_allclose(after[0], before[0], rtol=1e-4, atol=1e-4)


# ---------------------------------------------------- conv graphs, onnxruntime
def _conv_bn_model(spatial: int, groups: int, bias: bool, seed: int = 0) -> onnx.ModelProto:
    rng = np.random.default_rng(seed)
    cin, cout, size = 4, 6 if groups == 1 else 4, 7
    shape = [1, cin] + [size] * spatial
    w = rng.standard_normal((cout, cin // groups) + (3,) * spatial).astype(np.float32)
    inits = [numpy_helper.from_array(w, "w")]
    conv_in = ["x", "w"]
    if bias:
        inits.append(numpy_helper.from_array(rng.standard_normal(cout).astype(np.float32), "b"))
        conv_in.append("b")
    for nm, v in [
        ("gamma", rng.uniform(0.5, 1.5, cout)),
        ("beta", rng.standard_normal(cout)),
        ("mean", rng.standard_normal(cout)),
        ("var", rng.uniform(0.2, 2.0, cout)),
    ]:
        inits.append(numpy_helper.from_array(v.astype(np.float32), nm))
    nodes = [
        helper.make_node("Conv", conv_in, ["c"], pads=[1] * 2 * spatial, group=groups),
        helper.make_node("BatchNormalization", ["c", "gamma", "beta", "mean", "var"], ["bn"]),
        helper.make_node("Relu", ["bn"], ["y"]),
    ]
    out_shape = [1, cout] + [size] * spatial
    graph = helper.make_graph(
        nodes,
        "conv_bn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def _ort(model: onnx.ModelProto, x: np.ndarray) -> np.ndarray:
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    name = sess.get_inputs()[0].name
    return sess.run(None, {name: x})[0]


@pytest.mark.parametrize(
    "spatial,groups,bias", [(1, 1, False), (2, 1, True), (2, 4, False), (3, 1, False)]
)
def test_conv_batch_norm_matches_onnxruntime(spatial, groups, bias):
    model = _conv_bn_model(spatial, groups, bias)
    mod = lamina.from_onnx(model)
    run_pipeline(mod, "simplify-inference", PassContext(opt_level=1))
    names = _ops(mod)
    assert "relay.batch_norm" not in names and "relay.multiply" not in names
    x = np.random.default_rng(1).standard_normal(
        tuple(d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim)
    ).astype(np.float32)
    ref = _ort(model, x)
    (y,) = lamina.compile(mod, opt_level=0).run(x)
    np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-4)


def test_opt_level_zero_keeps_batch_norm():
    mod = lamina.from_onnx(_conv_bn_model(2, 1, False))
    run_pipeline(mod, "simplify-inference", PassContext(opt_level=0))
    assert "relay.batch_norm" in _ops(mod)


# ---------------------------------------------------------------- ResNet-18
def _conv_chains_fused(mod) -> list[str]:
    """Conv -> (add)* -> relu chains that are not all inside one relay.fused."""
    bad = []
    for op in mod.walk():
        if not op.name.startswith("relay.conv"):
            continue
        chain, cur = [op], op
        while True:
            users = [u.operation for u in cur.results[0].uses]
            if len(users) != 1 or users[0].name not in ("relay.add", "relay.relu"):
                break
            cur = users[0]
            chain.append(cur)
            if cur.name == "relay.relu":
                break
        parents = {o.parent_op() for o in chain}
        if len(parents) != 1 or not isinstance(next(iter(parents)), FusedOp):
            bad.append(" -> ".join(o.name for o in chain))
    return bad


def test_resnet18_done_when():
    """Issue 4: after fold-constant, simplify-inference and fuse-ops, ResNet-18
    has no batch norm, every conv -> add -> relu chain is one fused group, there
    are at most 30 groups, and the compiled model matches onnxruntime."""
    start = time.perf_counter()
    model = resnet18(batch=1, image_size=224)
    mod = lamina.from_onnx(model)
    assert sum(1 for op in mod.walk() if op.name == "relay.batch_norm") == 20
    run_pipeline(mod, "fold-constant,simplify-inference,fuse-ops", PassContext(opt_level=3))
    mod.verify()
    names = _ops(mod)
    assert "relay.batch_norm" not in names
    assert names.count("relay.conv2d") == 20
    assert _conv_chains_fused(mod) == []
    groups = names.count("relay.fused")
    assert 0 < groups <= 30
    x = np.random.default_rng(1).standard_normal((1, 3, 224, 224)).astype(np.float32)
    (y,) = lamina.compile(mod, opt_level=3).run(x)
    ref = _ort(model, x)
    np.testing.assert_allclose(y, ref, rtol=1e-3, atol=1e-4)
    assert time.perf_counter() - start < 120
