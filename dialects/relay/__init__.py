"""The `relay` dialect: TVM Relay's graph level as xDSL ops over tensors.

Every op infers its result type from its operands and attributes, so builders and
the parser never need redundant types; the verifier re-infers and says exactly what
disagrees. Every op carries its op-pattern kind (TVM's `TOpPattern`) as class data,
which fusion and the pattern language read.

Custom form (the generic form always works too):

```mlir
%w = relay.constant dense_resource<fc1_w> : tensor<512x784xf32>
%0 = relay.dense %x, %w {transpose_b} : (tensor<1x784xf32>, tensor<512x784xf32>) -> tensor<1x512xf32>
%1 = relay.relu %0 : tensor<1x512xf32>
```

After `:` either a function type `(operands) -> result` or, when every operand and
the result share one type, just that type. The `-> result` part may be omitted when
parsing; the result type is then inferred.

The ops are defined by family, one module each: `base` (`RelayOp`, `OpPattern`,
the shared type-inference helpers, `Window`, the attribute builders), `constant`,
`elementwise`, `products` (matmul, dense, dense_pack, convolutions), `reductions`, `nn`
(softmax, bias_add, pooling, normalizations), `layout` (reshape, transpose,
slicing, gather, pad, resize, im2col, ...), `algorithm` (scatters, top-k,
cumulative scans), `dynamic` (ops of data-dependent size: nonzero, NMS,
unique, narrow), `image` (decoding an encoded image at run time), `blocked` (conv2d_nchwc, layout_transform), `sampling` (grid_sample, col2im) and `winograd` (Winograd convolution's transforms); the region ops
`relay.fused` and `relay.yield` are in `lamina.dialects.relay_region`. This
package re-exports every public name of those modules, and builds `RELAY_OPS`
(and `__all__`) from the op classes they define. An installed package may add
relay ops through the entry-point group `lamina.relay_ops` (entry point name =
the op name, value = a `RelayOp` op class); `relay_dialect()` is `Relay` with
those ops joined, which is the relay dialect `lamina.ir` parses with.
"""

from __future__ import annotations

import warnings
from types import ModuleType
from typing import Any

from xdsl.ir import Dialect
from xdsl.irdl import IRDLOperation

from lamina.dialects.relay import (
    algorithm,
    base,
    blocked,
    constant,
    dynamic,
    elementwise,
    image,
    layout,
    nn,
    products,
    reductions,
    sampling,
    winograd,
)

# Re-export every public name of the family modules, as the single-module
# `lamina.dialects.relay` did (`relay.AddOp`, `relay.i64_array`, ...).
from lamina.dialects.relay.algorithm import *  # noqa: F403
from lamina.dialects.relay.base import *  # noqa: F403
from lamina.dialects.relay.base import RelayOp
from lamina.dialects.relay.blocked import *  # noqa: F403
from lamina.dialects.relay.constant import *  # noqa: F403
from lamina.dialects.relay.dynamic import *  # noqa: F403
from lamina.dialects.relay.elementwise import *  # noqa: F403
from lamina.dialects.relay.image import *  # noqa: F403
from lamina.dialects.relay.layout import *  # noqa: F403
from lamina.dialects.relay.nn import *  # noqa: F403
from lamina.dialects.relay.products import *  # noqa: F403
from lamina.dialects.relay.reductions import *  # noqa: F403
from lamina.dialects.relay.sampling import *  # noqa: F403
from lamina.dialects.relay.winograd import *  # noqa: F403
from lamina.dialects.relay_region import FusedOp, IfOp, LoopOp, YieldOp
from lamina.errors import LaminaError
from lamina.plugins import RELAY_OPS_GROUP
from lamina.registry import Registry

#: The family modules, in the order `RELAY_OPS` lists their ops.
_FAMILIES: tuple[ModuleType, ...] = (
    base,
    constant,
    elementwise,
    products,
    reductions,
    nn,
    layout,
    blocked,
    algorithm,
    dynamic,
    image,
    sampling,
    winograd,
)

