// Mutated .npz files for the page's test (issue 20): bit flips, truncations
// and forged headers of good files, made deterministically from a seeded
// PRNG. Each mutation says what opening it must do: 'error' (with what the
// message must say), 'open' (a flip the file survives: a field the reader
// ignores, another finite float) or 'either', for a flip that may or may not
// leave a valid file. The zip pieces are npz_bomb.mjs's.
import zlib from 'node:zlib';
import { crc32, zip, npyHead, layoutBomb } from './npz_bomb.mjs';

// mulberry32: a small seeded PRNG; int(n) in [0, n).
export function prng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (n) => Math.floor(next() * n), pick: (xs) => xs[Math.floor(next() * xs.length)] };
}

// Where a zip's pieces lie: per entry its local header, central header and
// data; the central directory and the end record.
export function zipLayout(buf) {
  let eocd = -1;
  for (let i = buf.length - 22; i >= 0 && eocd < 0; --i)
    if (buf.readUInt32LE(i) === 0x06054b50 && i + 22 + buf.readUInt16LE(i + 20) === buf.length) eocd = i;
  if (eocd < 0) throw new Error('no end record');
  const count = buf.readUInt16LE(eocd + 10), cdStart = buf.readUInt32LE(eocd + 16);
  const entries = [];
  let p = cdStart;
  for (let k = 0; k < count; k++) {
    const nameLen = buf.readUInt16LE(p + 28), extraLen = buf.readUInt16LE(p + 30), commentLen = buf.readUInt16LE(p + 32);
    const local = buf.readUInt32LE(p + 42);
    entries.push({
      name: buf.toString('latin1', p + 46, p + 46 + nameLen), method: buf.readUInt16LE(p + 10),
      crc: buf.readUInt32LE(p + 16), csize: buf.readUInt32LE(p + 20), size: buf.readUInt32LE(p + 24),
      central: p, local, data: local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28),
    });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return { entries, cdStart, cdEnd: p, eocd };
}

// A good file's arrays: [[name ('node_feat.npy'), .npy bytes]], in file order.
export function readNpz(buf) {
  return zipLayout(buf).entries.map((e) => {
    const raw = buf.subarray(e.data, e.data + e.csize);
    return [e.name, e.method === 8 ? zlib.inflateRawSync(raw) : Buffer.from(raw)];
  });
}

// An npz of [[name, .npy bytes]]: stored (np.savez) or deflated (np.savez_compressed), CRCs right.
export function writeNpz(arrays, method = 0) {
  return zip(arrays.map(([name, npy]) => ({
    name, method, crc: crc32(npy), size: npy.length, data: method === 8 ? zlib.deflateRawSync(npy) : npy,
  })));
}

// An .npy's header dict text and where its data starts (versions 1-3).
export function npyParts(npy) {
  const v = npy[6];
  const start = v === 1 ? 10 : 12;
  const len = v === 1 ? npy.readUInt16LE(8) : npy.readUInt32LE(8);
  return { dict: npy.toString('latin1', start, start + len).trimEnd(), dataAt: start + len };
}

// The .npy with its dict edited by `edit` (text -> text), data unchanged.
export function editNpy(npy, edit) {
  const { dict, dataAt } = npyParts(npy);
  return Buffer.concat([npyHead(edit(dict)), npy.subarray(dataAt)]);
}

const flipBit = (buf, at, bit) => {
  const out = Buffer.from(buf);
  out[at] ^= 1 << bit;
  return out;
};

