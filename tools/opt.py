"""`lamina-opt`: xdsl-opt with lamina's dialects, passes and the `llvm` target.

Passes run through lamina's pass manager (`lamina.passes`), so besides every
xdsl-opt flag there are mlir-opt's and TVM's pass-manager options:

    lamina-opt m.mlir -p default --opt-level 2       # named pipelines are passes
    lamina-opt m.mlir -p cse,dce --print-ir-after cse  # or `all`; also -before
    lamina-opt m.mlir -p default --time-passes         # MLIR's timing table, stderr
    lamina-opt m.mlir -p default --pass-statistics     # ops before/after, counters
    lamina-opt m.mlir -p default --disabled-passes cse --pass-config fuse-ops.max-depth=8

The IR is verified before the first pass and after each one (`--verify-each`, on
unless `--verify-each=false` or `--disable-verify`); a failure names the pass that
broke the IR. `--opt-level` defaults to 3, so a pass listed with `-p` always runs.

Every error is one line on stderr and exit code 1 (no traceback); errors in the
input are `file:line:col: message`, a verifier error at the failing op. An empty
input is an empty module (as mlir-opt reads it). An internal error (a bug: an
exception that is not a diagnostic) writes a crash reproducer, like mlir-opt's: the
input IR under a `// lamina-opt reproducer: -p PIPELINE ...` header, in
`--reproducer-dir` (default: the system's temporary folder); `lamina-opt
--run-reproducer FILE` replays it (and writes no new reproducer when it crashes
again). `-o FILE` is written atomically, so a failure leaves no partial output.

Diagnostics as tests (`DiagnosticVerifier`):

    lamina-opt bad.mlir --verify-diagnostics      # `// expected-error {{...}}` lines
    lamina-opt bad.mlir --split-input-file --parsing-diagnostics --verify-diagnostics

With `// expected-error {{message}}` lines in the input, `--verify-diagnostics` is
mlir-opt's: every error (parse errors, verifier errors, pass failures) must be
expected on its line and every expected error must be produced; mismatches are
reported as `file:line:col: error: ...` on stderr, with exit code 1. Without such
lines it is xdsl-opt's: each chunk's verifier error is printed on stdout (`file:line:
col: error: message`, then xDSL's rendering of the IR) and the exit code is 0;
`--parsing-diagnostics` does the same for parse errors.
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import os
import re
import shlex
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline
from xdsl.printer import Printer
from xdsl.universe import Universe
from xdsl.utils.exceptions import DiagnosticException, ParseError, ShrinkException
from xdsl.xdsl_opt_main import xDSLOptMain

from lamina import driver, passes  # noqa: F401 (driver: every pass registered)
from lamina.codegen.codegen import LlvmTarget
from lamina.dialects import resources
from lamina.dialects.dominance import verify_ssa_order
from lamina.dialects.parser import make_parser
from lamina.errors import InternalError, IRError, LaminaError
from lamina.fileio import write_atomic
from lamina.ir import lamina_dialects, one_line, parse_error, verify_error
from lamina.passes.registry import parse_passes
from lamina.target import Target
from lamina.version import __version__

#: The first line of a crash reproducer; the rest of the line is the arguments.
REPRODUCER_HEADER = "// lamina-opt reproducer:"


def _bool_flag(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("1", "true", "on", "yes"):
        return True
    if lowered in ("0", "false", "off", "no"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got '{text}'")


def _names(values: Sequence[str] | None) -> list[str]:
    return [n.strip() for v in values or () for n in v.split(",") if n.strip()]


class _PrintBetweenPasses(passes.PassInstrument):
    """xdsl-opt's `--print-between-passes`: the IR after every pass but the last."""

    def run_after_pass(self, module: ModuleOp, info: passes.PassInfo) -> None:
        if info.index + 1 < info.count:
            print(f"IR after {info.name}:")
            Printer(stream=sys.stdout).print_op(module)
            print("\n\n\n")


class _CurrentPass(passes.PassInstrument):
    """Remembers the pass that started last, to name it in a crash report."""

    needs_whole_module = False

    def __init__(self) -> None:
        self.name: str | None = None

    def run_before_pass(self, module: ModuleOp, info: passes.PassInfo) -> None:
        self.name = info.name


