"""The dataflow pattern language, in the spirit of TVM's test_dataflow_pattern.py.

Graphs use the relay ops that exist today; TVM's conv2d becomes matmul, its unary
elementwise ops (relu, tanh, leaky_relu) become relu, and multi-result ops are a
test-only `test.split2` or `relay.fused`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    DenseResourceAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    f32,
    i32,
    i64,
)
from xdsl.ir import Dialect, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.passes import ModulePass
from xdsl.traits import Pure

import lamina
from lamina import passes as manager
from lamina.dialects import relay
from lamina.dialects.constants import constant_data
from lamina.dialects.relay import OpPattern
from lamina.dialects.relay_region import FusedOp
from lamina.dialects.resources import blobs
from lamina.errors import LaminaError
from lamina.pattern import (
    AltPattern,
    AttrPattern,
    CallPattern,
    ConstantPattern,
    DataTypePattern,
    DominatorPattern,
    ExprPattern,
    Match,
    PatternCallback,
    ShapePattern,
    TupleGetItemPattern,
    TuplePattern,
    TypePattern,
    VarPattern,
    WildcardPattern,
    dominates,
    has_dtype,
    has_shape,
    has_type,
    is_constant,
    is_expr,
    is_op,
    is_tuple,
    is_tuple_get_item,
    is_var,
    partition,
    rewrite,
    wildcard,
)
from lamina.transforms.graph.fold_constant import EVALUATORS, evaluate

K_ELEMWISE = OpPattern.ELEMWISE
K_BROADCAST = OpPattern.BROADCAST
K_INJECTIVE = OpPattern.INJECTIVE


# ------------------------------------------------------------------ test ops
@irdl_op_definition
class Split2Op(IRDLOperation):
    """A two-result op, standing in for TVM's tuple-returning ops."""

    name = "test.split2"
    data = operand_def(TensorType)
    first = result_def(TensorType)
    second = result_def(TensorType)
    traits = traits_def(Pure())


@irdl_op_definition
class ConcatOp(IRDLOperation):
    """A variadic op, standing in for TVM's concatenate(Tuple(...))."""

    name = "test.concat"
    inputs = var_operand_def(TensorType)
    output = result_def(TensorType)
    traits = traits_def(Pure())


TestDialect = Dialect("test_pattern", [Split2Op, ConcatOp], [])


def parse(src: str) -> ModuleOp:
    if "test." not in src:
        return lamina.parse(src)
    ctx: Context = lamina.context()
    ctx.load_dialect(TestDialect)
    module = Parser(ctx, src).parse_module()
    module.verify()
    return module


def val(module: Operation, name: str) -> SSAValue:
    """The value named `%name` in the source."""
    for op in module.walk():
        for r in op.results:
            if r.name_hint == name:
                return r
        for region in op.regions:
            for block in region.blocks:
                for a in block.args:
                    if a.name_hint == name:
                        return a
    raise KeyError(name)


def names(module: Operation) -> list[str]:
    return [op.name for op in module.walk() if op.name.startswith(("relay.", "test."))]


def main_ops(module: ModuleOp) -> list[Operation]:
    fn = next(op for op in module.ops if isinstance(op, func.FuncOp))
    return list(fn.body.block.ops)


BINARY = """
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %add = relay.add %x, %y : tensor<4xf32>
  %sub = relay.subtract %x, %y : tensor<4xf32>
  %mul = relay.multiply %x, %y : tensor<4xf32>
  %div = relay.divide %x, %y : tensor<4xf32>
  %c = relay.constant dense<1.0> : tensor<4xf32>
  %addc = relay.add %x, %c : tensor<4xf32>
  %xx = relay.add %x, %x : tensor<4xf32>
  %r = relay.relu %add : tensor<4xf32>
  func.return %r : tensor<4xf32>
}
"""


@pytest.fixture
def binary() -> ModuleOp:
    return parse(BINARY)


# The "classic diamond" of TVM's tests: conv2d -> relu -> relu, conv2d -> leaky_relu,
# then add.
DIAMOND = """
func.func @main(%x: tensor<2x4xf32>, %w: tensor<4x4xf32>) -> tensor<2x4xf32> {
  %mm = relay.matmul %x, %w : (tensor<2x4xf32>, tensor<4x4xf32>)
  %r1 = relay.relu %mm : tensor<2x4xf32>
  %r2 = relay.relu %r1 : tensor<2x4xf32>
  %l = relay.relu %mm : tensor<2x4xf32>
  %out = relay.add %r2, %l : tensor<2x4xf32>
  func.return %out : tensor<2x4xf32>
}
"""


def diamond_pattern(path=None):
    is_mm = is_op("matmul")(wildcard(), wildcard())
    unary = wildcard().has_attr({"PATTERN": K_ELEMWISE})(wildcard())
    return dominates(is_mm, path or unary, is_op("add")(wildcard(), wildcard()))


# ============================================================== construction
def test_constructors_build_pattern_nodes():
    wc1, wc2 = wildcard(), wildcard()
    call = is_op("add")(wc1, wc2)
    assert isinstance(wc1, WildcardPattern)
    assert isinstance(call, CallPattern) and call.args == [wc1, wc2]
    assert isinstance(is_var("x"), VarPattern) and is_var("x").name == "x"
    assert isinstance(is_constant(), ConstantPattern)
    t = is_tuple([wc1, wc2])
    assert isinstance(t, TuplePattern) and t.fields == [wc1, wc2]
    tgi = is_tuple_get_item(t, 1)
    assert isinstance(tgi, TupleGetItemPattern) and tgi.tuple is t and tgi.index == 1
    assert isinstance(is_op("add") | is_op("subtract"), AltPattern)
    assert isinstance(has_type(TensorType(f32, [10, 10])), TypePattern)
    assert isinstance(has_dtype("float16"), DataTypePattern)
    assert isinstance(has_shape([10, 10]), ShapePattern)
    assert has_shape([10, 10]).shape == (10, 10)
    attr = is_op("add").has_attr({"TOpPattern": K_ELEMWISE})
    assert isinstance(attr, AttrPattern) and attr.attrs["TOpPattern"] == K_ELEMWISE
    assert isinstance(diamond_pattern(), DominatorPattern)


def test_is_expr_of_a_value_and_of_data(binary):
    assert isinstance(is_expr(val(binary, "x")), ExprPattern)
    assert isinstance(is_expr(val(binary, "add").op), ExprPattern)
    assert is_expr(0).match(val(binary, "c")) is False
    with pytest.raises(LaminaError, match="cannot match"):
        is_expr(object())


def test_is_op_names_and_classes(binary):
    add = val(binary, "add")
    assert is_op("add").match(add)
    assert is_op("relay.add").match(add)
    assert is_op(relay.AddOp).match(add)
    assert is_op("subtract", "add").match(add)
    assert not is_op(relay.SubtractOp).match(add)


def test_is_op_unknown_name_suggests():
    with pytest.raises(LaminaError, match=r"unknown op 'rleu' \(did you mean 'relay.relu'\?\)"):
        is_op("rleu")
    with pytest.raises(LaminaError, match="at least one op"):
        is_op()


def test_repr_reads_like_the_constructors():
    p = is_op("relu")(is_op("add")(wildcard(), is_constant())).has_dtype("float32")
    assert repr(p) == (
        "is_op('relay.relu')(is_op('relay.add')(wildcard(), is_constant())).has_dtype(f32)"
    )
    assert repr(is_var("x") | is_tuple(None)) == "(is_var('x') | is_tuple(None))"
    assert repr(has_type(TensorType)) == "wildcard().has_type(TensorType)"


# ================================================================== matching
def test_match_op(binary):
    assert is_op("add")(wildcard(), wildcard()).match(val(binary, "add"))


def test_no_match_op(binary):
    assert not is_op("add")(wildcard(), wildcard()).match(val(binary, "sub"))
    assert not is_op("add").match(val(binary, "x"))


def test_match_op_or(binary):
    add_or_sub = is_op("add") | is_op("subtract")
    assert add_or_sub.match(val(binary, "add"))
    assert add_or_sub.match(val(binary, "sub"))
    assert not add_or_sub.match(val(binary, "mul"))


def test_match_call_with_any_operands(binary):
    any_call = wildcard()(None)
    assert any_call.match(val(binary, "r"))
    assert any_call.match(val(binary, "add"))
    assert not any_call.match(val(binary, "x"))
    assert is_op("add")(None).match(val(binary, "add"))


def test_wrong_operand_count_does_not_match(binary):
    assert not is_op("add")(wildcard()).match(val(binary, "add"))
    assert not wildcard()(wildcard(), wildcard()).match(val(binary, "r"))


def test_match_accepts_an_operation(binary):
    assert is_op("relu")(wildcard()).match(val(binary, "r").op)


def test_wildcard_matches_anything(binary):
    for name in ("x", "add", "c"):
        assert wildcard().match(val(binary, name))


def test_is_var(binary):
    assert is_var().match(val(binary, "x"))
    assert is_var("x").match(val(binary, "x"))
    assert not is_var("y").match(val(binary, "x"))
    assert not is_var().match(val(binary, "add"))
    assert not is_var().match(val(binary, "c"))


def test_is_var_matches_fused_region_arguments():
    m = parse("""
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %f = relay.fused(%x) ({
      ^bb0(%a: tensor<4xf32>):
        %r = relay.relu %a : tensor<4xf32>
        relay.yield %r : tensor<4xf32>
      }) : (tensor<4xf32>) -> tensor<4xf32>
      func.return %f : tensor<4xf32>
    }""")
    assert is_op("relu")(is_var("a")).match(val(m, "r"))


