"""`lamina-opt`: xdsl-opt with lamina's dialects, passes and the `llvm` target."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from xdsl.xdsl_opt_main import xDSLOptMain

from lamina.dialects import resources
from lamina.errors import LaminaError


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
        # additions are named `llvm.*`, so they must be loaded to be found.
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