class _BufferedOutput(io.StringIO):
    """`-o FILE`: collect the output; it is written (atomically) only on success."""

    def __init__(self) -> None:
        super().__init__()
        self.text = ""

    def close(self) -> None:
        if not self.closed:
            self.text = self.getvalue()
        super().close()


@dataclass
class Diagnostic:
    """An error lamina-opt met: its message and (file, line, column) if known."""

    message: str
    location: tuple[str, int, int] | None = None

    def __str__(self) -> str:
        where = ":".join(map(str, self.location)) if self.location else "<unknown>"
        return f"{where}: error: {self.message}"


#: `expected-error {{message}}`, optionally `@+N`, `@-N`, `@above` or `@below`
_EXPECTED = re.compile(
    r"expected-(error|warning|remark|note)(?:@(above|below|[+-]\d+))?\s*\{\{(.*?)\}\}"
)


@dataclass
class _Expected:
    kind: str
    message: str
    #: the line the diagnostic is expected on, and where the annotation is
    line: int
    at: tuple[int, int]
    matched: bool = False


class DiagnosticVerifier:
    """mlir-opt's `--verify-diagnostics` for one chunk of input: the
    `// expected-error {{message}}` annotations of its text, checked against the
    errors met. An annotation expects an error whose message contains `message`
    on its own line, or on the line `@+N` below / `@-N` above it, or on the
    nearest line above / below that is not only a comment of annotations
    (`@above`, `@below`)."""

    def __init__(self, text: str, line_offset: int, file: str) -> None:
        self.file = file
        self.expected: list[_Expected] = []
        below: list[_Expected] = []
        last_plain = line_offset
        for number, line in enumerate(text.splitlines(), start=line_offset + 1):
            found = list(_EXPECTED.finditer(line))
            # A line holding only annotations is skipped by `@above` / `@below`.
            if not found or not line.lstrip().startswith("//"):
                for e in below:
                    e.line = number
                below.clear()
            for m in found:
                kind, where, message = m.groups()
                e = _Expected(kind, message, number, (number, m.start() + 1))
                if where == "above":
                    e.line = last_plain
                elif where == "below":
                    below.append(e)
                elif where:
                    e.line = number + int(where)
                self.expected.append(e)
            if not found or not line.lstrip().startswith("//"):
                last_plain = number

    @staticmethod
    def wanted(text: str) -> bool:
        """Whether `text` holds `expected-*` annotations."""
        return _EXPECTED.search(text) is not None

    def check(self, diagnostics: Sequence[Diagnostic]) -> list[str]:
        """The mismatches, in mlir-opt's words: errors nobody expected, and
        expected diagnostics that were not produced."""
        problems = []
        for d in diagnostics:
            line = d.location[1] if d.location else None
            match = next(
                (
                    e
                    for e in self.expected
                    if not e.matched
                    and e.kind == "error"
                    and e.line == line
                    and e.message in d.message
                ),
                None,
            )
            if match is not None:
                match.matched = True
            else:
                where = ":".join(map(str, d.location)) if d.location else self.file
                problems.append(f"{where}: error: unexpected error: {d.message}")
        for e in self.expected:
            if not e.matched:
                problems.append(
                    f"{self.file}:{e.at[0]}:{e.at[1]}: error: expected {e.kind} "
                    f'"{e.message}" was not produced'
                )
        return problems


