"""Where IR errors are reported: one line, `file:line:col: message`, at the failing
op (verifier), at the first use (undefined value), and what an empty input is; the
pass-name and pass-option errors of pipelines; lamina-opt's --verify-diagnostics."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, ModuleOp, TensorType, f32
from xdsl.passes import ModulePass

import lamina
from lamina.dialects.parser import make_parser
from lamina.errors import IRError, LaminaError
from lamina.passes import (
    PassContext,
    VerifyInstrument,
    registry,
    resolve_pipeline,
    run_pipeline,
)
from lamina.tools import opt

BROADCAST_GENERIC = """func.func @main(%a: tensor<1x4xf32>, %b: tensor<1x5xf32>) {
  %0 = "relay.add"(%a, %b) : (tensor<1x4xf32>, tensor<1x5xf32>) -> tensor<1x4xf32>
  func.return
}
"""

UNDEFINED = """func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = relay.relu %a : tensor<4xf32>
  %1 = relay.add %0, %zz : tensor<4xf32>
  %2 = relay.add %1, %yy : tensor<4xf32>
  func.return %2 : tensor<4xf32>
}



"""

GOOD = """func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = relay.relu %x : tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
"""


def parse_error(text: str, name: str = "m.mlir") -> IRError:
    with pytest.raises(IRError) as info:
        lamina.parse(text, name=name)
    return info.value


# ------------------------------------------------------------------ lamina.parse
def test_verifier_error_is_one_line_at_the_failing_op() -> None:
    e = parse_error(BROADCAST_GENERIC)
    assert str(e) == (
        "m.mlir:2:3: relay.add: shapes 1x4 and 1x5 do not broadcast (dimension 1 of "
        "the result would be one of [4, 5])"
    )
    assert e.location == ("m.mlir", 2, 3)
    assert e.reason.startswith("relay.add: shapes 1x4 and 1x5")
    # The offending line and a caret: a note, shown only with a traceback.
    assert e.context == (
        '  %0 = "relay.add"(%a, %b) : (tensor<1x4xf32>, tensor<1x5xf32>) -> '
        "tensor<1x4xf32>\n  ^"
    )
    assert e.__notes__ == [e.context]


def test_verifier_error_names_the_op_when_the_message_does_not() -> None:
    text = """func.func @f(%y: memref<8xf32>, %v: vector<4xf32>, %m: i1, %i: index) {
  "tir.masked_store"(%v, %y, %m, %i) : (vector<4xf32>, memref<8xf32>, i1, index) -> ()
  func.return
}"""
    e = parse_error(text)
    # xDSL's message has two lines and does not name the op.
    assert str(e) == (
        "m.mlir:2:3: 'tir.masked_store' op: operand 'mask' at position 2 does not "
        "verify:; i1 should be of base attribute vector"
    )
    # xDSL's own structural checks name the op themselves.
    e = parse_error(GOOD.replace("func.return %0 : tensor<2xf32>", ""))
    assert str(e) == (
        "m.mlir:2:3: Operation relay.relu terminates block in single-block region but "
        "is not a terminator"
    )


def test_custom_form_broadcast_error_is_one_line() -> None:
    text = BROADCAST_GENERIC.replace(
        '"relay.add"(%a, %b) : (tensor<1x4xf32>, tensor<1x5xf32>) -> tensor<1x4xf32>',
        "relay.add %a, %b : (tensor<1x4xf32>, tensor<1x5xf32>)",
    )
    e = parse_error(text)
    assert str(e).startswith("m.mlir:2:")
    assert "\n" not in str(e) and "do not broadcast" in str(e)
    assert e.context is not None and "^" in e.context


def test_undefined_value_is_reported_at_its_first_use() -> None:
    e = parse_error(UNDEFINED)
    # Not at the end of the input (line 10), as xDSL reports it.
    assert str(e) == (
        "m.mlir:3:22: use of undeclared SSA value name %zz (also undefined: %yy)"
    )
    assert e.context == "  %1 = relay.add %0, %zz : tensor<4xf32>\n                     ^^^"


def test_use_before_definition_is_located() -> None:
    text = GOOD.replace("relay.relu %x", "relay.relu %0")
    e = parse_error(text)
    assert str(e).startswith("m.mlir:2:3: 'relay.relu' op uses a value of type")


@pytest.mark.parametrize("text", ["", "\n\n", "// only a comment\n", "  \n// a\n// b"])
def test_empty_input_is_an_empty_module(text: str) -> None:
    # mlir-opt reads an empty file as an empty module; so does lamina.
    module = lamina.parse(text)
    assert isinstance(module, ModuleOp) and not list(module.ops)


def test_empty_input_without_implicit_module() -> None:
    parser = make_parser(lamina.context(), "// nothing\n", "e.mlir")
    with pytest.raises(Exception, match="the input is empty"):
        parser.parse_module(allow_implicit_module=False)


def test_junk_is_not_could_not_parse_entire_input() -> None:
    e = parse_error(GOOD + "}\n")
    assert str(e) == "m.mlir:5:1: expected an operation, got '}'"


def test_ops_record_their_position() -> None:
    module = make_parser(lamina.context(), GOOD, "g.mlir", line_offset=10).parse_module()
    (relu,) = [op for op in module.walk() if op.name == "relay.relu"]
    loc = relu.location
    assert isinstance(loc, FileLineColLoc)
    assert (loc.filename.data, loc.line.data, loc.column.data) == ("g.mlir", 12, 3)
    # A location written in the text wins.
    text = GOOD.replace(": tensor<2xf32>\n  func", ': tensor<2xf32> loc("x.py":7:1)\n  func')
    module = lamina.parse(text)
    (relu,) = [op for op in module.walk() if op.name == "relay.relu"]
    assert isinstance(relu.location, FileLineColLoc) and relu.location.line.data == 7
    # Locations do not show in the printed IR.
    assert "loc(" not in lamina.print_ir(lamina.parse(GOOD))


# ------------------------------------------------------------ after a pass
@dataclass(frozen=True)
class BreakTypePass(ModulePass):
    """Test-only: adds a relu with a wrong result type, at the first relu's
    location (as a rewrite keeps the location of the op it replaces)."""

    name = "test-break-type"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        relu = next(o for o in op.walk() if o.name == "relay.relu")
        bad = type(relu).create(
            operands=list(relu.operands), result_types=[TensorType(f32, [7])]
        )
        bad.location = relu.location
        relu.parent.insert_op_before(bad, relu)  # type: ignore[union-attr]


def test_verify_instrument_error_is_one_line_at_the_op() -> None:
    module = lamina.parse(GOOD, name="g.mlir")
    with pytest.raises(IRError) as info:
        run_pipeline(module, [BreakTypePass()], PassContext(instruments=[VerifyInstrument()]))
    msg = str(info.value)
    assert "\n" not in msg
    assert msg.startswith("g.mlir:2:3: the IR does not verify after pass 'test-break-type'")
    assert "that pass broke it: relay.relu: " in msg


# ------------------------------------------------------ pass names and options
def test_pass_list_separates_pipelines() -> None:
    text = registry.lamina_pass_list()
    passes, pipelines = text.split("; its pipelines are ")
    assert "fuse-ops" in passes and "optimize" not in passes and "default" not in passes
    assert pipelines.startswith("default, lower, optimize")


def test_misspelt_pass_option_is_kebab_case() -> None:
    with pytest.raises(LaminaError) as info:
        resolve_pipeline("fuse-ops{max-dept=3}")
    assert str(info.value) == (
        "bad pass pipeline 'fuse-ops{max-dept=3}': pass 'fuse-ops' has no option "
        "'max-dept' (did you mean 'max-depth'?); its options are max-depth"
    )
    with pytest.raises(LaminaError, match="pass 'cse' has no option 'x'; it takes no options"):
        resolve_pipeline("cse{x=1}")
    with pytest.raises(LaminaError, match="pass 'fuse-ops' option 'max-depth': "):
        resolve_pipeline("fuse-ops{max-depth=deep}")
    with pytest.raises(LaminaError, match="syntax error at column 5: "):
        resolve_pipeline("cse{")
    assert [p.name for p in resolve_pipeline("fuse-ops{max-depth=3}")] == ["fuse-ops"]


def test_unknown_pass_suggests_and_lists() -> None:
    with pytest.raises(LaminaError) as info:
        resolve_pipeline("cse,fuse-op")
    assert str(info.value).startswith(
        "bad pass pipeline 'cse,fuse-op': unknown pass 'fuse-op' (did you mean "
        "'fuse-ops'?); lamina's passes are "
    )


# --------------------------------------------------------------- lamina-opt
def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = opt.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_opt_verifier_error_is_located(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "b.mlir"
    path.write_text(GOOD + "// -----\n" + BROADCAST_GENERIC)
    code, _, err = run([str(path)], capsys)
    assert code == 1
    assert err.startswith(f"lamina-opt: error: {path}:7:3: relay.add: shapes 1x4")
    # With --split-input-file, lines still count from the start of the file.
    code, _, err = run([str(path), "--split-input-file"], capsys)
    assert code == 1 and f"{path}:7:3: relay.add" in err and err.count("\n") == 1
    code, _, err = run([str(path), "--split-input-file", "-p", "cse,dce"], capsys)
    assert code == 1 and f"{path}:7:3: relay.add" in err


def test_opt_undefined_value_and_empty(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "u.mlir"
    path.write_text(UNDEFINED)
    code, _, err = run([str(path)], capsys)
    assert code == 1 and f"{path}:3:22: use of undeclared SSA value name %zz" in err
    empty = tmp_path / "e.mlir"
    empty.write_text("")
    code, out, err = run([str(empty)], capsys)
    assert code == 0 and err == "" and out == "builtin.module {\n}\n\n"


def test_opt_pass_flags_are_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "g.mlir"
    path.write_text(GOOD)
    for flag in ("--print-ir-after", "--print-ir-before", "--disabled-passes", "--required-passes"):
        code, _, err = run([str(path), "-p", "cse", flag, "fuse-op"], capsys)
        assert code == 1
        assert err.startswith(
            f"lamina-opt: error: {flag}: unknown pass 'fuse-op' (did you mean 'fuse-ops'?)"
        ), err
        assert "; its pipelines are default, lower, optimize" in err
    code, _, err = run([str(path), "-p", "fuse-ops{max-dept=3}"], capsys)
    assert err == (
        "lamina-opt: error: -p: pass 'fuse-ops' has no option 'max-dept' (did you mean "
        "'max-depth'?); its options are max-depth\n"
    )


def test_verify_diagnostics_checks_expected_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "v.mlir"
    body = BROADCAST_GENERIC.replace(
        "  %0 =", "  // expected-error@+1 {{shapes 1x4 and 1x5 do not broadcast}}\n  %0 ="
    )
    path.write_text(body + "// -----\n" + GOOD + "// -----\n" + UNDEFINED.replace(
        "%zz : tensor<4xf32>", "%zz : tensor<4xf32> // expected-error {{undeclared SSA value name %zz}}"
    ))
    code, out, err = run([str(path), "--split-input-file", "--verify-diagnostics"], capsys)
    assert (code, err) == (0, "")
    assert out.count("relay.relu") == 1  # the valid chunk is printed
    # A wrong expectation and an unexpected error both fail, each on its line.
    path.write_text(body.replace("1x5 do not", "1x6 do not"))
    code, out, err = run([str(path), "--verify-diagnostics"], capsys)
    assert code == 1
    lines = err.splitlines()
    assert lines[0].startswith(f"{path}:3:3: error: unexpected error: relay.add: shapes 1x4")
    assert lines[1] == (
        f'{path}:2:6: error: expected error "shapes 1x4 and 1x6 do not broadcast" was not '
        "produced"
    )
    assert lines[2].startswith("lamina-opt: error: --verify-diagnostics: 2 mismatches")


def test_diagnostic_verifier_line_designators() -> None:
    text = "\n".join([
        "a",                                   # 1
        "b // expected-error@-1 {{one}}",      # 2
        "// expected-error@below {{two}}",     # 3
        "// expected-error@above {{three}}",   # 4
        "c",                                   # 5
        "d // expected-error {{four}} expected-error@+1 {{five}}",  # 6
        "e",                                   # 7
    ])
    v = opt.DiagnosticVerifier(text, 100, "f.mlir")
    assert [(e.message, e.line) for e in v.expected] == [
        ("one", 101), ("two", 105), ("three", 102), ("four", 106), ("five", 107)
    ]
    found = [
        opt.Diagnostic("error one", ("f.mlir", 101, 1)),
        opt.Diagnostic("two!", ("f.mlir", 105, 1)),
        opt.Diagnostic("three", ("f.mlir", 102, 4)),
        opt.Diagnostic("four", ("f.mlir", 106, 1)),
        opt.Diagnostic("five", ("f.mlir", 107, 2)),
    ]
    assert v.check(found) == []
    v = opt.DiagnosticVerifier(text, 0, "f.mlir")
    assert v.check([opt.Diagnostic("one", ("f.mlir", 2, 1)), opt.Diagnostic("x")]) == [
        "f.mlir:2:1: error: unexpected error: one",
        "f.mlir: error: unexpected error: x",
        'f.mlir:2:6: error: expected error "one" was not produced',
        'f.mlir:3:4: error: expected error "two" was not produced',
        'f.mlir:4:4: error: expected error "three" was not produced',
        'f.mlir:6:6: error: expected error "four" was not produced',
        'f.mlir:6:30: error: expected error "five" was not produced',
    ]


def test_verify_diagnostics_without_expectations_prints(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # xdsl-opt's mode (no expected-* lines): the diagnostic is printed, located.
    path = tmp_path / "p.mlir"
    path.write_text(BROADCAST_GENERIC)
    code, out, err = run([str(path), "--verify-diagnostics"], capsys)
    assert code == 0 and err == ""
    assert out.startswith(f"{path}:2:3: error: relay.add: shapes 1x4 and 1x5")
    assert "Operation does not verify: relay.add" in out
