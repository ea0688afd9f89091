"""TIR passes; importing the package registers them."""

from lamina.transforms.tir import cse, unroll, vectorize  # noqa: F401
