"""`lamina`: compile, run and inspect whole models from the command line.

    lamina demo
    lamina compile MODEL.onnx --emit relay|te|tir|llvm [-o FILE]
    lamina run MODEL.onnx [--input NAME=FILE.npy ...] [--output OUT.npz]

User errors print one line and exit 1; usage errors exit 2; `--debug` shows the
traceback. Output files are written atomically.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from lamina.errors import LaminaError

LEVELS = ("relay", "te", "tir", "llvm")


def write_atomic(path: str | os.PathLike[str], data: bytes | str) -> None:
    """Write `data` to `path` through a temporary file in the same folder, so a
    failure never leaves a half-written file."""
    target = Path(path)
    if target.parent and not target.parent.exists():
        raise LaminaError(f"cannot write '{target}': folder '{target.parent}' does not exist")
    raw = data.encode() if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(dir=target.parent or ".", prefix=f".{target.name}.")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def emit(model: str, level: str, input_shapes: dict[str, list[int]] | None) -> str:
    """The model's IR after lowering to `level`, as text."""
    import lamina
    from lamina.runtime.executor import lowering_pipeline

    module = lamina.from_onnx(model, input_shapes)
    ctx = lamina.context()
    steps = {"relay": 0, "te": 1, "tir": 2, "llvm": 3}[level]
    for p in lowering_pipeline()[:steps]:
        p.apply(ctx, module)
    if level == "llvm":
        from lamina.runtime.jit import llvm_ir

        return llvm_ir(module)
    return lamina.print_ir(module)


def _shapes(items: Sequence[str]) -> dict[str, list[int]] | None:
    out: dict[str, list[int]] = {}
    for item in items:
        name, _, dims = item.partition("=")
        try:
            out[name] = [int(d) for d in dims.split(",") if d]
        except ValueError:
            raise LaminaError(
                f"bad --input-shape '{item}': expected NAME=D1,D2,... (integers)"
            ) from None
    return out or None


def cmd_compile(args: argparse.Namespace) -> int:
    if args.emit is None:
        raise LaminaError(
            "shared-library export is not available yet; use --emit "
            f"{'|'.join(LEVELS)} to write the IR of a level"
        )
    text = emit(args.model, args.emit, _shapes(args.input_shape))
    if args.output:
        write_atomic(args.output, text)
        print(f"wrote {args.emit} IR to {args.output}")
    else:
        sys.stdout.write(text)
    return 0


def _load_inputs(items: Sequence[str]) -> dict[str, np.ndarray]:
    out = {}
    for item in items:
        name, sep, path = item.partition("=")
        if not sep:
            raise LaminaError(f"bad --input '{item}': expected NAME=FILE.npy")
        try:
            out[name] = np.load(path, allow_pickle=False)
        except (OSError, ValueError) as e:
            raise LaminaError(f"cannot read input '{name}' from '{path}': {e}") from None
    return out


def cmd_run(args: argparse.Namespace) -> int:
    import lamina

    exe = lamina.compile(args.model, input_shapes=_shapes(args.input_shape))
    given = _load_inputs(args.input)
    if not given:
        rng = np.random.default_rng(0)
        for spec in exe.inputs:
            if np.issubdtype(spec.dtype, np.floating):
                given[spec.name] = rng.standard_normal(spec.shape).astype(spec.dtype)
            else:
                given[spec.name] = rng.integers(0, 10, spec.shape).astype(spec.dtype)
        print("no --input given: using random inputs " + ", ".join(s.describe() for s in exe.inputs))
    outs = exe.run(**given)
    for spec, value in zip(exe.outputs, outs, strict=True):
        flat = value.reshape(-1)
        preview = np.array2string(flat[:8], precision=4, separator=", ")
        print(f"{spec.describe()} = {preview}{' ...' if flat.size > 8 else ''}")
    if args.output:
        buf = io.BytesIO()
        np.savez(buf, **dict(zip(exe.output_names, outs, strict=True)))
        write_atomic(args.output, buf.getvalue())
        print(f"wrote {len(outs)} output(s) to {args.output}")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from lamina.tools.demo import main

    return main()


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="lamina", description="lamina: compile and run models")
    p.add_argument("--debug", action="store_true", help="show tracebacks of errors")
    sub = p.add_subparsers(dest="command", required=True)

    c = sub.add_parser("compile", help="compile a model, or print its IR at a level")
    c.add_argument("model", help="an ONNX model")
    c.add_argument("-o", "--output", help="output file")
    c.add_argument("--emit", choices=LEVELS, help="write the IR at this level")
    c.add_argument("--input-shape", action="append", default=[], metavar="NAME=D1,D2")
    c.set_defaults(fn=cmd_compile)

    r = sub.add_parser("run", help="run a model on .npy inputs")
    r.add_argument("model", help="an ONNX model")
    r.add_argument("--input", action="append", default=[], metavar="NAME=FILE.npy")
    r.add_argument("--input-shape", action="append", default=[], metavar="NAME=D1,D2")
    r.add_argument("--output", help="write the outputs to this .npz file")
    r.set_defaults(fn=cmd_run)

    d = sub.add_parser("demo", help="compile and check the built-in example")
    d.set_defaults(fn=cmd_demo)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)  # exits 2 on usage errors
    fn: Callable[[argparse.Namespace], int] = args.fn
    try:
        return fn(args)
    except LaminaError as e:
        if args.debug:
            raise
        print(f"lamina: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
