#include "fastslow/io/read_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "fastslow/error.h"
#include "fastslow/io/memory_budget.h"

namespace fastslow {

std::string read_whole_file(const std::string& path, const std::string& cannot_open) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(path, "", cannot_open);
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) throw Error(path, "", cannot_open + " (a directory)");
  std::string out;
  // A regular file's size is known before reading; a pipe's is checked as it grows.
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    const uint64_t size = static_cast<uint64_t>(st.st_size);
    check_memory_budget(size, path, "", "is " + format_bytes(size));
    out.reserve(static_cast<size_t>(size));
  }
  char buf[1 << 16];
  while (true) {
    const ssize_t got = ::read(fd, buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw Error(path, "", std::string("read failed: ") + std::strerror(errno));
    if (got == 0) break;
    check_memory_budget(out.size() + static_cast<uint64_t>(got), path, "",
                        "holds more than " + format_bytes(out.size()));
    out.append(buf, static_cast<size_t>(got));
  }
  return out;
}

}  // namespace fastslow
