"""The numpy evaluator of `relay.squareplus`, used by fold-constant (and by the
graph-level reference interpreter `lamina.transforms.graph.fold_constant.evaluate`)."""

from __future__ import annotations

import numpy as np
from xdsl.ir import Operation


def squareplus(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    x = args[0]
    b = op.attrs.b
    return ((x + np.sqrt(x * x + b)) / 2).astype(x.dtype)
