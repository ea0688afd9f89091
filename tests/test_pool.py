"""lamina's thread pool (`lamina.codegen.pool`): `lamina_parallel_for` against
numpy, team sizes, concurrent callers, and libraries that need no libgomp."""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import sys
import textwrap
import threading

import llvmlite.binding as llvm
import numpy as np
import pytest

import lamina
from lamina.abi import SET_NUM_THREADS
from lamina.codegen.codegen import LLVM_LOCK, emit_object, parse_ir, target_machine
from lamina.codegen.jit import pool_address, set_num_threads
from lamina.codegen.kernels import FORK_UNSAFE
from lamina.codegen.pool import FUTEX_SYSCALL, GET_MAX_THREADS, PARALLEL_FOR, pool_ir
from lamina.target import Target
from lamina.tools.demo import mlp_model

# task(data, lo, hi): out[i] = 3 i + 1 and visits[i] += 1 (atomically) for i in
# lo .. hi, where data = {out, visits}
_TASK = """
define void @mark(ptr %data, i64 %lo, i64 %hi) {
entry:
  %out = load ptr, ptr %data
  %vp = getelementptr ptr, ptr %data, i64 1
  %visits = load ptr, ptr %vp
  br label %head
head:
  %i = phi i64 [ %lo, %entry ], [ %next, %body ]
  %more = icmp slt i64 %i, %hi
  br i1 %more, label %body, label %done
body:
  %v3 = mul i64 %i, 3
  %v = add i64 %v3, 1
  %o = getelementptr i64, ptr %out, i64 %i
  store i64 %v, ptr %o
  %c = getelementptr i64, ptr %visits, i64 %i
  %old = atomicrmw add ptr %c, i64 1 seq_cst
  %next = add i64 %i, 1
  br label %head
done:
  ret void
}
"""

_FOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64)


@pytest.fixture(scope="module")
def pool():
    """(parallel_for, the task's address); the task's engine lives as long."""
    set_num_threads(1)  # initializes the JIT and the pool
    with LLVM_LOCK:
        tm = target_machine(Target.host(), 2, jit=True)
        engine = llvm.create_mcjit_compiler(parse_ir(_TASK), tm)
        engine.finalize_object()
        task = engine.get_function_address("mark")
    yield _FOR(pool_address(PARALLEL_FOR)), task
    set_num_threads(1)
    del engine


def _run(pool, count: int) -> None:
    parallel_for, task = pool
    out = np.full(max(count, 1), -1, np.int64)
    visits = np.zeros(max(count, 1), np.int64)
    data = (ctypes.c_void_p * 2)(out.ctypes.data, visits.ctypes.data)
    parallel_for(task, ctypes.addressof(data), count)
    if count == 0:
        assert out[0] == -1 and visits[0] == 0
        return
    np.testing.assert_array_equal(out, 3 * np.arange(count, dtype=np.int64) + 1)
    np.testing.assert_array_equal(visits, np.ones(count, np.int64))


@pytest.mark.parametrize("threads", [1, 2, 3, 5])
def test_parallel_for_matches_numpy(pool, threads):
    """Counts below the team, not divisible by the chunks, 0 and 1."""
    set_num_threads(threads)
    for count in (0, 1, 2, 3, 4, 5, 7, 13, 20, 21, 97, 1000, 4099):
        _run(pool, count)


def test_many_repeated_calls(pool):
    set_num_threads(2)
    for i in range(3000):
        _run(pool, 1 + i % 37)