def test_is_constant(binary):
    assert is_constant().match(val(binary, "c"))
    assert not is_constant().match(val(binary, "x"))
    assert is_op("add")(wildcard(), is_constant()).match(val(binary, "addc"))
    assert not is_op("add")(wildcard(), is_constant()).match(val(binary, "add"))


def test_is_expr_is_identity(binary):
    x, y = val(binary, "x"), val(binary, "y")
    assert is_op("add")(is_expr(x), is_expr(y)).match(val(binary, "add"))
    assert not is_op("add")(is_expr(y), is_expr(y)).match(val(binary, "add"))


def test_is_expr_of_constant_data():
    m = parse("""
    func.func @main() -> (tensor<2xf32>, tensor<2xf32>, tensor<2xi32>) {
      %zeros = relay.constant dense<0.0> : tensor<2xf32>
      %v = relay.constant dense<[1.0, 2.0]> : tensor<2xf32>
      %izeros = relay.constant dense<0> : tensor<2xi32>
      func.return %zeros, %v, %izeros : tensor<2xf32>, tensor<2xf32>, tensor<2xi32>
    }""")
    zero = is_expr(0) | is_expr(0.0)
    assert zero.match(val(m, "zeros")) and zero.match(val(m, "izeros"))
    assert not zero.match(val(m, "v"))
    assert is_expr(np.array([1.0, 2.0])).match(val(m, "v"))
    assert not is_expr(np.array([2.0, 1.0])).match(val(m, "v"))
    assert not is_expr(np.array([1.0, 2.0, 3.0])).match(val(m, "v"))


def test_is_expr_reads_resource_constants():
    key = blobs.add("pattern_test_ones", np.ones((2, 2), np.float32))
    const = relay.ConstantOp(DenseResourceAttr.from_params(key, TensorType(f32, [2, 2])))
    assert is_expr(1.0).match(const.result)
    assert not is_expr(2.0).match(const.result)


def test_match_call_commutative():
    m = parse("""
    func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
      %xy = relay.add %x, %y : tensor<4xf32>
      %yx = relay.add %y, %x : tensor<4xf32>
      %mxy = relay.multiply %x, %y : tensor<4xf32>
      %myx = relay.multiply %y, %x : tensor<4xf32>
      func.return %xy, %yx, %mxy, %myx : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
    }""")
    add = is_op("add")(is_var("x"), is_var("y"))
    mul = is_op("multiply")(is_var("x"), is_var("y"))
    assert add.match(val(m, "xy")) and add.match(val(m, "yx"))
    assert mul.match(val(m, "mxy")) and mul.match(val(m, "myx"))


def test_no_match_call_non_commutative():
    m = parse("""
    func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
      %yx = relay.subtract %y, %x : tensor<4xf32>
      %dyx = relay.divide %y, %x : tensor<4xf32>
      func.return %yx, %dyx : tensor<4xf32>, tensor<4xf32>
    }""")
    assert is_op("subtract")(is_var("y"), is_var("x")).match(val(m, "yx"))
    assert not is_op("subtract")(is_var("x"), is_var("y")).match(val(m, "yx"))
    assert not is_op("divide")(is_var("x"), is_var("y")).match(val(m, "dyx"))


def test_commutative_binding_backtracks(binary):
    # The constant is the second operand; the pattern names it first.
    m = is_op("add")(is_constant(), wildcard()).try_match(val(binary, "addc"))
    assert m is not None
    assert m.constants == (val(binary, "c").op,)


def test_shared_pattern_binds_one_value(binary):
    x = wildcard()
    twice = is_op("add")(x, x)
    assert twice.match(val(binary, "xx"))
    assert not twice.match(val(binary, "add"))


def test_shared_callee_is_a_predicate():
    m = parse("""
    func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
      %a = relay.add %x, %y : tensor<4xf32>
      %b = relay.add %a, %y : tensor<4xf32>
      func.return %b : tensor<4xf32>
    }""")
    add = is_op("add")
    assert add(add(wildcard(), wildcard()), wildcard()).match(val(m, "b"))


def test_match_diamond():
    m = parse(DIAMOND)
    is_mm = is_op("matmul")(wildcard(), wildcard())
    path1 = is_op("relu")(is_op("relu")(is_mm))
    path2 = is_op("relu")(is_mm)
    assert is_op("add")(path1, path2).match(val(m, "out"))
    assert not is_op("add")(path1, path2).match(val(m, "r2"))


def test_no_match_fake_diamond():
    m = parse("""
    func.func @main(%x: tensor<2x4xf32>, %w: tensor<4x4xf32>, %w2: tensor<4x4xf32>) -> tensor<2x4xf32> {
      %mm1 = relay.matmul %x, %w : (tensor<2x4xf32>, tensor<4x4xf32>)
      %mm2 = relay.matmul %x, %w2 : (tensor<2x4xf32>, tensor<4x4xf32>)
      %r = relay.relu %mm1 : tensor<2x4xf32>
      %l = relay.relu %mm2 : tensor<2x4xf32>
      %out = relay.add %r, %l : tensor<2x4xf32>
      func.return %out : tensor<2x4xf32>
    }""")
    is_mm = is_op("matmul")(wildcard(), wildcard())
    diamond = is_op("add")(is_op("relu")(is_mm), is_op("relu")(is_mm))
    assert not diamond.match(val(m, "out"))
    assert not diamond_pattern().match(val(m, "out"))


# ---------------------------------------------------------------- attributes
def test_match_op_registry_attr(binary):
    assert is_op("add").has_attr({"TOpPattern": K_BROADCAST})(wildcard(), wildcard()).match(
        val(binary, "add")
    )
    assert is_op("relu").has_attr({"PATTERN": K_ELEMWISE}).match(val(binary, "r"))
    assert wildcard().has_attr({"PATTERN": 0}).match(val(binary, "r"))
    assert wildcard().has_attr({"COMMUTATIVE": True}).match(val(binary, "mul"))


def test_no_match_op_registry_attr(binary):
    assert not is_op("add").has_attr({"PATTERN": K_ELEMWISE}).match(val(binary, "add"))
    broadcast_add = is_op("add").has_attr({"TOpPattern": K_BROADCAST})
    assert not broadcast_add(wildcard(), wildcard()).match(val(binary, "sub"))
    assert not wildcard().has_attr({"COMMUTATIVE": True}).match(val(binary, "sub"))
    assert not wildcard().has_attr({"PATTERN": K_ELEMWISE}).match(val(binary, "x"))


def test_match_property_attrs():
    m = parse("""
    func.func @main(%x: tensor<2x3xf32>, %w: tensor<4x3xf32>) -> (tensor<2x3xf32>, tensor<3x2xf32>, tensor<6xf32>, tensor<2x4xf32>) {
      %s = relay.softmax %x {axis = 1 : i64} : tensor<2x3xf32>
      %t = relay.transpose %x {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
      %r = relay.reshape %x {shape = array<i64: 6>} : (tensor<2x3xf32>) -> tensor<6xf32>
      %d = relay.dense %x, %w {transpose_b} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
      func.return %s, %t, %r, %d : tensor<2x3xf32>, tensor<3x2xf32>, tensor<6xf32>, tensor<2x4xf32>
    }""")
    assert is_op("softmax")(wildcard()).has_attr({"axis": 1}).match(val(m, "s"))
    assert is_op("transpose").has_attr({"perm": [1, 0]}).match(val(m, "t"))
    assert is_op("reshape").has_attr({"shape": (6,)}).match(val(m, "r"))
    assert is_op("dense").has_attr({"transpose_b": True}).match(val(m, "d"))
    assert is_op("dense").has_attr({"transpose_a": False}).match(val(m, "d"))
    assert is_op("softmax").has_attr({"axis": IntegerAttr(1, i64)}).match(val(m, "s"))
    # negatives: wrong value, wrong list, unknown key, flag absent
    assert not is_op("softmax").has_attr({"axis": 0}).match(val(m, "s"))
    assert not is_op("transpose").has_attr({"perm": [0, 1]}).match(val(m, "t"))
    assert not is_op("softmax").has_attr({"RandomAttr": 1}).match(val(m, "s"))
    assert not is_op("dense").has_attr({"transpose_a": True}).match(val(m, "d"))


def test_match_discardable_and_fused_attrs():
    m = parse("""
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %r = relay.relu %x {lamina.note = "hot"} : tensor<4xf32>
      %f = relay.fused(%r) ({
      ^bb0(%a: tensor<4xf32>):
        %s = relay.add %a, %a : tensor<4xf32>
        relay.yield %s : tensor<4xf32>
      }) {lamina.composite = "double"} : (tensor<4xf32>) -> tensor<4xf32>
      func.return %f : tensor<4xf32>
    }""")
    assert wildcard().has_attr({"lamina.note": "hot"}).match(val(m, "r"))
    assert not wildcard().has_attr({"lamina.note": "cold"}).match(val(m, "r"))
    composite = wildcard().has_attr({"lamina.composite": "double"})
    assert composite(wildcard()).match(val(m, "f"))
    assert not wildcard().has_attr({"lamina.composite": "add"}).match(val(m, "f"))
    assert is_op("fused").has_attr({"lamina.composite": StringAttr("double")}).match(
        val(m, "f")
    )


def test_empty_attrs_match_anything(binary):
    assert wildcard()(wildcard()).has_attr({}).match(val(binary, "r"))
    assert wildcard().has_attr({}).match(val(binary, "x"))


CONV_DEFAULTS = {"strides": (1, 1), "padding": (0, 0, 0, 0), "dilation": (1, 1)}

