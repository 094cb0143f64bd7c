// Whole npz reads: NpzReader opening the archive (directory plus every .npy
// header), then each array read whole (CRC-32 checked, big-endian and
// Fortran-ordered arrays converted) and converted as the graph loader does.
#include <string>

#include "fastslow/io/byte_source.h"
#include "fastslow/io/npz_reader.h"
#include "fuzz_support.h"

using namespace fastslow;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::accepts([&] {
    const NpzReader npz(memory_view_source("fuzz.npz", data, size));
    for (const std::string& name : npz.names()) {
      const NpyHeader& h = npz.header(name);
      FUZZ_CHECK(npz.contains(name));
      (void)npz.compressed(name);
      (void)npz.crc32(name);
      // One bad array must not hide the others.
      fuzz::accepts([&] {
        const NpyArray a = npz.read(name);
        FUZZ_CHECK(a.dtype() == h.dtype && a.shape() == h.shape && a.nbytes() == h.data_bytes());
        const std::vector<double> d = a.to_double();
        FUZZ_CHECK(d.size() == static_cast<size_t>(a.count()));
        (void)a.to_float();
        fuzz::accepts([&] { (void)a.to_int64(name); });
        fuzz::accepts([&] { (void)a.to_int8(name); });
      });
    }
  });
  return 0;
}
