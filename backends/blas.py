"""Target `blas`: matmul, dense (Gemm), batched matmul and conv2d on OpenBLAS.

OpenBLAS comes from the `scipy-openblas32` package (its symbols are prefixed:
`scipy_cblas_sgemm`, `scipy_openblas_set_num_threads`), loaded at run time.
Each outlined function becomes a small C function, specialised to its static
shapes and compiled with the system C compiler (`lamina.backends.cc`), that
calls `?gemm` for each op:

- `relay.dense` (ONNX Gemm): one gemm; transposes, alpha and beta are gemm
  arguments, a bias is broadcast into the output first (beta = bias scale);
- `relay.matmul` (numpy semantics, batched with broadcasting): one gemm per
  batch, or a single one when the right operand is shared by every batch;
- `relay.conv2d` (NCHW, groups): im2col into a per-thread buffer (skipped for
  1x1 / stride 1 / no padding), then one gemm per image and group.

Bias and activation epilogues are not part of the target: they stay in lamina,
where fuse-ops fuses them into one kernel after the call. float32 and float64
only; depthwise convolutions are rejected (they are no GEMM), with a reason
`annotate-target{explain=true}` shows.

`lamina.compile(..., targets=["blas"], num_threads=N)` gives the model N BLAS
threads: OpenBLAS's count is process-wide, so each generated function sets it
(`openblas_set_num_threads`) when it differs, before its gemms.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Sequence
from functools import cache

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import Float32Type, Float64Type, TensorType
from xdsl.ir import Operation, SSAValue

from lamina.backends.cc import (
    FunctionGen,
    bcast_index,
    c_float,
    c_type,
    compile_shared,
    numel,
    shape,
)
from lamina.backends.registry import ExternalFunction, register_target, stable_symbol
from lamina.dialects import relay
from lamina.errors import CompileError
from lamina.passes import PassContext, current_target

ROW_MAJOR, NO_TRANS, TRANS = 101, 111, 112
#: Most elements of one im2col buffer (32 MiB of f32); larger patch matrices are
#: built and multiplied a block of output rows at a time. (Blocks that fit in
#: cache measured slower: narrow gemms lose more than the cache misses cost.)
IM2COL_BLOCK = 8 * 1024 * 1024


def _coretype() -> str | None:
    """The kernel set of lamina's private OpenBLAS: `$LAMINA_OPENBLAS_CORETYPE`,
    else SkylakeX on hosts with AVX-512 (DYNAMIC_ARCH picks the ~1.8x slower
    Haswell kernels on AMD Zen 4/5), else OpenBLAS's choice. A process-wide
    `$OPENBLAS_CORETYPE` (set for numpy's OpenBLAS, say) does not apply to it."""
    own = os.environ.get("LAMINA_OPENBLAS_CORETYPE")
    if own:
        return own
    avx512 = ("avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512cd")
    return "SkylakeX" if all(current_target().has(f) for f in avx512) else None


@cache
def openblas_library() -> str:
    """Path of libscipy_openblas.so from the scipy-openblas32 package, loaded
    into the process (globally) with the kernel set of `_coretype()`."""
    import importlib.util

    # Found without importing it: importing scipy_openblas32 loads the library,
    # which must see OPENBLAS_CORETYPE first.
    spec = importlib.util.find_spec("scipy_openblas32")
    if spec is None or not spec.submodule_search_locations:
        raise CompileError(
            "target 'blas' needs OpenBLAS from the scipy-openblas32 package: "
            "pip install scipy-openblas32"
        )
    libdir = os.path.join(next(iter(spec.submodule_search_locations)), "lib")
    names = [n for n in sorted(os.listdir(libdir)) if n.startswith("libscipy_openblas") and ".so" in n]
    if not names:
        raise CompileError(f"scipy-openblas32 has no shared library in {libdir}")
    path = os.path.join(libdir, names[0])
    core, saved = _coretype(), os.environ.get("OPENBLAS_CORETYPE")
    try:
        if core:
            os.environ["OPENBLAS_CORETYPE"] = core  # read once, when it initializes
        lib = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        lib.scipy_openblas_get_corename.restype = ctypes.c_char_p
        lib.scipy_openblas_get_corename()  # initialized by now
    finally:
        if saved is None:
            os.environ.pop("OPENBLAS_CORETYPE", None)
        else:
            os.environ["OPENBLAS_CORETYPE"] = saved
    return path


def openblas_core() -> str:
    """The kernel set OpenBLAS runs (e.g. "SkylakeX", "Haswell")."""
    lib = ctypes.CDLL(openblas_library())
    lib.scipy_openblas_get_corename.restype = ctypes.c_char_p
    return lib.scipy_openblas_get_corename().decode()


def set_num_threads(num_threads: int | None = None) -> None:
    """OpenBLAS's thread count (default: LAMINA_NUM_THREADS or every core)."""
    n = num_threads if num_threads else current_target().num_threads
    lib = ctypes.CDLL(openblas_library())
    lib.scipy_openblas_set_num_threads(ctypes.c_int(max(1, int(n))))


# ----------------------------------------------------------------------- checks
def _float(op: Operation) -> str | bool:
    t = op.results[0].type
    elem = t.get_element_type() if isinstance(t, TensorType) else None
    if not isinstance(elem, Float32Type | Float64Type):
        return f"{op.name}: element type {elem} (BLAS takes f32 and f64)"
    return True


def check_conv2d(op: Operation) -> str | bool:
    ok = _float(op)
    if ok is not True:
        return ok
    groups = op.attrs.groups
    cin = shape(op.operands[0].type)[1]
    if groups > 1 and cin // groups < 4:
        return (
            f"relay.conv2d: groups={groups} with {cin // groups} input channel(s) per "
            "group (depthwise) is no GEMM; lamina's own kernel is faster"
        )
    return True


OPS = {
    "relay.dense": _float,
    "relay.matmul": _float,
    "relay.conv2d": check_conv2d,
}


# ---------------------------------------------------------------------- codegen
class _Gen(FunctionGen):
    """C glue of one outlined BLAS function: im2col, gemm calls, copies."""

    def dest(self, v: SSAValue) -> str:
        if v in self.outputs:
            name = self.outputs[v][0]
        else:
            name = self.w.scratch(numel(v.type), c_type(v.type))
        self.names[v] = name
        return name

    def gemm(self, ct: str, ta: bool, tb: bool, m: int, n: int | str, k: int, alpha: str,
             a: str, lda: int, b: str, ldb: int | str, beta: str, c: str, ldc: int) -> None:
        fn = "scipy_cblas_sgemm" if ct == "float" else "scipy_cblas_dgemm"
        self.w.line(
            f"{fn}({ROW_MAJOR}, {TRANS if ta else NO_TRANS}, {TRANS if tb else NO_TRANS}, "
            f"{m}, {n}, {k}, {alpha}, {a}, {lda}, {b}, {ldb}, {beta}, {c}, {ldc});"
        )

    def run(self) -> str:
        threads = int(PassContext.current().get_config("byoc.num-threads"))
        if threads > 0:  # this model's thread count (OpenBLAS's is process-wide)
            self.w.line(
                f"if (scipy_openblas_get_num_threads() != {threads}) "
                f"scipy_openblas_set_num_threads({threads});"
            )
        for op in self.fn.body.block.ops:
            if isinstance(op, func.ReturnOp):
                break
            if isinstance(op, relay.DenseOp):
                self.dense(op)
            elif isinstance(op, relay.MatmulOp):
                self.matmul(op)
            elif isinstance(op, relay.Conv2DOp):
                self.conv2d(op)
            else:
                raise CompileError(f"target 'blas' cannot compile {op.name}")
        for v, dests in self.outputs.items():
            src = self.names.get(v)
            if src is None:
                raise CompileError("target 'blas': a result is not computed by an op")
            for d in dests:
                if d != src:
                    self.w.line(f"memcpy({d}, {src}, {numel(v.type)} * sizeof(*{d}));")
        prelude = "\n".join(
            [
                "extern void scipy_cblas_sgemm(int, int, int, int, int, int, float, const float *, int, const float *, int, float, float *, int);",
                "extern void scipy_cblas_dgemm(int, int, int, int, int, int, double, const double *, int, const double *, int, double, double *, int);",
                "extern int scipy_openblas_get_num_threads(void);",
                "extern void scipy_openblas_set_num_threads(int);",
            ]
        )
        return self.w.function("SYMBOL", self.n_args, prelude)

    def dense(self, op: relay.DenseOp) -> None:
        ct = c_type(op.output.type)
        a, b = self.names[op.a], self.names[op.b]
        ta, tb = op.attrs.transpose_a, op.attrs.transpose_b
        m, n = shape(op.output.type)
        k = shape(op.a.type)[0 if ta else 1]
        alpha = op.attrs.alpha
        beta = op.attrs.beta
        out = self.dest(op.output)
        beta_c = "0"
        if op.bias is not None and beta != 0.0:
            bias = self.names[op.bias]
            idx = bcast_index((m, n), shape(op.bias.type), ("i", "j"))
            scale = "" if beta == 1.0 else f"{c_float(beta, ct)} * "
            self.w.line(f"for (long i = 0; i < {m}; i++) for (long j = 0; j < {n}; j++)")
            self.w.line(f"    {out}[i*{n} + j] = {scale}{bias}[{idx}];")
            beta_c = "1"
        self.gemm(ct, ta, tb, m, n, k, c_float(alpha, ct), a, m if ta else k,
                  b, k if tb else n, beta_c, out, n)

    def matmul(self, op: relay.MatmulOp) -> None:
        ct = c_type(op.output.type)
        sa, sb = shape(op.lhs.type), shape(op.rhs.type)
        a2 = (1, *sa) if len(sa) == 1 else sa
        b2 = (*sb, 1) if len(sb) == 1 else sb
        m, k, n = a2[-2], a2[-1], b2[-1]
        batch = tuple(np.broadcast_shapes(a2[:-2], b2[:-2]))
        a, b = self.names[op.lhs], self.names[op.rhs]
        out = self.dest(op.output)
        nb = int(np.prod(batch, dtype=np.int64))
        ba = (1,) * (len(batch) - len(a2[:-2])) + tuple(a2[:-2])
        bb = (1,) * (len(batch) - len(b2[:-2])) + tuple(b2[:-2])
        if all(d == 1 for d in bb) and tuple(ba) == batch:
            # one right operand for every batch: one tall gemm
            self.gemm(ct, False, False, nb * m, n, k, "1", a, k, b, n, "0", out, n)
            return
        if nb == 1:
            self.gemm(ct, False, False, m, n, k, "1", a, k, b, n, "0", out, n)
            return
        idx = np.indices(batch).reshape(len(batch), -1).T if batch else np.zeros((1, 0), int)
        def offsets(bshape: Sequence[int]) -> list[int]:
            strides = np.cumprod((1, *bshape[::-1]))[:-1][::-1]
            return [int(sum(i * s for i, s, d in zip(row, strides, bshape, strict=True) if d != 1)) for row in idx]
        oa = [o * m * k for o in offsets(ba)]
        ob = [o * k * n for o in offsets(bb)]
        tag = self.w.n_scratch + len(self.w.globals)
        self.w.globals.append(f"static const long offa{tag}[{nb}] = {{{', '.join(map(str, oa))}}};")
        self.w.globals.append(f"static const long offb{tag}[{nb}] = {{{', '.join(map(str, ob))}}};")
        self.w.line(f"for (long t = 0; t < {nb}; t++)")
        self.w.indent += 1
        self.gemm(ct, False, False, m, n, k, "1", f"{a} + offa{tag}[t]", k,
                  f"{b} + offb{tag}[t]", n, "0", f"{out} + t*{m * n}", n)
        self.w.indent -= 1

    def conv2d(self, op: relay.Conv2DOp) -> None:
        ct = c_type(op.output.type)
        x, wt = self.names[op.data], self.names[op.weight]
        nimg, cin, h, wd = shape(op.data.type)
        cout, cg, kh, kw = shape(op.weight.type)
        _, _, oh, ow = shape(op.output.type)
        g = op.attrs.groups
        sh, sw = op.attrs.strides or (1, 1)
        dh, dw = op.attrs.dilation or (1, 1)
        pads = op.attrs.padding or (0, 0, 0, 0)
        pt, pl = pads[0], pads[1]
        out = self.dest(op.output)
        m, kk, nn = cout // g, cg * kh * kw, oh * ow
        direct = (kh, kw, sh, sw) == (1, 1, 1, 1) and not any(pads)
        w = self.w
        if direct:
            w.line(f"for (long n = 0; n < {nimg}; n++) for (long g = 0; g < {g}; g++) {{")
            w.indent += 1
            self.gemm(ct, False, False, m, nn, kk, "1", f"{wt} + g*{m * kk}", kk,
                      f"{x} + (n*{cin} + g*{cg})*{h * wd}", nn, "0",
                      f"{out} + (n*{cout} + g*{m})*{nn}", nn)
            w.indent -= 1
            w.line("}")
            return
        # im2col (by blocks of output rows if the patch matrix is huge)
        rb = max(1, min(oh, IM2COL_BLOCK // max(kk * ow, 1)))
        col = w.scratch(kk * rb * ow, ct)
        w.line(f"for (long n = 0; n < {nimg}; n++) for (long g = 0; g < {g}; g++) {{")
        w.indent += 1
        w.line(f"const {ct} *xg = {x} + (n*{cin} + g*{cg})*{h * wd};")
        w.line(f"for (long y0 = 0; y0 < {oh}; y0 += {rb}) {{")
        w.indent += 1
        w.line(f"long y1 = y0 + {rb} < {oh} ? y0 + {rb} : {oh}, nc = (y1 - y0)*{ow};")
        w.line(f"for (long c = 0; c < {cg}; c++) for (long ky = 0; ky < {kh}; ky++) for (long kx = 0; kx < {kw}; kx++) {{")
        w.indent += 1
        w.line(f"{ct} *row = {col} + ((c*{kh} + ky)*{kw} + kx)*nc;")
        w.line(f"const {ct} *xc = xg + c*{h * wd};")
        w.line("for (long y = y0; y < y1; y++) {")
        w.indent += 1
        w.line(f"long iy = y*{sh} - {pt} + ky*{dh};")
        w.line(f"{ct} *r = row + (y - y0)*{ow};")
        w.line(f"if (iy < 0 || iy >= {h}) {{ memset(r, 0, {ow} * sizeof({ct})); continue; }}")
        w.line(f"const {ct} *src = xc + iy*{wd};")
        if sw == 1 and dw == 1:
            # contiguous run: zero the padded ends, copy the middle
            w.line(f"long lo = {pl} - kx; if (lo < 0) lo = 0; if (lo > {ow}) lo = {ow};")
            w.line(f"long hi = {wd} + {pl} - kx; if (hi > {ow}) hi = {ow}; if (hi < lo) hi = lo;")
            w.line("for (long q = 0; q < lo; q++) r[q] = 0;")
            w.line(f"memcpy(r + lo, src + lo - {pl} + kx, (hi - lo) * sizeof({ct}));")
            w.line(f"for (long q = hi; q < {ow}; q++) r[q] = 0;")
        else:
            # strided: q in [lo, hi) reads inside the row, the rest is padding
            w.line(f"long off = {pl} - kx*{dw};  /* ix = q*{sw} - off */")
            w.line(f"long lo = off > 0 ? (off + {sw - 1}) / {sw} : 0; if (lo > {ow}) lo = {ow};")
            w.line(f"long last = {wd} - 1 + off;  /* the last q with ix < {wd}: last / {sw} */")
            w.line(f"long hi = last < 0 ? 0 : last / {sw} + 1; if (hi > {ow}) hi = {ow}; if (hi < lo) hi = lo;")
            w.line("for (long q = 0; q < lo; q++) r[q] = 0;")
            w.line(f"for (long q = lo; q < hi; q++) r[q] = src[q*{sw} - off];")
            w.line(f"for (long q = hi; q < {ow}; q++) r[q] = 0;")
        w.indent -= 1
        w.line("}")
        w.indent -= 1
        w.line("}")
        self.gemm(ct, False, False, m, "nc", kk, "1", f"{wt} + g*{m * kk}", kk, col, "nc",
                  "0", f"{out} + (n*{cout} + g*{m})*{nn} + y0*{ow}", nn)
        w.indent -= 1
        w.line("}")
        w.indent -= 1
        w.line("}")


def codegen(fn: func.FuncOp) -> ExternalFunction:
    """C calling OpenBLAS for the outlined function, compiled to a shared library."""
    source = _Gen(fn).run()
    symbol = stable_symbol("lamina_blas", source)
    source = source.replace("void SYMBOL(", f"void {symbol}(")
    lib = compile_shared(source, link=[openblas_library()], name="blas")
    return ExternalFunction(symbol, (lib,), source=source)


def _configure(num_threads: int | None = None) -> None:
    set_num_threads(num_threads)


TARGET = register_target(
    "blas",
    ops=OPS,
    codegen=codegen,
    runtime_libraries=lambda: [openblas_library()],
    configure=_configure,
    description="OpenBLAS (scipy-openblas32): matmul, dense, batched matmul, conv2d",
)

__all__ = ["OPS", "TARGET", "check_conv2d", "codegen", "openblas_library", "set_num_threads"]
