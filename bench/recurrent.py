"""Stacked recurrent models (LSTM, GRU) built with onnx.helper, compiled by
lamina and checked and timed against onnxruntime in the same run.

    .venv/bin/python bench/recurrent.py                      # both models, seq 50, batch 4
    .venv/bin/python bench/recurrent.py --models lstm --seq 50 --runs 50
    .venv/bin/python bench/recurrent.py --symbolic           # seq symbolic: compiled once

The default LSTM is what `torch.nn.LSTM(32, 64, num_layers=2,
bidirectional=True)` exports: two bidirectional layers, the first over 32
inputs, the second over the first's 128 (both directions' outputs side by
side), hidden size 64. The GRU is the same stack of GRUs. With `--symbolic`
the sequence length is a symbolic dim: lamina compiles once and the run is
checked at several lengths before the timing at `--seq`. Both sides run on
`--threads` threads; the best median of `--runs` runs over `--rounds`
alternating rounds is reported.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import lamina

GATES = {"LSTM": 4, "GRU": 3, "RNN": 1}


def stacked_model(
    op: str, inputs: int, hidden: int, layers: int, batch: int, seq: int | str, bidirectional: bool = True
) -> onnx.ModelProto:
    """`layers` recurrent nodes of type `op`, each over the previous one's
    outputs (directions concatenated), as `torch.nn.LSTM`/`GRU` export them.
    Input `x [seq, batch, inputs]`; outputs the last layer's `y [seq, batch,
    dirs * hidden]` and its final hidden state."""
    rng = np.random.default_rng(0)
    dirs, g = (2 if bidirectional else 1), GATES[op]
    scale = 1 / np.sqrt(hidden)
    inits = [numpy_helper.from_array(np.array([0, 0, -1], np.int64), "merge")]
    nodes = []
    prev, width = "x", inputs
    for layer in range(layers):
        names = [f"w{layer}", f"r{layer}", f"b{layer}"]
        shapes = [(dirs, g * hidden, width), (dirs, g * hidden, hidden), (dirs, 2 * g * hidden)]
        for name, dims in zip(names, shapes, strict=True):
            inits.append(numpy_helper.from_array(rng.uniform(-scale, scale, dims).astype(np.float32), name))
        outs = [f"y{layer}", f"h{layer}"] + ([f"c{layer}"] if op == "LSTM" else [])
        nodes.append(helper.make_node(
            op, [prev, *names], outs, hidden_size=hidden,
            direction="bidirectional" if bidirectional else "forward",
        ))
        nodes.append(helper.make_node("Transpose", [f"y{layer}"], [f"yt{layer}"], perm=[0, 2, 1, 3]))
        nodes.append(helper.make_node("Reshape", [f"yt{layer}", "merge"], [f"out{layer}"]))
        prev, width = f"out{layer}", dirs * hidden
    graph = helper.make_graph(
        nodes,
        f"stacked_{op.lower()}",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [seq, batch, inputs])],
        [
            helper.make_tensor_value_info(prev, TensorProto.FLOAT, [seq, batch, dirs * hidden]),
            helper.make_tensor_value_info(f"h{layers - 1}", TensorProto.FLOAT, [dirs, batch, hidden]),
        ],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    onnx.checker.check_model(model, full_check=True)
    return model


def best_medians(fns: list[Callable[[], object]], runs: int, rounds: int = 5) -> list[float]:
    """Each function's best median of `runs` calls (ms) over `rounds`
    alternating rounds: the machine's noise hits both sides alike."""
    best = [float("inf")] * len(fns)
    for fn in fns:
        fn()
    for _ in range(rounds):
        for k, fn in enumerate(fns):
            times = []
            for _ in range(runs):
                t = time.perf_counter()
                fn()
                times.append((time.perf_counter() - t) * 1e3)
            best[k] = min(best[k], float(np.median(times)))
    return best


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default="lstm,gru", help="comma-separated: lstm, gru, rnn")
    p.add_argument("--inputs", type=int, default=32)
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--seq", type=int, default=50)
    p.add_argument("--symbolic", action="store_true", help="the sequence length a symbolic dim")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--runs", type=int, default=30, help="timed runs per round (the best median of 5 is reported)")
    p.add_argument("--rounds", type=int, default=5, help="alternating rounds")
    args = p.parse_args(argv)
    import onnxruntime as ort

    from lamina.codegen.peak import describe_host

    print(f"host: {describe_host()}")
    print("| model | seq | compile | max abs err | lamina ms | ORT ms | lamina/ORT |\n|---|---|---|---|---|---|---|")
    for name in args.models.split(","):
        op = name.strip().upper()
        seq_dim: int | str = "seq" if args.symbolic else args.seq
        model = stacked_model(op, args.inputs, args.hidden, args.layers, args.batch, seq_dim)
        t0 = time.perf_counter()
        exe = lamina.compile(model, num_threads=args.threads)
        compile_s = time.perf_counter() - t0
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = opts.inter_op_num_threads = args.threads
        sess = ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])
        lengths = sorted({1, 3, args.seq, 2 * args.seq}) if args.symbolic else [args.seq]
        err = 0.0
        rng = np.random.default_rng(1)
        for n in lengths:
            x = rng.standard_normal((n, args.batch, args.inputs)).astype(np.float32)
            got, want = exe.run(x=x), sess.run(None, {"x": x})
            for a, b in zip(got, want, strict=True):
                if a.shape != b.shape:
                    print(f"{op} seq {n}: shape {a.shape}, onnxruntime {b.shape}")
                    return 1
                err = max(err, float(np.abs(a - b).max()))
        if err > 1e-4:
            print(f"{op}: differs from onnxruntime by {err:.2e}")
            return 1
        x = rng.standard_normal((args.seq, args.batch, args.inputs)).astype(np.float32)
        ours, theirs = best_medians(
            [lambda e=exe, v=x: e.run(x=v), lambda s=sess, v=x: s.run(None, {"x": v})], args.runs, args.rounds
        )
        label = f"{args.layers}-layer bidir {op}({args.inputs}, {args.hidden}) batch {args.batch}"
        seq_label = f"{args.seq} ({'symbolic' if args.symbolic else 'static'})"
        print(f"| {label} | {seq_label} | {compile_s:.1f} s | {err:.1e} | {ours:.3f} | {theirs:.3f} | {ours / theirs:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