CONVS = """
func.func @main(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>, %wg: tensor<6x2x3x3xf32>) -> (tensor<1x6x6x6xf32>, tensor<1x6x6x6xf32>, tensor<1x6x3x3xf32>) {
  %plain = relay.conv2d %x, %w : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>)
  %grouped = relay.conv2d %x, %wg {groups = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>)
  %strided = relay.conv2d %x, %w {strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>)
  func.return %plain, %grouped, %strided : tensor<1x6x6x6xf32>, tensor<1x6x6x6xf32>, tensor<1x6x3x3xf32>
}
"""


@pytest.fixture
def conv_defaults() -> None:
    """relay.conv2d states its property defaults (`DEFAULTS`): `groups` on the
    family base, the spatial ones per class."""
    assert relay.ConvOp.DEFAULTS == {"groups": 1}
    assert relay.Conv2DOp.DEFAULTS == CONV_DEFAULTS


def test_has_attr_sees_property_defaults(conv_defaults):
    # TVM: test_match_call_attr - `has_attr({"data_layout": "NCHW"})` matches a
    # conv2d that never set data_layout, as TVM's attributes carry their defaults.
    m = parse(CONVS)
    conv = is_op("conv2d")(wildcard(), wildcard())
    plain = val(m, "plain")
    assert "groups" not in plain.op.properties  # type: ignore[union-attr]
    assert conv.has_attr({"groups": 1}).match(plain)
    assert conv.has_attr({"groups": IntegerAttr(1, i64)}).match(plain)
    assert conv.has_attr({"strides": [1, 1], "padding": (0, 0, 0, 0)}).match(plain)
    assert wildcard().has_attr({"dilation": (1, 1), "groups": 1}).match(plain)
    # written values win over the defaults
    assert conv.has_attr({"groups": 2}).match(val(m, "grouped"))
    assert conv.has_attr({"strides": (2, 2), "groups": 1}).match(val(m, "strided"))


def test_has_attr_defaults_do_not_match_other_values(conv_defaults):
    # TVM: test_no_match_call_attr - `has_attr({"data_layout": "NHWC"})` does not
    # match the default NCHW; an attribute the op does not have never matches.
    m = parse(CONVS)
    conv = is_op("conv2d")(wildcard(), wildcard())
    assert not conv.has_attr({"groups": 2}).match(val(m, "plain"))
    assert not conv.has_attr({"groups": IntegerAttr(2, i64)}).match(val(m, "plain"))
    assert not conv.has_attr({"groups": 1}).match(val(m, "grouped"))
    assert not conv.has_attr({"strides": (1, 1)}).match(val(m, "strided"))
    assert not conv.has_attr({"strides": (1,)}).match(val(m, "plain"))
    assert not conv.has_attr({"data_layout": "NCHW"}).match(val(m, "plain"))


def test_has_attr_without_defaults_needs_the_property(monkeypatch):
    # An op class that states no DEFAULTS: an unwritten property is absent.
    monkeypatch.setattr(relay.ConvOp, "DEFAULTS", {}, raising=False)
    monkeypatch.setattr(relay.Conv2DOp, "DEFAULTS", {}, raising=False)
    m = parse(CONVS)
    assert not is_op("conv2d").has_attr({"groups": 1}).match(val(m, "plain"))
    assert is_op("conv2d").has_attr({"groups": 2}).match(val(m, "grouped"))


# ----------------------------------------------------------- types and shapes
def test_match_type(binary):
    assert has_type(TensorType(f32, [4])).match(val(binary, "x"))
    assert not has_type(TensorType(i32, [4])).match(val(binary, "x"))
    assert not has_type(TensorType(f32, [4, 1])).match(val(binary, "x"))
    assert wildcard().has_type(TensorType).match(val(binary, "add"))


def test_match_dtype(binary):
    assert has_dtype("float32").match(val(binary, "x"))
    assert has_dtype(f32).match(val(binary, "x"))
    assert has_dtype("f32").match(val(binary, "x"))
    assert not has_dtype("float16").match(val(binary, "x"))
    assert not has_dtype("int32").match(val(binary, "x"))
    with pytest.raises(LaminaError, match="unknown dtype 'floaty'"):
        has_dtype("floaty")


def test_match_shape(binary):
    assert has_shape((4,)).match(val(binary, "x"))
    assert has_shape([4]).match(val(binary, "add"))
    assert not has_shape((4, 1)).match(val(binary, "x"))
    assert is_op("relu")(wildcard()).has_shape((4,)).has_dtype("float32").match(
        val(binary, "r")
    )


# --------------------------------------------------------------------- optional
def test_match_optional():
    m = parse("""
    func.func @main(%x: tensor<2x4xf32>, %w: tensor<4x4xf32>, %b: tensor<4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
      %mm = relay.matmul %x, %w : (tensor<2x4xf32>, tensor<4x4xf32>)
      %r = relay.relu %mm : tensor<2x4xf32>
      %mm2 = relay.matmul %x, %w : (tensor<2x4xf32>, tensor<4x4xf32>)
      %biased = relay.add %mm2, %b : (tensor<2x4xf32>, tensor<4xf32>)
      %rb = relay.relu %biased : tensor<2x4xf32>
      func.return %r, %rb : tensor<2x4xf32>, tensor<2x4xf32>
    }""")
    pattern = is_op("relu")(
        is_op("matmul")(wildcard(), wildcard()).optional(
            lambda x: is_op("add")(x, wildcard())
        )
    )
    assert pattern.match(val(m, "r"))
    assert pattern.match(val(m, "rb"))


def test_optional_chain_with_op_patterns():
    m = parse("""
    func.func @main(%x: tensor<2x4xf32>, %w: tensor<4x4xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>, tensor<2x4xf32>) {
      %mm = relay.matmul %x, %w : (tensor<2x4xf32>, tensor<4x4xf32>)
      %r = relay.relu %mm : tensor<2x4xf32>
      %t = relay.transpose %mm {perm = array<i64: 1, 0>} : (tensor<2x4xf32>) -> tensor<4x2xf32>
      %tr = relay.transpose %r {perm = array<i64: 1, 0>} : (tensor<2x4xf32>) -> tensor<4x2xf32>
      %rt = relay.relu %t : tensor<4x2xf32>
      func.return %tr, %rt, %mm : tensor<4x2xf32>, tensor<4x2xf32>, tensor<2x4xf32>
    }""")
    pattern = is_op("matmul")(wildcard(), wildcard())
    pattern = pattern.optional(is_op("relu")).optional(is_op("transpose"))
    assert pattern.match(val(m, "mm"))
    assert pattern.match(val(m, "r"))
    assert pattern.match(val(m, "t"))
    assert pattern.match(val(m, "tr"))
    assert not pattern.match(val(m, "rt"))  # relu after transpose: wrong order


def test_no_match_optional():
    m = parse("""
    func.func @main(%x: tensor<2x4xf32>, %w: tensor<4x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
      %mm = relay.matmul %x, %w : (tensor<2x4xf32>, tensor<4x4xf32>)
      %s = relay.softmax %mm {axis = 1 : i64} : tensor<2x4xf32>
      %d = relay.dense %x, %w : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
      %m2 = relay.multiply %d, %x : tensor<2x4xf32>
      %r = relay.relu %m2 : tensor<2x4xf32>
      func.return %s, %r : tensor<2x4xf32>, tensor<2x4xf32>
    }""")
    pattern = is_op("relu")(
        is_op("matmul")(wildcard(), wildcard()).optional(
            lambda x: is_op("add")(x, wildcard())
        )
    )
    assert not pattern.match(val(m, "s"))
    assert not pattern.match(val(m, "r"))


# ---------------------------------------------------------------------- tuples
TUPLES = """
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<2xf32>, tensor<4xf32>, tensor<8xf32>, tensor<12xf32>) {
  %lo, %hi = "test.split2"(%x) : (tensor<4xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  %sum = relay.add %lo, %hi : tensor<2xf32>
  %one = "test.concat"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %two = "test.concat"(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32>
  %three = "test.concat"(%x, %y, %x) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<12xf32>
  func.return %sum, %one, %two, %three : tensor<2xf32>, tensor<4xf32>, tensor<8xf32>, tensor<12xf32>
}
"""


def test_match_tuple_and_get_item():
    m = parse(TUPLES)
    split = is_op(Split2Op)(is_var("x"))
    assert is_tuple_get_item(split, 0).match(val(m, "lo"))
    assert is_tuple_get_item(split, 1).match(val(m, "hi"))
    assert not is_tuple_get_item(split, 1).match(val(m, "lo"))
    assert is_tuple_get_item(split).match(val(m, "lo"))  # any index
    fields = is_tuple([wildcard().has_shape((2,)), wildcard()])
    assert is_tuple_get_item(fields, 1).match(val(m, "hi"))
    assert not is_tuple_get_item(is_tuple([wildcard()]), 0).match(val(m, "lo"))
    assert not is_tuple_get_item(is_tuple([has_shape((3,)), wildcard()])).match(
        val(m, "hi")
    )


def test_get_items_share_their_tuple():
    m = parse(TUPLES)
    split = is_op(Split2Op)(wildcard())
    both = is_op("add")(is_tuple_get_item(split, 0), is_tuple_get_item(split, 1))
    match = both.try_match(val(m, "sum"))
    assert match is not None
    assert match.ops == (val(m, "lo").op, val(m, "sum").op)


def test_match_variadic_operands_as_a_tuple():
    m = parse(TUPLES)
    any_concat = is_op(ConcatOp)(is_tuple(None))
    for name in ("one", "two", "three"):
        assert any_concat.match(val(m, name))
    two = is_op(ConcatOp)(is_tuple([is_var("x"), is_var("y")]))
    assert two.match(val(m, "two"))
    assert not two.match(val(m, "three"))
    assert not is_op(ConcatOp)(is_tuple([is_var("y"), is_var("x")])).match(val(m, "two"))
    assert is_op(ConcatOp)(is_var("x")).match(val(m, "one"))


