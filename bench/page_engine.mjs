// What the node benchmarks of the page's engine share: ONNX Runtime Web and
// the page's Ranker from web/, the wasm core, and the command line
// `SCRIPT A B FILE.npz [--threads T] [--repeats R]`.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const require = createRequire(path.join(root, 'web', 'package.json'));
export const ort = require('onnxruntime-web');
export const { Ranker } = await import(path.join(root, 'web/src/ranker.mjs'));

// Two positional arguments, the .npz and the options; exits with `usage` when the file is missing.
export function benchArgs(usage) {
  const [a, b, file, ...rest] = process.argv.slice(2);
  if (!file) {
    console.error(`usage: ${usage}`);
    process.exit(1);
  }
  const opt = (name, dflt) => {
    const i = rest.indexOf(name);
    return i >= 0 ? Number(rest[i + 1]) : dflt;
  };
  return { a, b, file, threads: opt('--threads', 1), repeats: opt('--repeats', 3) };
}

// The wasm core, with ONNX Runtime set to `threads`.
export async function loadCore(threads) {
  ort.env.wasm.numThreads = threads;
  return require(path.join(root, 'build/wasm/bin/fastslow_core.js'))();
}
