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

#: The host function compiled code calls to decode an image (ONNX ImageDecoder),
#: the C ABI `int64_t lamina_image_decode(const uint8_t *data, int64_t size,
#: int32_t pixel_format, uint8_t *out, int64_t capacity, int64_t *shape)`: it
#: reads the image in `data[0..size)`, writes its `[height, width, channels]` to
#: `shape` and, unless `capacity` is 0 (a header-only call; `out` may then be
#: NULL), its pixels (uint8, height x width x channels) to `out`, which holds
#: `capacity` bytes. It returns 0, or one of `IMAGE_ERRORS`. The JIT binds it
#: to `lamina.runtime.image`'s Pillow decoder; an exported library's C runtime
#: forwards it to the decoder an application registers (`lamina.h`).
IMAGE_DECODE = "lamina_image_decode"
#: The runtime's functions compiled code may call (TVM's runtime registry):
#: `lower-tir-to-llvm` records which a model calls (`HOST_FUNCTIONS_ATTR`).
HOST_FUNCTIONS = (IMAGE_DECODE,)
#: `pixel_format` codes of `IMAGE_DECODE`, by ONNX's names (channels: 3, 3, 1).
PIXEL_FORMATS = {"RGB": 0, "BGR": 1, "Grayscale": 2}
#: `IMAGE_DECODE`'s error codes (lamina.h's `LAMINA_IMAGE_*`) and what each means.
IMAGE_UNKNOWN_FORMAT, IMAGE_CORRUPT, IMAGE_RESHAPED, IMAGE_NO_DECODER, IMAGE_FAILED = 1, 2, 3, 4, 5
IMAGE_ERRORS = {
    IMAGE_UNKNOWN_FORMAT: "not a known image format",
    IMAGE_CORRUPT: "the image data is corrupt or truncated",
    IMAGE_RESHAPED: "the decoder gave another shape than the image's header did",
    IMAGE_NO_DECODER: "no image decoder is registered with the runtime (lamina_set_image_decoder)",
    IMAGE_FAILED: "the image decoder failed",
}

#: Module attribute: the weight blob keys, in the order of the `params` table.
PARAMS_ATTR = "lamina.params"
#: Module attribute: bytes of the workspace arena `main` needs.
WORKSPACE_SIZE_ATTR = "lamina.workspace_size"
#: Module attribute: the sum of all intermediates' sizes (what the arena shares).
INTERMEDIATE_BYTES_ATTR = "lamina.intermediate_bytes"
#: Module attribute: shared libraries the BYOC-generated code calls into.
EXTERNAL_LIBRARIES_ATTR = "lamina.external_libraries"
#: Module attribute: the runtime's functions (`HOST_FUNCTIONS`) the code calls.
HOST_FUNCTIONS_ATTR = "lamina.host_functions"
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
    "HOST_FUNCTIONS",
    "HOST_FUNCTIONS_ATTR",
    "IMAGE_CORRUPT",
    "IMAGE_DECODE",
    "IMAGE_ERRORS",
    "IMAGE_FAILED",
    "IMAGE_NO_DECODER",
    "IMAGE_RESHAPED",
    "IMAGE_UNKNOWN_FORMAT",
    "INTERMEDIATE_BYTES_ATTR",
    "MAX_LOAD_STRIDE",
    "NAME_ATTR",
    "PARAMS_ATTR",
    "PIXEL_FORMATS",
    "REPLAN",
    "SIZES_ATTR",
    "TARGET_ATTR",
    "WORKSPACE_SIZE_ATTR",
]
