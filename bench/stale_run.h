// Benchmarks keep the runs they train and reuse them on the next call. A
// run is reused only if it began after this benchmark's binary was built:
// the binary links the trainer, so a rebuilt trainer (a changed default, a
// new fit) trains again, and no table prints an older build's figure as
// this one's.
#pragma once

#include <filesystem>
#include <system_error>

namespace fastslow::bench {

// True when `file` (a run's config.json) is older than the running binary.
inline bool older_than_this_build(const std::filesystem::path& file) {
  std::error_code ec;
  const auto built = std::filesystem::last_write_time("/proc/self/exe", ec);
  if (ec) return false;  // no /proc: keep what is there
  const auto made = std::filesystem::last_write_time(file, ec);
  return !ec && made < built;
}

}  // namespace fastslow::bench
