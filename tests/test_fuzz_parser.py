"""Parser fuzzing: a bounded sample of bench/fuzz.py's mutations, and regression
tests for every escape it found (each now a clean `IRError`)."""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path
from types import ModuleType

import pytest

import lamina
from lamina.errors import IRError

ROOT = Path(__file__).resolve().parent.parent


def _fuzz() -> ModuleType:
    spec = importlib.util.spec_from_file_location("lamina_bench_fuzz", ROOT / "bench" / "fuzz.py")
    assert spec and spec.loader
    module = sys.modules.get(spec.name)
    if module is None:
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses look their module up
        spec.loader.exec_module(module)
    return module


def test_seeds_are_found() -> None:
    assert len(_fuzz().seeds()) > 100


def test_mutations_only_fail_as_diagnostics() -> None:
    result = _fuzz().fuzz(300, seed=20261121, timeout=10.0)
    assert result.tried == 300
    assert not result.failures, "\n\n".join(f"{sig}\n{text}" for sig, text, _ in result.failures)


def test_mutation_is_deterministic() -> None:
    import random

    fuzz = _fuzz()
    seed = fuzz.seeds()[0]
    a = [fuzz.mutate(seed, random.Random(7), ["x"]) for _ in range(3)]
    b = [fuzz.mutate(seed, random.Random(7), ["x"]) for _ in range(3)]
    assert a == b


FUNC = "func.func @f() {{\n  {body}\n  func.return\n}}\n"


@pytest.mark.parametrize(
    "body, message",
    [
        # xDSL: OverflowError computing the value range of a huge integer type
        ('%0 = "relay.constant"() <{value = dense<1> : tensor<2xi99999999999999999999>}> : () -> tensor<2xi32>', "too wide"),
        ("%0 = relay.constant dense<[1]> : tensor<1xi9223372036854775808>", "too wide"),
        # xDSL: MemoryError expanding a splat over billions of elements
        ("%0 = relay.constant dense<1.0> : tensor<4294967296xf32>", "dense_resource"),
        # xDSL: NotImplementedError packing an odd-width integer
        ("%0 = relay.constant dense<1> : tensor<2xi32000>", "invalid attribute"),
        # xDSL: OverflowError packing a float literal too large for f32
        ("%0 = relay.constant dense<1.0e300> : tensor<2xf32>", "invalid attribute"),
        # xDSL: ValueError for an integer literal outside its type
        ("%0 = relay.constant dense<99999999999999999999> : tensor<2xi32>", "out of range"),
        # shape dimensions beyond 64 bits
        ("%0 = relay.constant dense<1.0> : tensor<99999999999999999999xf32>", "64 bits"),
    ],
)
def test_escapes_found_by_fuzzing_are_diagnostics(body: str, message: str) -> None:
    with pytest.raises(IRError, match=message):
        lamina.parse(FUNC.format(body=body))


def test_unterminated_string_is_lexed_in_linear_time() -> None:
    # xDSL's string regex backtracked exponentially here (the fuzzer's timeouts).
    text = FUNC.format(body='%0 = relay.pad %a {pad_mode = "' + "mirror incl." * 8 + "} : f32")
    start = time.monotonic()
    with pytest.raises(IRError, match="string literal"):
        lamina.parse(text)
    assert time.monotonic() - start < 2


def test_te_reduce_extent_out_of_range() -> None:
    text = """te.func @k {
      %A = te.placeholder "A" : tensor<4x4xf32>
      %C = te.compute (%i) reduce sum (%k) [99999999999999999999] : tensor<4xf32> {
        %a = te.read %A[%i, %k] : tensor<4x4xf32>
        te.yield %a : f32
      }
      te.output %C : tensor<4xf32>
    }"""
    with pytest.raises(IRError, match="reduce extents"):
        lamina.parse(text)


def test_non_utf8_bytes() -> None:
    from lamina.dialects.parser import make_parser

    with pytest.raises(IRError, match="not UTF-8"):
        make_parser(lamina.context(), b"func.func @f() {\xff}").parse_module()


@pytest.mark.parametrize(
    "text, message",
    [
        # xDSL accepts an op using its own result; fuse-ops then failed an assertion.
        (FUNC.format(body="%0 = relay.relu %0 : tensor<2xf32>"), "'relay.relu' op uses"),
        (FUNC.format(body="%a = relay.relu %b : tensor<2xf32>\n  %b = relay.relu %a : tensor<2xf32>"), "before it is defined"),
        # A prim_func without a body crashed lower-tir-to-llvm.
        ("tir.prim_func @k(%x: memref<4xf32>)", "must have a body"),
    ],
)
def test_invalid_ssa_found_by_fuzzing_passes(text: str, message: str) -> None:
    with pytest.raises(IRError, match=message):
        lamina.parse(text)


def test_deep_nesting_is_a_diagnostic() -> None:
    deep = "[" * 20000 + "1.0" + "]" * 20000
    with pytest.raises(IRError, match="nested too deeply"):
        lamina.parse(FUNC.format(body=f"%0 = relay.constant dense<{deep}> : tensor<1xf32>"))
