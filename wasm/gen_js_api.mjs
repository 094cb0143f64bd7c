// Writes the JS side of wasm/js_api.h: `Module.api`, one function per C
// entry point declared there, so JS never calls an export by its string
// name. Run by the wasm build (wasm/CMakeLists.txt), linked into both
// modules with --post-js:
//   node wasm/gen_js_api.mjs wasm/js_api.h OUT.js
// Each function takes the C parameters in order: `const char*` as a JS
// string (copied into the heap for the call), every other one as a number
// (pointers are heap addresses). A `char*` result is JSON: parsed, freed,
// and thrown as an Error when it is {"error": message} alone. `api.calls`
// counts the calls into wasm made through it, per entry point.
import { readFileSync, writeFileSync } from 'node:fs';

const [header, out] = process.argv.slice(2);
if (!header || !out) {
  console.error('usage: node gen_js_api.mjs js_api.h OUT.js');
  process.exit(2);
}

const NUMBER_TYPES = new Set(['int', 'char*', 'size_t', 'double', 'uint8_t*', 'const uint8_t*', 'const double*',
  'fastslow::wasm::RankSession*']);
const RESULTS = new Set(['char*', 'void', 'int', 'double']);

// The C entry points: the declarations of the extern "C" block before the
// JS functions C++ calls (those are imports, not exports).
export function entryPoints(text, file = 'js_api.h') {
  const start = text.indexOf('extern "C" {');
  const end = text.indexOf('// ---- JS functions');
  if (start < 0 || end < 0) throw new Error(`${file}: no extern "C" block with a "// ---- JS functions" section`);
  const body = text.slice(start + 'extern "C" {'.length, end).replace(/\/\/[^\n]*/g, '');
  const points = [];
  for (const decl of body.split(';').map((d) => d.replace(/\s+/g, ' ').trim()).filter(Boolean)) {
    const m = decl.match(/^(.+?)\s*\b([A-Za-z_]\w*)\s*\((.*)\)$/);
    if (!m) throw new Error(`${file}: cannot read the declaration "${decl}"`);
    const result = m[1].replace(/\s+\*/g, '*').trim();
    if (!RESULTS.has(result)) throw new Error(`${file}: ${m[2]} returns ${result}: only char*, int, double or void`);
    const params = m[3].trim() === '' ? [] : m[3].split(',').map((p) => {
      const pm = p.trim().replace(/\s+\*/g, '* ').match(/^(.*\S)\s+([A-Za-z_]\w*)$/);
      if (!pm) throw new Error(`${file}: ${m[2]}: cannot read the parameter "${p.trim()}"`);
      const type = pm[1].replace(/\s+/g, ' ').replace(/ \*/g, '*');
      if (type !== 'const char*' && !NUMBER_TYPES.has(type))
        throw new Error(`${file}: ${m[2]}: parameter ${pm[2]} has type ${type}, which the generator does not pass`);
      return { name: pm[2], string: type === 'const char*' };
    });
    points.push({ name: m[2], result, params });
  }
  return points;
}

function wrapper({ name, result, params }) {
  const args = params.map((p) => p.name).join(', ');
  const strings = params.filter((p) => p.string);
  const pass = params.map((p) => (p.string ? `s_${p.name}` : p.name)).join(', ');
  const lines = [`  api.${name} = function (${args}) {`, `    api.calls[${JSON.stringify(name)}] = (api.calls[${JSON.stringify(name)}] || 0) + 1;`];
  for (const p of strings) lines.push(`    const s_${p.name} = toHeap(${p.name});`);
  const call = `exported('${name}')(${pass})`;
  const body = result === 'char*' ? `return takeJson(${call});` : result === 'void' ? `${call};` : `return ${call};`;
  if (strings.length) {
    lines.push(`    try {\n      ${body}\n    } finally {`);
    for (const p of strings) lines.push(`      if (s_${p.name}) Module['_free'](s_${p.name});`);
    lines.push('    }');
  } else {
    lines.push(`    ${body}`);
  }
  lines.push('  };');
  return lines.join('\n');
}

export function generate(text, file) {
  const points = entryPoints(text, file);
  return `// Generated from wasm/js_api.h by wasm/gen_js_api.mjs: do not edit.
Module['api'] = (function () {
  const api = { calls: {} };  // per entry point, the calls made through here
  // A string's UTF-8 copy in the heap (null stays 0); the caller frees it.
  function toHeap(s) {
    if (s === null || s === undefined) return 0;
    if (typeof s !== 'string') throw new TypeError('expected a string, got ' + typeof s);
    const n = Module['lengthBytesUTF8'](s) + 1;
    const p = Module['_malloc'](n);
    if (!p) throw new Error('out of memory: ' + n + ' bytes');
    Module['stringToUTF8'](s, p, n);
    return p;
  }
  // A returned JSON string, freed; {"error": message} alone throws.
  function takeJson(p) {
    const text = Module['UTF8ToString'](p);
    Module['_fastslow_free_string'](p);
    const json = JSON.parse(text);
    const keys = json && typeof json === 'object' ? Object.keys(json) : [];
    if (keys.length === 1 && keys[0] === 'error') throw new Error(json.error);
    return json;
  }
  function exported(name) {
    const f = Module['_' + name];
    if (typeof f !== 'function') throw new Error('this module has no ' + name + ' (js_api.h says which module has which)');
    return f;
  }
${points.map(wrapper).join('\n')}
  api.names = ${JSON.stringify(points.map((p) => p.name))};
  return api;
})();
`;
}

const isMain = process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (isMain) {
  try {
    writeFileSync(out, generate(readFileSync(header, 'utf8'), header));
  } catch (e) {
    console.error(`gen_js_api: ${e.message}`);
    process.exit(1);
  }
}
