"""`example-strip-traces`: remove every `example.trace` (a lamina pass plugin)."""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from lamina.passes import record_statistic
from lamina_example_plugin.dialect import TraceOp


@dataclass(frozen=True)
class StripTracesPass(ModulePass):
    name = "example-strip-traces"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for trace in [o for o in op.walk() if isinstance(o, TraceOp)]:
            trace.output.replace_all_uses_with(trace.input)
            Rewriter.erase_op(trace)
            record_statistic("traces-removed")
