"""The code generation layer: the llvm dialect to LLVM IR, object code and
loaded code for a target (`lamina.target`: the host, unless told).

`translate` (xDSL's llvmlite emitter with lamina's fixes), `parallel` (the thread-pool
glue of outlined parallel loops), `pool` (lamina's thread pool, LLVM IR for the target), `codegen` (LLVM IR text, optimization,
object code), `jit` (ORC's LLJIT: a lowered module's objects linked into the process) with its
on-disk object `cache`, `export` (a compiled model as one sealed shared
library: object code, weights and record, linked by the system C compiler) and
`peak` (the host's measured FMA peak). The host's CPU and its knobs are
`lamina.target` (`Target.host()`); running compiled models is `lamina.runtime`, which does not
import this package.
"""
