#include "fastslow/io/npz_reader.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "fastslow/error.h"
#include "fastslow/io/memory_budget.h"

namespace fastslow {

namespace {

// for_each_chunk's chunks stay this small (one row where a row is larger),
// whatever the caller asks: streaming must not hold a large part of the array.
// A small budget makes them smaller still.
constexpr uint64_t kMaxChunkBytes = uint64_t(64) << 20;
// What read_rows keeps per row beside the rows themselves: the row list, the
// order it is visited in and the runs.
constexpr uint64_t kGatherBytesPerRow = 48;

// Elements in a row (axes 1..k): the position table a Fortran-ordered read
// builds has this many 8-byte entries.
uint64_t row_elems(const NpyHeader& h) {
  uint64_t n = 1;
  for (size_t i = 1; i < h.shape.size(); ++i) n = saturating_mul(n, static_cast<uint64_t>(h.shape[i]));
  return n;
}

// Bytes a whole read() allocates: the array, and for Fortran order a second
// copy to reorder from and the position table.
uint64_t whole_read_bytes(const NpyHeader& h) {
  const uint64_t data = h.data_bytes();
  if (!h.fortran_order || data == 0) return data;
  return saturating_add(2 * data, saturating_mul(8, row_elems(h)));
}

void byteswap_inplace(uint8_t* p, size_t count, size_t width) {
  for (size_t i = 0; i < count; ++i, p += width) std::reverse(p, p + width);
}

std::string strip_npy(const std::string& n) {
  if (n.size() > 4 && n.compare(n.size() - 4, 4, ".npy") == 0) return n.substr(0, n.size() - 4);
  return {};
}

}  // namespace

NpzReader NpzReader::open(const std::string& path) { return NpzReader(open_file_source(path)); }

NpzReader NpzReader::from_memory(std::string name, std::vector<uint8_t> bytes) {
  return NpzReader(memory_source(std::move(name), std::move(bytes)));
}

NpzReader::NpzReader(std::shared_ptr<ByteSource> src) : src_(std::move(src)) {
  for (ZipEntry& e : read_zip_directory(*src_)) {
    std::string name = strip_npy(e.name);
    if (name.empty()) continue;  // np.load exposes only .npy members as arrays
    if (index_.count(name)) throw Error(file(), name, "array appears twice in the archive");
    ZipEntryStream s(*src_, e, name);
    uint8_t prefix[kNpyPrefixMax];
    const size_t avail = static_cast<size_t>(std::min<uint64_t>(e.size, kNpyPrefixMax));
    s.read(prefix, avail);
    const uint64_t len = npy_header_length(prefix, avail, file(), name);
    if (len > e.size) throw Error(file(), name, "truncated .npy header");
    std::vector<uint8_t> head(static_cast<size_t>(len));
    // A v1 header can be shorter than the 12 prefix bytes already read.
    const size_t have = std::min<size_t>(avail, head.size());
    std::copy(prefix, prefix + have, head.begin());
    s.read(head.data() + have, head.size() - have);
    NpyHeader h = parse_npy_header(head.data(), head.size(), file(), name);
    const uint64_t body = e.size - h.header_bytes;
    if (h.data_bytes() != body)
      throw Error(file(), name, "header shape needs " + std::to_string(h.data_bytes()) +
                                    " bytes of data but the entry holds " + std::to_string(body));
    index_.emplace(name, arrays_.size());
    arrays_.push_back({std::move(name), std::move(e), std::move(h)});
  }
}

std::vector<std::string> NpzReader::names() const {
  std::vector<std::string> out;
  for (const Array& a : arrays_) out.push_back(a.name);
  return out;
}

bool NpzReader::contains(std::string_view name) const { return index_.count(std::string(name)) > 0; }

const NpzReader::Array& NpzReader::find(std::string_view name) const {
  const auto it = index_.find(std::string(name));
  if (it == index_.end()) throw Error(file(), std::string(name), "no such array in the archive");
  return arrays_[it->second];
}

const NpyHeader& NpzReader::header(std::string_view name) const { return find(name).header; }

bool NpzReader::compressed(std::string_view name) const {
  return find(name).entry.method == ZipMethod::Deflate;
}

uint32_t NpzReader::crc32(std::string_view name) const { return find(name).entry.crc32; }

void NpzReader::finish(const Array& a, NpyArray* out) const {
  if (a.header.big_endian && dtype_size(a.header.dtype) > 1)
    byteswap_inplace(out->data(), static_cast<size_t>(out->count()), dtype_size(a.header.dtype));
}

namespace {

// Index of each element of a Fortran-ordered row (axes 1..k) in C order.
std::vector<uint64_t> fortran_to_c_positions(const std::vector<int64_t>& shape) {
  const size_t k = shape.size();
  uint64_t n = 1;
  for (size_t i = 1; i < k; ++i) n *= static_cast<uint64_t>(shape[i]);
  std::vector<uint64_t> pos(n);
  std::vector<int64_t> idx(k, 0);  // F-order odometer over axes 1..k-1
  for (uint64_t f = 0; f < n; ++f) {
    uint64_t c = 0;
    for (size_t i = 1; i < k; ++i) c = c * static_cast<uint64_t>(shape[i]) + static_cast<uint64_t>(idx[i]);
    pos[f] = c;
    for (size_t i = 1; i < k; ++i) {
      if (++idx[i] < shape[i]) break;
      idx[i] = 0;
    }
  }
  return pos;
}

}  // namespace

uint64_t NpzReader::read_cost(std::string_view name) const { return whole_read_bytes(find(name).header); }

void NpzReader::check_whole(const Array& a, uint64_t extra) const {
  const uint64_t data = a.header.data_bytes();
  const uint64_t need = saturating_add(whole_read_bytes(a.header), extra);
  std::string claim = "claims " + format_bytes(data) + " of data";
  if (need != data) claim += " (reading it takes " + format_bytes(need) + ")";
  check_memory_budget(need, file(), a.name, claim);
}

void NpzReader::check_rows(const Array& a, uint64_t count) const {
  const uint64_t rb = a.header.row_bytes();
  const uint64_t need = saturating_add(saturating_mul(count, saturating_add(rb, kGatherBytesPerRow)),
                                       a.header.fortran_order && count > 0 ? saturating_mul(8, row_elems(a.header)) : 0);
  check_memory_budget(need, file(), a.name,
                      "reading " + std::to_string(count) + (count == 1 ? " row" : " rows") + " of " +
                          format_bytes(rb) + " takes " + format_bytes(need));
}

NpyArray NpzReader::read(std::string_view name) const {
  const Array& a = find(name);
  check_whole(a);
  ZipEntryStream s(*src_, a.entry, a.name);
  s.track_crc();
  s.skip(a.header.header_bytes);
  // An empty array has no bytes to reorder; its trailing dims may still
  // multiply to anything, so they must not size the position table below.
  if (!a.header.fortran_order || a.header.data_bytes() == 0) {
    NpyArray out(a.header.dtype, a.header.shape);
    s.read(out.data(), out.nbytes());
    s.verify_end();
    finish(a, &out);
    return out;
  }
  // Fortran order: the bytes are the C-order array of the reversed shape.
  std::vector<int64_t> rev(a.header.shape.rbegin(), a.header.shape.rend());
  NpyArray raw(a.header.dtype, rev);
  s.read(raw.data(), raw.nbytes());
  s.verify_end();
  NpyArray out(a.header.dtype, a.header.shape);
  const size_t w = dtype_size(a.header.dtype);
  const uint64_t d0 = static_cast<uint64_t>(a.header.shape[0]);
  const std::vector<uint64_t> pos = fortran_to_c_positions(a.header.shape);
  const uint64_t per_row = pos.size();
  // Walk the source sequentially: F element (r, f) sits at f * d0 + r.
  const uint8_t* src = raw.data();
  for (uint64_t f = 0; f < per_row; ++f)
    for (uint64_t r = 0; r < d0; ++r, src += w)
      std::memcpy(out.data() + (r * per_row + pos[f]) * w, src, w);
  finish(a, &out);
  return out;
}

NpyArray NpzReader::read_rows(std::string_view name, int64_t begin, int64_t end) const {
  const Array& a = find(name);
  if (a.header.shape.empty()) throw Error(file(), a.name, "a 0-d array has no rows");
  if (begin < 0 || end < begin || end > a.header.rows())
    throw Error(file(), a.name, "rows [" + std::to_string(begin) + ", " + std::to_string(end) +
                                    ") out of range for " + std::to_string(a.header.rows()) + " rows");
  if (a.header.row_bytes() == 0) {
    // Rows of no bytes: nothing to read, and the header may claim 2^60 of
    // them, too many to list one by one.
    std::vector<int64_t> shape = a.header.shape;
    shape[0] = end - begin;
    return NpyArray(a.header.dtype, std::move(shape));
  }
  check_rows(a, static_cast<uint64_t>(end - begin));
  std::vector<int64_t> rows(static_cast<size_t>(end - begin));
  std::iota(rows.begin(), rows.end(), begin);
  return gather(a, rows);
}

NpyArray NpzReader::read_rows(std::string_view name, const std::vector<int64_t>& rows) const {
  const Array& a = find(name);
  if (a.header.shape.empty()) throw Error(file(), a.name, "a 0-d array has no rows");
  const int64_t n = a.header.rows();
  for (int64_t r : rows)
    if (r < 0 || r >= n)
      throw Error(file(), a.name, "row " + std::to_string(r) + " out of range for " +
                                      std::to_string(n) + " rows");
  check_rows(a, rows.size());
  return gather(a, rows);
}

void NpzReader::for_each_float_chunk(std::string_view name,
                                     const std::function<void(const float*, int64_t, int64_t)>& fn) const {
  const NpyHeader& h = header(name);
  // Unsigned: a header of no rows may claim any width.
  const uint64_t row_values = h.row_bytes() / std::max<size_t>(1, dtype_size(h.dtype));
  const uint64_t chunk = std::max<uint64_t>(1, (uint64_t(16) << 20) / 4 / std::max<uint64_t>(1, row_values));
  const std::string what(name);
  for_each_chunk(name, static_cast<int64_t>(std::min<uint64_t>(chunk, INT64_MAX)), [&](int64_t, const NpyArray& c) {
    if (c.dtype() == DType::F32) {
      fn(c.as<float>(), c.dim(0), c.count());
    } else {
      const std::vector<float> converted = c.to_float(what);
      fn(converted.data(), c.dim(0), c.count());
    }
  });
}

void NpzReader::for_each_chunk(std::string_view name, int64_t chunk_rows,
                               const std::function<void(int64_t, const NpyArray&)>& fn) const {
  const Array& a = find(name);
  if (a.header.shape.empty()) throw Error(file(), a.name, "a 0-d array has no rows");
  if (chunk_rows < 1) chunk_rows = 1;
  const int64_t n = a.header.rows();
  const uint64_t rb = a.header.row_bytes();
  // A chunk stays within 64 MB and a quarter of the budget (the caller may
  // convert it, to float32 say): at least one row, which must fit the budget.
  const uint64_t cap = std::min(kMaxChunkBytes, memory_budget() / 4);
  if (rb > 0) chunk_rows = std::min<int64_t>(chunk_rows, static_cast<int64_t>(std::max<uint64_t>(1, cap / rb)));
  // Rows of no bytes hold nothing, so all of them make one chunk: the header
  // may claim 2^60 of them, and a chunk of a few each would never finish.
  if (n > 0 && rb == 0) chunk_rows = n;
  const uint64_t chunk_bytes = saturating_mul(
      std::min<uint64_t>(static_cast<uint64_t>(std::max<int64_t>(n, 0)), static_cast<uint64_t>(chunk_rows)), rb);
  if (a.header.fortran_order) {
    check_whole(a, chunk_bytes);  // its rows are strided: read whole, then cut
    const NpyArray all = read(name);
    for (int64_t b = 0; b < n; b += chunk_rows) {
      const int64_t e = std::min(n, b + chunk_rows);
      std::vector<int64_t> shape = a.header.shape;
      shape[0] = e - b;
      NpyArray chunk(a.header.dtype, std::move(shape));
      std::memcpy(chunk.data(), all.data() + static_cast<uint64_t>(b) * a.header.row_bytes(), chunk.nbytes());
      fn(b, chunk);
    }
    return;
  }
  check_memory_budget(chunk_bytes, file(), a.name,
                      chunk_rows == 1 ? "one row claims " + format_bytes(rb) + " of data"
                                      : "a chunk of " + std::to_string(chunk_rows) + " rows takes " +
                                            format_bytes(chunk_bytes));
  ZipEntryStream s(*src_, a.entry, a.name);
  s.track_crc();
  s.skip(a.header.header_bytes);
  for (int64_t b = 0; b < n; b += chunk_rows) {
    const int64_t e = std::min(n, b + chunk_rows);
    std::vector<int64_t> shape = a.header.shape;
    shape[0] = e - b;
    NpyArray chunk(a.header.dtype, std::move(shape));
    s.read(chunk.data(), chunk.nbytes());
    finish(a, &chunk);
    fn(b, chunk);
  }
  s.verify_end();
}

NpyArray NpzReader::gather(const Array& a, const std::vector<int64_t>& rows) const {
  std::vector<int64_t> shape = a.header.shape;
  shape[0] = static_cast<int64_t>(rows.size());
  NpyArray out(a.header.dtype, std::move(shape));
  const uint64_t rb = a.header.row_bytes();
  if (rows.empty() || rb == 0) return out;

  // Visit the entry in ascending file order so a deflated entry is inflated
  // once; `order` lists output slots by ascending row.
  std::vector<size_t> order(rows.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return rows[x] < rows[y]; });
  // Runs of consecutive rows (repeats included) are read with one request.
  struct Run {
    size_t k, j;  // order[k..j)
    int64_t first, last;
  };
  std::vector<Run> runs;
  for (size_t k = 0; k < order.size();) {
    size_t j = k + 1;
    int64_t last = rows[order[k]];
    while (j < order.size() && rows[order[j]] <= last + 1) last = rows[order[j++]];
    runs.push_back({k, j, rows[order[k]], last});
    k = j;
  }

