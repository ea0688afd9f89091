"""When onnxruntime's int8 results are a bit-exact reference.

MLAS multiplies u8 by s8 exactly with VNNI (`vpdpbusd`, AVX-512 VNNI or AVX-VNNI);
without it (AVX2's `vpmaddubsw`) each pair of products is saturated to int16,
so its QLinearConv/QLinearMatMul differ from the exact integer result wherever
a pair exceeds 32767 (checked on a znver3 host: onnxruntime equals a numpy
emulation of the saturation on every element, and the exact result on 89 of
160). lamina computes the exact result on every host, so its int8 tests check
it against integer numpy references always, and against onnxruntime where
onnxruntime is exact.
"""

from __future__ import annotations

import numpy as np
import pytest

from lamina.target import Target

#: Whether onnxruntime's u8 x s8 products are exact on this machine.
EXACT = Target.host().has("avx512vnni") or Target.host().has("avxvnni")


def assert_like_onnxruntime(ours: np.ndarray, theirs: np.ndarray) -> None:
    """`ours` equals onnxruntime's int8 result bit for bit, where that result
    is exact (see the module's docstring); elsewhere the caller's exact
    reference is the check."""
    if EXACT:
        np.testing.assert_array_equal(ours, theirs)


#: For a test whose only reference is onnxruntime's int8 kernels (an exact
#: numpy or onnx.reference check of the same op lives beside it).
needs_exact = pytest.mark.skipif(
    not EXACT,
    reason="onnxruntime's u8 x s8 products saturate to int16 pairs without VNNI "
    "on this host; the exact references are checked by the op's other tests",
)
