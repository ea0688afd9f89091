"""`lamina-opt`: xdsl-opt with lamina's dialects, passes and the `llvm` target.

Passes run through lamina's pass manager (`lamina.lamina.passes`), so besides every
xdsl-opt flag there are mlir-opt's and TVM's pass-manager options:

    lamina-opt m.mlir -p default --opt-level 2       # named pipelines are passes
    lamina-opt m.mlir -p cse,dce --print-ir-after cse  # or `all`; also -before
    lamina-opt m.mlir -p default --time-passes         # MLIR's timing table, stderr
    lamina-opt m.mlir -p default --pass-statistics     # ops before/after, counters
    lamina-opt m.mlir -p default --disabled-passes cse --pass-config fuse-ops.max-depth=8

The IR is verified before the first pass and after each one (`--verify-each`, on
unless `--verify-each=false` or `--disable-verify`); a failure names the pass that
broke the IR. `--opt-level` defaults to 3, so a pass listed with `-p` always runs.

Every error is one line on stderr and exit code 1 (no traceback). An internal error
(a bug: an exception that is not a diagnostic) writes a crash reproducer, like
mlir-opt's: the input IR under a `// lamina-opt reproducer: -p PIPELINE ...` header,
in `--reproducer-dir` (default: the system's temporary folder); `lamina-opt
--run-reproducer FILE` replays it. `-o FILE` is written atomically, so a failure
leaves no partial output.
"""

from __future__ import annotations

import argparse
import io
import os
import shlex
import sys
import tempfile
from collections.abc import Sequence
from difflib import get_close_matches
from pathlib import Path
from typing import IO

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline
from xdsl.printer import Printer
from xdsl.utils.exceptions import (
    ArgSpecParseError,
    DiagnosticException,
    ParseError,
    VerifyException,
)
from xdsl.xdsl_opt_main import xDSLOptMain

from lamina import driver, passes  # noqa: F401 (driver: every pass registered)
from lamina.dialects import resources
from lamina.dialects.dominance import verify_ssa_order
from lamina.dialects.parser import make_parser
from lamina.errors import InternalError, LaminaError
from lamina.fileio import write_atomic
from lamina.ir import lamina_dialects
from lamina.target.codegen import LlvmTarget

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


class LaminaOptMain(xDSLOptMain):
    """mlir-opt for lamina: every xDSL flag, plus lamina's IR and pipelines."""

    version_format = "lamina-opt (xDSL {xdsl_version})"
    #: The text of the chunk being processed (the reproducer's input).
    chunk_text: str = ""
    #: What was being done when an internal error hit: parsing, a pass, printing.
    stage: str = "starting"
    output: _BufferedOutput | None = None

    def register_all_dialects(self) -> None:
        super().register_all_dialects()
        for dialect in lamina_dialects():
            if dialect.name not in self.ctx.registered_dialect_names:
                self.ctx.register_dialect(dialect.name, lambda d=dialect: d)
        # Resources print through the loaded builtin dialect's BlobStore; the llvm
        # additions (`llvm.*`) and relay's region ops (`relay.fused`, `relay.yield`)
        # live in dialects of other names, so they must be loaded to be found.
        self.ctx.load_registered_dialect("builtin")
        self.ctx.load_registered_dialect("llvm_ext")

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
            return make_parser(self.ctx, raw, self.get_input_name()).parse_module(
                not self.args.no_implicit_module
            )

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
        if file_extension not in self.available_frontends:
            raise LaminaError(
                f"cannot read '{self.get_input_name()}': unknown file extension "
                f"'.{file_extension}' (expected .mlir)"
            )
        return super().parse_chunk(chunk, file_extension, offset)

    def output_resulting_program(self, prog: ModuleOp) -> str:
        self.stage = "printing the output"
        return super().output_resulting_program(prog)

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        arg_parser.add_argument(
            "--print-resources",
            action="store_true",
            help="print every dense_resource blob in full (by default blobs larger "
            f"than {resources.DEFAULT_ELIDE_LIMIT} bytes are elided)",
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
        # xDSL's parsing and error messages for `-p`; lamina's manager runs it.
        try:
            self.pipeline = PassPipeline.parse_spec(
                self.available_passes, self.args.passes
            )
        except (ValueError, ArgSpecParseError) as e:
            names = [n for n in str(e).split("'") if n in self.args.passes]
            close = [
                m for n in names for m in get_close_matches(n, self.available_passes, 1)
            ]
            hint = f" (did you mean {', '.join(close)}?)" if close else ""
            raise LaminaError(
                f"-p {self.args.passes}: {e}{hint}; see lamina-opt --help for the "
                "passes"
            ) from None
        args = self.args
        self.timing = passes.TimingInstrument()
        self.statistics = passes.StatisticsInstrument()
        instruments: list[passes.PassInstrument] = []
        before = ["all"] if args.print_ir_before_all else _names(args.print_ir_before)
        after = ["all"] if args.print_ir_after_all else _names(args.print_ir_after)
        if before or after:
            instruments.append(passes.PrintIRInstrument(before, after))
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
            required_passes=_names(args.required_passes),
            disabled_passes=_names(args.disabled_passes),
            instruments=instruments,
            config=config,
        )

    def apply_passes(self, prog: ModuleOp) -> None:
        self.stage = "verifying the input"
        if not self.args.disable_verify:
            try:
                prog.verify()
                verify_ssa_order(prog)
            except VerifyException as e:
                if self.args.verify_diagnostics:
                    raise
                raise VerifyException(_name_failing_op(prog, str(e))) from None
        self.current_pass.name = None
        try:
            passes.run_pipeline(
                prog, list(self.pipeline.passes), self.pass_context, mlir_ctx=self.ctx
            )
        finally:
            name = self.current_pass.name
            self.stage = f"pass '{name}'" if name else "the pass pipeline"

    def run(self) -> None:
        super().run()
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


def _name_failing_op(module: ModuleOp, message: str) -> str:
    """`message` prefixed with the name of the op that fails to verify, unless it
    names it already (xDSL's generic checks do not)."""
    for op in module.walk():
        try:
            op.verify_()
        except VerifyException:
            return message if op.name in message else f"'{op.name}' op: {message}"
        except Exception:
            continue
    return message


def _one_line(e: BaseException) -> str:
    """An error as one line: `file:line:col: message` for a parse error."""
    if isinstance(e, ParseError):
        loc = e.span.get_location()
        text = f"{loc.file}:{loc.line}:{loc.col}: {e.msg}"
    else:
        text = str(e)
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    # A verifier's message is followed by the IR it points into; keep the message.
    return "; ".join(ln for ln in lines if not set(ln) <= set("^ ~-")) if lines else (
        type(e).__name__
    )


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
    return [str(path), *replay, *rest]


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
    """Report a bug met in `stage` in one line, with a crash reproducer."""
    try:
        where = f"; reproducer: {tool.write_reproducer()}"
    except (OSError, LaminaError) as w:
        where = f"; could not write a reproducer: {w}"
    print(
        f"lamina-opt: internal error in {stage}: {type(e).__name__}: {_one_line(e)}"
        f"{where} (replay with lamina-opt --run-reproducer FILE; please report it)",
        file=sys.stderr,
    )
    return 1


if __name__ == "__main__":
    sys.exit(main())
