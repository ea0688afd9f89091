"""lamina's thread pool, as an LLVM module for a target (what libgomp was).

Parallel loops (`lamina.codegen.parallel`) call three C functions:

- `void lamina_parallel_for(void (*task)(void *data, i64 lo, i64 hi), void *data,
  i64 count)` runs `task` over `[0, count)` in contiguous chunks, a few per
  thread (`CHUNKS_PER_THREAD`), handed out dynamically; the calling thread takes
  chunks too, and returns once every chunk has finished. Only claimed chunks are
  waited for, so a worker that has not started yet (or is descheduled before
  claiming) holds nobody up: a thread on a core a busy process shares claims
  less, instead of stalling every loop at a static split's join. While another
  thread of the process is inside `lamina_parallel_for` (or a task calls it),
  the loop runs serially on the caller.
- `void lamina_set_num_threads(i32)` / `i32 lamina_get_max_threads()`: the team
  size, process-wide (per pool); until set, the processors online. Workers
  (team - 1) are created lazily by the first loop that needs them, more when
  the team grows; a team that shrinks leaves the extra workers asleep.

A job is published as a 64-bit ticket (a tag, the chunk count, the next chunk)
that threads claim chunks from with compare-and-swap, so a worker that wakes
late can never claim a chunk of a job that is over, nor run one job's chunk
with another's task. Between jobs a worker spins `SPIN` times (with the
target's pause hint) on the job generation, then sleeps on it with the Linux
futex syscall (through libc's `syscall`; the number is the architecture's);
the caller makes the syscall to wake only when a worker sleeps. The caller waits
for the last chunks the same way: it spins, then sleeps until the worker
finishing the last chunk wakes it, so a descheduled worker gets its core.

The IR is target-neutral apart from the futex number and the pause hint: atomics,
`pthread_create` (the thread id is an 8-byte opaque slot), `syscall` and
`sysconf(_SC_NPROCESSORS_ONLN)`; no pthread structure is laid out. A target
without a futex number here (wasm32) gets a serial pool: every loop runs on the
caller. The JIT compiles the pool once per process (`lamina.codegen.jit`), so
every JIT-compiled model shares it; an exported library links its own copy
with hidden symbols (`lamina.codegen.export`) except `lamina_set_num_threads`,
which the runtime calls (`lamina.runtime.model`).
"""

from __future__ import annotations

from lamina.abi import SET_NUM_THREADS
from lamina.target import Target

#: The functions the pool defines.
PARALLEL_FOR = "lamina_parallel_for"
GET_MAX_THREADS = "lamina_get_max_threads"
EXPORTS = (PARALLEL_FOR, GET_MAX_THREADS, SET_NUM_THREADS)

#: Chunks per thread of a loop (at most; a loop of fewer iterations has one
#: chunk per iteration): enough that the share of a thread its core's other load
#: slows down moves to the others (a chunk claimed is the most a descheduled
#: thread holds the loop up by), few enough that claiming (one compare-and-swap)
#: costs nothing next to a chunk. The demo CNN niced beside a busy core on a
#: fixed team of 2 ran 13 ms a run with 4 chunks per thread, 10.6 with 16.
CHUNKS_PER_THREAD = 16
#: Pause-hinted polls before a waiting thread sleeps in the kernel. A pause takes
#: 10-150 cycles depending on the core (30 ns on the AMD EPYC this was measured
#: on), so a wait spins 1-15 us: longer than the gap between the back-to-back
#: loops of a run (a running model's workers do not sleep), and short, because a
#: spinning thread holds its core: beside a busy process, the scheduler cannot
#: move the thread that shares that process's core to the core a spinning
#: worker keeps busy. The demo CNN niced beside one busy core on a fixed team of
#: 2 ran 13.1 ms a run with 16384 polls (0.5 ms), 9.3 ms with 2048 and 6.5-7.0 ms
#: with 256 (its quiet 1-thread run: 6.5 ms); quiet, 2 threads ran it in 3.8 ms
#: with 256 polls and 4.2 ms with 16384. libgomp spun 300000 polls (9 ms here)
#: with lamina's old settings.
SPIN = 256
#: The most threads a team may have (the chunk fields of a ticket are 20 bits).
MAX_THREADS = 1024

