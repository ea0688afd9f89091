"""Runners: where candidates are built and timed, always outside the tuner's
process.

- `LocalRunner`: a pool of worker processes on this machine (`python -m
  lamina.tuning.worker`), each in a process group of its own. A worker that
  crashes (a segmentation fault, an abort) or does not answer within the
  timeout (a hang) is ended and replaced; its candidate is reported as
  `crash` or `timeout`, with the tail of what it wrote to stderr.
- `RayRunner`: the same workers on the nodes of a Ray cluster (Ray is in the
  `tune` extra): one actor per CPU slot, each measuring through a local runner
  of one worker on its node, so a bad candidate costs a worker process, never
  an actor.

`make_runner("local" | "ray" | "ray://ADDRESS")` makes one; both are context
managers that end their workers on exit (Ctrl-C included).
"""

from __future__ import annotations

import json
import os
import queue
import selectors
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from typing import IO, Any, Protocol

from lamina.errors import LaminaError
from lamina.process import end_group, interrupts_deferred
from lamina.tuning.measure import MeasureInput, MeasureResult, default_lock_path

#: Seconds a worker has to build and time one candidate before it counts as hung.
DEFAULT_TIMEOUT = 60.0


class Runner(Protocol):
    """Measures candidates; `parallelism` of them at once."""

    parallelism: int

    def run(self, jobs: Sequence[MeasureInput]) -> list[MeasureResult]:
        """The results of `jobs`, in order."""

    def close(self) -> None:
        """End the runner's workers."""


def _exit_reason(code: int) -> str:
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


class _Worker:
    """One worker process, started on demand and replaced after a fault."""

    def __init__(self, lock: str | None):
        self.lock = lock
        self.proc: subprocess.Popen[bytes] | None = None
        self.log: IO[bytes] | None = None

    def _start(self) -> subprocess.Popen[bytes]:
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 (closed by stop())
        cmd = [sys.executable, "-m", "lamina.tuning.worker", *([self.lock] if self.lock else [])]
        # (no object code cache: candidates are compiled once and thrown away)
        env = {**os.environ, "LAMINA_CACHE": "0"}
        with interrupts_deferred():  # (a Ctrl-C inside Popen would lose the child)
            self.proc = subprocess.Popen(
                cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
                start_new_session=True, env=env,
            )
        return self.proc

    def _stderr_tail(self) -> str:
        if self.log is None:
            return ""
        self.log.seek(0, os.SEEK_END)
        size = self.log.tell()
        self.log.seek(max(0, size - 600))
        lines = self.log.read().decode(errors="replace").strip().splitlines()
        return " | ".join(lines[-4:])

    def measure(self, job: MeasureInput, timeout: float) -> MeasureResult:
        proc = self.proc if self.proc is not None and self.proc.poll() is None else self._start()
        assert proc.stdin is not None and proc.stdout is not None and self.log is not None
        self.log.seek(0)
        self.log.truncate()
        try:
            proc.stdin.write((json.dumps(job.to_json()) + "\n").encode())
            proc.stdin.flush()
        except BrokenPipeError:
            pass  # it died: reading finds the end of its output
        line = self._read_line(proc, timeout)
        if line is None:
            self.stop()
            return MeasureResult.bad(
                "timeout", f"no result within {timeout:g} s (a hang?); the worker was ended"
            )
        if not line:
            code = proc.wait()
            tail = self._stderr_tail()
            self.stop()
            return MeasureResult.bad(
                "crash", f"the worker died ({_exit_reason(code)})" + (f": {tail}" if tail else "")
            )
        try:
            return MeasureResult.from_json(json.loads(line))
        except (TypeError, ValueError) as e:
            self.stop()
            return MeasureResult.bad("error", f"the worker answered {line[:200]!r}: {e}")

    @staticmethod
    def _read_line(proc: subprocess.Popen[bytes], timeout: float) -> bytes | None:
        """One line of the worker's answer: b"" at its end (it died), None after
        `timeout` seconds."""
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        data = b""
        deadline = time.monotonic() + timeout
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while not data.endswith(b"\n"):
                left = deadline - time.monotonic()
                if left <= 0 or not sel.select(left):
                    return None
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    return b""
                data += chunk
        return data

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None:
            for pipe in (proc.stdin, proc.stdout):
                if pipe is not None:
                    pipe.close()
            end_group(proc, grace=0.2)
        if self.log is not None:
            self.log.close()
            self.log = None


