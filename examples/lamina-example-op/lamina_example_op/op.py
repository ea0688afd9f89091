"""`relay.squareplus`: `(x + sqrt(x * x + b)) / 2` on floating-point tensors."""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import FloatAttr
from xdsl.irdl import irdl_op_definition, opt_prop_def
from xdsl.utils.exceptions import VerifyException

from lamina.dialects import relay

#: SquarePlus's `b` when the op does not give one.
DEFAULT_B = 4.0


class SquarePlusAttrs(relay.OpAttrs):
    """The op's typed properties: `op.attrs.b` (DEFAULT_B when absent)."""

    b = relay.FloatField(DEFAULT_B)


@irdl_op_definition
class SquarePlusOp(relay.FloatUnaryOp):
    """`(x + sqrt(x * x + b)) / 2`; the result has the operand's type.

    Elementwise (`relay.FloatUnaryOp`): its type inference, verifier and pattern
    kind come from the base class, its text form is the generic relay one:

        %y = relay.squareplus %x {b = 1.0 : f64} : tensor<1x8xf32>
    """

    name = "relay.squareplus"
    b = opt_prop_def(FloatAttr)
    ATTRS: ClassVar[type[relay.OpAttrs]] = SquarePlusAttrs

    def verify_(self) -> None:
        super().verify_()
        if self.attrs.b < 0:
            raise VerifyException(f"{self.name}: b must be >= 0")
