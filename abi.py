"""The native ABI shared by the lowering and the runtime.

Compiled code and the runtime agree on three things, defined once here:

- buffers: every buffer the runtime hands to native code is `BUFFER_ALIGN`-byte
  aligned and followed by `BUFFER_SLACK` readable bytes, so vectorized tails may
  load (never store) past the end;
- the entry point: `void main(void **args, void **params, char *workspace)`, with
  `args` the inputs then the outputs, `params` the weights and `workspace` the
  planned arena for intermediates. The `args` slots are 8 bytes on every target
  (a pointer in the low half on a 32-bit one, all targets being little-endian),
  as are the sizes and the exit status after the buffers; `params` holds pointers;
- the names of the module attributes through which `lower-tir-to-llvm` tells
  the runtime what the entry point needs (`lamina.runtime.record.EntryABI`; its
  one encoding into them is `lamina.lowering.record`), and the exit message
  that asks the runtime to plan again.
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
#: The thread pool's team-size setter (`void (i32)`) every compiled model's
#: code reaches: the runtime sets the team size of each run through it.
SET_NUM_THREADS = "lamina_set_num_threads"

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
#: Module attribute: the sizes `main` reads from `args` (after the buffers), in order.
SIZES_ATTR = "lamina.sizes"
#: Module attribute: the data-dependent sizes `main` sets (`tir.set_size`), in
#: order, with their upper bounds (the runtime plans buffers at the bound), ""
#: for an unbounded size (planned at a capacity the runtime grows).
BOUNDS_ATTR = "lamina.bounds"
#: Module attribute: the messages `main` may stop with (`tir.check`); it writes
#: the 1-based number of the one that failed into the last `args` slot.
EXITS_ATTR = "lamina.exits"
#: Module attribute: `main`'s buffers' (first use, last use, bytes) when their
#: sizes are symbolic; the runtime plans the arena per shape from them.
DYNAMIC_PLAN_ATTR = "lamina.dynamic_plan"
#: The message of the check that an unbounded size fits its capacity: the
#: runtime plans again and reruns instead of raising it.
REPLAN = "the data asked for more memory than planned"
#: Argument/result attribute: the ONNX name of a model input or output.
NAME_ATTR = "lamina.name"

__all__ = [
    "BOUNDS_ATTR",
    "BUFFER_ALIGN",
    "BUFFER_SLACK",
    "DYNAMIC_PLAN_ATTR",
    "ENTRY",
    "EXITS_ATTR",
    "EXTERNAL_LIBRARIES_ATTR",
    "INTERMEDIATE_BYTES_ATTR",
    "MAX_LOAD_STRIDE",
    "NAME_ATTR",
    "PARAMS_ATTR",
    "REPLAN",
    "SIZES_ATTR",
    "TARGET_ATTR",
    "WORKSPACE_SIZE_ATTR",
]
