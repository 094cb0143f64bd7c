// Writing a whole file so that readers never see half of it: the bytes go to
// a temporary file beside PATH, which is renamed over PATH once complete.
// Interrupted writers leave the old file (or none), never a truncated one.
// The temporary name is unique per process and writer, so two runs that
// build the same file at once (two trainings sharing a cache) do not
// write into each other's half-done file; the last rename wins.
#pragma once

#include <string>
#include <string_view>

namespace fastslow {

// PATH.tmp.<pid>.<n>: where a writer of PATH puts its bytes.
std::string temp_path_for(const std::string& path);

// Throws Error naming `path` when the file cannot be written or renamed.
void write_file_atomically(const std::string& path, std::string_view bytes);

}  // namespace fastslow
