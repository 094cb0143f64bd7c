// PNG files of what the native explorer drew (screenshots): 8-bit RGBA,
// one zlib stream, written atomically. Natively only (zlib).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fastslow::explorer {

// `rgba` holds height rows of width x 4 bytes, top row first. Throws Error
// naming `path` when it cannot be written.
void write_png(const std::string& path, int width, int height, const std::vector<uint8_t>& rgba);

}  // namespace fastslow::explorer
