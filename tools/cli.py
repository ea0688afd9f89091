"""`lamina`: compile, run, benchmark and draw whole models from the command line.

    lamina compile MODEL.onnx -o OUT.so [--opt-level N] [--target NAME[,NAME]]
                   [--threads N] [--print-ir-after PASS|all] [--time-passes]
    lamina compile MODEL.onnx --emit relay|te|tir|llvm [-o FILE] [--print-resources]
    lamina run MODEL.onnx|OUT.so [--input NAME=FILE.npy|FILE.npz ...] [--output OUT.npz|OUT.npy]
    lamina bench MODEL [--compare onnxruntime] [--threads 1,2] [--runs N] [--profile]
    lamina viz MODEL.onnx|FILE.mlir -o FILE.dot|FILE.svg|FILE.png [--pipeline P]
    lamina quantize MODEL.onnx --calibration DIR|FILE.npz -o Q.onnx|Q.mlir
                    [--calibrate minmax|percentile|kl] [--per-tensor] [--skip NAME ...]
    lamina tune MODEL -o RECORDS.jsonl [--trials N] [--time-budget 10m] [--runner local|ray]
    lamina tune --report RECORDS.jsonl
    lamina demo [--save-model FILE.onnx] [--save-mlp FILE.onnx]

User errors print one line (`lamina: error: ...`) and exit 1; usage errors exit 2;
`--debug` shows the traceback. Output files are written atomically; SIGINT exits
130 and SIGTERM 143, after `with` blocks have removed their temporary files.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import shutil
import signal
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table
from xdsl.dialects.builtin import ModuleOp

from lamina.codegen.artifact import WASM_MAGIC, is_wasm, library_metadata, run_artifact
from lamina.codegen.codegen import llvm_ir
from lamina.codegen.descriptor import include_dir
from lamina.codegen.peak import describe_host, peak_gflops, stream_gbps
from lamina.dialects.resources import DEFAULT_ELIDE_LIMIT
from lamina.driver import compile as lamina_compile
from lamina.errors import FrontendError, LaminaError
from lamina.fileio import check_writable, write_atomic
from lamina.frontends.onnx import from_onnx
from lamina.ir import parse, print_ir
from lamina.passes import (
    PassContext,
    PassInstrument,
    TimingInstrument,
    all_passes,
    run_pipeline,
)
from lamina.pipelines import lower_to, standard_pipeline
from lamina.runtime.library import elf_machine, library_architecture, load
from lamina.runtime.model import CompiledModel
from lamina.runtime.record import ModelRecord
from lamina.tools import arguments, demo, viz
from lamina.tools.demo import mlp_model
from lamina.tools.inputs import model_inputs
from lamina.tools.models import resnet_mini
from lamina.tools.profile import KernelTime, by_class, profile, top
from lamina.tools.quantize import add_parser as add_quantize_parser
from lamina.tools.quantize import cmd_quantize
from lamina.tools.report import CompileProgress, console, fmt_ms, measure, timing_table
from lamina.tools.signals import Terminated, check_signals, release, signals_raise
from lamina.tools.tune import add_parser as add_tune_parser
from lamina.tools.tune import cmd_tune, notes_printed
from lamina.tuning import load_records
from lamina.version import __version__

LEVELS = ("relay", "te", "tir", "llvm")
ELF_MAGIC = b"\x7fELF"

__all__ = ["LEVELS", "emit", "main", "parser", "write_atomic"]


# ------------------------------------------------------------------ model files
def _kind(path: Path) -> str:
    """'library', 'mlir' or 'onnx': what the file at `path` holds."""
    if path.suffix == ".mlir":
        return "mlir"
    try:
        with path.open("rb") as f:
            head = f.read(4)
    except OSError:
        head = b""
    if head == WASM_MAGIC or path.suffix == ".wasm":
        return "library"
    return "library" if head == ELF_MAGIC or path.suffix == ".so" else "onnx"


def _describe(kind: str) -> str:
    return {"library": "library", "mlir": "IR file", "onnx": "ONNX model"}[kind]


def model_file(path: str, allowed: Sequence[str]) -> tuple[Path, str]:
    """`path` and its kind, after checking that it is a readable file of an
    `allowed` kind; else a LaminaError that says what to give instead."""
    p = Path(path)
    kind = _kind(p)
    what = _describe(kind)
    if not p.exists():
        raise LaminaError(f"cannot read {what} '{p}': no such file")
    if p.is_dir():
        raise LaminaError(
            f"cannot read {what} '{p}': it is a directory; give the model file"
        )
    if not os.access(p, os.R_OK):
        raise LaminaError(f"cannot read {what} '{p}': permission denied")
    if kind not in allowed:
        names = " or ".join(
            {"onnx": "an ONNX model", "mlir": "a .mlir file", "library": "a .so"}[k]
            for k in allowed
        )
        raise LaminaError(f"cannot use {what} '{p}' here: give {names}")
    return p, kind


def load_module(path: Path, kind: str, shapes: dict[str, list[int]] | None) -> ModuleOp:
    """The graph-level module of an ONNX model or a .mlir file. The importer's
    advice names its Python argument `input_shapes=`; here it is `--input-shape`."""
    if kind == "mlir":
        return parse(path.read_text(), name=str(path))
    try:
        return from_onnx(str(path), shapes)
    except FrontendError as e:
        message = _cli_wording(e, path)
        if message == str(e):
            raise
        raise FrontendError(message) from e


def _cli_wording(e: FrontendError, path: Path | None) -> str:
    """The message of an import error, with the command line's flag in its advice."""
    name = getattr(e, "input_name", None)
    dims = getattr(e, "input_dims", None)
    if isinstance(name, str) and isinstance(dims, list):
        axes = [(i, d) for i, d in enumerate(dims) if not isinstance(d, int)]
        which = ", ".join(f"'{d}' (axis {i})" for i, d in axes)
        example = ",".join(str(d) if isinstance(d, int) else "1" for d in dims)
        where = f" of '{path}'" if path else ""
        return (
            f"input '{name}'{where} has {'a ' if len(axes) == 1 else ''}symbolic "
            f"dimension{'s' if len(axes) > 1 else ''} {which}; give its shape with "
            f"--input-shape {name}=D1,D2,... (e.g. --input-shape {name}={example})"
        )
    message = str(e)
    if message.startswith("input_shapes "):  # the value of --input-shape is wrong
        return message.replace("input_shapes", "--input-shape")
    return message


