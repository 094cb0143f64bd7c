#include "fastslow/io/json_text.h"

#include "fastslow/error.h"

namespace fastslow {

nlohmann::json parse_json_text(const std::string& text, const std::string& what, const std::string& problem) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(what, "", problem + ": " + e.what());
  }
}

}  // namespace fastslow
