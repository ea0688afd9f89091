"""ONNX model generators for tests and benchmarks (random weights, opset 17).

- `resnet(blocks, widths, ...)`: a ResNet of BasicBlocks; `resnet_mini()` is the
  demo's (ResNet-18's layout at half width on 128x128 images).
- `resnet18(batch=1, num_classes=1000, seed=0, image_size=224)`: torchvision's
  ResNet-18 (conv7x7/2 + BN + ReLU + maxpool3x3/2, four stages of two BasicBlocks
  with 64/128/256/512 channels and 1x1 conv + BN downsamples, global average pool,
  flatten, Gemm). Batch norms carry non-trivial random statistics.
- `transformer_block(batch=1, seq=128, d_model=256, heads=4, d_ff=1024, seed=0,
  activation="Gelu")`: one post-norm encoder block (QKV MatMuls, heads by
  Reshape/Transpose, scaled dot-product attention with Softmax, output projection,
  residual Add, LayerNormalization, FFN, residual Add, LayerNormalization).

The MLP of the built-in demo stays in `tools/demo.py` (`mlp_model`).
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17


class _Builder:
    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self.count = 0

    def init(self, name: str, array: np.ndarray) -> str:
        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def node(self, op: str, inputs: list[str], name: str, **attrs: object) -> str:
        self.nodes.append(helper.make_node(op, inputs, [name], name=name, **attrs))
        return name

    def model(self, name: str, inputs: list, outputs: list) -> onnx.ModelProto:  # type: ignore[type-arg]
        graph = helper.make_graph(self.nodes, name, inputs, outputs, self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
        model.ir_version = 8
        onnx.checker.check_model(model, full_check=True)
        return model


# ----------------------------------------------------------------- ResNets
def resnet(
    blocks: tuple[int, ...] = (2, 2, 2, 2),
    widths: tuple[int, ...] = (64, 128, 256, 512),
    batch: int = 1,
    num_classes: int = 1000,
    seed: int = 0,
    image_size: int = 224,
    name: str = "resnet",
) -> onnx.ModelProto:
    """A torchvision-style ResNet of BasicBlocks as ONNX with random weights
    (He-initialized convs) and random batch-norm statistics: `blocks[i]` blocks of
    `widths[i]` channels in stage i (stages after the first downsample by 2); input
    `input` of shape `batch x 3 x image_size x image_size`, output `logits`."""
    if len(blocks) != len(widths) or not blocks:
        raise ValueError("blocks and widths must have the same, non-zero length")
    b = _Builder(seed)
    rng = b.rng

    def conv_bn(x: str, name: str, cin: int, cout: int, k: int, stride: int, relu: bool) -> str:
        w = rng.standard_normal((cout, cin, k, k)) * np.sqrt(2.0 / (cin * k * k))
        b.init(f"{name}.weight", w.astype(np.float32))
        y = b.node(
            "Conv",
            [x, f"{name}.weight"],
            name,
            kernel_shape=[k, k],
            strides=[stride, stride],
            pads=[k // 2] * 4,
        )
        bn = f"{name}.bn"
        b.init(f"{bn}.weight", rng.uniform(0.5, 1.5, cout).astype(np.float32))
        b.init(f"{bn}.bias", (0.1 * rng.standard_normal(cout)).astype(np.float32))
        b.init(f"{bn}.running_mean", (0.1 * rng.standard_normal(cout)).astype(np.float32))
        b.init(f"{bn}.running_var", rng.uniform(0.5, 2.0, cout).astype(np.float32))
        y = b.node(
            "BatchNormalization",
            [y, f"{bn}.weight", f"{bn}.bias", f"{bn}.running_mean", f"{bn}.running_var"],
            bn,
            epsilon=1e-5,
        )
        return b.node("Relu", [y], f"{name}.relu") if relu else y

    x = conv_bn("input", "conv1", 3, widths[0], 7, 2, relu=True)
    x = b.node("MaxPool", [x], "maxpool", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    cin = widths[0]
    for stage, (count, cout) in enumerate(zip(blocks, widths, strict=True), start=1):
        for block in range(count):
            stride = 2 if stage > 1 and block == 0 else 1
            layer = f"layer{stage}.{block}"
            y = conv_bn(x, f"{layer}.conv1", cin, cout, 3, stride, relu=True)
            y = conv_bn(y, f"{layer}.conv2", cout, cout, 3, 1, relu=False)
            shortcut = x
            if stride != 1 or cin != cout:
                shortcut = conv_bn(x, f"{layer}.downsample", cin, cout, 1, stride, relu=False)
            y = b.node("Add", [y, shortcut], f"{layer}.add")
            x = b.node("Relu", [y], f"{layer}.relu")
            cin = cout
    x = b.node("GlobalAveragePool", [x], "avgpool")
    x = b.node("Flatten", [x], "flatten", axis=1)
    w = rng.standard_normal((num_classes, cin)) / np.sqrt(cin)
    b.init("fc.weight", w.astype(np.float32))
    b.init("fc.bias", (0.01 * rng.standard_normal(num_classes)).astype(np.float32))
    b.node("Gemm", [x, "fc.weight", "fc.bias"], "logits", transB=1)
    return b.model(
        name,
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [batch, 3, image_size, image_size])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [batch, num_classes])],
    )


def resnet18(
    batch: int = 1, num_classes: int = 1000, seed: int = 0, image_size: int = 224
) -> onnx.ModelProto:
    """torchvision's ResNet-18 as ONNX with random weights (He-initialized convs)
    and random batch-norm statistics; input `input` of shape
    `batch x 3 x image_size x image_size`, output `logits`."""
    return resnet(
        (2, 2, 2, 2),
        (64, 128, 256, 512),
        batch=batch,
        num_classes=num_classes,
        seed=seed,
        image_size=image_size,
        name="resnet18",
    )


def resnet_mini(seed: int = 0) -> onnx.ModelProto:
    """The demo's CNN: ResNet-18's layout (four stages of two BasicBlocks) at half
    width (32-256 channels) on 3x128x128 images, 1000 classes (~3 M weights)."""
    return resnet(
        (2, 2, 2, 2), (32, 64, 128, 256), seed=seed, image_size=128, name="resnet_mini"
    )


# ------------------------------------------------------------ transformer block
def transformer_block(
    batch: int | str = 1,
    seq: int | str = 128,
    d_model: int = 256,
    heads: int = 4,
    d_ff: int = 1024,
    seed: int = 0,
    activation: str = "Gelu",
) -> onnx.ModelProto:
    """One post-norm transformer encoder block as ONNX; input `input` and output
    `output`, both `batch x seq x d_model`. `activation` is "Gelu" (opset 20's op,
    so here written as its erf formula) or "Relu". A string `batch` or `seq` is a
    symbolic dim (`dim_param`): the reshapes then take their target from the
    input's `Shape`, as exported models do."""
    if d_model % heads:
        raise ValueError(f"d_model {d_model} is not divisible by heads {heads}")
    if activation not in ("Gelu", "Relu"):
        raise ValueError(f"activation must be 'Gelu' or 'Relu', got {activation!r}")
    b = _Builder(seed)
    rng = b.rng
    dh = d_model // heads

    def linear(x: str, name: str, n_in: int, n_out: int) -> str:
        b.init(f"{name}.weight", (rng.standard_normal((n_in, n_out)) / np.sqrt(n_in)).astype(np.float32))
        b.init(f"{name}.bias", (0.02 * rng.standard_normal(n_out)).astype(np.float32))
        y = b.node("MatMul", [x, f"{name}.weight"], f"{name}.matmul")
        return b.node("Add", [y, f"{name}.bias"], name)

    def layer_norm(x: str, name: str) -> str:
        b.init(f"{name}.weight", rng.uniform(0.8, 1.2, d_model).astype(np.float32))
        b.init(f"{name}.bias", (0.02 * rng.standard_normal(d_model)).astype(np.float32))
        return b.node(
            "LayerNormalization",
            [x, f"{name}.weight", f"{name}.bias"],
            name,
            axis=-1,
            epsilon=1e-5,
        )

    if isinstance(batch, str) or isinstance(seq, str):
        b.init("slice.start", np.array([0], np.int64))
        b.init("slice.end", np.array([2], np.int64))
        b.init("heads_dims", np.array([heads, dh], np.int64))
        lead = b.node("Slice", [b.node("Shape", ["input"], "input.shape"), "slice.start", "slice.end"], "input.lead")
        b.nodes.append(helper.make_node("Concat", [lead, "heads_dims"], ["heads_shape"], axis=0))
        b.init("model_shape", np.array([0, 0, d_model], np.int64))
    else:
        b.init("heads_shape", np.array([batch, seq, heads, dh], np.int64))
        b.init("model_shape", np.array([batch, seq, d_model], np.int64))
    b.init("scale", np.array(1.0 / np.sqrt(dh), np.float32))

    def split_heads(x: str, name: str, perm: list[int]) -> str:
        y = b.node("Reshape", [x, "heads_shape"], f"{name}.reshape")
        return b.node("Transpose", [y], f"{name}.heads", perm=perm)

    x = "input"
    q = split_heads(linear(x, "attn.q", d_model, d_model), "attn.q", [0, 2, 1, 3])
    k = split_heads(linear(x, "attn.k", d_model, d_model), "attn.k", [0, 2, 3, 1])
    v = split_heads(linear(x, "attn.v", d_model, d_model), "attn.v", [0, 2, 1, 3])
    scores = b.node("MatMul", [q, k], "attn.scores")
    scores = b.node("Mul", [scores, "scale"], "attn.scaled")
    probs = b.node("Softmax", [scores], "attn.probs", axis=-1)
    ctx = b.node("MatMul", [probs, v], "attn.context")
    ctx = b.node("Transpose", [ctx], "attn.merge", perm=[0, 2, 1, 3])
    ctx = b.node("Reshape", [ctx, "model_shape"], "attn.merged")
    attn = linear(ctx, "attn.out", d_model, d_model)
    x = layer_norm(b.node("Add", [x, attn], "attn.residual"), "norm1")
    h = linear(x, "ffn.fc1", d_model, d_ff)
    if activation == "Relu":
        h = b.node("Relu", [h], "ffn.act")
    else:  # 0.5 * h * (1 + erf(h / sqrt(2)))
        b.init("gelu.inv_sqrt2", np.array(1.0 / np.sqrt(2.0), np.float32))
        b.init("gelu.one", np.array(1.0, np.float32))
        b.init("gelu.half", np.array(0.5, np.float32))
        e = b.node("Erf", [b.node("Mul", [h, "gelu.inv_sqrt2"], "ffn.gelu.div")], "ffn.gelu.erf")
        e = b.node("Add", [e, "gelu.one"], "ffn.gelu.add")
        h = b.node("Mul", [h, e], "ffn.gelu.mul")
        h = b.node("Mul", [h, "gelu.half"], "ffn.act")
    y = linear(h, "ffn.fc2", d_ff, d_model)
    x = layer_norm(b.node("Add", [x, y], "ffn.residual"), "norm2")
    b.nodes.append(helper.make_node("Identity", [x], ["output"], name="output"))
    shape = [batch, seq, d_model]
    return b.model(
        "transformer_block",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, shape)],
    )


__all__ = ["resnet", "resnet18", "resnet_mini", "transformer_block"]