def compile_model(
    path: Path,
    kind: str,
    args: argparse.Namespace,
    instruments: Sequence[PassInstrument] = (),
    num_threads: int | None = None,
    jit: bool = True,
) -> CompiledModel:
    """Load a library, or compile an ONNX model / .mlir file with the command's
    options (`--opt-level`, `--target`, `--threads`, `--input-shape`,
    `--tuning-records`)."""
    threads = num_threads if num_threads is not None else getattr(args, "threads", None)
    records_path = getattr(args, "tuning_records", None)
    if kind == "library":
        if records_path:
            raise LaminaError("--tuning-records applies when compiling; a library is compiled already")
        exe = load(path)
    else:
        module = load_module(path, kind, arguments.shapes(getattr(args, "input_shape", [])))
        err = console(sys.stderr)
        with notes_printed(err):
            records = load_records(records_path) if records_path else None
        progress = None
        if not instruments and sys.stderr.isatty():  # a bar for long compiles
            total = len(standard_pipeline(args.opt_level))
            progress = CompileProgress(console(sys.stderr), total)
            instruments = [progress]
        with notes_printed(err), progress.shown() if progress else contextlib.nullcontext():
            exe = lamina_compile(
                module,
                opt_level=args.opt_level,
                targets=tuple(getattr(args, "byoc", None) or ()),
                num_threads=threads,
                pass_context=arguments.pass_context(args, instruments),
                tuning_records=records,
                jit=jit,
            )
        check_signals()  # one that arrived during LLVM code generation
        if records is not None:
            err.print(
                f"tuned schedules from {records_path} applied to {len(records.applied)} "
                f"kernel(s) ({len(records.best())} workload(s) measured on this CPU)", highlight=False,
            )
    if threads is not None:
        exe.num_threads = threads  # the team size of parallel loops, per run
    return exe


