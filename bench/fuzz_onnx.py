"""ONNX model fuzzing: mutated models must only ever fail as a `LaminaError`.

    python bench/fuzz_onnx.py --mutations 5000 --seed 0 [--compile 0.2] [--out DIR]
    python bench/fuzz_onnx.py --mutations 1000 --seed 9 --compile 1 --compare

Seeds are onnx's backend node test models (built in memory by
`onnx.backend.test.loader`) that lamina imports. Each mutation changes the model's
structure - an attribute set to a boundary value, a list attribute shortened or
lengthened, an input dimension or element type changed, a node input dropped,
renamed or swapped, an initializer's dimensions or data changed, the opset changed
- or flips bytes of its serialized form. Each mutant is imported with
`lamina.from_onnx` (and, with probability `--compile`, compiled with `lamina.compile`
(one thread) and run on random floats, random bools and zero integers; with `--compare`, its
outputs must equal onnxruntime's or `onnx.reference`'s whenever the mutant is valid
and deterministic: onnx's checker, with full shape inference, accepts it, it has
no random op, and onnxruntime or the reference runs it).
Each is checked in a forked child (unless `--no-isolate`), so a native crash is
reported too. Anything raised other than a `LaminaError` (an `InternalError`
included), a crash, a mutant taking longer than `--timeout` seconds, or (with
`--compare`) outputs that differ from both references, is a failure, deduplicated by
exception and raising line, and saved as a reproducer `.onnx` in `--out`.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import signal
import sys
import time
import traceback
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto

INTS = [0, 1, -1, 2, 3, 7, -2, 1 << 31, -(1 << 31), 1 << 40, 100]
FLOATS = [0.0, -1.0, 1e30, float("nan"), float("inf"), -0.5, 2.0]
ELEM_TYPES = [
    TensorProto.FLOAT, TensorProto.INT64, TensorProto.INT32, TensorProto.BOOL,
    TensorProto.DOUBLE, TensorProto.UINT8, TensorProto.FLOAT16, TensorProto.STRING,
    TensorProto.BFLOAT16, 0, 99,
]


class _Timeout(Exception):
    pass


def seeds(limit: int | None = None) -> list[onnx.ModelProto]:
    """onnx's node test models that lamina imports, in a fixed order (every
    `len / limit`-th one with `limit`)."""
    from onnx.backend.test.loader import load_model_tests

    import lamina

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = load_model_tests(kind="node")
    out = []
    ordered = sorted(cases, key=lambda c: c.name)
    if limit:
        ordered = ordered[:: max(len(ordered) // limit, 1)]
    for case in ordered:
        model = case.model
        if model is None or any(n.op_type in ("Loop", "If", "Scan") for n in model.graph.node):
            continue
        try:
            lamina.from_onnx(model)
        except Exception:
            continue
        out.append(model)
    return out


# ------------------------------------------------------------------- mutations
def _node(m: onnx.ModelProto, rng: random.Random) -> onnx.NodeProto | None:
    return rng.choice(m.graph.node) if m.graph.node else None


def _attr_int(m: onnx.ModelProto, rng: random.Random) -> None:
    n = _node(m, rng)
    attrs = [a for a in n.attribute if a.type in (onnx.AttributeProto.INT, onnx.AttributeProto.INTS)] if n else []
    if not attrs:
        if n is not None:  # add an attribute the node may not expect
            n.attribute.append(onnx.helper.make_attribute(rng.choice(["axis", "keepdims", "perm", "group"]), rng.choice(INTS)))
        return
    a = rng.choice(attrs)
    if a.type == onnx.AttributeProto.INT:
        a.i = max(min(rng.choice(INTS), (1 << 63) - 1), -(1 << 63))
    elif a.ints and rng.random() < 0.5:
        a.ints[rng.randrange(len(a.ints))] = rng.choice(INTS)
    elif a.ints and rng.random() < 0.5:
        del a.ints[rng.randrange(len(a.ints))]
    else:
        a.ints.append(rng.choice(INTS))


def _attr_float(m: onnx.ModelProto, rng: random.Random) -> None:
    n = _node(m, rng)
    attrs = [a for a in n.attribute if a.type == onnx.AttributeProto.FLOAT] if n else []
    if attrs:
        rng.choice(attrs).f = rng.choice(FLOATS)
    elif n is not None:
        _attr_int(m, rng)


def _attr_string(m: onnx.ModelProto, rng: random.Random) -> None:
    n = _node(m, rng)
    attrs = [a for a in n.attribute if a.type == onnx.AttributeProto.STRING] if n else []
    if attrs:
        rng.choice(attrs).s = rng.choice([b"", b"nope", b"NOTSET", b"\xff"])
    elif n is not None:
        _attr_int(m, rng)


def _dim(m: onnx.ModelProto, rng: random.Random) -> None:
    values = list(m.graph.input) + list(m.graph.output)
    if not values:
        return
    vi = rng.choice(values)
    dims = vi.type.tensor_type.shape.dim
    if dims and rng.random() < 0.8:
        d = dims[rng.randrange(len(dims))]
        if rng.random() < 0.2:
            d.dim_param = "N"
        else:
            d.dim_value = rng.choice([0, 1, 2, 5, 1 << 20, 1 << 40])
    elif dims and rng.random() < 0.5:
        del dims[rng.randrange(len(dims))]
    else:
        vi.type.tensor_type.shape.dim.add().dim_value = rng.choice([1, 3])


def _elem_type(m: onnx.ModelProto, rng: random.Random) -> None:
    values = list(m.graph.input) + list(m.graph.output)
    if values:
        rng.choice(values).type.tensor_type.elem_type = rng.choice(ELEM_TYPES)


def _node_input(m: onnx.ModelProto, rng: random.Random) -> None:
    n = _node(m, rng)
    if n is None or not n.input:
        return
    i = rng.randrange(len(n.input))
    choice = rng.random()
    if choice < 0.3:
        del n.input[i]
    elif choice < 0.5:
        n.input[i] = ""
    elif choice < 0.7:
        n.input[i] = "undefined_value"
    elif len(n.input) > 1:
        j = rng.randrange(len(n.input))
        n.input[i], n.input[j] = n.input[j], n.input[i]
    else:
        n.input.append(n.input[0])


def _node_output(m: onnx.ModelProto, rng: random.Random) -> None:
    n = _node(m, rng)
    if n is None:
        return
    if rng.random() < 0.5 and n.output:
        n.output[rng.randrange(len(n.output))] = rng.choice(["", "extra", n.input[0] if n.input else "x"])
    else:
        n.output.append("extra_out")


def _op_type(m: onnx.ModelProto, rng: random.Random, pool: list[str]) -> None:
    n = _node(m, rng)
    if n is not None:
        n.op_type = rng.choice(pool)


def _initializer(m: onnx.ModelProto, rng: random.Random) -> None:
    inits = list(m.graph.initializer)
    if not inits:
        _dim(m, rng)
        return
    t = rng.choice(inits)
    choice = rng.random()
    if choice < 0.3 and t.dims:
        t.dims[rng.randrange(len(t.dims))] = rng.choice([0, 1, 3, 1 << 40])
    elif choice < 0.5:
        t.data_type = rng.choice(ELEM_TYPES)
    elif choice < 0.7 and t.raw_data:
        t.raw_data = t.raw_data[: len(t.raw_data) // 2]
    elif choice < 0.85:
        m.graph.initializer.remove(t)
    else:
        t.dims.append(2)


def _opset(m: onnx.ModelProto, rng: random.Random) -> None:
    for o in m.opset_import:
        if o.domain in ("", "ai.onnx"):
            o.version = rng.choice([1, 6, 7, 9, 11, 13, 18, 21, 0, 99])


def _graph_io(m: onnx.ModelProto, rng: random.Random) -> None:
    g = m.graph
    if rng.random() < 0.5 and g.input:
        del g.input[rng.randrange(len(g.input))]
    elif g.output:
        g.output[rng.randrange(len(g.output))].name = rng.choice(["", "nowhere", g.input[0].name if g.input else "x"])


def _bytes(m: onnx.ModelProto, rng: random.Random) -> bytes:
    raw = bytearray(m.SerializeToString())
    for _ in range(rng.randint(1, 4)):
        if raw:
            raw[rng.randrange(len(raw))] = rng.randrange(256)
    if rng.random() < 0.3:
        raw = raw[: rng.randrange(len(raw) + 1)]
    return bytes(raw)


MUTATORS: list[Callable[..., object]] = [
    _attr_int, _attr_int, _attr_float, _attr_string, _dim, _dim, _elem_type,
    _node_input, _node_output, _op_type, _initializer, _initializer, _opset, _graph_io,
]


def mutate(model: onnx.ModelProto, rng: random.Random, ops: list[str]) -> onnx.ModelProto | bytes:
    """One or two structural mutations of a copy of `model`, or its mutated bytes."""
    if rng.random() < 0.15:
        return _bytes(model, rng)
    m = onnx.ModelProto()
    m.CopyFrom(model)
    for _ in range(rng.choice([1, 1, 2])):
        fn = rng.choice(MUTATORS)
        if fn is _op_type:
            fn(m, rng, ops)
        else:
            fn(m, rng)
    return m


# ------------------------------------------------------------------- checking
#: What became of a mutant (`outcome`): refused with a LaminaError, imported,
#: compiled and run (nothing to compare with: the mutant is not valid, see
#: `expected_outputs`), compiled, run and equal to onnxruntime's or
#: onnx.reference's result, or a failure.
OUTCOMES = ("refused", "imported", "ran", "matched", "failed")


def _inputs(exe: object, rng: np.random.Generator) -> list[np.ndarray]:
    """Inputs for a compiled mutant: standard normal floats, random bools, and zero
    integers (an integer input is often an index or a shape: zero is in range)."""
    out = []
    for spec in exe.inputs:  # type: ignore[attr-defined]
        if spec.dtype.kind == "f":
            out.append(rng.standard_normal(spec.shape).astype(spec.dtype))
        elif spec.dtype.kind == "b":
            out.append(rng.random(spec.shape) < 0.5)
        else:
            out.append(np.zeros(spec.shape, spec.dtype))
    return out


#: Ops whose result is random: nothing to compare with (a Dropout with a
#: `training_mode` input may be in training mode).
RANDOM_OPS = {
    "Bernoulli", "Multinomial", "RandomNormal", "RandomNormalLike", "RandomUniform",
    "RandomUniformLike",
}


def expected_outputs(model: onnx.ModelProto | bytes, inputs: list[np.ndarray]) -> list[list[np.ndarray]]:
    """What a valid, deterministic mutant computes on `inputs`: the outputs of
    onnxruntime and of `onnx.reference`, of those that run it (each refuses a few
    valid models: onnxruntime some attribute combinations, the reference some ops
    and types); none if the mutant is not valid (onnx's checker with full shape
    inference refuses it) or has a random op."""
    from onnx.reference import ReferenceEvaluator

    try:
        m = onnx.load_from_string(model) if isinstance(model, bytes) else model
        onnx.checker.check_model(m, full_check=True)
    except Exception:
        return []
    if any(
        n.op_type in RANDOM_OPS or (n.op_type == "Dropout" and len(n.input) > 2 and n.input[2])
        for n in m.graph.node
    ):
        return []
    init = {i.name for i in m.graph.initializer}
    names = [i.name for i in m.graph.input if i.name not in init]
    if len(names) != len(inputs):
        return []
    feeds = dict(zip(names, inputs, strict=True))
    out = []
    with contextlib.suppress(Exception):
        import onnxruntime as ort

        so = ort.SessionOptions()
        so.intra_op_num_threads = so.inter_op_num_threads = 1
        so.log_severity_level = 4
        sess = ort.InferenceSession(m.SerializeToString(), so, providers=["CPUExecutionProvider"])
        out.append([np.asarray(o) for o in sess.run(None, feeds)])
    with contextlib.suppress(Exception):
        out.append([np.asarray(o) for o in ReferenceEvaluator(m).run(None, feeds)])
    return out


def compare(ours: list[np.ndarray], ref: list[np.ndarray], ops: str) -> str | None:
    """None if lamina's outputs equal the expected ones (shape and dtype exactly,
    values to a tolerance: rtol 1e-3 / atol 1e-4, 1e-2 for float16, NaN = NaN),
    else a report (the model's op types stand for the raising line)."""
    where = f'  File "<outputs of a model of {ops}>"'
    if len(ours) != len(ref):
        return f"{where}\nMismatch: {len(ours)} outputs, expected {len(ref)}"
    for i, (a, b) in enumerate(zip(ours, ref, strict=True)):
        if a.shape != b.shape or a.dtype != b.dtype:
            return (
                f"{where}\nMismatch: output {i} is {a.dtype}{list(a.shape)}, "
                f"expected {b.dtype}{list(b.shape)}"
            )
        if a.dtype.kind not in "fc":
            ok = np.array_equal(a, b)
        else:
            tol = 1e-2 if a.dtype == np.float16 else 1e-3
            ok = np.allclose(a.astype(np.float64), b.astype(np.float64), rtol=tol, atol=tol / 10, equal_nan=True)
        if not ok:
            with np.errstate(all="ignore"):
                err = np.nanmax(np.abs(a.astype(np.float64) - b.astype(np.float64))) if a.size else 0.0
            return f"{where}\nMismatch: output {i} differs (max abs error {err:.3g})"
    return None


def outcome(
    model: onnx.ModelProto | bytes, compile_it: bool, timeout: float, compare_it: bool = False
) -> tuple[str, str | None]:
    """(what became of `model`, one of `OUTCOMES`; the failure's description or
    None). Importing (and compiling and running, and comparing with
    onnx.reference) must succeed or fail with a `LaminaError`."""
    import lamina
    from lamina.errors import InternalError

    def on_alarm(signum: int, frame: object) -> None:
        raise _Timeout(f"no answer within {timeout} s")

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            if not compile_it:
                lamina.from_onnx(model)
                return "imported", None
            # One thread: a forked child has none of its parent's pool workers
            # (lamina's pool then runs every chunk on the caller: one anyway).
            exe = lamina.compile(model, num_threads=1)
            inputs = _inputs(exe, np.random.default_rng(0))
            ours = exe.run(*inputs)
            if not compare_it:
                return "ran", None
            expected = expected_outputs(model, inputs)
            if not expected:
                return "ran", None
            m = onnx.load_from_string(model) if isinstance(model, bytes) else model
            ops = ",".join(sorted({n.op_type for n in m.graph.node}))
            reports = [compare(list(ours), ref, ops) for ref in expected]
            if all(reports):  # lamina agrees with neither onnxruntime nor onnx.reference
                return "failed", reports[0]
            return "matched", None
    except InternalError as e:
        return "failed", "".join(traceback.format_exception(e.__cause__ or e))
    except lamina.LaminaError:
        return "refused", None
    except _Timeout as e:
        return "failed", f"Timeout: {e}"
    except BaseException as e:
        if isinstance(e, KeyboardInterrupt):
            raise
        return "failed", "".join(traceback.format_exception(e))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def check(model: onnx.ModelProto | bytes, compile_it: bool, timeout: float, compare_it: bool = False) -> str | None:
    """None if importing (and compiling) `model` succeeds or fails with a
    `LaminaError`; otherwise the escape's description."""
    return outcome(model, compile_it, timeout, compare_it)[1]


def outcome_isolated(
    model: onnx.ModelProto | bytes, compile_it: bool, timeout: float, compare_it: bool = False
) -> tuple[str, str | None]:
    """`outcome` in a forked child, so that a crash or a hang of native code (onnx's
    C++ shape inference, the JIT, compiled kernels) is reported instead of ending
    the fuzzer."""
    import os
    import tempfile

    fd, report_path = tempfile.mkstemp(prefix="fuzz-onnx-", suffix=".txt")
    os.close(fd)
    try:
        pid = os.fork()
        if pid == 0:  # the child: write the report, never return
            try:
                what, report = outcome(model, compile_it, timeout, compare_it)
            except BaseException as e:
                what, report = "failed", f"{type(e).__name__}: {e}"
            Path(report_path).write_text(f"{what}\n{report or ''}")
            os._exit(0)
        deadline = time.monotonic() + timeout + 30  # native code ignores SIGALRM
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return "failed", f"Timeout: no answer within {timeout + 30:.0f} s (native code)"
            time.sleep(0.005)
        if os.WIFSIGNALED(status):
            return "failed", f"Crash: killed by signal {os.WTERMSIG(status)}\n  File \"native code\""
        what, _, report = Path(report_path).read_text().partition("\n")
        if what not in OUTCOMES:
            return "failed", f"Crash: the child exited with status {os.WEXITSTATUS(status)} and no report"
        return what, report or None
    finally:
        Path(report_path).unlink(missing_ok=True)


def check_isolated(model: onnx.ModelProto | bytes, compile_it: bool, timeout: float, compare_it: bool = False) -> str | None:
    """`check` in a forked child (see `outcome_isolated`)."""
    return outcome_isolated(model, compile_it, timeout, compare_it)[1]


def signature(report: str) -> str:
    lines = [ln for ln in report.strip().splitlines() if ln.strip()]
    frames = [ln.strip() for ln in lines if ln.strip().startswith("File ")]
    exc = lines[-1].split(":")[0] if lines else "?"
    return f"{exc} @ {frames[-1] if frames else ''}"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--mutations", type=int, default=5000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--compile", type=float, default=0.0, help="share of mutants compiled and run")
    p.add_argument(
        "--compare", action="store_true",
        help="compare what compiles and runs with onnxruntime and onnx.reference (valid mutants)",
    )
    p.add_argument("--timeout", type=float, default=20.0, help="seconds per mutant")
    p.add_argument("--out", type=Path, default=Path("fuzz-onnx-failures"))
    p.add_argument("--no-isolate", action="store_true", help="check in this process (faster; a native crash ends the run)")
    p.add_argument("--seed-models", type=int, help="use about this many seed models (every len/N-th)")
    p.add_argument("--json", type=Path, help="also write the failure signatures and outcome counts here")
    args = p.parse_args(argv)
    rng = random.Random(args.seed)
    start = time.monotonic()
    corpus = seeds(args.seed_models)
    ops = [*sorted({n.op_type for m in corpus for n in m.graph.node}), "NoSuchOp"]
    print(f"{len(corpus)} seed models ({time.monotonic() - start:.0f} s)", file=sys.stderr)
    outcomes: dict[str, int] = {}
    found = run(corpus, ops, rng, args, outcomes)
    total = sum(found.values())
    print(
        f"fuzz_onnx: {args.mutations} mutations in {time.monotonic() - start:.0f} s "
        f"(seed {args.seed}): {total} failures, {len(found)} distinct"
    )
    print("  outcomes: " + ", ".join(f"{k} {outcomes.get(k, 0)}" for k in OUTCOMES))
    if args.json:
        args.json.write_text(json.dumps({"failures": found, "outcomes": outcomes}, indent=1))
    for n, (sig, count) in enumerate(found.items()):
        print(f"  {count:5d} x {sig}\n        reproducer: {args.out / f'failure-{n:03d}.onnx'}")
    return 1 if total else 0


