// Random-access bytes of an archive: a file read with pread (natively, so a
// 1 GB npz is never loaded whole), or a memory buffer (in the browser, where
// a dropped file arrives as an ArrayBuffer).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fastslow {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual uint64_t size() const = 0;
  // Reads exactly n bytes at offset or throws fastslow::Error naming the source.
  // Safe to call from several threads at once.
  virtual void read(uint64_t offset, size_t n, void* dst) const = 0;
  const std::string& name() const { return name_; }

 protected:
  explicit ByteSource(std::string name) : name_(std::move(name)) {}

 private:
  std::string name_;
};

std::shared_ptr<ByteSource> open_file_source(const std::string& path);
std::shared_ptr<ByteSource> memory_source(std::string name, std::vector<uint8_t> bytes);
// Non-owning: the caller keeps `bytes` alive as long as the source (and any
// reader on it). Lets the browser read a file's buffer without a second copy.
std::shared_ptr<ByteSource> memory_view_source(std::string name, const uint8_t* bytes, size_t size);

}  // namespace fastslow
