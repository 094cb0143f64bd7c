// A static file server for the staged site: node web/serve.mjs DIR [PORT].
// Sends the cross-origin isolation headers so ONNX Runtime Web may use threads.
import { createServer } from 'node:http';
import { createReadStream, statSync } from 'node:fs';
import path from 'node:path';

const types = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm',
  '.json': 'application/json', '.onnx': 'application/octet-stream', '.npz': 'application/octet-stream',
  '.css': 'text/css', '.png': 'image/png' };

export function serve(root, port = 8000, host = '127.0.0.1') {
  const base = path.resolve(root);
  const server = createServer((req, res) => {
    const url = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    let file = path.resolve(base, '.' + (url.endsWith('/') ? url + 'index.html' : url));
    if (!file.startsWith(base)) { res.writeHead(403).end(); return; }
    let st;
    try { st = statSync(file); } catch { res.writeHead(404).end('not found'); return; }
    if (st.isDirectory()) { file = path.join(file, 'index.html'); }
    res.writeHead(200, {
      'Content-Type': types[path.extname(file)] || 'application/octet-stream',
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Embedder-Policy': 'require-corp',
      'Cache-Control': 'no-cache',
    });
    createReadStream(file).on('error', () => res.end()).pipe(res);
  });
  return new Promise((resolve) => server.listen(port, host, () => resolve(server)));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [dir = 'build/site', port = '8000'] = process.argv.slice(2);
  await serve(dir, Number(port), '0.0.0.0');
  console.log(`fastslow explorer: http://localhost:${port}/  (serving ${dir}; Ctrl-C to stop)`);
}
