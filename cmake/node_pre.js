// Prepended to every Emscripten output. Emscripten 3.1.6 loads the .wasm with
// fetch() whenever fetch exists; under node (which has had a global fetch
// since v18) that fails on a file path, so hide it there and let the loader
// read the file from disk instead.
var fetch = (typeof process === 'object' && process.versions && process.versions.node)
    ? undefined
    : globalThis.fetch;
