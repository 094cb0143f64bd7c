// C entry points of the core for JavaScript. Strings cross as malloc'd UTF-8
// that JS frees with fastslow_free_string; errors come back as JSON
// {"error": ...} because an exception cannot cross into JS with its message.
#include <emscripten/emscripten.h>

#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>

#include "fastslow/error.h"
#include "fastslow/graph_info.h"

namespace {

char* to_c(const std::string& s) {
  char* p = static_cast<char*>(std::malloc(s.size() + 1));
  if (p) std::memcpy(p, s.c_str(), s.size() + 1);
  return p;
}

std::string error_json(const std::string& message) { return nlohmann::json{{"error", message}}.dump(); }

}  // namespace

extern "C" {

// Describes an npz held in memory (the bytes of a file the user opened).
EMSCRIPTEN_KEEPALIVE char* fastslow_info_json(const uint8_t* bytes, size_t size, const char* name) {
  try {
    const fastslow::NpzReader npz(fastslow::memory_view_source(name ? name : "file.npz", bytes, size));
    return to_c(fastslow::graph_info_json(fastslow::graph_info(npz), -1));
  } catch (const std::exception& e) {
    return to_c(error_json(e.what()));
  }
}

EMSCRIPTEN_KEEPALIVE void fastslow_free_string(char* s) { std::free(s); }

}
