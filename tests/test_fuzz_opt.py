"""lamina-opt on bad input: one-line diagnostics, crash reproducers (written and
replayed) and atomic `-o` output."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from lamina.passes import registry
from lamina.tools import opt

GOOD = """func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = relay.relu %x : tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
"""


@dataclass(frozen=True)
class CrashPass(ModulePass):
    """A test-only pass with a bug: it raises a non-lamina exception."""

    name = "test-crash"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        raise ZeroDivisionError("the pass has a bug")


@pytest.fixture
def crash_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    with registry.PASSES.scoped("test-crash", CrashPass):
        yield


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = opt.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(err: str) -> str:
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith("lamina-opt: "), err
    return err


@pytest.mark.parametrize(
    "text, expected",
    [
        (GOOD.replace("relay.relu %x : tensor<2xf32>", "relay.relu %x :"), "type expected"),
        (GOOD.replace(": tensor<2xf32>\n  func", ": tensor<3xf32>\n  func"), "2:"),
        (GOOD.replace("tensor<2xf32>", "tensor<2xi99999999999999999999>"), "too wide"),
        (GOOD + 'func.func @f() attributes {a = "unterminated' + "x" * 40 + "}\n", "string"),
        (GOOD.replace("relay.relu", "relay.nosuchop"), "relay.nosuchop"),
        ('"relay.relu"() : () -> ()\n', "relay.relu"),
        (GOOD[: len(GOOD) // 2], ""),
    ],
)
def test_bad_input_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, expected: str
) -> None:
    path = tmp_path / "bad.mlir"
    path.write_text(text)
    code, _, err = run([str(path)], capsys)
    assert code == 1
    assert expected in one_line_error(err)


def test_invalid_utf8_and_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bin.mlir"
    path.write_bytes(b"func.func @f() {\xff\xfe}\n")
    code, _, err = run([str(path)], capsys)
    assert code == 1 and "not UTF-8" in one_line_error(err)
    code, _, err = run([str(tmp_path / "nope.mlir")], capsys)
    assert code == 1 and "no such file" in one_line_error(err)


def test_internal_error_writes_a_reproducer_and_replays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], crash_pass: None
) -> None:
    src = tmp_path / "in.mlir"
    src.write_text(GOOD)
    repro_dir = tmp_path / "repro"
    code, out, err = run(
        [str(src), "-p", "cse,test-crash", "--opt-level", "2", "--reproducer-dir", str(repro_dir)],
        capsys,
    )
    assert code == 1 and out == ""
    one_line_error(err)
    assert "internal error in pass 'test-crash'" in err
    assert "ZeroDivisionError: the pass has a bug" in err
    (repro,) = repro_dir.glob("lamina-opt-reproducer-*.mlir")
    assert str(repro) in err
    text = repro.read_text()
    assert text.startswith("// lamina-opt reproducer: -p cse,test-crash --opt-level 2\n")
    assert GOOD in text
    # Replaying crashes the same way, and writes no new reproducer (each replay
    # used to add one): the error names the one replayed.
    for _ in range(2):
        code, _, err = run(
            ["--run-reproducer", str(repro), "--reproducer-dir", str(repro_dir)], capsys
        )
        assert code == 1 and "internal error in pass 'test-crash'" in one_line_error(err)
        assert f"the reproducer {repro} still fails (no new reproducer written" in err
    assert list(repro_dir.glob("*.mlir")) == [repro]


def test_run_reproducer_without_the_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repro = tmp_path / "r.mlir"
    repro.write_text("// lamina-opt reproducer: -p canonicalize\n" + GOOD)
    code, out, err = run(["--run-reproducer", str(repro)], capsys)
    assert code == 0 and "relay.relu" in out and err == ""
    plain = tmp_path / "plain.mlir"
    plain.write_text(GOOD)
    code, _, err = run(["--run-reproducer", str(plain)], capsys)
    assert code == 1 and "not a lamina-opt reproducer" in one_line_error(err)
    code, _, err = run(["--run-reproducer", str(tmp_path / "none.mlir")], capsys)
    assert code == 1 and "no such file" in one_line_error(err)


def test_output_file_is_written_atomically(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], crash_pass: None
) -> None:
    src = tmp_path / "in.mlir"
    src.write_text(GOOD)
    target = tmp_path / "out.mlir"
    code, out, _ = run([str(src), "-p", "canonicalize", "-o", str(target)], capsys)
    assert code == 0 and out == "" and "relay.relu" in target.read_text()
    # A failing run leaves the previous output untouched and no temporary files.
    target.write_text("previous\n")
    code, _, err = run(
        [str(src), "-p", "test-crash", "-o", str(target), "--reproducer-dir", str(tmp_path / "r")],
        capsys,
    )
    assert code == 1 and target.read_text() == "previous\n"
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @f( {")
    new = tmp_path / "new.mlir"
    code, _, err = run([str(bad), "-o", str(new)], capsys)
    assert code == 1 and not new.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.mlir", "in.mlir", "out.mlir", "r"]
    code, _, err = run([str(src), "-o", str(tmp_path / "no" / "dir.mlir")], capsys)
    assert code == 1 and "does not exist" in one_line_error(err)


def test_split_input_file_reports_each_chunk(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "chunks.mlir"
    path.write_text(GOOD + "// -----\n" + GOOD.replace("%x :", "%y :"))
    code, _, err = run([str(path), "--split-input-file", "--parsing-diagnostics"], capsys)
    assert code == 0 and err == ""


def test_a_crashing_pass_is_an_internal_error_in_the_api() -> None:
    import lamina
    from lamina.errors import InternalError

    with pytest.raises(InternalError, match="internal error in pass 'test-crash': ZeroDivisionError") as info:
        lamina.run_pipeline(lamina.parse(GOOD), [CrashPass()])
    assert info.value.pass_name == "test-crash"
    assert isinstance(info.value.__cause__, ZeroDivisionError)
    assert isinstance(info.value, lamina.LaminaError)


def test_unknown_file_extension_is_an_error_not_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # It was an internal error with a crash reproducer.
    path = tmp_path / "m.txt"
    path.write_text(GOOD)
    code, _, err = run([str(path), "--reproducer-dir", str(tmp_path / "r")], capsys)
    assert code == 1 and "unknown file extension '.txt'" in one_line_error(err)
    assert "internal error" not in err and not (tmp_path / "r").exists()
    code, out, _ = run([str(path), "-f", "mlir"], capsys)
    assert code == 0 and "relay.relu" in out
