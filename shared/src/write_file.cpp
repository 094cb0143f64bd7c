#include "fastslow/write_file.h"

#include <filesystem>
#include <fstream>

#include "fastslow/error.h"

namespace fastslow {

void write_file_atomically(const std::string& path, std::string_view bytes) {
  const std::string tmp = path + ".tmp";
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
