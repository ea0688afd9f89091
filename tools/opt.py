"""`lamina-opt`: xdsl-opt with lamina's dialects, passes and the `llvm` target.

Passes run through lamina's pass manager (`lamina.passes.manager`), so besides every
xdsl-opt flag there are mlir-opt's and TVM's pass-manager options:

    lamina-opt m.mlir -p default --opt-level 2       # named pipelines are passes
    lamina-opt m.mlir -p cse,dce --print-ir-after cse  # or `all`; also -before
    lamina-opt m.mlir -p default --time-passes         # MLIR's timing table, stderr
    lamina-opt m.mlir -p default --pass-statistics     # ops before/after, counters
    lamina-opt m.mlir -p default --disabled-passes cse --pass-config fuse-ops.max-depth=8

The IR is verified before the first pass and after each one (`--verify-each`, on
unless `--verify-each=false` or `--disable-verify`); a failure names the pass that
broke the IR. `--opt-level` defaults to 3, so a pass listed with `-p` always runs.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from difflib import get_close_matches

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline
from xdsl.printer import Printer
from xdsl.utils.exceptions import ArgSpecParseError
from xdsl.xdsl_opt_main import xDSLOptMain

from lamina.dialects import resources
from lamina.errors import LaminaError
from lamina.passes import manager


def _bool_flag(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("1", "true", "on", "yes"):
        return True
    if lowered in ("0", "false", "off", "no"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got '{text}'")


def _names(values: Sequence[str] | None) -> list[str]:
    return [n.strip() for v in values or () for n in v.split(",") if n.strip()]


class _PrintBetweenPasses(manager.PassInstrument):
    """xdsl-opt's `--print-between-passes`: the IR after every pass but the last."""

    def run_after_pass(self, module: ModuleOp, info: manager.PassInfo) -> None:
        if info.index + 1 < info.count:
            print(f"IR after {info.name}:")
            Printer(stream=sys.stdout).print_op(module)
            print("\n\n\n")


class LaminaOptMain(xDSLOptMain):
    """mlir-opt for lamina: every xDSL flag, plus lamina's IR and pipelines."""

    version_format = "lamina-opt (xDSL {xdsl_version})"

    def register_all_dialects(self) -> None:
        super().register_all_dialects()
        from lamina.ir import lamina_dialects

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
        from lamina.passes.registry import all_passes

        for name, factory in all_passes().items():
            self.register_pass(name, factory)

    def register_all_targets(self) -> None:
        super().register_all_targets()
        from lamina.runtime.jit import LlvmTarget

        self.available_targets["llvm"] = lambda: LlvmTarget

    def parse_chunk(self, chunk, file_extension, offset=0):  # type: ignore[no-untyped-def]
        resources.blobs.begin_parse()
        return super().parse_chunk(chunk, file_extension, offset)

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        arg_parser.add_argument(
            "--print-resources",
            action="store_true",
            help="print every dense_resource blob in full (by default blobs larger "
            f"than {resources.DEFAULT_ELIDE_LIMIT} bytes are elided)",
        )
        group = arg_parser.add_argument_group("lamina pass manager")
        group.add_argument(
            "--opt-level",
            type=int,
            choices=range(manager.MAX_OPT_LEVEL + 1),
            default=manager.MAX_OPT_LEVEL,
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
            + ", ".join(sorted(manager.config_options())),
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
        self.timing = manager.TimingInstrument()
        self.statistics = manager.StatisticsInstrument()
        instruments: list[manager.PassInstrument] = []
        before = ["all"] if args.print_ir_before_all else _names(args.print_ir_before)
        after = ["all"] if args.print_ir_after_all else _names(args.print_ir_after)
        if before or after:
            instruments.append(manager.PrintIRInstrument(before, after))
        if args.print_between_passes:
            instruments.append(_PrintBetweenPasses())
        if args.verify_each and not args.disable_verify:
            instruments.append(manager.VerifyInstrument())
        if args.time_passes:
            instruments.append(self.timing)
        if args.pass_statistics:
            instruments.append(self.statistics)
        config: dict[str, manager.ConfigValue] = {}
        for item in args.pass_config or ():
            key, sep, value = item.partition("=")
            if not sep:
                raise LaminaError(f"--pass-config expects KEY=VALUE, got '{item}'")
            option = manager.config_options().get(key.strip())
            if option is None:
                manager.PassContext(config={key.strip(): value})  # says what is known
                raise AssertionError("unreachable")
            config[option.key] = option.parse(value)
        self.pass_context = manager.PassContext(
            opt_level=args.opt_level,
            required_passes=_names(args.required_passes),
            disabled_passes=_names(args.disabled_passes),
            instruments=instruments,
            config=config,
        )

    def apply_passes(self, prog: ModuleOp) -> None:
        if not self.args.disable_verify:
            prog.verify()
        manager.run_pipeline(
            prog, list(self.pipeline.passes), self.pass_context, mlir_ctx=self.ctx
        )

    def run(self) -> None:
        super().run()
        if self.args.time_passes:
            sys.stderr.write(self.timing.table())
        if self.args.pass_statistics:
            sys.stderr.write(self.statistics.report())


def main(argv: Sequence[str] | None = None) -> int:
    try:
        tool = LaminaOptMain(description="lamina modular optimizer driver", args=argv)
        limit = None if tool.args.print_resources else resources.DEFAULT_ELIDE_LIMIT
        with resources.printing_resources(limit):
            tool.run()
    except LaminaError as e:
        print(f"lamina-opt: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
