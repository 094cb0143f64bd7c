// The .npy header: npy_header_length on the prefix, parse_npy_header on the
// whole input. An accepted header's sizes must be computable, and the header
// the core writes for its dtype and shape must parse back to the same.
#include <algorithm>
#include <string>

#include "fastslow/io/npy.h"
#include "fuzz_support.h"

using namespace fastslow;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  uint64_t len = 0;
  NpyHeader h;
  if (!fuzz::accepts([&] {
        len = npy_header_length(data, std::min(size, kNpyPrefixMax), "fuzz.npy", "a");
        h = parse_npy_header(data, size, "fuzz.npy", "a");
      }))
    return 0;
  FUZZ_CHECK(h.header_bytes == len && len <= size);
  FUZZ_CHECK(h.count() >= 0 && h.rows() >= 0);
  FUZZ_CHECK(h.data_bytes() == static_cast<uint64_t>(h.count()) * dtype_size(h.dtype));
  if (h.rows() > 0) FUZZ_CHECK(h.data_bytes() == static_cast<uint64_t>(h.rows()) * h.row_bytes());
  // Written back (C order, little endian) it reads as the same array.
  const std::string again = make_npy_header(h.dtype, h.shape);
  const NpyHeader g =
      parse_npy_header(reinterpret_cast<const uint8_t*>(again.data()), again.size(), "again.npy", "a");
  FUZZ_CHECK(g.dtype == h.dtype && g.shape == h.shape && !g.big_endian && !g.fortran_order);
  FUZZ_CHECK(g.header_bytes == again.size() && g.header_bytes % 64 == 0);
  return 0;
}