def test_match_fused_results_as_a_tuple():
    m = parse("""
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %a, %b = relay.fused(%x) ({
      ^bb0(%v: tensor<4xf32>):
        %r = relay.relu %v : tensor<4xf32>
        relay.yield %v, %r : tensor<4xf32>, tensor<4xf32>
      }) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
      %s = relay.add %a, %b : tensor<4xf32>
      func.return %s : tensor<4xf32>
    }""")
    fused = is_tuple([wildcard(), wildcard()])
    assert is_op("add")(is_tuple_get_item(fused, 0), is_tuple_get_item(fused, 1)).match(
        val(m, "s")
    )
    assert is_tuple_get_item(is_op("fused")(is_var("x")), 1).match(val(m, "b"))


# ------------------------------------------------------------------- dominator
def test_match_dominator_classic_diamond():
    m = parse(DIAMOND)
    match = diamond_pattern().try_match(val(m, "out"))
    assert match is not None
    assert [op.name for op in match.ops] == [
        "relay.matmul",
        "relay.relu",
        "relay.relu",
        "relay.relu",
        "relay.add",
    ]
    assert match.inputs == (val(m, "x"), val(m, "w"))


def test_match_dominator_deeper_branch_and_single_branch():
    deeper = parse("""
    func.func @main(%x: tensor<2x4xf32>, %w: tensor<4x4xf32>) -> tensor<2x4xf32> {
      %mm = relay.matmul %x, %w : (tensor<2x4xf32>, tensor<4x4xf32>)
      %r1 = relay.relu %mm : tensor<2x4xf32>
      %r2 = relay.relu %r1 : tensor<2x4xf32>
      %r3 = relay.relu %r2 : tensor<2x4xf32>
      %l = relay.relu %mm : tensor<2x4xf32>
      %out = relay.add %r3, %l : tensor<2x4xf32>
      func.return %out : tensor<2x4xf32>
    }""")
    assert diamond_pattern().match(val(deeper, "out"))
    single = parse("""
    func.func @main(%x: tensor<2x4xf32>, %w: tensor<4x4xf32>) -> tensor<2x4xf32> {
      %mm = relay.matmul %x, %w : (tensor<2x4xf32>, tensor<4x4xf32>)
      %r1 = relay.relu %mm : tensor<2x4xf32>
      %r2 = relay.relu %r1 : tensor<2x4xf32>
      %t = relay.relu %r2 : tensor<2x4xf32>
      %out = relay.add %r2, %t : tensor<2x4xf32>
      func.return %out : tensor<2x4xf32>
    }""")
    assert diamond_pattern().match(val(single, "out"))


NESTED_DIAMOND = """
func.func @main(%x: tensor<2x4xf32>, %w: tensor<4x4xf32>) -> tensor<2x4xf32> {
  %mm = relay.matmul %x, %w : (tensor<2x4xf32>, tensor<4x4xf32>)
  %r = relay.relu %mm : tensor<2x4xf32>
  %rr = relay.add %r, %r : tensor<2x4xf32>
  %t = relay.relu %rr : tensor<2x4xf32>
  %l = relay.relu %mm : tensor<2x4xf32>
  %out = relay.add %t, %l : tensor<2x4xf32>
  func.return %out : tensor<2x4xf32>
}
"""


def test_match_dominator_fuzzy_nested_path():
    m = parse(NESTED_DIAMOND)
    unary = wildcard().has_attr({"PATTERN": K_ELEMWISE})(wildcard())
    path = unary | is_op("add")(wildcard(), wildcard())
    assert diamond_pattern(path).match(val(m, "out"))
    # an add on the path is not elementwise-unary
    assert not diamond_pattern().match(val(m, "out"))


def test_no_match_dominator():
    relu_on_input = parse("""
    func.func @main(%x: tensor<2x4xf32>, %w: tensor<4x4xf32>) -> tensor<2x4xf32> {
      %mm = relay.matmul %x, %w : (tensor<2x4xf32>, tensor<4x4xf32>)
      %r = relay.relu %x : tensor<2x4xf32>
      %out = relay.add %r, %mm : tensor<2x4xf32>
      func.return %out : tensor<2x4xf32>
    }""")
    assert not diamond_pattern().match(val(relu_on_input, "out"))
    no_matmul = parse("""
    func.func @main(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
      %r1 = relay.relu %x : tensor<2x4xf32>
      %r2 = relay.relu %r1 : tensor<2x4xf32>
      %out = relay.add %r1, %r2 : tensor<2x4xf32>
      func.return %out : tensor<2x4xf32>
    }""")
    assert not diamond_pattern().match(val(no_matmul, "out"))


def test_dominator_parent_matches_at_most_once():
    # n6(P) -> n7 (not I) -> n8(P) -> n9(I) -> n11(C); n6 -> n10(I) -> n11
    m = parse("""
    func.func @main(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
      %n6 = relay.matmul %x, %w : tensor<4x4xf32>
      %n7 = relay.transpose %n6 {perm = array<i64: 1, 0>} : (tensor<4x4xf32>)
      %n8 = relay.matmul %n7, %w : tensor<4x4xf32>
      %n9 = relay.relu %n8 : tensor<4x4xf32>
      %n10 = relay.relu %n6 : tensor<4x4xf32>
      %n11 = relay.add %n9, %n10 : tensor<4x4xf32>
      func.return %n11 : tensor<4x4xf32>
    }""")
    pattern = dominates(
        is_op("matmul")(wildcard(), wildcard()),
        is_op("relu")(wildcard()),
        is_op("add")(wildcard(), wildcard()),
    )
    assert not pattern.match(val(m, "n11"))


def test_dominator_needs_post_dominance():
    # The matmul is also returned: the add does not post-dominate it.
    m = parse("""
    func.func @main(%x: tensor<2x4xf32>, %w: tensor<4x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
      %mm = relay.matmul %x, %w : (tensor<2x4xf32>, tensor<4x4xf32>)
      %r = relay.relu %mm : tensor<2x4xf32>
      %l = relay.relu %mm : tensor<2x4xf32>
      %out = relay.add %r, %l : tensor<2x4xf32>
      func.return %out, %mm : tensor<2x4xf32>, tensor<2x4xf32>
    }""")
    assert not diamond_pattern().match(val(m, "out"))


def test_match_typed_dominator():
    m = parse(DIAMOND)
    unary = wildcard().has_attr({"PATTERN": K_ELEMWISE})(wildcard()).has_dtype("float32")
    child = is_op("add")(wildcard(), wildcard())
    mm = is_op("matmul")(wildcard(), wildcard())
    assert dominates(mm, unary, child.has_shape((2, 4))).match(val(m, "out"))
    assert not dominates(mm, unary, child.has_shape((1, 4))).match(val(m, "out"))
    f16_unary = wildcard().has_attr({"PATTERN": K_ELEMWISE})(wildcard()).has_dtype("f16")
    assert not dominates(mm, f16_unary, child).match(val(m, "out"))


def test_dominates_method_form():
    m = parse(DIAMOND)
    child = is_op("add")(wildcard(), wildcard())
    assert child.dominates(is_op("matmul")(wildcard(), wildcard()), is_op("relu")(
        wildcard()
    )).match(val(m, "out"))


CONV_BIAS_RELU_RESHAPE = """
func.func @main(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>, %b: tensor<6xf32>) -> tensor<6x36xf32> {
  %conv = relay.conv2d %x, %w : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>)
  %biased = relay.bias_add %conv, %b : (tensor<1x6x6x6xf32>, tensor<6xf32>)
  %r = relay.relu %biased : tensor<1x6x6x6xf32>
  %out = relay.reshape %r {shape = array<i64: 6, 36>} : (tensor<1x6x6x6xf32>) -> tensor<6x36xf32>
  func.return %out : tensor<6x36xf32>
}
"""


def conv_path_injective():
    conv = is_op("conv2d")(wildcard(), wildcard())
    eltwise = wildcard().has_attr({"TOpPattern": K_ELEMWISE})(None)
    broadcast = wildcard().has_attr({"TOpPattern": K_BROADCAST})(None)
    injective = wildcard().has_attr({"TOpPattern": K_INJECTIVE})(wildcard())
    return injective.dominates(conv, eltwise | broadcast)


def test_match_dominator_skips_leaf_inputs():
    # TVM: test_match_dominator2 (apache/tvm#16983): the path's bias_add also
    # reads the argument %b; leaf inputs (arguments, constants) are skipped.
    m = parse(CONV_BIAS_RELU_RESHAPE)
    match = conv_path_injective().try_match(val(m, "out"))
    assert match is not None
    assert [op.name for op in match.ops] == [
        "relay.conv2d",
        "relay.bias_add",
        "relay.relu",
        "relay.reshape",
    ]
    assert match.inputs == (val(m, "x"), val(m, "w"), val(m, "b"))


