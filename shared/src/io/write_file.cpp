#include "fastslow/io/write_file.h"

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>

#include "fastslow/error.h"

namespace fastslow {

std::string temp_path_for(const std::string& path) {
  static std::atomic<uint64_t> counter{0};
  return path + ".tmp." + std::to_string(static_cast<long long>(::getpid())) + "." + std::to_string(counter++);
}

void write_file_atomically(const std::string& path, std::string_view bytes) {
  const std::string tmp = temp_path_for(path);
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) throw Error(path, "", "cannot open '" + tmp + "' for writing");
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    f.close();
    if (!f) {
      std::error_code ignored;
      std::filesystem::remove(tmp, ignored);
      throw Error(path, "", "write to '" + tmp + "' failed");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    throw Error(path, "", "cannot rename '" + tmp + "' into place: " + ec.message());
  }
}

}  // namespace fastslow
