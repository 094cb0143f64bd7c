#include "fastslow/data/data_profile.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <type_traits>
#include <nlohmann/json.hpp>

#include "fastslow/error.h"
#include "fastslow/io/json_text.h"
#include "fastslow/data/graph_cache.h"
#include "fastslow/graph/hlo_tables.h"
#include "fastslow/graph/prune.h"
#include "fastslow/graph/validate.h"

namespace fastslow {

namespace {

// Layout values seen are kept as flags for -1 .. kMaxLayoutValue; anything
// else is "never seen" by construction.
constexpr int kMaxLayoutValue = 62;

std::string thousands(int64_t v) {
  std::string s = std::to_string(v < 0 ? -v : v);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return v < 0 ? "-" + s : s;
}

std::string percent(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, share < 0.1 ? "%.1f%%" : "%.0f%%", share * 100);
  return buf;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string node_column(int64_t c, int64_t width) {
  const auto& names = node_feature_names();
  if (width == static_cast<int64_t>(names.size())) return names[static_cast<size_t>(c)];
  return "node column " + std::to_string(c);
}

std::string config_column(GraphKind kind, int64_t c, int64_t width) {
  const auto& names = config_feature_names(kind);
  if (width == static_cast<int64_t>(names.size())) return names[static_cast<size_t>(c)];
  return "config column " + std::to_string(c);
}

// Size-like columns (non-negative, maximum over 10: the ones the models
// log-scale) are outside beyond half the minimum or twice the maximum, the
// rest beyond a tenth of their range: a model trained on 256-wide tensors
// ranks 512-wide ones well (generated valid Kendall 0.95), a new value of a
// column constant in training is new to it.
bool outside(float v, float lo, float hi) {
  if (lo >= 0 && hi > 10) return v < 0.5 * lo || v > 2.0 * hi;
  const double tol = 0.1 * (static_cast<double>(hi) - lo);
  return v < lo - tol || v > hi + tol;
}

const nlohmann::json& need(const nlohmann::json& j, const char* key, const std::string& what) {
  if (!j.is_object() || !j.contains(key)) throw Error(what, "", std::string("training-data profile has no \"") + key + "\"");
  return j.at(key);
}

[[noreturn]] void wrong_type(const char* key, const std::string& what) {
  throw Error(what, "", std::string("training-data profile: \"") + key + "\" has the wrong type");
}

std::string string_of(const nlohmann::json& j, const char* key, const std::string& what) {
  const nlohmann::json& v = need(j, key, what);
  if (!v.is_string()) wrong_type(key, what);
  return v.get<std::string>();
}

// One number as T. nlohmann's get<T> converts any number with a plain cast:
// a double outside an integer type's range is undefined behaviour, an
// integer outside it wraps, so the range is checked here first. Integer
// types take integers (written either way, 3 or 3.0); float takes finite
// numbers within float's range.
template <class T>
T number_of(const nlohmann::json& v, const char* key, const std::string& what) {
  if constexpr (std::is_integral_v<T>) {
    constexpr T lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
    if (v.is_number_unsigned()) {
      if (v.get<uint64_t>() <= static_cast<uint64_t>(hi)) return static_cast<T>(v.get<uint64_t>());
    } else if (v.is_number_integer()) {
      const int64_t x = v.get<int64_t>();
      if (x >= lo && x <= hi) return static_cast<T>(x);
    } else if (v.is_number_float()) {
      // 2^63 is exactly representable; int64's max is not, so compare with < bound.
      const double x = v.get<double>(), below = -std::ldexp(1.0, std::numeric_limits<T>::digits),
                   above = std::ldexp(1.0, std::numeric_limits<T>::digits);
      if (x == std::floor(x) && x >= below && x < above) return static_cast<T>(x);
    }
  } else {
    if (v.is_number()) {
      const double x = v.get<double>();
      if (std::isfinite(x) && std::fabs(x) <= std::numeric_limits<T>::max()) return static_cast<T>(x);
    }
  }
  throw Error(what, "", std::string("training-data profile: \"") + key + "\" holds " + v.dump() +
                            (std::is_integral_v<T> ? ", not an integer in range" : ", not a finite number in range"));
}

template <class T>
T get(const nlohmann::json& j, const char* key, const std::string& what) {
  return number_of<T>(need(j, key, what), key, what);
}

template <class T>
std::vector<T> numbers(const nlohmann::json& v, const char* key, const std::string& what) {
  if (!v.is_array()) wrong_type(key, what);
  std::vector<T> out;
  out.reserve(v.size());
  for (const nlohmann::json& x : v) out.push_back(number_of<T>(x, key, what));
  return out;
}

template <class T>
std::vector<T> get_numbers(const nlohmann::json& j, const char* key, const std::string& what) {
  return numbers<T>(need(j, key, what), key, what);
}

}  // namespace

std::vector<int64_t> spread_sample(int64_t count, int64_t limit) {
  std::vector<int64_t> out;
  if (count <= 0 || limit <= 0) return out;
  const int64_t n = std::min(count, limit);
  out.reserve(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) out.push_back(k * count / n);
  return out;
}

GraphSample sample_graph(const CachedGraph& g) {
  GraphSample s;
  s.kind = g.kind;
  s.node_feat_width = g.node_feat_width;
  s.node_feat = g.node_feat;
  s.node_opcode = g.node_opcode;
  s.config_positions = g.pruned.config_positions;
  s.config_feat_width = g.config_feat_width;
  s.config_rows = g.config_rows(spread_sample(g.groups.num_groups(), kProfileConfigSample));
  return s;
}

DataProfileBuilder::DataProfileBuilder(GraphKind kind, std::string origin, std::string source) {
  // Ranges start empty; finish() refuses a profile of no graphs.
  p_.min_nodes = p_.min_config_nodes = std::numeric_limits<int64_t>::max();
  p_.max_nodes = p_.max_config_nodes = std::numeric_limits<int64_t>::min();
  p_.kind = kind;
  p_.origin = std::move(origin);
  p_.source = std::move(source);
}

void DataProfileBuilder::add(const GraphSample& s, const std::string& what) {
  if (s.kind != p_.kind) throw Error(what, "", std::string("is a ") + graph_kind_name(s.kind) + " graph among " + graph_kind_name(p_.kind) + " graphs");
  const int64_t n = s.nodes();
  if (p_.graphs == 0) {
    config_width_ = s.config_feat_width;
    p_.node_min.assign(static_cast<size_t>(s.node_feat_width), INFINITY);
    p_.node_max.assign(static_cast<size_t>(s.node_feat_width), -INFINITY);
    if (p_.kind == GraphKind::Layout) {
      seen_value_.assign(static_cast<size_t>(config_width_), std::vector<uint8_t>(kMaxLayoutValue + 2, 0));
    } else {
      p_.config_min.assign(static_cast<size_t>(config_width_), INFINITY);
      p_.config_max.assign(static_cast<size_t>(config_width_), -INFINITY);
    }
  } else if (s.node_feat_width != static_cast<int64_t>(p_.node_min.size()) || s.config_feat_width != config_width_) {
    throw Error(what, "", "feature widths differ from the other training graphs'");
  }
  ++p_.graphs;
  p_.min_nodes = std::min(p_.min_nodes, n);
  p_.max_nodes = std::max(p_.max_nodes, n);
  p_.min_config_nodes = std::min(p_.min_config_nodes, s.config_nodes());
  p_.max_config_nodes = std::max(p_.max_config_nodes, s.config_nodes());
  const size_t w = static_cast<size_t>(s.node_feat_width);
  for (int64_t v = 0; v < n; ++v) {
    const float* row = s.node_feat.data() + static_cast<size_t>(v) * w;
    for (size_t c = 0; c < w; ++c) {
      p_.node_min[c] = std::min(p_.node_min[c], row[c]);
      p_.node_max[c] = std::max(p_.node_max[c], row[c]);
    }
    const int32_t op = s.node_opcode[static_cast<size_t>(v)];
    if (op >= 0) {
      if (static_cast<size_t>(op) >= seen_opcode_.size()) seen_opcode_.resize(static_cast<size_t>(op) + 1, 0);
      seen_opcode_[static_cast<size_t>(op)] = 1;
    }
  }
  const size_t cw = static_cast<size_t>(s.config_feat_width);
  if (cw == 0) return;
  for (size_t k = 0; k + cw <= s.config_rows.size(); k += cw) {
    const float* row = s.config_rows.data() + k;
    for (size_t c = 0; c < cw; ++c) {
      if (p_.kind == GraphKind::Layout) {
        const double v = row[c];
        if (v >= -1 && v <= kMaxLayoutValue && v == std::floor(v)) seen_value_[c][static_cast<size_t>(v + 1)] = 1;
      } else {
        p_.config_min[c] = std::min(p_.config_min[c], row[c]);
        p_.config_max[c] = std::max(p_.config_max[c], row[c]);
      }
    }
  }
}

DataProfile DataProfileBuilder::finish() const {
  if (p_.graphs == 0) throw Error(p_.source, "", "no graphs to profile");
  DataProfile p = p_;
  for (size_t op = 0; op < seen_opcode_.size(); ++op)
    if (seen_opcode_[op]) p.opcodes.push_back(static_cast<int32_t>(op));
  for (const auto& col : seen_value_) {
    std::vector<int32_t> values;
    for (size_t k = 0; k < col.size(); ++k)
      if (col[k]) values.push_back(static_cast<int32_t>(k) - 1);
    p.layout_values.push_back(std::move(values));
  }
  return p;
}

nlohmann::json DataProfile::to_json() const {
  nlohmann::json j = {{"version", kVersion},
                      {"kind", graph_kind_name(kind)},
                      {"origin", origin},
                      {"source", source},
                      {"graphs", graphs},
                      {"nodes", {min_nodes, max_nodes}},
                      {"node_min", node_min},
                      {"node_max", node_max},
                      {"opcodes", opcodes}};
  if (kind == GraphKind::Layout) {
    j["config_nodes"] = {min_config_nodes, max_config_nodes};
    j["layout_values"] = layout_values;
  } else {
    j["config_min"] = config_min;
    j["config_max"] = config_max;
  }
  return j;
}

DataProfile DataProfile::from_json(const nlohmann::json& j, const std::string& what) {
  if (!j.is_object()) throw Error(what, "", "training-data profile: expected a JSON object");
  const int version = get<int>(j, "version", what);
  if (version != kVersion)
    throw Error(what, "", "training-data profile version " + std::to_string(version) + "; this build reads version " + std::to_string(kVersion));
  DataProfile p;
  const std::string kind = string_of(j, "kind", what);
  if (kind != "tile" && kind != "layout") throw Error(what, "", "training-data profile: unknown kind '" + kind + "'");
  p.kind = kind == "tile" ? GraphKind::Tile : GraphKind::Layout;
  p.origin = string_of(j, "origin", what);
  p.source = string_of(j, "source", what);
  p.graphs = get<int64_t>(j, "graphs", what);
  const auto nodes = get_numbers<int64_t>(j, "nodes", what);
  p.node_min = get_numbers<float>(j, "node_min", what);
  p.node_max = get_numbers<float>(j, "node_max", what);
  p.opcodes = get_numbers<int32_t>(j, "opcodes", what);
  if (nodes.size() != 2 || p.graphs < 1 || p.node_min.size() != p.node_max.size())
    throw Error(what, "", "training-data profile: inconsistent graph count, node range or feature ranges");
  p.min_nodes = nodes[0];
  p.max_nodes = nodes[1];
  if (p.kind == GraphKind::Layout) {
    const auto cn = get_numbers<int64_t>(j, "config_nodes", what);
    if (cn.size() != 2) throw Error(what, "", "training-data profile: config_nodes must be [min, max]");
    p.min_config_nodes = cn[0];
    p.max_config_nodes = cn[1];
    const nlohmann::json& values = need(j, "layout_values", what);
    if (!values.is_array()) wrong_type("layout_values", what);
    for (const nlohmann::json& column : values) p.layout_values.push_back(numbers<int32_t>(column, "layout_values", what));
  } else {
    p.config_min = get_numbers<float>(j, "config_min", what);
    p.config_max = get_numbers<float>(j, "config_max", what);
    if (p.config_min.size() != p.config_max.size())
      throw Error(what, "", "training-data profile: config_min and config_max differ in length");
  }
  return p;
}

std::string DataProfile::summary() const {
  std::string s = origin == "generated" ? "generated data"
                  : origin == "real"    ? "real data"
                  : origin == "mixed"   ? "real and generated data"
                                        : "data of unknown origin";
  if (!source.empty()) s += " (" + source + ")";
  s += ": " + thousands(graphs) + (graphs == 1 ? " graph of " : " graphs of ") + thousands(min_nodes);
  if (max_nodes != min_nodes) s += "-" + thousands(max_nodes);
  s += " nodes";
  if (kind == GraphKind::Layout) {
    s += ", " + thousands(min_config_nodes);
    if (max_config_nodes != min_config_nodes) s += "-" + thousands(max_config_nodes);
    s += " configurable";
  }
  s += ", " + std::to_string(opcodes.size()) + " opcodes";
  return s;
}

std::string data_origin(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p = fs::absolute(fs::path(path), ec);
  if (ec) return "real";
  if (!fs::is_directory(p, ec)) {
    // `fastslow synth --graph` writes OUT/g.npz beside OUT/answers/g.npz.
    if (fs::exists(p.parent_path() / "answers" / p.filename(), ec)) return "generated";
    p = p.parent_path();
  }
  for (; !p.empty(); p = p.parent_path()) {
    if (fs::exists(p / "synth.json", ec)) return "generated";
    if (p == p.parent_path()) break;
  }
  return "real";
}

ShiftReport distribution_shift(const DataProfile& t, const GraphSample& g) {
  ShiftReport r;
  const int64_t n = g.nodes();
  if (n == 0) return r;
  const double dn = static_cast<double>(n);

  // Opcodes.
  std::vector<uint8_t> seen;
  for (int32_t op : t.opcodes)
    if (op >= 0) {
      if (static_cast<size_t>(op) >= seen.size()) seen.resize(static_cast<size_t>(op) + 1, 0);
      seen[static_cast<size_t>(op)] = 1;
    }
  auto unseen = [&](int32_t op) { return op < 0 || static_cast<size_t>(op) >= seen.size() || !seen[static_cast<size_t>(op)]; };
  std::map<int32_t, int64_t> unseen_count;
  for (int32_t op : g.node_opcode)
    if (unseen(op)) ++unseen_count[op];
  int64_t unseen_nodes = 0, unseen_configurable = 0;
  for (auto [op, c] : unseen_count) unseen_nodes += c;
  for (int64_t p : g.config_positions)
    if (unseen(g.node_opcode[static_cast<size_t>(p)])) ++unseen_configurable;
  r.unseen_opcode_share = static_cast<double>(unseen_nodes) / dn;
  if (unseen_nodes > 0 && (r.unseen_opcode_share >= 0.01 || unseen_configurable > 0)) {
    std::vector<std::pair<int64_t, int32_t>> top;
    for (auto [op, c] : unseen_count) top.emplace_back(c, op);
    std::sort(top.rbegin(), top.rend());
    std::string s = thousands(unseen_nodes) + " of " + thousands(n) + " nodes (" + percent(r.unseen_opcode_share) + ")";
    if (unseen_configurable > 0) s += ", " + thousands(unseen_configurable) + " of them configurable,";
    s += " have opcodes the model never saw in training: ";
    for (size_t k = 0; k < top.size() && k < 4; ++k) {
      const std::string name = opcode_name(top[k].second);  // "" outside the opcode table
      s += (k ? ", " : "") + (name.empty() ? "opcode " + std::to_string(top[k].second) + " (not in the table)" : name) +
           " " + thousands(top[k].first);
    }
    if (top.size() > 4) s += ", ...";
    r.findings.push_back(s);
  }

  // Sizes.
  auto size_finding = [&](int64_t v, int64_t lo, int64_t hi, const char* what) {
    if (2 * v >= lo && v <= 2 * hi) return;
    r.findings.push_back("the model reads " + thousands(v) + " " + what + " of this graph; it was trained on " +
                         thousands(lo) + (hi != lo ? "-" + thousands(hi) : "") + " " + what);
  };
  size_finding(n, t.min_nodes, t.max_nodes, "nodes");
  if (t.kind == GraphKind::Layout)
    size_finding(g.config_nodes(), t.min_config_nodes, t.max_config_nodes, "configurable nodes");

  // Node features.
  const size_t w = static_cast<size_t>(g.node_feat_width);
  if (w == t.node_min.size()) {
    std::vector<int64_t> per_column(w, 0);
    std::vector<float> worst(w, 0);
    std::vector<double> farthest(w, -1);
    int64_t nodes_out = 0;
    for (int64_t v = 0; v < n; ++v) {
      const float* row = g.node_feat.data() + static_cast<size_t>(v) * w;
      bool any = false;
      for (size_t c = 0; c < w; ++c)
        if (outside(row[c], t.node_min[c], t.node_max[c])) {
          any = true;
          ++per_column[c];
          const double far = std::max(static_cast<double>(t.node_min[c]) - row[c], static_cast<double>(row[c]) - t.node_max[c]);
          if (far > farthest[c]) farthest[c] = far, worst[c] = row[c];
        }
      nodes_out += any;
    }
    r.out_of_range_share = static_cast<double>(nodes_out) / dn;
    if (r.out_of_range_share >= 0.05) {
      std::vector<std::pair<int64_t, size_t>> top;
      for (size_t c = 0; c < w; ++c)
        if (per_column[c]) top.emplace_back(per_column[c], c);
      std::sort(top.rbegin(), top.rend());
      std::string s = percent(r.out_of_range_share) + " of the nodes have features outside the ranges the model was trained on (";
      for (size_t k = 0; k < top.size() && k < 3; ++k) {
        const size_t c = top[k].second;
        s += (k ? "; " : "") + node_column(static_cast<int64_t>(c), static_cast<int64_t>(w)) + " in " +
             thousands(top[k].first) + " nodes, e.g. " + number(worst[c]) + " against " + number(t.node_min[c]) + ".." +
             number(t.node_max[c]);
      }
      r.findings.push_back(s + ")");
    }
  }

  // Config values.
  const size_t cw = static_cast<size_t>(g.config_feat_width);
  if (cw == 0 || g.config_rows.empty()) return r;
  if (t.kind == GraphKind::Layout && cw == t.layout_values.size()) {
    std::map<std::pair<size_t, int64_t>, int64_t> count;
    int64_t settings = 0, out = 0, invalid = 0;
    std::string first_invalid;
    for (size_t k = 0; k + cw <= g.config_rows.size(); k += cw) {
      ++settings;
      bool any = false;
      for (size_t c = 0; c < cw; ++c) {
        const auto& vals = t.layout_values[c];
        const float v = g.config_rows[k + c];
        // Not a dim index at all (-1..5): no model was trained on it, at any share.
        if (!is_layout_value(v)) {
          if (invalid++ == 0)
            first_invalid = config_column(t.kind, static_cast<int64_t>(c), static_cast<int64_t>(cw)) + " = " + number(v);
          any = true;
          continue;
        }
        if (!std::binary_search(vals.begin(), vals.end(), static_cast<int32_t>(v))) {
          any = true;
          ++count[{c, static_cast<int64_t>(v)}];
        }
      }
      out += any;
    }
    if (invalid > 0)
      r.findings.push_back(thousands(invalid) + (invalid == 1 ? " layout value in a sample of configs is" : " layout values in a sample of configs are") +
                           " no dim index (-1..5), e.g. " +
                           first_invalid + ": the ranking of those configs means nothing");
    r.unseen_value_share = settings ? static_cast<double>(out) / static_cast<double>(settings) : 0;
    if (r.unseen_value_share >= 0.01 && !count.empty()) {
      std::vector<std::pair<int64_t, std::pair<size_t, int64_t>>> top;
      for (const auto& [key, c] : count) top.emplace_back(c, key);
      std::sort(top.rbegin(), top.rend());
      std::string s = percent(r.unseen_value_share) + " of the configurable-node settings in a sample of configs use layout values the model never saw (";
      for (size_t k = 0; k < top.size() && k < 3; ++k)
        s += (k ? ", " : "") + config_column(t.kind, static_cast<int64_t>(top[k].second.first), static_cast<int64_t>(cw)) + " = " +
             std::to_string(top[k].second.second);
      r.findings.push_back(s + ")");
    }
  } else if (t.kind == GraphKind::Tile && cw == t.config_min.size()) {
    std::vector<int64_t> per_column(cw, 0);
    int64_t configs = 0, out = 0;
    for (size_t k = 0; k + cw <= g.config_rows.size(); k += cw) {
      ++configs;
      bool any = false;
      for (size_t c = 0; c < cw; ++c)
        if (outside(g.config_rows[k + c], t.config_min[c], t.config_max[c])) {
          any = true;
          ++per_column[c];
        }
      out += any;
    }
    r.config_out_of_range_share = configs ? static_cast<double>(out) / static_cast<double>(configs) : 0;
    if (r.config_out_of_range_share >= 0.05) {
      size_t worst = 0;
      for (size_t c = 1; c < cw; ++c)
        if (per_column[c] > per_column[worst]) worst = c;
      r.findings.push_back(percent(r.config_out_of_range_share) +
                           " of a sample of configs have config features outside the trained ranges (most often " +
                           config_column(t.kind, static_cast<int64_t>(worst), static_cast<int64_t>(cw)) + ": " +
                           number(t.config_min[worst]) + ".." + number(t.config_max[worst]) + " in training)");
    }
  }
  return r;
}

std::string shift_warning(const std::string& file, const DataProfile& trained, const ShiftReport& report) {
  if (!report.shifted()) return "";
  std::string s = file + " lies outside what the model was trained on (" + trained.summary() +
                  "); its ranking may be no better than chance:";
  for (const std::string& f : report.findings) s += "\n  - " + f;
  return s;
}

}  // namespace fastslow
