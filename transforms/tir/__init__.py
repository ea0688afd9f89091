"""TIR passes; importing the package registers them."""

from lamina.transforms.tir import unroll, vectorize  # noqa: F401
