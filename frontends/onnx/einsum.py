"""The Einsum converter: an equation becomes transposes, reshapes, sums, multiplies
and batched matmuls of existing relay ops.

Each operand first loses its repeated labels (a diagonal: the repeated axes
flattened and read with a strided slice) and the size-1 axes that broadcast
against a larger size of the same label elsewhere. Operands are then combined
left to right: labels no later operand or the output needs are summed away
first, and a pair is joined with a batched `relay.matmul` over the labels it
contracts (or a broadcasting `relay.multiply` when it contracts none). The
result is summed and transposed to the output's labels. Ellipses (`...`) are
labelled per axis, aligned from the right as numpy broadcasts them; an implicit
output is the ellipsis axes then the labels used once, in ASCII order.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.ir import SSAValue

from lamina.dialects import relay
from lamina.frontends.onnx.context import NodeContext, shape
from lamina.frontends.onnx.helpers import _rank, _reshape
from lamina.frontends.onnx.registry import converter

#: An operand: its value and the label of each of its axes (letters, or
#: `"...k"` for the k-th axis of the broadcast ellipsis dimensions).
Term = tuple[SSAValue, list[str]]


def _parse_term(ctx: NodeContext, term: str, rank: int | None, width: int) -> list[str]:
    """The labels of one side of the equation; `rank` is the operand's rank
    (None for the output), `width` the number of ellipsis axes of the output."""
    head, dots, tail = term.partition("...")
    if "." in head + tail or "..." in tail:
        raise ctx.error(f"term '{term}' has a '.' outside a single '...'")
    for c in head + tail:
        if not c.isascii() or not c.isalpha():
            raise ctx.error(f"term '{term}' has '{c}', which is not a letter")
    n = len(head) + len(tail)
    if rank is None:
        ell = width if dots else 0
    elif dots:
        ell = rank - n
        if ell < 0:
            raise ctx.error(f"term '{term}' has more labels than its operand's rank {rank}")
    elif n != rank:
        raise ctx.error(f"term '{term}' has {n} labels but its operand has rank {rank}")
    else:
        ell = 0
    return [*head, *(f"...{width - ell + k}" for k in range(ell)), *tail]


def _diagonal(ctx: NodeContext, x: SSAValue, labels: list[str]) -> Term:
    """Take the diagonal over each label repeated in one operand: the repeated
    axes move last, flatten, and a strided slice reads every `(n^k-1)/(n-1)`-th
    element."""
    for label in dict.fromkeys(labels):
        where = [i for i, lab in enumerate(labels) if lab == label]
        if len(where) < 2:
            continue
        s = shape(x)
        sizes = {s[i] for i in where}
        if len(sizes) != 1:
            raise ctx.error(f"label '{label}' repeats over axes of different sizes {sorted(sizes)}")
        n, k = s[where[0]], len(where)
        keep = [i for i in range(len(s)) if i not in where]
        if keep + where != list(range(len(s))):
            x = ctx.emit(relay.TransposeOp(x, perm=relay.i64_array(keep + where)))
        x = _reshape(ctx, x, [*(s[i] for i in keep), n**k])
        step = sum(n**j for j in range(k))
        rank = len(keep) + 1
        x = ctx.emit(
            relay.StridedSliceOp(
                x,
                begin=relay.i64_array([0] * rank),
                end=relay.i64_array([*(s[i] for i in keep), n**k]),
                strides=relay.i64_array([1] * (rank - 1) + [step]),
            )
        )
        labels = [labels[i] for i in keep] + [label]
    return x, labels


def _squeeze(ctx: NodeContext, term: Term, drop: Sequence[int]) -> Term:
    x, labels = term
    if not drop:
        return term
    s = shape(x)
    keep = [i for i in range(len(s)) if i not in drop]
    return _reshape(ctx, x, [s[i] for i in keep]), [labels[i] for i in keep]


def _sum_out(ctx: NodeContext, term: Term, needed: set[str]) -> Term:
    """Sum away the axes whose labels are not `needed`."""
    x, labels = term
    axes = [i for i, lab in enumerate(labels) if lab not in needed]
    if not axes:
        return term
    x = ctx.emit(relay.SumOp(x, axes=relay.i64_array(axes)))
    return x, [lab for lab in labels if lab in needed]


def _permute(ctx: NodeContext, term: Term, order: Sequence[str]) -> SSAValue:
    x, labels = term
    perm = [labels.index(lab) for lab in order]
    if perm == list(range(len(perm))):
        return x
    return ctx.emit(relay.TransposeOp(x, perm=relay.i64_array(perm)))


def _combine(ctx: NodeContext, a: Term, b: Term, needed: set[str], size: dict[str, int]) -> Term:
    """Join two operands whose labels not in `needed` (and not in the other
    operand) are already summed away."""
    la, lb = a[1], b[1]
    batch = [lab for lab in la if lab in lb and lab in needed]
    inner = [lab for lab in la if lab in lb and lab not in needed]
    left = [lab for lab in la if lab not in lb]
    right = [lab for lab in lb if lab not in la]
    dims = [size[lab] for lab in batch + left + right]
    if not inner:  # an outer (or elementwise) product: broadcast and multiply
        xa = _reshape(ctx, _permute(ctx, a, batch + left), [size[lab] for lab in batch + left] + [1] * len(right))
        xb = _reshape(ctx, _permute(ctx, b, batch + right), [size[lab] for lab in batch] + [1] * len(left) + [size[lab] for lab in right])
        return ctx.emit(relay.MultiplyOp(xa, xb)), batch + left + right
    nb, m, k, n = (math.prod(size[lab] for lab in g) for g in (batch, left, inner, right))
    lead = [nb] if batch else []
    xa = _reshape(ctx, _permute(ctx, a, batch + left + inner), [*lead, m, k])
    xb = _reshape(ctx, _permute(ctx, b, batch + inner + right), [*lead, k, n])
    y = ctx.emit(relay.MatmulOp(xa, xb))
    return _reshape(ctx, y, dims), batch + left + right


@converter(
    "Einsum",
    emits=("relay.transpose", "relay.reshape", "relay.strided_slice", "relay.sum", "relay.multiply", "relay.matmul"),
    notes="any equation: ellipses, diagonals, broadcasting, implicit output",
)
def _einsum(ctx: NodeContext) -> Sequence[SSAValue]:
    equation = "".join(str(ctx.attr("equation", "")).split())
    ins = [ctx.input(i) for i in range(len(ctx.node.input))]
    lhs, arrow, rhs = equation.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(ins):
        raise ctx.error(f"equation '{equation}' has {len(terms)} input term(s) but the node has {len(ins)} input(s)")
    width = max(
        (_rank(x) - len(t.replace("...", "")) for t, x in zip(terms, ins, strict=True) if "..." in t),
        default=0,
    )
    labelled = [_parse_term(ctx, t, _rank(x), width) for t, x in zip(terms, ins, strict=True)]
    ellipsis = [f"...{k}" for k in range(width)]
    if arrow:
        out = _parse_term(ctx, rhs, None, width)
        if width and "..." not in rhs:
            raise ctx.error(f"equation '{equation}': the output needs '...' for the inputs' broadcast axes")
        seen = set().union(*labelled)
        missing = [lab for lab in out if lab not in seen]
        if missing or len(set(out)) != len(out):
            raise ctx.error(f"output term '{rhs}' repeats a label or has one no input has ({missing})")
    else:
        counts: dict[str, int] = {}
        for labels in labelled:
            for lab in labels:
                counts[lab] = counts.get(lab, 0) + 1
        out = ellipsis + sorted(lab for lab, c in counts.items() if c == 1 and not lab.startswith("..."))
    # Diagonals, then the sizes of the labels (a size-1 axis broadcasts).
    operands = [_diagonal(ctx, x, labels) for x, labels in zip(ins, labelled, strict=True)]
    size: dict[str, int] = {}
    for x, labels in operands:
        for lab, d in zip(labels, shape(x), strict=True):
            if size.get(lab, 1) not in (1, d) and d != 1:
                raise ctx.error(f"label '{lab}' has sizes {size[lab]} and {d}, which do not broadcast")
            size[lab] = d if size.get(lab, 1) == 1 else size[lab]
    operands = [
        _squeeze(ctx, (x, labels), [i for i, lab in enumerate(labels) if shape(x)[i] == 1 and size[lab] != 1])
        for x, labels in operands
    ]
    # Combine left to right, summing away what nothing after needs.
    result = operands[0]
    for i in range(1, len(operands) + 1):
        later = set(out).union(*(labels for _, labels in operands[i + 1 :]))
        if i == len(operands):
            result = _sum_out(ctx, result, later)
            break
        nxt = operands[i]
        result = _sum_out(ctx, result, later | set(nxt[1]))
        nxt = _sum_out(ctx, nxt, later | set(result[1]))
        result = _combine(ctx, result, nxt, later, size)
    return [_permute(ctx, result, out)]
