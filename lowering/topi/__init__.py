"""The compute library: one TE definition per relay op, TOPI-style.

Each compute takes the kernel being built, the relay op and the TE tensors of
its operands, and returns the TE tensor of its result (a list of them for a
multi-result op such as `relay.split`). The computes live by op family:

- `base`: the kernel builder, the compute table `COMPUTES` (by op name, with
  plugins' computes from the entry-point group `lamina.computes`), the
  `elementwise`/`reduction` builders and shared helpers;
- `elemwise`: binary and unary ops, `where` (TVM's `topi.elemwise`);
- `products`: dense, matmul, convolution, im2col, transposed convolution;
- `blocked`: convolution and layout transforms over NCHW[x]c;
- `reductions`: reduce, logsumexp, argmax/argmin, softmax;
- `nn`: bias_add, pooling, normalizations, LRN;
- `layout`: reshape, transpose, concatenate, split, slices, gathers, tile, pad,
  trilu;
- `resize`: resize, with known or run-time scales;
- `algorithm`: extern kernels, written in TIR (`TirBuilder`) rather than as
  computes: scatters, top-k, cumulative scans (`register_extern`);
- `dynamic`: extern kernels of the ops of data-dependent size (nonzero,
  non-max suppression, unique), which write padded results and a count;
- `image`: extern kernels of the image ops, calls of the runtime's decoder
  (`tir.call_extern`);
- `sampling`: grid_sample, col2im;
- `winograd`: Winograd convolution's transforms and their matrices;
- `int8`: the packed int8 kernels (`qnn.conv2d_nchwc`, `qnn.dense_packed`),
  written in TIR around `tir.dot4`;
- `cost`: the flop count of an op (`flops`).

A new graph op becomes lowerable by registering its compute with
`@register_compute(OpClass)` (or, from a plugin, an entry point in group
`lamina.computes` named after the op). Importing this package registers
lamina's computes.
"""

from lamina.lowering.topi import (
    algorithm,
    blocked,
    dynamic,
    elemwise,
    image,
    int8,
    layout,
    nn,
    products,
    reductions,
    resize,
    sampling,
    winograd,
)
from lamina.lowering.topi.algorithm import (
    EXTERNS,
    extern_kernel,
    is_extern,
    register_extern,
)
from lamina.lowering.topi.base import (
    COMPUTES,
    COMPUTES_GROUP,
    Body,
    Compute,
    Kernel,
    compute_for,
    elementwise,
    highest,
    lowest,
    reduction,
    register_compute,
    scheduled,
)
from lamina.lowering.topi.cost import flops

__all__ = [
    "COMPUTES",
    "COMPUTES_GROUP",
    "EXTERNS",
    "Body",
    "Compute",
    "Kernel",
    "algorithm",
    "blocked",
    "compute_for",
    "dynamic",
    "elementwise",
    "elemwise",
    "extern_kernel",
    "flops",
    "highest",
    "image",
    "int8",
    "is_extern",
    "layout",
    "lowest",
    "nn",
    "products",
    "reduction",
    "reductions",
    "register_compute",
    "register_extern",
    "resize",
    "sampling",
    "scheduled",
    "winograd",
]
