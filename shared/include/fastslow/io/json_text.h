// Reading JSON text the core was handed (model cards, training-data
// profiles, normalisation statistics): a parse error becomes the core's
// Error naming the file, in one place.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace fastslow {

// Throws Error(what, "", problem + ": " + the parser's message), e.g.
// problem "not a JSON model card".
nlohmann::json parse_json_text(const std::string& text, const std::string& what, const std::string& problem);

}  // namespace fastslow
