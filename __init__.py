"""lamina: an MLIR-style deep-learning compiler on xDSL.

    import lamina
    mod = lamina.from_onnx("model.onnx")         # graph-level (relay) module
    exe = lamina.compile("model.onnx")           # or compile(mod)
    outs = exe.run(x)                            # numpy in, numpy out
    exe.export("model.so"); exe = lamina.load("model.so")
    q = lamina.quantize("model.onnx", samples)   # int8: q.model (QDQ ONNX), q.left
    lamina.tune("model.onnx", "records.jsonl", trials=500)   # auto-scheduling
    exe = lamina.compile("model.onnx", tuning_records="records.jsonl")
"""

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
from lamina.ir import context, parse, print_ir
from lamina.passes import PassContext, run_pipeline
from lamina.quantization import QuantizedModel, quantize
from lamina.runtime.library import load
from lamina.runtime.model import CompiledModel
from lamina.tuning import tune
from lamina.version import __version__

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
    "load",
    "parse",
    "print_ir",
    "quantize",
    "run_pipeline",
    "tune",
]