# -------------------------------------------------------------------- compile
def emit(
    module: ModuleOp, level: str, ctx: PassContext, resources_limit: int | None = -1
) -> str:
    """The module's IR after the graph optimizations of `ctx` and lowering to
    `level`, as text; weights as `lamina.print_ir`'s `resources_limit` says (-1:
    those above 1 KiB elided, None: all; LLVM IR never holds them)."""
    lower_to(module, level, ctx)
    return llvm_ir(module) if level == "llvm" else print_ir(module, resources_limit=resources_limit)


def _size(path: Path) -> str:
    n = path.stat().st_size
    return f"{n / 1024:.1f} KiB" if n < 1 << 20 else f"{n / (1 << 20):.1f} MiB"


#: what `lamina compile -o FILE` refuses to write a library to, by suffix
NOT_A_LIBRARY = {".mlir": "MLIR text", ".ll": "LLVM IR text", ".onnx": "an ONNX model",
                 ".npy": "a numpy array", ".npz": "numpy arrays"}


def _check_compile_output(args: argparse.Namespace) -> None:
    """Refuse an output whose name says it holds something else than what
    `compile` would write there, and flags that do not apply."""
    if args.emit is None and not args.output:
        raise LaminaError(
            "no output: give -o OUT.so to write a shared library, or --emit "
            f"{'|'.join(LEVELS)} to print the IR of a level"
        )
    suffix = Path(args.output or "").suffix.lower()
    if args.emit is None and suffix in NOT_A_LIBRARY:
        ir = "llvm" if suffix == ".ll" else "relay|te|tir"
        raise LaminaError(
            f"cannot write a shared library to '{args.output}': the name says "
            f"{NOT_A_LIBRARY[suffix]}; give -o OUT.so, or add --emit {ir} to write IR"
        )
    if args.emit is not None and suffix in (".so", ".onnx"):
        raise LaminaError(
            f"cannot write {args.emit} IR to '{args.output}': --emit writes text; "
            f"give -o FILE.{'ll' if args.emit == 'llvm' else 'mlir'}, or drop --emit "
            "to write a shared library"
        )
    if args.print_resources and args.emit in (None, "llvm"):
        why = "LLVM IR takes them as run-time parameters: use another level"
        raise LaminaError(
            "--print-resources prints the weights of --emit relay|te|tir's IR; "
            + (why if args.emit else "add --emit LEVEL (a library always holds its weights)")
        )


def cmd_compile(args: argparse.Namespace) -> int:
    """`lamina compile`: a shared library (-o OUT.so), or the IR of a level (--emit).

    `--emit LEVEL -o FILE` writes the weights into FILE (a file that compiles
    again); to stdout, weights above 1 KiB are elided unless `--print-resources`.
    """
    path, kind = model_file(args.model, ("onnx", "mlir"))
    _check_compile_output(args)
    if args.output:
        check_writable(args.output)
    err = console(sys.stderr)
    timing = TimingInstrument()
    extra: list[tuple[str, float]] = []
    if args.emit is not None:
        if args.byoc:
            raise LaminaError(
                "--emit does not run BYOC partitioning yet; drop --byoc, or use "
                "lamina-opt with the partitioning passes"
            )
        module = load_module(path, kind, arguments.shapes(args.input_shape))
        ctx = arguments.pass_context(args, [timing] if args.time_passes else [])
        full = args.print_resources or args.output
        text = emit(module, args.emit, ctx, None if full else DEFAULT_ELIDE_LIMIT)
        if args.output:
            write_atomic(args.output, text)
            print(f"wrote {args.emit} IR to {args.output}")
        else:
            sys.stdout.write(text)
    else:
        t0 = time.perf_counter()
        total = len(standard_pipeline(PassContext(opt_level=args.opt_level)))
        progress = CompileProgress(err, total)
        with progress.shown():
            # (not loaded here: export generates the library's code, once)
            exe = compile_model(path, kind, args, [progress, timing], jit=False)
            t1 = time.perf_counter()
            if exe.runnable:  # (code for another machine is generated by export)
                extra.append(("LLVM code generation (JIT)", t1 - progress.last_end))
            progress.step("export (object code + link)")
            exe.export(args.output, args.name)
            extra.append(("export (LLVM object code, link)", time.perf_counter() - t1))
        out = Path(args.output)
        print(
            f"compiled {path.name} in {time.perf_counter() - t0:.2f} s -> {out} "
            f"({_size(out)})"
        )
        print("  inputs:  " + ", ".join(s.describe() for s in exe.inputs))
        print("  outputs: " + ", ".join(s.describe() for s in exe.outputs))
    if args.time_passes:
        err.print(timing_table(timing, extra))
    return 0


