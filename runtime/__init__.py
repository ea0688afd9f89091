"""Running compiled models: `record` (what a model is), `model`
(`CompiledModel.run`), `library` (`load` of an exported library), `seal` (its
integrity check), `dynamic` and `workspace` (sizes bound and the arena planned
per shape).

The runtime imports no part of the compiler (no dialects, passes, lowering or
code generation, nor xDSL): `import lamina.runtime.library` is enough to run an
exported model. Compiling (`lamina.compile`) and exporting live in
`lamina.driver` and `lamina.codegen`.
"""
