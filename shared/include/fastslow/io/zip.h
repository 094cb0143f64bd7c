// The subset of ZIP that npz files use: stored and deflated entries, zip64,
// CRC-32. Entries are read as streams so a deflated array can be walked to a
// row range without inflating it into memory.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fastslow/io/byte_source.h"

struct z_stream_s;

namespace fastslow {

enum class ZipMethod : uint16_t { Stored = 0, Deflate = 8 };

struct ZipEntry {
  std::string name;
  ZipMethod method = ZipMethod::Stored;
  uint32_t crc32 = 0;
  uint64_t compressed_size = 0;
  uint64_t size = 0;         // uncompressed
  uint64_t header_offset = 0;
  uint64_t data_offset = 0;  // resolved from the local header
};

// Reads the central directory and every local header. Throws fastslow::Error
// (file named, array = entry name where known) on anything inconsistent.
std::vector<ZipEntry> read_zip_directory(const ByteSource& src);

// Sequential reader of one entry's uncompressed bytes.
class ZipEntryStream {
 public:
  ZipEntryStream(const ByteSource& src, const ZipEntry& entry, std::string array_name);
  ~ZipEntryStream();
  ZipEntryStream(const ZipEntryStream&) = delete;
  ZipEntryStream& operator=(const ZipEntryStream&) = delete;

  // Reads exactly n bytes or throws (entry shorter than it claims, corrupt data).
  void read(void* dst, size_t n);
  void skip(uint64_t n);
  uint64_t position() const { return pos_; }

  // Keeps a running CRC-32 of everything read (and skipped) from the start.
  void track_crc() { track_crc_ = true; }
  // Checks the whole entry was consumed and its CRC matches.
  void verify_end();

 private:
  void fail(const std::string& why) const;
  void fill_input();

  const ByteSource& src_;
  const ZipEntry& entry_;
  std::string array_;
  uint64_t pos_ = 0;       // uncompressed bytes produced
  uint64_t in_pos_ = 0;    // compressed bytes consumed from the source
  bool track_crc_ = false;
  uint32_t crc_ = 0;
  std::unique_ptr<z_stream_s> z_;
  std::vector<uint8_t> in_;
  bool stream_end_ = false;
};

uint32_t crc32_update(uint32_t crc, const void* data, size_t n);

}  // namespace fastslow