def test_match_dominator_skips_constant_and_argument_operands():
    m = parse("""
    func.func @main(%x: tensor<2x4xf32>, %w: tensor<4x4xf32>, %b: tensor<4xf32>) -> tensor<2x4xf32> {
      %c = relay.constant dense<2.0> : tensor<2x4xf32>
      %mm = relay.matmul %x, %w : (tensor<2x4xf32>, tensor<4x4xf32>)
      %biased = relay.bias_add %mm, %b : (tensor<2x4xf32>, tensor<4xf32>)
      %r = relay.relu %biased : tensor<2x4xf32>
      %scaled = relay.multiply %c, %mm : tensor<2x4xf32>
      %out = relay.add %r, %scaled : tensor<2x4xf32>
      func.return %out : tensor<2x4xf32>
    }""")
    path = is_op("relu")(wildcard()) | is_op("bias_add", "multiply")(wildcard(), wildcard())
    pattern = dominates(
        is_op("matmul")(wildcard(), wildcard()), path, is_op("add")(wildcard(), wildcard())
    )
    match = pattern.try_match(val(m, "out"))
    assert match is not None and len(match.ops) == 5
    # The leaves are inputs (a constant met by a wildcard too, as in TVM), in the
    # pattern's leaf order: the path's first operand wildcard met %c (multiply's
    # first operand) before its second one met %b (bias_add's second operand).
    assert match.inputs == (val(m, "x"), val(m, "w"), val(m, "c"), val(m, "b"))


def test_no_match_dominator_path_of_leaves_only():
    # TVM: test_not_match_dominator ("Relu on the input instead of the conv"),
    # with the leaf rule: an op on the path whose operands are all leaves does
    # not lead back to the parent, whatever the leaves are.
    m = parse("""
    func.func @main(%x: tensor<2x4xf32>, %w: tensor<4x4xf32>, %b: tensor<2x4xf32>) -> tensor<2x4xf32> {
      %c = relay.constant dense<2.0> : tensor<2x4xf32>
      %mm = relay.matmul %x, %w : (tensor<2x4xf32>, tensor<4x4xf32>)
      %r = relay.relu %mm : tensor<2x4xf32>
      %s = relay.add %b, %c : tensor<2x4xf32>
      %out = relay.add %r, %s : tensor<2x4xf32>
      func.return %out : tensor<2x4xf32>
    }""")
    path = is_op("relu")(wildcard()) | is_op("add")(wildcard(), wildcard())
    mm = is_op("matmul")(wildcard(), wildcard())
    assert not dominates(mm, path, is_op("add")(wildcard(), wildcard())).match(val(m, "out"))
    # a child reading only leaves has no path to a parent either
    assert not dominates(mm, path, is_op("add")(wildcard(), wildcard())).match(val(m, "s"))


# ----------------------------------------------------------------- Match object
def test_match_object_bindings():
    m = parse(DIAMOND)
    x, w = wildcard(), wildcard()
    mm = is_op("matmul")(x, w)
    left = is_op("relu")(is_op("relu")(mm))
    pattern = is_op("add")(left, is_op("relu")(mm) | is_constant())
    match = pattern.try_match(val(m, "out"))
    assert isinstance(match, Match)
    assert match[x] is val(m, "x") and match[w] is val(m, "w")
    assert match[mm] is val(m, "mm") and match[left] is val(m, "r2")
    assert match.root is val(m, "out") and match.op is val(m, "out").op
    assert match.outputs == (val(m, "out"),)
    assert len(match.ops) == 5 and mm in match
    assert match.get(is_constant()) is None
    with pytest.raises(KeyError, match="not bound"):
        match[wildcard()]
    assert "relay.matmul" in repr(match)


def test_try_match_none(binary):
    assert is_op("relu")(is_constant()).try_match(val(binary, "r")) is None


def test_pattern_arithmetic_sugar():
    m = parse("""
    func.func @main(%x: tensor<4xf32>, %g: tensor<4xf32>, %mean: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
      %c = relay.subtract %x, %mean : tensor<4xf32>
      %s = relay.multiply %g, %c : tensor<4xf32>
      %d = relay.divide %s, %g : tensor<4xf32>
      %out = relay.add %b, %d : tensor<4xf32>
      func.return %out : tensor<4xf32>
    }""")
    x, g, mean, b = wildcard(), wildcard(), wildcard(), wildcard()
    pattern = (g * (x - mean)) / g + b  # add matches commuted
    match = pattern.try_match(val(m, "out"))
    assert match is not None and match[mean] is val(m, "mean") and match[b] is val(m, "b")


# ----------------------------------------------------- batch norm, re-associated
def bn_module(body: str) -> ModuleOp:
    """`body` over x (2x4) and per-column gamma, beta, mean, var and eps (4)."""
    return parse(f"""
    func.func @main(%x: tensor<2x4xf32>, %var: tensor<4xf32>, %mean: tensor<4xf32>, %beta: tensor<4xf32>, %gamma: tensor<4xf32>) -> tensor<2x4xf32> {{
      %eps = relay.constant dense<1.0e-05> : tensor<4xf32>
      %ve = relay.add %var, %eps : tensor<4xf32>
      %s = relay.sqrt %ve : tensor<4xf32>
      %d = relay.subtract %x, %mean : (tensor<2x4xf32>, tensor<4xf32>)
      {body}
      func.return %out : tensor<2x4xf32>
    }}""")


# The graph gamma * (x - mean) / sqrt(var + eps) + beta, written as TVM's tests do.
BN = """%n = relay.multiply %gamma, %d : (tensor<4xf32>, tensor<2x4xf32>)
      %q = relay.divide %n, %s : (tensor<2x4xf32>, tensor<4xf32>)
      %out = relay.add %q, %beta : (tensor<2x4xf32>, tensor<4xf32>)"""


class BatchnormCallback(PatternCallback):
    """TVM's BatchnormCallback: the decomposed batch norm back to relay.batch_norm."""

    def __init__(self, associate_right: bool = False) -> None:
        self.x, self.var, self.mean = wildcard(), wildcard(), wildcard()
        self.beta, self.gamma, self.eps = wildcard(), wildcard(), is_constant()
        sqrt = is_op("sqrt")(self.var + self.eps)
        if associate_right:
            scaled = self.gamma * ((self.x - self.mean) / sqrt)
        else:
            scaled = self.gamma * (self.x - self.mean) / sqrt
        super().__init__(scaled + self.beta)

    def callback(self, match: Match) -> Operation:
        eps = constant_data(match[self.eps].op)  # type: ignore[union-attr]
        assert eps is not None
        return relay.BatchNormOp(
            match[self.x],
            match[self.gamma],
            match[self.beta],
            match[self.mean],
            match[self.var],
            epsilon=relay.f64_attr(float(eps.flat[0])),
        )


def bn_inputs() -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 4)).astype(np.float32)
    var = rng.uniform(0.5, 2.0, 4).astype(np.float32)
    return [x, var, *(rng.standard_normal(4).astype(np.float32) for _ in range(3))]


@pytest.fixture
def sqrt_evaluator():
    with EVALUATORS.scoped("relay.sqrt", lambda op, args: np.sqrt(args[0])):
        yield


def fuses_to_batch_norm(body: str, callback: BatchnormCallback) -> bool:
    """Whether `callback` turns the graph into one relay.batch_norm; if it does,
    the result must compute what the graph did."""
    m = bn_module(body)
    fn = next(op for op in m.ops if isinstance(op, func.FuncOp))
    args = bn_inputs()
    (before,) = evaluate(fn.body.block, args)
    if rewrite(callback, m) == 0:
        return False
    m.verify()
    assert names(m) == ["relay.batch_norm"]
    (after,) = evaluate(fn.body.block, args)
    np.testing.assert_allclose(after, before, rtol=1e-5, atol=1e-6)
    return True


@pytest.mark.usefixtures("sqrt_evaluator")
def test_fuse_batchnorm():
    # TVM: test_fuse_batchnorm
    assert fuses_to_batch_norm(BN, BatchnormCallback())


@pytest.mark.usefixtures("sqrt_evaluator")
def test_no_fuse_batchnorm():
    # TVM: test_no_fuse_batchnorm (- beta instead of + beta)
    fake = BN.replace("relay.add %q", "relay.subtract %q")
    assert not fuses_to_batch_norm(fake, BatchnormCallback())


@pytest.mark.usefixtures("sqrt_evaluator")
def test_fuse_batchnorm_commutation():
    # TVM: test_fuse_batchnorm_commutation
    callback = BatchnormCallback()
    # commute add: beta + gamma * (x - mean) / sqrt(var + eps)
    commuted = BN.replace(
        "%q, %beta : (tensor<2x4xf32>, tensor<4xf32>)",
        "%beta, %q : (tensor<4xf32>, tensor<2x4xf32>)",
    )
    assert fuses_to_batch_norm(commuted, callback)
    # associate divide/multiply: gamma * ((x - mean) / sqrt(var + eps)) + beta
    # (the pattern's divide of a multiply matches a multiply of a divide)
    right = """%q = relay.divide %d, %s : (tensor<2x4xf32>, tensor<4xf32>)
      %n = relay.multiply %gamma, %q : (tensor<4xf32>, tensor<2x4xf32>)
      %out = relay.add %n, %beta : (tensor<2x4xf32>, tensor<4xf32>)"""
    assert fuses_to_batch_norm(right, callback)
    # ... with the multiply's operands the other way round too
    swapped = right.replace("%gamma, %q : (tensor<4xf32>, tensor<2x4xf32>)",
                            "%q, %gamma : (tensor<2x4xf32>, tensor<4xf32>)")
    assert fuses_to_batch_norm(swapped, callback)


@pytest.mark.usefixtures("sqrt_evaluator")
def test_fuse_batchnorm_associate_multiply_divide():
    # The other rule of TVM's matcher (its CallPattern visitor): a multiply of a
    # divide, gamma * ((x - mean) / sqrt(...)), matches (gamma * (x - mean)) / sqrt(...).
    assert fuses_to_batch_norm(BN, BatchnormCallback(associate_right=True))
    # the divide may be either operand of the pattern's multiply
    g, x, mean, c = wildcard(), wildcard(), wildcard(), wildcard()
    m = bn_module(BN)
    assert (((x - mean) / c) * g).match(val(m, "q"))
    match = (g * ((x - mean) / c)).try_match(val(m, "q"))
    assert match is not None
    assert (match[g], match[x], match[c]) == (val(m, "gamma"), val(m, "x"), val(m, "s"))


