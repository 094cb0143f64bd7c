#include "fastslow/io/byte_source.h"

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
    if (path.empty()) throw Error("(an empty path)", "", "names no file");
    // Non-blocking: opening a named pipe would otherwise wait for a writer
    // forever; it is refused below like any file that is not regular.
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
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

class MemoryView : public ByteSource {
 public:
  MemoryView(std::string name, const uint8_t* data, size_t size)
      : ByteSource(std::move(name)), data_(data), size_(size) {}

  uint64_t size() const override { return size_; }

  void read(uint64_t offset, size_t n, void* dst) const override {
    if (offset > size_ || n > size_ - offset) throw Error(name(), "", "unexpected end of data (truncated?)");
    if (n) std::memcpy(dst, data_ + offset, n);
  }

 protected:
  void reset(const uint8_t* data, size_t size) {
    data_ = data;
    size_ = size;
  }

 private:
  const uint8_t* data_;
  size_t size_;
};

class MemorySource final : public MemoryView {
 public:
  MemorySource(std::string name, std::vector<uint8_t> bytes)
      : MemoryView(std::move(name), nullptr, 0), bytes_(std::move(bytes)) {
    reset(bytes_.data(), bytes_.size());
  }

 private:
  std::vector<uint8_t> bytes_;
};

}  // namespace

std::shared_ptr<ByteSource> memory_view_source(std::string name, const uint8_t* bytes, size_t size) {
  return std::make_shared<MemoryView>(std::move(name), bytes, size);
}

std::shared_ptr<ByteSource> open_file_source(const std::string& path) {
  return std::make_shared<FileSource>(path);
}

std::shared_ptr<ByteSource> memory_source(std::string name, std::vector<uint8_t> bytes) {
  return std::make_shared<MemorySource>(std::move(name), std::move(bytes));
}

}  // namespace fastslow