class LaminaOptMain(xDSLOptMain):
    """mlir-opt for lamina: every xDSL flag, plus lamina's IR and pipelines."""

    version_format = f"lamina-opt {__version__} (xDSL {{xdsl_version}})"
    #: The text of the chunk being processed (the reproducer's input), and the
    #: number of lines before it in the file (`--split-input-file`).
    chunk_text: str = ""
    chunk_offset: int = 0
    #: What was being done when an internal error hit: parsing, a pass, printing.
    stage: str = "starting"
    output: _BufferedOutput | None = None

    def register_all_dialects(self) -> None:
        ours = {d.name: d for d in lamina_dialects()}  # `llvm` with lamina's ops
        for name, factory in Universe.get_multiverse().all_dialects.items():
            if name not in ours:
                self.ctx.register_dialect(name, factory)
        for dialect in ours.values():
            self.ctx.register_dialect(dialect.name, lambda d=dialect: d)
        # Resources print through the loaded builtin dialect's BlobStore, and
        # relay's region ops (`relay.fused`, `relay.yield`) live in a dialect of
        # another name, so it must be loaded to be found.
        self.ctx.load_registered_dialect("builtin")

    def register_all_passes(self) -> None:
        super().register_all_passes()
        for name, factory in passes.all_passes().items():
            self.register_pass(name, factory)

    def register_all_targets(self) -> None:
        super().register_all_targets()
        self.available_targets["llvm"] = lambda: LlvmTarget

    def register_all_frontends(self) -> None:
        super().register_all_frontends()

        def parse_mlir(stream: IO[bytes]) -> ModuleOp:
            raw = stream.read()
            self.chunk_text = raw.decode("utf-8", errors="replace")
            parser = make_parser(
                self.ctx, raw, self.get_input_name(), self.chunk_offset
            )
            return parser.parse_module(not self.args.no_implicit_module)

        self.available_frontends["mlir"] = parse_mlir

    def get_input_stream(self) -> tuple[IO[bytes], str]:
        path = self.args.input_file
        if path is not None and not Path(path).is_file():
            why = "it is a folder" if Path(path).is_dir() else "no such file"
            raise LaminaError(f"cannot read '{path}': {why}")
        try:
            return super().get_input_stream()
        except OSError as e:
            raise LaminaError(f"cannot read '{path}': {e.strerror or e}") from None

    def prepare_output(self) -> IO[str]:
        if self.args.output_file is None:
            return sys.stdout
        self.output = _BufferedOutput()
        return self.output

    def parse_chunk(self, chunk, file_extension, offset=0):  # type: ignore[no-untyped-def]
        resources.blobs.begin_parse()
        self.stage = "parsing"
        self.chunk_offset = offset
        if file_extension not in self.available_frontends:
            raise LaminaError(
                f"cannot read '{self.get_input_name()}': unknown file extension "
                f"'.{file_extension}' (expected .mlir)"
            )
        return super().parse_chunk(chunk, file_extension, offset)

    def output_resulting_program(self, prog: ModuleOp) -> str:
        self.stage = "printing the output"
        if self.args.output_file is None:
            return super().output_resulting_program(prog)
        # `-o FILE` is IR to read again: it holds every weight (only what is
        # printed to the terminal elides large blobs).
        with resources.printing_resources(None):
            return super().output_resulting_program(prog)

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        arg_parser.add_argument(
            "--print-resources",
            action="store_true",
            help="print every dense_resource blob in full (by default blobs larger "
            f"than {resources.DEFAULT_ELIDE_LIMIT} bytes are elided on stdout; "
            "-o FILE holds them all)",
        )
        crash = arg_parser.add_argument_group("crash reproducers")
        crash.add_argument(
            "--reproducer-dir",
            metavar="DIR",
            help="where an internal error writes its reproducer (default: the "
            "system's temporary folder)",
        )
        crash.add_argument(
            "--run-reproducer",
            metavar="FILE",
            help="replay a crash reproducer: its input IR with the arguments of its "
            "`// lamina-opt reproducer:` header",
        )
        group = arg_parser.add_argument_group("lamina pass manager")
        group.add_argument(
            "--opt-level",
            type=int,
            choices=range(passes.MAX_OPT_LEVEL + 1),
            default=passes.MAX_OPT_LEVEL,
            help="skip passes whose opt level is higher (TVM's opt_level); named "
            "pipelines such as `-p default` pick their passes by it (default: 3)",
        )
        group.add_argument(
            "--codegen-target",
            metavar="TARGET",
            help="the hardware the passes compile for, as `lamina compile --target` "
            "takes it (default: this machine; e.g. aarch64-linux-gnu, "
            "'x86_64-linux-gnu -mcpu=znver4'); `-t` stays the output format",
        )
        group.add_argument(
            "--required-passes",
            action="append",
            metavar="PASS[,PASS]",
            help="passes that run whatever the opt level",
        )
        group.add_argument(
            "--disabled-passes",
            action="append",
            metavar="PASS[,PASS]",
            help="passes that never run",
        )
        group.add_argument(
            "--pass-config",
            action="append",
            metavar="KEY=VALUE",
            help="a typed PassContext option, e.g. fuse-ops.max-depth=8; known: "
            + ", ".join(sorted(passes.config_options())),
        )
        group.add_argument(
            "--print-ir-before",
            action="append",
            metavar="PASS[,PASS]|all",
            help="print the IR (to stderr) before the named passes, or all",
        )
        group.add_argument(
            "--print-ir-after",
            action="append",
            metavar="PASS[,PASS]|all",
            help="print the IR (to stderr) after the named passes, or all",
        )
        group.add_argument(
            "--print-ir-before-all",
            action="store_true",
            help="same as --print-ir-before=all",
        )
        group.add_argument(
            "--print-ir-after-all",
            action="store_true",
            help="same as --print-ir-after=all",
        )
        group.add_argument(
            "--verify-each",
            type=_bool_flag,
            nargs="?",
            const=True,
            default=True,
            metavar="BOOL",
            help="verify the IR after each pass and name the pass that broke it "
            "(default: true; --disable-verify turns all verification off)",
        )
        group.add_argument(
            "--pass-statistics",
            action="store_true",
            help="print, to stderr, the number of ops before and after each pass and "
            "the counters passes report (e.g. pattern applications)",
        )

    def setup_pipeline(self) -> None:
        # xDSL's pipeline syntax for `-p`; lamina's manager runs it.
        self.pipeline = PassPipeline(
            tuple(parse_passes(self.args.passes, "-p", self.available_passes))
        )
        args = self.args
        self.timing = passes.TimingInstrument()
        self.statistics = passes.StatisticsInstrument()
        instruments: list[passes.PassInstrument] = []
        before = ["all"] if args.print_ir_before_all else _names(args.print_ir_before)
        after = ["all"] if args.print_ir_after_all else _names(args.print_ir_after)
        if before or after:
            instruments.append(passes.PrintIRInstrument(before, after))
        required = _names(args.required_passes)
        disabled = _names(args.disabled_passes)
        passes.check_pass_names("--required-passes", required)
        passes.check_pass_names("--disabled-passes", disabled)
        if args.print_between_passes:
            instruments.append(_PrintBetweenPasses())
        if args.verify_each and not args.disable_verify:
            instruments.append(passes.VerifyInstrument())
        if args.time_passes:
            instruments.append(self.timing)
        if args.pass_statistics:
            instruments.append(self.statistics)
        self.current_pass = _CurrentPass()
        instruments.append(self.current_pass)
        config: dict[str, passes.ConfigValue] = {}
        for item in args.pass_config or ():
            key, sep, value = item.partition("=")
            if not sep:
                raise LaminaError(f"--pass-config expects KEY=VALUE, got '{item}'")
            option = passes.config_options().get(key.strip())
            if option is None:
                passes.PassContext(config={key.strip(): value})  # says what is known
                raise AssertionError("unreachable")
            config[option.key] = option.parse(value)
        self.pass_context = passes.PassContext(
            opt_level=args.opt_level,
            required_passes=required,
            disabled_passes=disabled,
            instruments=instruments,
            config=config,
            target=Target.parse(args.codegen_target) if args.codegen_target else None,
        )

    def apply_passes(self, prog: ModuleOp) -> None:
        self.stage = "verifying the input"
        if not self.args.disable_verify:
            try:
                prog.verify()
                verify_ssa_order(prog)
            except DiagnosticException as e:
                # One line at the failing op; xDSL's rendering stays on `e`.
                raise verify_error(prog, e, self.chunk_text, self.chunk_offset) from e
        self.current_pass.name = None
        try:
            passes.run_pipeline(
                prog, list(self.pipeline.passes), self.pass_context, mlir_ctx=self.ctx
            )
        finally:
            name = self.current_pass.name
            self.stage = f"pass '{name}'" if name else "the pass pipeline"

    def run(self) -> None:
        """xDSL's `run`, with lamina's diagnostics: one chunk at a time, errors
        checked against `expected-*` annotations under `--verify-diagnostics`."""
        try:
            chunks, file_extension = self.prepare_input()
        except ValueError:  # xDSL's "Unrecognized file extension"
            raise LaminaError(
                f"cannot read '{self.get_input_name()}': unknown file extension "
                f"'{Path(self.get_input_name()).suffix}' (expected .mlir, or give "
                "-f mlir)"
            ) from None
        texts: list[tuple[bytes, int]] = []
        for chunk, offset in chunks:
            try:
                texts.append((chunk.read(), offset))
            finally:
                chunk.close()
        checking = self.args.verify_diagnostics and any(
            DiagnosticVerifier.wanted(raw.decode("utf-8", "replace")) for raw, _ in texts
        )
        problems: list[str] = []
        output = self.prepare_output()
        try:
            for i, (raw, offset) in enumerate(texts):
                if i > 0:
                    output.write("// -----\n")
                found = self.run_chunk(raw, file_extension, offset, output, checking)
                if checking:
                    verifier = DiagnosticVerifier(
                        raw.decode("utf-8", "replace"), offset, self.get_input_name()
                    )
                    problems += verifier.check(found)
        except ShrinkException:
            assert self.args.shrink
            print("Success, can shrink")
            sys.exit(0)
        finally:
            if output is not sys.stdout:
                output.close()
        if self.args.shrink:
            print("Failure, can't shrink")
            sys.exit(1)
        if problems:
            sys.stdout.flush()
            for problem in problems:
                print(problem, file=sys.stderr)
            raise LaminaError(
                f"--verify-diagnostics: {len(problems)} "
                f"mismatch{'es' if len(problems) > 1 else ''} between the errors "
                "and the expected-* lines of the input"
            )
        self.write_outputs()

    def run_chunk(
        self, raw: bytes, file_extension: str, offset: int, output: IO[str],
        checking: bool,
    ) -> list[Diagnostic]:
        """Parse, transform and print one chunk. The errors met are returned when
        `checking` (mlir-opt's --verify-diagnostics), printed under
        `--parsing-diagnostics` / `--verify-diagnostics` (xdsl-opt's), else
        raised."""
        try:
            module = self.parse_chunk(io.BytesIO(raw), file_extension, offset)
        except ParseError as e:
            e.span = dataclasses.replace(e.span, line_offset=offset)
            if checking:
                err = parse_error(e)
                return [Diagnostic(err.reason, err.location)]
            if self.args.parsing_diagnostics:
                print(e)
                return []
            raise
        except (IRError, DiagnosticException) as e:
            if checking:
                return [_diagnostic(e)]
            if self.args.parsing_diagnostics:
                print(e)
                return []
            raise
        if module is None:
            return []
        try:
            self.apply_passes(module)
            output.write(self.output_resulting_program(module))
            output.flush()
        except (IRError, DiagnosticException) as e:
            if checking:
                return [_diagnostic(e)]
            if self.args.verify_diagnostics:
                _print_diagnostic(e)
                return []
            raise
        return []

    def write_outputs(self) -> None:
        """After a successful run: `-o FILE` and the pass reports."""
        if self.output is not None:
            write_atomic(self.args.output_file, self.output.text)
        if self.args.time_passes:
            sys.stderr.write(self.timing.table())
        if self.args.pass_statistics:
            sys.stderr.write(self.statistics.report())

    def reproducer_args(self) -> list[str]:
        """The arguments that replay the failing run (pipeline and pass options)."""
        a = self.args
        out = ["-p", a.passes] if a.passes else []
        if a.opt_level != passes.MAX_OPT_LEVEL:
            out += ["--opt-level", str(a.opt_level)]
        for flag, values in (
            ("--required-passes", a.required_passes),
            ("--disabled-passes", a.disabled_passes),
            ("--pass-config", a.pass_config),
        ):
            for v in values or ():
                out += [flag, v]
        if a.target != "mlir":
            out += ["-t", a.target]
        if a.disable_verify:
            out.append("--disable-verify")
        if a.allow_unregistered_dialect:
            out.append("--allow-unregistered-dialect")
        return out

    def write_reproducer(self) -> Path:
        """Write the input being processed and the arguments as a reproducer."""
        folder = Path(self.args.reproducer_dir or tempfile.gettempdir())
        folder.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(
            prefix="lamina-opt-reproducer-", suffix=".mlir", dir=folder
        )
        os.close(fd)
        header = f"{REPRODUCER_HEADER} {shlex.join(self.reproducer_args())}".rstrip()
        write_atomic(name, f"{header}\n// input: {self.get_input_name()}\n"
                     f"{self.chunk_text}")
        return Path(name)


