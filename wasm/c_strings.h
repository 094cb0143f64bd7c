// Strings for JS: malloc'd UTF-8 (JS frees it with the module's free
// function) and errors as {"error": message}, since an exception cannot
// cross into JS with its message.
#pragma once

#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>

namespace fastslow::wasm {

inline char* to_c(const std::string& s) {
  char* p = static_cast<char*>(std::malloc(s.size() + 1));
  if (p) std::memcpy(p, s.c_str(), s.size() + 1);
  return p;
}

inline std::string error_json(const std::string& message) { return nlohmann::json{{"error", message}}.dump(); }

}  // namespace fastslow::wasm
