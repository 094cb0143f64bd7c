#include "fastslow/io/zip.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#ifndef __EMSCRIPTEN__
#include <thread>
#endif

#include "fastslow/error.h"
#include "fastslow/io/memory_budget.h"

namespace fastslow {

namespace {

constexpr uint32_t kLocalSig = 0x04034b50;
constexpr uint32_t kCentralSig = 0x02014b50;
constexpr uint32_t kEndSig = 0x06054b50;
constexpr uint32_t kEnd64Sig = 0x06064b50;
constexpr uint32_t kEnd64LocatorSig = 0x07064b50;
constexpr size_t kEndLen = 22;
constexpr size_t kCentralLen = 46;
constexpr size_t kLocalLen = 30;
// Deflate cannot expand better than ~1032:1; a claim beyond that is corruption
// (or a zip bomb) and must not drive an allocation.
constexpr uint64_t kMaxDeflateRatio = 1100;

uint16_t u16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
uint32_t u32(const uint8_t* p) {
  return uint32_t(p[0]) | (uint32_t(p[1]) << 8) | (uint32_t(p[2]) << 16) | (uint32_t(p[3]) << 24);
}
uint64_t u64(const uint8_t* p) { return uint64_t(u32(p)) | (uint64_t(u32(p + 4)) << 32); }

struct EndRecord {
  uint64_t entries = 0, cd_size = 0, cd_offset = 0;
  uint64_t end_pos = 0;  // where the central directory must end
};

EndRecord find_end(const ByteSource& src) {
  const std::string& file = src.name();
  const uint64_t size = src.size();
  if (size < kEndLen) throw Error(file, "", "not a zip/npz file (too short)");
  // The end record sits in the last 22 + up to 65535 comment bytes.
  const uint64_t tail = std::min<uint64_t>(size, kEndLen + 65535);
  std::vector<uint8_t> buf(tail);
  src.read(size - tail, tail, buf.data());
  for (int64_t i = static_cast<int64_t>(tail - kEndLen); i >= 0; --i) {
    const uint8_t* p = buf.data() + i;
    if (u32(p) != kEndSig) continue;
    const uint64_t pos = size - tail + static_cast<uint64_t>(i);
    if (pos + kEndLen + u16(p + 20) != size) continue;  // comment length must reach EOF
    EndRecord e;
    e.entries = u16(p + 10);
    e.cd_size = u32(p + 12);
    e.cd_offset = u32(p + 16);
    e.end_pos = pos;
    if (u16(p + 4) != 0 || u16(p + 6) != 0) throw Error(file, "", "multi-disk zip archives are not supported");
    const bool zip64 = e.entries == 0xffff || e.cd_size == 0xffffffff || e.cd_offset == 0xffffffff;
    if (pos >= 20) {
      uint8_t loc[20];
      src.read(pos - 20, 20, loc);
      if (u32(loc) == kEnd64LocatorSig) {
        const uint64_t off = u64(loc + 8);
        uint8_t rec[56];
        if (off > pos || pos - off < 56) throw Error(file, "", "corrupt zip64 end record offset");
        src.read(off, 56, rec);
        if (u32(rec) != kEnd64Sig) throw Error(file, "", "corrupt zip64 end record");
        e.entries = u64(rec + 32);
        e.cd_size = u64(rec + 40);
        e.cd_offset = u64(rec + 48);
        e.end_pos = off;
      } else if (zip64) {
        throw Error(file, "", "zip64 end record missing");
      }
    }
    if (e.cd_offset > e.end_pos || e.cd_size > e.end_pos - e.cd_offset)
      throw Error(file, "", "central directory lies outside the file (truncated?)");
    // Divide rather than multiply: a zip64 count near 2^64 / 46 would wrap.
    if (e.entries > e.cd_size / kCentralLen)
      throw Error(file, "", "central directory is shorter than its entry count");
    return e;
  }
  throw Error(file, "", "not a zip/npz file (no end-of-central-directory record; truncated?)");
}

void parse_zip64_extra(const uint8_t* extra, size_t len, ZipEntry* e, bool need_size,
                       bool need_csize, bool need_offset, const std::string& file) {
  size_t i = 0;
  while (i + 4 <= len) {
    const uint16_t id = u16(extra + i), n = u16(extra + i + 2);
    if (i + 4 + n > len) break;
    if (id == 0x0001) {
      const uint8_t* p = extra + i + 4;
      size_t k = 0;
      auto take = [&](uint64_t* v) {
        if (k + 8 > n) throw Error(file, e->name, "zip64 extra field too short");
        *v = u64(p + k);
        k += 8;
      };
      if (need_size) take(&e->size);
      if (need_csize) take(&e->compressed_size);
      if (need_offset) take(&e->header_offset);
      return;
    }
    i += 4 + n;
  }
  if (need_size || need_csize || need_offset) throw Error(file, e->name, "zip64 extra field missing");
}

}  // namespace

namespace {

uint32_t crc32_serial(uint32_t crc, const Bytef* p, size_t n) {
  while (n > 0) {
    const uInt chunk = static_cast<uInt>(std::min<size_t>(n, 1u << 30));
    crc = static_cast<uint32_t>(::crc32(crc, p, chunk));
    p += chunk;
    n -= chunk;
  }
  return crc;
}

}  // namespace

uint32_t crc32_update(uint32_t crc, const void* data, size_t n) {
  const auto* p = static_cast<const Bytef*>(data);
#ifndef __EMSCRIPTEN__
  // CRC-32 runs at ~1-2 GB/s per core and would dominate reading a stored
  // entry from the page cache; split big buffers over the cores and join
  // the parts with crc32_combine.
  constexpr size_t kParallelMin = size_t(16) << 20;
  const unsigned cores = std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
  if (n >= kParallelMin && cores > 1) {
    const size_t part = (n + cores - 1) / cores;
    std::vector<uint32_t> crcs(cores, 0);
    std::vector<size_t> lens(cores, 0);
    std::vector<std::thread> threads;
    for (unsigned i = 1; i < cores; ++i) {
      const size_t begin = std::min(n, part * i), end = std::min(n, part * (i + 1));
      lens[i] = end - begin;
      threads.emplace_back([&, i, begin] { crcs[i] = crc32_serial(0, p + begin, lens[i]); });
    }
    crc = crc32_serial(crc, p, std::min(n, part));
    for (std::thread& t : threads) t.join();
    for (unsigned i = 1; i < cores; ++i)
      crc = static_cast<uint32_t>(crc32_combine(crc, crcs[i], static_cast<z_off_t>(lens[i])));
    return crc;
  }
#endif
  return crc32_serial(crc, p, n);
}

std::vector<ZipEntry> read_zip_directory(const ByteSource& src) {
  const std::string& file = src.name();
  const EndRecord end = find_end(src);
  // The directory lies inside the file (find_end checked), but a file can be
  // large too: it and the entries it lists count against the budget.
  const uint64_t need = saturating_add(end.cd_size, saturating_mul(end.entries, sizeof(ZipEntry)));
  check_memory_budget(need, file, "", "its zip directory of " + std::to_string(end.entries) + " entries takes " +
                                          format_bytes(need));
  std::vector<uint8_t> cd(end.cd_size);
  src.read(end.cd_offset, cd.size(), cd.data());

  std::vector<ZipEntry> entries;
  entries.reserve(end.entries);
  size_t i = 0;
  for (uint64_t k = 0; k < end.entries; ++k) {
    if (i + kCentralLen > cd.size() || u32(&cd[i]) != kCentralSig)
      throw Error(file, "", "corrupt central directory entry " + std::to_string(k));
    const uint8_t* p = &cd[i];
    const uint16_t flags = u16(p + 8), method = u16(p + 10);
    const size_t name_len = u16(p + 28), extra_len = u16(p + 30), comment_len = u16(p + 32);
    if (i + kCentralLen + name_len + extra_len + comment_len > cd.size())
      throw Error(file, "", "corrupt central directory entry " + std::to_string(k));
    ZipEntry e;
    e.name.assign(reinterpret_cast<const char*>(p + kCentralLen), name_len);
    e.crc32 = u32(p + 16);
    e.compressed_size = u32(p + 20);
    e.size = u32(p + 24);
    e.header_offset = u32(p + 42);
    const bool need_size = e.size == 0xffffffff, need_csize = e.compressed_size == 0xffffffff,
               need_off = e.header_offset == 0xffffffff;
    if (need_size || need_csize || need_off)
      parse_zip64_extra(p + kCentralLen + name_len, extra_len, &e, need_size, need_csize, need_off, file);
    if (flags & 0x1) throw Error(file, e.name, "encrypted zip entries are not supported");
    if (method == 0) {
      e.method = ZipMethod::Stored;
      if (e.compressed_size != e.size) throw Error(file, e.name, "stored entry with differing sizes");
    } else if (method == 8) {
      e.method = ZipMethod::Deflate;
      if (e.size / kMaxDeflateRatio > e.compressed_size + 1)
        throw Error(file, e.name, "entry claims an impossible compression ratio (corrupt)");
    } else {
      throw Error(file, e.name, "compression method " + std::to_string(method) +
                                    " is not supported (only stored and deflate)");
    }
    // The local header repeats name and extra with possibly different lengths.
    uint8_t local[kLocalLen];
    if (e.header_offset > end.cd_offset || end.cd_offset - e.header_offset < kLocalLen)
      throw Error(file, e.name, "local header lies outside the file (truncated?)");
    src.read(e.header_offset, kLocalLen, local);
    if (u32(local) != kLocalSig) throw Error(file, e.name, "corrupt local header");
    e.data_offset = e.header_offset + kLocalLen + u16(local + 26) + u16(local + 28);
    if (e.data_offset > end.cd_offset || e.compressed_size > end.cd_offset - e.data_offset)
      throw Error(file, e.name, "entry data runs past the central directory (truncated?)");
    entries.push_back(std::move(e));
    i += kCentralLen + name_len + extra_len + comment_len;
  }
  return entries;
}

// ---------------------------------------------------------------------------

ZipEntryStream::ZipEntryStream(const ByteSource& src, const ZipEntry& entry, std::string array)
    : src_(src), entry_(entry), array_(std::move(array)) {
  if (entry.method == ZipMethod::Deflate) {
    z_ = std::make_unique<z_stream_s>();
    std::memset(z_.get(), 0, sizeof(z_stream_s));
    if (inflateInit2(z_.get(), -MAX_WBITS) != Z_OK) fail("zlib inflateInit failed");
    in_.resize(static_cast<size_t>(std::min<uint64_t>(entry.compressed_size, 1 << 18)) + 1);
  }
}

ZipEntryStream::~ZipEntryStream() {
  if (z_) inflateEnd(z_.get());
}

void ZipEntryStream::fail(const std::string& why) const { throw Error(src_.name(), array_, why); }

void ZipEntryStream::fill_input() {
  const uint64_t left = entry_.compressed_size - in_pos_;
  if (left == 0) fail("compressed data ends early (truncated or corrupt)");
  const size_t n = static_cast<size_t>(std::min<uint64_t>(left, in_.size()));
  src_.read(entry_.data_offset + in_pos_, n, in_.data());
  in_pos_ += n;
  z_->next_in = in_.data();
  z_->avail_in = static_cast<uInt>(n);
}

void ZipEntryStream::read(void* dst, size_t n) {
  if (n > entry_.size - pos_) fail("entry is shorter than its header says");
  auto* out = static_cast<uint8_t*>(dst);
  if (entry_.method == ZipMethod::Stored) {
    src_.read(entry_.data_offset + pos_, n, out);
  } else {
    size_t done = 0;
    while (done < n) {
      if (stream_end_) fail("compressed data ends early (corrupt)");
      if (z_->avail_in == 0) fill_input();
      const size_t want = std::min<size_t>(n - done, 1u << 30);
      z_->next_out = out + done;
      z_->avail_out = static_cast<uInt>(want);
      const int rc = inflate(z_.get(), Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        stream_end_ = true;
      } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        fail(std::string("corrupt deflate data (") + (z_->msg ? z_->msg : "zlib error") + ")");
      }
      done += want - z_->avail_out;
    }
  }
  if (track_crc_) crc_ = crc32_update(crc_, out, n);
  pos_ += n;
}

