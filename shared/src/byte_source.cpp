#include "fastslow/byte_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "fastslow/error.h"

namespace fastslow {

namespace {

class FileSource final : public ByteSource {
 public:
  explicit FileSource(const std::string& path) : ByteSource(path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw Error(path, "", std::string("cannot open: ") + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd_);
      throw Error(path, "", "not a regular file");
    }
    size_ = static_cast<uint64_t>(st.st_size);
  }
  ~FileSource() override { ::close(fd_); }

  uint64_t size() const override { return size_; }

  void read(uint64_t offset, size_t n, void* dst) const override {
    if (offset > size_ || n > size_ - offset)
      throw Error(name(), "", "unexpected end of file (truncated?)");
    auto* p = static_cast<uint8_t*>(dst);
    while (n > 0) {
      // Linux caps one pread at ~2 GB; larger requests loop.
      const size_t chunk = n < (size_t(1) << 30) ? n : (size_t(1) << 30);
      const ssize_t got = ::pread(fd_, p, chunk, static_cast<off_t>(offset));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0)
        throw Error(name(), "", got == 0 ? "unexpected end of file (truncated?)"
                                        : std::string("read failed: ") + std::strerror(errno));
      p += got;
      offset += static_cast<uint64_t>(got);
      n -= static_cast<size_t>(got);
    }
  }

 private:
  int fd_ = -1;
  uint64_t size_ = 0;
};

class MemorySource final : public ByteSource {
 public:
  MemorySource(std::string name, std::vector<uint8_t> bytes)
      : ByteSource(std::move(name)), bytes_(std::move(bytes)) {}

  uint64_t size() const override { return bytes_.size(); }

  void read(uint64_t offset, size_t n, void* dst) const override {
    if (offset > bytes_.size() || n > bytes_.size() - offset)
      throw Error(name(), "", "unexpected end of data (truncated?)");
    if (n) std::memcpy(dst, bytes_.data() + offset, n);
  }

 private:
  std::vector<uint8_t> bytes_;
};

}  // namespace

std::shared_ptr<ByteSource> open_file_source(const std::string& path) {
  return std::make_shared<FileSource>(path);
}

std::shared_ptr<ByteSource> memory_source(std::string name, std::vector<uint8_t> bytes) {
  return std::make_shared<MemorySource>(std::move(name), std::move(bytes));
}

}  // namespace fastslow
