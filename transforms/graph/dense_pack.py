"""The packed weights of `alter-op-layout` (TVM's `dense_pack`): a matrix product
with a constant weight becomes `relay.dense_pack`, its weight packed at compile
time into column panels of one vector of the host's lanes, `[N/nb, K, nb]`.

The GEMM micro-kernel (`lamina.lowering.strategy.cpu.gemm`) reads its tile's
columns of one reduce step from each panel it covers: each panel is one
contiguous stream, where the `K x N` weight would have the tile's rows `N`
elements apart (a new cache line and, every few steps, a new page for every
step). A panel of one vector lets the tile be any whole number of vectors (in a
C version of the micro-kernel on BERT-base's GEMM shapes, panels of one vector
were as fast as panels of two or four, and up to 6% faster for some tiles).
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import AnyFloat, TensorType
from xdsl.ir import Operation, SSAValue

from lamina.dialects import relay
from lamina.dialects.relay.constant import make_constant, value_data
from lamina.dialects.shapes import dims, dims_attr
from lamina.passes import current_target
from lamina.runtime.model import aligned_empty
from lamina.transforms.graph.layout_propagation import replace


def pack_panels(w: np.ndarray, nb: int) -> np.ndarray:
    """A `K x N` weight as `[N/nb, K, nb]` column panels (`nb` divides `N`), in
    aligned memory that `make_constant` takes as it is.

    A row-major weight's panel rows are whole `nb`-element runs, so it is copied
    as a `K x N/nb` matrix of such runs, transposed: one element of `nb *
    itemsize` bytes at a time (a 64-byte move per step where numpy's strided
    copy moves one float), which halves the time of packing BERT's weights."""
    k, n = w.shape
    out = aligned_empty((n // nb, k, nb), w.dtype)
    if w.flags.c_contiguous:
        run = np.dtype((np.void, nb * w.dtype.itemsize))
        np.copyto(out.view(run).reshape(n // nb, k), w.view(run).reshape(k, n // nb).T)
    else:  # e.g. the transpose of an `N x K` weight
        np.copyto(out, w.reshape(k, n // nb, nb).transpose(1, 0, 2))
    return out


def _panel(t: TensorType, n: int) -> int:
    """The panel width for a product of element type `t`'s with `n` columns: the
    host's lanes, or 0 when they do not divide `n` (or the type is not f32/f64)."""
    elem = t.get_element_type()
    if not isinstance(elem, AnyFloat) or elem.bitwidth not in (32, 64):
        return 0
    lanes = current_target().lanes(elem.bitwidth)
    return lanes if n % lanes == 0 else 0


def pack_product(op: relay.MatmulOp | relay.DenseOp) -> bool:
    """Rewrite `op` onto `relay.dense_pack` when its weight is a constant 2-D
    `K x N` (`N x K` with `transpose_b`) whose columns divide into panels:
    a `relay.matmul` whose data has rank 2 or more (and no less than the
    weight's, which may have leading axes of 1), or a `relay.dense` without
    `transpose_a`, `alpha` and `beta` 1 (a bias becomes a `relay.add` after it,
    which fusion makes its epilogue). Whether it did."""
    x, wv = op.operands[0], op.operands[1]
    w = value_data(wv)
    xt, wt = x.type, wv.type
    assert isinstance(xt, TensorType) and isinstance(wt, TensorType)
    if w is None or w.ndim < 2 or xt.get_num_dims() < max(w.ndim, 2):
        return False
    if w.ndim > 2:  # `[1, 1, K, N]` (a recurrent cell's projection), or a batch to split
        if isinstance(op, relay.DenseOp):
            return False
        if any(d != 1 for d in w.shape[:-2]):
            return _split_batch(op, w)
        w = w.reshape(w.shape[-2:])
    bias = None
    if isinstance(op, relay.DenseOp):
        if (
            op.attrs.transpose_a
            or op.attrs.alpha != 1.0
            or (len(op.operands) > 2 and op.attrs.beta != 1.0)
        ):
            return False
        if op.attrs.transpose_b:
            w = w.T
        bias = op.operands[2] if len(op.operands) > 2 else None
    nb = _panel(xt, w.shape[1])
    if not nb:
        return False
    k, n = w.shape
    packed = make_constant(
        pack_panels(w, nb), relay.tensor((n // nb, k, nb), wt.get_element_type()),
        (wv.name_hint or "weight") + "_packed",
    )
    new: list[Operation] = [packed, relay.DensePackOp(x, packed.results[0])]
    if bias is not None:
        new.append(relay.AddOp(new[-1].results[0], bias))
    replace(op, new)
    return True


#: The most weights of a batch `_split_batch` makes products of (a
#: bidirectional cell's two directions; not a batched attention's heads).
SPLIT_BATCH = 4


def _split_batch(op: relay.MatmulOp, w: np.ndarray) -> bool:
    """A matmul whose constant weight is a small batch of matrices along one
    axis (`[2, H, 4H]`: a bidirectional cell's directions) becomes one product
    per matrix, each over its slice of the data and packed (`pack_product`),
    concatenated along that axis. Whether it did."""
    x, wv = op.operands[0], op.operands[1]
    xt, wt = x.type, wv.type
    assert isinstance(xt, TensorType) and isinstance(wt, TensorType)
    batch = [a for a, d in enumerate(w.shape[:-2]) if d != 1]
    rank = xt.get_num_dims()
    if len(batch) != 1 or w.shape[batch[0]] > SPLIT_BATCH:
        return False
    axis = rank - w.ndim + batch[0]  # (the weight's batch axes align with the data's last ones)
    count = w.shape[batch[0]]
    xshape = dims(xt)  # (a symbolic batch or sequence stays symbolic in the slices)
    if xshape[axis] != count or not _panel(xt, w.shape[-1]):
        return False
    elem = wt.get_element_type()
    new: list[Operation] = []
    parts: list[SSAValue] = []
    for d in range(count):
        lo = [d if a == axis else 0 for a in range(rank)]
        hi = [d + 1 if a == axis else e for a, e in enumerate(xshape)]
        piece = relay.StridedSliceOp(x, begin=dims_attr(lo), end=dims_attr(hi))
        wd = np.take(w, [d], axis=batch[0])
        weight = make_constant(wd, relay.tensor(wd.shape, elem), f"{wv.name_hint or 'weight'}_{d}")
        product = relay.MatmulOp(piece.results[0], weight.results[0])
        new += [piece, weight, product]
        parts.append(product.results[0])
    new.append(relay.ConcatenateOp(*parts, axis=relay.i64_attr(axis)))
    replace(op, new)
    for o in new:
        if isinstance(o, relay.MatmulOp):
            pack_product(o)
    return True


__all__ = ["SPLIT_BATCH", "pack_panels", "pack_product"]