class LocalRunner:
    """`workers` worker processes on this machine (builds overlap; timing takes
    the machine's lock, one worker at a time); a candidate gets `timeout`
    seconds to build and time."""

    def __init__(self, workers: int = 1, timeout: float = DEFAULT_TIMEOUT, lock: str | None = None):
        if workers < 1:
            raise LaminaError(f"a local runner needs at least one worker, got {workers}")
        if timeout <= 0:
            raise LaminaError(f"the measuring timeout must be positive, got {timeout}")
        self.parallelism = workers
        self.timeout = timeout
        self._workers = [_Worker(lock or default_lock_path()) for _ in range(workers)]

    def run(self, jobs: Sequence[MeasureInput]) -> list[MeasureResult]:
        results: list[MeasureResult | None] = [None] * len(jobs)
        todo: queue.SimpleQueue[int] = queue.SimpleQueue()
        for i in range(len(jobs)):
            todo.put(i)

        def work(worker: _Worker) -> None:
            while True:
                try:
                    i = todo.get_nowait()
                except queue.Empty:
                    return
                results[i] = worker.measure(jobs[i], self.timeout)

        threads = [
            threading.Thread(target=work, args=(w,), daemon=True)
            for w in self._workers[: max(1, min(len(jobs), len(self._workers)))]
        ]
        for t in threads:
            t.start()
        for t in threads:
            while t.is_alive():  # (short joins: Ctrl-C is seen at once)
                t.join(0.1)
        return [r if r is not None else MeasureResult.bad("error", "not measured") for r in results]

    def close(self) -> None:
        for w in self._workers:
            w.stop()

    def __enter__(self) -> LocalRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class NodeMeasurer:
    """A Ray actor's body: measures jobs on its node through a local runner of
    one worker (so a crash costs that worker, not the actor)."""

    def __init__(self, timeout: float):
        self.runner = LocalRunner(1, timeout)

    def measure(self, job: dict[str, Any]) -> dict[str, Any]:
        return self.runner.run([MeasureInput.from_json(job)])[0].to_json()


class RayRunner:
    """Measures on a Ray cluster: `address` as `ray.init` takes it (None: the
    cluster `RAY_ADDRESS` names, else a new local one; `ray://HOST:10001`: a
    remote cluster through Ray Client). One actor per CPU of the cluster, or
    `workers`. Every node needs lamina installed (`pip install -e '.[tune]'` in a clone)
    and should have the CPU the tuned model will run on."""

    def __init__(
        self,
        address: str | None = None,
        workers: int | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        **init: Any,
    ):
        try:
            import ray  # optional: the `tune` extra
        except ImportError:
            raise LaminaError(
                "the Ray runner needs Ray: pip install -e '.[tune]' in lamina's clone (or pip install ray)"
            ) from None
        self._ray = ray
        self._started = False
        if not ray.is_initialized():
            try:
                ray.init(address=address, include_dashboard=False, log_to_driver=False, **init)
            except (ConnectionError, ValueError, RuntimeError) as e:
                raise LaminaError(f"cannot reach the Ray cluster {address or '(local)'}: {e}") from None
            self._started = True
        self.timeout = timeout
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self.parallelism = max(1, workers or cpus)
        self._actor = ray.remote(num_cpus=1)(NodeMeasurer)
        self._actors = [self._actor.remote(timeout) for _ in range(self.parallelism)]

    def run(self, jobs: Sequence[MeasureInput]) -> list[MeasureResult]:
        ray = self._ray
        results: list[MeasureResult | None] = [None] * len(jobs)
        idle = list(range(len(self._actors)))
        pending: dict[Any, tuple[int, int]] = {}  # ref -> (job, actor)
        nxt = 0
        while nxt < len(jobs) or pending:
            while idle and nxt < len(jobs):
                a = idle.pop()
                pending[self._actors[a].measure.remote(jobs[nxt].to_json())] = (nxt, a)
                nxt += 1
            done, _ = ray.wait(list(pending), num_returns=1, timeout=0.1 + 2 * self.timeout)
            if not done:  # (a node lost without an error)
                for i, a in pending.values():
                    results[i] = MeasureResult.bad("timeout", "the Ray actor did not answer")
                    self._actors[a] = self._actor.remote(self.timeout)
                    idle.append(a)
                pending.clear()
                continue
            for ref in done:
                i, a = pending.pop(ref)
                try:
                    results[i] = MeasureResult.from_json(ray.get(ref))
                except ray.exceptions.RayError as e:
                    first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
                    results[i] = MeasureResult.bad("error", f"Ray: {first}")
                    self._actors[a] = self._actor.remote(self.timeout)  # (it may be gone)
                idle.append(a)
        return [r if r is not None else MeasureResult.bad("error", "not measured") for r in results]

    def close(self) -> None:
        for actor in self._actors:
            self._ray.kill(actor)
        self._actors = []
        if self._started:
            self._ray.shutdown()

    def __enter__(self) -> RayRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def default_workers() -> int:
    """Local workers by default: one per two CPUs (one builds while another
    times), at least one."""
    return max(1, (os.cpu_count() or 2) // 2)


def make_runner(
    spec: str = "local", workers: int | None = None, timeout: float = DEFAULT_TIMEOUT
) -> LocalRunner | RayRunner:
    """A runner from its name: `local`, `ray` (the cluster `RAY_ADDRESS` names,
    else a local one) or `ray://HOST:PORT` (a remote cluster, Ray Client)."""
    if spec == "local":
        return LocalRunner(workers or default_workers(), timeout)
    if spec == "ray":
        return RayRunner(None, workers, timeout)
    if spec.startswith("ray://"):
        if len(spec) == len("ray://"):
            raise LaminaError("--runner ray://ADDRESS: the address is missing (e.g. ray://head:10001)")
        return RayRunner(spec, workers, timeout)
    raise LaminaError(f"unknown runner '{spec}': give local, ray or ray://ADDRESS")


__all__ = [
    "DEFAULT_TIMEOUT",
    "LocalRunner",
    "NodeMeasurer",
    "RayRunner",
    "Runner",
    "default_workers",
    "make_runner",
]
