"""`structure_digest` identifies kernels (deduplication, the kernel cache's
key): the same structure under other value names digests alike; any change
the printed text would show (a constant, an operand's order, a type, a loop
kind, where an op sits, the name unless skipped) digests otherwise."""

from __future__ import annotations

import pytest

from lamina.digest import structure_digest
from lamina.ir import parse, print_ir

KERNEL = """
tir.prim_func @k(%x: memref<4x8xf32>, %y: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  tir.for parallel %i = %c0 to %c4 step %c1 {
    tir.for vectorized %j = %c0 to %c8 step %c1 {
      %v = tir.load %x[%i, %j] : memref<4x8xf32>
      %two = arith.constant 2.000000e+00 : f32
      %r = arith.mulf %v, %two : f32
      tir.store %r, %y[%i, %j] : memref<4x8xf32>
    }
  }
  tir.return
}
"""


def _digest(text: str, skip: tuple[str, ...] = ("sym_name",)) -> str:
    (kernel,) = parse(text).ops
    return structure_digest(kernel, skip)


def test_value_names_do_not_matter():
    renamed = KERNEL.replace("%v", "%load").replace("%i", "%row").replace("%two", "%k")
    assert _digest(renamed) == _digest(KERNEL)
    (kernel,) = parse(KERNEL).ops
    assert structure_digest(kernel.clone(), ("sym_name",)) == _digest(KERNEL)


def test_the_printed_form_digests_alike():
    (kernel,) = parse(KERNEL).ops
    assert _digest(print_ir(parse(KERNEL))) == structure_digest(kernel, ("sym_name",))


@pytest.mark.parametrize(
    "old,new",
    [
        ("2.000000e+00 : f32", "3.000000e+00 : f32"),  # a constant
        ("tir.load %x[%i, %j]", "tir.load %x[%j, %i]"),  # operand order
        ("tir.for parallel", "tir.for serial"),  # a loop's kind
        ("%r = arith.mulf %v, %two", "%r = arith.addf %v, %two"),  # the op
        ("memref<4x8xf32>) {", "memref<4x8xf32>) attributes {note = 1 : i64} {"),  # an attribute
    ],
)
def test_any_change_digests_otherwise(old, new):
    assert old in KERNEL
    assert _digest(KERNEL.replace(old, new, 1)) != _digest(KERNEL)


def test_where_an_op_sits_matters():
    """The same ops, the constant hoisted out of the inner loop."""
    hoisted = KERNEL.replace("      %two = arith.constant 2.000000e+00 : f32\n", "").replace(
        "  %c8 = arith.constant 8 : index\n",
        "  %c8 = arith.constant 8 : index\n  %two = arith.constant 2.000000e+00 : f32\n",
    )
    assert _digest(hoisted) != _digest(KERNEL)


def test_the_name_counts_unless_skipped():
    other = KERNEL.replace("@k(", "@other(")
    assert _digest(other) == _digest(KERNEL)
    assert _digest(other, ()) != _digest(KERNEL, ())
