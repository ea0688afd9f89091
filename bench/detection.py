"""A detection post-process (SSD/RetinaNet style), compiled by lamina and
checked and timed against onnxruntime in the same run.

    .venv/bin/python bench/detection.py                     # SSD300 sizes: 8732 anchors, 91 classes
    .venv/bin/python bench/detection.py --anchors 2000 --classes 21 --runs 20

The graph (`postprocess_model`) decodes box deltas against anchors, takes the
sigmoid of the class logits, keeps the `pre_nms` anchors with the best score
(TopK), runs NonMaxSuppression per class, and gathers the kept boxes, scores and
labels: outputs of a size known only when it runs. Inputs are random deltas and
logits centred low (most anchors are background), several seeds; the outputs
must equal onnxruntime's (the same boxes kept, labels exactly, boxes and
scores to 1e-5; within a class, scores an ulp apart may swap places). The header
names the host's CPU and its measured peak.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import lamina


def postprocess_model(
    anchors: int, classes: int, pre_nms: int, per_class: int = 100, iou: float = 0.5, score: float = 0.05
) -> onnx.ModelProto:
    """The post-process graph over `deltas [1, anchors, 4]` and `logits [1,
    anchors, classes]`; outputs boxes `[n, 4]`, scores `[n]`, labels `[n]`."""
    rng = np.random.default_rng(0)
    centre = rng.uniform(0.0, 1.0, (anchors, 2)).astype(np.float32)
    size = rng.uniform(0.05, 0.4, (anchors, 2)).astype(np.float32)
    k = min(pre_nms, anchors)

    def const(name: str, value: np.ndarray) -> onnx.TensorProto:
        return numpy_helper.from_array(np.asarray(value), name)

    inits = [
        const("anchor_centre", centre),
        const("anchor_size", size),
        const("var_centre", np.float32(0.1)),
        const("var_size", np.float32(0.2)),
        const("half", np.float32(0.5)),
        const("k", np.array([k], np.int64)),
        const("max_out", np.array([per_class], np.int64)),
        const("iou", np.array([iou], np.float32)),
        const("score", np.array([score], np.float32)),
        const("zero", np.array([0], np.int64)),
        const("two", np.array([2], np.int64)),
        const("four", np.array([4], np.int64)),
        const("axis2", np.array([2], np.int64)),
        const("col_class", np.array(1, np.int64)),
        const("col_box", np.array(2, np.int64)),
        const("cols_from", np.array([1], np.int64)),
        const("cols_to", np.array([3], np.int64)),
        const("axis1", np.array([1], np.int64)),
    ]
    n = helper.make_node
    nodes = [
        n("Slice", ["deltas", "zero", "two", "axis2"], ["d_centre"]),
        n("Slice", ["deltas", "two", "four", "axis2"], ["d_size"]),
        n("Mul", ["d_centre", "var_centre"], ["c0"]),
        n("Mul", ["c0", "anchor_size"], ["c1"]),
        n("Add", ["c1", "anchor_centre"], ["centre"]),
        n("Mul", ["d_size", "var_size"], ["s0"]),
        n("Exp", ["s0"], ["s1"]),
        n("Mul", ["s1", "anchor_size"], ["s2"]),
        n("Mul", ["s2", "half"], ["half_size"]),
        n("Sub", ["centre", "half_size"], ["lo"]),
        n("Add", ["centre", "half_size"], ["hi"]),
        n("Concat", ["lo", "hi"], ["boxes"], axis=2),
        n("Sigmoid", ["logits"], ["scores"]),
        n("ReduceMax", ["scores", "axis2"], ["best"], keepdims=0),
        n("TopK", ["best", "k"], ["top_scores", "top_index"], axis=1),
        n("Squeeze", ["top_index", "zero"], ["top"]),
        n("Gather", ["boxes", "top"], ["cand_boxes"], axis=1),
        n("Gather", ["scores", "top"], ["cand_scores"], axis=1),
        n("Transpose", ["cand_scores"], ["class_scores"], perm=[0, 2, 1]),
        n("NonMaxSuppression", ["cand_boxes", "class_scores", "max_out", "iou", "score"], ["selected"]),
        n("Gather", ["selected", "col_class"], ["labels"], axis=1),
        n("Gather", ["selected", "col_box"], ["box_index"], axis=1),
        n("Squeeze", ["cand_boxes", "zero"], ["cand_boxes_2d"]),
        n("Gather", ["cand_boxes_2d", "box_index"], ["out_boxes"], axis=0),
        n("Squeeze", ["class_scores", "zero"], ["class_scores_2d"]),
        n("Slice", ["selected", "cols_from", "cols_to", "axis1"], ["class_box"]),
        n("GatherND", ["class_scores_2d", "class_box"], ["out_scores"]),
    ]
    graph = helper.make_graph(
        nodes,
        "detection_postprocess",
        [
            helper.make_tensor_value_info("deltas", TensorProto.FLOAT, [1, anchors, 4]),
            helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, anchors, classes]),
        ],
        [
            helper.make_tensor_value_info("out_boxes", TensorProto.FLOAT, ["n", 4]),
            helper.make_tensor_value_info("out_scores", TensorProto.FLOAT, ["n"]),
            helper.make_tensor_value_info("labels", TensorProto.INT64, ["n"]),
        ],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    onnx.checker.check_model(model, full_check=True)
    return model


def inputs(anchors: int, classes: int, seed: int) -> dict[str, np.ndarray]:
    """Random deltas, and logits mostly well below 0 (background)."""
    rng = np.random.default_rng(seed)
    return {
        "deltas": rng.standard_normal((1, anchors, 4)).astype(np.float32),
        "logits": (rng.standard_normal((1, anchors, classes)) * 2.0 - 5.0).astype(np.float32),
    }


def agree(got: list[np.ndarray], want: list[np.ndarray]) -> str | None:
    """None if lamina keeps the boxes onnxruntime keeps, else what differs.
    Within a class, boxes whose scores differ by an ulp (lamina's and
    onnxruntime's sigmoids can) may come out in either order, so the rows are
    compared sorted by (label, box)."""
    if any(a.shape != b.shape for a, b in zip(got, want, strict=True)):
        return f"shapes {[a.shape for a in got]}, onnxruntime {[b.shape for b in want]}"

    def rows(boxes: np.ndarray, scores: np.ndarray, labels: np.ndarray) -> np.ndarray:
        table = np.column_stack([labels.astype(np.float64), boxes, scores])
        return table[np.lexsort(table.T[::-1])]

    a, b = rows(*got), rows(*want)
    if not np.array_equal(a[:, 0], b[:, 0]):
        return "labels differ"
    if not np.allclose(a, b, rtol=1e-5, atol=1e-6):
        return f"boxes or scores differ: max |diff| {float(np.abs(a - b).max()):.2e}"
    return None


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--anchors", type=int, default=8732)
    p.add_argument("--classes", type=int, default=91)
    p.add_argument("--pre-nms", type=int, default=1000)
    p.add_argument("--seeds", type=int, default=5, help="random inputs checked against onnxruntime")
    p.add_argument("--runs", type=int, default=30, help="timed runs (the median is reported)")
    args = p.parse_args(argv)
    import onnxruntime as ort

    from lamina.codegen.peak import describe_host

    print(f"host: {describe_host()}")
    model = postprocess_model(args.anchors, args.classes, args.pre_nms)
    t0 = time.perf_counter()
    exe = lamina.compile(model, num_threads=1)
    compile_s = time.perf_counter() - t0
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = opts.inter_op_num_threads = 1
    sess = ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])
    kept = []
    for seed in range(args.seeds):
        feeds = inputs(args.anchors, args.classes, seed)
        got, want = exe.run(**feeds), sess.run(None, feeds)
        diff = agree(got, want)
        kept.append(len(want[2]))
        if diff is not None:
            print(f"seed {seed}: differs from onnxruntime: {diff}")
            return 1
    feeds = inputs(args.anchors, args.classes, 0)

    def median_ms(fn) -> float:  # type: ignore[no-untyped-def]
        fn()
        times = []
        for _ in range(args.runs):
            t = time.perf_counter()
            fn()
            times.append((time.perf_counter() - t) * 1e3)
        return float(np.median(times))

    ours = median_ms(lambda: exe.run(**feeds))
    theirs = median_ms(lambda: sess.run(None, feeds))
    print(
        "| anchors | classes | pre-NMS | compile | seeds equal to ORT | boxes kept | lamina ms | ORT ms | lamina/ORT |\n"
        "|---|---|---|---|---|---|---|---|---|\n"
        f"| {args.anchors} | {args.classes} | {args.pre_nms} | {compile_s:.1f} s | {args.seeds}/{args.seeds} | "
        f"{min(kept)}-{max(kept)} | {ours:.2f} | {theirs:.2f} | {ours / theirs:.2f}x |"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
