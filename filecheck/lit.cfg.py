"""lit configuration: RUN lines call lamina-opt and filecheck."""

import os

import lit.formats

config.name = "lamina"  # noqa: F821
config.test_format = lit.formats.ShTest(execute_external=True)  # noqa: F821
config.suffixes = [".mlir"]  # noqa: F821
config.test_source_root = os.path.dirname(__file__)  # noqa: F821
config.excludes = ["lit.cfg.py", "Output"]  # noqa: F821
config.environment["PATH"] = os.environ.get("PATH", "")  # noqa: F821
# Print, re-parse and print again in both the custom and the generic form.
config.substitutions.append(  # noqa: F821
    (
        "%lamina_roundtrip",
        "lamina-opt --split-input-file %s | lamina-opt --split-input-file"
        " --print-op-generic | lamina-opt --split-input-file",
    )
)
