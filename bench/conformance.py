"""Pass rate of lamina on the in-scope cases of ONNX's backend node test suite.

    python bench/conformance.py                     # node cases, 2 workers
    python bench/conformance.py -k 'conv|pool'      # only cases whose name matches
    python bench/conformance.py --json out.json     # every case's result, for diffs
    python bench/conformance.py --kinds node simple pytorch-converted pytorch-operator

Scope is decided from each case's model (`lamina.tools.onnx_conformance`):
default domain only; tensors of f32, f64, int8/16/32/64, uint8/16 or bool; no random,
training, sequence or optional op. Each in-scope case runs the way onnx's
`BackendTest` runs it (`LaminaBackend.prepare`, then `run` on every data set, then
`Runner.assert_similar_outputs` with the case's rtol/atol) inside worker
subprocesses, with a per-case timeout: a crash or a hang costs that case only.

Outcomes: `pass`; `unsupported` (a `NotImplementedError`, e.g. lamina's
`UnsupportedOpError`); and the failures: `mismatch` (wrong values, shape or dtype),
`error` (a `LaminaError` other than unsupported: import, lowering or compile),
`internal` (any other exception: a lamina bug), `crash` (the worker died) and
`timeout`. The pass rate is passed / in-scope.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import selectors
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter, defaultdict
from typing import Any

from lamina.tools.onnx_backend import SPECIALIZE_ENV, specialize_default

FAILURES = ("mismatch", "error", "internal", "crash", "timeout")


# ------------------------------------------------------------------- worker side
def _run_case(case: Any, specialize: bool, symbolic: bool = False) -> dict[str, Any]:
    from onnx.backend.test.runner import Runner

    from lamina.errors import LaminaError
    from lamina.tools import onnx_conformance as oc
    from lamina.tools.onnx_backend import LaminaBackend

    frozen: list[str] = []
    try:
        model = oc.symbolize(case.model) if symbolic else case.model
        rep = LaminaBackend.prepare(model, "CPU", specialize=specialize, check=not symbolic)
        for inputs, expected in case.data_sets:
            outputs = rep.run(list(inputs))
            Runner.assert_similar_outputs(
                list(expected), list(outputs), rtol=case.rtol, atol=case.atol
            )
        frozen = list(rep.frozen)
        return {
            "status": "pass",
            "frozen": frozen,
            "all_bound": bool(frozen) and len(frozen) == len(rep.input_names),
        }
    except NotImplementedError as e:
        return {"status": "unsupported", "message": _first_line(e)}
    except AssertionError as e:
        return {"status": "mismatch", "message": _mismatch_summary(e)}
    except LaminaError as e:
        return {"status": "error", "type": type(e).__name__, "message": _first_line(e)}
    except Exception as e:
        tb = traceback.extract_tb(e.__traceback__)
        where = next(
            (
                f"{os.path.basename(f.filename)}:{f.lineno} in {f.name}"
                for f in reversed(tb)
                if "lamina" in f.filename or "/main/" in f.filename
            ),
            f"{os.path.basename(tb[-1].filename)}:{tb[-1].lineno}" if tb else "?",
        )
        return {
            "status": "internal",
            "type": type(e).__name__,
            "message": _first_line(e),
            "where": where,
        }


def _first_line(e: BaseException) -> str:
    text = str(e).strip() or type(e).__name__
    return text.splitlines()[0][:400]


def _mismatch_summary(e: AssertionError) -> str:
    lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
    keep = [
        ln
        for ln in lines
        if ln.startswith(
            ("Mismatched", "Max absolute", "Max relative", "Output", "x:", "y:")
        )
        or "shape" in ln
        or "dtype" in ln.lower()
    ]
    return " | ".join((keep or lines)[:4])[:400]


def worker_main(kinds: list[str], specialize: bool, symbolic: bool = False) -> None:
    # Results go to the original stdout; anything else printed (by Python or by
    # native code) goes to stderr so it cannot corrupt the protocol.
    import faulthandler

    out = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    faulthandler.enable()  # a crash prints where it happened (see crash_message)
    from lamina.tools import onnx_conformance as oc

    by_name = {c.name: c for c in oc.cases(kinds)}
    out.write(json.dumps({"ready": True}) + "\n")
    for line in sys.stdin:
        name = line.strip()
        if not name:
            continue
        start = time.perf_counter()
        result = _run_case(by_name[name], specialize, symbolic)
        result["name"] = name
        result["seconds"] = round(time.perf_counter() - start, 3)
        out.write(json.dumps(result) + "\n")


# ------------------------------------------------------------------- parent side
class Worker:
    def __init__(self, argv: list[str], log: Any) -> None:
        self.log = log
        self.stderr = tempfile.TemporaryFile("w+")  # noqa: SIM115 (closed in stop)
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            text=True,
        )
        assert self.proc.stdout is not None
        self.fd = self.proc.stdout.fileno()
        self.case: str | None = None
        self.started = 0.0
        self.done = 0
        self.ready = False
        self.buffer = ""

    def send(self, name: str) -> None:
        assert self.proc.stdin is not None
        self.case, self.started = name, time.monotonic()
        self.proc.stdin.write(name + "\n")
        self.proc.stdin.flush()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.log.write(self.stderr_text())
        self.stderr.close()

    def stderr_text(self) -> str:
        self.stderr.flush()
        self.stderr.seek(0)
        return self.stderr.read()

    def crash_message(self) -> str:
        """What faulthandler said: the fatal error and the innermost frame."""
        code = self.proc.returncode
        text = self.stderr_text()
        msg = f"worker exited with code {code}"
        if code is not None and code < 0:
            msg += f" ({signal.Signals(-code).name})"
        fatal = re.findall(r"Fatal Python error: (.*)", text)
        frames = re.findall(r'File "([^"]+)", line (\d+) in (\S+)', text)
        if fatal:
            msg = fatal[-1].strip()
        if frames:
            f, line, fn = frames[0]
            msg += f" @ {os.path.basename(f)}:{line} in {fn}"
        return msg


def run_all(
    names: list[str],
    kinds: list[str],
    jobs: int,
    timeout: float,
    recycle: int,
    specialize: bool,
    log: Any,
    progress: bool,
    symbolic: bool = False,
) -> dict[str, dict[str, Any]]:
    argv = [sys.executable, os.path.abspath(__file__), "--worker", "--kinds", *kinds]
    if specialize:
        argv.append("--specialize")
    if symbolic:
        argv.append("--symbolic")
    queue = list(reversed(names))
    results: dict[str, dict[str, Any]] = {}
    sel = selectors.DefaultSelector()
    workers: list[Worker] = []

    def spawn() -> None:
        w = Worker(argv, log)
        sel.register(w.fd, selectors.EVENT_READ, w)
        workers.append(w)

    def retire(w: Worker) -> None:
        sel.unregister(w.fd)
        w.stop()
        workers.remove(w)

    def feed(w: Worker) -> None:
        if queue and w.done < recycle:
            w.send(queue.pop())
        else:
            retire(w)
            if queue:
                spawn()

    for _ in range(min(jobs, len(queue))):
        spawn()
    total, last = len(names), 0.0
    while workers:
        for key, _ in sel.select(timeout=0.5):
            w: Worker = key.data
            chunk = os.read(w.fd, 1 << 16).decode()
            if not chunk:  # EOF: the worker died
                try:
                    w.proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    w.proc.kill()
                    w.proc.wait()
                if w.case is not None:
                    results[w.case] = {
                        "name": w.case,
                        "status": "crash",
                        "message": w.crash_message(),
                    }
                else:  # died before or between cases: don't loop forever
                    print(f"worker exited with {w.proc.returncode}", file=sys.stderr)
                    if not results and not w.ready:
                        raise SystemExit("the worker could not start; see the log")
                retire(w)
                if queue:
                    spawn()
                continue
            w.buffer += chunk
            while "\n" in w.buffer:
                line, w.buffer = w.buffer.split("\n", 1)
                msg = json.loads(line)
                if msg.get("ready"):
                    w.ready = True
                else:
                    results[msg["name"]] = msg
                    w.case = None
                    w.done += 1
                if w.case is None and w in workers:
                    feed(w)
        now = time.monotonic()
        for w in list(workers):
            if w.case is not None and now - w.started > timeout:
                results[w.case] = {
                    "name": w.case,
                    "status": "timeout",
                    "message": f"no result after {timeout:.0f} s",
                }
                w.case = None
                retire(w)
                if queue:
                    spawn()
        if progress and (now - last > 10 or not workers):
            last = now
            print(f"  {len(results)}/{total} cases done", file=sys.stderr, flush=True)
    return results


# ------------------------------------------------------------------- reporting
_NUM = re.compile(r"\d+(\.\d+)?(e[-+]?\d+)?")
_QUOTED = re.compile(r"'[^']*'")


def cause(r: dict[str, Any]) -> str:
    """A key grouping failures with the same cause."""
    status, msg = r["status"], r.get("message", "")
    if status == "mismatch":
        if "shape" in msg:
            return "mismatch: wrong shape"
        if "dtype" in msg.lower() or "Items are not equal" in msg:
            return "mismatch: wrong dtype"
        if "nan" in msg.lower():
            return "mismatch: NaN/inf"
        return "mismatch: wrong values"
    if status == "timeout":
        return status
    if status == "crash":
        return f"crash: {msg}"
    msg = re.sub(r"ONNX node (\S+ )?\((\w+), opset \d+\)", r"ONNX node (\2)", msg)
    msg = _QUOTED.sub("'…'", _NUM.sub("N", msg))
    where = f" @ {r['where']}" if r.get("where") else ""
    return f"{status}: {r.get('type', '')}: {msg[:160]}{where}"


def report(
    all_cases: list[Any],
    results: dict[str, dict[str, Any]],
    targets: dict[str, str],
    scope: dict[str, str | None],
    examples: int,
) -> dict[str, Any]:
    import onnx

    in_scope = [c.name for c in all_cases if scope[c.name] is None]
    ran = [n for n in in_scope if n in results]
    counts = Counter(results[n]["status"] for n in ran)
    failed = sum(counts[s] for s in FAILURES)
    passed, unsupported = counts["pass"], counts["unsupported"]
    n = len(ran)
    pct = 100.0 * passed / n if n else 0.0
    out_reasons = Counter(
        re.sub(r" \S+$", "", scope[c.name])
        if scope[c.name].startswith(("random", "training", "sequence", "domain"))
        else scope[c.name]
        for c in all_cases
        if scope[c.name] is not None
    )
    print(f"\nONNX backend test suite (onnx {onnx.__version__}), lamina")
    print(f"  cases: {len(all_cases)}; in scope: {len(in_scope)}; run: {n}")
    listed = ", ".join(f"{r} {k}" for r, k in out_reasons.most_common())
    print(f"  out of scope: {listed or 'none'}")
    print(f"  passed      {passed:5d}")
    print(
        f"  failed      {failed:5d}  ("
        + ", ".join(f"{s} {counts[s]}" for s in FAILURES)
        + ")"
    )
    print(f"  unsupported {unsupported:5d}")
    frozen = sum(1 for k in ran if results[k].get("frozen"))
    all_bound = sum(1 for k in ran if results[k].get("all_bound"))
    print(f"  PASS RATE   {pct:.1f}% ({passed}/{n} in-scope cases)")
    if frozen:
        print(
            f"  ({frozen} passing cases bound a shape-like input to its value, "
            f"{all_bound} of them every input; without --specialize those inputs are read "
            "when the model runs)"
        )

    per_op: dict[str, Counter[str]] = defaultdict(Counter)
    for k in ran:
        s = results[k]["status"]
        per_op[targets[k]]["fail" if s in FAILURES else s] += 1
    print(f"\nper op ({len(per_op)} ops; cases grouped by the op they test):")
    print(f"  {'op':28s} {'cases':>5s} {'pass':>5s} {'fail':>5s} {'unsup':>5s}")
    for op in sorted(per_op, key=str.lower):
        c = per_op[op]
        print(
            f"  {op:28s} {c.total():5d} {c['pass']:5d} {c['fail']:5d} "
            f"{c['unsupported']:5d}"
        )

    groups: dict[str, list[str]] = defaultdict(list)
    for k in ran:
        if results[k]["status"] in FAILURES:
            groups[cause(results[k])].append(k)
    if groups:
        print(f"\nfailures by cause ({failed} cases, {len(groups)} causes):")
        for key, names in sorted(groups.items(), key=lambda x: (-len(x[1]), x[0])):
            print(f"  {len(names):4d}  {key}")
            print("        e.g. " + ", ".join(names[:examples]))
    unsup_ops = Counter(
        targets[k] for k in ran if results[k]["status"] == "unsupported"
    )
    if unsup_ops:
        print(
            f"\nunsupported ({unsupported} cases over {len(unsup_ops)} ops), "
            "most cases first:"
        )
        print("  " + ", ".join(f"{op} {m}" for op, m in unsup_ops.most_common()))
    return {
        "onnx": onnx.__version__,
        "cases": len(all_cases),
        "in_scope": len(in_scope),
        "run": n,
        "passed": passed,
        "failed": failed,
        "unsupported": unsupported,
        "pass_rate": round(pct, 2),
        "specialized": frozen,
        "all_inputs_bound": all_bound,
        "counts": dict(counts),
        "per_op": {op: dict(c) for op, c in per_op.items()},
        "results": {k: {**results[k], "op": targets[k]} for k in sorted(ran)},
        "out_of_scope": {c.name: scope[c.name] for c in all_cases if scope[c.name]},
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--kinds",
        nargs="+",
        default=["node"],
        help="node (default), simple, pytorch-converted, pytorch-operator",
    )
    p.add_argument("-k", "--filter", help="regex: only cases whose name matches")
    p.add_argument("-j", "--jobs", type=int, default=2, help="worker processes (2)")
    p.add_argument(
        "--timeout", type=float, default=120.0, help="seconds per case (120)"
    )
    p.add_argument(
        "--recycle", type=int, default=200, help="restart a worker after N cases (200)"
    )
    p.add_argument(
        "--specialize",
        action="store_true",
        default=specialize_default(),
        help="compile per input shape and bind shape-like inputs (Reshape's shape, "
        f"...) to their values (default: off, or ${SPECIALIZE_ENV})",
    )
    p.add_argument(
        "--symbolic",
        action="store_true",
        help="make every input dim above 1 symbolic (one size per distinct value) "
        "and compile once: a differential test of the symbolic lowering",
    )
    p.add_argument("--json", help="write every case's result to this file")
    p.add_argument("--log", default=os.devnull, help="workers' stderr (default: drop)")
    p.add_argument("--examples", type=int, default=4, help="example names per cause")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)

    if args.worker:
        worker_main(args.kinds, args.specialize, args.symbolic)
        return 0

    from lamina.tools import onnx_conformance as oc

    start = time.monotonic()
    all_cases = oc.cases(args.kinds)
    if args.filter:
        rx = re.compile(args.filter)
        all_cases = [c for c in all_cases if rx.search(c.name)]
    by_name = {c.name: c for c in all_cases}
    scope = {c.name: oc.out_of_scope(c.model) for c in all_cases}
    targets = {c.name: oc.target_op(c, by_name) for c in all_cases}
    names = [c.name for c in all_cases if scope[c.name] is None]
    print(
        f"running {len(names)} in-scope cases with {args.jobs} workers "
        f"(timeout {args.timeout:.0f} s per case)...",
        file=sys.stderr,
    )
    with open(args.log, "w") as log:
        results = run_all(
            names,
            args.kinds,
            args.jobs,
            args.timeout,
            args.recycle,
            args.specialize,
            log,
            not args.quiet,
            args.symbolic,
        )
    summary = report(all_cases, results, targets, scope, args.examples)
    summary["seconds"] = round(time.monotonic() - start, 1)
    summary["specialize"] = args.specialize
    summary["symbolic"] = args.symbolic
    print(f"\n{summary['seconds']:.0f} s")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=1)
        print(f"results: {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
