// wasm.mjs: one model in WebAssembly, lamina against onnxruntime-web, in node.
//
//     node bench/wasm.mjs MODEL.wasm MODEL.onnx [RUNS] [WARMUP]
//
// MODEL.wasm is lamina's build of MODEL.onnx for wasm32 (lamina.mjs beside it);
// onnxruntime-web (bench/web-bench: `npm ci` there) runs MODEL.onnx on its wasm
// backend, SIMD, one thread, in the same process. Both get the same input
// (seeded uniform [-1, 1)); the runs alternate, lamina then ORT, after WARMUP
// runs each. Prints one JSON line: each side's run times (ms, sorted), medians,
// and the max error of lamina's first output relative to ORT's largest value.
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const ORT = join(here, "web-bench", "node_modules", "onnxruntime-web", "dist", "ort.wasm.bundle.min.mjs");

/** Uniform floats in [-1, 1) from a 32-bit xorshift: the same input every time. */
function uniform(count, seed = 1) {
  const out = new Float32Array(count);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < count; i++) {
    s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0;
    out[i] = s / 2 ** 31 - 1;
  }
  return out;
}

const median = (xs) => xs[xs.length >> 1];

async function main([wasmPath, onnxPath, runs = "20", warmup = "3"]) {
  if (!wasmPath || !onnxPath) throw new Error("usage: node bench/wasm.mjs MODEL.wasm MODEL.onnx [RUNS] [WARMUP]");
  const { loadModel } = await import(pathToFileURL(join(dirname(resolve(wasmPath)), "lamina.mjs")));
  const ort = await import(pathToFileURL(ORT));
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.proxy = false;

  const model = await loadModel(readFileSync(wasmPath));
  const input = model.inputs[0];
  const data = uniform(input.shape.reduce((a, b) => a * b, 1));
  const session = await ort.InferenceSession.create(readFileSync(onnxPath), { executionProviders: ["wasm"] });
  const feeds = { [session.inputNames[0]]: new ort.Tensor("float32", data, input.shape) };

  const runLamina = () => model.run({ [input.name]: { data, shape: input.shape } })[0].data;
  const runOrt = async () => (await session.run(feeds))[session.outputNames[0]].data;
  const timed = async (fn) => {
    const start = performance.now();
    const out = await fn();
    return [performance.now() - start, out];
  };

  for (let i = 0; i < Number(warmup); i++) { runLamina(); await runOrt(); }
  const lamina = [];
  const onnxruntime = [];
  let got;
  let want;
  for (let i = 0; i < Number(runs); i++) {
    let t;
    [t, got] = await timed(runLamina);
    lamina.push(t);
    [t, want] = await timed(runOrt);
    onnxruntime.push(t);
  }
  let diff = 0;
  let scale = 0;
  for (let i = 0; i < want.length; i++) {
    diff = Math.max(diff, Math.abs(got[i] - want[i]));
    scale = Math.max(scale, Math.abs(want[i]));
  }
  lamina.sort((a, b) => a - b);
  onnxruntime.sort((a, b) => a - b);
  console.log(JSON.stringify({
    model: onnxPath, input: input.shape, runs: Number(runs), ort_version: ort.env.versions?.web,
    lamina_ms: median(lamina), ort_ms: median(onnxruntime), ratio: median(lamina) / median(onnxruntime),
    max_rel_error: diff / Math.max(scale, 1e-30), outputs: [got.length, want.length],
    lamina_times: lamina, ort_times: onnxruntime,
  }));
}

await main(process.argv.slice(2));