def test_reassociation_is_for_multiply_and_divide_only():
    m = parse("""
    func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
      %bc = relay.subtract %b, %c : tensor<4xf32>
      %sum = relay.add %a, %bc : tensor<4xf32>
      %qa = relay.divide %b, %a : tensor<4xf32>
      %q = relay.divide %qa, %c : tensor<4xf32>
      func.return %sum, %q : tensor<4xf32>, tensor<4xf32>
    }""")
    a, b, c = is_var("a"), is_var("b"), is_var("c")
    # TVM re-associates multiply/divide only: (a + b) - c is not a + (b - c)
    assert (a + (b - c)).match(val(m, "sum"))
    assert not ((a + b) - c).match(val(m, "sum"))
    # and a divide of a divide is not re-associated: (b / a) / c is not b / (a * c)
    assert not (b / (a * c)).match(val(m, "q"))
    # a pattern of other ops is not re-associated either
    assert not is_op("divide")(is_op("add")(a, b), c).match(val(m, "sum"))


# ==================================================================== rewrite
def test_rewrite_add_to_subtract(binary):
    add_pattern = is_op("add")(wildcard(), wildcard())

    def to_sub(match: Match) -> Operation:
        a, b = match.op.operands  # type: ignore[union-attr]
        return relay.SubtractOp(a, b)

    assert rewrite((add_pattern, to_sub), binary) == 3
    assert "relay.add" not in names(binary)
    assert is_op("relu")(is_op("subtract")(is_var("x"), is_var("y"))).match(
        main_ops(binary)[-2]
    )
    binary.verify()


def test_rewrite_callback_returning_none_changes_nothing(binary):
    before = lamina.print_ir(binary)
    assert rewrite((is_op("add")(wildcard(), wildcard()), lambda m: None), binary) == 0
    assert lamina.print_ir(binary) == before


def test_rewrite_returning_the_root_is_no_change():
    m = parse("""
    func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
      %ya = relay.add %y, %y : tensor<4xf32>
      %n0 = relay.add %x, %ya : tensor<4xf32>
      %n1 = relay.add %x, %n0 : tensor<4xf32>
      %out = relay.add %n1, %n0 : tensor<4xf32>
      func.return %out : tensor<4xf32>
    }""")
    a, b = wildcard(), wildcard()
    n0 = is_op("add")(a, b)
    pattern = is_op("add")(n0, is_op("add")(n0, a))
    before = lamina.print_ir(m)
    assert rewrite((pattern, lambda match: match.root), m) == 0
    assert lamina.print_ir(m) == before


class Simplify(PatternCallback):
    """Returns the value bound to `self.x`."""

    def __init__(self, pattern_of_x):
        self.x = wildcard()
        super().__init__(pattern_of_x(self.x))

    def callback(self, match: Match) -> SSAValue:
        return match[self.x]


def algebraic_simplify(module: ModuleOp) -> int:
    zero = is_expr(0.0) | is_expr(0)
    one = is_expr(1.0) | is_expr(1)
    return rewrite(
        [
            Simplify(lambda x: x + zero),
            Simplify(lambda x: x - zero),
            Simplify(lambda x: x * one),
            Simplify(lambda x: x / one),
        ],
        module,
    )


def test_algebraic_simplify():
    m = parse("""
    func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
      %zero = relay.constant dense<0.0> : tensor<4xf32>
      %one = relay.constant dense<1.0> : tensor<4xf32>
      %a = relay.add %zero, %x : tensor<4xf32>
      %b = relay.multiply %a, %one : tensor<4xf32>
      %c = relay.divide %b, %one : tensor<4xf32>
      %d = relay.subtract %c, %zero : tensor<4xf32>
      %e = relay.multiply %one, %y : tensor<4xf32>
      %f = relay.add %d, %e : tensor<4xf32>
      func.return %f : tensor<4xf32>
    }""")
    assert algebraic_simplify(m) == 5
    assert names(m) == ["relay.add"]
    assert is_op("add")(is_var("x"), is_var("y")).match(main_ops(m)[0])


def test_rewrite_reaches_a_fixpoint_over_rounds():
    m = parse("""
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %a = relay.relu %x : tensor<4xf32>
      %b = relay.relu %a : tensor<4xf32>
      %c = relay.relu %b : tensor<4xf32>
      %d = relay.relu %c : tensor<4xf32>
      func.return %d : tensor<4xf32>
    }""")
    inner = is_op("relu")(wildcard())
    count = rewrite((is_op("relu")(inner), lambda match: match[inner]), m)
    assert count >= 2
    assert names(m) == ["relay.relu"]
    m.verify()


def test_rewrite_non_convergence_names_the_callbacks(binary):
    def swap(match: Match) -> Operation:
        a, b = match.op.operands  # type: ignore[union-attr]
        return relay.AddOp(b, a)

    pattern = is_op("add")(is_var(), is_var())
    with pytest.raises(LaminaError, match=r"did not converge after 5 iterations; still "
                       r"firing in the last one: swap \(2 rewrites\)"):
        rewrite((pattern, swap), binary, max_iterations=5)


def test_rewrite_cap_comes_from_the_pass_context(binary):
    def swap(match: Match) -> Operation:
        a, b = match.op.operands  # type: ignore[union-attr]
        return relay.AddOp(b, a)

    with (
        manager.PassContext(config={"pattern.max-iterations": 3}),
        pytest.raises(LaminaError, match="after 3 iterations"),
    ):
        rewrite((is_op("add")(is_var(), is_var()), swap), binary)


def test_rewrite_once():
    src = """
    func.func @main(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
      %s = relay.softmax %x {axis = 1 : i64} : tensor<2x4xf32>
      func.return %s : tensor<2x4xf32>
    }"""

    class OneMoreRelu(PatternCallback):
        def callback(self, match: Match) -> Operation:
            return relay.ReluOp(match.root)

    m = parse(src)
    assert rewrite(OneMoreRelu(is_op("softmax")(wildcard()), rewrite_once=True), m) == 1
    assert names(m) == ["relay.softmax", "relay.relu"]
    with pytest.raises(LaminaError, match="OneMoreRelu"):
        rewrite(OneMoreRelu(is_op("softmax")(wildcard())), parse(src), max_iterations=4)


def test_rewrite_multiple_callbacks_in_order():
    m = parse("""
    func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
      %a = relay.subtract %x, %y : tensor<4xf32>
      %b = relay.relu %a : tensor<4xf32>
      func.return %b : tensor<4xf32>
    }""")
    order: list[str] = []

    def sub_to_add(match: Match) -> Operation:
        order.append("sub")
        return relay.AddOp(*match.op.operands)  # type: ignore[union-attr]

    def relu_add_to_add(match: Match) -> SSAValue:
        order.append("relu")
        return match.root.op.operands[0]  # type: ignore[union-attr]

    rewrite(
        [
            (is_op("subtract")(wildcard(), wildcard()), sub_to_add),
            (is_op("relu")(is_op("add")(wildcard(), wildcard())), relu_add_to_add),
        ],
        m,
    )
    assert order == ["sub", "relu"]
    assert names(m) == ["relay.add"]


def test_rewrite_inserts_new_op_trees_in_order():
    m = parse("""
    func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
      %a = relay.subtract %x, %y : tensor<4xf32>
      func.return %a : tensor<4xf32>
    }""")

    def expand(match: Match) -> Operation:
        a, b = match.op.operands  # type: ignore[union-attr]
        minus_one = relay.ConstantOp(
            relay.DenseIntOrFPElementsAttr.from_list(TensorType(f32, [4]), [-1.0] * 4)
        )
        neg = relay.MultiplyOp(b, minus_one)
        return relay.AddOp(a, neg)

    assert rewrite((is_op("subtract")(wildcard(), wildcard()), expand), m) == 1
    assert names(m) == ["relay.constant", "relay.multiply", "relay.add"]
    m.verify()


def test_rewrite_keeps_matched_ops_still_used_elsewhere():
    m = parse("""
    func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
      %a = relay.relu %x : tensor<4xf32>
      %b = relay.relu %a : tensor<4xf32>
      func.return %b, %a : tensor<4xf32>, tensor<4xf32>
    }""")
    inner = is_op("relu")(wildcard())
    rewrite((is_op("relu")(inner), lambda match: match[inner]), m)
    assert names(m) == ["relay.relu"]
    ret = main_ops(m)[-1]
    assert ret.operands[0] is ret.operands[1]


def test_rewrite_retypes_users_incrementally():
    m = parse("""
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %r = relay.reshape %x {shape = array<i64: 2, 2>} : (tensor<4xf32>) -> tensor<2x2xf32>
      %y = relay.relu %r : tensor<2x2xf32>
      %z = relay.reshape %y {shape = array<i64: 4>} : (tensor<2x2xf32>) -> tensor<4xf32>
      func.return %z : tensor<4xf32>
    }""")
    x = is_var()
    rewrite((is_op("reshape")(x), lambda match: match[x]), m)
    assert names(m) == ["relay.relu", "relay.reshape"]
    assert val(m, "y").type == TensorType(f32, [4])
    m.verify()


def test_rewrite_type_change_reaching_return_is_an_error():
    m = parse("""
    func.func @main(%x: tensor<4xf32>) -> tensor<2x2xf32> {
      %r = relay.reshape %x {shape = array<i64: 2, 2>} : (tensor<4xf32>) -> tensor<2x2xf32>
      %y = relay.relu %r : tensor<2x2xf32>
      func.return %y : tensor<2x2xf32>
    }""")
    x = is_var()

    def unreshape(match: Match) -> SSAValue:
        return match[x]

    with pytest.raises(LaminaError, match=r"'unreshape' replaced a tensor<2x2xf32> by a "
                       r"tensor<4xf32>, but its user func.return cannot be re-typed"):
        rewrite((is_op("reshape")(x), unreshape), m)


