// Returning strings to JS (js_api.h's conventions): malloc'd UTF-8 that JS
// frees with fastslow_free_string, and errors as {"error": message}, since
// an exception cannot cross into JS with its message.
#pragma once

#include <cstdlib>
#include <cstring>
#include <exception>
#include <nlohmann/json.hpp>
#include <string>

namespace fastslow::wasm {

inline char* to_c(const std::string& s) {
  char* p = static_cast<char*>(std::malloc(s.size() + 1));
  if (p) std::memcpy(p, s.c_str(), s.size() + 1);
  return p;
}

// JSON text for JS. Strings from a user's file (an error quoting its bytes,
// an archive's entry names) need not be UTF-8: invalid bytes become U+FFFD
// rather than a json::type_error, which would leave the caller with no
// answer at all (explorer_open's error) or the page with no state.
inline std::string json_text(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

inline std::string error_json(const std::string& message) { return json_text(nlohmann::json{{"error", message}}); }

// Runs `f` (returning the JSON text to hand back) for an entry point: its
// result, or {"error": ...} for whatever it threw, so no exception reaches JS.
template <class F>
char* guarded(F&& f) {
  try {
    return to_c(f());
  } catch (const std::exception& e) {
    return to_c(error_json(e.what()));
  } catch (...) {
    return to_c(error_json("internal error (not a std::exception)"));
  }
}

}  // namespace fastslow::wasm
