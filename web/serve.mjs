// A static file server for the staged site:
//   node web/serve.mjs DIR [PORT] [--host HOST]
// Listens on 127.0.0.1 (this machine only) unless --host says otherwise
// (--host 0.0.0.0 exposes it to the network). Sends the cross-origin
// isolation headers so ONNX Runtime Web may use threads.
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
    // Inside the root only ("/site2" is not inside "/site").
    if (file !== base && !file.startsWith(base + path.sep)) { res.writeHead(403).end(); return; }
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
  const args = process.argv.slice(2);
  let host = '127.0.0.1';
  const at = args.indexOf('--host');
  if (at >= 0) {
    host = args[at + 1];
    if (!host) { console.error('serve.mjs: --host needs an address (127.0.0.1, 0.0.0.0, ...)'); process.exit(2); }
    args.splice(at, 2);
  }
  const [dir = 'build/site', port = '8000'] = args;
  const server = await serve(dir, Number(port), host);
  const shown = host === '0.0.0.0' ? 'localhost' : host;
  console.log(`fastslow explorer: http://${shown}:${server.address().port}/  (serving ${dir} on ${host}; Ctrl-C to stop)`);
}
