#include "train/ensemble_spec.h"

#include <cmath>
#include <filesystem>

#include "fastslow/error.h"
#include "train/run_dir.h"

namespace fastslow::train {

namespace fs = std::filesystem;

const char* combine_name(Combine c) {
  switch (c) {
    case Combine::Mean: return "mean";
    case Combine::Rank: return "rank";
    case Combine::Weighted: return "weighted";
  }
  return "?";
}

Combine parse_combine(const std::string& name) {
  if (name == "mean") return Combine::Mean;
  if (name == "rank") return Combine::Rank;
  if (name == "weighted") return Combine::Weighted;
  throw Error("--combine: unknown '" + name + "'; choose mean, rank or weighted");
}

bool EnsembleSpec::is_ensemble(const std::string& dir) { return fs::is_regular_file(fs::path(dir) / "ensemble.json"); }

EnsembleSpec EnsembleSpec::read(const std::string& dir) {
  const RunDir d(dir);
  const std::string file = d.file("ensemble.json");
  const nlohmann::json j = d.read_json("ensemble.json");
  EnsembleSpec s;
  try {
    if (j.at("format").get<int>() != kFormatVersion)
      throw Error(file, "format", "unknown format " + j.at("format").dump() + " (this build reads " +
                                      std::to_string(kFormatVersion) + ")");
    s.kind = j.at("kind").get<std::string>();
    s.combine = parse_combine(j.at("combine").get<std::string>());
    for (const auto& m : j.at("members")) {
      EnsembleMember e;
      const fs::path run(m.at("run").get<std::string>());
      e.run = (run.is_absolute() ? run : fs::path(dir) / run).lexically_normal().string();
      e.weight = m.at("weight").get<double>();
      e.scale = m.at("scale").get<double>();
      e.valid_score = m.contains("valid_score") && m["valid_score"].is_number() ? m["valid_score"].get<double>() : NAN;
      s.members.push_back(std::move(e));
    }
    if (j.contains("fitted_on")) s.fitted_on = j["fitted_on"];
  } catch (const nlohmann::json::exception& e) {
    throw Error(file, "", std::string("malformed ensemble: ") + e.what());
  }
  if (s.kind != "tile" && s.kind != "layout") throw Error(file, "kind", "must be tile or layout, not " + s.kind);
  if (s.members.empty()) throw Error(file, "members", "lists no member runs");
  double sum = 0;
  for (const EnsembleMember& m : s.members) {
    if (!(m.weight >= 0) || !std::isfinite(m.weight)) throw Error(file, "weight", "member " + m.run + " has a negative or non-finite weight");
    if (!(m.scale > 0) || !std::isfinite(m.scale)) throw Error(file, "scale", "member " + m.run + " has a scale that is not positive");
    sum += m.weight;
  }
  if (std::abs(sum - 1) > 1e-6) throw Error(file, "weight", "member weights sum to " + std::to_string(sum) + ", not 1");
  return s;
}

void EnsembleSpec::write(const std::string& dir) const {
  nlohmann::json members = nlohmann::json::array();
  const fs::path base = fs::absolute(dir);
  for (const EnsembleMember& m : this->members) {
    const fs::path run = fs::absolute(m.run);
    members.push_back({{"run", run.lexically_relative(base).string()},
                       {"weight", m.weight},
                       {"scale", m.scale},
                       {"valid_score", std::isfinite(m.valid_score) ? nlohmann::json(m.valid_score) : nlohmann::json(nullptr)}});
  }
  RunDir(dir).create();
  RunDir(dir).write_json("ensemble.json", {{"format", kFormatVersion},
                                            {"kind", kind},
                                            {"combine", combine_name(combine)},
                                            {"members", members},
                                            {"fitted_on", fitted_on}});
}

}  // namespace fastslow::train