def run(
    corpus: list[onnx.ModelProto], ops: list[str], rng: random.Random, args: argparse.Namespace,
    outcomes: dict[str, int] | None = None,
) -> dict[str, int]:
    """Mutate and check `args.mutations` times; failure signatures and counts (and,
    in `outcomes`, how many mutants had each of the `OUTCOMES`)."""
    found: dict[str, int] = {}
    compare_it = getattr(args, "compare", False)
    args.out.mkdir(parents=True, exist_ok=True)
    for i in range(args.mutations):
        mutant = mutate(rng.choice(corpus), rng, ops)
        # Left behind if the process dies (onnx's C++ shape inference can crash).
        (args.out / "last-input.onnx").write_bytes(
            mutant if isinstance(mutant, bytes) else mutant.SerializeToString()
        )
        compile_it = rng.random() < args.compile
        if args.no_isolate:
            what, report = outcome(mutant, compile_it, args.timeout, compare_it)
        else:
            what, report = outcome_isolated(mutant, compile_it, args.timeout, compare_it)
        if outcomes is not None:
            outcomes[what] = outcomes.get(what, 0) + 1
        if report is not None:
            sig = signature(report)
            found[sig] = found.get(sig, 0) + 1
            if found[sig] == 1:
                n = len(found) - 1
                raw = mutant if isinstance(mutant, bytes) else mutant.SerializeToString()
                (args.out / f"failure-{n:03d}.onnx").write_bytes(raw)
                (args.out / f"failure-{n:03d}.txt").write_text(f"{sig}\n\n{report}")
        if (i + 1) % 500 == 0:
            print(f"  {i + 1}/{args.mutations}, {sum(found.values())} failures, {len(found)} distinct", file=sys.stderr)
    return found


if __name__ == "__main__":
    sys.exit(main())