def _diagnostic(e: BaseException) -> Diagnostic:
    """A located `IRError` or any other diagnostic as a `Diagnostic`."""
    if isinstance(e, IRError):
        return Diagnostic(e.reason, e.location)
    return Diagnostic(one_line(str(e)) or type(e).__name__)


def _print_diagnostic(e: BaseException) -> None:
    """xdsl-opt's `--verify-diagnostics` output, located: `file:line:col: error:
    message`, then xDSL's rendering of the IR around the failing op."""
    d = _diagnostic(e)
    source = e.__cause__ if isinstance(e, IRError) and e.__cause__ else e
    # The verifier's message as it wrote it (lines and all), after the op's name.
    raw, flat = str(source).strip(), one_line(str(source))
    if flat and d.message.endswith(flat):
        d.message = d.message[: len(d.message) - len(flat)] + raw
    print(d)
    notes = getattr(source, "__notes__", None)
    if notes:
        for note in notes:
            print(note)
    elif isinstance(e, IRError) and e.context:
        print(e.context)


def _one_line(e: BaseException) -> str:
    """An error as one line: `file:line:col: message` for a parse error."""
    text = str(parse_error(e)) if isinstance(e, ParseError) else one_line(str(e))
    return text or type(e).__name__


def _reproducer_argv(argv: list[str]) -> list[str]:
    """`--run-reproducer FILE` and the other arguments -> arguments that replay it."""
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--run-reproducer")
    known, rest = pre.parse_known_args(argv)
    if known.run_reproducer is None:
        return argv
    path = Path(known.run_reproducer)
    try:
        first = path.read_text().splitlines()[0] if path.is_file() else ""
    except (OSError, UnicodeDecodeError, IndexError) as e:
        raise LaminaError(f"cannot read reproducer '{path}': {e}") from None
    if not path.is_file():
        raise LaminaError(f"cannot read reproducer '{path}': no such file")
    if not first.startswith(REPRODUCER_HEADER):
        raise LaminaError(
            f"'{path}' is not a lamina-opt reproducer: its first line should start "
            f"with '{REPRODUCER_HEADER}'"
        )
    try:
        replay = shlex.split(first[len(REPRODUCER_HEADER) :])
    except ValueError as e:
        raise LaminaError(f"reproducer '{path}': bad header: {e}") from None
    # `--run-reproducer` stays in the arguments: a replay writes no reproducer.
    return [str(path), *replay, *rest, "--run-reproducer", str(path)]


