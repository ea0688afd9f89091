"""The measured peak printed next to performance tables: a real measurement of
the host's FMA throughput, within what its vector width allows."""

from __future__ import annotations

import llvmlite.binding as llvm

from lamina.codegen.codegen import init_llvm
from lamina.codegen.peak import CHAINS, _kernel, describe_host, peak_gflops
from lamina.target import Target


def test_the_kernel_is_valid_ir_at_every_width():
    init_llvm()
    for lanes in (4, 8, 16):
        text = _kernel(lanes)
        assert text.count("@llvm.fma") == CHAINS + 1  # the declaration and the chains
        llvm.parse_assembly(text).verify()


def test_the_peak_is_plausible_for_the_host():
    gflops = peak_gflops(seconds=0.01, repeat=2)
    # at least one scalar FMA per ns; at most 2 vector FMA units at 6 GHz
    lanes = Target.host().lanes(32)
    assert 2.0 < gflops < 2 * 2 * lanes * 6.0
    line = describe_host()
    assert Target.host().cpu in line and "GFLOP/s per core" in line
