"""Running passes: pipelines as text or objects, under a `PassContext`.

Pipelines use xDSL's syntax (`"canonicalize,fuse-ops{max-depth=8}"`, parsed by
`PassPipeline.parse_spec`). A `PipelinePass` is a named pipeline usable as a pass
(MLIR's `PassPipelineRegistration`); `run_pipeline` expands it pass by pass, so
instruments see each pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.utils.exceptions import DiagnosticException

from lamina.errors import InternalError, LaminaError
from lamina.ir import context
from lamina.passes.context import _CURRENT_PASS, PassContext, PassInfo
from lamina.passes.registry import parse_passes, pass_opt_level


class PipelinePass(ModulePass):
    """A named pipeline usable as a pass: it expands to the passes of `names()`
    under the current `PassContext`, and `run_pipeline` runs those one by one."""

    name: ClassVar[str] = "pipeline"
    opt_level: ClassVar[int] = 0
    #: tells the registry (below this module) that this is a pipeline, not a pass
    is_pipeline: ClassVar[bool] = True

    def names(self) -> list[str]:
        raise NotImplementedError

    def expand(self) -> list[ModulePass]:
        return resolve_pipeline(",".join(self.names()))

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        run_pipeline(op, self.expand(), PassContext.current(), mlir_ctx=ctx)


def resolve_pipeline(
    pipeline: str | Sequence[ModulePass | str] | PassPipeline,
) -> list[ModulePass]:
    """Passes from xDSL pipeline text (`"cse,fuse-ops{max-depth=8}"`), a list of
    passes and/or pass texts, or a `PassPipeline`; named pipelines are expanded."""
    if isinstance(pipeline, PassPipeline):
        items: list[ModulePass | str] = list(pipeline.passes)
    elif isinstance(pipeline, str):
        items = [pipeline] if pipeline.strip() else []
    else:
        items = list(pipeline)
    out: list[ModulePass] = []
    for item in items:
        if isinstance(item, str):
            what = f"bad pass pipeline '{item}'"
            parsed: Sequence[ModulePass] = parse_passes(item, what)
        elif isinstance(item, ModulePass):
            parsed = (item,)
        else:
            raise LaminaError(f"not a pass or a pipeline: {item!r}")
        for p in parsed:
            out += p.expand() if isinstance(p, PipelinePass) else [p]
    return out


def run_pipeline(
    module: ModuleOp,
    pipeline: str | Sequence[ModulePass | str] | PassPipeline,
    ctx: PassContext | None = None,
    *,
    mlir_ctx: Context | None = None,
) -> ModuleOp:
    """Run `pipeline` on `module` in place under `ctx` (default: the current
    context) and return the module. Passes the context does not enable are
    skipped; instruments see every pass that runs."""
    ctx = ctx if ctx is not None else PassContext.current()
    mlir_ctx = mlir_ctx if mlir_ctx is not None else context()
    with ctx._active():
        passes = resolve_pipeline(pipeline)  # named pipelines expand under ctx
        for index, p in enumerate(passes):
            if not ctx.pass_enabled(p):
                continue
            info = PassInfo(p.name, pass_opt_level(p), p, index, len(passes))
            if not all(inst.should_run(module, info) for inst in ctx.instruments):
                continue
            for inst in ctx.instruments:
                inst.run_before_pass(module, info)
            token = _CURRENT_PASS.set(info)
            try:
                p.apply(mlir_ctx, module)
            except (LaminaError, DiagnosticException):
                raise
            except Exception as e:  # a bug: still a LaminaError, naming the pass
                raise InternalError(
                    f"internal error in pass '{info.name}': {type(e).__name__}: {e}; "
                    "this is a bug in lamina, please report it",
                    info.name,
                ) from e
            finally:
                _CURRENT_PASS.reset(token)
            for inst in ctx.instruments:
                inst.run_after_pass(module, info)
    return module


__all__ = ["PipelinePass", "resolve_pipeline", "run_pipeline"]