void ZipEntryStream::skip(uint64_t n) {
  if (n > entry_.size - pos_) fail("entry is shorter than its header says");
  if (entry_.method == ZipMethod::Stored && !track_crc_) {
    pos_ += n;
    return;
  }
  std::vector<uint8_t> scratch(static_cast<size_t>(std::min<uint64_t>(n, 1 << 18)));
  while (n > 0) {
    const size_t k = static_cast<size_t>(std::min<uint64_t>(n, scratch.size()));
    read(scratch.data(), k);
    n -= k;
  }
}

void ZipEntryStream::verify_end() {
  if (pos_ != entry_.size) fail("entry has unread bytes beyond the array data");
  if (entry_.method == ZipMethod::Deflate && !stream_end_) {
    // All declared bytes are out; the stream must end here too.
    uint8_t extra;
    if (z_->avail_in == 0 && in_pos_ < entry_.compressed_size) fill_input();
    z_->next_out = &extra;
    z_->avail_out = 1;
    const int rc = inflate(z_.get(), Z_NO_FLUSH);
    if (rc != Z_STREAM_END || z_->avail_out == 0) fail("deflate stream does not end where the entry size says (corrupt)");
    stream_end_ = true;
  }
  if (track_crc_ && crc_ != entry_.crc32) fail("CRC-32 mismatch (corrupt data)");
}

}  // namespace fastslow
