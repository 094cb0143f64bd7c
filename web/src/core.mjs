// The JS side of the wasm contract (wasm/js_api.h declares the C side, with
// the JSON each call returns): strings in and out of the heap, JSON calls
// that throw on {"error"}, and copies of typed arrays in and out. Works with
// any module built from the core: the explorer or fastslow_core.js.

// Calls `core[fn]` with `args`; strings among them are passed as UTF-8
// copied into the heap for the call.
export function call(core, fn, ...args) {
  const ptrs = args.map((a) => {
    if (typeof a !== 'string') return a;
    const n = core.lengthBytesUTF8(a) + 1;
    const p = core._malloc(n);
    core.stringToUTF8(a, p, n);
    return p;
  });
  try {
    return core[fn](...ptrs);
  } finally {
    args.forEach((a, i) => { if (typeof a === 'string') core._free(ptrs[i]); });
  }
}

// A call that returns JSON (a malloc'd string, freed here): the parsed
// value, or an Error with the core's message for a failure, {"error":
// message} with no other key (the app's state has an "error" field too).
export function callJson(core, fn, ...args) {
  const out = call(core, fn, ...args);
  const text = core.UTF8ToString(out);
  core._fastslow_free_string(out);
  const json = JSON.parse(text);
  const keys = json && typeof json === 'object' ? Object.keys(json) : [];
  if (keys.length === 1 && keys[0] === 'error') throw new Error(json.error);
  return json;
}

// Copies a typed array into the heap: the pointer, which the callee takes
// over or the caller frees (core._free).
export function toHeap(core, array) {
  const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
  const p = core._malloc(Math.max(1, bytes.length));
  if (!p) throw new Error(`out of memory: ${bytes.length} bytes`);
  core.HEAPU8.set(bytes, p);
  return p;
}

// body(pointer) with a copy of `array` in the heap, freed afterwards.
export function withCopy(core, array, body) {
  const p = toHeap(core, array);
  try {
    return body(p);
  } finally {
    core._free(p);
  }
}

// Copies of `n` elements at `ptr` (heap views die when the memory grows).
export const f32 = (core, ptr, n) => new Float32Array(core.HEAPU8.buffer, ptr, n).slice();
export const i64 = (core, ptr, n) => new BigInt64Array(core.HEAPU8.buffer, ptr, n).slice();
