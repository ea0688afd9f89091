"""Speed in WebAssembly: lamina's wasm32 build of zoo models against
onnxruntime-web, both in node (`bench/wasm.mjs`), one thread, SIMD128.

    cd bench/web-bench && npm ci        # onnxruntime-web, once
    .venv/bin/python bench/wasm.py                       # mobilenet_v2, resnet18
    .venv/bin/python bench/wasm.py resnet18 --runs 50

Each model is exported from torchvision (`zoo_models`, random weights, the
`bench` extra), compiled by lamina for wasm32, and run by wasm.mjs beside
onnxruntime-web on the same ONNX file and input. Prints the host, a Markdown
table (median latencies, lamina/ORT, max error relative to ORT's largest
output) and, with --json, writes every run's times.
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from zoo_models import load, zoo_dir

import lamina
from lamina.fileio import temporary_folder
from lamina.target import Target

HERE = Path(__file__).resolve().parent
ORT_WEB = HERE / "web-bench" / "node_modules" / "onnxruntime-web"


def cpu_name() -> str:
    """The host CPU's marketing name (lscpu's "Model name") and LLVM's name for it."""
    model = platform.processor()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model} ({Target.host().cpu})"


def measure(name: str, work: Path, runs: int, warmup: int) -> dict[str, Any]:
    """Compile zoo model `name` for wasm32 into `work` and run wasm.mjs on it."""
    load(name)  # exported on first use
    onnx_file = zoo_dir() / f"{name}.onnx"
    wasm = work / name / "model.wasm"
    wasm.parent.mkdir(parents=True)
    start = time.perf_counter()
    lamina.compile(str(onnx_file), target="wasm32").export(wasm)
    compile_s = time.perf_counter() - start
    out = subprocess.run(
        ["node", str(HERE / "wasm.mjs"), str(wasm), str(onnx_file), str(runs), str(warmup)],
        capture_output=True, text=True, check=True,
    )
    result = json.loads(out.stdout)
    return {"name": name, "compile_s": compile_s, "wasm_mib": wasm.stat().st_size / 2**20, **result}


def table(results: list[dict[str, Any]]) -> str:
    """The results as a Markdown table."""
    rows = [
        "| model | lamina (ms) | onnxruntime-web (ms) | lamina / ORT | max rel. error |",
        "|---|---:|---:|---:|---:|",
    ]
    rows += [
        f"| {r['name']} | {r['lamina_ms']:.1f} | {r['ort_ms']:.1f} | {r['ratio']:.2f} | {r['max_rel_error']:.1e} |"
        for r in results
    ]
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("models", nargs="*", default=["mobilenet_v2", "resnet18"])
    parser.add_argument("--runs", type=int, default=20, help="timed runs of each (default 20)")
    parser.add_argument("--warmup", type=int, default=3, help="untimed runs first (default 3)")
    parser.add_argument("--json", type=Path, help="write every result, with each run's time")
    args = parser.parse_args(argv)
    if shutil.which("node") is None:
        sys.exit("bench/wasm.py needs node")
    if not ORT_WEB.is_dir():
        sys.exit(f"bench/wasm.py needs onnxruntime-web: cd {ORT_WEB.parent.parent} && npm ci")
    node = subprocess.run(["node", "--version"], capture_output=True, text=True, check=True).stdout.strip()
    results = []
    with temporary_folder("lamina-wasm-bench-") as tmp:
        for name in args.models:
            results.append(measure(name, Path(tmp), args.runs, args.warmup))
            r = results[-1]
            print(f"{name}: compiled in {r['compile_s']:.1f} s ({r['wasm_mib']:.1f} MiB), "
                  f"lamina {r['lamina_ms']:.1f} ms, ORT {r['ort_ms']:.1f} ms", file=sys.stderr)
    ort_version = results[0]["ort_version"] if results else "?"
    print(f"host: {cpu_name()}; node {node}; onnxruntime-web {ort_version}; "
          f"1 thread, SIMD128; median of {args.runs} runs after {args.warmup} warm-up runs\n")
    print(table(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
