// Writes .npz archives that numpy loads: stored (np.savez) or deflated
// (np.savez_compressed), zip64 where sizes need it, fixed timestamps so the
// same arrays always give the same bytes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "fastslow/io/npy.h"
#include "fastslow/io/write_file.h"

namespace fastslow {

enum class Compression { Stored, Deflate };

class NpzWriter {
 public:
  // Writes to a temporary file beside `path` (write_file.h) and renames it
  // on close(), so an interrupted run never leaves a half-written archive
  // under the final name.
  NpzWriter(const std::string& path, Compression compression);
  // Writes into memory; take the bytes with close_to_memory().
  explicit NpzWriter(Compression compression);
  ~NpzWriter();
  NpzWriter(const NpzWriter&) = delete;
  NpzWriter& operator=(const NpzWriter&) = delete;

  void add(const std::string& name, const NpyArray& array);
  void add(const std::string& name, DType dtype, const std::vector<int64_t>& shape, const void* data);
  template <class T>
  void add(const std::string& name, const std::vector<T>& values, const std::vector<int64_t>& shape) {
    add(name, NpyArray::from(values, shape));
  }

  void close();
  std::vector<uint8_t> close_to_memory();

 private:
  struct Sink;
  struct Written {
    std::string name;
    uint32_t crc;
    uint64_t csize, size, offset;
  };
  void write_central_directory();

  std::string path_;
  std::unique_ptr<TempFile> temp_;  // file writers: where the bytes go until close()
  Compression compression_;
  std::unique_ptr<Sink> sink_;
  std::vector<Written> written_;
  std::unordered_set<std::string> names_;
  bool closed_ = false;
};

}  // namespace fastslow