# ------------------------------------------------------------------------ run
def cmd_run(args: argparse.Namespace) -> int:
    """`lamina run`: run a model or library on .npy/.npz inputs (random if none);
    a library of another architecture runs under qemu-user, a WebAssembly
    module in wasmtime (`run_artifact`)."""
    path, kind = model_file(args.model, ("onnx", "mlir", "library"))
    npy = bool(args.output) and Path(args.output).suffix.lower() == ".npy"
    if args.output:
        check_writable(args.output)
    foreign = kind == "library" and (
        is_wasm(path) or library_architecture(path) != elf_machine(None)
    )
    model: CompiledModel | ModelRecord
    if foreign:
        model = ModelRecord.from_json(library_metadata(path))
    else:
        model = compile_model(path, kind, args)
    output_names = [s.name for s in model.outputs]
    if npy and len(output_names) != 1:
        raise LaminaError(
            f"cannot write {len(output_names)} outputs "
            f"({', '.join(output_names)}) to one .npy file '{args.output}': give "
            "--output OUT.npz (one array per output name)"
        )
    inputs = model_inputs(model, args.input)
    if isinstance(model, CompiledModel):
        outs = model.run(**inputs)
    else:
        outs = run_artifact(path, inputs, args.threads)
    for spec, value in zip(model.outputs, outs, strict=True):
        flat = value.reshape(-1)
        preview = np.array2string(flat[:8], precision=4, separator=", ")
        print(f"{spec.describe()} = {preview}{' ...' if flat.size > 8 else ''}")
    if args.output:
        buf = io.BytesIO()
        if npy:
            np.save(buf, outs[0], allow_pickle=False)
            print_as = f"output '{output_names[0]}'"
        else:
            np.savez(buf, **dict(zip(output_names, outs, strict=True)))
            print_as = f"{len(outs)} output(s)"
        write_atomic(args.output, buf.getvalue())
        print(f"wrote {print_as} to {args.output}")
    return 0


# ---------------------------------------------------------------------- bench
def _ort_session(path: Path, threads: int) -> Any:
    try:  # an optional dependency: imported only when asked for
        import onnxruntime as ort
    except ImportError:
        raise LaminaError(
            "--compare onnxruntime needs onnxruntime; install it with "
            "`pip install onnxruntime`"
        ) from None
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.log_severity_level = 3
    try:
        return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
    except Exception as e:
        raise LaminaError(f"onnxruntime cannot load '{path}': {e}") from None