#: The Linux futex syscall's number per architecture (asm-generic: 98).
FUTEX_SYSCALL = {"x86_64": 202, "aarch64": 98, "riscv64": 98}
_PAUSE = {
    "x86_64": ("call void @llvm.x86.sse2.pause()", "declare void @llvm.x86.sse2.pause()"),
    "aarch64": ("call void @llvm.aarch64.hint(i32 1)", "declare void @llvm.aarch64.hint(i32)"),
}
_FUTEX_WAIT_PRIVATE, _FUTEX_WAKE_PRIVATE = 128, 129
#: glibc's and musl's `_SC_NPROCESSORS_ONLN`.
_SC_NPROCESSORS_ONLN = 84

_COMMON = """
@pool.team = internal global i32 0, align 64
declare {long} @sysconf(i32)

define {vis}i32 @lamina_get_max_threads() nounwind {{
entry:
  %t = load atomic i32, ptr @pool.team monotonic, align 4
  %set = icmp sgt i32 %t, 0
  br i1 %set, label %known, label %ask
known:
  ret i32 %t
ask:
  %n = call {long} @sysconf(i32 {sc_nproc})
  %n32 = {to_i32}
  %pos = icmp sgt i32 %n32, 0
  %n1 = select i1 %pos, i32 %n32, i32 1
  %big = icmp sgt i32 %n1, {max_threads}
  %n2 = select i1 %big, i32 {max_threads}, i32 %n1
  %r = cmpxchg ptr @pool.team, i32 0, i32 %n2 monotonic monotonic
  %old = extractvalue {{ i32, i1 }} %r, 0
  %won = extractvalue {{ i32, i1 }} %r, 1
  %out = select i1 %won, i32 %n2, i32 %old
  ret i32 %out
}}

define {set_vis}void @lamina_set_num_threads(i32 %n) nounwind {{
entry:
  %pos = icmp sgt i32 %n, 0
  %n1 = select i1 %pos, i32 %n, i32 1
  %big = icmp sgt i32 %n1, {max_threads}
  %n2 = select i1 %big, i32 {max_threads}, i32 %n1
  store atomic i32 %n2, ptr @pool.team monotonic, align 4
  ret void
}}
"""

_SERIAL = """
define {vis}void @lamina_parallel_for(ptr %task, ptr %data, i64 %count) {{
entry:
  %any = icmp sgt i64 %count, 0
  br i1 %any, label %run, label %done
run:
  call void %task(ptr %data, i64 0, i64 %count)
  br label %done
done:
  ret void
}}
"""

