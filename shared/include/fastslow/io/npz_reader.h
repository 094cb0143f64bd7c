// Reads .npz archives: whole arrays, or rows of an array's leading axis
// without materialising the rest (16 configs out of 100k).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "fastslow/io/byte_source.h"
#include "fastslow/io/npy.h"
#include "fastslow/io/zip.h"

namespace fastslow {

class NpzReader {
 public:
  // Natively reads with pread; the archive is never loaded whole.
  static NpzReader open(const std::string& path);
  // For the browser: the file's bytes as delivered by JS.
  static NpzReader from_memory(std::string name, std::vector<uint8_t> bytes);
  explicit NpzReader(std::shared_ptr<ByteSource> src);

  const std::string& file() const { return src_->name(); }
  // Array names without ".npy", in archive order.
  std::vector<std::string> names() const;
  bool contains(std::string_view name) const;
  const NpyHeader& header(std::string_view name) const;
  bool compressed(std::string_view name) const;
  // The CRC-32 of the array's bytes (header included), from the archive's
  // directory: a content fingerprint that costs no read of the data.
  uint32_t crc32(std::string_view name) const;

  // Every read checks what it would allocate against the memory budget
  // (memory_budget.h) before reading, and throws Error naming the file, the
  // array and the size when it is over.
  // What read(name) allocates: the array, and for a Fortran-ordered one the
  // copy it is reordered from and a table of a row's positions.
  uint64_t read_cost(std::string_view name) const;
  // Whole array; the CRC-32 of the entry is checked.
  NpyArray read(std::string_view name) const;
  // Rows [begin, end) of the leading axis. Stored entries are read at their
  // offset; deflated ones are inflated up to `end` and discarded before `begin`.
  NpyArray read_rows(std::string_view name, int64_t begin, int64_t end) const;
  // Chosen rows in the given order (repeats allowed), with one pass over the entry.
  NpyArray read_rows(std::string_view name, const std::vector<int64_t>& rows) const;
  // Streams the whole array in chunks of at most `chunk_rows` rows (and at
  // most 64 MB and a quarter of the memory budget, or one row where a row is
  // larger), one pass over the entry,
  // so a large deflated array is never held whole: only a chunk counts
  // against the memory budget. Fortran-ordered arrays are read whole first
  // (their rows are strided).
  void for_each_chunk(std::string_view name, int64_t chunk_rows,
                      const std::function<void(int64_t first_row, const NpyArray& chunk)>& fn) const;
  // The same in chunks of about 16 MB as float32, whatever the stored dtype
  // (config features): `fn(rows, count, values)` with count rows of
  // values / count floats each.
  void for_each_float_chunk(std::string_view name,
                            const std::function<void(const float* rows, int64_t count, int64_t values)>& fn) const;

 private:
  struct Array {
    std::string name;
    ZipEntry entry;
    NpyHeader header;
  };
  const Array& find(std::string_view name) const;
  // Throw Error naming the file, the array and the size when what a read
  // would allocate is over the memory budget (memory_budget.h).
  void check_whole(const Array& a, uint64_t extra = 0) const;
  void check_rows(const Array& a, uint64_t count) const;
  NpyArray gather(const Array& a, const std::vector<int64_t>& rows) const;
  void finish(const Array& a, NpyArray* out) const;

  std::shared_ptr<ByteSource> src_;
  std::vector<Array> arrays_;
  std::unordered_map<std::string, size_t> index_;
};

}  // namespace fastslow
