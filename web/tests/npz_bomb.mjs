// A zip bomb for the page's tests: a small, valid layout graph whose
// node_feat claims 2 x 536870912 float32 = 4.0 GB of zeros, deflated to about
// 4 MB (issue 20). The deflate stream is built from pieces ended by a full
// flush (byte-aligned, referring to nothing before them), the zeros' piece
// repeated, so making it takes well under a second; its CRC-32 is right too.
import zlib from 'node:zlib';

const PIECE = 16 * 1024 * 1024;

// A version 1 .npy header around the dict's text, padded as numpy pads it.
export function npyHead(dict) {
  while ((10 + dict.length + 1) % 64 !== 0) dict += ' ';
  dict += '\n';
  const head = Buffer.alloc(10);
  Buffer.from('\x93NUMPY', 'latin1').copy(head);
  head[6] = 1;
  head.writeUInt16LE(dict.length, 8);
  return Buffer.concat([head, Buffer.from(dict, 'latin1')]);
}

function npyHeader(descr, shape) {
  const dims = shape.length === 1 ? `${shape[0]},` : shape.join(', ');
  return npyHead(`{'descr': '${descr}', 'fortran_order': False, 'shape': (${dims}), }`);
}

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

export function crc32(buf, crc = 0) {
  let c = ~crc >>> 0;
  for (let i = 0; i < buf.length; i++) c = CRC_TABLE[(c ^ buf[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

// zlib's crc32_combine: the CRC of A + B from CRC(A), CRC(B) and B's length.
function gf2Times(mat, vec) {
  let sum = 0;
  for (let i = 0; vec; i++, vec >>>= 1) if (vec & 1) sum ^= mat[i];
  return sum >>> 0;
}
function gf2Square(square, mat) {
  for (let n = 0; n < 32; n++) square[n] = gf2Times(mat, mat[n]);
}
function crc32Combine(crc1, crc2, len2) {
  if (len2 <= 0) return crc1;
  const even = new Array(32), odd = new Array(32);
  odd[0] = 0xedb88320;
  for (let n = 1, row = 1; n < 32; n++, row = (row << 1) >>> 0) odd[n] = row;
  gf2Square(even, odd);
  gf2Square(odd, even);
  for (;;) {
    gf2Square(even, odd);
    if (len2 % 2) crc1 = gf2Times(even, crc1);
    len2 = Math.floor(len2 / 2);
    if (len2 === 0) break;
    gf2Square(odd, even);
    if (len2 % 2) crc1 = gf2Times(odd, crc1);
    len2 = Math.floor(len2 / 2);
    if (len2 === 0) break;
  }
  return (crc1 ^ crc2) >>> 0;
}

function bombEntry(name, shape) {
  const header = npyHeader('<f4', shape);
  const zeros = shape.reduce((a, b) => a * b, 4);
  const flushed = { level: 9, finishFlush: zlib.constants.Z_FULL_FLUSH };
  const block = Buffer.alloc(PIECE);
  const piece = zlib.deflateRawSync(block, flushed);
  const pieceCrc = crc32(block);
  const whole = Math.floor(zeros / PIECE), rest = zeros % PIECE;
  const parts = [zlib.deflateRawSync(header, flushed)];
  let crc = crc32(header);
  for (let k = 0; k < whole; k++) {
    parts.push(piece);
    crc = crc32Combine(crc, pieceCrc, PIECE);
  }
  parts.push(zlib.deflateRawSync(block.subarray(0, rest), { level: 9 }));
  crc = crc32Combine(crc, crc32(block.subarray(0, rest)), rest);
  return { name, method: 8, crc, size: header.length + zeros, data: Buffer.concat(parts) };
}

function storedEntry(name, descr, shape, values) {
  const data = Buffer.concat([npyHeader(descr, shape), values]);
  return { name, method: 0, crc: crc32(data), size: data.length, data };
}

const i64 = (v) => {
  const b = Buffer.alloc(8 * v.length);
  v.forEach((x, i) => b.writeBigInt64LE(BigInt(x), 8 * i));
  return b;
};
const f32 = (v) => Buffer.from(new Float32Array(v).buffer);

// Little-endian fields, 64-bit ones as two 32-bit halves.
function fields(spec) {
  const parts = spec.map(([bytes, v]) => {
    const b = Buffer.alloc(bytes);
    if (bytes === 2) b.writeUInt16LE(v);
    else if (bytes === 4) b.writeUInt32LE(v >>> 0);
    else b.writeBigUInt64LE(BigInt(v));
    return b;
  });
  return Buffer.concat(parts);
}

// A zip of entries {name, method (0 stored, 8 deflate), crc, size, data (as stored)}.
export function zip(entries) {
  const out = [];
  const offsets = [];
  let at = 0;
  const big = (e) => e.size >= 0xffffffff || e.data.length >= 0xffffffff;
  const extra = (e) => (big(e) ? fields([[2, 1], [2, 16], [8, e.size], [8, e.data.length]]) : Buffer.alloc(0));
  const sizes = (e) => (big(e) ? [[4, 0xffffffff], [4, 0xffffffff]] : [[4, e.data.length], [4, e.size]]);
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const local = Buffer.concat([
      fields([[4, 0x04034b50], [2, big(e) ? 45 : 20], [2, 0], [2, e.method], [2, 0], [2, 0x21], [4, e.crc],
        ...sizes(e), [2, name.length], [2, extra(e).length]]),
      name, extra(e), e.data]);
    offsets.push(at);
    out.push(local);
    at += local.length;
  }
  const cdStart = at;
  entries.forEach((e, k) => {
    const name = Buffer.from(e.name);
    const central = Buffer.concat([
      fields([[4, 0x02014b50], [2, 45], [2, big(e) ? 45 : 20], [2, 0], [2, e.method], [2, 0], [2, 0x21], [4, e.crc],
        ...sizes(e), [2, name.length], [2, extra(e).length], [2, 0], [2, 0], [2, 0], [4, 0], [4, offsets[k]]]),
      name, extra(e)]);
    out.push(central);
    at += central.length;
  });
  out.push(fields([[4, 0x06054b50], [2, 0], [2, 0], [2, entries.length], [2, entries.length], [4, at - cdStart],
    [4, cdStart], [2, 0]]));
  return Buffer.concat(out);
}

// The bomb: 2 nodes, one edge, one configurable node, two configs, and a
// node_feat of 2 x 536870912 zeros (4.0 GB).
export function layoutBomb() {
  return zip([
    bombEntry('node_feat.npy', [2, 536870912]),
    storedEntry('node_opcode.npy', '|u1', [2], Buffer.from([26, 63])),
    storedEntry('edge_index.npy', '<i8', [1, 2], i64([1, 0])),
    storedEntry('node_config_ids.npy', '<i8', [1], i64([1])),
    storedEntry('node_config_feat.npy', '<f4', [2, 1, 1], f32([0, 1])),
    storedEntry('config_runtime.npy', '<i8', [2], i64([100, 200])),
  ]);
}

// The same graph with a node_feat small enough to read (2 x 8M zeros, 64 MB):
// checks the construction itself.
export function smallBomb() {
  return zip([
    bombEntry('node_feat.npy', [2, 8 * 1024 * 1024]),
    storedEntry('node_opcode.npy', '|u1', [2], Buffer.from([26, 63])),
    storedEntry('edge_index.npy', '<i8', [1, 2], i64([1, 0])),
    storedEntry('node_config_ids.npy', '<i8', [1], i64([1])),
    storedEntry('node_config_feat.npy', '<f4', [2, 1, 1], f32([0, 1])),
    storedEntry('config_runtime.npy', '<i8', [2], i64([100, 200])),
  ]);
}
