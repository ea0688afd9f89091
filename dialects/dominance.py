"""Use-before-definition checking, which xDSL's verifier does not do.

MLIR rejects `%5 = math.tanh %5 : f32` (an op using its own result) and any use of
a value before the op defining it in a block: in a region of sequential control
flow, definitions must dominate uses. xDSL's parser resolves such forward
references and its verifier accepts them, after which passes that walk use-def
chains loop or crash. `verify_ssa_order` reports them as a `VerifyException`
(`UseBeforeDefinition`, whose `op` is the op using the value: its location is
where the error is reported).

It checks order within blocks and nesting (a value used inside a region must be
defined before the op holding the region, or earlier inside it). Regions with
several blocks are CFGs whose text order need not follow dominance, so there a value
defined anywhere in the region is accepted.
"""

from __future__ import annotations

from xdsl.ir import Operation, Region, SSAValue
from xdsl.utils.exceptions import VerifyException


def _show(v: SSAValue) -> str:
    return f"%{v.name_hint}" if v.name_hint else f"a value of type {v.type}"


class UseBeforeDefinition(VerifyException):
    """A value used before (or without) its definition; `op` is the user."""

    def __init__(self, message: str, op: Operation) -> None:
        super().__init__(message)
        self.op = op


def verify_ssa_order(root: Operation) -> None:
    """Raise `VerifyException` at the first use of a value before its definition."""
    defined: set[SSAValue] = set()

    def visit(region: Region) -> None:
        if len(region.blocks) > 1:
            for block in region.blocks:
                defined.update(block.args)
                for op in block.walk():
                    defined.update(op.results)
        for block in region.blocks:
            defined.update(block.args)
            for op in block.ops:
                for v in op.operands:
                    if v not in defined:
                        raise UseBeforeDefinition(
                            f"'{op.name}' op uses {_show(v)} before it is defined; "
                            "a value must be defined before its uses",
                            op,
                        )
                for r in op.regions:
                    visit(r)
                defined.update(op.results)

    for r in root.regions:
        visit(r)


__all__ = ["UseBeforeDefinition", "verify_ssa_order"]