def cmd_bench(args: argparse.Namespace) -> int:
    """`lamina bench`: latency and throughput per thread count, against
    onnxruntime measured in the same run with `--compare onnxruntime`."""
    path, kind = model_file(args.model, ("onnx", "mlir", "library"))
    if args.compare and kind != "onnx":
        raise LaminaError(
            f"--compare {args.compare} needs the ONNX model, not a {_describe(kind)}"
        )
    out = console()
    threads = args.threads or [1]
    table = Table(
        title=f"lamina bench {path.name}", title_justify="left", caption=f"host: {describe_host()}"
    )
    for col in ("engine", "threads", "median", "p10", "p90", "inferences/s"):
        table.add_column(col, justify="left" if col == "engine" else "right")
    if args.compare:
        table.add_column("vs onnxruntime", justify="right")
    t0 = time.perf_counter()
    exe = compile_model(path, kind, args, num_threads=threads[0])
    verb = "loaded" if kind == "library" else "compiled"
    inputs = model_inputs(exe, args.input, quiet=True)
    out.print(
        f"{verb} {path.name} in {time.perf_counter() - t0:.2f} s; inputs: "
        + ", ".join(s.describe() for s in exe.inputs)
        + (" (random)" if not args.input else "")
    )
    notes: list[str] = []
    for t in threads:
        exe.num_threads = t
        ins = inputs
        lam = measure(lambda ins=ins: exe.run(**ins), args.runs, args.warmup)
        notes.append(f"{t} thread(s): {len(lam)} timed runs after {args.warmup} warm-up")
        rows = [("lamina", lam)]
        if args.compare:
            sess = _ort_session(path, t)
            feeds = dict(ins)
            if t == threads[0]:
                ref, ours = sess.run(None, feeds), exe.run(**ins)
                diff = max(
                    float(np.max(np.abs(np.asarray(a, np.float64) - np.asarray(b, np.float64))))
                    if np.asarray(a).size
                    else 0.0
                    for a, b in zip(ours, ref, strict=True)
                )
                notes.insert(0, f"max |lamina - onnxruntime| over the outputs: {diff:.3g}")
            rows.append(
                ("onnxruntime", measure(lambda s=sess, f=feeds: s.run(None, f), args.runs, args.warmup))
            )
        ort_median = float(np.median(rows[-1][1])) if args.compare else None
        for engine, ms in rows:
            median = float(np.median(ms))
            cells = [
                engine,
                str(t),
                fmt_ms(median),
                fmt_ms(float(np.percentile(ms, 10))),
                fmt_ms(float(np.percentile(ms, 90))),
                f"{1e3 / median:.1f}",
            ]
            if ort_median is not None:
                cells.append(f"{median / ort_median:.2f}x")
            table.add_row(*cells)
    out.print(table)
    for note in notes:
        out.print("  " + note)
    if args.compare:
        out.print("  vs onnxruntime: median latency / onnxruntime's (below 1 is faster)")
    if args.profile:
        _print_profile(args, path, kind, threads[0], inputs, out)
    return 0


def _print_profile(
    args: argparse.Namespace,
    path: Path,
    kind: str,
    threads: int,
    inputs: dict[str, np.ndarray],
    out: Console,
) -> None:
    """Per-kernel times (`bench --profile`), from a build with ticks between
    kernel calls (see `lamina.tools.profile`)."""
    if kind == "library":
        raise LaminaError("--profile needs the ONNX model or .mlir file, not a library")
    module = load_module(path, kind, arguments.shapes(args.input_shape))

    def build(ctx: PassContext) -> CompiledModel:
        exe = lamina_compile(
            module,
            opt_level=args.opt_level,
            targets=tuple(args.byoc),
            target=args.hardware,
            num_threads=threads,
            pass_context=ctx,
            tuning_records=args.tuning_records,
        )
        exe.num_threads = threads
        return exe

    kernels = profile(build, args.opt_level, inputs, args.runs or 10)
    peak = peak_gflops() * threads
    columns = ("calls", "time", "share", "GFLOP/s", "of peak", "of roofline")

    def row(k: KernelTime) -> list[str]:
        roof = k.roofline(peak, stream_gbps)
        return [
            str(k.calls), fmt_ms(k.median_ms), f"{100 * k.share:.1f}%",
            f"{k.gflops:.1f}" if k.flops else "-", f"{100 * k.gflops / peak:.0f}%" if k.flops else "-",
            f"{100 * k.gflops / roof:.0f}%" if roof else "-",
        ]

    table = Table(
        title=f"Kernels ({threads} thread(s), median per inference)", title_justify="left"
    )
    for col in ("kernel", *columns):
        table.add_column(col, justify="left" if col == "kernel" else "right")
    shown = top(kernels, args.top)
    for k in shown:
        table.add_row(k.name, *row(k))
    if len(kernels) > len(shown):
        rest = kernels[len(shown):]
        table.add_row(
            f"({len(rest)} more)",
            str(sum(k.calls for k in rest)),
            fmt_ms(sum(k.median_ms for k in rest)),
            f"{100 * sum(k.share for k in rest):.1f}%",
        )
    out.print(table)
    classes = Table(title="By op class", title_justify="left")
    for col in ("class", *columns):
        classes.add_column(col, justify="left" if col == "class" else "right")
    for k in by_class(kernels):
        classes.add_row(k.name, *row(k))
    out.print(classes)
    out.print(
        f"  peak: {peak:.0f} GFLOP/s ({threads} thread(s) x the measured f32 peak); one "
        f"thread's copy: {stream_gbps(1):.0f} GB/s in cache, {stream_gbps(4 << 20):.0f} GB/s in "
        f"the last-level cache, {stream_gbps():.0f} GB/s from memory. 'of roofline' is GFLOP/s "
        "over the most the kernel's flops per byte of inputs and outputs allow, min(peak, "
        "flops/bytes x bandwidth for data of its size): a low figure is a kernel to look at."
    )


