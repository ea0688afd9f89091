"""`aligned`: the weights compiled code reads are C-contiguous, 64-byte aligned
and followed by readable slack; an array `aligned_empty` made (or a view of one
that still is all that) is taken as it is, anything else is copied once."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from xdsl.dialects.builtin import f32

from lamina.abi import BUFFER_ALIGN, BUFFER_SLACK
from lamina.dialects import relay
from lamina.dialects.relay.constant import INLINE_LIMIT, make_constant, value_data
from lamina.runtime.model import aligned, aligned_empty

F32 = np.dtype(np.float32)


def _ok(a: np.ndarray, dtype: np.dtype) -> bool:
    return a.dtype == dtype and a.flags.c_contiguous and a.ctypes.data % BUFFER_ALIGN == 0


@pytest.mark.parametrize("make", [
    lambda a: a,
    lambda a: a.reshape(2, 64),   # a view of all of it
    lambda a: a[:4],              # a prefix: the slack after it is the buffer's rest
])
def test_an_aligned_array_is_taken_as_it_is(make):
    v = make(aligned_empty((8, 16), F32))
    assert aligned(v, F32) is v


@pytest.mark.parametrize("make", [
    lambda a: a[:, 1:],           # not contiguous
    lambda a: a.reshape(-1)[1:],  # not aligned
    lambda a: a.T,                # not C-contiguous
    lambda a: a.view(np.int32),   # another dtype than asked
])
def test_anything_else_is_copied(make):
    a = aligned_empty((8, 16), F32)
    a[...] = np.arange(128, dtype=np.float32).reshape(8, 16)
    v = make(a)
    out = aligned(v, F32)
    assert out is not v and _ok(out, F32)
    np.testing.assert_array_equal(out, v.astype(np.float32))


def test_a_foreign_array_is_copied_even_if_aligned():
    """An array lamina did not allocate (a torch parameter's numpy view, a user's
    array) is copied: the compiled model must not share memory it does not own."""
    raw = np.zeros(4096 + BUFFER_ALIGN + BUFFER_SLACK, np.uint8)
    off = (-raw.ctypes.data) % BUFFER_ALIGN
    foreign = raw[off : off + 4096].view(np.float32)
    out = aligned(foreign, F32)
    assert out is not foreign and _ok(out, F32)


@given(st.integers(1, 300), st.integers(1, 9))
def test_a_packed_weight_is_copied_once(k, panels):
    """make_constant copies a weight's view (dense_pack's panels) once, aligned;
    the driver's weight table then takes it as it is."""
    nb = 4
    w = np.arange(k * panels * nb, dtype=np.float32).reshape(k, panels * nb)
    view = w.reshape(k, panels, nb).transpose(1, 0, 2)
    const = make_constant(view, relay.tensor(view.shape, f32), "packed")
    data = value_data(const.results[0])
    assert data is not None
    np.testing.assert_array_equal(data, view)
    if data.size > INLINE_LIMIT:  # a blob (small ones are inline attributes)
        assert _ok(data, F32) and aligned(data, F32) is data
