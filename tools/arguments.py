"""The `lamina` command's argument types and what they resolve to: shapes,
thread counts, opt levels, the hardware `--target` and the BYOC `--byoc`
targets, and the pass context they make."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from lamina.backends.registry import get_target
from lamina.codegen import descriptor
from lamina.errors import LaminaError
from lamina.passes import PassContext, PassInstrument, PrintIRInstrument
from lamina.target import Target


def shapes(items: Sequence[str]) -> dict[str, list[int]] | None:
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


def targets(text: str) -> list[str]:
    """`--byoc blas` or `--byoc blas,c` as a list of names (else a usage error)."""
    names = [t.strip() for t in text.split(",")]
    if not all(names):
        raise argparse.ArgumentTypeError(
            f"expected target names like blas or blas,c, got '{text}'"
        )
    return names


def pass_context(args: argparse.Namespace, extra: Sequence[PassInstrument] = ()) -> PassContext:
    instruments: list[PassInstrument] = list(extra)
    if getattr(args, "print_ir_after", None):
        instruments.append(PrintIRInstrument(after=args.print_ir_after))
    if getattr(args, "print_ir_before", None):
        instruments.append(PrintIRInstrument(before=args.print_ir_before))
    return PassContext(
        opt_level=args.opt_level, instruments=instruments, target=getattr(args, "hardware", None)
    )


def is_byoc(name: str) -> bool:
    try:
        get_target(name)
    except LaminaError:
        return False
    return True


def resolve_target(args: argparse.Namespace) -> None:
    """`--target` names the hardware (`args.hardware`, a Target); BYOC targets
    are `--byoc`'s (`args.byoc`). The old spelling, `--target` naming BYOC
    targets, still works, with a note."""
    given = getattr(args, "target", None)
    args.byoc = list(getattr(args, "byoc", None) or [])
    args.hardware = None
    if not given:
        return
    text = ",".join(given)
    names = [n.strip() for n in text.split(",")]
    if all(names) and all(is_byoc(n) for n in names):
        print(
            f"lamina: note: --target {text} names a BYOC target, use --byoc {text} "
            "(--target now names the hardware, e.g. aarch64-linux-gnu)",
            file=sys.stderr,
        )
        args.byoc += [n for n in names if n not in args.byoc]
        return
    if len(given) > 1:
        raise LaminaError(f"--target was given {len(given)} times; name one target")
    args.hardware = Target.parse(given[0])


def threads(text: str) -> list[int]:
    """`--threads 1,2` as a list of positive integers (else a usage error)."""
    try:
        out = [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        out = []
    if not out or any(t < 1 for t in out):
        raise argparse.ArgumentTypeError(
            f"expected thread counts like 1 or 1,2 (positive integers), got '{text}'"
        )
    return out


def positive(text: str) -> int:
    """A positive integer argument (else a usage error)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got '{text}'")
    return value


def model_name(text: str) -> str:
    """A model's name: a C identifier to prefix its symbols (else a usage error)."""
    try:
        return descriptor.model_name(text)
    except LaminaError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def opt_level(text: str) -> int:
    """An opt level 0-3 (else a usage error)."""
    if text not in ("0", "1", "2", "3"):
        raise argparse.ArgumentTypeError(f"expected 0, 1, 2 or 3, got '{text}'")
    return int(text)