def test_two_python_threads_at_once(pool):
    """Concurrent callers: one holds the pool, the other runs its loop inline."""
    set_num_threads(2)
    errors: list[BaseException] = []

    def go(seed: int) -> None:
        try:
            for i in range(600):
                _run(pool, 1 + (i * seed) % 200)
        except BaseException as e:  # reported below
            errors.append(e)

    workers = [threading.Thread(target=go, args=(s,)) for s in (3, 7, 11)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert not errors, errors[0]


def test_team_size_is_read_back():
    get = ctypes.CFUNCTYPE(ctypes.c_int32)(pool_address(GET_MAX_THREADS))
    for n in (1, 2, 1, 3):
        set_num_threads(n)
        assert get() == n
    set_num_threads(1)


def test_models_share_one_pool_and_follow_the_team_size():
    """In a fresh process: models compiled there share one pool, whose workers
    are the team size less one, created when a loop first needs them; the team
    changes between runs (1 -> 2 -> 1 -> 3) with the same results."""
    script = textwrap.dedent(
        """
        import os
        import numpy as np
        import lamina
        from lamina.tools.demo import mlp_model

        def threads():
            return len(os.listdir("/proc/self/task"))

        models = [lamina.compile(mlp_model((256, 512, 64), seed=s), num_threads=1) for s in range(3)]
        x = np.linspace(-1, 1, 256, dtype=np.float32).reshape(1, 256)
        ref = [m.run(x)[0].copy() for m in models]
        base = threads()
        for n in (2, 1, 2, 3, 1):
            for m, r in zip(models, ref):
                m.num_threads = n
                for _ in range(3):
                    np.testing.assert_allclose(m.run(x)[0], r, rtol=1e-5, atol=1e-6)
            print(n, threads() - base)
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr
    grown = [tuple(map(int, line.split())) for line in proc.stdout.splitlines()]
    # workers are created lazily, never more than the largest team less one
    assert grown == [(2, 1), (1, 1), (2, 1), (3, 2), (1, 2)]


def test_one_thread_runs_no_worker(pool):
    set_num_threads(1)
    _run(pool, 100)


@pytest.mark.skipif(shutil.which("readelf") is None, reason="needs readelf")
def test_an_exported_library_needs_no_libgomp(tmp_path):
    exe = lamina.compile(mlp_model((64, 128, 10)), num_threads=2)
    path = tmp_path / "mlp.so"
    exe.export(path)
    dynamic = subprocess.run(["readelf", "-dW", str(path)], capture_output=True, text=True).stdout
    needed = {line.split("[")[1].split("]")[0] for line in dynamic.splitlines() if "(NEEDED)" in line}
    assert needed <= {"libc.so.6", "libm.so.6", "libpthread.so.0", "libmvec.so.1"}, needed
    symbols = subprocess.run(["readelf", "-sW", "--dyn-syms", str(path)], capture_output=True, text=True).stdout
    exported = {
        line.split()[-1]
        for line in symbols.splitlines()
        if " GLOBAL " in line and " UND " not in line
    }
    # the pool's functions are the library's own, but for the runtime's setter
    assert SET_NUM_THREADS in exported
    assert PARALLEL_FOR not in exported and GET_MAX_THREADS not in exported
    x = np.linspace(-1, 1, 64, dtype=np.float32).reshape(1, 64)
    loaded = lamina.load(path)
    for n in (1, 2, 1):
        loaded.num_threads = n
        np.testing.assert_allclose(loaded.run(x)[0], exe.run(x)[0], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("triple", ["aarch64-linux-gnu", "riscv64-linux-gnu", "wasm32"])
def test_the_pool_builds_for_other_targets(triple):
    """The IR is target-neutral but for the futex number; wasm32 (no futex,
    no pthreads here) gets a serial pool."""
    target = Target.parse(triple)
    tm = target_machine(target)
    text = pool_ir(target, str(tm.target_data), hidden=True)
    with LLVM_LOCK:
        assert emit_object(parse_ir(text), tm)
    futex = FUTEX_SYSCALL.get(target.arch)
    if futex is None:
        assert "pthread_create" not in text and "syscall" not in text
    else:
        assert f"@syscall(i64 {futex}," in text and "pthread_create" in text


def test_two_models_run_at_once_from_two_python_threads():
    """Concurrent models on the shared pool: the run that finds the pool busy
    runs its loops on its own thread; every result is right."""
    models = [lamina.compile(mlp_model((128, 256, 32), seed=s), num_threads=2) for s in (0, 1)]
    x = np.linspace(-1, 1, 128, dtype=np.float32).reshape(1, 128)
    refs = [m.run(x)[0].copy() for m in models]
    errors: list[BaseException] = []

    def go(i: int) -> None:
        try:
            for _ in range(200):
                np.testing.assert_allclose(models[i].run(x)[0], refs[i], rtol=1e-5, atol=1e-6)
        except BaseException as e:  # reported below
            errors.append(e)

    workers = [threading.Thread(target=go, args=(i,)) for i in (0, 1, 0, 1)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert not errors, errors[0]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_runs_parallel_loops_without_the_workers(pool):
    """A child forked after the pool started has none of its workers: the
    caller claims every chunk itself instead of waiting for them."""
    if any(name in sys.modules for name in FORK_UNSAFE):  # as compile-kernels does not fork beside them
        pytest.skip("grpc's fork handlers (Ray's, from an earlier test in this process) can hang a forked child")
    set_num_threads(2)
    _run(pool, 100)  # the workers exist in the parent
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            for count in (5, 100, 1000):
                _run(pool, count)
        except BaseException:
            os._exit(1)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