  ZipEntryStream s(*src_, a.entry, a.name);
  uint8_t* base = out.data();
  std::vector<uint8_t> tmp;
  if (!a.header.fortran_order) {
    for (const Run& run : runs) {
      s.skip(a.header.header_bytes + static_cast<uint64_t>(run.first) * rb - s.position());
      const uint64_t len = static_cast<uint64_t>(run.last - run.first + 1) * rb;
      // In place only when the run's rows are distinct and land in ascending
      // consecutive slots: rows {4, 6, 5, 7} asked in that order span slots
      // 0..3 too, but not in row order.
      bool direct = run.j - run.k == static_cast<size_t>(run.last - run.first + 1);
      for (size_t q = run.k + 1; direct && q < run.j; ++q) direct = order[q] == order[q - 1] + 1;
      if (direct) {  // distinct rows landing in consecutive slots: read in place
        s.read(base + order[run.k] * rb, len);
        continue;
      }
      tmp.resize(len);
      s.read(tmp.data(), len);
      for (size_t q = run.k; q < run.j; ++q)
        std::memcpy(base + order[q] * rb, tmp.data() + (rows[order[q]] - run.first) * rb, rb);
    }
  } else {
    // Fortran order: a row is strided; each F-column holds all rows contiguously.
    const size_t w = dtype_size(a.header.dtype);
    const uint64_t d0 = static_cast<uint64_t>(a.header.rows());
    const std::vector<uint64_t> pos = fortran_to_c_positions(a.header.shape);
    for (uint64_t f = 0; f < pos.size(); ++f) {
      for (const Run& run : runs) {
        const uint64_t at = a.header.header_bytes + (f * d0 + static_cast<uint64_t>(run.first)) * w;
        s.skip(at - s.position());
        tmp.resize(static_cast<size_t>(run.last - run.first + 1) * w);
        s.read(tmp.data(), tmp.size());
        for (size_t q = run.k; q < run.j; ++q)
          std::memcpy(base + order[q] * rb + pos[f] * w, tmp.data() + (rows[order[q]] - run.first) * w, w);
      }
    }
  }
  finish(a, &out);
  return out;
}

}  // namespace fastslow
