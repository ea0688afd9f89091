"""Winograd convolution's transforms, F(m x m, 3 x 3) (TVM's
`conv2d_winograd`): a 3x3, stride-1 convolution computed tile by tile.

Each tile of `m x m` outputs reads an `a x a` input tile (`a = m + 2`). The
input transform maps every input tile `d` to `V = B^T d B`, the weights are
transformed once at compile time (`U = G g G^T`), one batched matrix product
over the `a * a` positions sums over the input channels (`M[s] = V[s] @ U[s]`,
`relay.matmul`), and the output transform maps each tile back, `Y = A^T M A`:

    relay.winograd_input_transform   [N, C/cb, H, W, cb], B^T   -> V [a*a, P, C]
    relay.matmul                     V, U [K/kb, a*a, C, kb]     -> M [K/kb, a*a, P, kb]
    relay.winograd_output_transform  M, A^T                      -> [N, K/kb, OH, OW, kb]

with `P = N * TH * TW` tiles (`TH = ceil(OH / m)`, the tiles in row-major
order within each image). The product's weight is stored in panels of `kb`
output channels (numpy's broadcasting reads `V` for each panel), so that its
GEMM streams each panel contiguously; the output transform reads the panels
as its channel blocks. The transforms take their matrices as operands, `B^T`
(`[a, a]`) and `A^T` (`[m, a]`), applied along both axes of a tile; any matrices of these shapes are valid (the ops are linear maps of
each tile). `conv2d-winograd` builds the whole rewrite from a `relay.conv2d`.

Data and result use the blocked channel layout of `relay.conv2d_nchwc` (a
block of 1 is plain NCHW), so that a chain of convolutions stays blocked and
the transforms vectorize along the channel block.
"""

from __future__ import annotations

from typing import Any, ClassVar

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, TensorType
from xdsl.ir import Attribute
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from lamina.dialects.relay.base import (
    IntField,
    IntsField,
    OpAttrs,
    OpPattern,
    RelayOp,
    _same_element_type,
    _spatial,
    require_element,
    shape_of,
    tensor,
)

#: The kernel size the transforms are defined for.
WINOGRAD_KERNEL = 3


