// lamina.mjs: run a model lamina compiled for wasm32, in a browser or in node.
//
//     import { loadModel } from "./lamina.mjs";
//     const model = await loadModel(fetch("model.wasm"));   // or bytes, or a URL
//     console.log(model.inputs, model.outputs);              // names, shapes, dtypes
//     const [probs] = model.run({ input: { data: pixels, shape: [1, 3, 224, 224] } });
//     // probs: { name, dtype, shape, data: Float32Array }
//
// The module is a WASI reactor with no imports that lamina's own code needs; any
// import it has gets a stub that returns ENOSYS. Its flat C API (runtime/c/wasm.c)
// does the work: inputs are copied into its memory, a run checks them as the C
// API does (a failed run throws an Error with the model's message), and outputs
// are copied out. Symbolic dimensions are bound from the inputs' shapes.

const TYPED = {
  float32: Float32Array, float64: Float64Array, int8: Int8Array, uint8: Uint8Array,
  int16: Int16Array, uint16: Uint16Array, int32: Int32Array, uint32: Uint32Array,
  int64: BigInt64Array, uint64: BigUint64Array, bool: Uint8Array,
};
// lamina.h's lamina_dtype codes.
const CODES = {
  float32: 1, float64: 2, float16: 3, bfloat16: 4, int8: 5, uint8: 6, int16: 7,
  uint16: 8, int32: 9, uint32: 10, int64: 11, uint64: 12, bool: 13,
};
// numpy's dtype strings in the metadata ("<f4", "|b1") to names.
const NUMPY = {
  f4: "float32", f8: "float64", f2: "float16", i1: "int8", u1: "uint8", i2: "int16",
  u2: "uint16", i4: "int32", u4: "uint32", i8: "int64", u8: "uint64", b1: "bool",
};
const ENOSYS = 52;

async function bytesOf(source) {
  source = await source;
  if (typeof source === "string" || source instanceof URL) source = await fetch(source);
  if (typeof Response !== "undefined" && source instanceof Response) {
    if (!source.ok) throw new Error(`cannot fetch the model: HTTP ${source.status}`);
    return new Uint8Array(await source.arrayBuffer());
  }
  return source instanceof Uint8Array ? source : new Uint8Array(source);
}

function stubs(module) {
  const imports = {};
  for (const { module: mod, name, kind } of WebAssembly.Module.imports(module)) {
    if (kind !== "function") throw new Error(`the model imports ${kind} ${mod}.${name}`);
    (imports[mod] ??= {})[name] = () => ENOSYS;
  }
  return imports;
}

/** Instantiate a lamina WebAssembly model (bytes, a Response, a promise of one, or a URL). */
export async function loadModel(source) {
  const module = await WebAssembly.compile(await bytesOf(source));
  const instance = await WebAssembly.instantiate(module, stubs(module));
  const ex = instance.exports;
  ex._initialize?.();
  const memory = ex.memory;
  const u8 = () => new Uint8Array(memory.buffer);
  const cString = (at) => {
    const bytes = u8();
    let end = at;
    while (bytes[end] !== 0) end++;
    return new TextDecoder().decode(bytes.subarray(at, end));
  };
  const meta = JSON.parse(cString(ex.lamina_wasm_metadata()));
  const spec = (t) => ({ name: t.name, shape: t.shape, dtype: NUMPY[t.dtype.slice(1)] });
  const inputs = meta.inputs.map(spec);
  const outputs = meta.outputs.map(spec);
  const session = ex.lamina_wasm_session();
  if (!session) throw new Error("out of memory creating the model's session");
  const encoder = new TextEncoder();
  const names = new Map(inputs.map((t) => {
    const bytes = encoder.encode(t.name + "\0");
    const at = ex.lamina_wasm_alloc(bytes.length);
    u8().set(bytes, at);
    return [t.name, at];
  }));
  let scratch = [];

  function put(bytes) {
    const at = ex.lamina_wasm_alloc(bytes.byteLength);
    if (!at) throw new Error("the model ran out of memory for its inputs");
    scratch.push(at);
    u8().set(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), at);
    return at;
  }

  /** Run on `feeds` ({name: {data, shape}}); the outputs, in the model's order. */
  function run(feeds) {
    try {
      const table = new DataView(new ArrayBuffer(20 * inputs.length));
      inputs.forEach((t, i) => {
        const feed = feeds[t.name];
        if (feed === undefined) throw new Error(`missing input '${t.name}'`);
        const shape = feed.shape ?? t.shape;
        if (shape.some((d) => typeof d !== "number")) {
          throw new Error(`input '${t.name}' has symbolic dimensions: give its shape`);
        }
        const data = feed.data ?? feed;
        if (!(data instanceof TYPED[t.dtype])) {
          throw new Error(`input '${t.name}' must be a ${TYPED[t.dtype].name} (${t.dtype})`);
        }
        table.setUint32(20 * i, names.get(t.name), true);
        table.setInt32(20 * i + 4, CODES[t.dtype], true);
        table.setInt32(20 * i + 8, shape.length, true);
        table.setUint32(20 * i + 12, put(new BigInt64Array(shape.map(BigInt))), true);
        table.setUint32(20 * i + 16, put(data), true);
      });
      const status = ex.lamina_wasm_run(session, put(new Uint8Array(table.buffer)), inputs.length);
      if (status !== 0) throw new Error(cString(ex.lamina_wasm_error(session)));
      return outputs.map((t, i) => {
        const at = ex.lamina_wasm_output(session, i);
        const view = new DataView(memory.buffer, at, 20);
        const rank = view.getInt32(8, true);
        const shape = Array.from(new BigInt64Array(memory.buffer.slice(view.getUint32(12, true),
          view.getUint32(12, true) + 8 * rank)), Number);
        const Typed = TYPED[t.dtype];
        const count = shape.reduce((a, b) => a * b, 1);
        const start = view.getUint32(16, true);
        const data = new Typed(memory.buffer.slice(start, start + count * Typed.BYTES_PER_ELEMENT));
        return { name: t.name, dtype: t.dtype, shape, data };
      });
    } finally {
      for (const at of scratch) ex.lamina_wasm_free(at);
      scratch = [];
    }
  }

  return { name: meta.name, target: meta.target, inputs, outputs, run };
}
