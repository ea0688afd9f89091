"""lamina: an MLIR-style deep-learning compiler on xDSL.

    import lamina
    mod = lamina.from_onnx("model.onnx")         # graph-level (relay) module
    exe = lamina.compile("model.onnx")           # or compile(mod)
    exe = lamina.compile(torch_module, example_inputs=(x,))   # or from_torch(...)
    outs = exe.run(x)                            # numpy in, numpy out
    exe.export("model.so"); exe = lamina.load("model.so")
    q = lamina.quantize("model.onnx", samples)   # int8: q.model (QDQ ONNX), q.left
    lamina.tune("model.onnx", "records.jsonl", trials=500)   # auto-scheduling
    exe = lamina.compile("model.onnx", tuning_records="records.jsonl")
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from lamina.version import __version__

if TYPE_CHECKING:  # what __getattr__ gives, for type checkers
    from lamina.driver import compile
    from lamina.errors import (
        CompileError,
        FrontendError,
        InputError,
        InternalError,
        IRError,
        LaminaError,
        LoweringError,
        UnsupportedOpError,
    )
    from lamina.frontends.onnx import from_onnx
    from lamina.frontends.torch import from_torch
    from lamina.ir import context, parse, print_ir
    from lamina.passes import PassContext, run_pipeline
    from lamina.quantization import QuantizedModel, quantize
    from lamina.runtime.library import load
    from lamina.runtime.model import CompiledModel
    from lamina.tuning import tune

#: The public API, each name with the module it comes from: imported on first
#: use (PEP 562), so that `import lamina.runtime` (running an exported model)
#: does not load the compiler.
_LAZY: dict[str, str] = {
    "compile": "lamina.driver",
    "CompileError": "lamina.errors",
    "FrontendError": "lamina.errors",
    "InputError": "lamina.errors",
    "InternalError": "lamina.errors",
    "IRError": "lamina.errors",
    "LaminaError": "lamina.errors",
    "LoweringError": "lamina.errors",
    "UnsupportedOpError": "lamina.errors",
    "from_onnx": "lamina.frontends.onnx",
    "from_torch": "lamina.frontends.torch",
    "context": "lamina.ir",
    "parse": "lamina.ir",
    "print_ir": "lamina.ir",
    "PassContext": "lamina.passes",
    "run_pipeline": "lamina.passes",
    "QuantizedModel": "lamina.quantization",
    "quantize": "lamina.quantization",
    "load": "lamina.runtime.library",
    "CompiledModel": "lamina.runtime.model",
    "tune": "lamina.tuning",
}


#: Where the names that need no compiler come from: the others load the driver
#: first, which registers every pass (as `import lamina` did when it was eager).
_RUNTIME = frozenset({"lamina.errors", "lamina.runtime.library", "lamina.runtime.model"})


def __getattr__(name: str) -> Any:
    where = _LAZY.get(name)
    if where is None:
        raise AttributeError(f"module 'lamina' has no attribute '{name}'")
    # imported on first use, see _LAZY
    if where not in _RUNTIME:
        importlib.import_module("lamina.driver")
    value = getattr(importlib.import_module(where), name)
    globals()[name] = value  # later reads skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


__all__ = [
    "CompileError",
    "CompiledModel",
    "FrontendError",
    "IRError",
    "InputError",
    "InternalError",
    "LaminaError",
    "LoweringError",
    "PassContext",
    "QuantizedModel",
    "UnsupportedOpError",
    "__version__",
    "compile",
    "context",
    "from_onnx",
    "from_torch",
    "load",
    "parse",
    "print_ir",
    "quantize",
    "run_pipeline",
    "tune",
]
