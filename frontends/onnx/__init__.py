"""lamina's ONNX frontend: an ONNX model becomes a graph-level (relay) module.

    from lamina.frontends.onnx import from_onnx, load_model, CONVERTERS

The package is layered, each module importing only the ones above it here:

- `checks`: checks on a model before it is imported (versions, structure, the
  memory budget, topological order);
- `context`: `NodeContext`, what a converter sees, and the helpers it shares with
  the importer;
- `registry`: `CONVERTERS`, the converter registry (`@converter(...)`, plugins
  through the entry-point group `lamina.onnx_converters`), and the op table's
  `CONVERTER_INFO`;
- `helpers`; `runtime_shapes`, the ONNX shape rules computed when the model
  runs (shapes, axes, pads and counts given as data);
- then the converters by family: `elementwise`, `nn`,
  `normalization`, `reductions`, `constants`, `layout`, `resize`, `attention`,
  `losses`, `sampling`, `algorithm`, `dynamic` (ops of data-dependent
  size), `control` (If, Loop, Scan), `quantize` (QuantizeLinear, QLinearConv,
  ... to the qnn dialect), `einsum`, `signal` (DFT), `vision` (RoiAlign,
  DeformConv, MaxUnpool), `image` (ImageDecoder, decoded by the runtime), `windows` (Blackman, Hann, Hamming);
- `folding` (constant nodes evaluated by `onnx.reference`) and `inference`
  (ONNX shape inference as a check);
- `importer`: `load_model` and `from_onnx`, which walk the graph;
- `table`: docs/ops.md, the supported-op table (`python -m lamina.frontends.onnx.table > docs/ops.md`).

Importing the package imports every converter module, so that they register.
"""

from lamina.frontends.onnx import (  # noqa: F401  (imported to register their converters)
    algorithm,
    attention,
    constants,
    control,
    dynamic,
    einsum,
    elementwise,
    image,
    layout,
    losses,
    nn,
    normalization,
    quantize,
    recurrent,
    reductions,
    resize,
    sampling,
    signal,
    state_space,
    vision,
    windows,
)
from lamina.frontends.onnx.checks import check_model, memory_budget
from lamina.frontends.onnx.context import NodeContext, constant, shape
from lamina.frontends.onnx.folding import FOLD_LIMIT
from lamina.frontends.onnx.importer import (
    from_onnx,
    load_model,
    tensor_to_array,
    unwrap_model,
)
from lamina.frontends.onnx.registry import (
    CONVERTER_INFO,
    CONVERTERS,
    CONVERTERS_GROUP,
    Converter,
    ConverterInfo,
    converter,
    converter_key,
    find_converter,
    supported_ops,
)

__all__ = [
    "CONVERTERS",
    "CONVERTERS_GROUP",
    "CONVERTER_INFO",
    "FOLD_LIMIT",
    "Converter",
    "ConverterInfo",
    "NodeContext",
    "check_model",
    "constant",
    "converter",
    "converter_key",
    "find_converter",
    "from_onnx",
    "load_model",
    "memory_budget",
    "shape",
    "supported_ops",
    "tensor_to_array",
    "unwrap_model",
]