// The 30 mutations of `good` (name -> bytes: 'layout' a real deflated layout
// file, 'tile' a real tile file, 'alexnet' the cleaned AlexNet), from `seed`.
// Each: {name, kind, what, bytes, expect: 'error' | 'open' | 'either', message?: RegExp}.
export function mutations(good, seed = 20) {
  const r = prng(seed);
  const L = good.layout, T = good.tile, A = good.alexnet;
  const lz = zipLayout(L);
  const arrays = readNpz(L);
  const S = writeNpz(arrays);  // the same graph stored, as np.savez writes it
  const sz = zipLayout(S);
  const entry = (z, name) => z.entries.find((e) => e.name === name);
  const npyData = (z, buf, name) => entry(z, name).data + npyParts(buf.subarray(entry(z, name).data)).dataAt;
  const withArray = (name, f) => writeNpz(arrays.map(([n, npy]) => [n, n === name ? f(npy) : npy]));
  const patched = (buf, f) => {
    const out = Buffer.from(buf);
    f(out);
    return out;
  };
  const out = [];
  const add = (kind, what, bytes, expect, message) => out.push({ kind, what, bytes, expect, message });
  const anEntry = (z) => z.entries[r.int(z.entries.length)];

  // Bit flips.
  {
    const e = anEntry(lz);
    add('bit flip', `local header signature (${e.name})`, flipBit(L, e.local + r.int(4), r.int(8)), 'error',
      new RegExp(`array '${e.name}': corrupt local header`));
  }
  {
    const e = anEntry(lz);  // the modification time and date: nothing the reader uses
    add('bit flip', `local header time (${e.name})`, flipBit(L, e.local + 10 + r.int(4), r.int(8)), 'open');
  }
  {
    const e = anEntry(lz);
    add('bit flip', `central directory signature (${e.name})`, flipBit(L, e.central + r.int(4), r.int(8)), 'error',
      /corrupt central directory entry \d+$/);
  }
  {
    const e = anEntry(lz);
    add('bit flip', `central directory CRC-32 (${e.name})`, flipBit(L, e.central + 16 + r.int(4), r.int(8)), 'error',
      new RegExp(`array '${e.name.replace('.npy', '')}': CRC-32 mismatch`));
  }
  {
    // The top bit of a byte of a required array's name: the array goes missing, and the
    // names the message lists hold a byte that is not text.
    const e = entry(lz, r.pick(['node_opcode.npy', 'edge_index.npy']));
    const stem = e.name.replace('.npy', '');
    add('bit flip', `top bit of a byte of ${e.name}'s name in the central directory`,
      flipBit(L, e.central + 46 + r.int(stem.length), 7), 'error',
      new RegExp(`array '${stem}': missing \\(required in a layout graph; the file holds: .*\\\\x[89a-f][0-9a-f]`));
  }
  {
    const e = entry(lz, 'node_feat.npy');  // not in the last bytes, whose padding bits may be unused
    add('bit flip', 'deflate stream (node_feat)', flipBit(L, e.data + r.int(e.csize - 8), r.int(8)), 'error',
      /array 'node_feat': (CRC-32 mismatch|corrupt deflate data|compressed data ends early|entry is shorter|deflate stream does not end)/);
  }
  {
    const az = zipLayout(A);
    const e = entry(az, 'node_config_feat.npy');
    add('bit flip', 'deflate stream (AlexNet\'s node_config_feat)', flipBit(A, e.data + r.int(e.csize - 8), r.int(8)),
      'error', /array 'node_config_feat': (CRC-32 mismatch|corrupt deflate data|compressed data ends early|entry is shorter|deflate stream does not end)/);
  }
  {
    // The top bit of a byte of a key or of the dtype in an npy header: a byte that is not text.
    const [name] = r.pick(arrays);
    const quoted = (dict) => [...dict.matchAll(/'([^']*)'/g)].flatMap((m) => [...m[1]].map((_, k) => m.index + 1 + k));
    add('bit flip', `top bit of a byte of a word in ${name}'s npy header (CRC right)`,
      withArray(name, (npy) => flipBit(npy, 10 + r.pick(quoted(npyParts(npy).dict)), 7)), 'error',
      new RegExp(`array '${name.replace('.npy', '')}': (malformed \\.npy header: unexpected key|unsupported dtype) '[^']*\\\\x[89a-f][0-9a-f]`));
  }
  {
    const at = npyData(sz, S, 'node_feat.npy');
    add('bit flip', 'stored node_feat data (CRC now wrong)', flipBit(S, at + r.int(4 * 1277 * 140), r.int(8)), 'error',
      /array 'node_feat': CRC-32 mismatch/);
  }
  {
    const k = r.int(1277 * 140), bit = r.int(32);  // may make a NaN or an infinity
    add('bit flip', `node_feat value ${k} bit ${bit} (CRC right)`,
      withArray('node_feat.npy', (npy) => flipBit(npy, npyParts(npy).dataAt + 4 * k + (bit >> 3), bit & 7)), 'either');
  }
  {
    const k = r.int(1277 * 140), bit = r.int(23);  // a mantissa bit: another finite float, a valid file
    add('bit flip', `node_feat value ${k} mantissa bit ${bit} (CRC right)`,
      withArray('node_feat.npy', (npy) => flipBit(npy, npyParts(npy).dataAt + 4 * k + (bit >> 3), bit & 7)), 'open');
  }
  {
    const k = r.int(20);  // the sign bit of an int64 runtime
    add('bit flip', `config_runtime ${k}'s sign bit (CRC right)`,
      withArray('config_runtime.npy', (npy) => flipBit(npy, npyParts(npy).dataAt + 8 * k + 7, 7)), 'error',
      /array 'config_runtime': 1 negative runtimes/);
  }
  {
    // Every set bit of one runtime flipped: a zero among measured runtimes, which validation
    // only warns about; the file opens and ranks (top-k errors undefined).
    const k = r.int(20);
    add('bit flip', `config_runtime ${k}'s set bits (to 0, CRC right)`,
      withArray('config_runtime.npy', (npy) => patched(npy, (b) => b.writeBigInt64LE(0n, npyParts(npy).dataAt + 8 * k))),
      'open');
  }
  {
    let bytes = T;
    for (let k = 0; k < 4; k++) bytes = flipBit(bytes, r.int(T.length), r.int(8));
    add('bit flip', '4 bits anywhere in a tile file', bytes, 'either');
  }

  // Truncations.
  add('truncation', '0 bytes', Buffer.alloc(0), 'error', /not a zip\/npz file \(too short\)/);
  add('truncation', 'mid local header (17 bytes)', L.subarray(0, 17), 'error', /not a zip\/npz file \(too short\)/);
  const noEnd = /not a zip\/npz file \(no end-of-central-directory record; truncated\?\)/;
  {
    const at = npyData(sz, S, 'node_feat.npy') + r.int(4 * 1277 * 140);
    add('truncation', `mid npy data (stored node_feat, at ${at})`, S.subarray(0, at), 'error', noEnd);
  }
  {
    const e = entry(lz, 'node_feat.npy'), at = e.data + r.int(e.csize);
    add('truncation', `mid deflate stream (at ${at})`, L.subarray(0, at), 'error', noEnd);
  }
  add('truncation', 'at the central directory', L.subarray(0, lz.cdStart), 'error', noEnd);
  {
    const cut = 1 + r.int(4 * 140 - 1);  // an entry whose data stops short, in a sound zip
    add('truncation', `node_feat's data, ${cut} bytes short, in a sound zip`,
      withArray('node_feat.npy', (npy) => npy.subarray(0, npy.length - cut)), 'error',
      new RegExp(`array 'node_feat': header shape needs ${4 * 1277 * 140} bytes of data but the entry holds ${4 * 1277 * 140 - cut}`));
  }

  // Forged headers.
  {
    const e = entry(lz, 'node_opcode.npy');  // in both headers, as a writer would
    add('forged header', 'node_opcode\'s size one byte short', patched(L, (b) => {
      b.writeUInt32LE(e.size - 1, e.local + 22);
      b.writeUInt32LE(e.size - 1, e.central + 24);
    }), 'error', /array 'node_opcode': header shape needs 1277 bytes of data but the entry holds 1276/);
  }
  {
    const e = entry(lz, 'config_runtime.npy');
    add('forged header', 'config_runtime\'s CRC-32 zeroed', patched(L, (b) => {
      b.writeUInt32LE(0, e.local + 14);
      b.writeUInt32LE(0, e.central + 16);
    }), 'error', /array 'config_runtime': CRC-32 mismatch/);
  }
  {
    const e = entry(lz, 'node_feat.npy');
    add('forged header', 'node_feat claims 4 GB deflated from 12 KB', patched(L, (b) => {
      b.writeUInt32LE(0xfffffffe, e.local + 22);
      b.writeUInt32LE(0xfffffffe, e.central + 24);
    }), 'error', /array 'node_feat.npy': entry claims an impossible compression ratio/);
  }
  add('forged header', 'a zip bomb: node_feat claims 4 GB of zeros, deflated to 4 MB', layoutBomb(), 'error',
    /array 'node_feat': claims 4\.0 GB of data; loading the graph takes 8\.0 GB, over the memory budget of 2\.0 GB/);
  add('forged header', 'node_feat\'s dtype <f4 -> <U1 (4-byte characters)',
    withArray('node_feat.npy', (npy) => editNpy(npy, (d) => d.replace("'<f4'", "'<U1'"))), 'error',
    /array 'node_feat': unsupported dtype '<U1'/);
  add('forged header', 'node_feat\'s shape (1277, 140) -> (1277, 141)',
    withArray('node_feat.npy', (npy) => editNpy(npy, (d) => d.replace('(1277, 140)', '(1277, 141)'))), 'error',
    new RegExp(`array 'node_feat': header shape needs ${4 * 1277 * 141} bytes of data but the entry holds ${4 * 1277 * 140}`));
  add('forged header', 'node_config_feat\'s shape (20, 62, 18) -> (2**62, 62, 18)',
    withArray('node_config_feat.npy', (npy) => editNpy(npy, (d) => d.replace('(20, 62, 18)', `(${2n ** 62n}, 62, 18)`))),
    'error', /array 'node_config_feat': shape is too large to address/);
  add('forged header', 'node_feat twice', writeNpz([...arrays, arrays.find(([n]) => n === 'node_feat.npy')]), 'error',
    /array 'node_feat': array appears twice in the archive/);
  add('forged header', 'edge_index missing', writeNpz(arrays.filter(([n]) => n !== 'edge_index.npy')), 'error',
    /edge_index/);
  {
    const e = anEntry(lz);
    add('forged header', `compression method 12 (bzip2) for ${e.name}`, patched(L, (b) => {
      b.writeUInt16LE(12, e.local + 8);
      b.writeUInt16LE(12, e.central + 10);
    }), 'error', new RegExp(`array '${e.name}': compression method 12 is not supported`));
  }

  return out.map((m, i) => ({
    ...m,
    name: `m${String(i).padStart(2, '0')}-${m.kind.replace(' ', '-')}.npz`,
  }));
}
