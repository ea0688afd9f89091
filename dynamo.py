"""lamina as a `torch.compile` backend: `torch.compile(model, backend="lamina")`.

    import torch
    compiled = torch.compile(model, backend="lamina")
    with torch.no_grad():
        y = compiled(x)

TorchDynamo captures `forward` as FX graphs, one per region between graph
breaks, and hands each to `backend`. A region is traced again by
`torch.export` (the weights, which dynamo passes as inputs, become the export's
buffers and so lamina's constants), decomposed to core ATen ops and imported by
lamina's torch frontend (`lamina.from_torch`); `lamina.compile` compiles it.
The callable returned runs the compiled model on torch tensors: CPU tensors go
in through `.numpy()` (no copy; the model copies them into its aligned staging
buffers) and the outputs come back through `torch.from_numpy` (no copy).

A region lamina cannot take (an op it does not convert, a dtype it does not
compile, a tensor on another device, autograd, a region that mutates its
inputs) runs as dynamo captured it, in eager torch; each such fallback, and each
graph break dynamo made, is logged once on the `lamina.dynamo` logger (a
warning) and listed by `fallbacks()`. Recompiles are dynamo's: its guards decide
when a region is captured again. A region captured with symbolic sizes
(`dynamic=True`, or dynamo's automatic dynamic shapes after a second size) is
compiled once with those sizes symbolic when `torch.export` keeps them so, and
otherwise once per concrete size.

The weights are read when a region is compiled; a region whose weights are
replaced or changed in place (a tensor's version counter) is compiled again on
its next call.

Backend options (`torch.compile(..., options={...})`): `num_threads` (default:
`torch.get_num_threads()` at each call), `opt_level` (3).

torch finds the backend by name through the `torch_dynamo_backends` entry point
that lamina's package declares; without the package installed (a source tree on
PYTHONPATH), importing this module registers it. Importing it imports torch.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from lamina.driver import compile as lamina_compile
from lamina.errors import LaminaError
from lamina.frontends.torch.context import source_of
from lamina.frontends.torch.importer import import_program
from lamina.runtime.model import CompiledModel

LOG = logging.getLogger("lamina.dynamo")

#: What was reported so far (fallbacks and graph breaks): the message, by what
#: makes it distinct (a region's place and reason, not dynamo's compile id).
_REPORTED: dict[str, str] = {}
#: dynamo's graph-break reasons already reported.
_BREAKS_SEEN: set[str] = set()


def fallbacks() -> list[str]:
    """Every fallback to eager torch (and graph break) reported so far, once each."""
    return list(_REPORTED.values())


def reset() -> None:
    """Forget the reported fallbacks (with `torch._dynamo.reset()`, to start over)."""
    _REPORTED.clear()
    _BREAKS_SEEN.clear()


def _report(message: str, key: str | None = None) -> None:
    key = message if key is None else key
    if key not in _REPORTED:
        _REPORTED[key] = message
        LOG.warning("lamina: %s", message)


def _report_graph_breaks() -> None:
    """dynamo's graph breaks since the last region, each reason once: the code
    between the regions runs in eager Python."""
    from torch._dynamo.utils import counters  # lazy: torch is optional

    for reason in list(counters.get("graph_break", {})):
        if reason not in _BREAKS_SEEN:
            _BREAKS_SEEN.add(reason)
            first = str(reason).strip().splitlines()[0] if str(reason).strip() else "?"
            _report(f"graph break (the code there runs in eager torch): {first}")


class FallBack(Exception):
    """Why a region runs in eager torch."""


def backend(gm: Any, example_inputs: Sequence[Any], options: dict[str, Any] | None = None) -> Callable[..., Any]:
    """The `torch.compile` backend: a region's FX graph and example inputs ->
    the callable that runs it (lamina's compiled model, or the graph itself
    where lamina cannot take it). The region is compiled on its first call,
    outside dynamo's trace (a `torch.export` inside it would inherit dynamo's
    guards)."""
    _report_graph_breaks()
    try:
        region = Region(gm, example_inputs, dict(options or {}))
    except Exception as e:  # a bug here must not fail the user's model
        LOG.debug("lamina: the backend failed", exc_info=True)
        _report(f"{_region_name(gm)[0]} runs in eager torch: the backend failed: {type(e).__name__}: {_first(e)}")
        return gm.forward
    return region if region.ok else gm.forward


class Region:
    """One region: its inputs sorted into weights (compiled in as constants),
    tensors and sizes, and the compiled model(s) that run it."""

    def __init__(self, gm: Any, example_inputs: Sequence[Any], options: dict[str, Any]) -> None:
        import torch  # lazy: torch is optional

        self.gm = gm
        self.options = options
        self.placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
        self.name, self.where = _region_name(gm)
        self.weights: list[int] = []  # input positions of parameters and buffers
        self.tensors: list[int] = []  # the others that are tensors
        self.sizes: dict[int, tuple[int, int]] = {}  # a size input -> (tensor input, axis)
        self.exes: dict[Any, CompiledModel | None] = {}  # per input shape (or None: symbolic)
        self.versions: list[tuple[Any, int]] = []
        self.dynamic: Any = None  # the export's dynamic_shapes, when the sizes stay symbolic
        self.dim_names: dict[tuple[int, int], str] = {}
        self.ok = True
        try:
            if len(self.placeholders) != len(example_inputs):
                raise FallBack("dynamo passed inputs the graph does not take")
            self._sort(example_inputs, torch)
            if torch.is_grad_enabled() and any(
                isinstance(a, torch.Tensor) and a.requires_grad for a in example_inputs
            ):
                raise FallBack(
                    "autograd is on and inputs require grad; lamina compiles inference "
                    "(run under torch.no_grad() or torch.inference_mode())"
                )
        except FallBack as e:
            self._fall_back(str(e))

    def _sort(self, example_inputs: Sequence[Any], torch: Any) -> None:
        from torch._dynamo.source import (  # lazy: torch is optional
            ParamBufferSource,
            is_from_unspecialized_param_buffer_source,
        )

        for i, (node, ex) in enumerate(zip(self.placeholders, example_inputs, strict=True)):
            grapharg = node.meta.get("grapharg")
            source = getattr(grapharg, "source", None)
            if isinstance(ex, torch.Tensor):
                if ex.device.type != "cpu":
                    raise FallBack(f"input '{node.name}' is on {ex.device}; lamina runs on the CPU")
                if ex.layout != torch.strided or ex.is_quantized:
                    raise FallBack(f"input '{node.name}' is a {ex.layout} tensor")
                is_weight = isinstance(ex, torch.nn.Parameter) or (
                    source is not None
                    and (
                        is_from_unspecialized_param_buffer_source(source)
                        or _chain_has(source, ParamBufferSource)
                    )
                )
                (self.weights if is_weight else self.tensors).append(i)
            elif isinstance(ex, int | torch.SymInt):
                self.sizes[i] = (-1, -1)
            else:
                raise FallBack(f"input '{node.name}' is a {type(ex).__name__}, not a tensor or a size")
        self._plan_dynamic(torch)

    def _plan_dynamic(self, torch: Any) -> None:
        """The export's `dynamic_shapes` when the captured graph has symbolic
        sizes that are all whole dims of its tensor inputs (each size input read
        off one of them); else None: compiled per concrete shape."""
        dims: dict[str, Any] = {}
        where: dict[str, tuple[int, int]] = {}
        specs: list[dict[int, Any]] = []
        for k, i in enumerate(self.tensors):
            fake = self.placeholders[i].meta.get("example_value")
            spec: dict[int, Any] = {}
            for axis, d in enumerate(getattr(fake, "shape", ())):
                if not isinstance(d, torch.SymInt):
                    continue
                expr = d.node.expr
                if not getattr(expr, "is_Symbol", False):
                    return  # a derived size: per concrete shape
                name = str(expr)
                if name not in dims:
                    vr = d.node.shape_env.var_to_range.get(expr)
                    lower, upper = (_bound(vr.lower), _bound(vr.upper)) if vr else (None, None)
                    dims[name] = torch.export.Dim(_ident(name), min=lower, max=upper)
                    where[name] = (k, axis)
                spec[axis] = dims[name]
            specs.append(spec)
        for i in self.sizes:
            val = self.placeholders[i].meta.get("example_value")
            expr = getattr(getattr(val, "node", None), "expr", None)
            if expr is None or str(expr) not in where:
                self.sizes = dict.fromkeys(self.sizes, (-1, -1))
                return
            self.sizes[i] = where[str(expr)]
        if dims:
            self.dynamic = tuple(s or None for s in specs)
            self.dim_names = {(k, axis): d.__name__ for k, s in enumerate(specs) for axis, d in s.items()}

    def _fall_back(self, reason: str) -> None:
        self.ok = False
        self._report(reason)

    def _report(self, reason: str) -> None:
        _report(f"{self.name} runs in eager torch: {reason}", f"{self.where}: {reason}")

    def _key(self, args: Sequence[Any]) -> Any:
        if self.dynamic is not None:
            return None
        return tuple(
            (tuple(a.shape), a.dtype) if i in self.tensors else int(a)
            for i, a in enumerate(args)
            if i not in self.weights
        )

    def _compiled(self, args: Sequence[Any], torch: Any) -> CompiledModel | None:
        """The compiled model for `args` (compiled on first use); None: eager."""
        key = self._key(args)
        if key in self.exes:
            return self.exes[key]
        try:
            exe = self._compile(args, torch)
        except FallBack as e:
            if self.dynamic is None or not str(e).startswith("torch.export"):
                if not self.exes:
                    self.ok = False
                self._report(str(e))
                exe = None
            else:  # the sizes do not stay symbolic: per concrete shape
                LOG.info("lamina: %s: compiled per shape (%s)", self.name, e)
                self.dynamic = None
                return self._compiled(args, torch)
        self.exes[key] = exe
        self.versions = [(args[i], args[i]._version) for i in self.weights]
        return exe

    def _compile(self, args: Sequence[Any], torch: Any) -> CompiledModel:
        wrapper = _Wrapper(self, args, torch)
        user = tuple(args[i].detach() for i in self.tensors)
        try:
            program = torch.export.export(wrapper, user, dynamic_shapes=self.dynamic, strict=False)
        except Exception as e:
            raise FallBack(f"torch.export cannot trace it: {type(e).__name__}: {_first(e)}") from None
        try:
            program = program.run_decompositions()
            sig = program.graph_signature
            if sig.buffers_to_mutate or sig.user_inputs_to_mutate:
                raise FallBack(
                    "it changes its inputs or weights in place (a model in training mode?)"
                )
            module = import_program(program, self.dim_names if self.dynamic is not None else {})
            return lamina_compile(module, opt_level=int(self.options.get("opt_level", 3)))
        except FallBack:
            raise
        except LaminaError as e:
            raise FallBack(f"{type(e).__name__}: {e}") from None
        except Exception as e:  # torch's decompositions
            LOG.debug("lamina: %s", self.name, exc_info=True)
            raise FallBack(f"{type(e).__name__}: {_first(e)}") from None

    def __call__(self, *args: Any) -> Any:
        import torch  # lazy: torch is optional

        if not self.ok:
            return self.gm.forward(*args)
        if self.versions and any(
            args[i] is not t or t._version != v
            for i, (t, v) in zip(self.weights, self.versions, strict=True)
        ):
            LOG.info("lamina: %s: its weights changed, compiling it again", self.name)
            self.exes.clear()
        exe = self._compiled(args, torch)
        if exe is None:
            return self.gm.forward(*args)
        threads = self.options.get("num_threads") or torch.get_num_threads()
        if exe.num_threads != threads:
            exe.num_threads = threads
        outs = exe.run(*[_numpy(args[i]) for i in self.tensors])
        return tuple(torch.from_numpy(o) for o in outs)


def _Wrapper(region: Region, args: Sequence[Any], torch: Any) -> Any:
    """An `nn.Module` over the region's tensor inputs: its weights are buffers
    (constants to lamina), its size inputs read off the tensors' shapes (or the
    values they have in `args`). `forward` takes one parameter per tensor input,
    named after the graph's placeholder (the names of the compiled model's
    inputs; torch.export handles named parameters best)."""

    class Wrapper(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.gm = region.gm
            self.names: dict[int, str] = {}
            for k, i in enumerate(region.weights):
                name = f"w{k}_{_ident(region.placeholders[i].name)}"[:60]
                self.register_buffer(name, args[i].detach(), persistent=False)
                self.names[i] = name

        def run(self, user: Sequence[Any]) -> Any:
            full: list[Any] = []
            pos = {i: k for k, i in enumerate(region.tensors)}
            for i in range(len(region.placeholders)):
                if i in self.names:
                    full.append(getattr(self, self.names[i]))
                elif i in pos:
                    full.append(user[pos[i]])
                else:
                    k, axis = region.sizes[i]
                    full.append(user[k].shape[axis] if k >= 0 else int(args[i]))
            # Interpreted node by node under preserve_node_meta, the export's
            # nodes keep the stack traces of the user's code dynamo recorded.
            with torch.fx.traceback.preserve_node_meta():
                return tuple(torch.fx.Interpreter(self.gm).run(*full))

    params = _input_names([region.placeholders[i].name for i in region.tensors])
    ns: dict[str, Any] = {}
    exec(  # a signature of named parameters (no *args)
        f"def forward(self, {', '.join(params)}):\n    return self.run(({''.join(p + ', ' for p in params)}))\n",
        ns,
    )
    Wrapper.forward = ns["forward"]
    return Wrapper()


def _input_names(placeholders: Sequence[str]) -> list[str]:
    """Parameter names for dynamo's placeholders: `l_x_` (its name for the
    local `x`) -> `x`; `input_{k}` where that is no new identifier."""
    import keyword

    names: list[str] = []
    for k, p in enumerate(placeholders):
        m = re.fullmatch(r"l_(?:args_|kwargs_)?(\w+?)_", p, flags=re.IGNORECASE)
        name = m.group(1) if m else ""
        ok = name.isidentifier() and not keyword.iskeyword(name) and name not in ("self", "run")
        names.append(name if ok and name not in names else f"input_{k}")
    return names


def _numpy(t: Any) -> np.ndarray:
    """A CPU tensor's data as a numpy array, sharing memory."""
    return t.detach().numpy() if not t.is_conj() and not t.is_neg() else t.resolve_conj().resolve_neg().numpy()


