#include "fastslow/io/write_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "fastslow/error.h"

namespace fastslow {

namespace {

bool same_file(int fd, const std::string& path) {
  struct stat a {}, b {};
  return ::fstat(fd, &a) == 0 && ::stat(path.c_str(), &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// PATH.tmp, locked and emptied, when no live writer holds it (what a killed
// writer left is taken over); -1 when one does, or it cannot be opened.
int take_over(const std::string& tmp) {
#ifdef __EMSCRIPTEN__
  // Its flock pretends to succeed, so a live writer looks dead: a name of its own.
  (void)tmp;
  return -1;
#endif
  for (int tries = 0; tries < 3; ++tries) {
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) return -1;
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {  // a live writer's
      ::close(fd);
      return -1;
    }
    // Between open and flock its writer may have renamed it into place and
    // let go: only a file still under the temporary name is ours to empty.
    if (same_file(fd, tmp) && ::ftruncate(fd, 0) == 0) return fd;
    ::close(fd);
  }
  return -1;
}

// PATH.tmp.<pid>.<n>: new, so no other writer has it.
int create_unique(const std::string& path, std::string& tmp) {
  static std::atomic<uint64_t> counter{0};
  tmp = path + ".tmp." + std::to_string(static_cast<long long>(::getpid())) + "." + std::to_string(counter++);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd >= 0) ::flock(fd, LOCK_EX);  // as the shared name's writer holds it
  return fd;
}

}  // namespace

TempFile::TempFile(std::string path) : path_(std::move(path)), tmp_(path_ + ".tmp") {
  // The rename would replace whatever PATH is: a device (as root, /dev/full
  // became a zip), a pipe, /dev/stdout's link.
  struct stat st {};
  if (::stat(path_.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    throw Error(path_, "", "exists and is not a regular file (outputs are written whole and renamed into place): "
                           "give the path of a file");
  fd_ = take_over(tmp_);
  if (fd_ < 0) fd_ = create_unique(path_, tmp_);
  if (fd_ < 0) throw Error(path_, "", "cannot open '" + tmp_ + "' for writing: " + std::strerror(errno));
}

TempFile::~TempFile() { discard(); }

void TempFile::write(std::string_view bytes) {
  const char* p = bytes.data();
  size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = ::write(fd_, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      discard();
      throw Error(path_, "", "write to '" + tmp_ + "' failed: " + std::strerror(err));
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
}

void TempFile::commit() {
  if (::rename(tmp_.c_str(), path_.c_str()) != 0) {
    const int err = errno;
    discard();
    throw Error(path_, "", "cannot rename '" + tmp_ + "' into place: " + std::strerror(err));
  }
  ::close(fd_);
  fd_ = -1;
}

void TempFile::discard() {
  if (fd_ < 0) return;
  // Removed while still locked: once let go, the name may be another writer's.
  ::unlink(tmp_.c_str());
  ::close(fd_);
  fd_ = -1;
}

void write_file_atomically(const std::string& path, std::string_view bytes) {
  TempFile t(path);
  t.write(bytes);
  t.commit();
}

void refuse_writing_over(const std::string& out, const std::string& input, const std::string& option) {
  struct stat a {}, b {};
  if (out.empty() || input.empty() || ::stat(out.c_str(), &a) != 0 || ::stat(input.c_str(), &b) != 0) return;
  if (a.st_dev == b.st_dev && a.st_ino == b.st_ino)
    throw Error(out, "", option + " names the input file '" + input + "': writing it would replace the input");
}

}  // namespace fastslow
