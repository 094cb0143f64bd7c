#include "train/run_files.h"

#include <filesystem>
#include <sstream>
#include <string>

#include "fastslow/error.h"
#include "fastslow/io/json_text.h"
#include "fastslow/io/read_file.h"
#include "fastslow/io/write_file.h"

namespace fastslow::train {

namespace fs = std::filesystem;

namespace {

// The comma-separated roots of --data, one by one.
template <class F>
std::string map_list(const std::string& list, F&& f) {
  std::string out, item;
  std::istringstream in(list);
  while (std::getline(in, item, ',')) out += (out.empty() ? "" : ",") + f(item);
  return out;
}

std::string relative_to(const std::string& path, const std::string& base) {
  if (path.empty()) return "";
  std::error_code ec;
  const fs::path r = fs::relative(fs::absolute(path, ec), fs::absolute(base, ec), ec);
  return ec ? std::string() : r.generic_string();
}

// A stored input path where it is, else where the run folder's relative
// copy points (the run and its data moved together), else as stored (the
// reader names it in its error).
std::string locate(const std::string& stored, const std::string& relative, const std::string& run) {
  if (stored.empty() || fs::exists(stored) || relative.empty()) return stored;
  const fs::path moved = (fs::path(run) / relative).lexically_normal();
  return fs::exists(moved) ? moved.string() : stored;
}

}  // namespace

void write_config(const RunDir& run, const TrainOptions& o) {
  nlohmann::json j = o.to_json();
  // Beside the absolute paths, the same paths from the run folder: a moved
  // project (runs and data together) still resolves.
  j["inputs_from_run"] = {
      {"data", map_list(o.data, [&](const std::string& d) { return relative_to(d, run.path()); })},
      {"graph", relative_to(o.graph, run.path())},
      {"cache", relative_to(o.cache, run.path())}};
  run.write_json("config.json", j);
}

TrainOptions read_config(const RunDir& run) {
  const std::string what = run.file("config.json");
  const nlohmann::json j = run.read_json("config.json");
  TrainOptions o = TrainOptions::from_json(j, what);
  o.out = run.path();
  o.require_resolved(what);
  if (j.contains("inputs_from_run") && j.at("inputs_from_run").is_object()) {
    const nlohmann::json& rel = j.at("inputs_from_run");
    const auto get = [&](const char* key) { return rel.value(key, std::string()); };
    // Roots of --data pair with their relative copies by position.
    std::istringstream rels(get("data"));
    o.data = map_list(o.data, [&](const std::string& d) {
      std::string r;
      std::getline(rels, r, ',');
      return locate(d, r, run.path());
    });
    o.graph = locate(o.graph, get("graph"), run.path());
    o.cache = locate(o.cache, get("cache"), run.path());
  }
  return o;
}

void write_stats(const RunDir& run, const Normalizer& norm) { run.write_json("stats.json", norm.to_json()); }

Normalizer read_stats(const RunDir& run) {
  return Normalizer::from_json(run.read_json("stats.json"), run.file("stats.json"));
}

void append_log(const RunDir& run, const nlohmann::json& line) {
  if (!run.writer()) return;
  const std::string before = run.has("log.jsonl") ? read_whole_file(run.file("log.jsonl")) : "";
  write_file_atomically(run.file("log.jsonl"), before + line.dump() + "\n");
}

std::vector<nlohmann::json> read_log(const RunDir& run) {
  std::vector<nlohmann::json> lines;
  if (!run.has("log.jsonl")) return lines;
  const std::string text = read_whole_file(run.file("log.jsonl"));
  std::istringstream in(text);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty()) continue;
    lines.push_back(parse_json_text(line, run.file("log.jsonl") + ":" + std::to_string(n), "malformed log line"));
  }
  return lines;
}

void drop_log_from(const RunDir& run, int64_t epoch) {
  if (!run.writer() || !run.has("log.jsonl")) return;
  std::string kept;
  for (const nlohmann::json& line : read_log(run))
    if (line.value("epoch", int64_t{0}) < epoch) kept += line.dump() + "\n";
  write_file_atomically(run.file("log.jsonl"), kept);
}

void write_state(const RunDir& run, const nlohmann::json& state) { run.write_json("state.json", state); }

std::optional<nlohmann::json> saved_state(const RunDir& run) {
  if (run.has("last.pt"))
    if (std::optional<nlohmann::json> s = run.checkpoint_state("last.pt")) return s;
  if (run.has("state.json")) return run.read_json("state.json");
  return std::nullopt;
}

void write_metrics(const RunDir& run, const nlohmann::json& metrics) { run.write_json("metrics.json", metrics); }

std::optional<nlohmann::json> read_metrics(const RunDir& run) {
  if (!run.has("metrics.json")) return std::nullopt;
  return run.read_json("metrics.json");
}

void write_profile(const RunDir& run, const nlohmann::json& profile) { run.write_json("profile.json", profile); }

std::optional<nlohmann::json> read_profile(const RunDir& run) {
  if (!run.has("profile.json")) return std::nullopt;
  return run.read_json("profile.json");
}

}  // namespace fastslow::train