# ------------------------------------------------------------------------ viz
def cmd_viz(args: argparse.Namespace) -> int:
    """`lamina viz`: draw the graph after a pipeline as DOT, SVG or PNG."""
    path, kind = model_file(args.model, ("onnx", "mlir"))
    target = check_writable(args.output)
    fmt = target.suffix.lstrip(".").lower()
    if fmt not in viz.FORMATS:
        raise LaminaError(
            f"cannot write '{target}': unknown format '.{fmt}'; use .dot, .svg or .png"
        )
    if fmt != "dot" and shutil.which("dot") is None:
        raise LaminaError(
            f"cannot write '{target}': {fmt.upper()} needs Graphviz's `dot`, which "
            f"was not found; {viz.INSTALL_HINT}"
        )
    module = load_module(path, kind, arguments.shapes(args.input_shape))
    pipeline = "" if args.pipeline in ("", "none") else args.pipeline
    if pipeline:
        config = {"byoc.targets": ",".join(args.byoc)} if args.byoc else {}
        # external-codegen turns partitions into calls of generated code: stop
        # before it, so they are drawn with their ops.
        ctx = PassContext(
            opt_level=args.opt_level,
            disabled_passes=[p for p in ("external-codegen",) if p in all_passes()],
            config=config,
            target=args.hardware,
        )
        with ctx:  # named pipelines expand under the current context
            run_pipeline(module, pipeline, ctx)
    title = f"{path.name} after {pipeline or 'import'} (-O{args.opt_level})"
    dot = viz.to_dot(module, title)
    viz.render(dot, target)
    nodes, groups = viz.count(dot)
    print(f"wrote {target} ({nodes} ops, {groups} clusters)")
    return 0


# ------------------------------------------------------------------- quantize
def _cmd_quantize(args: argparse.Namespace) -> int:
    """`lamina quantize` (lamina.tools.quantize), checking the model as the other commands do."""
    return cmd_quantize(args, model_file)


# ----------------------------------------------------------------------- demo
def cmd_demo(args: argparse.Namespace) -> int:
    """`lamina demo`: the built-in example (or, with --save-model/--save-mlp, only
    its CNN / a small MLP as ONNX, to try the other commands on)."""
    if args.save_model:
        write_atomic(args.save_model, resnet_mini().SerializeToString())
        print(f"wrote the demo's ONNX model to {args.save_model}")
    if args.save_mlp:
        write_atomic(args.save_mlp, mlp_model().SerializeToString())
        print(f"wrote an ONNX MLP (784-512-512-10) to {args.save_mlp}")
    return 0 if args.save_model or args.save_mlp else demo.main(threads=args.threads)


