"""lamina's torch frontend: a PyTorch model becomes a graph-level (relay) module.

    from lamina.frontends.torch import from_torch, CONVERTERS
    module = from_torch(model, (x,), dynamic_shapes={"x": {0: Dim("batch")}})

`torch.export` traces the model, `run_decompositions()` brings the graph to the
core ATen op set, and each FX node is converted by the function registered for
its ATen op. The package is layered, each module importing only the ones above
it here:

- `context`: `NodeContext`, what a converter sees; torch's symbolic sizes and
  dtypes as lamina's;
- `registry`: `CONVERTERS`, ATen op name -> converter (`@converter(...)`);
- the converters by family: `elementwise`, `nn`, `layout`, and `scatter` (writes
  into slices and indices, strided views), which builds on `layout`'s;
- `importer`: `from_torch` and `import_program`, which walk the graph.

Nothing here imports torch at import time: `from_torch` does, when called
(torch is the optional `torch` extra).
"""

from lamina.frontends.torch import (  # noqa: F401  (imported to register their converters)
    elementwise,
    layout,
    nn,
    scatter,
)
from lamina.frontends.torch.context import NodeContext
from lamina.frontends.torch.importer import from_torch, import_program
from lamina.frontends.torch.registry import CONVERTERS, converter, supported_ops

__all__ = ["CONVERTERS", "NodeContext", "converter", "from_torch", "import_program", "supported_ops"]