def _chain_has(source: Any, kind: type) -> bool:
    while source is not None:
        if isinstance(source, kind):
            return True
        source = getattr(source, "base", None)
    return False


def _region_name(gm: Any) -> tuple[str, str]:
    """`region 0/1 (model.py:12 in forward)`: dynamo's compile id and where the
    region's first op comes from; and that place alone (`model.py:12 in
    forward`, or the graph's ops where the code is torch's own)."""
    try:
        from torch._guards import CompileContext  # lazy: torch is optional

        cid = CompileContext.current_compile_id()
    except Exception:
        cid = None
    calls = [n for n in gm.graph.nodes if n.op in ("call_function", "call_module", "call_method")]
    where = next((s.split(": ")[0] for s in map(source_of, calls) if s), "")
    at = f" ({where})" if where else ""
    if not where:
        where = " ".join(n.name for n in calls[:8])
    return (f"region {cid}{at}" if cid is not None else f"region{at}"), where


def _bound(v: Any) -> int | None:
    """A range's end as an int; None for an infinite one (torch's `int_oo`
    says it is finite, and cannot be converted)."""
    try:
        n = int(v)
    except Exception:
        return None
    return n if abs(n) < 2**62 else None


def _ident(name: str) -> str:
    s = re.sub(r"\W", "_", name)
    return s if s and not s[0].isdigit() else f"d_{s}"


def _first(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def register() -> None:
    """Register the backend as "lamina" with torch, unless torch finds it
    itself (through the package's entry point) or has it already."""
    from importlib.metadata import entry_points

    from torch._dynamo.backends.registry import (  # lazy: torch is optional
        _COMPILER_FNS,
        register_backend,
    )

    if "lamina" in _COMPILER_FNS:
        return
    if "lamina" in entry_points(group="torch_dynamo_backends").names:
        return  # torch loads it by the entry point (registering it twice fails)
    register_backend(compiler_fn=backend, name="lamina")


register()

__all__ = ["FallBack", "Region", "backend", "fallbacks", "register", "reset"]
