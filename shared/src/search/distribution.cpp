#include "fastslow/search/distribution.h"

#include "fastslow/error.h"

namespace fastslow::search {

nlohmann::json Distribution::to_json() const {
  if (kind == ParamKind::Categorical) return {{"type", "categorical"}, {"choices", choices}};
  if (kind == ParamKind::Int)
    return {{"type", "int"}, {"low", static_cast<int64_t>(low)}, {"high", static_cast<int64_t>(high)}, {"log", log}};
  return {{"type", "float"}, {"low", low}, {"high", high}, {"log", log}};
}

Distribution Distribution::from_json(const nlohmann::json& j, const std::string& what) {
  Distribution d;
  if (!j.is_object() || !j.contains("type") || !j.at("type").is_string())
    throw Error(what, "", "a distribution is {\"type\": \"categorical\" | \"int\" | \"float\", ...}");
  const std::string type = j.at("type").get<std::string>();
  if (type == "categorical") {
    d.kind = ParamKind::Categorical;
    if (!j.contains("choices") || !j.at("choices").is_array() || j.at("choices").empty())
      throw Error(what, "", "a categorical distribution needs its choices");
    d.choices.assign(j.at("choices").begin(), j.at("choices").end());
    return d;
  }
  if (type != "int" && type != "float")
    throw Error(what, "", "distribution type must be categorical, int or float, got \"" + type + "\"");
  d.kind = type == "int" ? ParamKind::Int : ParamKind::Float;
  for (const char* key : {"low", "high"})
    if (!j.contains(key) || !j.at(key).is_number()) throw Error(what, "", std::string("distribution: ") + key + " must be a number");
  d.low = j.at("low").get<double>();
  d.high = j.at("high").get<double>();
  if (j.contains("log")) {
    if (!j.at("log").is_boolean()) throw Error(what, "", "distribution: log must be true or false");
    d.log = j.at("log").get<bool>();
  }
  if (!(d.low <= d.high)) throw Error(what, "", "distribution: low must not be above high");
  if (d.log && d.low <= 0) throw Error(what, "", "distribution: a log range needs low > 0");
  return d;
}

}  // namespace fastslow::search
