#include "fastslow/io/remove_tree.h"

#include <sys/stat.h>

#include <cstdio>
#include <system_error>

#ifdef __EMSCRIPTEN__
#include <filesystem>
#else
#include <ftw.h>
#endif

namespace fastslow {

bool remove_tree(const std::string& path) {
#ifdef __EMSCRIPTEN__
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
#else
  // Children before their folder (FTW_DEPTH), links removed, not followed (FTW_PHYS).
  ::nftw(path.c_str(), [](const char* p, const struct stat*, int, struct FTW*) {
    ::remove(p);  // on failure go on: what remains makes the result false
    return 0;
  }, 16,
         FTW_DEPTH | FTW_PHYS);
#endif
  struct stat st;
  return ::lstat(path.c_str(), &st) != 0;
}

}  // namespace fastslow
