"""Parser fuzzing: mutated IR text must only ever fail as a diagnostic.

    python bench/fuzz.py --mutations 10000 --seed 0 [--out DIR] [--timeout 5]
    python bench/fuzz.py --mutations 2000 --passes canonicalize,fold-constant,fuse-ops

Seeds are the `// -----` chunks of every `.mlir` file under `filecheck/`. Each
mutation (byte flips, token deletion / duplication / swap, truncation, number tweaks,
line deletion / duplication, splices of tokens from other seeds) is parsed with
lamina's context (`lamina.parse`, which verifies), and what parses is printed back
in the custom and generic forms and parsed again. Anything raised other than a clean
diagnostic (`LaminaError`, xDSL's `ParseError` / `DiagnosticException`) - or a
parse that takes longer than `--timeout` seconds - is a failure: it is reported,
deduplicated by exception type and raising line, and its input is saved in `--out`
as a reproducer. With `--passes`, what parses also runs through that pipeline (a
`LaminaError` is a clean outcome; anything else a failure).
"""

from __future__ import annotations

import argparse
import random
import re
import signal
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_TOKEN = re.compile(r"%[\w.$-]+|@[\w.$-]+|\^[\w.$-]+|[\w.]+|->|\S")
_NUMBER = re.compile(r"-?\d+(\.\d+)?(e[-+]?\d+)?")
_INTERESTING = [
    "0", "-1", "1", "2147483648", "9223372036854775808", "1e309", "nan", "-0",
    "4294967296", "99999999999999999999", "0x", "0.5", "65536",
]


class _Timeout(Exception):
    pass


def seeds(root: Path = ROOT / "filecheck") -> list[str]:
    """Every `// -----` chunk of every .mlir file under `root`, in a fixed order."""
    out: list[str] = []
    for path in sorted(root.rglob("*.mlir")):
        if "Output" in path.parts:
            continue
        out += [c for c in path.read_text().split("// -----") if c.strip()]
    return out


# ------------------------------------------------------------------- mutations
def _tokens(text: str) -> list[re.Match[str]]:
    return list(_TOKEN.finditer(text))


def _flip_byte(text: str, rng: random.Random, pool: list[str]) -> str:
    raw = bytearray(text.encode())
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(raw))
        raw[i] = rng.choice([raw[i] ^ (1 << rng.randrange(8)), rng.randrange(32, 127)])
    return raw.decode("utf-8", errors="replace")


def _delete_token(text: str, rng: random.Random, pool: list[str]) -> str:
    toks = _tokens(text)
    t = rng.choice(toks)
    return text[: t.start()] + text[t.end() :]


def _duplicate_token(text: str, rng: random.Random, pool: list[str]) -> str:
    toks = _tokens(text)
    t = rng.choice(toks)
    return text[: t.end()] + " " + t.group() + text[t.end() :]


def _swap_tokens(text: str, rng: random.Random, pool: list[str]) -> str:
    toks = _tokens(text)
    a, b = sorted(rng.sample(toks, 2), key=lambda m: m.start())
    return (
        text[: a.start()] + b.group() + text[a.end() : b.start()] + a.group()
        + text[b.end() :]
    )


def _insert_token(text: str, rng: random.Random, pool: list[str]) -> str:
    toks = _tokens(text)
    t = rng.choice(toks)
    new = rng.choice(pool)
    return text[: t.start()] + new + " " + text[t.start() :]


def _replace_token(text: str, rng: random.Random, pool: list[str]) -> str:
    toks = _tokens(text)
    t = rng.choice(toks)
    return text[: t.start()] + rng.choice(pool) + text[t.end() :]


def _truncate(text: str, rng: random.Random, pool: list[str]) -> str:
    return text[: rng.randrange(len(text))]


def _tweak_number(text: str, rng: random.Random, pool: list[str]) -> str:
    nums = list(_NUMBER.finditer(text))
    if not nums:
        return _flip_byte(text, rng, pool)
    n = rng.choice(nums)
    value = n.group()
    choices = [*_INTERESTING, value[1:] if value.startswith("-") else "-" + value]
    if value.lstrip("-").isdigit():
        v = int(value)
        choices += [str(v + 1), str(v - 1), str(v * 1000), str(v * v + 7)]
    return text[: n.start()] + rng.choice(choices) + text[n.end() :]


def _line_edit(text: str, rng: random.Random, pool: list[str]) -> str:
    lines = text.splitlines(keepends=True)
    i = rng.randrange(len(lines))
    if rng.random() < 0.5:
        del lines[i]
    else:
        lines.insert(rng.randrange(len(lines) + 1), lines[i])
    return "".join(lines)


