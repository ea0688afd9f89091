"""The languages the lowerings build code in, below the computes, the
schedules and the conversions that use them:

- `index`: affine index forms and their ranges (`Lin`, `Var`);
- `expr`: TE/TIR scalar expressions as Python values that emit ops (`Expr`);
- `schedule`: the schedule language, primitives as data (`Split`, `Fuse`, ...);
- `tir_builder`: a TIR builder for extern kernels (TVM's `ir_builder`).
"""
