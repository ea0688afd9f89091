"""TIR passes; importing the package registers them."""

from lamina.passes.tir import unroll, vectorize  # noqa: F401