_THREADED = """
@pool.busy = internal global i32 0, align 64
@pool.workers = internal global i32 0, align 64
@pool.gen = internal global i32 0, align 64
@pool.sleepers = internal global i32 0, align 64
@pool.ticket = internal global i64 0, align 64
@pool.done = internal global i32 0, align 64
@pool.waiting = internal global i32 0, align 64
@pool.active = internal global i32 0, align 64
@pool.tag = internal global i64 0, align 64
@pool.task = internal global ptr null, align 64
@pool.data = internal global ptr null, align 8
@pool.count = internal global i64 0, align 8

declare i64 @syscall(i64, ...)
declare i32 @pthread_create(ptr, ptr, ptr, ptr)
{pause_decl}

define internal void @pool.futex_wait(ptr %addr, i32 %val) nounwind {{
entry:
  %v = zext i32 %val to i64
  %r = call i64 (i64, ...) @syscall(i64 {futex}, ptr %addr, i64 {wait_op}, i64 %v, ptr null)
  ret void
}}

define internal void @pool.futex_wake(ptr %addr, i32 %n) nounwind {{
entry:
  %v = zext i32 %n to i64
  %r = call i64 (i64, ...) @syscall(i64 {futex}, ptr %addr, i64 {wake_op}, i64 %v, ptr null)
  ret void
}}

; Claim chunks of the current job and run them until none is left.
define internal void @pool.work() {{
entry:
  br label %claim
claim:
  %t = load atomic i64, ptr @pool.ticket acquire, align 8
  %k = and i64 %t, 1048575
  %t20 = lshr i64 %t, 20
  %n = and i64 %t20, 1048575
  %left = icmp ult i64 %k, %n
  br i1 %left, label %try, label %out
try:
  %t1 = add i64 %t, 1
  %x = cmpxchg ptr @pool.ticket, i64 %t, i64 %t1 acq_rel acquire
  %ok = extractvalue {{ i64, i1 }} %x, 1
  br i1 %ok, label %run, label %claim
run:
  %task = load ptr, ptr @pool.task, align 8
  %data = load ptr, ptr @pool.data, align 8
  %count = load i64, ptr @pool.count, align 8
  %base = udiv i64 %count, %n
  %rem = urem i64 %count, %n
  %early = icmp ult i64 %k, %rem
  %extra = select i1 %early, i64 %k, i64 %rem
  %kb = mul i64 %k, %base
  %lo = add i64 %kb, %extra
  %one = zext i1 %early to i64
  %len = add i64 %base, %one
  %hi = add i64 %lo, %len
  call void %task(ptr %data, i64 %lo, i64 %hi)
  %n32 = trunc i64 %n to i32
  %prev = atomicrmw add ptr @pool.done, i32 1 seq_cst, align 4
  %now = add i32 %prev, 1
  %last = icmp eq i32 %now, %n32
  br i1 %last, label %last_chunk, label %claim
last_chunk:
  %w = load atomic i32, ptr @pool.waiting seq_cst, align 4
  %sleeps = icmp ne i32 %w, 0
  br i1 %sleeps, label %wake, label %claim
wake:
  call void @pool.futex_wake(ptr @pool.done, i32 1)
  br label %claim
out:
  ret void
}}

define internal ptr @pool.worker(ptr %arg) {{
entry:
  %id = ptrtoint ptr %arg to i32
  br label %wait
wait:
  %seen = phi i32 [ 0, %entry ], [ %seen, %slept ], [ %g, %got ], [ %g, %idle ]
  %spins0 = phi i32 [ 0, %entry ], [ 0, %slept ], [ 0, %got ], [ {spin}, %idle ]
  br label %poll
poll:
  %spins = phi i32 [ %spins0, %wait ], [ %spins1, %relax ]
  %g = load atomic i32, ptr @pool.gen acquire, align 4
  %new = icmp ne i32 %g, %seen
  br i1 %new, label %job, label %spin
spin:
  %more = icmp ult i32 %spins, {spin}
  br i1 %more, label %relax, label %sleep
relax:
  {pause}
  %spins1 = add i32 %spins, 1
  br label %poll
sleep:
  %s0 = atomicrmw add ptr @pool.sleepers, i32 1 seq_cst, align 4
  %g2 = load atomic i32, ptr @pool.gen seq_cst, align 4
  %same = icmp eq i32 %g2, %seen
  br i1 %same, label %block, label %awake
block:
  call void @pool.futex_wait(ptr @pool.gen, i32 %seen)
  br label %awake
awake:
  %s1 = atomicrmw sub ptr @pool.sleepers, i32 1 seq_cst, align 4
  br label %slept
slept:
  br label %wait
job:
  %a = load atomic i32, ptr @pool.active monotonic, align 4
  %mine = icmp ult i32 %id, %a
  br i1 %mine, label %do, label %idle
do:
  call void @pool.work()
  br label %got
got:
  br label %wait
idle:
  br label %wait
}}

define {vis}void @lamina_parallel_for(ptr %task, ptr %data, i64 %count) {{
entry:
  %any = icmp sgt i64 %count, 0
  br i1 %any, label %size, label %ret
size:
  %team = call i32 @lamina_get_max_threads()
  %solo = icmp sle i32 %team, 1
  %one = icmp eq i64 %count, 1
  %serial = or i1 %solo, %one
  br i1 %serial, label %inline, label %lock
lock:
  %b = cmpxchg ptr @pool.busy, i32 0, i32 1 acquire monotonic
  %free = extractvalue {{ i32, i1 }} %b, 1
  br i1 %free, label %grow, label %inline
inline:
  call void %task(ptr %data, i64 0, i64 %count)
  br label %ret
grow:
  %want = sub i32 %team, 1
  %have0 = load i32, ptr @pool.workers, align 4
  %slot = alloca [2 x i64], align 16
  br label %spawn_check
spawn_check:
  %have = phi i32 [ %have0, %grow ], [ %have1, %spawned ]
  %short = icmp slt i32 %have, %want
  br i1 %short, label %spawn, label %spawn_done
spawn:
  %idp = inttoptr i32 %have to ptr
  %rc = call i32 @pthread_create(ptr %slot, ptr null, ptr @pool.worker, ptr %idp)
  %made = icmp eq i32 %rc, 0
  %have1 = add i32 %have, 1
  br i1 %made, label %spawned, label %spawn_done
spawned:
  br label %spawn_check
spawn_done:
  %workers = phi i32 [ %have, %spawn_check ], [ %have, %spawn ]
  store i32 %workers, ptr @pool.workers, align 4
  %team64 = sext i32 %team to i64
  %cap = mul i64 %team64, {chunks_per_thread}
  %few = icmp slt i64 %count, %cap
  %chunks = select i1 %few, i64 %count, i64 %cap
  store ptr %task, ptr @pool.task, align 8
  store ptr %data, ptr @pool.data, align 8
  store i64 %count, ptr @pool.count, align 8
  store atomic i32 %want, ptr @pool.active monotonic, align 4
  store atomic i32 0, ptr @pool.done monotonic, align 4
  %tag0 = load i64, ptr @pool.tag, align 8
  %tag1 = add i64 %tag0, 1
  %tag = and i64 %tag1, 16777215
  store i64 %tag, ptr @pool.tag, align 8
  %tagbits = shl i64 %tag, 40
  %nbits = shl i64 %chunks, 20
  %ticket = or i64 %tagbits, %nbits
  store atomic i64 %ticket, ptr @pool.ticket release, align 8
  %gen = atomicrmw add ptr @pool.gen, i32 1 seq_cst, align 4
  %sl = load atomic i32, ptr @pool.sleepers seq_cst, align 4
  %asleep = icmp sgt i32 %sl, 0
  br i1 %asleep, label %wake, label %work
wake:
  call void @pool.futex_wake(ptr @pool.gen, i32 2147483647)
  br label %work
work:
  call void @pool.work()
  %chunks32 = trunc i64 %chunks to i32
  br label %join
join:
  %spins = phi i32 [ 0, %work ], [ %spins1, %relax ], [ 0, %woke ]
  %d = load atomic i32, ptr @pool.done acquire, align 4
  %all = icmp eq i32 %d, %chunks32
  br i1 %all, label %finish, label %spin
spin:
  %more = icmp ult i32 %spins, {spin}
  br i1 %more, label %relax, label %sleep
relax:
  {pause}
  %spins1 = add i32 %spins, 1
  br label %join
sleep:
  store atomic i32 1, ptr @pool.waiting seq_cst, align 4
  %d2 = load atomic i32, ptr @pool.done seq_cst, align 4
  %all2 = icmp eq i32 %d2, %chunks32
  br i1 %all2, label %woke, label %block
block:
  call void @pool.futex_wait(ptr @pool.done, i32 %d2)
  br label %woke
woke:
  store atomic i32 0, ptr @pool.waiting seq_cst, align 4
  br label %join
finish:
  store atomic i32 0, ptr @pool.busy release, align 4
  br label %ret
ret:
  ret void
}}
"""


