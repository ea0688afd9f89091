"""A concatenation that extends an earlier one reuses it: `concat(a, b, c, d)`
after `p = concat(a, b)` (same axis, same block) becomes `concat(p, c, d)`.

DenseNet's layers each concatenate every feature map before them, so its k-th
concatenation reads k operands, and a kernel fused with it selects among them
at every point. Rewritten, each one extends the previous one by its new
operand; and where the operands are whole slices of the result
(`lamina.lowering.concat_slices`), every one of them is computed in place in
the last one's buffer: the feature maps are never copied (the memory-efficient
DenseNet). Part of `simplify-expr`.
"""

from __future__ import annotations

from xdsl.ir import Block, Operation, SSAValue
from xdsl.rewriter import Rewriter

from lamina.dialects import relay


def _blocks(root: Operation) -> list[Block]:
    return [block for op in root.walk() for region in op.regions for block in region.blocks]


def reuse_concat_prefixes(root: Operation) -> int:
    """Rewrite each concatenation whose first operands are an earlier one's (of
    two or more, on the same axis, in the same block) to read that one
    instead, the longest such; return the number rewritten."""
    count = 0
    for block in _blocks(root):
        seen: dict[tuple[int, tuple[SSAValue, ...]], relay.ConcatenateOp] = {}
        for op in list(block.ops):
            if not isinstance(op, relay.ConcatenateOp):
                continue
            axis = op.axis.value.data
            operands = tuple(op.inputs)
            for n in range(len(operands) - 1, 1, -1):
                prefix = seen.get((axis, operands[:n]))
                if prefix is not None:
                    new = relay.ConcatenateOp(prefix.output, *operands[n:], axis=op.axis)
                    Rewriter.replace_op(op, new)
                    op = new
                    count += 1
                    break
            seen.setdefault((axis, operands), op)
    return count


__all__ = ["reuse_concat_prefixes"]
