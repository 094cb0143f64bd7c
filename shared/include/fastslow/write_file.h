// Writing a whole file so that readers never see half of it: the bytes go to
// PATH.tmp, which is renamed over PATH once complete. Interrupted writers
// leave the old file (or none), never a truncated one.
#pragma once

#include <string>
#include <string_view>

namespace fastslow {

// Throws Error naming `path` when the file cannot be written or renamed.
void write_file_atomically(const std::string& path, std::string_view bytes);

}  // namespace fastslow
