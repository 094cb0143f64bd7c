// Partial npz reads: rows of an array's leading axis (a range, chosen rows
// in any order with repeats) and the whole array streamed in chunks. When
// an array reads whole, every partial read of it must succeed and give the
// same bytes; when it does not, partial reads may fail only with Error.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "fastslow/io/byte_source.h"
#include "fastslow/io/npz_reader.h"
#include "fuzz_support.h"

using namespace fastslow;

namespace {

void partial_reads(const NpzReader& npz, const std::string& name, const NpyArray* whole) {
  const NpyHeader& h = npz.header(name);
  const int64_t n = h.rows();
  const uint64_t rb = h.row_bytes();
  auto same_rows = [&](const NpyArray& got, const std::vector<int64_t>& rows) {
    if (!whole) return;
    FUZZ_CHECK(got.dim(0) == static_cast<int64_t>(rows.size()) && got.nbytes() == rows.size() * rb);
    for (size_t i = 0; i < rows.size(); ++i)
      FUZZ_CHECK(std::memcmp(got.data() + i * rb, whole->data() + static_cast<uint64_t>(rows[i]) * rb, rb) == 0);
  };
  {  // ranges: every row, the first rows, and the last few
    const NpyArray all = npz.read_rows(name, 0, n);
    FUZZ_CHECK(all.dim(0) == n && all.nbytes() == h.data_bytes());
    if (whole) FUZZ_CHECK(std::memcmp(all.data(), whole->data(), all.nbytes()) == 0);
    const int64_t b = std::max<int64_t>(0, n - 3);
    const NpyArray head = npz.read_rows(name, 0, std::min<int64_t>(n, 2));
    const NpyArray tail = npz.read_rows(name, b, n);
    std::vector<int64_t> rows;
    for (int64_t r = 0; r < std::min<int64_t>(n, 2); ++r) rows.push_back(r);
    same_rows(head, rows);
    rows.clear();
    for (int64_t r = b; r < n; ++r) rows.push_back(r);
    same_rows(tail, rows);
  }
  if (n > 0) {  // chosen rows, out of order and repeated
    const std::vector<int64_t> rows = {n - 1, 0, n / 2, n - 1, n / 2 + (n > 2 ? 1 : 0)};
    same_rows(npz.read_rows(name, rows), rows);
  }
  int64_t next = 0;
  npz.for_each_chunk(name, 3, [&](int64_t first, const NpyArray& chunk) {
    // Chunks of at most 3 rows, or one chunk of rows that hold no bytes.
    FUZZ_CHECK(first == next && chunk.dim(0) >= 1 && (chunk.dim(0) <= 3 || rb == 0));
    if (whole) FUZZ_CHECK(std::memcmp(chunk.data(), whole->data() + static_cast<uint64_t>(first) * rb, chunk.nbytes()) == 0);
    next += chunk.dim(0);
  });
  FUZZ_CHECK(next == n);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::accepts([&] {
    const NpzReader npz(memory_view_source("fuzz.npz", data, size));
    for (const std::string& name : npz.names()) {
      if (npz.header(name).shape.empty()) {  // 0-d: no rows to ask for
        FUZZ_CHECK(!fuzz::accepts([&] { npz.read_rows(name, 0, 0); }));
        continue;
      }
      NpyArray whole;
      if (fuzz::accepts([&] { whole = npz.read(name); })) {
        partial_reads(npz, name, &whole);  // an Error here escapes: a finding
      } else {
        fuzz::accepts([&] { partial_reads(npz, name, nullptr); });
      }
    }
  });
  return 0;
}