def pool_ir(target: Target, data_layout: str = "", *, hidden: bool = False) -> str:
    """The pool's LLVM IR for `target` (`data_layout`: its target machine's).
    `hidden`: the functions a model calls get hidden visibility (an exported
    library's own copy), `lamina_set_num_threads` stays visible for the runtime."""
    vis = "hidden " if hidden else ""
    head = f'target triple = "{target.triple}"\n'
    if data_layout:
        head = f'target datalayout = "{data_layout}"\n' + head
    # C's `long` (sysconf's result): 32 bits on wasm32 (ILP32), else 64.
    long, to_i32 = ("i32", "add i32 %n, 0") if target.arch == "wasm32" else ("i64", "trunc i64 %n to i32")
    common = _COMMON.format(
        vis=vis, set_vis="", sc_nproc=_SC_NPROCESSORS_ONLN, max_threads=MAX_THREADS,
        long=long, to_i32=to_i32,
    )
    futex = FUTEX_SYSCALL.get(target.arch)
    if futex is None:
        return head + common + _SERIAL.format(vis=vis)
    pause, pause_decl = _PAUSE.get(target.arch, ("", ""))  # riscv64: no hint
    body = _THREADED.format(
        vis=vis,
        futex=futex,
        wait_op=_FUTEX_WAIT_PRIVATE,
        wake_op=_FUTEX_WAKE_PRIVATE,
        pause=pause,
        pause_decl=pause_decl,
        spin=SPIN,
        chunks_per_thread=CHUNKS_PER_THREAD,
    )
    return head + common + body


__all__ = [
    "CHUNKS_PER_THREAD",
    "EXPORTS",
    "FUTEX_SYSCALL",
    "GET_MAX_THREADS",
    "MAX_THREADS",
    "PARALLEL_FOR",
    "SPIN",
    "pool_ir",
]
