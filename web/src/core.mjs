// Typed arrays in and out of a wasm module's heap. Every call into the
// module goes through `module.api` (generated from wasm/js_api.h, which
// declares each entry point and the JSON it returns); this file holds only
// the copies those calls need. Works with any module built from the core:
// the explorer or fastslow_core.js.

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
