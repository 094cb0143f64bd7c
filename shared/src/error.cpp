#include "fastslow/error.h"

#include <cstdint>

namespace fastslow {

namespace {

// Length of the well-formed UTF-8 sequence at s[i] (Unicode's table 3-7),
// or 0 where the bytes are not one.
size_t utf8_length(const std::string& s, size_t i) {
  const auto at = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
  const uint8_t b = at(i);
  size_t n = 0;
  uint8_t lo = 0x80, hi = 0xbf;  // the second byte's range
  if (b >= 0xc2 && b <= 0xdf) {
    n = 2;
  } else if (b >= 0xe0 && b <= 0xef) {
    n = 3;
    if (b == 0xe0) lo = 0xa0;
    if (b == 0xed) hi = 0x9f;  // no surrogates
  } else if (b >= 0xf0 && b <= 0xf4) {
    n = 4;
    if (b == 0xf0) lo = 0x90;
    if (b == 0xf4) hi = 0x8f;
  } else {
    return 0;
  }
  if (i + n > s.size() || at(i + 1) < lo || at(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k)
    if (at(i + k) < 0x80 || at(i + k) > 0xbf) return 0;
  return n;
}

// The message as shown: the file's own bytes it may quote (a header's text,
// an entry's name) are not necessarily text, so bytes that are not UTF-8 and
// control characters other than newline and tab are written as \xNN. The
// page's JSON, a terminal and a log all get readable, valid text.
std::string printable(const std::string& s) {
  static const char* const kHex = "0123456789abcdef";
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const auto b = static_cast<uint8_t>(s[i]);
    if (b >= 0x80) {
      if (const size_t n = utf8_length(s, i)) {
        out.append(s, i, n);
        i += n;
        continue;
      }
    } else if (b >= 0x20 ? b != 0x7f : b == '\n' || b == '\t') {
      out += static_cast<char>(b);
      ++i;
      continue;
    }
    out += "\\x";
    out += kHex[b >> 4];
    out += kHex[b & 15];
    ++i;
  }
  return out;
}

std::string compose(const std::string& file, const std::string& array, const std::string& problem) {
  std::string s;
  if (!file.empty()) s += file + ": ";
  if (!array.empty()) s += "array '" + array + "': ";
  return printable(s + problem);
}

}  // namespace

Error::Error(std::string file, std::string array, std::string problem)
    : std::runtime_error(compose(file, array, problem)),
      file_(std::move(file)),
      array_(std::move(array)),
      problem_(std::move(problem)) {}

}  // namespace fastslow