def test_rewrite_multi_result_op():
    m = parse(TUPLES)

    def swap_halves(match: Match) -> list[SSAValue]:
        lo, hi = match.op.results  # type: ignore[union-attr]
        return [relay.ReluOp(hi).result, relay.ReluOp(lo).result]

    def wrong(match: Match) -> list[SSAValue]:
        return [match.root, match.root, match.root]

    class SwapHalves(PatternCallback):
        def callback(self, match: Match) -> list[SSAValue]:
            return swap_halves(match)

    split = is_op(Split2Op)(wildcard())
    with pytest.raises(LaminaError, match="returned 3 values for an op with 2 results"):
        rewrite((split, wrong), m)
    assert rewrite(SwapHalves(split, rewrite_once=True), m) == 1
    add = next(op for op in main_ops(m) if isinstance(op, relay.AddOp))
    assert [o.op.name for o in add.operands] == ["relay.relu", "relay.relu"]


def test_rewrite_value_defined_after_the_match_is_an_error(binary):
    def later(match: Match) -> SSAValue:
        return val(binary, "mul")

    with pytest.raises(LaminaError, match="defined after the matched op"):
        rewrite((is_op("add")(is_var("x"), is_var("y")), later), binary)


def test_rewrite_bad_callbacks(binary):
    with pytest.raises(LaminaError, match="PatternCallback or a"):
        rewrite([lambda m: None], binary)  # type: ignore[list-item]
    with pytest.raises(LaminaError, match="must return an SSA value"):
        rewrite((is_op("add")(wildcard(), wildcard()), lambda m: [42]), binary)
    with pytest.raises(LaminaError, match="has no pattern"):
        rewrite(PatternCallback(), binary)


def test_rewrite_on_a_function(binary):
    fn = next(op for op in binary.ops if isinstance(op, func.FuncOp))
    assert rewrite((is_op("relu")(wildcard()), lambda m: m.root.op.operands[0]), fn) == 1


@dataclass(frozen=True)
class SimplifyPass(ModulePass):
    name = "test-simplify"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        algebraic_simplify(op)


def test_rewrite_reports_statistics(monkeypatch: pytest.MonkeyPatch):
    from lamina.passes import registry

    m = parse("""
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %zero = relay.constant dense<0.0> : tensor<4xf32>
      %a = relay.add %x, %zero : tensor<4xf32>
      %b = relay.add %a, %zero : tensor<4xf32>
      func.return %b : tensor<4xf32>
    }""")
    stats = manager.StatisticsInstrument()
    with registry.PASSES.scoped("test-simplify", SimplifyPass):
        manager.run_pipeline(m, "test-simplify", manager.PassContext(instruments=[stats]))
    (record,) = stats.records
    assert record.counters == {"rewrite.Simplify": 2}
    assert (record.ops_before, record.ops_after) == (5, 2)


# ================================================================== partition
CHAIN = """
func.func @main(%x: tensor<2x4xf32>, %w: tensor<4x4xf32>, %b: tensor<4xf32>) -> tensor<2x4xf32> {
  %mm = relay.matmul %x, %w : (tensor<2x4xf32>, tensor<4x4xf32>)
  %add = relay.add %mm, %b : (tensor<2x4xf32>, tensor<4xf32>)
  %r = relay.relu %add : tensor<2x4xf32>
  func.return %r : tensor<2x4xf32>
}
"""

MM_BIAS_RELU = is_op("relu")(is_op("add")(is_op("matmul")(wildcard(), wildcard()), wildcard()))


def test_partition_wraps_the_match():
    m = parse(CHAIN)
    (fused,) = partition(MM_BIAS_RELU, m, {"lamina.composite": "dense_bias_relu"})
    m.verify()
    ops = main_ops(m)
    assert [op.name for op in ops] == ["relay.fused", "func.return"]
    assert [v.name_hint for v in fused.inputs] == ["x", "w", "b"]
    assert [op.name for op in fused.body.block.ops] == [
        "relay.matmul",
        "relay.add",
        "relay.relu",
        "relay.yield",
    ]
    assert fused.attributes["lamina.composite"] == StringAttr("dense_bias_relu")
    assert fused.attributes["lamina.partitioned_from"] == StringAttr("matmul_add_relu_")
    assert ops[-1].operands[0] is fused.results[0]
    # the region reads only its arguments, and the text round-trips
    text = lamina.print_ir(m)
    assert lamina.print_ir(lamina.parse(text)) == text


def test_partition_without_a_match_changes_nothing():
    m = parse(CHAIN)
    before = lamina.print_ir(m)
    assert partition(is_op("softmax")(wildcard()), m) == []
    assert lamina.print_ir(m) == before


def test_partition_check():
    src = """
    func.func @main(%x: tensor<2x4xf32>, %w: tensor<4x4xf32>) -> tensor<2x4xf32> {
      %d = relay.dense %x, %w {transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
      %r = relay.relu %d : tensor<2x4xf32>
      func.return %r : tensor<2x4xf32>
    }"""
    dense = is_op("dense")(is_var("x"), wildcard())
    pattern = is_op("relu")(dense)

    def check(match: Match) -> bool:
        return "transpose_b" in match[dense].op.properties  # type: ignore[union-attr]

    m = parse(src)
    assert len(partition(pattern, m, check=check)) == 1
    m2 = parse(src.replace(" {transpose_b}", ""))
    assert partition(pattern, m2, check=check) == []
    assert "relay.fused" not in names(m2)


def test_partition_check_types():
    pattern = is_op("relu")(is_op("matmul")(wildcard(), wildcard()))

    def batch_one(match: Match) -> bool:
        return match.root.type.get_shape()[0] == 1  # type: ignore[attr-defined]

    one = parse(CHAIN.replace("2x4xf32", "1x4xf32"))
    two = parse(CHAIN)
    rm = lambda m: rewrite(  # noqa: E731
        (is_op("add")(wildcard(), wildcard()), lambda mt: mt.op.operands[0]), m
    )
    rm(one), rm(two)
    assert len(partition(pattern, one, check=batch_one)) == 1
    assert partition(pattern, two, check=batch_one) == []


CHAIN3 = """
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = relay.relu %x : tensor<4xf32>
  %b = relay.relu %a : tensor<4xf32>
  %c = relay.relu %b : tensor<4xf32>
  func.return %c : tensor<4xf32>
}
"""


def test_partition_overlap_prefers_the_earlier_on_ties():
    m = parse(CHAIN3)
    (fused,) = partition(is_op("relu")(is_op("relu")(wildcard())), m)
    assert [op.name for op in main_ops(m)] == ["relay.fused", "relay.relu", "func.return"]
    assert fused.inputs[0] is val(m, "x")


def test_partition_overlap_prefers_the_larger():
    m = parse(CHAIN3)
    relu = is_op("relu")
    pattern = relu(relu(relu(wildcard()))) | relu(wildcard())
    # Root %a only matches one relu, root %c all three: the larger wins although
    # it is rooted later, and the smaller overlapping ones are dropped.
    (fused,) = partition(pattern, m)
    assert [op.name for op in main_ops(m)] == ["relay.fused", "func.return"]
    assert len(list(fused.body.block.ops)) == 4


def test_partition_refuses_escaping_values():
    m = parse("""
    func.func @main(%x: tensor<2x4xf32>, %w: tensor<4x4xf32>) -> tensor<2x4xf32> {
      %mm = relay.matmul %x, %w : (tensor<2x4xf32>, tensor<4x4xf32>)
      %r = relay.relu %mm : tensor<2x4xf32>
      %out = relay.add %r, %mm : tensor<2x4xf32>
      func.return %out : tensor<2x4xf32>
    }""")
    before = lamina.print_ir(m)
    assert partition(is_op("relu")(is_op("matmul")(wildcard(), wildcard())), m) == []
    assert lamina.print_ir(m) == before


def test_partition_duplicates_escaping_constants():
    m = parse("""
    func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
      %c = relay.constant dense<2.0> : tensor<4xf32>
      %m = relay.multiply %x, %c : tensor<4xf32>
      %r = relay.relu %m : tensor<4xf32>
      %other = relay.add %x, %c : tensor<4xf32>
      func.return %r, %other : tensor<4xf32>, tensor<4xf32>
    }""")
    (fused,) = partition(is_op("relu")(is_op("multiply")(wildcard(), is_constant())), m)
    m.verify()
    assert len(fused.inputs) == 1 and fused.inputs[0] is val(m, "x")
    assert names(fused.body)[:2] == ["relay.constant", "relay.multiply"]
    outside = [op.name for op in main_ops(m)]
    assert outside == ["relay.constant", "relay.fused", "relay.add", "func.return"]


def test_partition_moves_unshared_constants_inside():
    m = parse("""
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %c = relay.constant dense<2.0> : tensor<4xf32>
      %m = relay.multiply %c, %x : tensor<4xf32>
      func.return %m : tensor<4xf32>
    }""")
    (fused,) = partition(is_op("multiply")(wildcard(), is_expr(2.0)), m)
    assert [op.name for op in main_ops(m)] == ["relay.fused", "func.return"]
    assert len(fused.inputs) == 1


