"""The passes, grouped by the level they rewrite (xDSL's `xdsl.transforms`; the
pass infrastructure they run on is `lamina.passes`, xDSL's `xdsl.passes`):

- `graph`: relay-level rewrites (fusion, layout, folding, qnn, ...);
- `tir`: loop-level rewrites (unroll, vectorize);
- `byoc`: partitioning for external codegen targets.

The lowerings between levels live in `lamina.lowering`. Importing a package
registers its passes.
"""
