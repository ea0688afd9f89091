"""The target layer: the llvm dialect to LLVM IR and object code for the host.

`translate` (xDSL's llvmlite emitter with lamina's fixes), `parallel` (the libgomp
glue of outlined parallel loops) and `codegen` (LLVM IR text, optimization,
object code). The host's CPU and its knobs are `lamina.host`.
"""
