"""lit configuration: RUN lines call lamina-opt and filecheck."""

import os
import sys

import lit.formats

config.name = "lamina"  # noqa: F821
# lit's internal shell (pipes, `not`, env); the external shell is deprecated.
config.test_format = lit.formats.ShTest(execute_external=False)  # noqa: F821
config.suffixes = [".mlir"]  # noqa: F821
config.test_source_root = os.path.dirname(__file__)  # noqa: F821
config.excludes = ["lit.cfg.py", "Output"]  # noqa: F821
# Find lamina-opt and filecheck next to the Python running lit (the venv), then PATH.
_bin = os.path.dirname(sys.executable)
config.environment["PATH"] = os.pathsep.join(  # noqa: F821
    [_bin, os.environ.get("PATH", "")]
)
# Print, re-parse and print again in both the custom and the generic form.
config.substitutions.append(  # noqa: F821
    (
        "%lamina_roundtrip",
        "lamina-opt --split-input-file %s | lamina-opt --split-input-file"
        " --print-op-generic | lamina-opt --split-input-file",
    )
)
# A PYTHONPATH given to lit reaches lamina-opt (to test a checkout other than
# the one installed, e.g. a worktree).
if "PYTHONPATH" in os.environ:
    config.environment["PYTHONPATH"] = os.environ["PYTHONPATH"]  # noqa: F821