#: The region ops, which are relay ops too but not `RelayOp`s.
_REGION_OPS: tuple[type[IRDLOperation], ...] = (FusedOp, IfOp, LoopOp, YieldOp)


def _defined_classes(module: ModuleType) -> list[type[IRDLOperation]]:
    """The IRDL operation classes `module` defines (abstract bases such as
    `BinaryOp` included), in definition order."""
    return [
        v
        for v in vars(module).values()
        if isinstance(v, type)
        and issubclass(v, IRDLOperation)
        and v.__module__ == module.__name__
    ]


def _is_op_definition(cls: type) -> bool:
    """Whether `cls` is an op itself (decorated with `irdl_op_definition`) rather
    than an abstract base of ops."""
    return "get_irdl_definition" in vars(cls)


#: Every relay graph op lamina defines, by family (module order, then definition
#: order): the `irdl_op_definition` classes of the family modules.
RELAY_OPS: tuple[type[RelayOp], ...] = tuple(
    cls
    for module in _FAMILIES
    for cls in _defined_classes(module)
    if issubclass(cls, RelayOp) and _is_op_definition(cls)
)

#: lamina's own relay dialect: the graph ops and the region ops.
Relay = Dialect("relay", [*RELAY_OPS, *_REGION_OPS], [])


# ---------------------------------------------------------------- plugin ops


def _check_relay_op(name: str, obj: Any) -> type[RelayOp]:
    if not (isinstance(obj, type) and issubclass(obj, RelayOp)):
        raise LaminaError(f"relay op '{name}' is not a RelayOp subclass: {obj!r}")
    if not _is_op_definition(obj):
        raise LaminaError(
            f"relay op class {obj.__name__} is not an op definition (decorate it "
            "with @irdl_op_definition)"
        )
    if obj.name != name:
        raise LaminaError(
            f"the relay op class {obj.__name__} is named '{obj.name}', not '{name}'"
        )
    if not name.startswith("relay."):
        raise LaminaError(f"relay op '{name}' must be named 'relay.<op>'")
    if any(op.name == name for op in _REGION_OPS):
        raise LaminaError(f"relay op '{name}' is already defined by lamina")
    return obj


#: Relay op classes by op name: lamina's own (`RELAY_OPS`) and those of plugins
#: (entry-point group `lamina.relay_ops`; lamina's names win over a plugin's).
RELAY_OP_REGISTRY: Registry[type[RelayOp]] = Registry(
    "relay op", RELAY_OPS_GROUP, _check_relay_op
)
for _op in RELAY_OPS:
    RELAY_OP_REGISTRY.register(_op.name, _op)
del _op


def plugin_relay_ops() -> list[type[RelayOp]]:
    """The relay ops installed plugins add (group `lamina.relay_ops`), by name.
    A plugin op that cannot load is skipped with a `RuntimeWarning`, as a dialect
    plugin is (one broken plugin must not make every IR file unreadable)."""
    out: list[type[RelayOp]] = []
    for name in RELAY_OP_REGISTRY.plugin_names():
        try:
            out.append(RELAY_OP_REGISTRY.get(name))
        except LaminaError as e:
            warnings.warn(
                f"lamina: skipping a relay op plugin: {e}", RuntimeWarning, stacklevel=2
            )
    return out


def relay_dialect() -> Dialect:
    """The relay dialect with the ops of installed plugins: `Relay` itself when
    there are none."""
    plugin_ops = plugin_relay_ops()
    if not plugin_ops:
        return Relay
    return Dialect("relay", [*RELAY_OPS, *_REGION_OPS, *plugin_ops], [])


__all__ = sorted(
    {
        *(cls.__name__ for module in _FAMILIES for cls in _defined_classes(module)),
        "RELAY_OPS",
        "RELAY_OPS_GROUP",
        "RELAY_OP_REGISTRY",
        "OpPattern",
        "Relay",
        "Window",
        "plugin_relay_ops",
        "relay_dialect",
    }
)
