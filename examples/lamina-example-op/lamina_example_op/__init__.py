"""An example lamina plugin: the SquarePlus activation as a graph op.

SquarePlus (Barron, 2021) is a smooth ReLU, `(x + sqrt(x * x + b)) / 2`, with
`b >= 0` (4 by default). The plugin brings, each through an entry point:

- `op.SquarePlusOp`: the graph op `relay.squareplus`, with its type inference and
  pattern kind (elementwise, so fuse-ops fuses it like lamina's own);
- `compute.squareplus`: its TE compute (how the lowering builds its loop nest);
- `evaluate.squareplus`: its numpy evaluator (fold-constant folds it on constants);
- `onnx.convert_squareplus`: the converter of the ONNX node `com.example:SquarePlus`.

`model.squareplus_model()` builds an ONNX model that uses it.
"""