def cmd_cflags(args: argparse.Namespace) -> int:
    """`lamina cflags`: `-I` for lamina.h and npy.h, as pkg-config --cflags prints."""
    print(f"-I{include_dir()}")
    return 0


def _cmd_tune(args: argparse.Namespace) -> int:
    """`lamina tune` (lamina.tools.tune), loading models as the other commands do."""
    return cmd_tune(args, load_module, arguments.shapes, model_file)


# ---------------------------------------------------------------------- parser
def parser() -> argparse.ArgumentParser:
    """The `lamina` argument parser."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--debug", action="store_true", default=argparse.SUPPRESS,
        help="show the traceback of errors",
    )
    build = argparse.ArgumentParser(add_help=False)
    build.add_argument("-O", "--opt-level", type=arguments.opt_level, default=3, metavar="N",
                       help="optimization level 0-3 (default 3)")
    build.add_argument("--target", action="append", metavar="TARGET",
                       help="the hardware to compile for (default: this machine; e.g. "
                       "'aarch64-linux-gnu', 'x86_64-linux-gnu -mcpu=znver4')")
    build.add_argument("--byoc", action="extend", type=arguments.targets, metavar="NAME[,NAME]",
                       help="BYOC targets to offload to (e.g. blas; repeat or list)")
    build.add_argument("--input-shape", action="append", default=[], metavar="NAME=D1,D2",
                       help="fix a symbolic input shape")
    build.add_argument("--tuning-records", metavar="RECORDS.jsonl",
                       help="give each kernel its best tuned schedule (from lamina tune)")

    p = argparse.ArgumentParser(
        prog="lamina", description="lamina: compile, run, benchmark and draw models"
    )
    p.add_argument("--debug", action="store_true", help="show the traceback of errors")
    p.add_argument("--version", action="version", version=f"lamina {__version__}",
                   help="print lamina's version and exit")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    c = sub.add_parser("compile", parents=[common, build],
                       help="compile a model to a shared library, or print its IR")
    c.add_argument("model", help="an ONNX model or a graph-level .mlir file")
    c.add_argument("-o", "--output", help="the library to write: .so (a .wasm module for "
                   "wasm32, with its JavaScript loader lamina.mjs), or the IR file with --emit")
    c.add_argument("--name", type=arguments.model_name, metavar="NAME",
                   help="the model's name in the library: the prefix of its C symbols "
                   "(NAME_model() in lamina.h's API; default: the output file's stem)")
    c.add_argument("--emit", choices=LEVELS,
                   help="write the IR at this level instead (with -o: with its weights)")
    c.add_argument("--print-resources", action="store_true",
                   help=f"print every weight with --emit's IR (default: only up to "
                   f"{DEFAULT_ELIDE_LIMIT} bytes on stdout; -o files hold them all)")
    c.add_argument("--threads", type=arguments.positive, metavar="N", help="threads for parallel loops (default: the cores other processes leave free)")
    c.add_argument("--print-ir-after", metavar="PASS|all", help="print the IR after passes (to stderr)")
    c.add_argument("--print-ir-before", metavar="PASS|all", help="print the IR before passes")
    c.add_argument("--time-passes", action="store_true", help="print a pass-timing table")
    c.set_defaults(fn=cmd_compile)

    r = sub.add_parser("run", parents=[common, build], help="run a model on .npy/.npz inputs")
    r.add_argument("model", help="an ONNX model, a .mlir file, or a library or .wasm from "
                   "compile (of any target: another architecture's runs under qemu-user)")
    r.add_argument("--input", action="append", default=[], metavar="NAME=FILE.npy|FILE.npz",
                   help="an input's array, or a .npz of them by input name (repeat)")
    r.add_argument("--output", metavar="OUT.npz|OUT.npy",
                   help="write the outputs: .npz by name, .npy for a single output")
    r.add_argument("--threads", type=arguments.positive, metavar="N", help="threads for parallel loops (default: the cores other processes leave free)")
    r.set_defaults(fn=cmd_run)

    b = sub.add_parser("bench", parents=[common, build], help="measure latency and throughput")
    b.add_argument("model", help="an ONNX model, a .mlir file or a library")
    b.add_argument("--compare", choices=("onnxruntime",), help="measure onnxruntime too")
    b.add_argument("--threads", type=arguments.threads, metavar="1,2", help="thread counts (default 1)")
    b.add_argument("--runs", type=arguments.positive, metavar="N", help="timed runs (default: ~2 s worth)")
    b.add_argument("--warmup", type=arguments.positive, default=3, metavar="N", help="untimed runs first")
    b.add_argument("--input", action="append", default=[], metavar="NAME=FILE.npy|FILE.npz",
                   help="an input's array, or a .npz of them by input name (repeat)")
    b.add_argument("--profile", action="store_true", help="add per-kernel times")
    b.add_argument("--top", type=int, default=15, metavar="N", help="kernels to list (0: all)")
    b.set_defaults(fn=cmd_bench)

    v = sub.add_parser("viz", parents=[common], help="draw the graph after a pipeline")
    v.add_argument("model", help="an ONNX model or a graph-level .mlir file")
    v.add_argument("-o", "--output", required=True, help="FILE.dot, FILE.svg or FILE.png")
    v.add_argument("--pipeline", default="optimize",
                   help="passes to run first (default: optimize; 'none' for the import)")
    v.add_argument("-O", "--opt-level", type=arguments.opt_level, default=3, metavar="N")
    v.add_argument("--target", action="append", metavar="TARGET",
                   help="the hardware to compile for (default: this machine)")
    v.add_argument("--byoc", action="extend", type=arguments.targets, metavar="NAME[,NAME]",
                   help="BYOC targets whose partitions to draw")
    v.add_argument("--input-shape", action="append", default=[], metavar="NAME=D1,D2")
    v.set_defaults(fn=cmd_viz)

    add_tune_parser(sub, common, _cmd_tune)
    add_quantize_parser(sub, common, _cmd_quantize)

    d = sub.add_parser("demo", parents=[common], help="compile, check and time the built-in CNN")
    d.add_argument("--threads", type=arguments.positive, metavar="N", help="threads for parallel loops (default: the cores other processes leave free)")
    d.add_argument("--save-model", metavar="FILE.onnx",
                   help="only write the demo's ONNX model (to try the other commands on)")
    d.add_argument("--save-mlp", metavar="FILE.onnx",
                   help="only write a small ONNX MLP (784-512-512-10, random weights)")
    d.set_defaults(fn=cmd_demo)

    f = sub.add_parser("cflags", parents=[common],
                       help="print the C compiler flags for lamina.h (the C runtime API)")
    f.set_defaults(fn=cmd_cflags)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit code (usage errors exit 2 from argparse,
    SIGINT 130, SIGTERM 143)."""
    try:
        with signals_raise():
            args = parser().parse_args(argv)
            code = _run(args.fn, args)
            check_signals()
            return code
    except Terminated as exc:
        release(exc)
        print("lamina: terminated", file=sys.stderr)
        return 128 + signal.SIGTERM
    except KeyboardInterrupt as exc:
        release(exc)
        print("lamina: interrupted", file=sys.stderr)
        return 128 + signal.SIGINT


def _run(fn: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    """`fn(args)`, with errors as one line and an exit code."""
    try:
        arguments.resolve_target(args)
        return fn(args)
    except LaminaError as e:
        if args.debug:
            raise
        message = _cli_wording(e, None) if isinstance(e, FrontendError) else str(e)
        print(f"lamina: error: {message}", file=sys.stderr)
        return 1
    except Exception as e:
        if args.debug:
            raise
        first = str(e).strip().splitlines()[0] if str(e).strip() else ""
        print(
            f"lamina: internal error: {type(e).__name__}: {first} (this is a bug in "
            "lamina; rerun with --debug for the traceback and report it)",
            file=sys.stderr,
        )
        return 1


if __name__ == "__main__":
    sys.exit(main())
