"""fuse-ops: TVM's FuseOps cases on relay's ops, and a property over random graphs:
fusion keeps the computation (checked by a numpy interpreter) and its rules."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FunctionType,
    ModuleOp,
    StringAttr,
    TensorType,
    f32,
)
from xdsl.ir import Block, Operation, Region, SSAValue

import lamina
from lamina import passes as manager
from lamina.dialects import relay
from lamina.dialects.relay import OpPattern
from lamina.dialects.relay_region import FusedOp, YieldOp
from lamina.errors import LaminaError
from lamina.pattern import DominatorPattern, is_op, partition, wildcard
from lamina.transforms.graph.fold_constant import evaluate
from lamina.transforms.graph.fuse_ops import fuse_ops, op_pattern


def fused_groups(module: Operation) -> list[list[str]]:
    return [
        [o.name.removeprefix("relay.") for o in op.body.block.ops if not isinstance(o, YieldOp)]
        for op in module.walk()
        if isinstance(op, FusedOp)
    ]


def top_level(module: ModuleOp) -> list[str]:
    fn = next(op for op in module.ops if isinstance(op, func.FuncOp))
    return [op.name for op in fn.body.block.ops]


def run(src: str, max_depth: int = 256) -> ModuleOp:
    m = lamina.parse(src)
    fuse_ops(m, max_depth)
    m.verify()
    return m


def test_matmul_bias_relu_fuse():
    m = run("""
    func.func @main(%x: tensor<1x8xf32>, %w: tensor<8x8xf32>, %b: tensor<8xf32>) -> tensor<1x8xf32> {
      %0 = relay.matmul %x, %w : (tensor<1x8xf32>, tensor<8x8xf32>)
      %1 = relay.add %0, %b : (tensor<1x8xf32>, tensor<8xf32>)
      %2 = relay.relu %1 : tensor<1x8xf32>
      func.return %2 : tensor<1x8xf32>
    }""")
    assert fused_groups(m) == [["matmul", "add", "relu"]]
    (fused,) = (op for op in m.walk() if isinstance(op, FusedOp))
    assert "lamina.primitive" in fused.attributes
    assert fused.attributes["lamina.group"] == StringAttr("matmul_add_relu")
    assert [v.name_hint for v in fused.inputs] == ["x", "w", "b"]


def test_diamond_after_matmul_fuses_into_one_group():
    m = run("""
    func.func @main(%x: tensor<2x4xf32>, %w: tensor<4x4xf32>) -> tensor<2x4xf32> {
      %mm = relay.matmul %x, %w : (tensor<2x4xf32>, tensor<4x4xf32>)
      %a = relay.relu %mm : tensor<2x4xf32>
      %b = relay.relu %mm : tensor<2x4xf32>
      %out = relay.add %a, %b : tensor<2x4xf32>
      func.return %out : tensor<2x4xf32>
    }""")
    assert fused_groups(m) == [["matmul", "relu", "relu", "add"]]


def test_opaque_ops_split_groups():
    m = run("""
    func.func @main(%x: tensor<1x8xf32>, %w: tensor<8x8xf32>) -> tensor<1x8xf32> {
      %0 = relay.matmul %x, %w : (tensor<1x8xf32>, tensor<8x8xf32>)
      %1 = relay.relu %0 : tensor<1x8xf32>
      %2 = relay.softmax %1 {axis = 1 : i64} : tensor<1x8xf32>
      %3 = relay.relu %2 : tensor<1x8xf32>
      %4 = relay.multiply %3, %3 : tensor<1x8xf32>
      func.return %4 : tensor<1x8xf32>
    }""")
    assert fused_groups(m) == [["matmul", "relu"], ["relu", "multiply"]]
    assert top_level(m) == ["relay.fused", "relay.softmax", "relay.fused", "func.return"]


def test_injective_chains_fuse_in_the_second_phase():
    m = run("""
    func.func @main(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
      %0 = relay.relu %x : tensor<2x3xf32>
      %1 = relay.reshape %0 {shape = array<i64: 6>} : (tensor<2x3xf32>) -> tensor<6xf32>
      %2 = relay.reshape %1 {shape = array<i64: 2, 3>} : (tensor<6xf32>) -> tensor<2x3xf32>
      %3 = relay.transpose %2 {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
      func.return %3 : tensor<3x2xf32>
    }""")
    assert fused_groups(m) == [["relu", "reshape", "reshape", "transpose"]]


def test_out_fusable_ops_do_not_fuse_into_each_other():
    m = run("""
    func.func @main(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
      %0 = relay.matmul %x, %w : tensor<4x4xf32>
      %1 = relay.matmul %0, %w : tensor<4x4xf32>
      %2 = relay.relu %1 : tensor<4x4xf32>
      func.return %2 : tensor<4x4xf32>
    }""")
    assert fused_groups(m) == [["matmul", "relu"]]
    assert top_level(m)[0] == "relay.matmul"


def test_values_used_outside_end_their_group():
    m = run("""
    func.func @main(%x: tensor<1x8xf32>, %w: tensor<8x8xf32>) -> (tensor<1x8xf32>, tensor<1x8xf32>) {
      %0 = relay.matmul %x, %w : (tensor<1x8xf32>, tensor<8x8xf32>)
      %1 = relay.relu %0 : tensor<1x8xf32>
      %2 = relay.add %1, %1 : tensor<1x8xf32>
      %3 = relay.relu %2 : tensor<1x8xf32>
      func.return %1, %3 : tensor<1x8xf32>, tensor<1x8xf32>
    }""")
    assert fused_groups(m) == [["matmul", "relu"], ["add", "relu"]]


def test_broadcasting_into_a_matmul_group():
    # A broadcast add after the matmul is not elementwise in shape, but the bias add
    # is still fused: the relation to the post-dominator is what counts.
    m = run("""
    func.func @main(%x: tensor<2x4xf32>, %w: tensor<4x4xf32>, %b: tensor<1x4xf32>) -> tensor<2x4xf32> {
      %0 = relay.matmul %x, %w : (tensor<2x4xf32>, tensor<4x4xf32>)
      %1 = relay.multiply %0, %b : (tensor<2x4xf32>, tensor<1x4xf32>)
      func.return %1 : tensor<2x4xf32>
    }""")
    assert fused_groups(m) == [["matmul", "multiply"]]


CHAIN = "\n".join(
    ["func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {", "  %v0 = relay.relu %x : tensor<4xf32>"]
    + [f"  %v{i} = relay.relu %v{i - 1} : tensor<4xf32>" for i in range(1, 10)]
    + ["  func.return %v9 : tensor<4xf32>", "}"]
)


@pytest.mark.parametrize(("depth", "sizes"), [(256, [10]), (4, [4, 4, 2]), (3, [3, 3, 3])])
def test_max_depth(depth, sizes):
    m = run(CHAIN, max_depth=depth)
    assert sorted((len(g) for g in fused_groups(m)), reverse=True) == sizes


def test_max_depth_from_config_and_pass_option():
    with manager.PassContext(config={"fuse-ops.max-depth": 5}):
        m = manager.run_pipeline(lamina.parse(CHAIN), "fuse-ops")
    assert sorted(len(g) for g in fused_groups(m)) == [5, 5]
    m = manager.run_pipeline(lamina.parse(CHAIN), "fuse-ops{max-depth=2}")
    assert [len(g) for g in fused_groups(m)] == [2] * 5
    with pytest.raises(LaminaError, match="max-depth must be at least 1"):
        manager.run_pipeline(lamina.parse(CHAIN), "fuse-ops{max-depth=0}")


def test_fuse_ops_runs_from_opt_level_2_and_reports():
    stats = manager.StatisticsInstrument()
    ctx1 = manager.PassContext(opt_level=1, instruments=[stats])
    assert fused_groups(manager.run_pipeline(lamina.parse(CHAIN), "fuse-ops", ctx1)) == []
    ctx2 = manager.PassContext(opt_level=2, instruments=[stats])
    manager.run_pipeline(lamina.parse(CHAIN), "fuse-ops", ctx2)
    assert stats.records[-1].counters == {"fuse-ops.groups": 1, "fuse-ops.fused-ops": 10}


def test_fusing_twice_changes_nothing():
    m = run(CHAIN, max_depth=4)
    before = lamina.print_ir(m)
    fuse_ops(m, 4)
    assert lamina.print_ir(m) == before


def test_op_pattern_of_other_ops():
    m = run(CHAIN)
    fused = next(op for op in m.walk() if isinstance(op, FusedOp))
    assert op_pattern(fused) == OpPattern.OPAQUE


# ------------------------------------------------------------ random graphs
SHAPE = (2, 3)
T = TensorType(f32, list(SHAPE))


@st.composite
def graphs(draw) -> tuple[ModuleOp, int]:
    """A random graph over 2x3 tensors: elementwise, broadcast, injective round
    trips, matmuls with a constant and opaque softmaxes; 1-3 returned values."""
    block = Block(arg_types=[T, T])
    values: list[SSAValue] = list(block.args)
    weight = relay.ConstantOp(
        DenseIntOrFPElementsAttr.from_list(
            TensorType(f32, [3, 3]), [float(v) / 7 for v in range(9)]
        )
    )
    block.add_op(weight)
    for _ in range(draw(st.integers(1, 12))):
        kind = draw(st.sampled_from(["relu", "add", "mul", "sub", "reshape", "matmul", "softmax"]))
        a = draw(st.sampled_from(values))
        b = draw(st.sampled_from(values))
        if kind == "relu":
            ops = [relay.ReluOp(a)]
        elif kind in ("add", "mul", "sub"):
            cls = {"add": relay.AddOp, "mul": relay.MultiplyOp, "sub": relay.SubtractOp}[kind]
            ops = [cls(a, b)]
        elif kind == "reshape":
            r = relay.ReshapeOp(a, shape=relay.i64_array([6]))
            ops = [r, relay.ReshapeOp(r, shape=relay.i64_array(SHAPE))]
        elif kind == "matmul":
            ops = [relay.MatmulOp(a, weight)]
        else:
            ops = [relay.SoftmaxOp(a, axis=relay.i64_attr(1))]
        block.add_ops(ops)
        values.append(ops[-1].results[0])
    outs = draw(st.lists(st.sampled_from(values[2:]), min_size=1, max_size=3))
    block.add_op(func.ReturnOp(*outs))
    fn = func.FuncOp("main", FunctionType.from_lists([T, T], [T] * len(outs)), Region(block))
    depth = draw(st.sampled_from([2, 3, 256]))
    return ModuleOp([fn]), depth


@given(graphs())
def test_fusion_keeps_the_computation_and_its_rules(case):
    module, depth = case
    module.verify()
    rng = np.random.default_rng(1)
    inputs = [rng.standard_normal(SHAPE).astype(np.float32) for _ in range(2)]
    fn = next(op for op in module.ops if isinstance(op, func.FuncOp))
    expected = evaluate(fn.body.block, inputs)
    groups = fuse_ops(module, depth)
    module.verify()
    for g in groups:
        ops = [o for o in g.body.block.ops if not isinstance(o, YieldOp)]
        assert 2 <= len(ops) <= depth
        assert all(op_pattern(o) != OpPattern.OPAQUE for o in ops)
        assert sum(op_pattern(o) == OpPattern.OUT_ELEMWISE_FUSABLE for o in ops) <= 1
    got = evaluate(fn.body.block, inputs)
    for e, g in zip(expected, got, strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-6)


# ------------------------------------- TVM's test_pass_fuse_ops cases on conv/concat
CONV_ADD_RELU = """
func.func @main(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>, %b: tensor<1x6x1x1xf32>) -> tensor<1x6x8x8xf32> {
  %0 = relay.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>)
  %1 = relay.add %0, %b : (tensor<1x6x8x8xf32>, tensor<1x6x1x1xf32>)
  %2 = relay.relu %1 : tensor<1x6x8x8xf32>
  func.return %2 : tensor<1x6x8x8xf32>
}"""


def test_conv_add_relu_is_one_group_and_one_kernel():
    m = run(CONV_ADD_RELU)
    assert fused_groups(m) == [["conv2d", "add", "relu"]]
    rng = np.random.default_rng(0)
    x, w, b = (rng.standard_normal(s).astype(np.float32) for s in ((1, 4, 8, 8), (6, 4, 3, 3), (1, 6, 1, 1)))
    fused = lamina.compile(lamina.parse(CONV_ADD_RELU), opt_level=3).run(x, w, b)[0]
    plain = lamina.compile(lamina.parse(CONV_ADD_RELU), opt_level=0).run(x, w, b)[0]
    np.testing.assert_allclose(fused, plain, rtol=1e-5, atol=1e-6)


def test_concatenate_of_injective_branches():
    # TVM's tuple case: the injective producers of a concatenate join it.
    m = run("""
    func.func @main(%x: tensor<2x4xf32>, %y: tensor<2x4xf32>) -> tensor<4x4xf32> {
      %a = relay.relu %x : tensor<2x4xf32>
      %b = relay.exp %y : tensor<2x4xf32>
      %c = relay.concatenate %a, %b {axis = 0 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
      %d = relay.negative %c : tensor<4x4xf32>
      func.return %d : tensor<4x4xf32>
    }""")
    groups = fused_groups(m)
    assert ["concatenate", "negative"] in [g[-2:] for g in groups]
    assert sum(len(g) for g in groups) == 4


def test_reduction_takes_its_elementwise_prologue_not_its_epilogue():
    # TVM: elementwise producers fuse into a comm-reduce; a comm-reduce does not
    # fuse into its consumers, which form their own group.
    m = run("""
    func.func @main(%x: tensor<4x8xf32>, %s: tensor<4xf32>) -> tensor<4xf32> {
      %e = relay.exp %x : tensor<4x8xf32>
      %0 = relay.sum %e {axes = array<i64: 1>} : (tensor<4x8xf32>)
      %1 = relay.multiply %0, %s : tensor<4xf32>
      %2 = relay.relu %1 : tensor<4xf32>
      func.return %2 : tensor<4xf32>
    }""")
    assert fused_groups(m) == [["exp", "sum"], ["multiply", "relu"]]


# ------------------------ the same grouping by a pattern: dominates(conv, path, child)
CONV_BIAS_RELU_RESHAPE = """
func.func @main(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>, %b: tensor<6xf32>) -> tensor<6x36xf32> {
  %0 = relay.conv2d %x, %w : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>)
  %1 = relay.bias_add %0, %b : (tensor<1x6x6x6xf32>, tensor<6xf32>)
  %2 = relay.relu %1 : tensor<1x6x6x6xf32>
  %3 = relay.reshape %2 {shape = array<i64: 6, 36>} : (tensor<1x6x6x6xf32>) -> tensor<6x36xf32>
  func.return %3 : tensor<6x36xf32>
}"""


def dominated_by(parent: str) -> DominatorPattern:
    """TVM's test_match_dominator2 pattern: an injective op dominated by `parent`
    through elementwise and broadcast ops (which may read other inputs)."""
    eltwise = wildcard().has_attr({"TOpPattern": OpPattern.ELEMWISE})(None)
    broadcast = wildcard().has_attr({"TOpPattern": OpPattern.BROADCAST})(None)
    injective = wildcard().has_attr({"TOpPattern": OpPattern.INJECTIVE})(wildcard())
    return injective.dominates(is_op(parent)(wildcard(), wildcard()), eltwise | broadcast)


def test_dominator_partition_through_a_bias_argument_compiles():
    # TVM: test_match_dominator2 (apache/tvm#16983), partitioned and compiled: the
    # bias_add on the path reads the function argument %b, which becomes an input.
    m = lamina.parse(CONV_BIAS_RELU_RESHAPE)
    (group,) = partition(dominated_by("conv2d"), m, {"lamina.composite": "conv_chain"})
    m.verify()
    assert fused_groups(m) == [["conv2d", "bias_add", "relu", "reshape"]]
    assert [v.name_hint for v in group.inputs] == ["x", "w", "b"]
    rng = np.random.default_rng(0)
    x, w, b = (rng.standard_normal(s).astype(np.float32) for s in ((1, 4, 8, 8), (6, 4, 3, 3), (6,)))
    windows = np.lib.stride_tricks.sliding_window_view(x, (3, 3), axis=(2, 3))
    conv = np.einsum("nchwkl,ockl->nohw", windows, w)
    expected = np.maximum(conv + b[:, None, None], 0).reshape(6, 36)
    got = lamina.compile(m, opt_level=0).run(x, w, b)[0]
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_dominator_partition_through_arguments_and_constants_keeps_the_computation():
    src = """
    func.func @main(%x: tensor<2x4xf32>, %w: tensor<4x4xf32>, %b: tensor<4xf32>) -> tensor<8xf32> {
      %c = relay.constant dense<[[0.5, -1.0, 2.0, 0.0], [1.5, 1.0, -2.0, 3.0]]> : tensor<2x4xf32>
      %mm = relay.matmul %x, %w : (tensor<2x4xf32>, tensor<4x4xf32>)
      %biased = relay.bias_add %mm, %b : (tensor<2x4xf32>, tensor<4xf32>)
      %r = relay.relu %biased : tensor<2x4xf32>
      %s = relay.multiply %r, %c : tensor<2x4xf32>
      %out = relay.reshape %s {shape = array<i64: 8>} : (tensor<2x4xf32>) -> tensor<8xf32>
      func.return %out : tensor<8xf32>
    }"""
    m = lamina.parse(src)
    fn = next(op for op in m.ops if isinstance(op, func.FuncOp))
    rng = np.random.default_rng(2)
    args = [rng.standard_normal(s).astype(np.float32) for s in ((2, 4), (4, 4), (4,))]
    (expected,) = evaluate(fn.body.block, args)
    (group,) = partition(dominated_by("matmul"), m)
    m.verify()
    assert fused_groups(m) == [["matmul", "bias_add", "relu", "multiply", "reshape"]]
    # The constant met by the path's fuzzy call is an input, as TVM lifts it. The
    # order is the pattern's leaf order (TVM's): the parent's wildcards, then the
    # operands of the path's ops in the order the matcher met them, walking back
    # from the child (the multiply before the bias_add).
    assert [v.name_hint for v in group.inputs] == ["x", "w", "c", "b"]
    (got,) = evaluate(fn.body.block, args)
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)