def winograd_tiles(size: int, m: int) -> int:
    """Tiles of `m` outputs along an axis of `size` outputs (the last may overhang)."""
    return -(-size // m)


class WinogradInputAttrs(OpAttrs):
    tile_size = IntField(0)
    padding = IntsField(None)


class WinogradOutputAttrs(OpAttrs):
    tile_size = IntField(0)
    output_size = IntsField(None)


def _tile_size(op_name: str, props: dict[str, Attribute]) -> int:
    m = WinogradInputAttrs(props, op_name).tile_size
    if m < 1:
        raise VerifyException(f"{op_name}: tile_size must be at least 1, got {m}")
    return m


def _static(op_name: str, what: str, t: TensorType, rank: int) -> tuple[int, ...]:
    shape = shape_of(t)
    if len(shape) != rank or not all(isinstance(d, int) for d in shape):
        raise VerifyException(f"{op_name}: {what} must be a {rank}-D tensor of static sizes, got {t}")
    return tuple(int(d) for d in shape)


def _matrix(op_name: str, t: TensorType, rows: int, cols: int, what: str) -> None:
    shape = _static(op_name, "the transform", t, 2)
    if shape != (rows, cols):
        raise VerifyException(
            f"{op_name}: the transform must be [{rows}, {cols}] ({what}), got {t}"
        )


@irdl_op_definition
class WinogradInputTransformOp(RelayOp):
    """`out[xi * a + nu, p, c] = sum(i, j) T[xi, i] * T[nu, j] * tile_p[i, j,
    c]`: each input tile of F(m x m, 3 x 3) (`tile_p[i, j, c] = x[n, c, th * m
    - pt + i, tw * m - pl + j]`, zero outside `x`) mapped by the `[a, a]`
    transform `T` along both axes (`T tile T^T`). Data `[N, C/cb, H, W, cb]`,
    padding `[top, left, bottom, right]` (the convolution's); result `[a*a, N *
    TH * TW, C]` (the tiles cover the convolution's `OH = H + pt + pb - 2`
    rows, `TH = ceil(OH / m)`)."""

    name = "relay.winograd_input_transform"
    DEFAULTS: ClassVar[dict[str, Any]] = {"padding": (0, 0, 0, 0)}
    data = operand_def(TensorType)
    transform = operand_def(TensorType)
    tile_size = prop_def(IntegerAttr)
    padding = opt_prop_def(DenseArrayBase)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    ATTRS: ClassVar[type[OpAttrs]] = WinogradInputAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        elem = _same_element_type(cls.name, types)
        require_element(cls.name, types[0], floating=True)
        m = _tile_size(cls.name, props)
        a = m + WINOGRAD_KERNEL - 1
        n, blocks, h, w, block = _static(cls.name, "data", types[0], 5)
        pad = _spatial(cls.name, "padding", cls.attrs_of(props).padding, 4, 0)
        if any(p < 0 for p in pad):
            raise VerifyException(f"{cls.name}: padding {list(pad)} must be non-negative")
        out_h = h + pad[0] + pad[2] - WINOGRAD_KERNEL + 1
        out_w = w + pad[1] + pad[3] - WINOGRAD_KERNEL + 1
        if out_h < 1 or out_w < 1:
            raise VerifyException(
                f"{cls.name}: the padded input ({h + pad[0] + pad[2]}x{w + pad[1] + pad[3]}) "
                f"is smaller than the {WINOGRAD_KERNEL}x{WINOGRAD_KERNEL} window"
            )
        _matrix(cls.name, types[1], a, a, f"B^T for tile_size {m}")
        count = n * winograd_tiles(out_h, m) * winograd_tiles(out_w, m)
        return tensor([a * a, count, blocks * block], elem)


@irdl_op_definition
class WinogradOutputTransformOp(RelayOp):
    """`out[n, kb, h, w, ki] = sum(xi, nu) T[h % m, xi] * T[w % m, nu] *
    data[kb, xi * a + nu, p, ki]` with `p` the tile of `(n, h, w)`: each
    tile's `a*a` products mapped back to `m x m` outputs by the `[m, a]`
    transform `T` along both axes (`T M T^T`), the outputs past `output_size`
    dropped. Data `[K/kb, a*a, N * TH * TW, kb]` (the product's panels);
    result `[N, K/kb, OH, OW, kb]`."""

    name = "relay.winograd_output_transform"
    data = operand_def(TensorType)
    transform = operand_def(TensorType)
    tile_size = prop_def(IntegerAttr)
    output_size = prop_def(DenseArrayBase)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    ATTRS: ClassVar[type[OpAttrs]] = WinogradOutputAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        elem = _same_element_type(cls.name, types)
        require_element(cls.name, types[0], floating=True)
        m = _tile_size(cls.name, props)
        a = m + WINOGRAD_KERNEL - 1
        blocks, positions, p, block = _static(cls.name, "data", types[0], 4)
        if positions != a * a:
            raise VerifyException(
                f"{cls.name}: data must hold {a * a} tile positions for tile_size {m} "
                f"(its axis 1), got {types[0]}"
            )
        out_h, out_w = _spatial(cls.name, "output_size", cls.attrs_of(props).output_size, 2, 0)
        if out_h < 1 or out_w < 1:
            raise VerifyException(f"{cls.name}: output_size [{out_h}, {out_w}] must be positive")
        per_image = winograd_tiles(out_h, m) * winograd_tiles(out_w, m)
        if p % per_image:
            raise VerifyException(
                f"{cls.name}: {p} tiles are not a whole number of {out_h}x{out_w} images "
                f"({per_image} tiles of {m}x{m} each)"
            )
        _matrix(cls.name, types[1], m, a, f"A^T for tile_size {m}")
        return tensor([p // per_image, blocks, out_h, out_w, block], elem)


__all__ = ["WINOGRAD_KERNEL", "WinogradInputTransformOp", "WinogradOutputTransformOp", "winograd_tiles"]
