// The zip layer under every npz read: read_zip_directory (end record, zip64
// records, central directory, local headers), then each entry streamed
// whole through ZipEntryStream with its CRC-32 checked.
#include <vector>

#include "fastslow/io/byte_source.h"
#include "fastslow/io/zip.h"
#include "fuzz_support.h"

using namespace fastslow;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto src = memory_view_source("fuzz.npz", data, size);
  std::vector<ZipEntry> entries;
  if (!fuzz::accepts([&] { entries = read_zip_directory(*src); })) return 0;
  for (const ZipEntry& e : entries) {
    // Accepted entries lie inside the file.
    FUZZ_CHECK(e.data_offset <= size && e.compressed_size <= size - e.data_offset);
    fuzz::accepts([&] {
      ZipEntryStream s(*src, e, e.name);
      s.track_crc();
      s.skip(e.size);
      s.verify_end();
    });
  }
  return 0;
}
