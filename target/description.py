"""The `Target` and its string form.

A target is parsed from a TVM/clang-like string,

    TRIPLE [-mcpu=NAME] [-mattr=+feature,-feature,...] [-num-threads=N]

where TRIPLE is an LLVM triple (`aarch64-linux-gnu`, `x86_64-unknown-linux-gnu`,
`riscv64-linux-gnu`, `wasm32`) or `host`. What schedules need of the hardware
(vector width, vector registers, cache sizes) is derived from the triple's
architecture, the CPU's name and the features: explicit `-mattr` features win
over the CPU's, and the CPU's over the architecture's defaults. `str(target)`
prints the canonical form, which `Target.parse` reads back to an equal target.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from functools import cache

from lamina import system
from lamina.errors import LaminaError
from lamina.target import host


class TargetError(LaminaError):
    """A target string lamina cannot read."""


@dataclass(frozen=True)
class TargetKind:
    """What an architecture gives every CPU of it, unless told otherwise."""

    #: The architecture, as the triple's first component spells it.
    arch: str
    #: The CPU LLVM tunes for when none is named.
    cpu: str
    #: Features every CPU of the kind has (LLVM's spelling, with `+`).
    features: tuple[str, ...]
    #: The widest vector register, in bits, with the default features (0: none).
    vector_bits: int
    #: Vector registers a kernel can keep values in.
    vector_registers: int
    #: Bytes of L1 data cache, L2 and last-level cache a core can count on.
    caches: tuple[int, int, int]
    #: Whether threads run by default (WebAssembly runs single-threaded unless
    #: threads are asked for).
    threaded: bool = True
    #: Whether a memory operand can be base + index * scale + offset (x86): the
    #: addresses of an unrolled register tile then need no induction variables
    #: of their own, and LLVM's loop strength reduction, whose cost grows faster
    #: than a loop's addresses, is skipped.
    indexed_addressing: bool = False

    def vector_bits_for(self, cpu: str, features: frozenset[str]) -> int:
        """The widest vector register of `cpu` with `features` on this kind."""
        if self.arch == "x86_64":
            if "+avx512f" in features or (cpu in _AVX512_CPUS and "-avx512f" not in features):
                return 512
            if features & {"+avx", "+avx2"} or (cpu in _AVX2_CPUS and "-avx" not in features):
                return 256
            return 128
        if self.arch == "riscv64":
            return 128 if "+v" in features else 0
        if self.arch == "wasm32":
            return 128 if "+simd128" in features else 0
        return self.vector_bits


_K, _M = 1 << 10, 1 << 20

#: The architectures lamina generates code for.
KINDS: dict[str, TargetKind] = {
    k.arch: k
    for k in (
        TargetKind(
            "x86_64", "x86-64", ("+sse2",), 128, 16, (32 * _K, 1 * _M, 16 * _M),
            indexed_addressing=True,
        ),
        TargetKind("aarch64", "generic", ("+neon",), 128, 32, (64 * _K, 1 * _M, 8 * _M)),
        TargetKind(
            "riscv64", "generic-rv64", ("+m", "+a", "+f", "+d", "+c"), 0, 32,
            (32 * _K, 512 * _K, 4 * _M),
        ),
        TargetKind(
            "wasm32", "generic", ("+simd128",), 128, 16, (32 * _K, 1 * _M, 8 * _M),
            threaded=False,
        ),
    )
}

#: x86 CPUs (LLVM's names) with AVX-512 and with AVX2, for a target that names
#: its CPU without listing features.
_AVX512_CPUS = frozenset(
    ["skylake-avx512", "cascadelake", "cooperlake", "cannonlake", "icelake-client", "icelake-server", "tigerlake", "rocketlake", "sapphirerapids", "emeraldrapids", "graniterapids", "graniterapids-d", "diamondrapids", "znver4", "znver5", "x86-64-v4"]
)
_AVX2_CPUS = _AVX512_CPUS | frozenset(
    ["haswell", "broadwell", "skylake", "kabylake", "coffeelake", "cometlake", "alderlake", "raptorlake", "meteorlake", "arrowlake", "lunarlake", "gracemont", "znver1", "znver2", "znver3", "x86-64-v3"]
)
#: Features of those CPUs that kernel choices ask about (`Target.has`).
_CPU_FEATURES: dict[str, tuple[str, ...]] = {
    **{c: ("+avx2", "+fma") for c in _AVX2_CPUS},
    **{c: ("+avx2", "+fma", "+avx512f", "+avx512vl", "+avx512bw") for c in _AVX512_CPUS},
    **{
        c: ("+avx2", "+fma", "+avx512f", "+avx512vl", "+avx512bw", "+avx512vnni")
        for c in ["cascadelake", "cooperlake", "icelake-client", "icelake-server", "tigerlake", "rocketlake", "sapphirerapids", "emeraldrapids", "graniterapids", "graniterapids-d", "diamondrapids", "znver4", "znver5"]
    },
    **{c: ("+avx2", "+fma", "+avxvnni") for c in ["alderlake", "raptorlake", "meteorlake", "arrowlake"]},
}

#: Short names for the triples people type.
_ALIASES = {"wasm32": "wasm32-unknown-unknown", "wasm32-wasi": "wasm32-unknown-wasi"}


@dataclass(frozen=True)
class Target:
    """The machine code is generated for."""

    #: The LLVM target triple (`aarch64-unknown-linux-gnu`).
    triple: str
    #: LLVM's name of the CPU (`znver4`, `generic`).
    cpu: str
    #: LLVM features, `+name` or `-name`, in a canonical order.
    features: tuple[str, ...] = ()
    #: Threads the code's parallel loops are sized for.
    num_threads: int = 1
    #: Whether the target's C library has glibc's vector math (libmvec) to call.
    vector_math: bool = False
    #: Cache sizes in bytes (L1 data, L2, last level); None: the kind's.
    cache_sizes: tuple[int, int, int] | None = None

    # --- what schedules read ------------------------------------------------
    @property
    def kind(self) -> TargetKind:
        arch = self.triple.split("-", 1)[0]
        found = KINDS.get(arch)
        if found is None:
            raise TargetError(
                f"no code generation for architecture '{arch}' (target '{self.triple}'); "
                f"lamina generates code for {', '.join(KINDS)}"
            )
        return found

    @property
    def arch(self) -> str:
        return self.kind.arch

    @property
    def vector_bits(self) -> int:
        """The widest vector register, in bits (0: no vector unit)."""
        return self.kind.vector_bits_for(self.cpu, frozenset(self._all_features()))

    def lanes(self, elem_bits: int) -> int:
        """Elements of `elem_bits` bits in one vector register (1 without vectors)."""
        return max(1, self.vector_bits // elem_bits)

    @property
    def vector_registers(self) -> int:
        """Vector registers a kernel can keep values in (32 with AVX-512's zmm0-31)."""
        if self.arch == "x86_64":
            return 32 if self.vector_bits >= 512 else 16
        return self.kind.vector_registers

    def masked_memory(self, elem_bits: int) -> bool:
        """Whether vector loads and stores under a lane mask, of `elem_bits`-bit
        elements, are instructions (AVX's `vmaskmov`, AVX-512's, SVE's and RVV's
        predication), not a test and branch per lane (NEON, SSE, SIMD128)."""
        if self.vector_bits == 0:
            return False
        if self.arch == "x86_64":
            if self.has("avx512f"):
                return elem_bits >= 32 or self.has("avx512bw")
            return elem_bits >= 32 and (self.has("avx") or self.has("avx2"))
        if self.arch == "aarch64":
            return self.has("sve") or self.has("sve2")
        return self.arch == "riscv64"  # (with V: vector_bits above is 0 without)

    @property
    def caches(self) -> tuple[int, int, int]:
        """Bytes of L1 data cache, L2 and last-level cache."""
        return self.cache_sizes if self.cache_sizes is not None else self.kind.caches

    @property
    def fused_multiply_add(self) -> bool:
        """Whether the vector unit multiplies and adds in one instruction (x86's
        FMA, NEON's fmla, RVV's vfmacc). WebAssembly's SIMD128 has none (relaxed
        SIMD's madd may round twice), so a product costs two instructions there."""
        if self.arch == "x86_64":
            return self.has("fma") or self.vector_bits >= 512
        return self.arch != "wasm32"

    @property
    def vector_ldexp(self) -> bool:
        """Whether `x * 2^n` of a vector is one instruction that LLVM selects for
        `llvm.ldexp` (AVX-512's vscalef, which also underflows and overflows
        as libm does); elsewhere LLVM calls libm's ldexp lane by lane."""
        return self.arch == "x86_64" and self.has("avx512f")

    def has(self, feature: str) -> bool:
        """Whether `feature` (e.g. "avx512vnni") is on for this target."""
        return f"+{feature}" in self._all_features()

    def _all_features(self) -> set[str]:
        on = set(self.kind.features) | set(_CPU_FEATURES.get(self.cpu, ()))
        for f in self.features:
            on.discard(("-" if f[0] == "+" else "+") + f[1:])
            on.add(f)
        return on

    @property
    def feature_string(self) -> str:
        """The features given explicitly (`+a,-b`), as the string form prints them."""
        return ",".join(self.features)

    @property
    def llvm_features(self) -> str:
        """Every feature, as LLVM's target machine takes them: the kind's and the
        CPU's defaults (which LLVM does not imply from the triple: WebAssembly's
        `+simd128`, RISC-V's `+m,+f,+d`) under the explicit ones, which win."""
        named = {f[1:] for f in self.features}
        defaults = [f for f in self._all_features() if f[1:] not in named]
        return ",".join(sorted([*defaults, *self.features], key=lambda f: f[1:]))

    @property
    def is_host(self) -> bool:
        """Whether code for this target runs on the machine compiling it: the
        same architecture, and no feature this machine lacks (the CPU's name
        and the thread count may differ)."""
        me = Target.host()
        if self.arch != me.arch:
            return False
        needed = {f for f in self._all_features() if f[0] == "+"}
        return needed <= {f for f in me._all_features() if f[0] == "+"}

    # --- construction -------------------------------------------------------
    @staticmethod
    def host() -> Target:
        """This machine: its triple, CPU, features, caches and thread count."""
        return _host()

    @staticmethod
    def parse(text: str | Target) -> Target:
        """A target from its string form (see the module's docstring)."""
        return text if isinstance(text, Target) else _parse(text.strip())

    def __str__(self) -> str:
        parts = [self.triple, f"-mcpu={self.cpu}"]
        if self.features:
            parts.append(f"-mattr={self.feature_string}")
        parts.append(f"-num-threads={self.num_threads}")
        if self.vector_math:
            parts.append("-vector-math")
        if self.cache_sizes is not None:
            parts.append("-caches=" + ",".join(map(str, self.cache_sizes)))
        return " ".join(parts)

    def describe(self) -> str:
        """A short human form: triple, CPU and vector width."""
        bits = self.vector_bits
        return f"{self.triple} ({self.cpu}, {bits}-bit vectors)" if bits else f"{self.triple} ({self.cpu})"


@cache
def _parse(text: str) -> Target:
    words = shlex.split(text)
    if not words:
        raise TargetError("empty target string; name a triple such as aarch64-linux-gnu, or 'host'")
    head, options = words[0], words[1:]
    base = Target.host() if head == "host" else None
    triple = _ALIASES.get(head, head) if base is None else base.triple
    if base is None and head.split("-", 1)[0] not in KINDS:
        raise TargetError(
            f"unknown target '{head}': lamina generates code for {', '.join(KINDS)} "
            "(e.g. 'aarch64-linux-gnu', 'riscv64-linux-gnu -mattr=+v', 'wasm32', 'host')"
        )
    kind = KINDS[triple.split("-", 1)[0]]
    cpu = base.cpu if base is not None else kind.cpu
    features = list(base.features) if base is not None else []
    threads = base.num_threads if base is not None else None
    vector_math = base.vector_math if base is not None else False
    caches = base.cache_sizes if base is not None else None
    for opt in options:
        key, _, value = opt.partition("=")
        if key == "-mcpu" and value:
            if base is not None and value != cpu:
                features = []  # another CPU than the host's: its own features
            cpu = value
        elif key == "-mattr" and value:
            features.extend(_feature(f, text) for f in value.split(","))
        elif key == "-num-threads" and value.isdigit() and int(value) > 0:
            threads = int(value)
        elif key == "-vector-math" and not value:
            vector_math = True
        elif key == "-caches" and len(value.split(",")) == 3:
            try:
                l1, l2, l3 = (int(v) for v in value.split(","))
            except ValueError:
                raise TargetError(f"target '{text}': -caches takes three byte counts") from None
            caches = (l1, l2, l3)
        else:
            raise TargetError(
                f"target '{text}': unknown option '{opt}' (options: -mcpu=NAME, "
                "-mattr=+f,-g, -num-threads=N, -vector-math, -caches=L1,L2,L3)"
            )
    if threads is None:
        threads = system.default_threads() if kind.threaded else 1
    elif threads > 1 and not kind.threaded:
        raise TargetError(
            f"target '{text}': {kind.arch} code runs on one thread (lamina does not "
            "generate WebAssembly threads yet); drop -num-threads"
        )
    return Target(triple, cpu, _canonical(features), threads, vector_math, caches)


def _feature(f: str, text: str) -> str:
    f = f.strip()
    if len(f) < 2 or f[0] not in "+-":
        raise TargetError(f"target '{text}': feature '{f}' must start with + or -")
    return f


def _canonical(features: list[str]) -> tuple[str, ...]:
    """The last setting of each feature, sorted by name."""
    last = {f[1:]: f for f in features}
    return tuple(last[name] for name in sorted(last))


@cache
def _host() -> Target:
    """The default target: what `lamina.target.host` reads off this machine."""
    return Target(
        host.triple(),
        host.cpu_name(),
        host.cpu_features(),
        system.default_threads(),
        vector_math=system.has_libmvec(),
        cache_sizes=host.caches(),
    )


__all__ = ["KINDS", "Target", "TargetError", "TargetKind"]
