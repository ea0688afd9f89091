// classify.mjs: the page's script. Loads model.wasm with lamina.mjs, draws a
// picture on a 128x128 canvas, turns its pixels into the model's input and shows
// the top-5 classes, their logits and the latency. The result is also written
// as JSON into <pre id="result"> (tests/test_deploy_web.py reads it).
import { loadModel } from "./lamina.mjs";

const SIZE = 128;                       // the demo CNN takes 1x3x128x128
const MEAN = [0.485, 0.456, 0.406];     // ImageNet's per-channel mean and std
const STD = [0.229, 0.224, 0.225];
const RUNS = 5;                         // timed runs after a warm-up run

const canvas = document.getElementById("picture");
const context = canvas.getContext("2d", { willReadFrequently: true });
const show = (text) => { document.getElementById("status").textContent = text; };

/** The canvas's pixels as the model's input: RGB scaled to [0, 1], normalized
 *  per channel, HWC -> CHW, float32 (each value computed in double, then rounded). */
function pixels() {
  const rgba = context.getImageData(0, 0, SIZE, SIZE).data;
  const data = new Float32Array(3 * SIZE * SIZE);
  for (let c = 0; c < 3; c++) {
    for (let i = 0; i < SIZE * SIZE; i++) {
      data[c * SIZE * SIZE + i] = (rgba[4 * i + c] / 255 - MEAN[c]) / STD[c];
    }
  }
  return data;
}

function top(logits, k) {
  const order = Array.from(logits.keys()).sort((a, b) => logits[b] - logits[a]);
  return order.slice(0, k).map((i) => ({ class: i, logit: logits[i] }));
}

function classify(model, source) {
  const input = model.inputs[0];
  const data = pixels();
  const feeds = { [input.name]: { data, shape: [1, 3, SIZE, SIZE] } };
  model.run(feeds);                     // warm-up
  const times = [];
  let output;
  for (let r = 0; r < RUNS; r++) {
    const start = performance.now();
    [output] = model.run(feeds);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const result = {
    image: source,
    input_sum: data.reduce((a, b) => a + b, 0),
    top5: top(output.data, 5),
    latency_ms: times[RUNS >> 1],
    runs: RUNS,
  };
  document.getElementById("top5").innerHTML = "<tr><th>class</th><th>logit</th></tr>" +
    result.top5.map((t) => `<tr><td>${t.class}</td><td>${t.logit.toFixed(4)}</td></tr>`).join("");
  show(`${source}: median latency ${result.latency_ms.toFixed(1)} ms over ${RUNS} runs`);
  document.getElementById("result").textContent = JSON.stringify(result);
}

/** Draw `url` scaled to 128x128 (the default picture is 128x128: drawn as is). */
async function draw(url) {
  const image = new Image();
  image.src = url;
  await image.decode();
  context.clearRect(0, 0, SIZE, SIZE);
  context.drawImage(image, 0, 0, SIZE, SIZE);
}

try {
  const model = await loadModel(fetch("model.wasm"));
  await draw("image.png");
  classify(model, "image.png");
  document.getElementById("file").addEventListener("change", async (event) => {
    const file = event.target.files[0];
    if (!file) return;
    const url = URL.createObjectURL(file);
    try {
      await draw(url);
      classify(model, file.name);
    } finally {
      URL.revokeObjectURL(url);
    }
  });
} catch (error) {
  show(`error: ${error.message}`);
  document.getElementById("result").textContent = JSON.stringify({ error: String(error) });
}
