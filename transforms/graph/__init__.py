"""Graph-level (relay) passes; importing the package registers them."""

from lamina.transforms.graph import (  # noqa: F401
    alter_op_layout,
    canonicalize,
    conv2d_winograd,
    conv_phases,
    conv_taps,
    fold_constant,
    fuse_ops,
    qnn_canonicalize,
    qnn_legalize,
    qnn_qdq,
    simplify_expr,
    simplify_inference,
)
