#include "fastslow/io/npz_writer.h"

#include <zlib.h>

#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "fastslow/error.h"
#include "fastslow/io/write_file.h"
#include "fastslow/io/zip.h"

namespace fastslow {

namespace {

constexpr uint32_t k32 = 0xffffffff;
// 1980-01-01 00:00, the zip epoch: a fixed stamp keeps output reproducible.
constexpr uint16_t kDosTime = 0, kDosDate = (0 << 9) | (1 << 5) | 1;

void put16(std::string& s, uint16_t v) {
  s += static_cast<char>(v & 0xff);
  s += static_cast<char>(v >> 8);
}
void put32(std::string& s, uint32_t v) {
  put16(s, static_cast<uint16_t>(v & 0xffff));
  put16(s, static_cast<uint16_t>(v >> 16));
}
void put64(std::string& s, uint64_t v) {
  put32(s, static_cast<uint32_t>(v & k32));
  put32(s, static_cast<uint32_t>(v >> 32));
}

}  // namespace

// Where bytes go: a FILE* or a growing buffer; both can patch a local header
// once its sizes and CRC are known.
struct NpzWriter::Sink {
  std::FILE* f = nullptr;
  std::vector<uint8_t> mem;
  uint64_t pos = 0;
  std::string name;

  void write(const void* p, size_t n) {
    if (f) {
      if (std::fwrite(p, 1, n, f) != n) throw Error(name, "", std::string("write failed: ") + std::strerror(errno));
    } else {
      const auto* b = static_cast<const uint8_t*>(p);
      mem.insert(mem.end(), b, b + n);
    }
    pos += n;
  }
  void write(const std::string& s) { write(s.data(), s.size()); }
  // Room for `n` more bytes in memory at once, plus a little for the small
  // entries and the directory that follow: appending a large array to a
  // doubling buffer would hold it three times over while it grows.
  void reserve(uint64_t n) {
    constexpr uint64_t kTail = 64 * 1024;
    if (!f && mem.capacity() < mem.size() + n) mem.reserve(static_cast<size_t>(mem.size() + n + kTail));
  }
  void patch(uint64_t at, const std::string& s) {
    if (f) {
      if (fseeko(f, static_cast<off_t>(at), SEEK_SET) != 0 || std::fwrite(s.data(), 1, s.size(), f) != s.size() ||
          fseeko(f, 0, SEEK_END) != 0)
        throw Error(name, "", std::string("write failed: ") + std::strerror(errno));
    } else {
      std::memcpy(mem.data() + at, s.data(), s.size());
    }
  }
};

NpzWriter::NpzWriter(const std::string& path, Compression compression)
    : path_(path), compression_(compression), sink_(std::make_unique<Sink>()) {
  sink_->name = path;
  temp_ = std::make_unique<TempFile>(path);
  // A stream of its own over the temporary file: closing it leaves the
  // TempFile's descriptor, and with it the lock, until the rename.
#ifdef __EMSCRIPTEN__
  // Emscripten 3.1.6's file systems fail dup + fdopen here ("File exists"):
  // the stream opens the temporary name itself, a name of this writer's own
  // there (write_file.cpp).
  errno = 0;
  sink_->f = std::fopen(temp_->temp_path().c_str(), "wb");
  if (!sink_->f) throw Error(path, "", std::string("cannot create: ") + std::strerror(errno));
#else
  const int fd = ::dup(temp_->fd());
  sink_->f = fd < 0 ? nullptr : ::fdopen(fd, "wb");
  if (!sink_->f) {
    if (fd >= 0) ::close(fd);
    throw Error(path, "", std::string("cannot create: ") + std::strerror(errno));
  }
#endif
}

NpzWriter::NpzWriter(Compression compression)
    : compression_(compression), sink_(std::make_unique<Sink>()) {
  sink_->name = "<memory>";
}

NpzWriter::~NpzWriter() {
  if (sink_->f) std::fclose(sink_->f);  // the TempFile, unless committed, is removed after
}

void NpzWriter::add(const std::string& name, const NpyArray& a) {
  add(name, a.dtype(), a.shape(), a.data());
}

void NpzWriter::add(const std::string& name, DType dtype, const std::vector<int64_t>& shape,
                    const void* data) {
  if (closed_) throw Error(sink_->name, name, "archive already closed");
  if (!names_.insert(name).second) throw Error(sink_->name, name, "array added twice");
  const std::string header = make_npy_header(dtype, shape);
  uint64_t nbytes = dtype_size(dtype);
  for (int64_t d : shape) nbytes *= static_cast<uint64_t>(d);

  Written w{name + ".npy", 0, 0, header.size() + nbytes, sink_->pos};
  // Local header with a zip64 extra field always present, as numpy writes it:
  // sizes are unknown until the data is written and patched in afterwards.
  std::string local;
  put32(local, 0x04034b50);
  put16(local, 45);
  put16(local, 0);
  put16(local, compression_ == Compression::Deflate ? 8 : 0);
  put16(local, kDosTime);
  put16(local, kDosDate);
  put32(local, 0);
  put32(local, k32);
  put32(local, k32);
  put16(local, static_cast<uint16_t>(w.name.size()));
  put16(local, 20);
  local += w.name;
  const uint64_t extra_at = w.offset + local.size();
  put16(local, 0x0001);
  put16(local, 16);
  put64(local, 0);
  put64(local, 0);
  sink_->write(local);

  const uint64_t data_start = sink_->pos;
  uint32_t crc = crc32_update(0, header.data(), header.size());
  crc = crc32_update(crc, data, static_cast<size_t>(nbytes));
  if (compression_ == Compression::Stored) {
    sink_->reserve(header.size() + nbytes);
    sink_->write(header);
    sink_->write(data, static_cast<size_t>(nbytes));
  } else {
    z_stream z{};
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
      throw Error(sink_->name, name, "zlib deflateInit failed");
    std::vector<uint8_t> out(1 << 18);
    auto pump = [&](const void* p, uint64_t n, bool last) {
      z.next_in = const_cast<Bytef*>(static_cast<const Bytef*>(p));
      while (true) {
        const uInt chunk = static_cast<uInt>(std::min<uint64_t>(n, 1u << 30));
        z.avail_in = chunk;
        const bool final_chunk = last && chunk == n;
        int rc;
        do {
          z.next_out = out.data();
          z.avail_out = static_cast<uInt>(out.size());
          rc = deflate(&z, final_chunk ? Z_FINISH : Z_NO_FLUSH);
          sink_->write(out.data(), out.size() - z.avail_out);
        } while (z.avail_out == 0 || (final_chunk && rc != Z_STREAM_END));
        n -= chunk;
        if (n == 0) break;
      }
    };
    try {
      pump(header.data(), header.size(), false);
      pump(data, nbytes, true);
    } catch (...) {
      deflateEnd(&z);
      throw;
    }
    deflateEnd(&z);
  }
  w.crc = crc;
  w.csize = sink_->pos - data_start;

  std::string crc_and_sizes;
  put32(crc_and_sizes, crc);
  sink_->patch(w.offset + 14, crc_and_sizes);
  std::string extra;
  put64(extra, w.size);
  put64(extra, w.csize);
  sink_->patch(extra_at + 4, extra);
  written_.push_back(std::move(w));
}

void NpzWriter::write_central_directory() {
  const uint64_t cd_offset = sink_->pos;
  for (const Written& w : written_) {
    const bool big_size = w.size >= k32, big_csize = w.csize >= k32, big_off = w.offset >= k32;
    std::string extra;
    if (big_size || big_csize || big_off) {
      std::string fields;
      if (big_size) put64(fields, w.size);
      if (big_csize) put64(fields, w.csize);
      if (big_off) put64(fields, w.offset);
      put16(extra, 0x0001);
      put16(extra, static_cast<uint16_t>(fields.size()));
      extra += fields;
    }
    std::string c;
    put32(c, 0x02014b50);
    put16(c, (3 << 8) | 45);  // made by: Unix, spec 4.5
    put16(c, 45);
    put16(c, 0);
    put16(c, compression_ == Compression::Deflate ? 8 : 0);
    put16(c, kDosTime);
    put16(c, kDosDate);
    put32(c, w.crc);
    put32(c, big_csize ? k32 : static_cast<uint32_t>(w.csize));
    put32(c, big_size ? k32 : static_cast<uint32_t>(w.size));
    put16(c, static_cast<uint16_t>(w.name.size()));
    put16(c, static_cast<uint16_t>(extra.size()));
    put16(c, 0);
    put16(c, 0);
    put16(c, 0);
    put32(c, 0600u << 16);  // rw------- regular file, as Python's zipfile
    put32(c, big_off ? k32 : static_cast<uint32_t>(w.offset));
    c += w.name;
    c += extra;
    sink_->write(c);
  }
  const uint64_t cd_size = sink_->pos - cd_offset;
  const uint64_t n = written_.size();
  const bool zip64 = n >= 0xffff || cd_size >= k32 || cd_offset >= k32;
  std::string e;
  if (zip64) {
    const uint64_t rec_at = sink_->pos;
    put32(e, 0x06064b50);
    put64(e, 44);
    put16(e, 45);
    put16(e, 45);
    put32(e, 0);
    put32(e, 0);
    put64(e, n);
    put64(e, n);
    put64(e, cd_size);
    put64(e, cd_offset);
    put32(e, 0x07064b50);
    put32(e, 0);
    put64(e, rec_at);
    put32(e, 1);
  }
  put32(e, 0x06054b50);
  put16(e, 0);
  put16(e, 0);
  put16(e, zip64 ? 0xffff : static_cast<uint16_t>(n));
  put16(e, zip64 ? 0xffff : static_cast<uint16_t>(n));
  put32(e, zip64 ? k32 : static_cast<uint32_t>(cd_size));
  put32(e, zip64 ? k32 : static_cast<uint32_t>(cd_offset));
  put16(e, 0);
  sink_->write(e);
}

void NpzWriter::close() {
  if (closed_) return;
  write_central_directory();
  closed_ = true;
  if (sink_->f) {
    const bool ok = std::fclose(sink_->f) == 0;
    sink_->f = nullptr;
    if (!ok) {
      const int err = errno;
      temp_->discard();
      throw Error(path_, "", std::string("cannot finish writing: ") + std::strerror(err));
    }
    temp_->commit();
  }
}

std::vector<uint8_t> NpzWriter::close_to_memory() {
  if (sink_->f) throw Error(path_, "", "close_to_memory() on a file writer");
  close();
  return std::move(sink_->mem);
}

}  // namespace fastslow