def main(argv: Sequence[str] | None = None) -> int:
    """Run lamina-opt; every failure is one line on stderr and exit code 1."""
    tool: LaminaOptMain | None = None
    try:
        args = _reproducer_argv(list(sys.argv[1:] if argv is None else argv))
        tool = LaminaOptMain(description="lamina modular optimizer driver", args=args)
        limit = None if tool.args.print_resources else resources.DEFAULT_ELIDE_LIMIT
        with resources.printing_resources(limit):
            tool.run()
    except InternalError as e:  # a pass crashed: report it with a reproducer
        if tool is None:
            print(f"lamina-opt: error: {_one_line(e)}", file=sys.stderr)
            return 1
        return _internal_error(tool, f"pass '{e.pass_name}'", e.__cause__ or e)
    except (LaminaError, ParseError, DiagnosticException) as e:
        print(f"lamina-opt: error: {_one_line(e)}", file=sys.stderr)
        return 1
    except (KeyboardInterrupt, SystemExit):
        raise
    except RecursionError:
        print(
            "lamina-opt: error: the input is nested too deeply to process",
            file=sys.stderr,
        )
        return 1
    except Exception as e:  # an internal error: a bug, reported with a reproducer
        if tool is None:
            print(f"lamina-opt: internal error: {type(e).__name__}: {_one_line(e)}",
                  file=sys.stderr)
            return 1
        return _internal_error(tool, tool.stage, e)
    return 0


def _internal_error(tool: LaminaOptMain, stage: str, e: BaseException) -> int:
    """Report a bug met in `stage` in one line, with a crash reproducer (unless
    this run replays one: that reproducer is the one to report)."""
    replayed = tool.args.run_reproducer
    if replayed is not None:
        where = (
            f"; the reproducer {replayed} still fails (no new reproducer written; "
            "please report it)"
        )
    else:
        try:
            where = f"; reproducer: {tool.write_reproducer()}"
        except (OSError, LaminaError) as w:
            where = f"; could not write a reproducer: {w}"
        where += " (replay with lamina-opt --run-reproducer FILE; please report it)"
    print(
        f"lamina-opt: internal error in {stage}: {type(e).__name__}: {_one_line(e)}"
        f"{where}",
        file=sys.stderr,
    )
    return 1


if __name__ == "__main__":
    sys.exit(main())
