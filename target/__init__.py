"""What the code is for: the `Target` (TVM's `tvm.target.Target`), apart from the
machine the compiler runs on.

    Target.parse("aarch64-linux-gnu")              # NEON, 128-bit vectors
    Target.parse("x86_64-linux-gnu -mcpu=znver4")  # AVX-512 from the CPU's name
    Target.parse("wasm32")                         # SIMD128, one thread
    Target.host()                                  # the default: this machine

Every schedule knob, layout block and kernel choice reads the target of the
running `PassContext` (`lamina.passes.current_target`), never the host. The
host is read in one place, `lamina.target.host`, by `Target.host()`.
"""

from lamina.target.description import KINDS, Target, TargetKind

__all__ = ["KINDS", "Target", "TargetKind"]
