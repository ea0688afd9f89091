"""The BYOC passes (bring your own codegen), in pipeline order; importing the
package registers them. The targets themselves are `lamina.backends`."""

from lamina.transforms.byoc import (  # noqa: F401
    annotate_target,
    external_codegen,
    merge_compiler_regions,
    merge_composite,
    partition_graph,
)
