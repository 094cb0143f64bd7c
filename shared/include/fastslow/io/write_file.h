// Writing a whole file so that readers never see half of it: the bytes go to
// a temporary file beside PATH, which is renamed over PATH once complete.
// Interrupted writers leave the old file (or none), never a truncated one.
//
// Nothing is synced to disk (no fsync): a file survives its process dying
// at any moment (SIGKILL, a crash), not the machine losing power.
//
// The temporary file is PATH.tmp, locked (flock) by its writer until it is
// renamed. A writer killed on the way leaves PATH.tmp behind unlocked, and
// the next writer of PATH takes it over, so leftovers never pile up (a
// cache file can be hundreds of MB). While another
// live writer holds PATH.tmp (two runs building the same cache file at once)
// a writer uses PATH.tmp.<pid>.<n> instead, so neither writes into the
// other's half-done file; the last rename wins.
#pragma once

#include <string>
#include <string_view>

namespace fastslow {

class TempFile {
 public:
  // Opens (creates, or takes over and empties) the temporary file of PATH.
  // Throws Error naming `path` when it cannot.
  explicit TempFile(std::string path);
  ~TempFile();  // discards it unless committed
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  int fd() const { return fd_; }
  const std::string& temp_path() const { return tmp_; }
  // Writes all of `bytes` at the current offset; throws Error on failure.
  void write(std::string_view bytes);
  // Renames it over PATH, then closes it (renamed while still locked: no
  // other writer can take the name over in between). Throws Error naming
  // PATH when the rename fails, and discards it.
  void commit();
  // Closes and removes the temporary file.
  void discard();

 private:
  std::string path_, tmp_;
  int fd_ = -1;
};

// Throws Error naming `path` when the file cannot be written or renamed.
void write_file_atomically(const std::string& path, std::string_view bytes);

// Error naming `out` when it is the same file as `input` (a link or another
// spelling included): a command asked to write over what it reads would
// replace its own input. Nothing when either does not exist.
void refuse_writing_over(const std::string& out, const std::string& input, const std::string& option);

}  // namespace fastslow