def test_partition_lifts_wildcard_constants():
    m = parse("""
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %c = relay.constant dense<2.0> : tensor<4xf32>
      %m = relay.multiply %x, %c : tensor<4xf32>
      %r = relay.relu %m : tensor<4xf32>
      func.return %r : tensor<4xf32>
    }""")
    (fused,) = partition(is_op("relu")(is_op("multiply")(wildcard(), wildcard())), m)
    assert [v.name_hint for v in fused.inputs] == ["x", "c"]
    assert main_ops(m)[0].name == "relay.constant"


def test_partition_dominator_diamond():
    m = parse(DIAMOND)
    (fused,) = partition(diamond_pattern(), m)
    m.verify()
    assert [v.name_hint for v in fused.inputs] == ["x", "w"]
    assert fused.attributes["lamina.partitioned_from"] == StringAttr(
        "matmul_relu_relu_relu_add_"
    )


def test_double_partition_skips_fused_bodies():
    m = parse("""
    func.func @main(%x: tensor<2x4xf32>, %w: tensor<4x4xf32>, %b: tensor<4xf32>) -> tensor<2x4xf32> {
      %mm = relay.matmul %x, %w : (tensor<2x4xf32>, tensor<4x4xf32>)
      %add = relay.add %mm, %b : (tensor<2x4xf32>, tensor<4xf32>)
      %r = relay.relu %add : tensor<2x4xf32>
      %mm2 = relay.matmul %r, %w : (tensor<2x4xf32>, tensor<4x4xf32>)
      %add2 = relay.add %mm2, %b : (tensor<2x4xf32>, tensor<4xf32>)
      func.return %add2 : tensor<2x4xf32>
    }""")
    bias = is_op("add")(is_op("matmul")(wildcard(), wildcard()), wildcard())
    first = partition(is_op("relu")(bias), m, {"lamina.composite": "mm_bias_relu"})
    second = partition(bias, m, {"lamina.composite": "mm_bias"})
    assert len(first) == len(second) == 1
    assert [op.name for op in main_ops(m)] == ["relay.fused", "relay.fused", "func.return"]
    assert second[0].inputs[0] is first[0].results[0]
    assert "relay.fused" not in names(first[0].body)
    m.verify()


def test_partition_multi_result_root():
    m = parse(TUPLES)
    split = is_op(Split2Op)(is_var("x"))
    (fused,) = partition(is_tuple_get_item(split, 0), m)
    m.verify()
    assert len(fused.results) == 2
    add = next(op for op in main_ops(m) if isinstance(op, relay.AddOp))
    assert list(add.operands) == list(fused.results)


def test_partition_deduplicates_shared_inputs():
    m = parse("""
    func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
      %a = relay.add %x, %y : tensor<4xf32>
      %b = relay.multiply %x, %y : tensor<4xf32>
      %c = relay.subtract %a, %b : tensor<4xf32>
      func.return %c : tensor<4xf32>
    }""")
    pattern = is_op("subtract")(
        is_op("add")(wildcard(), wildcard()), is_op("multiply")(wildcard(), wildcard())
    )
    (fused,) = partition(pattern, m)
    assert [v.name_hint for v in fused.inputs] == ["x", "y"]


def test_partition_several_groups_and_the_method_form():
    m = parse("""
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %a = relay.relu %x : tensor<4xf32>
      %b = relay.add %a, %a : tensor<4xf32>
      %c = relay.relu %b : tensor<4xf32>
      %d = relay.add %c, %c : tensor<4xf32>
      func.return %d : tensor<4xf32>
    }""")
    x = wildcard()
    relu = is_op("relu")(x)
    groups = is_op("add")(relu, relu).partition(m, {"lamina.composite": "double_relu"})
    assert len(groups) == 2
    assert [op.name for op in main_ops(m)] == ["relay.fused", "relay.fused", "func.return"]
    assert groups[1].inputs[0] is groups[0].results[0]
    m.verify()


def test_partition_attr_values():
    m = parse(CHAIN)
    (fused,) = partition(
        MM_BIAS_RELU,
        m,
        {"a": 1, "b": 2.5, "c": True, "d": "s", "e": IntegerAttr(3, i32)},
    )
    attrs = fused.attributes
    assert attrs["a"] == IntegerAttr(1, i64) and attrs["e"] == IntegerAttr(3, i32)
    assert attrs["d"] == StringAttr("s")
    with pytest.raises(LaminaError, match="cannot make an attribute"):
        partition(MM_BIAS_RELU, parse(CHAIN), {"bad": [1, 2]})


def test_partitioned_groups_are_matchable():
    m = parse(CHAIN)
    partition(MM_BIAS_RELU, m, {"lamina.composite": "dense_bias_relu"})
    composite = wildcard().has_attr({"lamina.composite": "dense_bias_relu"})
    fused = next(op for op in main_ops(m) if isinstance(op, FusedOp))
    assert composite(wildcard(), wildcard(), wildcard()).match(fused.results[0])
    assert is_op("fused")(is_var("x"), is_var("w"), is_var("b")).match(fused.results[0])


# ------------------------------------------------------ partition parameter order
@pytest.mark.usefixtures("sqrt_evaluator")
def test_partition_batchnorm_parameters_in_pattern_leaf_order():
    # TVM: test_partition_batchnorm - the function's parameters are
    # [gamma, x, mean, var, beta], the order of the pattern's leaves, although the
    # graph first uses var (var + eps), then x and mean, then gamma and beta.
    m = bn_module(BN)
    fn = next(op for op in m.ops if isinstance(op, func.FuncOp))
    args = bn_inputs()
    (before,) = evaluate(fn.body.block, args)
    pattern = BatchnormCallback().pattern
    match = pattern.try_match(val(m, "out"))
    assert match is not None
    params = [val(m, n) for n in ("gamma", "x", "mean", "var", "beta")]
    assert list(match.inputs) == params
    (fused,) = partition(pattern, m)
    m.verify()
    assert list(fused.inputs) == params
    assert [a.name_hint for a in fused.body.block.args] == ["gamma", "x", "mean", "var", "beta"]
    assert names(fused.body)[0] == "relay.constant"  # eps, matched by is_constant()
    (after,) = evaluate(fn.body.block, args)
    np.testing.assert_array_equal(after, before)


@pytest.mark.usefixtures("sqrt_evaluator")
def test_partition_double_batchnorm_parameters():
    # TVM: test_partition_double_batchnorm - two groups, each with its parameters
    # in the pattern's order; the second takes the first's result as its x.
    m = parse("""
    func.func @main(%x: tensor<2x4xf32>, %var: tensor<4xf32>, %mean: tensor<4xf32>, %beta: tensor<4xf32>, %gamma: tensor<4xf32>) -> tensor<2x4xf32> {
      %eps = relay.constant dense<1.0e-05> : tensor<4xf32>
      %ve = relay.add %var, %eps : tensor<4xf32>
      %s = relay.sqrt %ve : tensor<4xf32>
      %d = relay.subtract %x, %mean : (tensor<2x4xf32>, tensor<4xf32>)
      %n = relay.multiply %gamma, %d : (tensor<4xf32>, tensor<2x4xf32>)
      %q = relay.divide %n, %s : (tensor<2x4xf32>, tensor<4xf32>)
      %bn = relay.add %q, %beta : (tensor<2x4xf32>, tensor<4xf32>)
      %ve2 = relay.add %var, %eps : tensor<4xf32>
      %s2 = relay.sqrt %ve2 : tensor<4xf32>
      %d2 = relay.subtract %bn, %mean : (tensor<2x4xf32>, tensor<4xf32>)
      %n2 = relay.multiply %gamma, %d2 : (tensor<4xf32>, tensor<2x4xf32>)
      %q2 = relay.divide %n2, %s2 : (tensor<2x4xf32>, tensor<4xf32>)
      %out = relay.add %q2, %beta : (tensor<2x4xf32>, tensor<4xf32>)
      func.return %out : tensor<2x4xf32>
    }""")
    fn = next(op for op in m.ops if isinstance(op, func.FuncOp))
    args = bn_inputs()
    (before,) = evaluate(fn.body.block, args)
    first, second = partition(BatchnormCallback().pattern, m)
    m.verify()
    gamma, x, mean, var, beta = (val(m, n) for n in ("gamma", "x", "mean", "var", "beta"))
    assert list(first.inputs) == [gamma, x, mean, var, beta]
    assert list(second.inputs) == [gamma, first.results[0], mean, var, beta]
    (after,) = evaluate(fn.body.block, args)
    np.testing.assert_array_equal(after, before)


def test_partition_parameters_follow_the_pattern_not_the_operands():
    # The graph uses %a first; the pattern names the add's other operand first,
    # and the commuted match keeps the pattern's order.
    m = parse("""
    func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
      %r = relay.relu %a : tensor<4xf32>
      %s = relay.add %r, %b : tensor<4xf32>
      func.return %s : tensor<4xf32>
    }""")
    inner, other = wildcard(), wildcard()
    (fused,) = partition(is_op("add")(other, is_op("relu")(inner)), m)
    assert [v.name_hint for v in fused.inputs] == ["b", "a"]
    # A leaf used twice counts at its first place in the pattern.
    m2 = parse("""
    func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
      %m = relay.multiply %b, %a : tensor<4xf32>
      %s = relay.add %a, %m : tensor<4xf32>
      func.return %s : tensor<4xf32>
    }""")
    x, y = wildcard(), wildcard()
    (fused2,) = partition(is_op("add")(x, is_op("multiply")(y, x)), m2)
    assert [v.name_hint for v in fused2.inputs] == ["a", "b"]
    # A fuzzy call gives its op's operands at its place.
    m3 = parse(CHAIN)
    bias = wildcard()
    (fused3,) = partition(is_op("relu")(is_op("add")(bias, is_op("matmul")(None))), m3)
    assert [v.name_hint for v in fused3.inputs] == ["b", "x", "w"]
