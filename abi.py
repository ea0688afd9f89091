"""The native ABI shared by the lowering and the runtime.

Compiled code and the runtime agree on three things, defined once here:

- buffers: every buffer the runtime hands to native code is `BUFFER_ALIGN`-byte
  aligned and followed by `BUFFER_SLACK` readable bytes, so vectorized tails may
  load (never store) past the end;
- the entry point: `void main(void **args, void **params, char *workspace)`, with
  `args` the inputs then the outputs, `params` the weights and `workspace` the
  planned arena for intermediates;
- the module attributes through which `lower-tir-to-llvm` tells the runtime what
  the entry point needs.
"""

from __future__ import annotations

#: Alignment, in bytes, of every buffer passed to native code.
BUFFER_ALIGN = 64
#: Readable bytes after every buffer (vector tails may load them).
BUFFER_SLACK = 256
#: The largest lane stride of a vector load: `tir-vectorize` reads `stride x
#: lanes` contiguous elements and keeps every `stride`-th (a stride-2 window).
MAX_LOAD_STRIDE = 4
#: The native entry point of a compiled model.
ENTRY = "main"

#: Module attribute: the weight blob keys, in the order of the `params` table.
PARAMS_ATTR = "lamina.params"
#: Module attribute: bytes of the workspace arena `main` needs.
WORKSPACE_SIZE_ATTR = "lamina.workspace_size"
#: Module attribute: the sum of all intermediates' sizes (what the arena shares).
INTERMEDIATE_BYTES_ATTR = "lamina.intermediate_bytes"
#: Module attribute: shared libraries the BYOC-generated code calls into.
EXTERNAL_LIBRARIES_ATTR = "lamina.external_libraries"
#: Module attribute: the target (its string form) the module was lowered for.
TARGET_ATTR = "lamina.target_spec"
#: Argument/result attribute: the ONNX name of a model input or output.
NAME_ATTR = "lamina.name"

__all__ = [
    "BUFFER_ALIGN",
    "BUFFER_SLACK",
    "ENTRY",
    "EXTERNAL_LIBRARIES_ATTR",
    "INTERMEDIATE_BYTES_ATTR",
    "MAX_LOAD_STRIDE",
    "NAME_ATTR",
    "PARAMS_ATTR",
    "TARGET_ATTR",
    "WORKSPACE_SIZE_ATTR",
]