MUTATORS: list[Callable[[str, random.Random, list[str]], str]] = [
    _flip_byte,
    _delete_token,
    _duplicate_token,
    _swap_tokens,
    _insert_token,
    _replace_token,
    _truncate,
    _tweak_number,
    _tweak_number,
    _line_edit,
]


def mutate(text: str, rng: random.Random, pool: list[str]) -> str:
    """One to three random mutations of `text`."""
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        if len(_tokens(text)) < 2:
            break
        text = rng.choice(MUTATORS)(text, rng, pool)
    return text


# ------------------------------------------------------------------- checking
def check(text: str, timeout: float = 5.0, passes: str = "") -> str | None:
    """None if `text` parses (and round-trips) or fails with a clean diagnostic;
    otherwise a description of the escape (exception and traceback)."""
    from xdsl.utils.exceptions import DiagnosticException, ParseError

    import lamina

    clean = (lamina.LaminaError, ParseError, DiagnosticException)

    def on_alarm(signum: int, frame: object) -> None:
        raise _Timeout(f"no answer within {timeout} s")

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        module = lamina.parse(text)
        for generic in (False, True):
            printed = lamina.print_ir(module, generic=generic, resources_limit=None)
            lamina.parse(printed)
        if passes:
            lamina.run_pipeline(module, passes, lamina.PassContext(opt_level=3))
    except lamina.errors.InternalError as e:  # a pass crashed: a bug
        return "".join(traceback.format_exception(e.__cause__ or e))
    except clean:
        return None
    except _Timeout as e:
        return f"Timeout: {e}"
    except BaseException as e:
        if isinstance(e, KeyboardInterrupt):
            raise
        return "".join(traceback.format_exception(e))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    return None


def signature(report: str) -> str:
    """Deduplication key: the exception line and the innermost lamina/xdsl frame."""
    lines = [ln for ln in report.strip().splitlines() if ln.strip()]
    frames = [ln.strip() for ln in lines if ln.strip().startswith("File ")]
    where = frames[-1] if frames else ""
    exc = lines[-1].split(":")[0] if lines else "?"
    return f"{exc} @ {where}"


@dataclass
class Result:
    tried: int = 0
    failures: list[tuple[str, str, str]] = field(default_factory=list)  # sig, input, report
    signatures: dict[str, int] = field(default_factory=dict)


def fuzz(
    mutations: int,
    seed: int,
    timeout: float = 5.0,
    progress: bool = False,
    passes: str = "",
) -> Result:
    """Run `mutations` mutations of the filecheck seeds from `seed`."""
    rng = random.Random(seed)
    corpus = seeds()
    pool = sorted({m.group() for c in corpus for m in _tokens(c)}) + _INTERESTING
    result = Result()
    start = time.monotonic()
    for i in range(mutations):
        text = mutate(rng.choice(corpus), rng, pool)
        report = check(text, timeout, passes)
        result.tried += 1
        if report is not None:
            sig = signature(report)
            result.signatures[sig] = result.signatures.get(sig, 0) + 1
            if result.signatures[sig] == 1:
                result.failures.append((sig, text, report))
        if progress and (i + 1) % 500 == 0:
            rate = (i + 1) / (time.monotonic() - start)
            print(
                f"  {i + 1}/{mutations} ({rate:.0f}/s), "
                f"{sum(result.signatures.values())} failures, "
                f"{len(result.signatures)} distinct",
                file=sys.stderr,
            )
    return result


def _save(result: Result, out: Path) -> Iterator[Path]:
    out.mkdir(parents=True, exist_ok=True)
    for n, (sig, text, report) in enumerate(result.failures):
        path = out / f"failure-{n:03d}.mlir"
        header = "".join(f"// {ln}\n" for ln in report.strip().splitlines())
        path.write_text(f"// fuzz failure: {sig}\n{header}\n{text}")
        yield path


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--mutations", type=int, default=10_000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--timeout", type=float, default=5.0, help="seconds per input")
    p.add_argument("--passes", default="", help="also run this pipeline on what parses")
    p.add_argument("--out", type=Path, default=Path("fuzz-failures"),
                   help="where reproducers are saved (default: ./fuzz-failures)")
    args = p.parse_args(argv)
    sys.setrecursionlimit(10_000)
    start = time.monotonic()
    result = fuzz(args.mutations, args.seed, args.timeout, progress=True, passes=args.passes)
    elapsed = time.monotonic() - start
    total = sum(result.signatures.values())
    print(
        f"fuzz: {result.tried} mutations in {elapsed:.0f} s (seed {args.seed}): "
        f"{total} failures, {len(result.signatures)} distinct"
    )
    for path, (sig, count) in zip(_save(result, args.out), result.signatures.items(), strict=True):
        print(f"  {count:5d} x {sig}\n        reproducer: {path}")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
